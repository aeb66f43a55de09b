//! What a caller sees of a game: the table envelope around the rules core's
//! own per-seat projection, so hidden information is decided by the rules.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{Game, GameKind, Move, Options, Rules, SeatedPlayer, Status};
use crate::games::{Action, Awaiting, Seat, klaverjassen, potverteren};

/// A seat and who sits in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat number.
    pub seat: Seat,
    /// The player in it, or null when free.
    pub player: Option<SeatedPlayer>,
}

/// A game as the caller may see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Adds one with every accepted change; send it back as `expected_version`.
    #[schema(example = 7)]
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: Options,
    /// The player who created the table and controls it before it starts.
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
    /// The caller's seat, or null for a spectator.
    pub you: Option<Seat>,
    /// Who the table waits for; null when finished.
    pub awaiting: Option<Awaiting>,
    /// The moves the caller may make now.
    #[schema(value_type = Vec<MoveSchema>)]
    pub legal_moves: Vec<Move>,
    /// The Klaverjassen match as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub klaverjassen: Option<klaverjassen::View>,
    /// The Potverteren table as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potverteren: Option<potverteren::View>,
}

/// The options of either game.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum OptionsSchema {
    /// Klaverjassen options.
    Klaverjassen(klaverjassen::Options),
    /// Potverteren options.
    Potverteren(potverteren::Options),
}

/// A move of either game, tagged by `type`.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum MoveSchema {
    /// A Klaverjassen move.
    Klaverjassen(klaverjassen::Move),
    /// A Potverteren move.
    Potverteren(potverteren::Move),
}

impl Game {
    /// The game as `caller` may see it: its own seat's view when seated, the
    /// spectator view otherwise.
    pub fn view_for(&self, caller: Option<Uuid>) -> GameView {
        let you = caller.and_then(|p| self.seat_of(p));
        let (klaverjassen, potverteren) = match &self.rules {
            Some(Rules::Klaverjassen(game)) => (Some(game.view_for(you)), None),
            Some(Rules::Potverteren(game)) => (None, Some(game.view_for(you))),
            None => (None, None),
        };
        GameView {
            id: self.id,
            game: self.kind,
            status: self.status,
            version: self.version,
            options: self.options.clone(),
            host: self.host,
            seats: self.seat_views(),
            you,
            awaiting: self.awaiting(),
            legal_moves: self.legal_moves(caller),
            klaverjassen,
            potverteren,
        }
    }

    /// Who the table waits for.
    pub fn awaiting(&self) -> Option<Awaiting> {
        match &self.rules {
            None => Some(Awaiting {
                seats: self
                    .seats
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_none())
                    .map(|(i, _)| Seat(i as u8))
                    .collect(),
                action: Action::Join,
            }),
            Some(Rules::Klaverjassen(game)) => game.awaiting(),
            Some(Rules::Potverteren(game)) => game.awaiting(),
        }
    }

    fn seat_views(&self) -> Vec<SeatView> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, player)| SeatView {
                seat: Seat(i as u8),
                player: player.clone(),
            })
            .collect()
    }

    /// The lobby's summary of this table (public: no hidden information).
    pub fn summary(&self) -> GameSummary {
        GameSummary {
            id: self.id,
            game: self.kind,
            status: self.status,
            version: self.version,
            options: self.options.clone(),
            host: self.host,
            seats: self.seat_views(),
        }
    }
}

/// A table in a listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    /// The game's id.
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// The game's version.
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: Options,
    /// The player who created the table.
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
}
