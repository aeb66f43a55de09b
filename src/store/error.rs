//! The store's one error type, for what goes wrong between a row and the
//! game it stores; the queries themselves return sqlx's error.

use uuid::Uuid;

/// A stored game that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database's own error.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A stored part of a game does not read as what it stores.
    #[error("game {game}: stored {what} unreadable")]
    Unreadable {
        /// The game.
        game: Uuid,
        /// Which part: `kind`, `state`, `seat`, ...
        what: &'static str,
    },
    /// A game that could not be written as JSON.
    #[error("serialising game {game}: {source}")]
    Unwritable {
        /// The game.
        game: Uuid,
        /// serde_json's error.
        source: serde_json::Error,
    },
}
