//! Properties over many seeded random deals in both revoke modes and every
//! combination of the house rules (RULES.md section 3): card conservation,
//! 162 points, legality against the rule text written out apart, an
//! independent recomputation of every score sheet row, views that never
//! leak another seat's hand, legal moves that follow from the seat's own
//! view alone and are never empty while a seat is awaited, and exact
//! save/reload.

use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    ByTeam, CardSet, DealRecord, FourJacks, HouseRules, Match, Move, Options, Phase, RevokeMode,
    Team, TrumpChoice, TrumpObligation, Undertrump, View,
};
use kaarttafel::rules::{Action, Seat};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const DEALS_PER_MODE: u64 = 10_000;
const DEALS_PER_MATCH: u8 = 4;

// ---- an independent recomputation of a deal's score, written from docs/klaverjassen.md ----

const NATURAL: [&str; 8] = ["7", "8", "9", "10", "J", "Q", "K", "A"];
const TRUMP_LOW_TO_HIGH: [&str; 8] = ["7", "8", "Q", "K", "10", "A", "9", "J"];
const PLAIN_LOW_TO_HIGH: [&str; 8] = ["7", "8", "9", "J", "Q", "K", "10", "A"];

fn position(order: &[&str; 8], card: Card) -> i32 {
    let code = card.rank.to_string();
    order.iter().position(|r| *r == code).unwrap() as i32
}

fn worth(card: Card, trump: Suit) -> i32 {
    let code = card.rank.to_string();
    match (card.suit == trump, code.as_str()) {
        (true, "J") => 20,
        (true, "9") => 14,
        (false, "J") => 2,
        (_, "A") => 11,
        (_, "10") => 10,
        (_, "K") => 4,
        (_, "Q") => 3,
        _ => 0,
    }
}

fn bonus(cards: &[Card], trump: Suit, rules: HouseRules) -> i32 {
    if cards.iter().all(|c| c.rank == cards[0].rank) {
        return match (cards[0].rank.to_string().as_str(), rules.four_jacks) {
            ("J", FourJacks::TwoHundred) => 200,
            _ => 100,
        };
    }
    let mut sequence = 0;
    for suit in Suit::ALL {
        let mut ranks: Vec<i32> = cards
            .iter()
            .filter(|c| c.suit == suit)
            .map(|c| position(&NATURAL, *c))
            .collect();
        ranks.sort();
        let mut run = 1;
        for pair in ranks.windows(2) {
            run = if pair[1] == pair[0] + 1 { run + 1 } else { 1 };
            sequence = sequence.max(match run {
                3 => 20,
                4 => 50,
                _ => 0,
            });
        }
    }
    let has = |rank: &str| {
        cards
            .iter()
            .any(|c| c.suit == trump && c.rank.to_string() == rank)
    };
    sequence + if has("K") && has("Q") { 20 } else { 0 }
}

fn team(seat: Seat) -> usize {
    usize::from(seat.0 % 2)
}

fn recompute(
    row: &DealRecord,
    rules: HouseRules,
) -> (ByTeam<i32>, ByTeam<i32>, ByTeam<i32>, bool, bool) {
    let trump = row.trump;
    let mut points = [0; 2];
    let mut roem = [0; 2];
    let mut tricks = [0; 2];
    for (i, trick) in row.tricks.iter().enumerate() {
        let led = trick.cards[0].card.suit;
        let strength = |c: Card| {
            if c.suit == trump {
                100 + position(&TRUMP_LOW_TO_HIGH, c)
            } else if c.suit == led {
                position(&PLAIN_LOW_TO_HIGH, c)
            } else {
                -1
            }
        };
        let best = trick.cards.iter().max_by_key(|p| strength(p.card)).unwrap();
        assert_eq!(trick.winner, best.seat, "winner of trick {}", trick.number);
        let cards: Vec<Card> = trick.cards.iter().map(|p| p.card).collect();
        let t = team(best.seat);
        points[t] += cards.iter().map(|c| worth(*c, trump)).sum::<i32>();
        roem[t] += bonus(&cards, trump, rules);
        tricks[t] += 1;
        if i == 7 {
            points[t] += 10;
        }
    }
    let all_roem = roem[0] + roem[1];
    let playing = match row.playing_team {
        Team::A => 0,
        Team::B => 1,
    };
    let mut score = [0; 2];
    let (mut pit, mut nat) = (false, false);
    if let Some(report) = row.report {
        let punished = if report.valid {
            team(report.seat)
        } else {
            team(report.reported_by)
        };
        score[1 - punished] = 262 + all_roem;
    } else if points[playing] + roem[playing] > points[1 - playing] + roem[1 - playing] {
        pit = tricks[playing] == 8;
        score[playing] = points[playing] + roem[playing] + if pit { 100 } else { 0 };
        score[1 - playing] = points[1 - playing] + roem[1 - playing];
    } else {
        nat = true;
        score[1 - playing] = 162 + all_roem;
    }
    let by = |v: [i32; 2]| ByTeam::new(v[0], v[1]);
    (by(points), by(roem), by(score), pit, nat)
}

fn check_row(row: &DealRecord, rules: HouseRules) {
    let (points, roem, score, pit, nat) = recompute(row, rules);
    assert_eq!(
        (row.card_points, row.roem, row.score, row.pit, row.nat),
        (points, roem, score, pit, nat)
    );
    let dealt = row.hands.0.iter().fold(CardSet::EMPTY, |a, h| a | *h);
    assert_eq!(dealt, CardSet::DECK);
    let mut played = CardSet::EMPTY;
    for trick in &row.tricks {
        for p in trick.cards {
            assert!(
                row.hands[p.seat].contains(p.card),
                "{} played a card it was dealt",
                p.seat
            );
            assert!(!played.contains(p.card), "{} played twice", p.card);
            played.insert(p.card);
        }
    }
    if row.report.is_none() {
        assert_eq!(row.tricks.len(), 8);
        assert_eq!(played, CardSet::DECK, "every card is played exactly once");
        assert_eq!(row.card_points.a + row.card_points.b, 162);
    }
}

// ---- which cards may be played, written from the rule text apart ----

/// A trump's place in the trump order (7 lowest, jack highest).
fn trump_place(card: Card) -> i32 {
    position(&TRUMP_LOW_TO_HIGH, card)
}

/// The cards `hand` may play into `trick` (seat and card, in play order)
/// by RULES.md sections 1 and 3, written out card by card.
fn allowed_by_the_text(
    hand: CardSet,
    trick: &[(Seat, Card)],
    me: Seat,
    trump: Suit,
    rules: HouseRules,
) -> CardSet {
    let Some(&(_, first)) = trick.first() else {
        return hand;
    };
    let led = first.suit;
    let strength = |c: Card| {
        if c.suit == trump {
            100 + trump_place(c)
        } else if c.suit == led {
            position(&PLAIN_LOW_TO_HIGH, c)
        } else {
            -1
        }
    };
    let winner = trick.iter().max_by_key(|(_, c)| strength(*c)).unwrap().0;
    let highest = trick
        .iter()
        .filter(|(_, c)| c.suit == trump)
        .map(|(_, c)| trump_place(*c))
        .max();
    let of =
        |keep: &dyn Fn(Card) -> bool| -> CardSet { hand.iter().filter(|c| keep(*c)).collect() };
    let trumps = of(&|c| c.suit == trump);
    let above = of(&|c| c.suit == trump && highest.is_none_or(|h| trump_place(c) > h));
    if led == trump {
        return if trumps.is_empty() {
            hand
        } else if !above.is_empty() {
            above
        } else {
            trumps
        };
    }
    let follow = of(&|c| c.suit == led);
    if !follow.is_empty() {
        return follow;
    }
    if trumps.is_empty() {
        return hand;
    }
    let partner = Seat((me.0 + 2) % 4);
    if rules.trump_obligation == TrumpObligation::Amsterdam && winner == partner {
        // Anything but a trump lower than the highest in the trick, unless
        // nothing else is left.
        let lower = trumps - above;
        let rest = hand - lower;
        return if rest.is_empty() { hand } else { rest };
    }
    if highest.is_none() {
        return trumps;
    }
    if !above.is_empty() {
        return above;
    }
    if rules.undertrump == Undertrump::Required {
        return trumps;
    }
    let plain = hand - trumps;
    if plain.is_empty() { hand } else { plain }
}

// ---- what a seat may do follows from what it may see ----

fn moves_from_view(view: &View, seat: Seat, club: bool, game: &Match) -> Vec<Move> {
    let mut opponents = [Seat((seat.0 + 1) % 4), Seat((seat.0 + 3) % 4)];
    opponents.sort();
    let reports = opponents.map(|seat| Move::ReportRevoke { seat });
    match view.phase {
        Phase::Finished => vec![],
        Phase::Dealing if seat == view.dealer => vec![Move::Deal],
        Phase::ChoosingTrump if seat == Seat((view.dealer.0 + 1 + view.passed.len() as u8) % 4) => {
            let mut moves = Suit::ALL.map(|suit| Move::ChooseTrump { suit }).to_vec();
            if view.house_rules.trump_choice == TrumpChoice::PassRound && view.passed.len() < 4 {
                moves.push(Move::Pass);
            }
            moves
        }
        Phase::Dealing | Phase::ChoosingTrump => vec![],
        Phase::Playing => {
            let trick = view.trick.as_ref().unwrap();
            let next = Seat((trick.leader.0 + trick.cards.len() as u8) % 4);
            let mut moves = vec![];
            if next == seat {
                let played: Vec<(Seat, Card)> =
                    trick.cards.iter().map(|p| (p.seat, p.card)).collect();
                let allowed = allowed_by_the_text(
                    view.hand,
                    &played,
                    seat,
                    view.trump.unwrap(),
                    view.house_rules,
                );
                moves.extend(allowed.iter().map(|card| Move::Play { card }));
            }
            if club {
                if trick.cards.iter().any(|p| p.seat == seat) {
                    moves.push(Move::TakeBack);
                }
                moves.extend(reports);
            }
            moves
        }
        Phase::Review => {
            // Who is done is public: it is the table's `awaiting`.
            let awaiting = game.awaiting().unwrap();
            if awaiting.seats.contains(&seat) {
                let mut moves = vec![Move::EndReview];
                moves.extend(reports);
                moves
            } else {
                vec![]
            }
        }
    }
}

/// Every string anywhere in a JSON value (cards are written as strings).
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(text) => out.push(text.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        serde_json::Value::Object(fields) => fields.values().for_each(|item| strings(item, out)),
        _ => {}
    }
}

fn check_views(game: &Match, club: bool) {
    for viewer in [
        None,
        Some(Seat(0)),
        Some(Seat(1)),
        Some(Seat(2)),
        Some(Seat(3)),
    ] {
        let mut view = game.view_for(viewer);
        // Finished deals are public; the rest must not show another hand.
        let finished = std::mem::take(&mut view.deals);
        assert_eq!(finished, game.deals());
        let json = serde_json::to_value(&view).unwrap();
        let mut shown = Vec::new();
        strings(&json, &mut shown);
        for owner in (0..4).map(Seat).filter(|s| Some(*s) != viewer) {
            for card in game.hand(owner) {
                assert!(
                    !shown.contains(&card.to_string()),
                    "{viewer:?} sees {card} of {owner}"
                );
            }
        }
        if let Some(seat) = viewer {
            assert_eq!(view.hand, game.hand(seat));
            assert_eq!(
                game.legal_moves(seat),
                moves_from_view(&view, seat, club, game)
            );
        }
    }
}

fn check_hands(game: &Match) {
    if game.phase() != Phase::Playing {
        return;
    }
    let view = game.view_for(None);
    let trick = view.trick.unwrap();
    let mut seen: CardSet = trick.cards.iter().map(|p| p.card).collect();
    assert_eq!(seen.len() as usize, trick.cards.len());
    for seat in (0..4).map(Seat) {
        let hand = game.hand(seat);
        assert!((hand & seen).is_empty(), "a card is in two places");
        seen = seen | hand;
    }
    assert_eq!(seen.len(), 32 - 4 * u32::from(trick.number - 1));
}

/// The cards the rules allow are those the rule text allows.
fn check_allowed_cards(game: &Match, seat: Seat) {
    let view = game.view_for(Some(seat));
    let trick = view.trick.as_ref().unwrap();
    let played: Vec<(Seat, Card)> = trick.cards.iter().map(|p| (p.seat, p.card)).collect();
    let rules = game.house_rules();
    assert_eq!(
        game.legal_cards(seat),
        allowed_by_the_text(game.hand(seat), &played, seat, view.trump.unwrap(), rules),
        "{played:?} {rules:?}"
    );
}

/// Every card the rules allow is accepted and every other held card refused
/// with a rule's code, leaving the state as it was.
fn check_enforced_play(game: &Match, seat: Seat, rng: &mut StdRng) {
    let legal = game.legal_cards(seat);
    assert!(!legal.is_empty());
    assert_eq!(legal - game.hand(seat), CardSet::EMPTY);
    let mut refused = game.clone();
    for card in game.hand(seat) {
        if legal.contains(card) {
            let mut copy = game.clone();
            assert_eq!(copy.play(seat, Move::Play { card }, rng), Ok(()));
        } else {
            let code = refused
                .play(seat, Move::Play { card }, rng)
                .unwrap_err()
                .code();
            assert!(
                [
                    "must_follow_suit",
                    "must_trump",
                    "must_overtrump",
                    "must_not_undertrump"
                ]
                .contains(&code),
                "{code}"
            );
            assert_eq!(refused, *game);
        }
    }
}

/// One random step. In club mode, sometimes a revoke, a take-back or a
/// report; refused moves must leave the state unchanged.
fn step(game: &mut Match, club: bool, rng: &mut StdRng) {
    let awaiting = game.awaiting().unwrap();
    let seat = awaiting.seats[rng.random_range(0..awaiting.seats.len())];
    let mv = match awaiting.action {
        Action::Deal => Move::Deal,
        Action::ChooseTrump => {
            let moves = game.legal_moves(seat);
            moves[rng.random_range(0..moves.len())]
        }
        Action::Play if club && rng.random_range(0..40) == 0 => Move::TakeBack,
        Action::Play | Action::EndReview if club && rng.random_range(0..120) == 0 => {
            Move::ReportRevoke {
                seat: Seat(rng.random_range(0..4)),
            }
        }
        Action::Play => {
            let legal = game.legal_cards(seat);
            assert!(!legal.is_empty() && (legal - game.hand(seat)).is_empty());
            let pool = if club && rng.random_range(0..8) == 0 {
                game.hand(seat)
            } else {
                legal
            };
            Move::Play {
                card: pool.nth(rng.random_range(0..pool.len())).unwrap(),
            }
        }
        Action::EndReview => Move::EndReview,
        other => panic!("unexpected action {other:?}"),
    };
    // Club moves may come from any seat, not only the one awaited.
    let actor = match mv {
        Move::TakeBack | Move::ReportRevoke { .. } => Seat(rng.random_range(0..4)),
        _ => seat,
    };
    // Only club mode makes moves that may be refused here.
    let before = club.then(|| game.clone());
    if game.play(actor, mv, rng).is_err() {
        assert_eq!(
            Some(&*game),
            before.as_ref(),
            "a refused move changes nothing"
        );
    }
}

fn run(mode: RevokeMode) {
    let club = mode == RevokeMode::Club;
    let mut deals = 0;
    let mut seed = 0;
    while deals < DEALS_PER_MODE {
        let mut rng = StdRng::seed_from_u64(seed);
        let all = HouseRules::all();
        let rules = all[(seed / 7) as usize % all.len()];
        let options = Options {
            revoke_mode: mode,
            first_dealer: Seat((seed % 4) as u8),
            deals: DEALS_PER_MATCH,
            auto_deal: seed % 2 == 0,
            ..Options::default()
        }
        .with_house_rules(rules);
        let mut game = Match::new(options, &mut rng);
        let watch_views = seed % 100 == 0;
        let reload_at = if seed % 8 == 0 {
            rng.random_range(0..120)
        } else {
            usize::MAX
        };
        let mut steps = 0;
        while !game.is_finished() {
            if watch_views {
                check_views(&game, club);
            }
            if watch_views || seed % 10 == 1 {
                check_hands(&game);
            }
            if let Some(awaiting) = game.awaiting() {
                for seat in awaiting.seats {
                    assert!(!game.legal_moves(seat).is_empty(), "{seat} is awaited");
                }
            }
            if let Some(seat) = game.to_play() {
                check_allowed_cards(&game, seat);
                if !club {
                    check_enforced_play(&game, seat, &mut rng);
                }
            }
            if steps == reload_at {
                let json = serde_json::to_string(&game).unwrap();
                let reloaded: Match = serde_json::from_str(&json).unwrap();
                assert_eq!(reloaded, game);
                let (mut a, mut b) = (game.clone(), reloaded);
                let fork = rng.random_range(0..u64::MAX);
                let (mut rng_a, mut rng_b) =
                    (StdRng::seed_from_u64(fork), StdRng::seed_from_u64(fork));
                while !a.is_finished() {
                    step(&mut a, club, &mut rng_a);
                    step(&mut b, club, &mut rng_b);
                }
                assert_eq!(a, b, "a reloaded match plays on identically");
            }
            let sheet = game.deals().len();
            step(&mut game, club, &mut rng);
            if game.deals().len() > sheet {
                check_row(game.deals().last().unwrap(), rules);
            }
            steps += 1;
        }
        assert_eq!(game.deals().len(), usize::from(DEALS_PER_MATCH));
        let sum = game.deals().iter().fold(ByTeam::new(0, 0), |t, r| {
            ByTeam::new(t.a + r.score.a, t.b + r.score.b)
        });
        assert_eq!(game.totals(), sum);
        deals += u64::from(DEALS_PER_MATCH);
        seed += 1;
    }
}

#[test]
fn ten_thousand_random_deals_keep_every_rule_in_enforced_mode() {
    run(RevokeMode::Enforced);
}

#[test]
fn ten_thousand_random_deals_with_revokes_take_backs_and_reports_keep_every_rule_in_club_mode() {
    run(RevokeMode::Club);
}
