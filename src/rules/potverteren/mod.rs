//! Potverteren (the rules and the decisions in docs/potverteren.md
//! where the rules are silent): a pure rules core. The server makes the
//! table with [`Table::new`], asks [`Table::legal_moves`] and
//! [`Table::awaiting`], applies moves with [`Table::play`] and shows each
//! seat [`Table::view_for`]. Randomness is always passed in.

mod auction;
pub mod deck;
mod hand;
mod moves;
mod options;
mod rules;
mod settlement;
mod table;
mod view;

pub use deck::Deck;
pub use hand::{MAX_CARDS, SIXTEEN, is_briljant_sixteen, total};
pub use moves::{MAX_BID, Move, MoveError};
pub use options::{MAX_SEATS, MAX_STARTING_CHIPS, MIN_SEATS, OptionError, Options, Variant};
pub use settlement::{ExcessPayment, PotParts, RevealedHand, RoundResult, winners};
pub use table::Table;
pub use view::{AuctionView, HandView, LastRound, PhaseName, View};
