//! The one error type of the use cases. Each variant says what kind of
//! refusal it is and carries the stable code callers see; the HTTP layer
//! maps each kind to its status in one place.

use crate::auth::TokenError;
use crate::store::StoreError;

/// Everything a use case can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value out of range or unknown (`validation_failed`).
    #[error("{0}")]
    Invalid(String),
    /// The caller's token is not, or no longer, good (`invalid_token`).
    #[error(transparent)]
    Token(#[from] TokenError),
    /// A known caller that may not do this.
    #[error("{detail}")]
    Forbidden {
        /// `forbidden`, `not_seated`, `hints_disabled`.
        code: &'static str,
        /// Why.
        detail: String,
    },
    /// No such game, player, table or deal (`not_found`).
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with the game's state.
    #[error("{detail}")]
    Conflict {
        /// `game_full`, `seat_taken`, `game_started`, `version_conflict`, …
        code: &'static str,
        /// Why.
        detail: String,
    },
    /// The caller's `If-Match` named another version (`version_conflict`).
    #[error("{0}")]
    PreconditionFailed(String),
    /// The same `Idempotency-Key` came with another request
    /// (`idempotency_mismatch`).
    #[error("this Idempotency-Key was first used with another request")]
    IdempotencyMismatch,
    /// The rules refused a move, with the caller's legal moves.
    #[error("{detail}")]
    MoveRefused {
        /// The rule's code (`must_follow_suit`, `bid_too_low`, …).
        code: &'static str,
        /// The rule, in a sentence.
        detail: String,
        /// The caller's legal moves now.
        legal_moves: serde_json::Value,
    },
    /// The database is away (`database_unavailable`). The detail is for
    /// the log.
    #[error("database unavailable: {0}")]
    DatabaseUnavailable(String),
    /// Anything unexpected (`internal_error`). The detail is for the log.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// An [`Error::Invalid`] with `detail`.
    pub fn invalid(detail: impl Into<String>) -> Error {
        Error::Invalid(detail.into())
    }
}

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        if crate::store::unavailable(&error) {
            // A write refused as read-only reaches the use case, not the
            // store: tell the store to look for the server that takes writes.
            crate::store::primary::note(&error);
            Error::DatabaseUnavailable(error.to_string())
        } else {
            Error::Internal(format!("database: {error}"))
        }
    }
}

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Database(error) => error.into(),
            other => Error::Internal(other.to_string()),
        }
    }
}
