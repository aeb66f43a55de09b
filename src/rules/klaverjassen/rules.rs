//! A Klaverjassen match as one [`GameRules`] game.

use super::{Match, Move, MoveError, View};
use crate::rules::fairness::Randomness;
use crate::rules::{Awaiting, GameRules, Refusal, Seat};

impl Refusal for MoveError {
    fn code(&self) -> &'static str {
        MoveError::code(self)
    }
}

impl GameRules for Match {
    type Move = Move;
    type View = View;
    type Error = MoveError;

    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        Match::legal_moves(self, seat)
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), MoveError> {
        self.play(seat, mv, randomness)
    }

    fn view(&self, seat: Option<Seat>) -> View {
        self.view_for(seat)
    }

    fn awaiting(&self) -> Option<Awaiting> {
        Match::awaiting(self)
    }

    fn is_finished(&self) -> bool {
        Match::is_finished(self)
    }

    fn deal_number(&self) -> u32 {
        u32::from(Match::deal_number(self))
    }
}
