//! The vocabulary both games share, as the API writes it: seats, suits and
//! cards.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules;
use crate::rules::cards;

/// A seat at a table, numbered 0..n-1 in order of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(transparent)]
#[schema(example = 0)]
pub struct Seat(pub u8);

impl From<rules::Seat> for Seat {
    fn from(seat: rules::Seat) -> Seat {
        Seat(seat.0)
    }
}

/// The seats of `seats`, as the API writes them.
pub(super) fn seats(seats: Vec<rules::Seat>) -> Vec<Seat> {
    // Collected in place: a seat is one byte either way.
    seats.into_iter().map(Seat::from).collect()
}

/// A suit, with the letter the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum Suit {
    /// Clubs (*klaveren*).
    C,
    /// Diamonds (*ruiten*).
    D,
    /// Hearts (*harten*).
    H,
    /// Spades (*schoppen*).
    S,
}

impl From<cards::Suit> for Suit {
    fn from(suit: cards::Suit) -> Suit {
        match suit {
            cards::Suit::Clubs => Suit::C,
            cards::Suit::Diamonds => Suit::D,
            cards::Suit::Hearts => Suit::H,
            cards::Suit::Spades => Suit::S,
        }
    }
}

/// A card, written as its code: rank then suit (`7C`, `10H`, `JS`, `6H`).
/// Its schema is written by hand: a code is a pattern, not a derived shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Card(pub cards::Card);

impl From<cards::Card> for Card {
    fn from(card: cards::Card) -> Card {
        Card(card)
    }
}

/// The cards of `cards`, as the API writes them.
pub(super) fn cards(cards: Vec<cards::Card>) -> Vec<Card> {
    cards.into_iter().map(Card).collect()
}

impl utoipa::PartialSchema for Card {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .pattern(Some("^(10|[2-9JQKA])[CDHS]$"))
            .description(Some(
                "A card: rank (2..10, J, Q, K, A) then suit (C, D, H, S).",
            ))
            .examples([serde_json::json!("10H")])
            .into()
    }
}

impl ToSchema for Card {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The API's suits are written as the rules write theirs.
    #[test]
    fn a_suit_is_written_as_the_rules_write_it() {
        for suit in cards::Suit::ALL {
            assert_eq!(
                serde_json::to_value(Suit::from(suit)).unwrap(),
                serde_json::to_value(suit).unwrap()
            );
        }
    }
}
