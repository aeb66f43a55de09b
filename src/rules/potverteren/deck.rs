//! The 45-card Potverteren deck, the value of each card, and a deck in play
//! that is dealt from its top (blind cards) and its bottom (asked cards).

use std::collections::VecDeque;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::cards::{Card, Rank, Suit};
use crate::rules::fairness::Randomness;

/// Number of cards in the Potverteren deck.
pub const DECK_SIZE: usize = 45;

/// The 6 of hearts, the *briljant*: the only 6 in the deck.
pub const BRILJANT: Card = Card::new(Rank::Six, Suit::Hearts);

/// Whether `card` belongs to the Potverteren deck: no 8s, and of the 6s only
/// the briljant.
pub fn in_deck(card: Card) -> bool {
    match card.rank {
        Rank::Eight => false,
        Rank::Six => card == BRILJANT,
        _ => true,
    }
}

/// The 45 cards of the deck in a fixed order (by suit, then rank).
pub fn full_deck() -> Vec<Card> {
    Suit::ALL
        .into_iter()
        .flat_map(|suit| Rank::ALL.into_iter().map(move |rank| Card::new(rank, suit)))
        .filter(|&card| in_deck(card))
        .collect()
}

/// What a card counts: K, Q, J and 10 count 10, the ace 1, every other card
/// its face value (the briljant 6).
pub const fn value(card: Card) -> u32 {
    match card.rank {
        Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 10,
        Rank::Ace => 1,
        rank => rank as u32,
    }
}

/// A deck in play: the front is the top of the deck, the back its bottom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Deck(VecDeque<Card>);

impl Deck {
    /// All 45 cards, uniformly shuffled (the shuffle stands in for shuffling
    /// and cutting, *schudden en couperen*).
    /// `round` is the round it is dealt in.
    pub fn shuffled<R: Randomness + ?Sized>(rng: &mut R, round: u32) -> Deck {
        let mut cards = full_deck();
        rng.shuffle_deck(round, &mut cards);
        Deck(cards.into())
    }

    /// A stacked deck for tests and fixtures, never used by the service:
    /// `top` is dealt from the top in this order (the blind cards), `bottom`
    /// is asked from the bottom in this order (the first card of `bottom` is
    /// the first card asked), and the remaining cards of the deck lie in
    /// between in the fixed order of [`full_deck`].
    pub fn stacked(top: &[Card], bottom: &[Card]) -> Result<Deck, StackError> {
        let mut named: Vec<Card> = top.iter().chain(bottom).copied().collect();
        if let Some(&card) = named.iter().find(|&&card| !in_deck(card)) {
            return Err(StackError::NotInDeck(card));
        }
        named.sort();
        if let Some(pair) = named.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(StackError::Twice(pair[0]));
        }
        let middle = full_deck()
            .into_iter()
            .filter(|card| !top.contains(card) && !bottom.contains(card));
        let cards = top
            .iter()
            .copied()
            .chain(middle)
            .chain(bottom.iter().rev().copied())
            .collect();
        Ok(Deck(cards))
    }

    /// Takes the top card (how the blind cards are dealt).
    pub(crate) fn take_top(&mut self) -> Card {
        self.0
            .pop_front()
            .expect("45 cards outlast 10 seats of at most 4 cards")
    }

    /// Takes the bottom card (how asked cards are given).
    pub(crate) fn take_bottom(&mut self) -> Card {
        self.0
            .pop_back()
            .expect("45 cards outlast 10 seats of at most 4 cards")
    }
}

/// Why a stacked deck cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackError {
    /// The card is not one of the 45 (an 8, or a 6 other than the briljant).
    NotInDeck(Card),
    /// The card is named twice.
    Twice(Card),
}

impl fmt::Display for StackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StackError::NotInDeck(card) => {
                write!(f, "{card} is not in the Potverteren deck")
            }
            StackError::Twice(card) => write!(f, "{card} is named twice"),
        }
    }
}

impl std::error::Error for StackError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deck_has_45_cards_without_eights_and_with_only_the_briljant_six() {
        let deck = full_deck();
        assert_eq!(deck.len(), DECK_SIZE);
        assert!(deck.iter().all(|card| card.rank != Rank::Eight));
        let sixes: Vec<Card> = deck
            .iter()
            .copied()
            .filter(|card| card.rank == Rank::Six)
            .collect();
        assert_eq!(sixes, vec![BRILJANT]);
    }

    #[test]
    fn a_stacked_deck_deals_top_from_the_top_and_bottom_from_the_bottom() {
        let card = |code: &str| code.parse::<Card>().unwrap();
        let mut deck = Deck::stacked(&[card("KS"), card("2C")], &[card("AH"), card("6H")]).unwrap();
        assert_eq!(deck.take_top(), card("KS"));
        assert_eq!(deck.take_bottom(), card("AH"));
        assert_eq!(deck.take_top(), card("2C"));
        assert_eq!(deck.take_bottom(), card("6H"));
        assert_eq!(deck.0.len(), DECK_SIZE - 4);
        assert_eq!(
            Deck::stacked(&[card("8C")], &[]),
            Err(StackError::NotInDeck(card("8C")))
        );
        assert_eq!(
            Deck::stacked(&[card("KS")], &[card("KS")]),
            Err(StackError::Twice(card("KS")))
        );
    }
}
