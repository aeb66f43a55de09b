//! The `potverteren` object of a game view: the table as one seat may see
//! it, and its last settled round.

use serde::Serialize;
use utoipa::ToSchema;

use super::cards::{self, Card, Seat};
use crate::rules::potverteren;

/// A table as one seat may see it.
#[derive(Debug, Serialize, ToSchema)]
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
pub struct PotverterenView {
    /// The round in progress, from 1; once finished, the last round settled.
    #[schema(example = 1)]
    pub round: u32,
    /// How the pothouder is chosen.
    pub variant: Variant,
    /// What the table is doing.
    pub phase: PhaseName,
    /// The pothouder of the round in progress, once known.
    #[schema(required = true)]
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
    #[schema(required = true)]
    pub auction: Option<AuctionView>,
    /// One entry per seat, index = seat: the round in progress.
    pub hands: Vec<HandView>,
    /// The last settled round; null before the first settlement.
    #[schema(required = true)]
    pub last_round: Option<LastRound>,
}

impl From<potverteren::View> for PotverterenView {
    fn from(view: potverteren::View) -> PotverterenView {
        PotverterenView {
            round: view.round,
            variant: view.variant.into(),
            phase: view.phase.into(),
            pothouder: view.pothouder.map(Seat::from),
            pot: view.pot,
            pot_parts: view.pot_parts.into(),
            balances: view.balances,
            auction: view.auction.map(AuctionView::from),
            hands: view.hands.into_iter().map(HandView::from).collect(),
            last_round: view.last_round.map(LastRound::from),
        }
    }
}

/// How the pothouder is chosen each round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The standard game: the seats bid for the pothouder (*opbod*).
    Auction,
    /// The pothouder is drawn by lot every round (*aangewezen door het lot*)
    /// and plays like every other seat.
    Lot,
}

impl From<potverteren::Variant> for Variant {
    fn from(variant: potverteren::Variant) -> Variant {
        match variant {
            potverteren::Variant::Auction => Variant::Auction,
            potverteren::Variant::Lot => Variant::Lot,
        }
    }
}

/// What the table is doing, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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

impl From<potverteren::PhaseName> for PhaseName {
    fn from(phase: potverteren::PhaseName) -> PhaseName {
        match phase {
            potverteren::PhaseName::Auction => PhaseName::Auction,
            potverteren::PhaseName::Dealing => PhaseName::Dealing,
            potverteren::PhaseName::Turns => PhaseName::Turns,
            potverteren::PhaseName::Finished => PhaseName::Finished,
        }
    }
}

/// The pot (*pot*), which persists from round to round in two parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"stakes": 9, "pothouder": 4}))]
pub struct PotParts {
    /// Chips the players put in as stakes, plus every remainder of an uneven
    /// split (and, in the lot variant, the excess paid by seats over 16).
    pub stakes: i64,
    /// The pothouder's chips: the winning bids.
    pub pothouder: i64,
}

impl From<potverteren::PotParts> for PotParts {
    fn from(pot: potverteren::PotParts) -> PotParts {
        PotParts {
            stakes: pot.stakes,
            pothouder: pot.pothouder,
        }
    }
}

/// The auction in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"high_bid": 4, "high_bidder": 1, "passed": [3]}))]
pub struct AuctionView {
    /// The highest bid so far; null before the first bid.
    #[schema(example = 4)]
    #[schema(required = true)]
    pub high_bid: Option<u32>,
    /// The seat that made it; null before the first bid.
    #[schema(required = true)]
    pub high_bidder: Option<Seat>,
    /// The seats that have passed.
    pub passed: Vec<Seat>,
}

impl From<potverteren::AuctionView> for AuctionView {
    fn from(auction: potverteren::AuctionView) -> AuctionView {
        AuctionView {
            high_bid: auction.high_bid,
            high_bidder: auction.high_bidder.map(Seat::from),
            passed: cards::seats(auction.passed),
        }
    }
}

/// One seat's cards in the round in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 2, "blind_card": "JS", "open_cards": ["6H"], "stood": false,
    "total": 16}))]
pub struct HandView {
    /// The seat.
    pub seat: Seat,
    /// The blind card: null when none was dealt or the viewer may not see it.
    #[schema(required = true)]
    pub blind_card: Option<Card>,
    /// The cards asked, face up, in the order asked.
    #[schema(example = json!(["9C"]))]
    pub open_cards: Vec<Card>,
    /// Whether its turn is over (it stood, or took its 4th card).
    #[schema(example = false)]
    pub stood: bool,
    /// Its total: null when the viewer may not know it.
    #[schema(example = 16)]
    #[schema(required = true)]
    pub total: Option<u32>,
}

impl From<potverteren::HandView> for HandView {
    fn from(hand: potverteren::HandView) -> HandView {
        HandView {
            seat: hand.seat.into(),
            blind_card: hand.blind_card.map(Card),
            open_cards: cards::cards(hand.open_cards),
            stood: hand.stood,
            total: hand.total,
        }
    }
}

/// The example of a settled round in the OpenAPI document: [`LastRound`]'s,
/// and the one in [`PotverterenView`]'s.
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
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
    #[schema(required = true)]
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the round's deck and lot, by seat (null where none).
    #[schema(example = json!([null, null, "00ff17", null, null]))]
    pub seat_seeds: Vec<Option<String>>,
}

impl From<potverteren::LastRound> for LastRound {
    fn from(round: potverteren::LastRound) -> LastRound {
        LastRound {
            round: round.round,
            pothouder: round.pothouder.into(),
            hands: round.hands.into_iter().map(RevealedHand::from).collect(),
            winners: cards::seats(round.winners),
            pot_before: round.pot_before,
            pot_after: round.pot_after,
            balance_changes: round.balance_changes,
            server_seed: round.server_seed,
            seat_seeds: round.seat_seeds,
        }
    }
}

/// A seat's cards as revealed at the end of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 2, "cards": ["JS", "6H", "4D"], "total": 20}))]
pub struct RevealedHand {
    /// The seat.
    pub seat: Seat,
    /// Its cards, the blind card first, then the open cards in the order asked.
    #[schema(example = json!(["KS", "6H"]))]
    pub cards: Vec<Card>,
    /// The sum of their values.
    #[schema(example = 16)]
    pub total: u32,
}

impl From<potverteren::RevealedHand> for RevealedHand {
    fn from(hand: potverteren::RevealedHand) -> RevealedHand {
        RevealedHand {
            seat: hand.seat.into(),
            cards: cards::cards(hand.cards),
            total: hand.total,
        }
    }
}
