//! What one seat (or a spectator) may see: the `klaverjassen` object of the
//! API's game view. Hidden information is decided here and nowhere else.

use serde::Serialize;

use crate::rules::Seat;
use crate::rules::cards::Suit;

use super::cardset::CardSet;
use super::game::{Match, Phase};
use super::history::{CompletedTrick, DealRecord, OpenTrick};
use super::options::HouseRules;
use super::team::{BySeat, ByTeam, SEATS, Team};

/// A seat's view of the match (docs/api.md "Views", `klaverjassen`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    /// The deal in progress or due, 1..=`deals`.
    pub deal_number: u8,
    /// The dealer of that deal.
    pub dealer: Seat,
    /// Where the match stands.
    pub phase: Phase,
    /// The trump suit, once named.
    pub trump: Option<Suit>,
    /// The seat that named trump.
    pub trump_chosen_by: Option<Seat>,
    /// The team of the seat that named trump.
    pub playing_team: Option<Team>,
    /// The seats that passed the trump choice of the deal in progress, in
    /// the order they passed (`trump_choice: pass_round`; empty otherwise
    /// and while a deal is due).
    pub passed: Vec<Seat>,
    /// The table's house rules, for the computer players deciding from this
    /// view. Not sent over the API, whose view shows them among the
    /// table's `options`.
    #[serde(skip)]
    pub house_rules: HouseRules,
    /// The caller's own cards (empty for a spectator).
    pub hand: CardSet,
    /// How many cards each seat holds.
    pub hand_sizes: BySeat<u8>,
    /// The trick in progress, during play.
    pub trick: Option<OpenTrick>,
    /// The last completed trick, until the next one completes; trick 8
    /// during the review.
    pub previous_trick: Option<CompletedTrick>,
    /// During the review (club mode): every trick of the deal.
    pub review_tricks: Option<Vec<CompletedTrick>>,
    /// The completed tricks of the deal in progress, in order (empty outside
    /// play and review). Every card played was seen by every seat, so this is
    /// public; computer players remember it as a player at the table does.
    /// It is not sent over the API, which shows only `previous_trick`
    /// (RULES.md: older tricks are not shown during the deal).
    #[serde(skip)]
    pub tricks: Vec<CompletedTrick>,
    /// Tricks each team has taken in the deal in progress.
    pub tricks_taken: ByTeam<u8>,
    /// Roem each team has made in the deal in progress.
    pub roem: ByTeam<i32>,
    /// The score sheet: one row per finished deal, with its full history.
    pub deals: Vec<DealRecord>,
    /// Each team's match total.
    pub totals: ByTeam<i32>,
}

impl Match {
    /// The view of `seat`, or of a spectator for `None`.
    pub fn view_for(&self, seat: Option<Seat>) -> View {
        let deal = &self.deal;
        let completed = usize::from(deal.completed);
        let number = |index: usize| index as u8 + 1;
        let trump_named = deal.trump.is_some();
        let (trick, previous_trick, review_tricks) = match self.phase {
            Phase::Playing => (
                Some(self.current_trick().open(number(completed))),
                completed
                    .checked_sub(1)
                    .map(|last| deal.tricks[last].completed(number(last))),
                None,
            ),
            Phase::Review => (
                None,
                Some(deal.tricks[7].completed(8)),
                Some(
                    deal.tricks
                        .iter()
                        .enumerate()
                        .map(|(index, trick)| trick.completed(number(index)))
                        .collect(),
                ),
            ),
            Phase::Dealing | Phase::ChoosingTrump | Phase::Finished => (None, None, None),
        };
        let tricks = match self.phase {
            Phase::Playing | Phase::Review => deal.tricks[..completed]
                .iter()
                .enumerate()
                .map(|(index, trick)| trick.completed(number(index)))
                .collect(),
            Phase::Dealing | Phase::ChoosingTrump | Phase::Finished => Vec::new(),
        };
        View {
            deal_number: self.deal_number,
            dealer: self.dealer,
            phase: self.phase,
            trump: deal.trump,
            trump_chosen_by: trump_named.then(|| self.trump_chooser()),
            playing_team: trump_named.then(|| Team::of(self.trump_chooser())),
            passed: self.passed(),
            house_rules: self.house_rules(),
            hand: seat
                .filter(|seat| seat.0 < SEATS)
                .map_or(CardSet::EMPTY, |seat| deal.hands[seat]),
            hand_sizes: BySeat(deal.hands.0.map(|hand| hand.len() as u8)),
            trick,
            previous_trick,
            review_tricks,
            tricks,
            tricks_taken: deal.tricks_taken,
            roem: deal.roem,
            deals: self.sheet.clone(),
            totals: self.totals,
        }
    }
}
