//! The strong computer player: it decides from a seat's view only, never
//! breaks a rule, reports a revoke the cards prove, and gives the same
//! decision for two deals that agree on everything the seat knows.

use kaarttafel::ai::klaverjassen::strong::{Budget, decide};
use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    BySeat, CardSet, Match, Move, Options, Phase, RevokeMode, View,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn card(code: &str) -> Card {
    code.parse().unwrap()
}

fn cards(codes: &str) -> CardSet {
    codes.split_whitespace().map(card).collect()
}

/// Small, so a debug build plays whole deals quickly.
const SMALL: Budget = Budget::counted(2, 200_000);

/// Decides from the view only: the player's signature takes a `View`, never
/// the `Match`.
fn strong(game: &Match, seat: Seat, budget: Budget, seed: u64) -> Move {
    let view: View = game.view_for(Some(seat));
    let legal = game.legal_moves(seat);
    let mut rng = StdRng::seed_from_u64(seed);
    decide(seat, &view, &legal, budget, &mut rng)
        .expect("a seat with legal moves decides")
        .chosen
}

fn play_deal(mode: RevokeMode, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let options = Options {
        revoke_mode: mode,
        deals: 1,
        auto_deal: true,
        ..Options::default()
    };
    let mut game = Match::new(options, &mut rng);
    let mut moves = 0;
    while !game.is_finished() {
        let awaiting = game
            .awaiting()
            .expect("a match in progress waits for someone");
        let seat = awaiting.seats[0];
        let mv = strong(&game, seat, SMALL, rng.random());
        assert!(game.legal_moves(seat).contains(&mv), "{mv:?}");
        game.play(seat, mv, &mut rng)
            .expect("a legal move is accepted");
        moves += 1;
    }
    assert!(moves >= 33, "trump and 32 cards");
    assert!(
        game.deals()[0].revokes.is_empty(),
        "the strong player never revokes"
    );
    assert_eq!(game.deals()[0].report, None);
}

#[test]
fn the_strong_player_plays_a_whole_deal_by_the_rules_in_enforced_mode() {
    play_deal(RevokeMode::Enforced, 1);
}

#[test]
fn the_strong_player_plays_a_whole_deal_by_the_rules_in_club_mode() {
    play_deal(RevokeMode::Club, 2);
}

fn fixed_hands() -> BySeat<CardSet> {
    BySeat([
        cards("7C JC 7D 8D 9D 7H 8H 9H"),
        cards("8C QC 10D JD QD 10H JH QH"),
        cards("9C KC KD AD 7S 8S 9S 10S"),
        cards("10C AC KH AH JS QS KS AS"),
    ])
}

fn after(hands: BySeat<CardSet>, mode: RevokeMode, plays: &[(u8, &str)]) -> Match {
    let mut rng = StdRng::seed_from_u64(0);
    let options = Options {
        revoke_mode: mode,
        ..Options::default()
    };
    let mut game = Match::from_hands(options, hands);
    game.play(Seat(0), Move::ChooseTrump { suit: Suit::Spades }, &mut rng)
        .unwrap();
    for (seat, code) in plays {
        game.play(Seat(*seat), Move::Play { card: card(code) }, &mut rng)
            .unwrap();
    }
    game
}

#[test]
fn two_deals_that_agree_on_everything_the_seat_knows_get_the_same_decision() {
    let plays = [(0, "7C"), (1, "8C"), (2, "9C"), (3, "10C"), (3, "KH")];
    let first = after(fixed_hands(), RevokeMode::Enforced, &plays);
    // Seats 1 and 2 swap unplayed cards they could each hold: seat 0 cannot
    // tell the two deals apart.
    let mut hands = fixed_hands();
    hands[Seat(1)] = cards("8C QC 10D JD KD 10H JH QH");
    hands[Seat(2)] = cards("9C KC QD AD 7S 8S 9S 10S");
    let second = after(hands, RevokeMode::Enforced, &plays);
    assert_ne!(first.hand(Seat(1)), second.hand(Seat(1)));
    assert_eq!(
        first.view_for(Some(Seat(0))),
        second.view_for(Some(Seat(0)))
    );
    for seed in 0..3 {
        // The default budget without its clock, so both runs do the same work.
        let budget = Budget {
            time: None,
            ..Budget::default()
        };
        let view_a = first.view_for(Some(Seat(0)));
        let view_b = second.view_for(Some(Seat(0)));
        let a = decide(
            Seat(0),
            &view_a,
            &first.legal_moves(Seat(0)),
            budget,
            &mut StdRng::seed_from_u64(seed),
        );
        let b = decide(
            Seat(0),
            &view_b,
            &second.legal_moves(Seat(0)),
            budget,
            &mut StdRng::seed_from_u64(seed),
        );
        assert_eq!(a, b);
        assert!(a.unwrap().values.len() >= 2);
    }
}

#[test]
fn in_club_mode_the_strong_player_reports_a_revoke_the_cards_prove() {
    // Seat 1 holds 8C but discards 10D on the clubs lead (a revoke), then
    // plays 8C later: seat 2 has seen both and reports seat 1.
    let plays = [
        (0, "7C"),
        (1, "10D"),
        (2, "9C"),
        (3, "10C"),
        (3, "AC"),
        (0, "JC"),
        (1, "8C"),
    ];
    let game = after(fixed_hands(), RevokeMode::Club, &plays);
    assert_eq!(game.phase(), Phase::Playing);
    assert_eq!(
        strong(&game, Seat(2), SMALL, 1),
        Move::ReportRevoke { seat: Seat(1) }
    );
    // Before the proof nobody reports: the seat to play plays, the others
    // have nothing to do.
    let early = after(fixed_hands(), RevokeMode::Club, &plays[..6]);
    assert!(matches!(
        strong(&early, Seat(1), SMALL, 1),
        Move::Play { .. }
    ));
    let view = early.view_for(Some(Seat(2)));
    let legal = early.legal_moves(Seat(2));
    assert!(!legal.is_empty(), "reports are offered");
    assert_eq!(
        decide(Seat(2), &view, &legal, SMALL, &mut StdRng::seed_from_u64(1)),
        None
    );
}

#[test]
fn the_strong_player_names_trump_from_its_own_hand() {
    let mut rng = StdRng::seed_from_u64(3);
    let game = Match::from_hands(Options::default(), fixed_hands());
    let view = game.view_for(Some(Seat(0)));
    // Enough nodes for two samples of four whole-deal solves.
    let budget = Budget::counted(2, 50_000_000);
    let decision = decide(Seat(0), &view, &game.legal_moves(Seat(0)), budget, &mut rng).unwrap();
    assert_eq!(decision.values.len(), 4);
    assert!(matches!(decision.chosen, Move::ChooseTrump { .. }));
}

#[test]
fn a_node_budget_drops_the_unfinished_sample_and_decides_from_those_completed() {
    let game = after(fixed_hands(), RevokeMode::Enforced, &[(0, "7C")]);
    let seat = Seat(1);
    let view = game.view_for(Some(seat));
    let legal = game.legal_moves(seat);
    let run = |budget: Budget| {
        decide(seat, &view, &legal, budget, &mut StdRng::seed_from_u64(4)).unwrap()
    };
    // Too few nodes for even one sample: a legal move, no values.
    let starved = run(Budget::counted(32, 10));
    assert_eq!(starved.samples, 0);
    assert!(starved.values.is_empty());
    assert!(starved.out_of_budget);
    assert!(legal.contains(&starved.chosen));
    // A budget that runs out part-way: fewer samples than allowed, and the
    // same decision every time (node counts, not the clock).
    let full = run(Budget::counted(8, u64::MAX));
    assert_eq!(full.samples, 8);
    assert!(!full.out_of_budget);
    let partial = run(Budget::counted(8, 40_000));
    assert!(partial.samples < 8, "{}", partial.samples);
    assert_eq!(partial, run(Budget::counted(8, 40_000)));
    assert!(legal.contains(&partial.chosen));
}

#[test]
fn a_time_budget_is_kept_even_when_it_is_tiny() {
    let game = Match::from_hands(Options::default(), fixed_hands());
    let view = game.view_for(Some(Seat(0)));
    let legal = game.legal_moves(Seat(0));
    let budget = Budget {
        samples: 1_000,
        nodes: u64::MAX,
        time: Some(std::time::Duration::ZERO),
    };
    let decision = decide(
        Seat(0),
        &view,
        &legal,
        budget,
        &mut StdRng::seed_from_u64(5),
    )
    .unwrap();
    // The clock is read every few thousand nodes, so at most a sliver of a
    // sample completes; never the thousand samples allowed.
    assert!(decision.samples < 1_000);
    assert!(legal.contains(&decision.chosen));
}
