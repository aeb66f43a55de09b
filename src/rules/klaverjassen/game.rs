//! The match state machine: deals, trump, tricks and the score sheet (club
//! mode's revokes and review are in `club.rs`, a trick in `trick.rs`).
//! `legal_moves` is the one source of truth for what a seat may do; `play`
//! checks a move against the same rules and changes nothing when it refuses.

use serde::{Deserialize, Serialize};

use crate::rules::cards::{Card, Suit};
use crate::rules::fairness::Randomness;
use crate::rules::records::FinishedRecords;
use crate::rules::{Action, Awaiting, Seat};

use super::cardset::CardSet;
use super::deal::{deal_from_deck, is_full_deal, shuffled_deck};
use super::deal_state::DealState;
use super::history::{DealRecord, ReportRecord, RevokeRecord};
use super::moves::{Move, MoveError};
use super::options::{HouseRules, Options, TrumpChoice};
use super::play_rules::{legal_cards, refusal, set_points, trick_winner};
use super::roem::roem;
use super::scoring::{LAST_TRICK, punishment, score_deal};
use super::team::{BySeat, ByTeam, SEATS, Team};
use super::trick::Trick;

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// A deal is due: the dealer is to deal.
    Dealing,
    /// Trump is being named: by the seat after the dealer, or, with
    /// `trump_choice: pass_round`, by each seat in turn until one names it.
    ChoosingTrump,
    /// Tricks are being played.
    Playing,
    /// Club mode, after the last trick: every trick is shown and each seat
    /// reports or says it is done.
    Review,
    /// The last deal is over.
    Finished,
}

/// How a finished match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchResult {
    /// This team has the higher total.
    Won(Team),
    /// Both totals are equal.
    Draw,
}

/// A whole Klaverjassen match: options, the deal in progress, the score sheet.
///
/// Serialises completely (mid-deal included) so a stored match reloads into
/// exactly the same state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    pub(super) options: Options,
    pub(super) deal_number: u8,
    pub(super) dealer: Seat,
    pub(super) phase: Phase,
    pub(super) deal: DealState,
    /// Left out when empty: the store keeps the rows apart and writes the
    /// rest without them ([`FinishedRecords`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) sheet: Vec<DealRecord>,
    pub(super) totals: ByTeam<i32>,
}

impl FinishedRecords for Match {
    type Record = DealRecord;

    fn finished_records(&self) -> &[DealRecord] {
        &self.sheet
    }

    fn finished_records_mut(&mut self) -> &mut Vec<DealRecord> {
        &mut self.sheet
    }
}

/// The bit of `seat` in a per-seat bit set.
pub(super) fn bit(seat: Seat) -> u8 {
    1 << seat.0
}

/// `Ok` for a seat of the table.
pub(super) fn check_seat(seat: Seat) -> Result<(), MoveError> {
    if seat.0 < SEATS {
        Ok(())
    } else {
        Err(MoveError::NoSuchSeat { seat })
    }
}

impl Match {
    /// A match at a table that just became full. With `auto_deal`, deal 1 is
    /// dealt at once; otherwise the first dealer is to deal.
    ///
    /// `options` are expected to have passed [`Options::validate`].
    pub fn new<R: Randomness + ?Sized>(options: Options, rng: &mut R) -> Match {
        let mut game = Match::before_first_deal(options);
        if game.options.auto_deal {
            game.deal_shuffled(rng);
        }
        game
    }

    /// A match whose first deal gives these hands, waiting for trump; for
    /// tests and fixtures (the HTTP service always shuffles through
    /// [`Match::new`] and [`Move::Deal`]).
    ///
    /// # Panics
    /// When the hands are not 8 cards each covering the whole deck.
    pub fn from_hands(options: Options, hands: BySeat<CardSet>) -> Match {
        let mut game = Match::before_first_deal(options);
        game.start_deal(hands);
        game
    }

    /// The dealer deals these hands instead of shuffled ones; for tests and
    /// fixtures that need a chosen deal after the first.
    ///
    /// # Panics
    /// When the hands are not 8 cards each covering the whole deck.
    pub fn deal_hands(&mut self, seat: Seat, hands: BySeat<CardSet>) -> Result<(), MoveError> {
        check_seat(seat)?;
        self.check_deal(seat)?;
        self.start_deal(hands);
        Ok(())
    }

    fn before_first_deal(options: Options) -> Match {
        debug_assert_eq!(options.validate(), Ok(()));
        let deals = options.deals.clamp(1, 16);
        Match {
            dealer: Seat(options.first_dealer.0 % SEATS),
            options: Options { deals, ..options },
            deal_number: 1,
            phase: Phase::Dealing,
            deal: DealState::default(),
            // One row per deal: reserve them all so the sheet never regrows.
            sheet: Vec::with_capacity(usize::from(deals)),
            totals: ByTeam::default(),
        }
    }

    fn deal_shuffled<R: Randomness + ?Sized>(&mut self, rng: &mut R) {
        let deck = shuffled_deck(rng, self.deal_number);
        self.start_deal(deal_from_deck(&deck, self.dealer));
    }

    fn start_deal(&mut self, hands: BySeat<CardSet>) {
        assert!(
            is_full_deal(&hands),
            "a deal gives 8 cards to each seat from one deck"
        );
        self.deal = DealState {
            dealt: hands,
            hands,
            ..DealState::default()
        };
        self.phase = Phase::ChoosingTrump;
    }

    /// The seat after the dealer (*voorhand*): names trump and leads trick 1.
    #[inline]
    pub fn first_hand(&self) -> Seat {
        self.dealer.next(SEATS)
    }

    /// The match options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The table's house rules (RULES.md section 3).
    #[inline]
    pub fn house_rules(&self) -> HouseRules {
        self.options.house_rules()
    }

    /// The seat to name trump while it is being chosen, and the seat that
    /// named it once it is: the seat after the last pass (with
    /// `trump_choice: pass_round`), the voorhand again after four passes.
    #[inline]
    pub fn trump_chooser(&self) -> Seat {
        Seat((self.first_hand().0 + self.deal.passes) % SEATS)
    }

    /// The seats that passed the trump choice of the deal in progress, in
    /// the order they passed (public: every seat sees who passed).
    pub fn passed(&self) -> Vec<Seat> {
        (0..self.deal.passes)
            .map(|pass| Seat((self.first_hand().0 + pass) % SEATS))
            .collect()
    }

    /// Whether the seat to name trump may pass instead: with
    /// `trump_choice: pass_round`, until all four have passed.
    fn may_pass(&self) -> bool {
        self.options.trump_choice == TrumpChoice::PassRound && self.deal.passes < SEATS
    }

    /// Where the match stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The deal in progress or due (1..=`deals`); the last deal once finished.
    pub fn deal_number(&self) -> u8 {
        self.deal_number
    }

    /// The dealer of the deal in progress or due.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    /// The trump suit of the deal in progress, once named.
    pub fn trump(&self) -> Option<Suit> {
        self.deal.trump
    }

    /// The cards a seat holds now (empty between deals).
    pub fn hand(&self, seat: Seat) -> CardSet {
        if seat.0 < SEATS {
            self.deal.hands[seat]
        } else {
            CardSet::EMPTY
        }
    }

    /// The seat to play a card, during play.
    #[inline]
    pub fn to_play(&self) -> Option<Seat> {
        (self.phase == Phase::Playing).then(|| self.current_trick().next_seat())
    }

    /// The score sheet: one row per finished deal.
    pub fn deals(&self) -> &[DealRecord] {
        &self.sheet
    }

    /// Fills in the seeds of finished deals whose rows have none yet
    /// ([`super::history::fill_seeds`]); the table calls it after every move.
    pub fn fill_seeds(&mut self, reveal: impl Fn(u8) -> Option<super::history::Seeds>) {
        super::history::fill_seeds(&mut self.sheet, reveal);
    }

    /// Each team's match total so far.
    pub fn totals(&self) -> ByTeam<i32> {
        self.totals
    }

    /// Whether the last deal is over.
    #[inline]
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The winner, or a draw, once the match is finished.
    pub fn result(&self) -> Option<MatchResult> {
        if !self.is_finished() {
            return None;
        }
        let ByTeam { a, b } = self.totals;
        Some(match a.cmp(&b) {
            std::cmp::Ordering::Greater => MatchResult::Won(Team::A),
            std::cmp::Ordering::Less => MatchResult::Won(Team::B),
            std::cmp::Ordering::Equal => MatchResult::Draw,
        })
    }

    /// Who the table waits for; `None` once the match is finished.
    pub fn awaiting(&self) -> Option<Awaiting> {
        let (seats, action) = match self.phase {
            Phase::Dealing => (vec![self.dealer], Action::Deal),
            Phase::ChoosingTrump => (vec![self.trump_chooser()], Action::ChooseTrump),
            Phase::Playing => (vec![self.current_trick().next_seat()], Action::Play),
            Phase::Review => (
                (0..SEATS)
                    .map(Seat)
                    .filter(|seat| self.deal.review_done & bit(*seat) == 0)
                    .collect(),
                Action::EndReview,
            ),
            Phase::Finished => return None,
        };
        Some(Awaiting { seats, action })
    }

    #[inline]
    pub(super) fn current_trick(&self) -> &Trick {
        &self.deal.tricks[usize::from(self.deal.completed.min(7))]
    }

    /// The cards `seat` may play now: its legal plays when it is to play,
    /// else none. In club mode a seat may still lay any held card (a
    /// revoke), but only these are offered.
    #[inline]
    pub fn legal_cards(&self, seat: Seat) -> CardSet {
        if self.phase != Phase::Playing {
            return CardSet::EMPTY;
        }
        let trick = self.current_trick();
        match self.deal.trump {
            Some(trump) if trick.next_seat() == seat => legal_cards(
                self.deal.hands[seat],
                trick.so_far(trump),
                trump,
                self.house_rules(),
            ),
            _ => CardSet::EMPTY,
        }
    }

    /// The moves `seat` may make now, phase by phase as docs/api.md
    /// ("Moves") lists them. Never depends on anything the seat may not know.
    pub fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        if seat.0 >= SEATS {
            return Vec::new();
        }
        let reports = || {
            let mut opponents = [Seat((seat.0 + 1) % SEATS), Seat((seat.0 + 3) % SEATS)];
            opponents.sort();
            opponents.map(|seat| Move::ReportRevoke { seat })
        };
        match self.phase {
            Phase::Finished => Vec::new(),
            Phase::Dealing if seat == self.dealer => vec![Move::Deal],
            Phase::ChoosingTrump if seat == self.trump_chooser() => {
                let mut moves = Suit::ALL.map(|suit| Move::ChooseTrump { suit }).to_vec();
                if self.may_pass() {
                    moves.push(Move::Pass);
                }
                moves
            }
            Phase::Dealing | Phase::ChoosingTrump => Vec::new(),
            Phase::Playing => {
                let mut moves: Vec<Move> = self
                    .legal_cards(seat)
                    .iter()
                    .map(|card| Move::Play { card })
                    .collect();
                if self.club() {
                    let trick = self.current_trick();
                    if trick.position_of(seat) < usize::from(trick.len) {
                        moves.push(Move::TakeBack);
                    }
                    moves.extend(reports());
                }
                moves
            }
            Phase::Review if self.deal.review_done & bit(seat) == 0 => {
                let mut moves = vec![Move::EndReview];
                moves.extend(reports());
                moves
            }
            Phase::Review => Vec::new(),
        }
    }

    /// Makes a move for `seat`. On `Err` nothing changed. With `auto_deal`,
    /// the next deal is dealt inside the call that made it due.
    pub fn play<R: Randomness + ?Sized>(
        &mut self,
        seat: Seat,
        mv: Move,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        check_seat(seat)?;
        match mv {
            Move::Deal => {
                self.check_deal(seat)?;
                self.deal_shuffled(rng);
                Ok(())
            }
            Move::ChooseTrump { suit } => self.choose_trump(seat, suit),
            Move::Pass => self.pass(seat),
            Move::Play { card } => self.play_card(seat, card, rng),
            Move::TakeBack => self.take_back(seat),
            Move::ReportRevoke { seat: named } => self.report(seat, named, rng),
            Move::EndReview => self.end_review(seat, rng),
        }
    }

    fn check_deal(&self, seat: Seat) -> Result<(), MoveError> {
        if self.phase != Phase::Dealing {
            Err(MoveError::WrongPhase)
        } else if seat != self.dealer {
            Err(MoveError::NotYourTurn)
        } else {
            Ok(())
        }
    }

    fn choose_trump(&mut self, seat: Seat, suit: Suit) -> Result<(), MoveError> {
        if self.phase != Phase::ChoosingTrump {
            return Err(MoveError::WrongPhase);
        }
        if seat != self.trump_chooser() {
            return Err(MoveError::NotYourTurn);
        }
        self.deal.trump = Some(suit);
        // The voorhand leads the first trick whoever named trump.
        self.deal.tricks[0] = Trick::led_by(self.first_hand());
        self.phase = Phase::Playing;
        Ok(())
    }

    fn pass(&mut self, seat: Seat) -> Result<(), MoveError> {
        if self.phase != Phase::ChoosingTrump {
            return Err(MoveError::WrongPhase);
        }
        if seat != self.trump_chooser() {
            return Err(MoveError::NotYourTurn);
        }
        if !self.may_pass() {
            return Err(MoveError::MustChooseTrump);
        }
        self.deal.passes += 1;
        Ok(())
    }

    fn play_card<R: Randomness + ?Sized>(
        &mut self,
        seat: Seat,
        card: Card,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        if self.phase != Phase::Playing {
            return Err(MoveError::WrongPhase);
        }
        let trick = *self.current_trick();
        if trick.next_seat() != seat {
            return Err(MoveError::NotYourTurn);
        }
        let hand = self.deal.hands[seat];
        if !hand.contains(card) {
            return Err(MoveError::CardNotInHand { card });
        }
        let trump = self.deal.trump.expect("trump is named before play");
        let rules = self.house_rules();
        if let Some(refused) = refusal(hand, trick.so_far(trump), trump, rules, card) {
            if !self.club() || self.deal.must_play_allowed & bit(seat) != 0 {
                return Err(refused);
            }
            self.deal.revokes.push(RevokeRecord {
                seat,
                trick: self.deal.completed + 1,
                corrected: false,
            });
        }
        self.deal.hands[seat].remove(card);
        self.deal.must_play_allowed &= !bit(seat);
        let index = usize::from(self.deal.completed);
        let trick = &mut self.deal.tricks[index];
        trick.add(card);
        if trick.len == 4 {
            self.close_trick(trump, rng);
        }
        Ok(())
    }

    fn close_trick<R: Randomness + ?Sized>(&mut self, trump: Suit, rng: &mut R) {
        let deal = &mut self.deal;
        let trick = &mut deal.tricks[usize::from(deal.completed)];
        let cards = trick.cards.map(|card| card.expect("four cards"));
        let winner = trick_winner(&cards, trick.leader, trump);
        trick.winner = Some(winner);
        let team = Team::of(winner);
        deal.card_points[team] += set_points(trick.set, trump);
        deal.roem[team] += roem(trick.set, trump, self.options.house_rules());
        deal.tricks_taken[team] += 1;
        deal.completed += 1;
        if deal.completed < 8 {
            deal.tricks[usize::from(deal.completed)] = Trick::led_by(winner);
            return;
        }
        deal.card_points[team] += LAST_TRICK;
        if self.club() {
            self.phase = Phase::Review;
        } else {
            self.finish_deal(None, rng);
        }
    }

    /// Scores the deal (normally, or the punishment `report` decided), writes
    /// its score sheet row, and makes the next deal due (dealing it at once
    /// with `auto_deal`) or ends the match.
    pub(super) fn finish_deal<R: Randomness + ?Sized>(
        &mut self,
        report: Option<ReportRecord>,
        rng: &mut R,
    ) {
        let playing_team = Team::of(self.trump_chooser());
        let deal = std::mem::take(&mut self.deal);
        let (score, pit, nat) = match report {
            Some(report) => {
                let punished = if report.valid {
                    Team::of(report.seat)
                } else {
                    Team::of(report.reported_by)
                };
                (punishment(punished, deal.roem), false, false)
            }
            None => {
                let scored =
                    score_deal(playing_team, deal.card_points, deal.roem, deal.tricks_taken);
                (scored.score, scored.pit, scored.nat)
            }
        };
        let tricks = deal.tricks[..usize::from(deal.completed)]
            .iter()
            .zip(1..)
            .map(|(trick, number)| trick.completed(number))
            .collect();
        self.sheet.push(DealRecord {
            number: self.deal_number,
            dealer: self.dealer,
            trump: deal.trump.expect("trump is named before a deal can end"),
            playing_team,
            card_points: deal.card_points,
            roem: deal.roem,
            score,
            pit,
            nat,
            report,
            hands: deal.dealt,
            tricks,
            revokes: deal.revokes,
            server_seed: None,
            seat_seeds: Vec::new(),
        });
        self.totals.a += score.a;
        self.totals.b += score.b;
        if self.deal_number >= self.options.deals {
            self.phase = Phase::Finished;
            return;
        }
        self.deal_number += 1;
        self.dealer = self.dealer.next(SEATS);
        self.phase = Phase::Dealing;
        if self.options.auto_deal {
            self.deal_shuffled(rng);
        }
    }
}
