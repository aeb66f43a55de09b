//! A trick of the deal in progress as the match keeps it, and the forms it
//! is stored in: one packed number per trick, or (as earlier releases wrote
//! it, still read) its leader, cards and winner.

use serde::{Deserialize, Serialize};

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

use super::cardset::{CardSet, card_at, card_index};
use super::history::{CompletedTrick, OpenTrick, PlayedCard};
use super::play_rules::TrickSoFar;
use super::team::SEATS;

/// A trick of the deal in progress, in play order from its leader. Stored
/// as its packed number ([`PACKED_BITS`]); `len` and `set` are found again
/// from its cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Trick {
    pub(super) leader: Seat,
    pub(super) cards: [Option<Card>; 4],
    pub(super) len: u8,
    /// The cards played, as a set: kept beside `cards` because every play
    /// needs it.
    pub(super) set: CardSet,
    pub(super) winner: Option<Seat>,
}

/// A trick as earlier releases stored it, still read for the games they
/// stored: its leader, its cards and its winner. Some of them also wrote the
/// trick's `len` and `set`; those are skipped, found again from `cards`.
#[derive(Deserialize)]
struct StoredTrick {
    leader: Seat,
    cards: [Option<Card>; 4],
    winner: Option<Seat>,
}

impl From<StoredTrick> for Trick {
    fn from(stored: StoredTrick) -> Trick {
        let mut trick = Trick {
            cards: stored.cards,
            winner: stored.winner,
            ..Trick::led_by(stored.leader)
        };
        // Cards are played from the first place on, with none left out.
        for card in stored.cards.into_iter().map_while(|card| card) {
            trick.set.insert(card);
            trick.len += 1;
        }
        trick
    }
}

/// A trick's packed number: bits 0-1 its leader, bits 2-4 its winner plus
/// one (0: none yet), then six bits for each place from the leader on, the
/// card's bit index in a [`CardSet`] plus one (0: not played yet). One
/// number instead of an object with four card codes: a request reads the
/// deal's eight tricks, half of the live state's reading.
const PACKED_BITS: u32 = 29;

impl Trick {
    /// The trick as a packed number (see [`PACKED_BITS`]).
    fn packed(&self) -> u32 {
        let winner = self.winner.map_or(0, |seat| u32::from(seat.0) + 1);
        let mut packed = u32::from(self.leader.0) | winner << 2;
        for (place, card) in self.cards.iter().enumerate() {
            if let Some(card) = card {
                packed |= (card_index(*card) + 1) << (5 + 6 * place);
            }
        }
        packed
    }

    /// The trick packed in `packed`; `None` for a number no play makes: a
    /// winner past the fourth seat, a card past the 32nd or played twice, a
    /// place filled after an empty one, a winner without four cards or four
    /// cards without a winner, or bits past the last place.
    fn from_packed(packed: u64) -> Option<Trick> {
        if packed >> PACKED_BITS != 0 {
            return None;
        }
        let packed = packed as u32;
        let mut trick = Trick::led_by(Seat((packed & 3) as u8));
        trick.winner = match (packed >> 2) & 7 {
            0 => None,
            seat @ 1..=4 => Some(Seat(seat as u8 - 1)),
            _ => return None,
        };
        for place in 0..4 {
            match (packed >> (5 + 6 * place)) & 63 {
                0 => {}
                code @ 1..=32 if usize::from(trick.len) == place => {
                    let card = card_at(code - 1);
                    if trick.set.contains(card) {
                        return None;
                    }
                    trick.add(card);
                }
                _ => return None,
            }
        }
        // The fourth card closes the trick and names its winner.
        (trick.winner.is_some() == (trick.len == 4)).then_some(trick)
    }
}

impl Serialize for Trick {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.packed())
    }
}

impl<'de> Deserialize<'de> for Trick {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Trick, D::Error> {
        struct TrickVisitor;

        impl<'de> serde::de::Visitor<'de> for TrickVisitor {
            type Value = Trick;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a trick's fields or its packed number")
            }

            fn visit_u64<E: serde::de::Error>(self, packed: u64) -> Result<Trick, E> {
                Trick::from_packed(packed)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(packed), &self))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Trick, A::Error> {
                StoredTrick::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Trick::from)
            }
        }

        deserializer.deserialize_any(TrickVisitor)
    }
}

impl Default for Trick {
    fn default() -> Trick {
        Trick::led_by(Seat(0))
    }
}

impl Trick {
    /// An empty trick that `leader` is to lead.
    pub(super) fn led_by(leader: Seat) -> Trick {
        Trick {
            leader,
            cards: [None; 4],
            len: 0,
            set: CardSet::EMPTY,
            winner: None,
        }
    }

    /// Adds the next seat's card.
    pub(super) fn add(&mut self, card: Card) {
        self.cards[usize::from(self.len)] = Some(card);
        self.set.insert(card);
        self.len += 1;
    }

    /// The seat that plays the card at `position` (0: the leader).
    pub(super) fn seat_at(&self, position: usize) -> Seat {
        Seat((self.leader.0 + position as u8) % SEATS)
    }

    /// Where in the trick `seat` plays (0: the leader).
    pub(super) fn position_of(&self, seat: Seat) -> usize {
        usize::from((seat.0 + SEATS - self.leader.0) % SEATS)
    }

    /// The seat to play the next card.
    pub(super) fn next_seat(&self) -> Seat {
        self.seat_at(usize::from(self.len))
    }

    /// What the seat to play needs to know of this trick (its cards, the
    /// suit led, whether its partner is winning it), with `trump`.
    pub(super) fn so_far(&self, trump: Suit) -> TrickSoFar {
        let played: Vec<Card> = self.cards.iter().map_while(|card| *card).collect();
        TrickSoFar::of(&played, trump)
    }

    /// The cards played so far and who played them, in play order.
    pub(super) fn played(&self) -> impl Iterator<Item = PlayedCard> + '_ {
        self.cards
            .iter()
            .enumerate()
            .filter_map(|(position, card)| {
                card.map(|card| PlayedCard {
                    seat: self.seat_at(position),
                    card,
                })
            })
    }

    /// The trick in progress as views show it, numbered `number`.
    pub(super) fn open(&self, number: u8) -> OpenTrick {
        OpenTrick {
            number,
            leader: self.leader,
            cards: self.played().collect(),
        }
    }

    /// The trick as completed; only called on a trick with four cards.
    pub(super) fn completed(&self, number: u8) -> CompletedTrick {
        let cards = std::array::from_fn(|position| PlayedCard {
            seat: self.seat_at(position),
            card: self.cards[position].expect("a completed trick holds four cards"),
        });
        CompletedTrick {
            number,
            leader: self.leader,
            cards,
            winner: self.winner.expect("a completed trick has a winner"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cards::Rank;
    use crate::rules::klaverjassen::{Match, Options, Phase, RevokeMode};
    use serde_json::json;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    /// Seat 1 led the queen of diamonds, seat 2 followed with the king.
    fn two_cards_played() -> Trick {
        let mut trick = Trick::led_by(Seat(1));
        for code in ["QD", "KD"] {
            trick.add(card(code));
        }
        trick
    }

    #[test]
    fn a_trick_is_read_from_its_leader_its_cards_and_its_winner() {
        let read: Trick = serde_json::from_value(
            json!({"leader": 1, "cards": ["QD", "KD", null, null], "winner": null}),
        )
        .unwrap();
        assert_eq!(read, two_cards_played());
        assert_eq!(read.len, 2);
        assert!(read.set.contains(Card::new(Rank::King, Suit::Diamonds)));
    }

    #[test]
    fn a_trick_is_stored_as_its_packed_number() {
        let stored = serde_json::to_value(two_cards_played()).unwrap();
        assert_eq!(stored, json!(TWO_CARDS_PACKED));
        let read: Trick = serde_json::from_value(stored).unwrap();
        assert_eq!(read, two_cards_played());
    }

    /// Seat 1 led the queen of diamonds, seat 2 followed with the king, as
    /// packed: leader 1, no winner, then each card's bit index plus one.
    const TWO_CARDS_PACKED: u64 = 1 | (14 << 5) | (15 << 11);

    /// A trick as releases before the packed number stored it.
    fn as_fields(trick: Trick) -> serde_json::Value {
        json!({"leader": trick.leader, "cards": trick.cards, "winner": trick.winner})
    }

    #[test]
    fn a_trick_is_read_from_its_packed_number_or_from_its_fields() {
        let mut full = Trick::led_by(Seat(3));
        for code in ["7C", "AS", "10H", "JC"] {
            full.add(card(code));
        }
        full.winner = Some(Seat(2));
        for trick in [
            Trick::led_by(Seat(0)),
            Trick::led_by(Seat(2)),
            two_cards_played(),
            full,
        ] {
            let packed = json!(trick.packed());
            for stored in [packed, as_fields(trick)] {
                let read: Trick = serde_json::from_value(stored.clone()).unwrap();
                assert_eq!(read, trick, "{stored}");
            }
        }
        assert_eq!(
            as_fields(two_cards_played()),
            json!({"leader": 1, "cards": ["QD", "KD", null, null], "winner": null})
        );
    }

    #[test]
    fn every_trick_of_a_played_match_reads_back_from_its_packed_number() {
        use rand::seq::IndexedRandom;
        let rng = &mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(9);
        let mut checked = 0;
        for mode in [RevokeMode::Enforced, RevokeMode::Club] {
            let options = Options {
                revoke_mode: mode,
                deals: 4,
                ..Options::default()
            };
            let mut game = Match::new(options, rng);
            while game.phase() != Phase::Finished {
                for trick in &game.deal.tricks {
                    let packed = serde_json::to_value(trick).unwrap();
                    assert_eq!(serde_json::from_value::<Trick>(packed).unwrap(), *trick);
                    checked += 1;
                }
                let seat = game.awaiting().expect("a match still going").seats[0];
                let mv = *game.legal_moves(seat).choose(rng).unwrap();
                game.play(seat, mv, rng).unwrap();
            }
        }
        assert!(checked > 1000, "{checked} tricks checked");
    }

    #[test]
    fn a_packed_trick_that_no_play_can_make_is_refused() {
        let winner = |code: u64| TWO_CARDS_PACKED | (code << 2);
        let third = |code: u64| TWO_CARDS_PACKED | (code << 17);
        let fourth = |code: u64| TWO_CARDS_PACKED | (code << 23);
        let mut closed = two_cards_played();
        for code in ["AD", "7D"] {
            closed.add(card(code));
        }
        for not_a_trick in [
            json!(winner(1)),
            json!(closed.packed()),
            json!(winner(5)),
            json!(winner(7)),
            json!(third(33)),
            json!(third(63)),
            json!(fourth(1)),
            json!(third(14)),
            json!(TWO_CARDS_PACKED | (1 << 29)),
            json!(1u64 << 32),
            json!(-1),
            json!(1.5),
            json!("QD"),
        ] {
            assert!(
                serde_json::from_value::<Trick>(not_a_trick.clone()).is_err(),
                "{not_a_trick}"
            );
        }
        assert!(serde_json::from_value::<Trick>(json!(third(16))).is_ok());
    }

    #[test]
    fn a_trick_stored_with_its_length_and_set_by_an_earlier_release_is_read_as_before() {
        let read: Trick = serde_json::from_value(json!({
            "leader": 1, "cards": ["QD", "KD", null, null],
            "len": 2, "set": ["QD", "KD"], "winner": null
        }))
        .unwrap();
        assert_eq!(read, two_cards_played());
        let empty: Trick = serde_json::from_value(
            json!({"leader": 0, "cards": [null, null, null, null], "len": 0, "set": [], "winner": null}),
        )
        .unwrap();
        assert_eq!(empty, Trick::led_by(Seat(0)));
    }
}
