//! A move of either game, or of the table itself, parsed for the game it
//! is made in.

use serde::{Deserialize, Serialize};

use super::{GameError, GameKind, from_json};
use crate::rules::fairness::SeatSeed;
use crate::rules::{klaverjassen, potverteren};

/// A move of either game, parsed for the game it is made in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Move {
    /// A Klaverjassen move.
    Klaverjassen(klaverjassen::Move),
    /// A Potverteren move.
    Potverteren(potverteren::Move),
    /// A move of the table, the same in both games.
    Table(TableMove),
}

/// A move that belongs to the table rather than to one game's rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TableMove {
    /// A seat sends its own seed, mixed into every deal that begins while it
    /// is in force (docs/fairness.md).
    Seed {
        /// 1 to 64 hex characters.
        value: SeatSeed,
    },
}

impl Move {
    /// Reads `value` as a move of `kind`.
    pub fn parse(kind: GameKind, value: serde_json::Value) -> Result<Move, GameError> {
        if value.get("type").and_then(serde_json::Value::as_str) == Some("seed") {
            return Ok(Move::Table(
                from_json("move", value).map_err(GameError::InvalidMove)?,
            ));
        }
        Ok(match kind {
            GameKind::Klaverjassen => {
                Move::Klaverjassen(from_json("move", value).map_err(GameError::InvalidMove)?)
            }
            GameKind::Potverteren => {
                Move::Potverteren(from_json("move", value).map_err(GameError::InvalidMove)?)
            }
        })
    }

    /// The deal move of `kind`.
    pub fn deal(kind: GameKind) -> Move {
        match kind {
            GameKind::Klaverjassen => Move::Klaverjassen(klaverjassen::Move::Deal),
            GameKind::Potverteren => Move::Potverteren(potverteren::Move::Deal),
        }
    }

    /// Whether this move ends the table (the Potverteren host's
    /// `end_table`).
    pub fn ends_table(&self) -> bool {
        matches!(self, Move::Potverteren(potverteren::Move::EndTable))
    }

    /// Whether this is the deal move.
    pub fn is_deal(&self) -> bool {
        matches!(
            self,
            Move::Klaverjassen(klaverjassen::Move::Deal)
                | Move::Potverteren(potverteren::Move::Deal)
        )
    }
}

impl From<klaverjassen::Move> for Move {
    fn from(mv: klaverjassen::Move) -> Move {
        Move::Klaverjassen(mv)
    }
}

impl From<potverteren::Move> for Move {
    fn from(mv: potverteren::Move) -> Move {
        Move::Potverteren(mv)
    }
}

impl TryFrom<Move> for klaverjassen::Move {
    type Error = Move;

    fn try_from(mv: Move) -> Result<klaverjassen::Move, Move> {
        match mv {
            Move::Klaverjassen(mv) => Ok(mv),
            other => Err(other),
        }
    }
}

impl TryFrom<Move> for potverteren::Move {
    type Error = Move;

    fn try_from(mv: Move) -> Result<potverteren::Move, Move> {
        match mv {
            Move::Potverteren(mv) => Ok(mv),
            other => Err(other),
        }
    }
}
