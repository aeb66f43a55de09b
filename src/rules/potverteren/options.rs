//! The table options a Potverteren table is created with.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The fewest seats at a table.
pub const MIN_SEATS: u8 = 5;
/// The most seats at a table.
pub const MAX_SEATS: u8 = 10;
/// The most starting chips per seat; chips are whole and at least 0.
pub const MAX_STARTING_CHIPS: i64 = 1_000_000;

/// How the pothouder is chosen each round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The standard game: the seats bid for the pothouder (*opbod*).
    #[default]
    Auction,
    /// The pothouder is drawn by lot every round (*aangewezen door het lot*)
    /// and plays like every other seat.
    Lot,
}

/// The options of a Potverteren table; every one may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Number of seats, 5 to 10.
    pub seats: u8,
    /// How the pothouder is chosen.
    pub variant: Variant,
    /// Chips each seat starts with, 0 to 1,000,000.
    pub starting_chips: i64,
    /// Whether the server deals as soon as a deal is due, instead of waiting
    /// for the pothouder's `deal`.
    pub auto_deal: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seats: MIN_SEATS,
            variant: Variant::Auction,
            starting_chips: 100,
            auto_deal: false,
        }
    }
}

impl Options {
    /// Checks every option's range; the error names the first option out of range.
    pub fn validate(&self) -> Result<(), OptionError> {
        if !(MIN_SEATS..=MAX_SEATS).contains(&self.seats) {
            return Err(OptionError {
                option: "seats",
                message: format!(
                    "a Potverteren table has {MIN_SEATS} to {MAX_SEATS} seats, not {}",
                    self.seats
                ),
            });
        }
        if !(0..=MAX_STARTING_CHIPS).contains(&self.starting_chips) {
            return Err(OptionError {
                option: "starting_chips",
                message: format!(
                    "each seat starts with 0 to {MAX_STARTING_CHIPS} chips, not {}",
                    self.starting_chips
                ),
            });
        }
        Ok(())
    }
}

/// An option out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The option's name as the API spells it.
    pub option: &'static str,
    /// Why it is refused, as a sentence.
    pub message: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.option, self.message)
    }
}

impl std::error::Error for OptionError {}
