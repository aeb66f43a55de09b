//! The `basic` Potverteren player: bids from the pot's value, asks a card
//! while going over 16 is less likely than not, given every card it sees.

use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::potverteren::deck::{full_deck, value};
use crate::rules::potverteren::{Move as PotMove, Table, View};

use crate::ai::Player;

/// The `basic` Potverteren player.
pub struct BasicPlayer;

impl Player<Table> for BasicPlayer {
    fn choose(
        &self,
        me: Seat,
        table: &View,
        moves: &[PotMove],
        _rng: &mut dyn rand::Rng,
    ) -> Option<PotMove> {
        let has = |wanted: PotMove| moves.contains(&wanted);
        if has(PotMove::Deal) {
            return Some(PotMove::Deal);
        }
        if let Some(amount) = moves.iter().find_map(|m| match m {
            PotMove::Bid { amount } => Some(*amount),
            _ => None,
        }) {
            return Some(if wants_to_bid(amount, table.pot, table.hands.len()) {
                PotMove::Bid { amount }
            } else {
                PotMove::Pass
            });
        }
        if has(PotMove::Hit) {
            let mine = table.hands.get(me.index())?;
            let total = mine.total?;
            let seen: Vec<Card> = table
                .hands
                .iter()
                .flat_map(|h| h.open_cards.iter().copied().chain(h.blind_card))
                .collect();
            let decision = if bust_chance(total, &seen) < 0.5 {
                PotMove::Hit
            } else {
                PotMove::Stand
            };
            return Some(decision);
        }
        if has(PotMove::Stand) {
            return Some(PotMove::Stand);
        }
        // Never ends the table, and passes only in an auction.
        moves
            .iter()
            .find(|m| !matches!(m, PotMove::EndTable))
            .copied()
    }
}

/// Whether to bid `amount` for the pothouder's seat. The pothouder's only
/// income is what seats over 16 pay it, about one chip for every second
/// other seat; and it cannot win the pot, so the fuller the pot, the more a
/// seat at play is worth and the less the pothouder's seat.
pub fn wants_to_bid(amount: u32, pot: i64, seats: usize) -> bool {
    let income = (seats as i64 - 1) / 2;
    let pot_share = pot / (seats as i64).max(1);
    i64::from(amount) <= income - pot_share
}

/// The chance that one more card takes `total` over 16, over the cards of
/// the deck not in `seen`.
pub fn bust_chance(total: u32, seen: &[Card]) -> f64 {
    let unseen: Vec<Card> = full_deck()
        .into_iter()
        .filter(|c| !seen.contains(c))
        .collect();
    if unseen.is_empty() {
        return 1.0;
    }
    let over = unseen.iter().filter(|c| total + value(**c) > 16).count();
    over as f64 / unseen.len() as f64
}
