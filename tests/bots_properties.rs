//! Properties of the computer players over many seeded games, without a
//! database: they never make an illegal move, and they decide from the
//! seat's view alone.

use kaarttafel::ai::{RandomPlayer, decide};
use kaarttafel::app::play::computer_move;
use kaarttafel::rules::Seat;
use kaarttafel::rules::klaverjassen::{CardSet, HouseRules, Match};
use kaarttafel::table::{
    Game, GameKind, Level, Move, Options, Rules, SeatedPlayer, Status, TableOptions,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::json;
use uuid::Uuid;

fn bot(level: Level) -> SeatedPlayer {
    SeatedPlayer {
        id: Uuid::new_v4(),
        name: "bot".into(),
        bot: Some(level),
    }
}

/// A full table of computer players of `level`.
fn table(kind: GameKind, options: serde_json::Value, rng: &mut StdRng) -> Game {
    let options = Options::parse(kind, Some(options)).unwrap();
    let seats = options.seat_count();
    let mut game = Game::create(
        Uuid::new_v4(),
        kind,
        options,
        TableOptions::default(),
        bot(Level::Basic),
        Some(0),
        rng,
    )
    .unwrap();
    for _ in 1..seats {
        game.join(bot(Level::Basic), None).unwrap();
    }
    game
}

/// The Klaverjassen match of `game`.
fn match_of(game: &Game) -> &Match {
    match &game.rules {
        Some(Rules::Klaverjassen(rules)) => rules,
        _ => panic!("a Klaverjassen game under way"),
    }
}

/// Plays `game` with the basic player in every seat for at most `steps`
/// moves, checking each chosen move against the seat's legal moves.
fn play_out(game: &mut Game, steps: usize, rng: &mut StdRng) {
    for _ in 0..steps {
        if game.status != Status::Playing {
            return;
        }
        let seat = game.awaiting().unwrap().seats[0];
        let view = game.view_of_seat(Some(seat));
        let mv = computer_move(game.rules.as_ref().unwrap(), seat, Level::Basic, rng)
            .expect("a move when awaited");
        assert!(view.legal_moves.contains(&mv), "{mv:?} is not legal");
        game.play_for(seat, mv, rng)
            .expect("a legal move is accepted");
    }
}

/// The house rules of case `case` as table options: every combination in
/// turn (RULES.md section 3).
fn house_rules(case: u64) -> serde_json::Value {
    let all = HouseRules::all();
    let rules = all[case as usize % all.len()];
    let options = kaarttafel::rules::klaverjassen::Options::default().with_house_rules(rules);
    let json = serde_json::to_value(options).unwrap();
    json!({
        "trump_obligation": json["trump_obligation"],
        "undertrump": json["undertrump"],
        "trump_choice": json["trump_choice"],
        "four_jacks": json["four_jacks"],
    })
}

#[test]
fn basic_players_never_make_an_illegal_klaverjassen_move() {
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mode = if seed % 2 == 0 { "enforced" } else { "club" };
        let mut options = house_rules(seed / 2);
        options["revoke_mode"] = json!(mode);
        options["deals"] = json!(4);
        let mut game = table(GameKind::Klaverjassen, options, &mut rng);
        play_out(&mut game, 10_000, &mut rng);
        assert_eq!(game.status, Status::Finished, "seed {seed}");
    }
}

#[test]
fn the_basic_player_passes_a_weak_hand_and_names_trump_when_it_must() {
    use kaarttafel::ai::Player;
    use kaarttafel::ai::klaverjassen::BasicPlayer;
    use kaarttafel::rules::klaverjassen::{BySeat, Move as KlaverMove, TrumpChoice};
    let cards = |codes: &str| -> CardSet {
        codes
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect()
    };
    let hands = BySeat([
        cards("7C 8C 9C 7D 8D 7S 8S QS"),
        cards("JH 9H AH 10H AC AD 9S 10S"),
        cards("10C JC QC KC 10D JD QD KD"),
        cards("7H 8H QH KH JS KS AS 9D"),
    ]);
    let options = kaarttafel::rules::klaverjassen::Options {
        trump_choice: TrumpChoice::PassRound,
        ..Default::default()
    };
    let mut game = Match::from_hands(options.clone(), hands);
    let rng = &mut StdRng::seed_from_u64(1);
    let choose = |game: &Match, seat: Seat, rng: &mut StdRng| {
        BasicPlayer.choose(
            seat,
            &game.view_for(Some(seat)),
            &game.legal_moves(seat),
            rng,
        )
    };
    // Seat 0's best suit, clubs (7, 8, 9), is weak: it passes.
    assert_eq!(choose(&game, Seat(0), rng), Some(KlaverMove::Pass));
    game.play(Seat(0), KlaverMove::Pass, rng).unwrap();
    // Seat 1 holds the jack, nine, ace and ten of hearts.
    assert_eq!(
        choose(&game, Seat(1), rng),
        Some(KlaverMove::ChooseTrump {
            suit: kaarttafel::rules::cards::Suit::Hearts
        })
    );
    // After four passes seat 0 may not pass: it names its best suit.
    let mut all_passed = Match::from_hands(options, hands);
    for seat in 0..4 {
        all_passed.play(Seat(seat), KlaverMove::Pass, rng).unwrap();
    }
    assert_eq!(
        choose(&all_passed, Seat(0), rng),
        Some(KlaverMove::ChooseTrump {
            suit: kaarttafel::rules::cards::Suit::Clubs
        })
    );
}

#[test]
fn basic_players_never_make_an_illegal_potverteren_move() {
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let variant = if seed % 2 == 0 { "auction" } else { "lot" };
        let seats = 5 + (seed % 6) as u8;
        let mut game = table(
            GameKind::Potverteren,
            json!({"seats": seats, "variant": variant}),
            &mut rng,
        );
        play_out(&mut game, 1_500, &mut rng);
        assert_eq!(game.status, Status::Playing, "seed {seed}");
    }
}

/// `game` with one card swapped between the hands of two seats other than
/// `seat`: a state that differs only in cards `seat` may not see.
fn swap_hidden_cards(game: &Game, seat: Seat) -> Option<Game> {
    let mut rules = serde_json::to_value(game.rules.as_ref()?).unwrap();
    let deal = &mut rules["klaverjassen"]["deal"];
    // The state stores a hand as its bits and still reads card codes:
    // swap cards in their codes.
    for field in ["hands", "dealt"] {
        for hand in deal[field].as_array_mut()? {
            if let Some(bits) = hand.as_u64() {
                *hand = json!(CardSet::from_bits(u32::try_from(bits).ok()?));
            }
        }
    }
    let others: Vec<usize> = (0..4)
        .filter(|s| *s != seat.index())
        .filter(|s| deal["hands"][s].as_array().is_some_and(|h| !h.is_empty()))
        .collect();
    let (a, b) = (*others.first()?, *others.get(1)?);
    let card_a = deal["hands"][a][0].clone();
    let card_b = deal["hands"][b][0].clone();
    for field in ["hands", "dealt"] {
        for (from, old, new) in [(a, &card_a, &card_b), (b, &card_b, &card_a)] {
            if let Some(cards) = deal[field][from].as_array_mut() {
                for card in cards.iter_mut() {
                    if card == old {
                        *card = new.clone();
                    }
                }
            }
        }
    }
    let mut other = game.clone();
    other.rules = Some(serde_json::from_value::<Rules>(rules).ok()?);
    (other.rules != game.rules).then_some(other)
}

#[test]
fn a_basic_player_decides_the_same_when_only_cards_it_may_not_see_differ() {
    let mut compared = 0;
    for seed in 0..20 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = table(GameKind::Klaverjassen, json!({"deals": 2}), &mut rng);
        while game.status == Status::Playing {
            let seat = game.awaiting().unwrap().seats[0];
            let mv =
                computer_move(game.rules.as_ref().unwrap(), seat, Level::Basic, &mut rng).unwrap();
            if let Some(other) = swap_hidden_cards(&game, seat) {
                let same =
                    computer_move(other.rules.as_ref().unwrap(), seat, Level::Basic, &mut rng)
                        .unwrap();
                assert_eq!(mv, same, "seed {seed}: the decision saw a hidden card");
                compared += 1;
            }
            game.play_for(seat, mv, &mut rng).unwrap();
        }
    }
    assert!(compared > 1000, "only {compared} decisions compared");
}

#[test]
fn the_random_player_only_makes_legal_moves() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut game = table(GameKind::Klaverjassen, json!({"deals": 2}), &mut rng);
    while game.status == Status::Playing {
        let seat = game.awaiting().unwrap().seats[0];
        let view = game.view_of_seat(Some(seat));
        let mv = Move::from(decide(match_of(&game), seat, &RandomPlayer, &mut rng).unwrap());
        assert!(view.legal_moves.contains(&mv));
        game.play_for(seat, mv, &mut rng).unwrap();
    }
}

/// `strong` at Klaverjassen is the solver player (not `basic` under another
/// name): late in a deal, where 32 samples finish long before the 200 ms
/// clock, the scheduler's `player_for` decides exactly as the solver player
/// with the same counts and no clock, given the same random seed, and that
/// decision is not always `basic`'s.
#[test]
fn the_strong_level_at_klaverjassen_plays_through_the_solver_player() {
    use kaarttafel::ai::klaverjassen::StrongPlayer;
    use kaarttafel::ai::klaverjassen::strong::Budget;

    let solver_player = StrongPlayer {
        budget: Budget {
            time: None,
            ..Budget::default()
        },
        ..StrongPlayer::default()
    };
    let (mut compared, mut unlike_basic) = (0, 0);
    for seed in 0..6 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = table(GameKind::Klaverjassen, json!({"deals": 8}), &mut rng);
        while game.status == Status::Playing {
            let seat = game.awaiting().unwrap().seats[0];
            let view = game.view_of_seat(Some(seat));
            let rules = game.rules.as_ref().unwrap();
            let mv = computer_move(rules, seat, Level::Basic, &mut rng).unwrap();
            let cards_left = view.klaverjassen.as_ref().map_or(0, |k| k.hand.len());
            if view.legal_moves.len() > 1 && (1..=2).contains(&cards_left) {
                let decision_seed = seed * 1_000 + game.version as u64;
                let chosen = computer_move(
                    rules,
                    seat,
                    Level::Strong,
                    &mut StdRng::seed_from_u64(decision_seed),
                )
                .unwrap();
                let expected = Move::from(
                    decide(
                        match_of(&game),
                        seat,
                        &solver_player,
                        &mut StdRng::seed_from_u64(decision_seed),
                    )
                    .unwrap(),
                );
                assert_eq!(chosen, expected, "seed {seed}, version {}", game.version);
                assert!(view.legal_moves.contains(&chosen));
                compared += 1;
                unlike_basic += usize::from(chosen != mv);
            }
            game.play_for(seat, mv, &mut rng).unwrap();
        }
    }
    assert!(compared >= 100, "only {compared} decisions compared");
    assert!(unlike_basic > 0, "strong chose as basic in all {compared}");
}

/// When not one sampled deal can be solved within its budget, the `strong`
/// Klaverjassen player plays as `basic` (not the first legal card), for
/// trump and for cards alike.
#[test]
fn a_strong_player_that_cannot_solve_one_sample_in_its_budget_plays_as_basic() {
    use kaarttafel::ai::klaverjassen::StrongPlayer;
    use kaarttafel::ai::klaverjassen::strong::Budget;
    use kaarttafel::rules::klaverjassen::Phase;

    let budget = Budget::counted(32, 10);
    let starved = StrongPlayer {
        budget,
        trump_budget: budget,
    };
    let (mut cards, mut trumps) = (0, 0);
    for seed in 0..4 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = table(GameKind::Klaverjassen, json!({"deals": 4}), &mut rng);
        while game.status == Status::Playing {
            let seat = game.awaiting().unwrap().seats[0];
            let view = game.view_of_seat(Some(seat));
            let mv =
                computer_move(game.rules.as_ref().unwrap(), seat, Level::Basic, &mut rng).unwrap();
            let klaverjassen = view.klaverjassen.as_ref().unwrap();
            let legal = view.klaverjassen_moves();
            let decision_seed = seed * 1_000 + game.version as u64;
            let decision = kaarttafel::ai::klaverjassen::strong::decide(
                seat,
                klaverjassen,
                &legal,
                budget,
                &mut StdRng::seed_from_u64(decision_seed),
            );
            if decision.is_some_and(|d| d.out_of_budget) {
                let chosen = Move::from(
                    decide(
                        match_of(&game),
                        seat,
                        &starved,
                        &mut StdRng::seed_from_u64(decision_seed),
                    )
                    .unwrap(),
                );
                assert_eq!(chosen, mv, "seed {seed}, version {}", game.version);
                match klaverjassen.phase {
                    Phase::ChoosingTrump => trumps += 1,
                    _ => cards += 1,
                }
            }
            game.play_for(seat, mv, &mut rng).unwrap();
        }
    }
    assert!(
        cards >= 100 && trumps >= 10,
        "{cards} cards, {trumps} trumps"
    );
}

/// The `strong` Potverteren player, seated at tables of every size and both
/// variants, only ever makes one of the seat's legal moves.
#[test]
fn strong_potverteren_player_only_makes_legal_moves() {
    use kaarttafel::ai::potverteren::StrongPlayer;

    let seated = |i: u8| SeatedPlayer {
        id: Uuid::from_u128(u128::from(i) + 1),
        name: format!("seat {i}"),
        bot: Some(Level::Strong),
    };
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let variant = if seed % 2 == 0 { "auction" } else { "lot" };
        let seats = 5 + (seed % 6) as u8;
        let options = Options::parse(
            GameKind::Potverteren,
            Some(serde_json::json!({"seats": seats, "variant": variant})),
        )
        .unwrap();
        let mut game = Game::create(
            Uuid::new_v4(),
            GameKind::Potverteren,
            options,
            TableOptions::default(),
            seated(0),
            Some(0),
            &mut rng,
        )
        .unwrap();
        for i in 1..seats {
            game.join(seated(i), None).unwrap();
        }
        for _ in 0..150 {
            let seat = game.awaiting().unwrap().seats[0];
            let view = game.view_of_seat(Some(seat));
            let Some(Rules::Potverteren(rules)) = &game.rules else {
                panic!("a Potverteren game under way");
            };
            let mv = Move::from(decide(rules, seat, &StrongPlayer, &mut rng).expect("a move"));
            assert!(view.legal_moves.contains(&mv), "{mv:?} is not legal");
            game.play_for(seat, mv, &mut rng).unwrap();
        }
    }
}
