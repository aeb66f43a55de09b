//! A Potverteren table as one [`GameRules`] game.

use super::{Move, MoveError, Table, View};
use crate::rules::fairness::Randomness;
use crate::rules::{Awaiting, GameRules, Refusal, Seat};

impl Refusal for MoveError {
    fn code(&self) -> &'static str {
        MoveError::code(self)
    }
}

impl GameRules for Table {
    type Move = Move;
    type View = View;
    type Error = MoveError;

    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        Table::legal_moves(self, seat)
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
        Table::awaiting(self)
    }

    fn is_finished(&self) -> bool {
        Table::is_finished(self)
    }

    /// The round in progress; 1 before the first one is dealt.
    fn deal_number(&self) -> u32 {
        self.round().max(1)
    }
}
