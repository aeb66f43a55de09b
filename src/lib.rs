//! Kaarttafel: a card-game server for Klaverjassen and Potverteren.
pub mod games;
