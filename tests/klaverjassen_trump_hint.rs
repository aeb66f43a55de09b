//! The hint at the trump choice (docs/solver.md, "The trump choice"): every
//! suit gets a value, from the chooser's view alone, a plainly strong trump
//! gets the best one, and the strong player names the suit the hint ranks
//! best.

use std::time::{Duration, Instant};

use kaarttafel::ai::hints::{Advice, advice};
use kaarttafel::ai::klaverjassen::BasicPlayer;
use kaarttafel::ai::klaverjassen::StrongPlayer;
use kaarttafel::ai::klaverjassen::strong::Budget;
use kaarttafel::ai::{Chosen, Player};
use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{BySeat, CardSet, Match, Move, Options, TrumpChoice, View};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

/// Few samples and counts only: a debug build solves them in seconds, and
/// the same view and seed always give the same values.
const SMALL: Budget = Budget::counted(2, u64::MAX);

fn cards(codes: &str) -> CardSet {
    codes
        .split_whitespace()
        .map(|code| code.parse::<Card>().unwrap())
        .collect()
}

/// Seat 0 holds `own`; the other 24 cards go to seats 1 to 3 as `rng`
/// shuffles them.
fn deal_around(own: CardSet, rng: &mut StdRng) -> BySeat<CardSet> {
    let mut rest: Vec<Card> = (CardSet::DECK - own).iter().collect();
    rest.shuffle(rng);
    let hand = |seat: usize| rest[seat * 8..seat * 8 + 8].iter().copied().collect();
    BySeat([own, hand(0), hand(1), hand(2)])
}

/// A random hand of eight for seat 0.
fn random_hand(rng: &mut StdRng) -> CardSet {
    let mut deck: Vec<Card> = CardSet::DECK.iter().collect();
    deck.shuffle(rng);
    deck[..8].iter().copied().collect()
}

/// The deal of `hands` at its trump choice (seat 3 deals, seat 0 names
/// trump): seat 0's view and legal moves.
fn at_trump_choice(hands: BySeat<CardSet>) -> (View, Vec<Move>) {
    let game = Match::from_hands(Options::default(), hands);
    assert_eq!(game.first_hand(), Seat(0));
    (game.view_for(Some(Seat(0))), game.legal_moves(Seat(0)))
}

fn trump_hint(hands: BySeat<CardSet>, budget: Budget, seed: u64) -> Advice<Move> {
    let (view, legal) = at_trump_choice(hands);
    advice::<Match>(Seat(0), &view, &legal, budget, seed).expect("seat 0 names trump")
}

/// The suit a hint values most, with its value and the best other value.
fn best(hint: &Advice<Move>) -> (Move, f64, f64) {
    let mut values: Vec<(Move, f64)> = hint
        .moves
        .iter()
        .map(|(mv, value)| (*mv, value.expect("every suit is valued")))
        .collect();
    values.sort_by(|a, b| b.1.total_cmp(&a.1));
    (values[0].0, values[0].1, values[1].1)
}

#[test]
fn the_trump_hint_values_every_legal_move() {
    for seed in 0..3 {
        let mut rng = StdRng::seed_from_u64(seed);
        let hands = deal_around(random_hand(&mut rng), &mut rng);
        let (_, legal) = at_trump_choice(hands);
        let hint = trump_hint(hands, SMALL, seed);
        assert_eq!(legal.len(), 4, "four suits");
        let listed: Vec<Move> = hint.moves.iter().map(|(mv, _)| *mv).collect();
        assert_eq!(listed, legal);
        assert!(
            hint.moves.iter().all(|(_, value)| value.is_some()),
            "{hint:?}"
        );
        // The move advised is the one valued best.
        assert_eq!(best(&hint).0, hint.chosen);
    }
}

#[test]
fn the_trump_hint_does_not_depend_on_the_hidden_cards() {
    let mut rng = StdRng::seed_from_u64(11);
    let own = random_hand(&mut rng);
    let first = deal_around(own, &mut rng);
    let hint = trump_hint(first, SMALL, 5);
    for _ in 0..3 {
        let other = deal_around(own, &mut rng);
        assert_ne!(other, first, "the hidden hands differ");
        assert_eq!(at_trump_choice(other).0, at_trump_choice(first).0);
        assert_eq!(trump_hint(other, SMALL, 5), hint);
    }
    // Another seed samples other deals: the values are estimates, not read
    // from the table.
    assert_ne!(trump_hint(first, SMALL, 6), hint);
}

#[test]
fn a_hand_with_jack_nine_ace_and_ten_of_a_suit_values_that_suit_best() {
    for (own, suit) in [
        ("JH 9H AH 10H 7C 8C 7D 8S", Suit::Hearts),
        ("JS 9S AS 10S 7H 8D 9D 7C", Suit::Spades),
    ] {
        let mut rng = StdRng::seed_from_u64(3);
        let hands = deal_around(cards(own), &mut rng);
        let hint = trump_hint(hands, Budget::counted(4, u64::MAX), 9);
        let (chosen, value, next) = best(&hint);
        assert_eq!(chosen, Move::ChooseTrump { suit }, "{own}: {hint:?}");
        assert_eq!(hint.chosen, chosen);
        assert!(value > next, "{own}: {hint:?}");
    }
}

#[test]
fn the_strong_player_names_the_suit_the_hint_ranks_best() {
    let mut rng = StdRng::seed_from_u64(21);
    let hands = deal_around(random_hand(&mut rng), &mut rng);
    let (view, legal) = at_trump_choice(hands);
    // By default the player thinks at the trump choice as long as the hint.
    assert_eq!(
        StrongPlayer::default().trump_budget,
        Budget::for_view(&view)
    );
    let player = StrongPlayer {
        trump_budget: SMALL,
        ..StrongPlayer::default()
    };
    for seed in 0..3 {
        let hint = trump_hint(hands, SMALL, seed);
        let named = player
            .choose(Seat(0), &view, &legal, &mut StdRng::seed_from_u64(seed))
            .expect("a suit");
        assert_eq!(named, best(&hint).0, "seed {seed}: {hint:?}");
    }
}

/// In the service the strong player thinks no later than the time its
/// move is made (`Player::choose_by`, docs/bots.md "Pacing"): with that
/// time already past, its valuation stops at the solver's first look at
/// the clock, not one sampled deal is solved, and it makes the `basic`
/// player's choice, saying it is not its own; with time to spare it names
/// the suit its own valuation ranks best (the hint's, at the same budget
/// and seed).
#[test]
fn the_strong_player_stops_thinking_at_the_time_it_is_given() {
    let mut rng = StdRng::seed_from_u64(22);
    let hands = deal_around(random_hand(&mut rng), &mut rng);
    let (view, legal) = at_trump_choice(hands);
    let player = StrongPlayer {
        trump_budget: SMALL,
        ..StrongPlayer::default()
    };
    let seed = 5;
    let past = Instant::now();
    let chosen = player
        .choose_by(
            Seat(0),
            &view,
            &legal,
            past,
            &mut StdRng::seed_from_u64(seed),
        )
        .expect("a move");
    let basic = BasicPlayer
        .choose(Seat(0), &view, &legal, &mut StdRng::seed_from_u64(seed))
        .expect("a move");
    assert_eq!(
        chosen,
        Chosen {
            mv: basic,
            own: false
        }
    );
    let later = Instant::now() + Duration::from_secs(3600);
    let chosen = player
        .choose_by(
            Seat(0),
            &view,
            &legal,
            later,
            &mut StdRng::seed_from_u64(seed),
        )
        .expect("a move");
    let hint = trump_hint(hands, SMALL, seed);
    assert_eq!(
        chosen,
        Chosen {
            mv: best(&hint).0,
            own: true
        },
        "{hint:?}"
    );
}

#[test]
fn under_pass_round_the_trump_hint_values_passing_too() {
    let options = Options {
        trump_choice: TrumpChoice::PassRound,
        ..Options::default()
    };
    let mut rng = StdRng::seed_from_u64(31);
    let strong_hearts = deal_around(cards("JH 9H AH 10H 7C 8C 7D 8S"), &mut rng);
    let mut game = Match::from_hands(options.clone(), strong_hearts);
    for seat in [Seat(0), Seat(1)] {
        let view = game.view_for(Some(seat));
        let legal = game.legal_moves(seat);
        assert!(legal.contains(&Move::Pass), "{legal:?}");
        let hint = advice::<Match>(seat, &view, &legal, SMALL, 1).unwrap();
        let listed: Vec<Move> = hint.moves.iter().map(|(mv, _)| *mv).collect();
        assert_eq!(listed, legal);
        assert!(
            hint.moves.iter().all(|(_, value)| value.is_some()),
            "{hint:?}"
        );
        assert_eq!(best(&hint).0, hint.chosen);
        if seat == Seat(0) {
            // With J 9 A 10 of hearts, naming hearts beats passing.
            assert_eq!(hint.chosen, Move::ChooseTrump { suit: Suit::Hearts });
            game.play(seat, Move::Pass, &mut rng).unwrap();
        }
    }
}
