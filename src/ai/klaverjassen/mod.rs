//! The Klaverjassen computer players: `basic`, a club player's habits as
//! rules ([`basic`]), and `strong`, perfect-information Monte Carlo over the
//! exact solver ([`strong`]).

pub mod basic;
mod sampling;
pub mod strong;
mod trump;

use std::time::Instant;

use crate::rules::Seat;
use crate::rules::klaverjassen::{Match, Move, Phase, View};

use super::{Chosen, Player, Players};
pub use basic::BasicPlayer;
use strong::{Budget, TRUMP_BUDGET, decide};

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
/// docs/solver.md), at its default budgets (`StrongPlayer::default()`): at
/// most 200 ms per card, and [`strong::TRUMP_BUDGET`] for the trump choice,
/// the budget of a hint there, so that it names the suit the hint ranks
/// best. When not one sampled deal can be solved within the budget (early
/// in a deal, on a slow machine), it plays as `basic` would rather than the
/// first legal card.
pub struct StrongPlayer {
    /// The thinking budget of each decision but the trump choice.
    pub budget: Budget,
    /// The thinking budget of the trump choice.
    pub trump_budget: Budget,
}

impl Default for StrongPlayer {
    fn default() -> StrongPlayer {
        StrongPlayer {
            budget: Budget::default(),
            trump_budget: TRUMP_BUDGET,
        }
    }
}

impl StrongPlayer {
    /// The move for `seat`, thinking no later than `until` when given (each
    /// budget's clock cut to it).
    fn choose_within(
        &self,
        seat: Seat,
        view: &View,
        legal: &[Move],
        until: Option<Instant>,
        rng: &mut dyn rand::Rng,
    ) -> Option<Chosen<Move>> {
        if legal.contains(&Move::Deal) {
            return Some(Chosen {
                mv: Move::Deal,
                own: true,
            });
        }
        let mut budget = match view.phase {
            Phase::ChoosingTrump => self.trump_budget,
            _ => self.budget,
        };
        if let Some(until) = until {
            let left = until.saturating_duration_since(Instant::now());
            budget.time = Some(budget.time.map_or(left, |time| time.min(left)));
        }
        let decision = decide(seat, view, legal, budget, rng)?;
        if decision.out_of_budget {
            return BasicPlayer
                .choose(seat, view, legal, rng)
                .map(|mv| Chosen { mv, own: false });
        }
        Some(Chosen {
            mv: decision.chosen,
            own: true,
        })
    }
}

impl Player<Match> for StrongPlayer {
    fn choose(
        &self,
        seat: Seat,
        view: &View,
        legal: &[Move],
        rng: &mut dyn rand::Rng,
    ) -> Option<Move> {
        self.choose_within(seat, view, legal, None, rng)
            .map(|chosen| chosen.mv)
    }

    /// Every decision's clock ends at `until` at the latest (the trump
    /// valuation's two threads included); undecided by then (not one
    /// sampled deal solved), the `basic` player's move, not its own.
    fn choose_by(
        &self,
        seat: Seat,
        view: &View,
        legal: &[Move],
        until: Instant,
        rng: &mut dyn rand::Rng,
    ) -> Option<Chosen<Move>> {
        self.choose_within(seat, view, legal, Some(until), rng)
    }
}
