//! How strong a seat's computer player is.

use serde::{Deserialize, Serialize};

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A sound rule-based player with a club player's habits.
    Basic,
    /// The strongest player available: at Klaverjassen the exact-solver
    /// player (docs/solver.md), at Potverteren the expected-chips player
    /// (docs/bots.md).
    Strong,
}

impl Level {
    /// The API's name for the level.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Basic => "basic",
            Level::Strong => "strong",
        }
    }

    /// The level named `name`.
    pub fn parse(name: &str) -> Option<Level> {
        match name {
            "basic" => Some(Level::Basic),
            "strong" => Some(Level::Strong),
            _ => None,
        }
    }

    /// The name a computer player of this level gets at the table.
    pub fn player_name(self, seat: u8) -> String {
        format!("Computer {} ({})", seat, self.as_str())
    }
}
