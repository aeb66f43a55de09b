//! Shuffling and dealing 3-2-3 (docs/klaverjassen.md, "Table, cards and deals").

use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::fairness::Randomness;

use super::cardset::{CardSet, card_at};
use super::team::{BySeat, SEATS};

/// The 32 cards in their canonical order: clubs, diamonds, hearts, spades,
/// each 7 8 9 10 J Q K A (the order docs/fairness.md shuffles from).
pub fn canonical_deck() -> [Card; 32] {
    std::array::from_fn(|index| card_at(index as u32))
}

/// The uniformly shuffled 32-card deck of deal `deal`, top card first.
pub fn shuffled_deck<R: Randomness + ?Sized>(rng: &mut R, deal: u8) -> [Card; 32] {
    let mut deck = canonical_deck();
    rng.shuffle_deck(u32::from(deal), &mut deck);
    deck
}

/// Deals `deck` from the top 3-2-3, starting with the seat after `dealer`:
/// three cards to each seat in turn, then two each, then three each.
pub fn deal_from_deck(deck: &[Card; 32], dealer: Seat) -> BySeat<CardSet> {
    let mut hands = BySeat::<CardSet>::default();
    let mut next = 0;
    for packet in [3, 2, 3] {
        for offset in 1..=SEATS {
            let seat = Seat((dealer.0 + offset) % SEATS);
            for card in &deck[next..next + packet] {
                hands[seat].insert(*card);
            }
            next += packet;
        }
    }
    hands
}

/// Whether `hands` give each seat 8 cards and every card of the deck to
/// exactly one seat.
pub fn is_full_deal(hands: &BySeat<CardSet>) -> bool {
    let union = hands.0.iter().fold(CardSet::EMPTY, |all, hand| all | *hand);
    union == CardSet::DECK && hands.0.iter().all(|hand| hand.len() == 8)
}
