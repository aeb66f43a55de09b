//! The `strong` Klaverjassen player: the exact-solver player of
//! [`crate::rules::klaverjassen::strong`] (perfect-information Monte Carlo
//! over sampled deals, docs/solver.md), at its default budget of at most
//! 200 ms per decision. Like every computer player it gets the seat's view
//! only, and answers with one of its legal moves. When not one sampled deal
//! can be solved within the budget (early in a deal, on a slow machine, or
//! for the trump choice, which solves every suit per sample), it plays as
//! `basic` would rather than the first legal card.

use crate::rules::klaverjassen::Move as KlaverMove;
use crate::rules::klaverjassen::strong::{Budget, decide};
use crate::table::Move;
use crate::table::view::GameView;

use super::Player;
use super::klaverjassen::BasicPlayer;

/// The `strong` Klaverjassen player (`StrongPlayer::default()`: the default
/// budget).
#[derive(Default)]
pub struct StrongPlayer {
    /// The thinking budget of each decision.
    pub budget: Budget,
}

impl Player for StrongPlayer {
    fn choose(&self, view: &GameView, rng: &mut dyn rand::Rng) -> Option<Move> {
        let seat = view.you?;
        let game = view.klaverjassen.as_ref()?;
        let moves = view.klaverjassen_moves();
        if moves.contains(&KlaverMove::Deal) {
            return Some(Move::Klaverjassen(KlaverMove::Deal));
        }
        let decision = decide(seat, game, &moves, self.budget, rng)?;
        if decision.out_of_budget {
            return BasicPlayer.choose(view, rng);
        }
        Some(Move::Klaverjassen(decision.chosen))
    }
}
