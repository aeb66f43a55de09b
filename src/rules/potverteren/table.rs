//! The table: the whole state of a Potverteren game, the legal moves of each
//! seat, and how a move changes the state (with every automatic step it
//! makes due: lot draws and automatic deals).

use serde::{Deserialize, Serialize};

use super::auction::{Auction, Outcome};
use super::deck::Deck;
use super::hand::{Hand, MAX_CARDS, SIXTEEN};
use super::moves::{MAX_BID, Move, MoveError};
use super::options::{Options, Variant};
use super::settlement::{PotParts, RevealedHand, RoundResult, settle};
use crate::rules::fairness::Randomness;
use crate::rules::records::FinishedRecords;
use crate::rules::{Action, Awaiting, Seat};

/// A Potverteren table, from the moment it is full until the host ends it.
///
/// Serialising and deserialising it at any point of a round restores it
/// exactly, deck order included; it is the server's private state, and what a
/// seat may see is [`Table::view_for`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub(super) options: Options,
    pub(super) host: Seat,
    /// The round in progress (from 1); once finished, the last round settled.
    pub(super) round: u32,
    pub(super) balances: Vec<i64>,
    pub(super) pot: PotParts,
    pub(super) phase: Phase,
    /// The pothouder of the last settled round, after whom the auction opens.
    pub(super) previous_pothouder: Option<Seat>,
    /// Balances and pot as the round in progress began.
    pub(super) round_start: RoundStart,
    /// The settled rounds held, oldest first: every one, or the latest
    /// when the table was read back without the older ones. Left out when
    /// empty: the store keeps the settled rounds apart and writes the rest
    /// without them ([`FinishedRecords`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) history: Vec<RoundResult>,
}

impl FinishedRecords for Table {
    type Record = RoundResult;

    fn finished_records(&self) -> &[RoundResult] {
        &self.history
    }

    fn finished_records_mut(&mut self) -> &mut Vec<RoundResult> {
        &mut self.history
    }
}

/// What the table is doing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Phase {
    /// The seats bid for the pothouder.
    Auction(Auction),
    /// The pothouder is known and is to deal.
    Dealing { pothouder: Seat, bid: Option<u32> },
    /// The seats take their turns.
    Turns(Turns),
    /// The host ended the table.
    Finished,
}

/// The round after the deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Turns {
    pub(super) pothouder: Seat,
    pub(super) bid: Option<u32>,
    pub(super) deck: Deck,
    /// By seat; the pothouder's hand stays empty in the auction variant.
    pub(super) hands: Vec<Hand>,
    /// The dealt seats in order of play, starting after the pothouder.
    pub(super) order: Vec<Seat>,
    /// Index into `order` of the seat whose turn it is.
    pub(super) turn: usize,
}

impl Turns {
    fn current(&self) -> Seat {
        self.order[self.turn]
    }
}

/// Balances and pot at the start of the round in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct RoundStart {
    pub(super) balances: Vec<i64>,
    pub(super) pot: PotParts,
}

impl Table {
    /// A table that just became full, with round 1 begun (in the lot variant
    /// the first pothouder is drawn now, and with `auto_deal` dealt).
    ///
    /// # Panics
    /// If `options` do not [validate](Options::validate) or `host` is not a seat.
    pub fn new<R: Randomness + ?Sized>(options: Options, host: Seat, rng: &mut R) -> Table {
        if let Err(error) = options.validate() {
            panic!("invalid Potverteren options: {error}");
        }
        assert!(host.0 < options.seats, "the host must be seated");
        let balances = vec![options.starting_chips; usize::from(options.seats)];
        let mut table = Table {
            options,
            host,
            round: 0,
            round_start: RoundStart {
                balances: balances.clone(),
                pot: PotParts::default(),
            },
            balances,
            pot: PotParts::default(),
            phase: Phase::Finished,
            previous_pothouder: None,
            history: Vec::new(),
        };
        table.start_round(rng);
        table
    }

    /// The options the table was created with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The host, who may end the table.
    pub fn host(&self) -> Seat {
        self.host
    }

    /// The round in progress, from 1; once finished, the last round settled
    /// (0 if none was).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Whether the host has ended the table.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// Each seat's chips, by seat; may be below zero.
    pub fn balances(&self) -> &[i64] {
        &self.balances
    }

    /// The pot and its two parts.
    pub fn pot(&self) -> PotParts {
        self.pot
    }

    /// The pothouder of the round in progress, once known.
    pub fn pothouder(&self) -> Option<Seat> {
        match &self.phase {
            Phase::Dealing { pothouder, .. } => Some(*pothouder),
            Phase::Turns(turns) => Some(turns.pothouder),
            Phase::Auction(_) | Phase::Finished => None,
        }
    }

    /// The settled rounds held, oldest first: every one, or the latest
    /// when the table was read back without the older ones.
    pub fn settled_rounds(&self) -> &[RoundResult] {
        &self.history
    }

    /// The public record of settled round `round`, if it has been settled
    /// and is held ([`Table::settled_rounds`]).
    pub fn settled_round(&self, round: u32) -> Option<&RoundResult> {
        // Rounds are settled in order, each once: the held ones are a run
        // of consecutive numbers ending at the last settled.
        let first = self.history.first()?.round;
        let index = usize::try_from(round.checked_sub(first)?).ok()?;
        self.history
            .get(index)
            .filter(|result| result.round == round)
    }

    /// Who the table waits for, and for what; `None` once finished. Never
    /// depends on hidden cards.
    pub fn awaiting(&self) -> Option<Awaiting> {
        let (seat, action) = match &self.phase {
            Phase::Auction(auction) => (auction.to_speak, Action::Bid),
            Phase::Dealing { pothouder, .. } => (*pothouder, Action::Deal),
            Phase::Turns(turns) => (turns.current(), Action::HitOrStand),
            Phase::Finished => return None,
        };
        Some(Awaiting {
            seats: vec![seat],
            action,
        })
    }

    /// The moves `seat` may make now: the source of truth that [`Table::play`]
    /// checks against. A bid is offered at its minimum; any higher amount up
    /// to 1,000,000 is allowed too. Only the seat to move learns whether it is
    /// over 16 (its only move is then `stand`).
    pub fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        let mut moves = Vec::new();
        match &self.phase {
            Phase::Auction(auction) if auction.to_speak == seat => {
                if auction.can_bid() {
                    moves.push(Move::Bid {
                        amount: auction.minimum(),
                    });
                }
                moves.push(Move::Pass);
            }
            Phase::Dealing { pothouder, .. } if *pothouder == seat => moves.push(Move::Deal),
            Phase::Turns(turns) if turns.current() == seat => {
                if turns.hands[seat.index()].total() <= SIXTEEN {
                    moves.push(Move::Hit);
                }
                moves.push(Move::Stand);
            }
            Phase::Finished => return moves,
            _ => {}
        }
        if seat == self.host && self.may_end_table() {
            moves.push(Move::EndTable);
        }
        moves
    }

    /// Makes `seat`'s move, with every automatic step it makes due. On error
    /// nothing changes.
    pub fn play<R: Randomness + ?Sized>(
        &mut self,
        seat: Seat,
        mv: Move,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        self.check(seat, mv)?;
        match mv {
            Move::Deal => self.deal(Deck::shuffled(rng, self.round)),
            Move::Bid { amount } => {
                if let Some(outcome) = self.auction_mut().bid(amount) {
                    self.auction_over(outcome, rng);
                }
            }
            Move::Pass => {
                if let Some(outcome) = self.auction_mut().pass() {
                    self.auction_over(outcome, rng);
                }
            }
            Move::Hit => {
                let turns = self.turns_mut();
                let card = turns.deck.take_bottom();
                let hand = &mut turns.hands[seat.index()];
                hand.open.push(card);
                if hand.len() == MAX_CARDS {
                    self.end_turn(rng);
                }
            }
            Move::Stand => self.end_turn(rng),
            Move::EndTable => {
                // Whatever the round in progress took in (only the stakes of
                // an automatic deal in the lot variant) goes back.
                self.balances.clone_from(&self.round_start.balances);
                self.pot = self.round_start.pot;
                self.round -= 1;
                self.phase = Phase::Finished;
            }
        }
        Ok(())
    }

    /// The pothouder's `deal` from a given deck instead of a shuffled one.
    /// For tests and fixtures only: the service never calls it. The same
    /// checks as [`Table::play`] with [`Move::Deal`] apply.
    pub fn deal_from(&mut self, seat: Seat, deck: Deck) -> Result<(), MoveError> {
        self.check(seat, Move::Deal)?;
        self.deal(deck);
        Ok(())
    }

    /// Whether the host may end the table now: at the start of a round. In
    /// the auction that is until the first bid; in the lot variant until the
    /// deal, or with `auto_deal` until the first seat's first move.
    fn may_end_table(&self) -> bool {
        match &self.phase {
            Phase::Auction(auction) => auction.high_bid.is_none(),
            Phase::Dealing { .. } => self.options.variant == Variant::Lot,
            Phase::Turns(turns) => {
                self.options.variant == Variant::Lot
                    && self.options.auto_deal
                    && turns.turn == 0
                    && turns.hands[turns.current().index()].open.is_empty()
            }
            Phase::Finished => false,
        }
    }

    fn check(&self, seat: Seat, mv: Move) -> Result<(), MoveError> {
        if seat.0 >= self.options.seats {
            return Err(MoveError::NotSeated { seat });
        }
        if let Move::Bid { amount } = mv
            && amount > MAX_BID
        {
            return Err(MoveError::BidOutOfRange);
        }
        let allowed = self
            .legal_moves(seat)
            .iter()
            .any(|legal| match (legal, mv) {
                (Move::Bid { amount: minimum }, Move::Bid { amount }) => amount >= *minimum,
                _ => *legal == mv,
            });
        if allowed {
            Ok(())
        } else {
            Err(self.why_not(seat, mv))
        }
    }

    /// Which rule refuses `mv`, known not to be legal for `seat`.
    fn why_not(&self, seat: Seat, mv: Move) -> MoveError {
        let wrong_phase = |phase| MoveError::WrongPhase {
            attempted: mv,
            phase,
        };
        let not_your_turn = MoveError::NotYourTurn { attempted: mv };
        match (mv, &self.phase) {
            (Move::EndTable, _) if seat != self.host => MoveError::NotHost,
            (_, Phase::Finished) => wrong_phase("once the table is finished"),
            (Move::EndTable, _) => wrong_phase("once a round has begun"),
            (Move::Bid { .. } | Move::Pass, Phase::Auction(auction)) => {
                match (mv, auction.to_speak == seat) {
                    (Move::Bid { .. }, true) => MoveError::BidTooLow {
                        minimum: auction.minimum(),
                    },
                    _ => not_your_turn,
                }
            }
            (Move::Deal, Phase::Dealing { .. }) | (Move::Stand, Phase::Turns(_)) => not_your_turn,
            (Move::Hit, Phase::Turns(turns)) => {
                if turns.hands[seat.index()].len() == MAX_CARDS {
                    MoveError::HandFull
                } else if turns.current() != seat {
                    not_your_turn
                } else {
                    MoveError::MustStand
                }
            }
            (_, Phase::Auction(_)) => wrong_phase("during the auction"),
            (_, Phase::Dealing { .. }) => wrong_phase("while the pothouder is to deal"),
            (_, Phase::Turns(_)) => wrong_phase("during the turns"),
        }
    }

    fn auction_mut(&mut self) -> &mut Auction {
        match &mut self.phase {
            Phase::Auction(auction) => auction,
            _ => unreachable!("checked: the auction is on"),
        }
    }

    fn turns_mut(&mut self) -> &mut Turns {
        match &mut self.phase {
            Phase::Turns(turns) => turns,
            _ => unreachable!("checked: the turns are on"),
        }
    }

    fn auction_over<R: Randomness + ?Sized>(&mut self, outcome: Outcome, rng: &mut R) {
        let (pothouder, bid) = match outcome {
            Outcome::Won { seat, bid } => (seat, Some(bid)),
            Outcome::AllPassed => (self.draw_lot(rng), None),
        };
        self.pot.pothouder += i64::from(bid.unwrap_or(0));
        self.balances[pothouder.index()] -= i64::from(bid.unwrap_or(0));
        // As soon as the pothouder is known, every other seat stakes a chip.
        for seat in self.seats().filter(|&seat| seat != pothouder) {
            self.stake(seat);
        }
        self.deal_due(pothouder, bid, rng);
    }

    fn deal_due<R: Randomness + ?Sized>(&mut self, pothouder: Seat, bid: Option<u32>, rng: &mut R) {
        self.phase = Phase::Dealing { pothouder, bid };
        if self.options.auto_deal {
            self.deal(Deck::shuffled(rng, self.round));
        }
    }

    fn deal(&mut self, mut deck: Deck) {
        let Phase::Dealing { pothouder, bid } = self.phase else {
            unreachable!("checked: a deal is due");
        };
        let seats = self.options.seats;
        let mut order: Vec<Seat> = (1..=seats)
            .map(|step| Seat((pothouder.0 + step) % seats))
            .collect();
        if self.options.variant == Variant::Lot {
            // Everyone stakes when the pothouder deals, the pothouder too,
            // who is dealt last and plays last.
            for seat in self.seats() {
                self.stake(seat);
            }
        } else {
            order.pop();
        }
        let mut hands = vec![Hand::default(); usize::from(seats)];
        for seat in &order {
            hands[seat.index()].blind = Some(deck.take_top());
        }
        self.phase = Phase::Turns(Turns {
            pothouder,
            bid,
            deck,
            hands,
            order,
            turn: 0,
        });
    }

    fn end_turn<R: Randomness + ?Sized>(&mut self, rng: &mut R) {
        let turns = self.turns_mut();
        let seat = turns.current();
        turns.hands[seat.index()].stood = true;
        turns.turn += 1;
        if turns.turn == turns.order.len() {
            self.settle_round();
            self.start_round(rng);
        }
    }

    fn settle_round(&mut self) {
        let Phase::Turns(turns) = &self.phase else {
            unreachable!("settled after the turns");
        };
        let hands: Vec<RevealedHand> = self
            .seats()
            .filter(|seat| turns.hands[seat.index()].blind.is_some())
            .map(|seat| RevealedHand::new(seat, turns.hands[seat.index()].cards()))
            .collect();
        let (pothouder, bid) = (turns.pothouder, turns.bid);
        let settlement = settle(
            self.options.variant,
            pothouder,
            &hands,
            &mut self.pot,
            &mut self.balances,
        );
        let balance_changes = self
            .balances
            .iter()
            .zip(&self.round_start.balances)
            .map(|(now, before)| now - before)
            .collect();
        self.history.push(RoundResult {
            round: self.round,
            pothouder,
            bid,
            hands,
            excess_payments: settlement.excess_payments,
            winners: settlement.winners,
            prize_each: settlement.prize_each,
            pot_before: self.round_start.pot,
            pot_after: self.pot,
            balance_changes,
        });
        self.previous_pothouder = Some(pothouder);
    }

    fn start_round<R: Randomness + ?Sized>(&mut self, rng: &mut R) {
        self.round += 1;
        self.round_start = RoundStart {
            balances: self.balances.clone(),
            pot: self.pot,
        };
        match self.options.variant {
            Variant::Auction => {
                let first = self
                    .previous_pothouder
                    .map_or(Seat(0), |seat| seat.next(self.options.seats));
                self.phase = Phase::Auction(Auction::new(self.options.seats, first));
            }
            Variant::Lot => {
                let pothouder = self.draw_lot(rng);
                self.deal_due(pothouder, None, rng);
            }
        }
    }

    fn draw_lot<R: Randomness + ?Sized>(&self, rng: &mut R) -> Seat {
        Seat(rng.draw_lot(self.round, self.options.seats))
    }

    fn stake(&mut self, seat: Seat) {
        self.balances[seat.index()] -= 1;
        self.pot.stakes += 1;
    }

    fn seats(&self) -> impl Iterator<Item = Seat> + use<> {
        (0..self.options.seats).map(Seat)
    }
}
