//! The match state machine: deals, trump, tricks, revokes, review and the
//! score sheet. `legal_moves` is the one source of truth for what a seat may
//! do; `play` checks a move against the same rules and changes nothing when
//! it refuses.

use serde::{Deserialize, Serialize};

use crate::rules::cards::{Card, Suit};
use crate::rules::fairness::Randomness;
use crate::rules::records::FinishedRecords;
use crate::rules::{Action, Awaiting, Seat};

use super::cardset::{CardSet, StoredCards, card_at, card_index};
use super::deal::{deal_from_deck, is_full_deal, shuffled_deck};
use super::history::{
    CompletedTrick, DealRecord, OpenTrick, PlayedCard, ReportRecord, RevokeRecord,
};
use super::moves::{Move, MoveError};
use super::options::{Options, RevokeMode};
use super::play_rules::{legal_cards, refusal, set_points, trick_winner};
use super::roem::roem;
use super::scoring::{LAST_TRICK, punishment, score_deal};
use super::team::{BySeat, ByTeam, SEATS, Team};

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = KlaverjassenPhase)]
pub enum Phase {
    /// A deal is due: the dealer is to deal.
    Dealing,
    /// The seat after the dealer is to name trump.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = KlaverjassenMatchResult)]
pub enum MatchResult {
    /// This team has the higher total.
    Won(Team),
    /// Both totals are equal.
    Draw,
}

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

/// A trick as releases before 6886a6a stored it, and as it is still read
/// for the games they stored: its leader, its cards and its winner. Every
/// request reads and every change writes the eight tricks of the deal, and
/// `set` would hold each one's cards a second time, a fifth of the cards in
/// the state on average over a deal; `len` and `set` are found again from
/// `cards`.
///
/// Releases up to 9b61671 wrote them, and could not read a trick without
/// them; 6e32acc and later read both. So this change came in two steps:
/// 6e32acc read without them and still wrote them, for instances of the
/// release before in a rolling deploy or rolled back to (deploy/README.md,
/// "Upgrading"), and the release after it stopped writing them. A state
/// stored with them is read as before: they are skipped. Tricks are now
/// written as their packed number ([`PACKED_BITS`]); this form is still
/// read, for games stored by earlier releases.
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
///
/// It came in two releases (deploy/README.md, "Upgrading"): 9eb5c1e read
/// it and still wrote the fields, so that the release before, which reads
/// only the fields, could read what it wrote; the release after writes it.
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
    fn led_by(leader: Seat) -> Trick {
        Trick {
            leader,
            cards: [None; 4],
            len: 0,
            set: CardSet::EMPTY,
            winner: None,
        }
    }

    /// Adds the next seat's card.
    fn add(&mut self, card: Card) {
        self.cards[usize::from(self.len)] = Some(card);
        self.set.insert(card);
        self.len += 1;
    }

    fn seat_at(&self, position: usize) -> Seat {
        Seat((self.leader.0 + position as u8) % SEATS)
    }

    fn position_of(&self, seat: Seat) -> usize {
        usize::from((seat.0 + SEATS - self.leader.0) % SEATS)
    }

    fn next_seat(&self) -> Seat {
        self.seat_at(usize::from(self.len))
    }

    fn led(&self) -> Option<Suit> {
        self.cards[0].map(|card| card.suit)
    }

    fn played(&self) -> impl Iterator<Item = PlayedCard> + '_ {
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

fn bit(seat: Seat) -> u8 {
    1 << seat.0
}

fn check_seat(seat: Seat) -> Result<(), MoveError> {
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
            Phase::ChoosingTrump => (vec![self.first_hand()], Action::ChooseTrump),
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

    fn club(&self) -> bool {
        self.options.revoke_mode == RevokeMode::Club
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
            Some(trump) if trick.next_seat() == seat => {
                legal_cards(self.deal.hands[seat], trick.set, trick.led(), trump)
            }
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
            Phase::ChoosingTrump if seat == self.first_hand() => {
                Suit::ALL.map(|suit| Move::ChooseTrump { suit }).to_vec()
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
        if seat != self.first_hand() {
            return Err(MoveError::NotYourTurn);
        }
        self.deal.trump = Some(suit);
        self.deal.tricks[0] = Trick::led_by(seat);
        self.phase = Phase::Playing;
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
        if let Some(refused) = refusal(hand, trick.set, trick.led(), trump, card) {
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
        deal.roem[team] += roem(trick.set, trump);
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

    fn require_club(&self) -> Result<(), MoveError> {
        if self.club() {
            Ok(())
        } else {
            Err(MoveError::ClubModeOnly)
        }
    }

    fn open_revoke(&self, seat: Seat) -> bool {
        let open = self.deal.completed + 1;
        self.deal
            .revokes
            .iter()
            .any(|revoke| revoke.seat == seat && revoke.trick == open && !revoke.corrected)
    }

    fn take_back(&mut self, seat: Seat) -> Result<(), MoveError> {
        self.require_club()?;
        if self.phase != Phase::Playing {
            return Err(MoveError::WrongPhase);
        }
        let trick = self.current_trick();
        if trick.position_of(seat) >= usize::from(trick.len) {
            return Err(MoveError::NothingToTakeBack);
        }
        if !self.open_revoke(seat) {
            return Err(MoveError::NotARevoke);
        }
        self.correct(seat);
        Ok(())
    }

    /// Whether `seat`'s revoke was corrected (taken back or reported) in the
    /// open trick or in the trick that closed since.
    fn recently_corrected(&self, seat: Seat) -> bool {
        let trick = self.deal.corrected_in[seat];
        trick != 0 && self.deal.completed <= trick
    }

    /// Returns `seat`'s card in the open trick and every card after it to
    /// their hands; `seat` plays again and its new card must be allowed.
    fn correct(&mut self, seat: Seat) {
        let deal = &mut self.deal;
        let number = deal.completed + 1;
        let trick = &mut deal.tricks[usize::from(deal.completed)];
        let from = trick.position_of(seat);
        for position in from..usize::from(trick.len) {
            let owner = trick.seat_at(position);
            if let Some(card) = trick.cards[position].take() {
                deal.hands[owner].insert(card);
                trick.set.remove(card);
            }
            for revoke in deal.revokes.iter_mut() {
                if revoke.seat == owner && revoke.trick == number {
                    revoke.corrected = true;
                }
            }
        }
        trick.len = from as u8;
        deal.must_play_allowed |= bit(seat);
        deal.corrected_in[seat] = number;
    }

    fn report<R: Randomness + ?Sized>(
        &mut self,
        reporter: Seat,
        named: Seat,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        self.require_club()?;
        if !matches!(self.phase, Phase::Playing | Phase::Review) {
            return Err(MoveError::WrongPhase);
        }
        check_seat(named)?;
        if Team::of(named) == Team::of(reporter) {
            return Err(MoveError::OwnTeam);
        }
        if self.phase == Phase::Review && self.deal.review_done & bit(reporter) != 0 {
            return Err(MoveError::AlreadyReported);
        }
        let closed = self.deal.completed;
        let revoked_in_closed_trick = self
            .deal
            .revokes
            .iter()
            .any(|revoke| revoke.seat == named && revoke.trick <= closed && !revoke.corrected);
        if !revoked_in_closed_trick && self.phase == Phase::Playing && self.open_revoke(named) {
            self.correct(named);
            return Ok(());
        }
        if !revoked_in_closed_trick && self.recently_corrected(named) {
            return Err(MoveError::AlreadyCorrected);
        }
        let report = ReportRecord {
            seat: named,
            reported_by: reporter,
            valid: revoked_in_closed_trick,
        };
        self.finish_deal(Some(report), rng);
        Ok(())
    }

    fn end_review<R: Randomness + ?Sized>(
        &mut self,
        seat: Seat,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        self.require_club()?;
        if self.phase != Phase::Review {
            return Err(MoveError::WrongPhase);
        }
        if self.deal.review_done & bit(seat) != 0 {
            return Err(MoveError::AlreadyReported);
        }
        self.deal.review_done |= bit(seat);
        if self.deal.review_done == 0b1111 {
            self.finish_deal(None, rng);
        }
        Ok(())
    }

    /// Scores the deal (normally, or the punishment `report` decided), writes
    /// its score sheet row, and makes the next deal due (dealing it at once
    /// with `auto_deal`) or ends the match.
    fn finish_deal<R: Randomness + ?Sized>(&mut self, report: Option<ReportRecord>, rng: &mut R) {
        let deal = std::mem::take(&mut self.deal);
        let playing_team = Team::of(self.first_hand());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cards::Rank;
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
