//! Duplicate-play tournament between two computer-player levels at
//! Klaverjassen: every deal is played twice with the same hands, the
//! players swapped between the teams, so the luck of the cards cancels.
//! Prints the first player's mean score advantage per deal and its 95%
//! confidence interval.
//!
//! ```sh
//! cargo run --release --bin tournament -- --deals 2000 basic random
//! ```
//! Players: `basic`, `strong` (whatever the scheduler's `player_for` maps
//! it to), `random`.
//!
//! `strong` thinks at its default budget (at most 200 ms a decision), which
//! depends on the machine's speed. `--samples S --nodes N` give it a budget
//! of counts only (`Budget::counted`), so a run is reproducible:
//! ```sh
//! cargo run --release --bin tournament -- --deals 2000 --samples 32 --nodes 2000000 strong basic
//! ```
//! Its trump choice then has the counts of `TRUMP_BUDGET` without the
//! clock, or `--trump-samples S --trump-nodes N`.
//!
//! `--options JSON` plays every deal under those Klaverjassen table options
//! (the house rules of RULES.md section 3; `deals` is always 1):
//! ```sh
//! cargo run --release --bin tournament -- --deals 2000 \
//!     --options '{"trump_obligation":"amsterdam","undertrump":"required"}' strong basic
//! ```
//!
//! Potverteren (`--game potverteren`, see [`potverteren`]):
//! ```sh
//! cargo run --release --bin tournament -- --game potverteren --rounds 20000 strong basic
//! ```

use kaarttafel::ai::klaverjassen::StrongPlayer;
use kaarttafel::ai::klaverjassen::strong::{Budget, TRUMP_BUDGET};
use kaarttafel::ai::{Player, Players, RandomPlayer};
use kaarttafel::app::play::player_for;
use kaarttafel::rules::Seat;
use kaarttafel::rules::klaverjassen::{self, Match, Team};
use kaarttafel::table::{
    Game, GameKind, Level, Options, Rules, SeatedPlayer, Status, TableOptions,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use uuid::Uuid;

/// The player named `name` of the game `G`: `random`, or a level's.
fn named<G: Players>(name: &str) -> Box<dyn Player<G>>
where
    G::Move: Clone,
{
    match name {
        "random" => Box::new(RandomPlayer),
        other => {
            player_for(Level::parse(other).unwrap_or_else(|| panic!("unknown player {other}")))
        }
    }
}

/// The Klaverjassen player named `name`; `strong` at `budgets` (cards,
/// trump) when given.
fn player(name: &str, budgets: Option<(Budget, Budget)>) -> Box<dyn Player<Match>> {
    match (name, budgets) {
        ("strong", Some((budget, trump_budget))) => Box::new(StrongPlayer {
            budget,
            trump_budget,
        }),
        (other, _) => named(other),
    }
}

/// The table options of every deal: `given` (a JSON object of
/// Klaverjassen options) with `deals` 1.
fn deal_options(given: Option<&str>) -> Options {
    let mut options: serde_json::Value = given.map_or_else(
        || serde_json::json!({}),
        |text| serde_json::from_str(text).expect("--options takes a JSON object"),
    );
    options["deals"] = serde_json::json!(1);
    Options::parse(GameKind::Klaverjassen, Some(options)).unwrap_or_else(|e| panic!("{e}"))
}

/// Plays one deal of `hands` at a table with `options`, with `a` in seats 0
/// and 2 and `b` in 1 and 3; returns team A's score minus team B's.
fn play_deal(
    options: &Options,
    hands: klaverjassen::BySeat<klaverjassen::CardSet>,
    a: &dyn Player<Match>,
    b: &dyn Player<Match>,
    rng: &mut StdRng,
) -> i32 {
    let options = options.clone();
    let Options::Klaverjassen(rules_options) = options.clone() else {
        unreachable!()
    };
    let seat = |i: u8| {
        Some(SeatedPlayer {
            id: Uuid::from_u128(u128::from(i) + 1),
            name: format!("seat {i}"),
            bot: Some(Level::Basic),
        })
    };
    let mut game = Game::create(
        Uuid::nil(),
        GameKind::Klaverjassen,
        options,
        TableOptions::default(),
        seat(0).expect("seat"),
        Some(0),
        rng,
    )
    .expect("table");
    game.seats = (0..4).map(seat).collect();
    game.status = Status::Playing;
    game.rules = Some(Rules::Klaverjassen(Match::from_hands(rules_options, hands)));
    while game.status == Status::Playing {
        let to_move = game.awaiting().expect("awaiting").seats[0];
        let who = if to_move.0.is_multiple_of(2) { a } else { b };
        let mv = kaarttafel::ai::decide(match_of(&game), to_move, who, rng).expect("a move");
        game.play_for(to_move, mv.into(), rng).expect("legal");
    }
    let sheet = match_of(&game).view_for(None).deals;
    let row = sheet.last().expect("a finished deal");
    row.score[Team::A] - row.score[Team::B]
}

/// The Klaverjassen match of `game`.
fn match_of(game: &Game) -> &Match {
    match &game.rules {
        Some(Rules::Klaverjassen(rules)) => rules,
        _ => unreachable!(),
    }
}

/// The mean of `diffs` and the half-width of its 95% confidence interval.
fn mean_and_half_width(diffs: &[f64]) -> (f64, f64) {
    let count = diffs.len() as f64;
    let mean = diffs.iter().sum::<f64>() / count;
    let variance = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (count - 1.0);
    (mean, 1.96 * (variance / count).sqrt())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .windows(2)
        .any(|w| w[0] == "--game" && w[1] == "potverteren")
    {
        potverteren::main(&args);
        return;
    }
    let mut deals = 2000usize;
    let mut names = Vec::new();
    let (mut samples, mut nodes) = (None, None);
    let (mut trump_samples, mut trump_nodes) = (None, None);
    let mut given = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--options" {
            given = Some(args[i + 1].clone());
            i += 2;
        } else if args[i] == "--deals" {
            deals = args[i + 1].parse().expect("--deals N");
            i += 2;
        } else if args[i] == "--samples" {
            samples = Some(args[i + 1].parse::<u32>().expect("--samples S"));
            i += 2;
        } else if args[i] == "--nodes" {
            nodes = Some(args[i + 1].parse::<u64>().expect("--nodes N"));
            i += 2;
        } else if args[i] == "--trump-samples" {
            trump_samples = Some(args[i + 1].parse::<u32>().expect("--trump-samples S"));
            i += 2;
        } else if args[i] == "--trump-nodes" {
            trump_nodes = Some(args[i + 1].parse::<u64>().expect("--trump-nodes N"));
            i += 2;
        } else {
            names.push(args[i].clone());
            i += 1;
        }
    }
    let first = names.first().map_or("basic", String::as_str).to_owned();
    let second = names.get(1).map_or("random", String::as_str).to_owned();
    let budgets = (samples.is_some() || nodes.is_some()).then(|| {
        let default = Budget::default();
        (
            Budget::counted(
                samples.unwrap_or(default.samples),
                nodes.unwrap_or(default.nodes),
            ),
            Budget::counted(
                trump_samples.unwrap_or(TRUMP_BUDGET.samples),
                trump_nodes.unwrap_or(TRUMP_BUDGET.nodes),
            ),
        )
    });
    let (a, b) = (player(&first, budgets), player(&second, budgets));
    let options = deal_options(given.as_deref());
    let started = std::time::Instant::now();
    let mut diffs = Vec::with_capacity(deals);
    for n in 0..deals {
        let mut deck_rng = StdRng::seed_from_u64(n as u64);
        let deck = klaverjassen::shuffled_deck(&mut deck_rng, 1);
        let hands = klaverjassen::deal_from_deck(&deck, Seat(3));
        let mut rng = StdRng::seed_from_u64(1_000_000 + n as u64);
        let straight = play_deal(&options, hands, a.as_ref(), b.as_ref(), &mut rng);
        let mut rng = StdRng::seed_from_u64(2_000_000 + n as u64);
        let swapped = -play_deal(&options, hands, b.as_ref(), a.as_ref(), &mut rng);
        diffs.push(f64::from(straight + swapped) / 2.0);
        if (n + 1) % 100 == 0 {
            let (mean, half) = mean_and_half_width(&diffs);
            eprintln!(
                "{} deals: {mean:+.1} (95% CI {:+.1} to {:+.1}), {:.0} s",
                n + 1,
                mean - half,
                mean + half,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let (mean, half) = mean_and_half_width(&diffs);
    let Options::Klaverjassen(shown) = &options else {
        unreachable!()
    };
    println!(
        "{first} vs {second} ({:?}): {deals} deals in duplicate; {first}'s team scores {mean:+.1} points per deal more (95% CI {:+.1} to {:+.1}); {:.0} s",
        shown.house_rules(),
        mean - half,
        mean + half,
        started.elapsed().as_secs_f64()
    );
}

/// Potverteren in duplicate: each table (5 seats, auction variant, 10
/// rounds) is played twice from the same seed, so with the same decks and
/// lots: once with the first player in one seat and the second player in
/// the four others, once with the second player in every seat. The seat
/// rotates over the tables. What the first player wins in that seat more
/// than the second player wins there with the same cards, per round, is the
/// first player's advantage in chips per round (mean and 95% CI over the
/// tables).
mod potverteren {
    use kaarttafel::ai::Player;
    use kaarttafel::rules::Seat;
    use kaarttafel::rules::potverteren::Table;
    use kaarttafel::table::{Game, GameKind, Level, Options, Rules, SeatedPlayer, TableOptions};
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use uuid::Uuid;

    use super::named;

    const SEATS: u8 = 5;
    const ROUNDS_PER_TABLE: u32 = 10;

    /// Plays `ROUNDS_PER_TABLE` rounds of a table from `seed` with `hero` in
    /// `seat` and `field` elsewhere; returns `seat`'s chips won.
    fn play_table(
        seed: u64,
        seat: Seat,
        hero: &dyn Player<Table>,
        field: &dyn Player<Table>,
    ) -> i64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let options = Options::parse(
            GameKind::Potverteren,
            Some(serde_json::json!({"seats": SEATS, "starting_chips": 1000})),
        )
        .expect("options");
        let seated = |i: u8| SeatedPlayer {
            id: Uuid::from_u128(u128::from(i) + 1),
            name: format!("seat {i}"),
            bot: Some(Level::Basic),
        };
        let mut game = Game::create(
            Uuid::from_u128(u128::from(seed)),
            GameKind::Potverteren,
            options,
            TableOptions::default(),
            seated(0),
            Some(0),
            &mut rng,
        )
        .expect("table");
        for i in 1..SEATS {
            game.join(seated(i), Some(i)).expect("seat");
        }
        let start = balance(&game, seat);
        loop {
            let table = table_of(&game);
            if table.settled_rounds().len() as u32 >= ROUNDS_PER_TABLE {
                break;
            }
            let to_move = game.awaiting().expect("awaiting").seats[0];
            let who = if to_move == seat { hero } else { field };
            let mv = kaarttafel::ai::decide(table, to_move, who, &mut rng).expect("a move");
            game.play_for(to_move, mv.into(), &mut rng).expect("legal");
        }
        balance(&game, seat) - start
    }

    fn balance(game: &Game, seat: Seat) -> i64 {
        table_of(game).balances()[seat.index()]
    }

    /// The Potverteren table of `game`.
    fn table_of(game: &Game) -> &Table {
        match &game.rules {
            Some(Rules::Potverteren(table)) => table,
            _ => unreachable!(),
        }
    }

    pub fn main(args: &[String]) {
        let mut rounds = 20_000u32;
        let mut names = Vec::new();
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--rounds" => {
                    rounds = args[i + 1].parse().expect("--rounds N");
                    i += 2;
                }
                "--game" => i += 2,
                other => {
                    names.push(other.to_owned());
                    i += 1;
                }
            }
        }
        let first = names.first().map_or("strong", String::as_str).to_owned();
        let second = names.get(1).map_or("basic", String::as_str).to_owned();
        let (a, b) = (named::<Table>(&first), named::<Table>(&second));
        let tables = rounds.div_ceil(ROUNDS_PER_TABLE);
        let mut diffs = Vec::with_capacity(tables as usize);
        for n in 0..tables {
            let seed = u64::from(n);
            let seat = Seat((n % u32::from(SEATS)) as u8);
            let with = play_table(seed, seat, a.as_ref(), b.as_ref());
            let without = play_table(seed, seat, b.as_ref(), b.as_ref());
            diffs.push((with - without) as f64 / f64::from(ROUNDS_PER_TABLE));
        }
        let (mean, half) = super::mean_and_half_width(&diffs);
        println!(
            "potverteren {first} vs {second}: {} rounds in duplicate ({tables} tables of {ROUNDS_PER_TABLE} rounds, 5 seats, auction); {first} in one seat wins {mean:+.3} chips per round more than {second} in that seat with the same cards (95% CI {:+.3} to {:+.3})",
            tables * ROUNDS_PER_TABLE,
            mean - half,
            mean + half
        );
    }
}
