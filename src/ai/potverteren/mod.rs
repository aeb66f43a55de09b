//! The Potverteren computer players: `basic`, a bid from the pot's value and
//! a card asked while going over 16 is less likely than not ([`basic`]), and
//! `strong`, by expected chips ([`strong`]).

pub mod basic;
mod odds;
pub mod strong;

use crate::rules::potverteren::Table;

use super::{Player, Players};
pub use basic::BasicPlayer;
pub use strong::StrongPlayer;

impl Players for Table {
    fn basic() -> Box<dyn Player<Table>> {
        Box::new(BasicPlayer)
    }

    fn strong() -> Box<dyn Player<Table>> {
        Box::new(StrongPlayer)
    }
}
