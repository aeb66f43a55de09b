//! The rules state of a table's game, and the one trait the table drives
//! both games through.

use serde::{Deserialize, Serialize};

use super::GameError;
use super::events::GameEvents;
use super::moves::Move;
use crate::rules::fairness::Randomness;
use crate::rules::{Awaiting, GameRules, Refusal, Seat, klaverjassen, potverteren};

/// The rules state, once every seat is taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// A Klaverjassen match.
    Klaverjassen(klaverjassen::Match),
    /// A Potverteren table.
    Potverteren(potverteren::Table),
}

impl Rules {
    /// The game behind the one trait both games implement: with
    /// construction and decoding, the only place the table tells the two
    /// games apart.
    pub fn game(&self) -> &dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }

    /// The game behind the one trait, to apply a move to.
    pub fn game_mut(&mut self) -> &mut dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }
}

/// A game's rules ([`GameRules`]) as the table drives them: with the
/// table's own move, view and error types, and what the event log shows of
/// the game ([`GameEvents`]), so one `dyn` serves both games. Implemented
/// for every [`GameRules`] whose moves and view convert.
pub trait TableRules: GameEvents {
    /// The moves `seat` may make now.
    fn legal_moves(&self, seat: Seat) -> Vec<Move>;
    /// Applies `seat`'s move; a move of the other game is refused. On `Err`
    /// nothing changed.
    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError>;
    /// What `seat` (`None`: a spectator) may see of the rules state.
    fn view(&self, seat: Option<Seat>) -> RulesView;
    /// Who the game waits for, and for what.
    fn awaiting(&self) -> Option<Awaiting>;
    /// Whether the game is over.
    fn is_finished(&self) -> bool;
    /// The deal or round in progress or due, from 1.
    fn deal_number(&self) -> u32;
}

impl<G> TableRules for G
where
    G: GameRules + GameEvents,
    G::Move: Into<Move> + TryFrom<Move>,
    G::View: Into<RulesView>,
{
    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        GameRules::legal_moves(self, seat)
            .into_iter()
            .map(Into::into)
            .collect()
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError> {
        let mv = G::Move::try_from(mv)
            .map_err(|_| GameError::InvalidMove("move: not a move of this game".into()))?;
        GameRules::apply(self, seat, mv, randomness).map_err(|e| GameError::Rules {
            code: e.code(),
            detail: e.to_string(),
        })
    }

    fn view(&self, seat: Option<Seat>) -> RulesView {
        GameRules::view(self, seat).into()
    }

    fn awaiting(&self) -> Option<Awaiting> {
        GameRules::awaiting(self)
    }

    fn is_finished(&self) -> bool {
        GameRules::is_finished(self)
    }

    fn deal_number(&self) -> u32 {
        GameRules::deal_number(self)
    }
}

/// The rules' part of a view: the one game's own view, in its field.
#[derive(Debug, Default)]
pub struct RulesView {
    /// A Klaverjassen match's view.
    pub klaverjassen: Option<klaverjassen::View>,
    /// A Potverteren table's view.
    pub potverteren: Option<potverteren::View>,
}

impl From<klaverjassen::View> for RulesView {
    fn from(view: klaverjassen::View) -> RulesView {
        RulesView {
            klaverjassen: Some(view),
            potverteren: None,
        }
    }
}

impl From<potverteren::View> for RulesView {
    fn from(view: potverteren::View) -> RulesView {
        RulesView {
            klaverjassen: None,
            potverteren: Some(view),
        }
    }
}
