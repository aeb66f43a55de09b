//! Computer players. A computer player decides from exactly what a person in
//! its seat gets through the API, the seat's [`GameView`] (by type: it never
//! receives the game's state), and answers with one of that view's
//! `legal_moves`.
//!
//! [`player_for`] is the one place that maps a level to a player, so a
//! stronger player drops in here without touching the scheduler that calls it.

pub mod klaverjassen;
pub mod potverteren;
pub mod potverteren_strong;
pub mod strong;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::table::view::GameView;
use crate::table::{GameKind, Move};

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
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

/// A computer player: picks a move from a seat's view.
pub trait Player: Send + Sync {
    /// One of `view.legal_moves`, or `None` when that list is empty.
    fn choose(&self, view: &GameView, rng: &mut dyn rand::Rng) -> Option<Move>;
}

/// The player of `level` for `kind`. `strong` maps to the strongest player
/// there is.
pub fn player_for(kind: GameKind, level: Level) -> Box<dyn Player> {
    match (kind, level) {
        (GameKind::Klaverjassen, Level::Basic) => Box::new(klaverjassen::BasicPlayer),
        (GameKind::Klaverjassen, Level::Strong) => Box::new(strong::StrongPlayer::default()),
        (GameKind::Potverteren, Level::Basic) => Box::new(potverteren::BasicPlayer),
        (GameKind::Potverteren, Level::Strong) => Box::new(potverteren_strong::StrongPlayer),
    }
}

/// A player that picks uniformly among the legal moves: the yardstick of the
/// strength benchmark.
pub struct RandomPlayer;

impl Player for RandomPlayer {
    fn choose(&self, view: &GameView, rng: &mut dyn rand::Rng) -> Option<Move> {
        if view.legal_moves.is_empty() {
            return None;
        }
        let index = (rng.next_u32() as usize) % view.legal_moves.len();
        view.legal_moves.get(index).cloned()
    }
}
