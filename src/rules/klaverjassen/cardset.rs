//! The 32-card Klaverjassen deck as bit sets: a hand, a trick or a suit is one
//! `u32`, so the play path never allocates.
//!
//! Bit `8 * suit + rank` holds a card, with suits in [`Suit::ALL`] order and
//! ranks in natural order 7 8 9 10 J Q K A (0..8). Natural order is what
//! sequences (roem) are counted in, whatever is trump. The layout is also a
//! stored form ([`StoredCards`]): it does not change.

use std::fmt;
use std::ops::{BitAnd, BitOr, Not, Sub};

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rules::cards::{Card, Rank, Suit};

/// The eight Klaverjassen ranks in natural order, 7 low to ace high.
pub const RANKS: [Rank; 8] = [
    Rank::Seven,
    Rank::Eight,
    Rank::Nine,
    Rank::Ten,
    Rank::Jack,
    Rank::Queen,
    Rank::King,
    Rank::Ace,
];

/// The rank's position in natural order 7..A (0..8), or `None` for 2..6,
/// which are not in the Klaverjassen deck.
#[inline]
pub const fn rank_index(rank: Rank) -> Option<u32> {
    match rank {
        Rank::Seven => Some(0),
        Rank::Eight => Some(1),
        Rank::Nine => Some(2),
        Rank::Ten => Some(3),
        Rank::Jack => Some(4),
        Rank::Queen => Some(5),
        Rank::King => Some(6),
        Rank::Ace => Some(7),
        _ => None,
    }
}

/// The card at bit `index` (0..32).
#[inline]
pub const fn card_at(index: u32) -> Card {
    Card::new(RANKS[(index % 8) as usize], Suit::ALL[(index / 8) as usize])
}

/// The bit index of a Klaverjassen card, [`card_at`]'s inverse.
#[inline]
pub fn card_index(card: Card) -> u32 {
    CardSet::single(card).bits().trailing_zeros()
}

/// A set of Klaverjassen cards: a hand, a trick, a suit, the deck.
///
/// Written in JSON as an array of card codes, clubs to spades, 7 to ace.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u32);

impl CardSet {
    /// No cards.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 32 cards of the Klaverjassen deck.
    pub const DECK: CardSet = CardSet(u32::MAX);

    /// The set with exactly these bits (see the module docs for the layout).
    #[inline]
    pub const fn from_bits(bits: u32) -> CardSet {
        CardSet(bits)
    }

    /// The bits of this set.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The eight cards of a suit.
    #[inline]
    pub const fn suit(suit: Suit) -> CardSet {
        CardSet(0xFF << (8 * suit as u32))
    }

    /// The set holding one card; empty for a card outside the Klaverjassen deck.
    #[inline]
    pub const fn single(card: Card) -> CardSet {
        match rank_index(card.rank) {
            Some(rank) => CardSet(1 << (8 * card.suit as u32 + rank)),
            None => CardSet::EMPTY,
        }
    }

    /// Whether the set holds the card.
    #[inline]
    pub const fn contains(self, card: Card) -> bool {
        let single = CardSet::single(card).0;
        single != 0 && self.0 & single != 0
    }

    /// Adds a card.
    #[inline]
    pub fn insert(&mut self, card: Card) {
        self.0 |= CardSet::single(card).0;
    }

    /// Removes a card.
    #[inline]
    pub fn remove(&mut self, card: Card) {
        self.0 &= !CardSet::single(card).0;
    }

    /// How many cards the set holds.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set holds no card.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `n`th card of the set in iteration order, if there is one.
    #[inline]
    pub fn nth(self, n: u32) -> Option<Card> {
        // Drop the lowest card `n` times (a hand or a trick holds at most
        // eight), so no population count is needed.
        let mut bits = self.0;
        for _ in 0..n {
            if bits == 0 {
                return None;
            }
            bits &= bits - 1;
        }
        (bits != 0).then(|| card_at(bits.trailing_zeros()))
    }

    /// The cards, clubs to spades, 7 to ace within a suit.
    #[inline]
    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

/// The cards of a [`CardSet`], in its order.
#[derive(Clone, Debug)]
pub struct CardSetIter(u32);

impl Iterator for CardSetIter {
    type Item = Card;

    #[inline]
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(card_at(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl ExactSizeIterator for CardSetIter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;

    #[inline]
    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(cards: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for card in cards {
            set.insert(card);
        }
        set
    }
}

impl BitAnd for CardSet {
    type Output = CardSet;

    #[inline]
    fn bitand(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }
}

impl BitOr for CardSet {
    type Output = CardSet;

    #[inline]
    fn bitor(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }
}

impl Sub for CardSet {
    type Output = CardSet;

    #[inline]
    fn sub(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }
}

impl Not for CardSet {
    type Output = CardSet;

    #[inline]
    fn not(self) -> CardSet {
        CardSet(!self.0)
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|card| card.to_string()))
            .finish()
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len() as usize))?;
        for card in self.iter() {
            seq.serialize_element(&card)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(CardsVisitor)
    }
}

/// Reads a [`CardSet`] from an array of card codes.
struct CardsVisitor;

impl<'de> Visitor<'de> for CardsVisitor {
    type Value = CardSet;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of distinct Klaverjassen cards (7 to ace)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CardSet, A::Error> {
        let mut set = CardSet::EMPTY;
        while let Some(card) = seq.next_element::<Card>()? {
            if rank_index(card.rank).is_none() {
                return Err(de::Error::custom(format!(
                    "{card} is not a Klaverjassen card"
                )));
            }
            if set.contains(card) {
                return Err(de::Error::custom(format!("{card} appears twice")));
            }
            set.insert(card);
        }
        Ok(set)
    }
}

/// A [`CardSet`] in the stored state, read from the number whose bits are
/// the set ([`CardSet::bits`], laid out as the module docs say), as written
/// now, or from an array of card codes, as releases before wrote it
/// (deploy/README.md, "Upgrading").
pub(super) struct StoredCards(pub(super) CardSet);

impl<'de> Deserialize<'de> for StoredCards {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StoredVisitor;

        impl<'de> Visitor<'de> for StoredVisitor {
            type Value = StoredCards;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of distinct Klaverjassen cards or a card set's 32 bits")
            }

            fn visit_u64<E: de::Error>(self, bits: u64) -> Result<StoredCards, E> {
                u32::try_from(bits)
                    .map(|bits| StoredCards(CardSet::from_bits(bits)))
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(bits), &self))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<StoredCards, A::Error> {
                CardsVisitor.visit_seq(seq).map(StoredCards)
            }
        }

        deserializer.deserialize_any(StoredVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_klaverjassen_card_has_its_own_bit() {
        let all: Vec<Card> = CardSet::DECK.iter().collect();
        assert_eq!(all.len(), 32);
        for (index, card) in all.iter().enumerate() {
            assert_eq!(CardSet::single(*card).bits(), 1 << index);
        }
        assert!(!CardSet::DECK.contains(Card::new(Rank::Six, Suit::Hearts)));
    }

    #[test]
    fn card_sets_serialise_as_card_codes_in_order() {
        let set: CardSet = ["AS", "7C", "10H"]
            .iter()
            .map(|c| c.parse().unwrap())
            .collect();
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"["7C","10H","AS"]"#);
        assert_eq!(serde_json::from_str::<CardSet>(&json).unwrap(), set);
        assert!(serde_json::from_str::<CardSet>(r#"["7C","7C"]"#).is_err());
        assert!(serde_json::from_str::<CardSet>(r#"["6H"]"#).is_err());
    }
}
