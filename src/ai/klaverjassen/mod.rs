//! The Klaverjassen computer players: `basic`, a club player's habits as
//! rules ([`basic`]), and `strong`, perfect-information Monte Carlo over the
//! exact solver ([`strong`]).

pub mod basic;
mod sampling;
pub mod strong;

use crate::rules::Seat;
use crate::rules::klaverjassen::{Match, Move, View};

use super::{Player, Players};
pub use basic::BasicPlayer;
use strong::{Budget, decide};

impl Players for Match {
    fn basic() -> Box<dyn Player<Match>> {
        Box::new(BasicPlayer)
    }

    fn strong() -> Box<dyn Player<Match>> {
        Box::new(StrongPlayer::default())
    }
}

/// The `strong` Klaverjassen player: the exact-solver player of
/// [`strong::decide`] (perfect-information Monte Carlo over sampled deals,
/// docs/solver.md), at its default budget of at most 200 ms per decision
/// (`StrongPlayer::default()`). When not one sampled deal can be solved
/// within the budget (early in a deal, on a slow machine, or for the trump
/// choice, which solves every suit per sample), it plays as `basic` would
/// rather than the first legal card.
#[derive(Default)]
pub struct StrongPlayer {
    /// The thinking budget of each decision.
    pub budget: Budget,
}

impl Player<Match> for StrongPlayer {
    fn choose(
        &self,
        seat: Seat,
        view: &View,
        legal: &[Move],
        rng: &mut dyn rand::Rng,
    ) -> Option<Move> {
        if legal.contains(&Move::Deal) {
            return Some(Move::Deal);
        }
        let decision = decide(seat, view, legal, self.budget, rng)?;
        if decision.out_of_budget {
            return BasicPlayer.choose(seat, view, legal, rng);
        }
        Some(decision.chosen)
    }
}
