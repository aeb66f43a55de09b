//! A duplicate Klaverjassen tournament: every deal is played twice with the
//! same hands, the strong player holding team A's cards the first time and
//! team B's the second, so the luck of the cards cancels.
//!
//! Run: `cargo bench --bench tournament` (2,000 deals; `TOURNAMENT_DEALS=N`
//! for another count). Prints, per pairing, the mean of the strong team's
//! score minus the other team's per deal and its 95% confidence interval.

use std::time::Instant;

use kaarttafel::ai::klaverjassen::strong::{Budget, decide};
use kaarttafel::rules::Seat;
use kaarttafel::rules::klaverjassen::{
    BySeat, CardSet, Match, Move, Options, Team, deal_from_deck, shuffled_deck,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The random player: a random suit, a random legal card.
fn random_move(game: &Match, seat: Seat, rng: &mut StdRng) -> Move {
    let legal = game.legal_moves(seat);
    let plays: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|mv| {
            matches!(
                mv,
                Move::Play { .. } | Move::ChooseTrump { .. } | Move::Deal
            )
        })
        .collect();
    plays[rng.random_range(0..plays.len())]
}

/// Plays one deal with `strong` holding the seats of that team; returns the
/// strong team's score minus the other's.
fn play(hands: BySeat<CardSet>, dealer: Seat, strong: Team, budget: Budget, seed: u64) -> i32 {
    let mut rng = StdRng::seed_from_u64(seed);
    let options = Options {
        first_dealer: dealer,
        deals: 1,
        ..Options::default()
    };
    let mut game = Match::from_hands(options, hands);
    while !game.is_finished() {
        let seat = game.awaiting().expect("in progress").seats[0];
        let mv = if Team::of(seat) == strong {
            let view = game.view_for(Some(seat));
            decide(seat, &view, &game.legal_moves(seat), budget, &mut rng)
                .expect("a move")
                .chosen
        } else {
            random_move(&game, seat, &mut rng)
        };
        game.play(seat, mv, &mut rng).expect("legal");
    }
    let score = game.deals()[0].score;
    score[strong] - score[strong.other()]
}

fn main() {
    let deals: usize = std::env::var("TOURNAMENT_DEALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let budget = Budget::default();
    let mut rng = StdRng::seed_from_u64(2026);
    let started = Instant::now();
    let mut results = Vec::with_capacity(deals);
    for _ in 0..deals {
        let deck = shuffled_deck(&mut rng, 1);
        let dealer = Seat(rng.random_range(0..4));
        let hands = deal_from_deck(&deck, dealer);
        let seed: u64 = rng.random();
        let a = play(hands, dealer, Team::A, budget, seed);
        let b = play(hands, dealer, Team::B, budget, seed);
        results.push(f64::from(a + b) / 2.0);
    }
    let n = results.len() as f64;
    let mean = results.iter().sum::<f64>() / n;
    let variance = results.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (variance / n).sqrt();
    println!(
        "strong vs random, {deals} duplicate deals: strong team's score minus the other's per deal: mean {mean:.1}, 95% CI [{:.1}, {:.1}] ({:.0} s)",
        mean - half,
        mean + half,
        started.elapsed().as_secs_f64()
    );
}
