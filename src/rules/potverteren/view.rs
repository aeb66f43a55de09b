//! What one seat (or a spectator) may see of a table: the `potverteren`
//! object of the API's views. Hidden information is decided here and only
//! here: another seat's blind card and total stay hidden until the reveal,
//! and the deck never shows.

use serde::Serialize;

use super::options::Variant;
use super::settlement::{PotParts, RevealedHand, RoundResult};
use super::table::{Phase, Table};
use crate::rules::Seat;
use crate::rules::cards::Card;

/// A table as one seat may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    /// The round in progress, from 1; once finished, the last round settled.
    pub round: u32,
    /// How the pothouder is chosen.
    pub variant: Variant,
    /// What the table is doing.
    pub phase: PhaseName,
    /// The pothouder of the round in progress, once known.
    pub pothouder: Option<Seat>,
    /// The pot, both parts together.
    pub pot: i64,
    /// The pot's two parts.
    pub pot_parts: PotParts,
    /// Each seat's chips, by seat; may be below zero.
    pub balances: Vec<i64>,
    /// The auction while it is on; null otherwise.
    pub auction: Option<AuctionView>,
    /// One entry per seat, index = seat: the round in progress.
    pub hands: Vec<HandView>,
    /// The last settled round; null before the first settlement.
    pub last_round: Option<LastRound>,
}

/// What the table is doing, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    /// The seats bid for the pothouder.
    Auction,
    /// The pothouder is to deal.
    Dealing,
    /// The seats take their turns.
    Turns,
    /// The host ended the table.
    Finished,
}

/// The auction in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AuctionView {
    /// The highest bid so far; null before the first bid.
    pub high_bid: Option<u32>,
    /// The seat that made it; null before the first bid.
    pub high_bidder: Option<Seat>,
    /// The seats that have passed.
    pub passed: Vec<Seat>,
}

/// One seat's cards in the round in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HandView {
    /// The seat.
    pub seat: Seat,
    /// The blind card: null when none was dealt or the viewer may not see it.
    pub blind_card: Option<Card>,
    /// The cards asked, face up, in the order asked.
    pub open_cards: Vec<Card>,
    /// Whether its turn is over (it stood, or took its 4th card).
    pub stood: bool,
    /// Its total: null when the viewer may not know it.
    pub total: Option<u32>,
}

/// The last settled round, revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LastRound {
    /// Its number.
    pub round: u32,
    /// Its pothouder.
    pub pothouder: Seat,
    /// Every dealt seat's cards, blind card first.
    pub hands: Vec<RevealedHand>,
    /// The seats that shared the prize.
    pub winners: Vec<Seat>,
    /// The pot when the round began, before bid and stakes.
    pub pot_before: i64,
    /// The pot after the settlement.
    pub pot_after: i64,
    /// Net change of each seat's balance over the round, by seat.
    pub balance_changes: Vec<i64>,
    /// The round's server seed `s(k)` (docs/fairness.md); filled in by the
    /// table around the rules, which keeps the seeds.
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the round's deck and lot, by seat (null where none).
    pub seat_seeds: Vec<Option<String>>,
}

impl From<&RoundResult> for LastRound {
    fn from(result: &RoundResult) -> LastRound {
        LastRound {
            round: result.round,
            pothouder: result.pothouder,
            hands: result.hands.clone(),
            winners: result.winners.clone(),
            pot_before: result.pot_before.total(),
            pot_after: result.pot_after.total(),
            balance_changes: result.balance_changes.clone(),
            server_seed: None,
            seat_seeds: Vec::new(),
        }
    }
}

impl Table {
    /// The table as `viewer` may see it; `None` is a spectator.
    pub fn view_for(&self, viewer: Option<Seat>) -> View {
        let (phase, auction) = match &self.phase {
            Phase::Auction(auction) => (
                PhaseName::Auction,
                Some(AuctionView {
                    high_bid: auction.high_bid,
                    high_bidder: auction.high_bidder,
                    passed: auction.passed_seats(),
                }),
            ),
            Phase::Dealing { .. } => (PhaseName::Dealing, None),
            Phase::Turns(_) => (PhaseName::Turns, None),
            Phase::Finished => (PhaseName::Finished, None),
        };
        let hands = (0..self.options.seats)
            .map(Seat)
            .map(|seat| {
                let hand = match &self.phase {
                    Phase::Turns(turns) => turns.hands.get(seat.index()),
                    _ => None,
                };
                let own = viewer == Some(seat);
                HandView {
                    seat,
                    blind_card: hand.and_then(|h| h.blind).filter(|_| own),
                    open_cards: hand.map(|h| h.open.clone()).unwrap_or_default(),
                    stood: hand.is_some_and(|h| h.stood),
                    total: hand.filter(|h| own && h.blind.is_some()).map(|h| h.total()),
                }
            })
            .collect();
        View {
            round: self.round,
            variant: self.options.variant,
            phase,
            pothouder: self.pothouder(),
            pot: self.pot.total(),
            pot_parts: self.pot,
            balances: self.balances.clone(),
            auction,
            hands,
            last_round: self.history.last().map(LastRound::from),
        }
    }
}
