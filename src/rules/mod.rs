//! The pure rules of the games: no I/O, no clock, no environment; randomness is
//! passed in, so tests use a seeded RNG and the server a cryptographically
//! secure one.
//!
//! Public types here derive `utoipa::ToSchema` so that the views the rules
//! compute are the API's schema themselves; that derive is metadata only and
//! pulls no runtime into the rules.

pub mod cards;
pub mod fairness;

use serde::{Deserialize, Serialize};

/// A seat at a table, numbered 0..n-1 in order of play.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(transparent)]
#[schema(example = 0)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat arrays.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat in order of play at a table of `seats` seats.
    pub const fn next(self, seats: u8) -> Seat {
        Seat((self.0 + 1) % seats)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// What the table waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Players to take the empty seats.
    Join,
    /// The dealer (Klaverjassen) or pothouder (Potverteren) to deal.
    Deal,
    /// The seat after the dealer to name trump.
    ChooseTrump,
    /// A seat to play a card.
    Play,
    /// A seat to bid or pass in the auction.
    Bid,
    /// A seat to ask a card or stand.
    HitOrStand,
    /// Seats to report a revoke or say they are done with the review.
    EndReview,
}

/// Who the table waits for, and for what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Awaiting {
    /// The seats the table waits for.
    pub seats: Vec<Seat>,
    /// What they are to do.
    pub action: Action,
}
pub mod klaverjassen;
pub mod potverteren;
