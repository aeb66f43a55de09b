//! Why the table or its rules refused a change, as the caller hears it.

use uuid::Uuid;

use super::error::Error;
use crate::table::{Game, GameError};

/// The error for a refused change, with the caller's legal moves for a
/// refused move (computed on `game`, the game as it was before).
pub fn refusal(game: &Game, caller: Uuid, error: GameError) -> Error {
    let detail = error.to_string();
    match error {
        GameError::InvalidOptions(_) | GameError::InvalidMove(_) | GameError::NoSuchSeat(_) => {
            Error::Invalid(detail)
        }
        GameError::GameFull => Error::Conflict {
            code: "game_full",
            detail,
        },
        GameError::SeatTaken(_) => Error::Conflict {
            code: "seat_taken",
            detail,
        },
        GameError::AlreadySeated(_) => Error::Conflict {
            code: "already_seated",
            detail,
        },
        GameError::GameStarted => Error::Conflict {
            code: "game_started",
            detail,
        },
        GameError::SeatReserved(_) => Error::Conflict {
            code: "seat_reserved",
            detail,
        },
        GameError::HostCannotLeave | GameError::NotHost => Error::Forbidden {
            code: "forbidden",
            detail,
        },
        GameError::NoBot(_) => Error::NotFound(detail),
        GameError::NotSeated => Error::Forbidden {
            code: "not_seated",
            detail,
        },
        GameError::NotStarted => Error::MoveRefused {
            code: "wrong_phase",
            detail,
            legal_moves: serde_json::json!([]),
        },
        // A partner's report that arrived just after the correction: the
        // table moved on, so it is a conflict with the state, not a broken rule.
        GameError::Rules {
            code: code @ "already_corrected",
            ..
        } => Error::Conflict { code, detail },
        // A move only the host may make (`end_table`): not a broken rule of
        // play but a caller who is not allowed, as for the host's other
        // actions.
        GameError::Rules {
            code: code @ "forbidden",
            ..
        } => Error::Forbidden { code, detail },
        GameError::Rules { code, .. } => Error::MoveRefused {
            code,
            detail,
            legal_moves: serde_json::to_value(game.legal_moves(Some(caller))).unwrap_or_default(),
        },
    }
}
