//! Settling a round once the blind cards are turned (docs/potverteren.md, settlement, and
//! the lot variant), and the public record of a settled round.

use serde::{Deserialize, Serialize};

use super::hand::{SIXTEEN, is_briljant_sixteen, total};
use super::options::Variant;
use crate::rules::Seat;
use crate::rules::cards::Card;

/// The pot (*pot*), which persists from round to round in two parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotParts {
    /// Chips the players put in as stakes, plus every remainder of an uneven
    /// split (and, in the lot variant, the excess paid by seats over 16).
    pub stakes: i64,
    /// The pothouder's chips: the winning bids.
    pub pothouder: i64,
}

impl PotParts {
    /// Both parts together.
    pub const fn total(&self) -> i64 {
        self.stakes + self.pothouder
    }
}

/// A seat's cards as revealed at the end of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealedHand {
    /// The seat.
    pub seat: Seat,
    /// Its cards, the blind card first, then the open cards in the order asked.
    pub cards: Vec<Card>,
    /// The sum of their values.
    pub total: u32,
}

impl RevealedHand {
    /// The revealed hand of `seat` holding `cards`.
    pub fn new(seat: Seat, cards: Vec<Card>) -> RevealedHand {
        let total = total(&cards);
        RevealedHand { seat, cards, total }
    }
}

/// What one seat over 16 paid, and to whom it went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcessPayment {
    /// The seat over 16.
    pub seat: Seat,
    /// Its total minus 16.
    pub chips: i64,
}

/// The full public record of a settled round: how the pothouder was chosen,
/// what was dealt and asked, and how the chips moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundResult {
    /// The round's number, from 1.
    pub round: u32,
    /// The pothouder.
    pub pothouder: Seat,
    /// The winning bid the pothouder paid; `None` when drawn by lot.
    pub bid: Option<u32>,
    /// Every dealt seat's cards (blind card first), in seat order.
    pub hands: Vec<RevealedHand>,
    /// The seats over 16 and their excess: paid to the pothouder in the
    /// auction variant, into the pot's stakes part in the lot variant.
    pub excess_payments: Vec<ExcessPayment>,
    /// The seats that shared the prize (empty when every seat was over 16).
    pub winners: Vec<Seat>,
    /// Chips each winner received.
    pub prize_each: i64,
    /// The pot when the round began, before bid and stakes.
    pub pot_before: PotParts,
    /// The pot after the settlement.
    pub pot_after: PotParts,
    /// Net change of each seat's balance over the round, by seat (stakes,
    /// bid, excess and prize included).
    pub balance_changes: Vec<i64>,
}

/// Who wins among the revealed hands: exactly 16 first (the briljant pair
/// beats all, then fewest cards), else closest below 16 (then fewest cards);
/// ties share. Also says whether the winners hold exactly 16.
pub fn winners(hands: &[RevealedHand]) -> (Vec<Seat>, bool) {
    let sixteens: Vec<&RevealedHand> = hands.iter().filter(|h| h.total == SIXTEEN).collect();
    if let Some(briljant) = sixteens.iter().find(|h| is_briljant_sixteen(&h.cards)) {
        return (vec![briljant.seat], true);
    }
    if !sixteens.is_empty() {
        return (fewest_cards(&sixteens), true);
    }
    let below: Vec<&RevealedHand> = hands.iter().filter(|h| h.total < SIXTEEN).collect();
    let Some(best) = below.iter().map(|h| h.total).max() else {
        return (Vec::new(), false);
    };
    let closest: Vec<&RevealedHand> = below.into_iter().filter(|h| h.total == best).collect();
    (fewest_cards(&closest), false)
}

fn fewest_cards(hands: &[&RevealedHand]) -> Vec<Seat> {
    let fewest = hands.iter().map(|h| h.cards.len()).min().unwrap_or(0);
    hands
        .iter()
        .filter(|h| h.cards.len() == fewest)
        .map(|h| h.seat)
        .collect()
}

/// How the chips move at a settlement.
pub(crate) struct Settlement {
    pub(crate) excess_payments: Vec<ExcessPayment>,
    pub(crate) winners: Vec<Seat>,
    pub(crate) prize_each: i64,
}

/// Settles the revealed `hands` against `pot` and `balances`, in the rules'
/// order: excess first, then the prize.
pub(crate) fn settle(
    variant: Variant,
    pothouder: Seat,
    hands: &[RevealedHand],
    pot: &mut PotParts,
    balances: &mut [i64],
) -> Settlement {
    let excess_payments: Vec<ExcessPayment> = hands
        .iter()
        .filter(|h| h.total > SIXTEEN)
        .map(|h| ExcessPayment {
            seat: h.seat,
            chips: i64::from(h.total - SIXTEEN),
        })
        .collect();
    for payment in &excess_payments {
        balances[payment.seat.index()] -= payment.chips;
        match variant {
            Variant::Auction => balances[pothouder.index()] += payment.chips,
            Variant::Lot => pot.stakes += payment.chips,
        }
    }

    let (winners, at_sixteen) = winners(hands);
    let mut prize_each = 0;
    if !winners.is_empty() {
        // Closest below 16 in the auction variant takes only the stakes part:
        // the pothouder's chips stay in the pot.
        let whole_pot = at_sixteen || variant == Variant::Lot;
        let prize = if whole_pot { pot.total() } else { pot.stakes };
        let count = i64::try_from(winners.len()).expect("at most 10 winners");
        prize_each = prize / count;
        for seat in &winners {
            balances[seat.index()] += prize_each;
        }
        if whole_pot {
            pot.pothouder = 0;
        }
        pot.stakes = prize % count;
    }
    Settlement {
        excess_payments,
        winners,
        prize_each,
    }
}
