//! The deal in progress as the match keeps it, and how its hands are
//! stored.

use serde::{Deserialize, Serialize};

use crate::rules::cards::Suit;

use super::cardset::{CardSet, StoredCards};
use super::history::RevokeRecord;
use super::team::{BySeat, ByTeam};
use super::trick::Trick;

/// The deal in progress; empty while a deal is due and once the match is over.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct DealState {
    /// The hands as dealt.
    #[serde(serialize_with = "hands_as_bits", deserialize_with = "stored_hands")]
    pub(super) dealt: BySeat<CardSet>,
    /// The cards each seat holds now.
    #[serde(serialize_with = "hands_as_bits", deserialize_with = "stored_hands")]
    pub(super) hands: BySeat<CardSet>,
    pub(super) trump: Option<Suit>,
    /// How many seats passed the trump choice (`trump_choice: pass_round`),
    /// in turn from the voorhand: 0 to 4. The seat to name trump is the
    /// next one (the voorhand again after four passes).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) passes: u8,
    /// The completed tricks, then the trick in progress.
    pub(super) tricks: [Trick; 8],
    /// How many tricks are complete.
    pub(super) completed: u8,
    pub(super) tricks_taken: ByTeam<u8>,
    pub(super) card_points: ByTeam<i32>,
    pub(super) roem: ByTeam<i32>,
    /// Every revoke so far (club mode); secret until the deal is over.
    pub(super) revokes: Vec<RevokeRecord>,
    /// Seats (bit per seat) whose next card in the open trick replaces a
    /// corrected revoke and must be allowed.
    pub(super) must_play_allowed: u8,
    /// The trick (1..=8) in which each seat's revoke was last corrected by a
    /// take-back or a report, 0 for none: a report naming the seat in that
    /// trick or the next is a partner's late tap, refused with
    /// `already_corrected`.
    #[serde(default)]
    pub(super) corrected_in: BySeat<u8>,
    /// Seats (bit per seat) done with the review.
    pub(super) review_done: u8,
}

fn is_zero(count: &u8) -> bool {
    *count == 0
}

/// Four hands of the deal in progress as the state stores them: each one's
/// bits ([`StoredCards`]), one number instead of up to eight strings (a
/// hand's codes were most of the cards a request read).
fn hands_as_bits<S: serde::Serializer>(
    hands: &BySeat<CardSet>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    hands.0.map(CardSet::bits).serialize(serializer)
}

/// Four hands of the deal in progress as read from the state: each one's
/// bits, as written since they replaced the card codes, or its card codes,
/// as releases before wrote them ([`StoredCards`]).
fn stored_hands<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<BySeat<CardSet>, D::Error> {
    let hands = <[StoredCards; 4]>::deserialize(deserializer)?;
    Ok(BySeat(hands.map(|hand| hand.0)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::rules::Seat;
    use crate::rules::klaverjassen::team::SEATS;
    use crate::rules::klaverjassen::{Match, Move, Options, deal_from_deck, shuffled_deck};

    use super::*;

    /// A match in its first deal, its hands dealt from a shuffled deck, as
    /// JSON with each hand of `dealt` and `hands` replaced by `hand`'s value.
    fn stored_with_hands(
        hand: impl Fn(CardSet) -> serde_json::Value,
    ) -> (Match, serde_json::Value) {
        let deck = shuffled_deck(
            &mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5),
            1,
        );
        let game = Match::from_hands(Options::default(), deal_from_deck(&deck, Seat(3)));
        let mut stored = serde_json::to_value(&game).unwrap();
        for field in ["dealt", "hands"] {
            let hands =
                serde_json::Value::Array(game.deal.dealt.0.iter().map(|h| hand(*h)).collect());
            stored["deal"][field] = hands;
        }
        (game, stored)
    }

    #[test]
    fn a_hand_of_the_deal_in_progress_is_read_from_its_card_codes_or_from_its_bits() {
        let (game, as_codes) = stored_with_hands(|hand| serde_json::to_value(hand).unwrap());
        let (_, as_bits) = stored_with_hands(|hand| json!(hand.bits()));
        assert!(as_codes["deal"]["hands"][0].is_array(), "{as_codes}");
        assert!(as_bits["deal"]["hands"][0].is_u64(), "{as_bits}");
        for stored in [as_codes, as_bits] {
            let read: Match = serde_json::from_value(stored).unwrap();
            assert_eq!(read, game);
        }
        for not_a_hand in [
            json!(1u64 << 32),
            json!(-1),
            json!(1.5),
            json!(["AS", "AS"]),
            json!("AS"),
        ] {
            let (_, mut stored) = stored_with_hands(|hand| json!(hand.bits()));
            stored["deal"]["hands"][2] = not_a_hand.clone();
            assert!(
                serde_json::from_value::<Match>(stored).is_err(),
                "{not_a_hand}"
            );
        }
    }

    #[test]
    fn the_hands_of_the_deal_in_progress_are_stored_as_their_bits() {
        let (mut game, _) = stored_with_hands(|hand| serde_json::to_value(hand).unwrap());
        let rng = &mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5);
        let first = game.first_hand();
        game.play(first, Move::ChooseTrump { suit: Suit::Hearts }, rng)
            .unwrap();
        let card = game.legal_cards(first).iter().next().unwrap();
        game.play(first, Move::Play { card }, rng).unwrap();
        assert_ne!(game.deal.dealt, game.deal.hands);
        let stored = serde_json::to_value(&game).unwrap();
        for (field, hands) in [("dealt", &game.deal.dealt), ("hands", &game.deal.hands)] {
            for seat in (0..SEATS).map(Seat) {
                assert_eq!(
                    stored["deal"][field][usize::from(seat.0)],
                    json!(hands[seat].bits()),
                    "{field} of {seat:?}: {stored}"
                );
            }
        }
        let read: Match = serde_json::from_value(stored).unwrap();
        assert_eq!(read, game);
    }
}
