//! The pure rules of the games: no I/O, no clock, no environment; randomness is
//! passed in, so tests use a seeded RNG and the server a cryptographically
//! secure one.
//!
//! The types here carry serde derives (the state is stored with them, and
//! the views they compute are written as the API shows them), but no
//! OpenAPI schema: the API layer's own types carry the schemas and are
//! built from these.

pub mod cards;
pub mod fairness;
pub mod records;

use serde::{Deserialize, Serialize};

/// A seat at a table, numbered 0..n-1 in order of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Awaiting {
    /// The seats the table waits for.
    pub seats: Vec<Seat>,
    /// What they are to do.
    pub action: Action,
}
pub mod klaverjassen;
pub mod potverteren;

/// A refusal by the rules: a stable `snake_case` code for the API and the
/// rule, in a sentence (its `Display`).
pub trait Refusal: std::fmt::Display {
    /// The stable machine code.
    fn code(&self) -> &'static str;
}

/// One game's rules, shaped the way OpenSpiel shapes a game: the whole
/// state is one value; it says who it waits for, which moves a seat may
/// make, what a seat may see, and whether it is over; a move is applied to
/// it, and every deal (or draw by lot) it makes comes from the
/// [`fairness::Randomness`] passed in.
///
/// The table (`src/table`) drives both games through this trait only; what
/// tells the games apart there is where a game is built or decoded.
pub trait GameRules {
    /// A move of this game.
    type Move;
    /// What one seat (or a spectator) may see of the state.
    type View;
    /// Why a move was refused; nothing changed.
    type Error: Refusal;

    /// The moves `seat` may make now; empty when it is not that seat's turn.
    fn legal_moves(&self, seat: Seat) -> Vec<Self::Move>;

    /// Applies `seat`'s move, with every automatic step it makes due (an
    /// automatic deal draws from `randomness`). On `Err` nothing changed.
    fn apply(
        &mut self,
        seat: Seat,
        mv: Self::Move,
        randomness: &mut dyn fairness::Randomness,
    ) -> Result<(), Self::Error>;

    /// The state as `seat` may see it (`None`: a spectator): never a card
    /// that seat may not see.
    fn view(&self, seat: Option<Seat>) -> Self::View;

    /// Who the game waits for, and for what; `None` once it is over.
    fn awaiting(&self) -> Option<Awaiting>;

    /// Whether the game is over.
    fn is_finished(&self) -> bool;

    /// The deal (Klaverjassen) or round (Potverteren) in progress or due,
    /// counted from 1; the last one once finished.
    fn deal_number(&self) -> u32;
}
