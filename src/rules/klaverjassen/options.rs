//! The table options a Klaverjassen table is created with.

use serde::{Deserialize, Serialize};

use crate::rules::Seat;

/// How the table treats a card that may not be played (*verzaken*).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevokeMode {
    /// The server refuses a card that may not be played; nobody can revoke.
    #[default]
    Enforced,
    /// Any held card is accepted, revokes are recorded secretly and may be
    /// taken back, reported and reviewed, as at a real club table.
    Club,
}

/// The options of a Klaverjassen table; every one may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Whether a card that may not be played is refused (`enforced`) or
    /// accepted and left to the opponents to report (`club`).
    pub revoke_mode: RevokeMode,
    /// The dealer of deal 1 (0..=3); the seat after it names trump first.
    pub first_dealer: Seat,
    /// How many deals the match lasts (1..=16).
    pub deals: u8,
    /// Whether the server deals each deal itself as soon as it is due.
    pub auto_deal: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            revoke_mode: RevokeMode::Enforced,
            first_dealer: Seat(3),
            deals: 16,
            auto_deal: false,
        }
    }
}

/// An option out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The option's name as the API writes it.
    pub option: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.option, self.message)
    }
}

impl std::error::Error for OptionError {}

impl Options {
    /// Checks the ranges: `deals` 1..=16, `first_dealer` 0..=3.
    pub fn validate(&self) -> Result<(), OptionError> {
        if !(1..=16).contains(&self.deals) {
            return Err(OptionError {
                option: "deals",
                message: format!("a match is 1 to 16 deals, not {}", self.deals),
            });
        }
        if self.first_dealer.0 > 3 {
            return Err(OptionError {
                option: "first_dealer",
                message: format!("seats are 0 to 3, not {}", self.first_dealer.0),
            });
        }
        Ok(())
    }
}
