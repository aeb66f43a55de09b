//! The moves a seat can make, and why a move is refused.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::Seat;

/// The highest bid the API accepts.
pub const MAX_BID: u32 = 1_000_000;

/// A move, as the API writes it: `{"type": "bid", "amount": 3}`. Reading
/// refuses any field the move does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawMove")]
pub enum Move {
    /// The pothouder deals the blind cards.
    Deal,
    /// Bid this many chips to become pothouder (*opbod*).
    Bid {
        /// Chips, 1 to 1,000,000, more than the highest bid so far.
        amount: u32,
    },
    /// Pass in the auction; final for this auction.
    Pass,
    /// Ask a card from the bottom of the deck, face up.
    Hit,
    /// Say stop: the seat's turn is over.
    Stand,
    /// The host ends the table at the start of a round.
    EndTable,
}

/// A move as read, before it is checked to carry exactly its own fields:
/// serde's `deny_unknown_fields` does not reach the unit variants of an
/// internally tagged enum, so `{"type": "hit", "card": "7C"}` would pass.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMove {
    #[serde(rename = "type")]
    kind: MoveKind,
    amount: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum MoveKind {
    Deal,
    Bid,
    Pass,
    Hit,
    Stand,
    EndTable,
}

impl TryFrom<RawMove> for Move {
    type Error = &'static str;

    fn try_from(raw: RawMove) -> Result<Move, Self::Error> {
        let mv = match (raw.kind, raw.amount) {
            (MoveKind::Bid, Some(amount)) => return Ok(Move::Bid { amount }),
            (MoveKind::Bid, None) => return Err("a bid needs an `amount`"),
            (_, Some(_)) => return Err("only a bid has an `amount`"),
            (MoveKind::Deal, None) => Move::Deal,
            (MoveKind::Pass, None) => Move::Pass,
            (MoveKind::Hit, None) => Move::Hit,
            (MoveKind::Stand, None) => Move::Stand,
            (MoveKind::EndTable, None) => Move::EndTable,
        };
        Ok(mv)
    }
}

/// Why a move is refused; the state is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The seat is not at this table.
    NotSeated {
        /// The seat that was named.
        seat: Seat,
    },
    /// The move does not belong to the table's phase.
    WrongPhase {
        /// The move that was refused.
        attempted: Move,
        /// What the table is doing now, in words.
        phase: &'static str,
    },
    /// Another seat is to move, or this seat's turn is over.
    NotYourTurn {
        /// The move that was refused.
        attempted: Move,
    },
    /// The bid is not higher than the highest bid so far (or below 1).
    BidTooLow {
        /// The lowest bid allowed now.
        minimum: u32,
    },
    /// The bid is above the highest bid the API accepts.
    BidOutOfRange,
    /// The seat is over 16, so its only move is `stand`.
    MustStand,
    /// The seat already holds 4 cards.
    HandFull,
    /// Only the host may end the table.
    NotHost,
}

impl MoveError {
    /// The API's stable machine code for this error.
    pub const fn code(&self) -> &'static str {
        match self {
            MoveError::NotSeated { .. } => "not_seated",
            MoveError::WrongPhase { .. } => "wrong_phase",
            MoveError::NotYourTurn { .. } => "not_your_turn",
            MoveError::BidTooLow { .. } => "bid_too_low",
            MoveError::BidOutOfRange => "validation_failed",
            MoveError::MustStand => "must_stand",
            MoveError::HandFull => "hand_full",
            MoveError::NotHost => "forbidden",
        }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::NotSeated { seat } => write!(f, "{seat} is not at this table"),
            MoveError::WrongPhase { attempted, phase } => {
                write!(f, "`{}` is not a move {phase}", move_name(attempted))
            }
            MoveError::NotYourTurn { attempted } => write!(
                f,
                "`{}` is not yours to make now: one seat at a time, in order of play",
                move_name(attempted)
            ),
            MoveError::BidTooLow { minimum } => write!(
                f,
                "a bid must be higher than the highest bid so far and at least 1: bid {minimum} or more"
            ),
            MoveError::BidOutOfRange => write!(f, "a bid is at most {MAX_BID} chips"),
            MoveError::MustStand => {
                f.write_str("a seat over 16 may not ask another card: its only move is `stand`")
            }
            MoveError::HandFull => {
                f.write_str("a seat holds at most 4 cards, and its turn ended with the 4th")
            }
            MoveError::NotHost => f.write_str("only the host may end the table"),
        }
    }
}

impl std::error::Error for MoveError {}

/// The move's `type` as the API spells it.
fn move_name(mv: &Move) -> &'static str {
    match mv {
        Move::Deal => "deal",
        Move::Bid { .. } => "bid",
        Move::Pass => "pass",
        Move::Hit => "hit",
        Move::Stand => "stand",
        Move::EndTable => "end_table",
    }
}
