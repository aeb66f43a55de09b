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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = PotverterenView)]
#[schema(example = json!({
    "round": 5, "variant": "auction", "phase": "auction", "pothouder": null,
    "pot": 15, "pot_parts": {"stakes": 0, "pothouder": 15},
    "balances": [93, 110, 88, 101, 93],
    "auction": {"high_bid": 1, "high_bidder": 2, "passed": [3]},
    "hands": [
        {"seat": 0, "blind_card": null, "open_cards": [], "stood": false, "total": null},
        {"seat": 1, "blind_card": null, "open_cards": [], "stood": false, "total": null},
        {"seat": 2, "blind_card": null, "open_cards": [], "stood": false, "total": null},
        {"seat": 3, "blind_card": null, "open_cards": [], "stood": false, "total": null},
        {"seat": 4, "blind_card": null, "open_cards": [], "stood": false, "total": null}
    ],
    "last_round": last_round_example()
}))]
pub struct View {
    /// The round in progress, from 1; once finished, the last round settled.
    #[schema(example = 1)]
    pub round: u32,
    /// How the pothouder is chosen.
    pub variant: Variant,
    /// What the table is doing.
    pub phase: PhaseName,
    /// The pothouder of the round in progress, once known.
    pub pothouder: Option<Seat>,
    /// The pot, both parts together.
    #[schema(example = 13)]
    pub pot: i64,
    /// The pot's two parts.
    pub pot_parts: PotParts,
    /// Each seat's chips, by seat; may be below zero.
    #[schema(example = json!([100, 96, 99, 99, 99]))]
    pub balances: Vec<i64>,
    /// The auction while it is on; null otherwise.
    pub auction: Option<AuctionView>,
    /// One entry per seat, index = seat: the round in progress.
    pub hands: Vec<HandView>,
    /// The last settled round; null before the first settlement.
    pub last_round: Option<LastRound>,
}

/// What the table is doing, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"high_bid": 4, "high_bidder": 1, "passed": [3]}))]
pub struct AuctionView {
    /// The highest bid so far; null before the first bid.
    #[schema(example = 4)]
    pub high_bid: Option<u32>,
    /// The seat that made it; null before the first bid.
    pub high_bidder: Option<Seat>,
    /// The seats that have passed.
    pub passed: Vec<Seat>,
}

/// One seat's cards in the round in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"seat": 2, "blind_card": "JS", "open_cards": ["6H"], "stood": false,
    "total": 16}))]
pub struct HandView {
    /// The seat.
    pub seat: Seat,
    /// The blind card: null when none was dealt or the viewer may not see it.
    pub blind_card: Option<Card>,
    /// The cards asked, face up, in the order asked.
    #[schema(example = json!(["9C"]))]
    pub open_cards: Vec<Card>,
    /// Whether its turn is over (it stood, or took its 4th card).
    #[schema(example = false)]
    pub stood: bool,
    /// Its total: null when the viewer may not know it.
    #[schema(example = 16)]
    pub total: Option<u32>,
}

/// The example of a settled round in the OpenAPI document: [`LastRound`]'s,
/// and the one in [`View`]'s.
fn last_round_example() -> serde_json::Value {
    serde_json::json!({
        "round": 4, "pothouder": 1,
        "hands": [
            {"seat": 0, "cards": ["QH"], "total": 10},
            {"seat": 2, "cards": ["JS", "6H", "4D"], "total": 20},
            {"seat": 3, "cards": ["4C"], "total": 4},
            {"seat": 4, "cards": ["9S"], "total": 9}
        ],
        "winners": [0], "pot_before": 9, "pot_after": 15,
        "balance_changes": [3, -2, -5, -1, -1],
        "server_seed": "cfefdbc5b7bf80aac1d9544838713376f991bf8d859af90bd063c36764000508",
        "seat_seeds": [null, null, "00ff17", null, null]
    })
}

/// The last settled round, revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(example = last_round_example)]
pub struct LastRound {
    /// Its number.
    #[schema(example = 4)]
    pub round: u32,
    /// Its pothouder.
    pub pothouder: Seat,
    /// Every dealt seat's cards, blind card first.
    pub hands: Vec<RevealedHand>,
    /// The seats that shared the prize.
    pub winners: Vec<Seat>,
    /// The pot when the round began, before bid and stakes.
    #[schema(example = 9)]
    pub pot_before: i64,
    /// The pot after the settlement.
    #[schema(example = 15)]
    pub pot_after: i64,
    /// Net change of each seat's balance over the round, by seat.
    #[schema(example = json!([3, -2, -5, -1, -1]))]
    pub balance_changes: Vec<i64>,
    /// The round's server seed `s(k)` (docs/fairness.md); filled in by the
    /// table around the rules, which keeps the seeds.
    #[schema(example = "5be1c0f8a3d24e6b9f7a1c3e5d7b9f1a2c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2f")]
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the round's deck and lot, by seat (null where none).
    #[schema(example = json!([null, null, "00ff17", null, null]))]
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
