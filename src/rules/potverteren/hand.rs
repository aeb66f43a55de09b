//! A seat's cards in the round in progress: one blind card and up to three
//! open cards.

use serde::{Deserialize, Serialize};

use super::deck::{BRILJANT, value};
use crate::rules::cards::Card;

/// The most cards a seat may hold: the blind card and three open cards.
pub const MAX_CARDS: usize = 4;

/// The total a seat aims for.
pub const SIXTEEN: u32 = 16;

/// What a seat holds during a round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hand {
    /// The card dealt face down (*blind*); `None` for a seat not dealt in.
    pub(crate) blind: Option<Card>,
    /// The cards asked from the bottom, face up, in the order asked.
    pub(crate) open: Vec<Card>,
    /// Whether the seat's turn is over (it stood, or took its 4th card).
    pub(crate) stood: bool,
}

impl Hand {
    /// The blind card first, then the open cards.
    pub(crate) fn cards(&self) -> Vec<Card> {
        self.blind.iter().chain(&self.open).copied().collect()
    }

    /// How many cards the seat holds.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.blind.is_some()) + self.open.len()
    }

    /// The sum of the card values.
    pub(crate) fn total(&self) -> u32 {
        total(&self.cards())
    }
}

/// The sum of the card values of `cards`.
pub fn total(cards: &[Card]) -> u32 {
    cards.iter().map(|&card| value(card)).sum()
}

/// Whether `cards` are exactly two, one of them the briljant and the other a
/// 10-value card: the 16 that beats every other 16.
pub fn is_briljant_sixteen(cards: &[Card]) -> bool {
    cards.len() == 2 && cards.contains(&BRILJANT) && total(cards) == SIXTEEN
}
