//! The exact double-dummy solver: with every hand open, the value of a
//! Klaverjassen position under best play by both teams, and the value of
//! every card the seat to play may play (docs/solver.md).
//!
//! The value of a position is the deal's final score difference, team A
//! minus team B, exactly as the score sheet scores it ([`score_deal`]: card
//! points, the last trick's 10, roem to the team that takes the trick, nat
//! and pit). Nat and pit make that value depend on the whole deal, not on
//! each trick alone, so the search carries the points, roem and tricks taken
//! so far and scores each leaf with [`score_deal`] itself.
//!
//! Legal cards, trick winners, card points and roem come from the rules
//! core ([`legal_cards`], the card order [`strength`], [`set_points`], [`roem`]): there is
//! no second copy of the rules here. The search is fail-soft alpha-beta,
//! driven by MTD(f) zero-window probes, with
//! - each probe turned into a question about an additive value of the rest
//!   of the deal (the rest search, or the nat search for "how much roem
//!   does a team that goes nat concede"), so that
//! - the transposition table at the start of each trick is keyed by the
//!   cards still out, the leader and a small flag, shared by every path;
//! - exact bounds at the start of each trick (the score sheet evaluated at
//!   the corners of what the remaining cards and roem could still bring);
//! - move ordering (the table's best move, then cheap winners, smearing
//!   points on a partner's trick, discarding low);
//! - merging of equivalent cards: pointless cards of one suit (plain 7 8 9,
//!   trump 7 8) next to each other in rank order, counting only the cards
//!   still in play, are one move when neither can still make roem.

use std::time::Instant;

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

use super::cardset::{CardSet, card_at, card_index};
use super::game::{Match, Phase};
use super::play_rules::{card_points, legal_cards, points_at, set_points, strength};
use super::roem::roem;
use super::scoring::{DEAL_POINTS, LAST_TRICK, PIT_BONUS, score_deal};
use super::team::{BySeat, ByTeam, Team};

/// A position to solve: every hand open, the trick in progress and the score
/// of the tricks already taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The cards each seat holds now.
    pub hands: BySeat<CardSet>,
    /// The trump suit.
    pub trump: Suit,
    /// The team of the seat that named trump (*spelende partij*).
    pub playing_team: Team,
    /// The seat that leads (or led) the trick in progress.
    pub leader: Seat,
    /// The cards in the trick in progress, in play order from `leader`
    /// (0 to 3 of them).
    pub trick: Vec<Card>,
    /// Card points of the tricks each team took (the last trick's 10
    /// included once trick 8 is taken).
    pub card_points: ByTeam<i32>,
    /// Roem each team made in the tricks it took.
    pub roem: ByTeam<i32>,
    /// Tricks each team took.
    pub tricks_taken: ByTeam<u8>,
}

impl Position {
    /// The position of `game` now, every hand open; `None` outside play.
    /// For analysis of a deal and for tests: a seat's player must never see
    /// this (see the strong player, which works from a view).
    pub fn of_match(game: &Match) -> Option<Position> {
        if game.phase() != Phase::Playing {
            return None;
        }
        let deal = &game.deal;
        let trick = game.current_trick();
        Some(Position {
            hands: deal.hands,
            trump: deal.trump?,
            playing_team: Team::of(game.first_hand()),
            leader: trick.leader,
            trick: trick.cards[..usize::from(trick.len)]
                .iter()
                .flatten()
                .copied()
                .collect(),
            card_points: deal.card_points,
            roem: deal.roem,
            tricks_taken: deal.tricks_taken,
        })
    }

    /// The seat to play next.
    pub fn to_play(&self) -> Seat {
        Seat((self.leader.0 + self.trick.len() as u8) % 4)
    }

    /// The cards the seat to play may play (the rules' [`legal_cards`]).
    pub fn legal_cards(&self) -> CardSet {
        let trick: CardSet = self.trick.iter().copied().collect();
        let led = self.trick.first().map(|card| card.suit);
        legal_cards(self.hands[self.to_play()], trick, led, self.trump)
    }

    /// The position after the seat to play plays `card` (which it must hold):
    /// the trick closes and is scored as the rules score it after its fourth
    /// card.
    pub fn after(&self, card: Card) -> Position {
        let mut state = State::from_position(self);
        state.play(card_index(card), self.trump);
        state.to_position(self)
    }

    /// The final score difference, team A minus team B, once every card is
    /// played; `None` while cards are left.
    pub fn final_value(&self) -> Option<i32> {
        let state = State::from_position(self);
        (state.remaining() == 0 && state.len == 0).then(|| state.final_value(self.playing_team))
    }
}

/// A solved position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The value under best play: the final score difference, team A minus
    /// team B.
    pub value: i32,
    /// Every card the seat to play may play, in card order, with the value
    /// of playing it (then best play by both teams).
    pub cards: Vec<(Card, i32)>,
}

impl Solution {
    /// The value for `team`: its final score minus the other team's.
    pub fn value_for(&self, team: Team) -> i32 {
        for_team(self.value, team)
    }
}

/// Turns a value (team A minus team B) into `team`'s score minus the other's.
pub fn for_team(value: i32, team: Team) -> i32 {
    match team {
        Team::A => value,
        Team::B => -value,
    }
}

/// The rules' [`strength`] of every card (bit index) in a trick led with
/// each suit, for each trump (`[trump][led][index]`), worked out at compile
/// time: the move loop reads it instead of branching on the suits.
const STRENGTHS: [[[u8; 32]; 4]; 4] = {
    let mut table = [[[0u8; 32]; 4]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut led = 0;
        while led < 4 {
            let mut index = 0;
            while index < 32 {
                table[trump][led][index] = strength(index as u32, Suit::ALL[led], Suit::ALL[trump]);
                index += 1;
            }
            led += 1;
        }
        trump += 1;
    }
    table
};

/// The rules' card points ([`points_at`], [`card_points`] by bit index) of
/// every card for each trump (`[trump][index]`), worked out at compile time.
const CARD_POINTS: [[u8; 32]; 4] = {
    let mut table = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut index = 0;
        while index < 32 {
            table[trump][index] = points_at(index as u32, Suit::ALL[trump]);
            index += 1;
        }
        trump += 1;
    }
    table
};

/// [`strength`] by table: the card at bit `index` in a trick led with the
/// suit numbered `led`.
#[inline]
fn power_of(index: u32, led: u32, trump: Suit) -> u8 {
    STRENGTHS[trump as usize][(led & 3) as usize][(index & 31) as usize]
}

/// The low-card key applies from this many cards out.
const LOW_KEY_FROM: u32 = 16;

/// For the low cards of one suit still out (3 bits, weakest first) and the
/// seat number bits of each (3 bits each, shifted by 3 and 6): how many are
/// left and their holders in order, as one number below 85 (0; 1-4; 5-20;
/// 21-84).
const LOW_CODES: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut index = 0;
    while index < 512 {
        let present = index & 7;
        let mut code = 0;
        let mut count = 0;
        let mut scale = 1;
        let mut rank = 0;
        while rank < 3 {
            if present & (1 << rank) != 0 {
                let seat = ((index >> (3 + rank)) & 1) | ((index >> (6 + rank)) & 1) << 1;
                code += seat * scale;
                scale *= 4;
                count += 1;
            }
            rank += 1;
        }
        let offset = [0, 1, 5, 21][count];
        table[index] = (offset + code) as u8;
        index += 1;
    }
    table
};

/// Above any value a deal can have.
const INF: i32 = 30_000;

/// The nat search's reward for keeping the roem within budget: above any
/// lead a deal can bring, below `INF` with any lead added.
const KEPT: i32 = 10_000;

/// The first trick of the last two, as the two-trick search plays it: its
/// cards (a mask), the suit led, how many, the position and `strength` of
/// the card winning it so far and the card points in it.
#[derive(Clone, Copy, Debug)]
struct FirstTrick {
    trick: u32,
    led: u32,
    len: u8,
    top: u8,
    power: u8,
    taken: i32,
}

/// The search state: small and `Copy`, so each move copies it (copy-make).
#[derive(Clone, Copy, Debug)]
struct State {
    hands: [u32; 4],
    leader: u8,
    cards: [u8; 4],
    len: u8,
    /// The position in the trick (0-3) of the card winning it so far, and
    /// that card's [`strength`] (both 0 while no card is played).
    top: u8,
    power: u8,
    trick: u32,
    points: [i32; 2],
    roem: [i32; 2],
    taken: [u8; 2],
}

/// Team index (A 0, B 1) of a seat number.
#[inline]
fn team_index(seat: u8) -> usize {
    usize::from(seat & 1)
}

impl State {
    fn from_position(position: &Position) -> State {
        let mut state = State {
            hands: position.hands.0.map(|hand| hand.bits()),
            leader: position.leader.0 % 4,
            cards: [0; 4],
            len: 0,
            top: 0,
            power: 0,
            trick: 0,
            points: [position.card_points.a, position.card_points.b],
            roem: [position.roem.a, position.roem.b],
            taken: [position.tricks_taken.a, position.tricks_taken.b],
        };
        for card in position.trick.iter().take(3) {
            state.add_to_trick(card_index(*card), position.trump);
        }
        state
    }

    fn to_position(self, template: &Position) -> Position {
        Position {
            hands: BySeat(self.hands.map(CardSet::from_bits)),
            trump: template.trump,
            playing_team: template.playing_team,
            leader: Seat(self.leader),
            trick: self.cards[..usize::from(self.len)]
                .iter()
                .map(|index| card_at(u32::from(*index)))
                .collect(),
            card_points: ByTeam::new(self.points[0], self.points[1]),
            roem: ByTeam::new(self.roem[0], self.roem[1]),
            tricks_taken: ByTeam::new(self.taken[0], self.taken[1]),
        }
    }

    #[inline]
    fn mover(&self) -> u8 {
        (self.leader + self.len) & 3
    }

    #[inline]
    fn remaining(&self) -> u32 {
        self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
    }

    #[inline]
    fn led(&self) -> Option<Suit> {
        (self.len > 0).then(|| Suit::ALL[usize::from(self.cards[0] / 8)])
    }

    #[inline(always)]
    fn legal(&self, trump: Suit) -> u32 {
        let seat = usize::from(self.mover());
        legal_cards(
            CardSet::from_bits(self.hands[seat]),
            CardSet::from_bits(self.trick),
            self.led(),
            trump,
        )
        .bits()
    }

    /// Plays the card at bit `index` for the seat to play; the fourth card
    /// closes the trick and scores it. In place: the caller copies the
    /// parent into the child first, so no state is read back whole right
    /// after its fields were written (a store-forwarding stall that took a
    /// third of the time when `play` returned the new state by value).
    #[inline(always)]
    fn play(&mut self, index: u32, trump: Suit) {
        let seat = usize::from(self.mover());
        self.hands[seat] &= !(1 << index);
        self.add_to_trick(index, trump);
        if self.len == 4 {
            self.close_trick(trump);
        }
    }

    /// Scores the trick once its fourth card is in (out of line: the
    /// three cards in four that close no trick stay small).
    #[inline(never)]
    fn close_trick(&mut self, trump: Suit) {
        let set = CardSet::from_bits(self.trick);
        let winner = (self.leader + self.top) & 3;
        let team = team_index(winner);
        // The trick's points, card by card (the same sum as the rules'
        // `set_points` of the trick).
        let table = &CARD_POINTS[trump as usize];
        self.points[team] += self
            .cards
            .iter()
            .map(|&card| i32::from(table[usize::from(card & 31)]))
            .sum::<i32>();
        if self.remaining() == 0 {
            self.points[team] += LAST_TRICK;
        }
        if may_make_roem(self.trick) {
            self.roem[team] += roem(set, trump);
        }
        self.taken[team] += 1;
        self.leader = winner;
        self.len = 0;
        self.trick = 0;
    }

    /// Puts the card at bit `index` in the open trick and keeps track of
    /// the card winning it: the strongest by the rules' [`strength`], one
    /// card at a time (the order in which `play_rules::winning_position`,
    /// behind the rules' `trick_winner`, ranks a complete trick).
    #[inline]
    fn add_to_trick(&mut self, index: u32, trump: Suit) {
        let len = self.len;
        let led = if len == 0 {
            index
        } else {
            u32::from(self.cards[0])
        } / 8;
        let power = power_of(index, led, trump);
        if len == 0 || power > self.power {
            self.top = len;
            self.power = power;
        }
        self.cards[usize::from(len)] = index as u8;
        self.trick |= 1 << index;
        self.len = len + 1;
    }

    /// Plays out the last trick, where every seat holds one card.
    fn play_last_trick(self, trump: Suit) -> State {
        let mut last = self;
        for _ in 0..4 {
            let seat = usize::from(last.mover());
            last.play(last.hands[seat].trailing_zeros(), trump);
        }
        last
    }

    fn final_value(&self, playing: Team) -> i32 {
        score(playing, self.points, self.roem, self.taken)
    }
}

/// Team A's lead in card points and roem so far.
#[inline]
fn margin(state: &State) -> i32 {
    state.points[0] + state.roem[0] - state.points[1] - state.roem[1]
}

/// The roem both teams made so far.
#[inline]
fn made(state: &State) -> i32 {
    state.roem[0] + state.roem[1]
}

/// The score sheet's difference, team A minus team B.
#[inline]
fn score(playing: Team, points: [i32; 2], roem: [i32; 2], taken: [u8; 2]) -> i32 {
    let scored = score_deal(
        playing,
        ByTeam::new(points[0], points[1]),
        ByTeam::new(roem[0], roem[1]),
        ByTeam::new(taken[0], taken[1]),
    );
    scored.score.a - scored.score.b
}

/// For one suit, indexed by the runs of three that can still fall in one
/// trick (their lowest rank, 6 bits) and the runs of four (5 bits, shifted
/// by 6): the most sequence roem, in tens, that disjoint runs among them can
/// make (runs of 3: 20, of 4: 50; each run in its own trick).
const RUNS_BOUND: [u8; 2048] = {
    let mut table = [0u8; 2048];
    let mut index = 0;
    while index < 2048 {
        let (three, four) = (index & 0x3F, index >> 6);
        // best[rank]: the most that runs starting at `rank` or above make.
        let mut best = [0u8; 12];
        let mut rank = 8;
        while rank > 0 {
            rank -= 1;
            let mut most = best[rank + 1];
            if three & (1 << rank) != 0 && 2 + best[rank + 3] > most {
                most = 2 + best[rank + 3];
            }
            if four & (1 << rank) != 0 && 5 + best[rank + 4] > most {
                most = 5 + best[rank + 4];
            }
            best[rank] = most;
        }
        table[index] = best[0];
        index += 1;
    }
    table
};

/// Bit `i` of each byte set where a run of three (of four) starting at rank
/// `i` stays within the suit.
const RUN3_STARTS: u32 = 0x3F3F_3F3F;
const RUN4_STARTS: u32 = 0x1F1F_1F1F;

/// An upper bound on the roem the rest of the deal can make, at the start
/// of a trick (`hands`: the cards each seat still holds). A trick takes one
/// card from each seat, so only melds whose cards sit in different hands
/// can still be made: runs of three or four of a suit, four of a kind, and
/// *stuk* (king and queen of trump).
fn roem_bound(hands: &[u32; 4], trump: Suit) -> i32 {
    let cards = hands[0] | hands[1] | hands[2] | hands[3];
    // Bit i of `same[d]`: the cards at bits i and i + d are in one hand.
    let mut same = [0u32; 4];
    // Per seat, the ranks (natural index) it holds in any suit.
    let mut ranks = 0xFF;
    for hand in hands {
        same[1] |= hand & (hand >> 1);
        same[2] |= hand & (hand >> 2);
        same[3] |= hand & (hand >> 3);
        ranks &= hand | (hand >> 8) | (hand >> 16) | (hand >> 24);
    }
    let three =
        cards & (cards >> 1) & (cards >> 2) & !(same[1] | (same[1] >> 1) | same[2]) & RUN3_STARTS;
    let four = three & (three >> 1) & !same[3] & RUN4_STARTS;
    // All four cards of a rank still out, one in each hand (`ranks`: every
    // seat holds that rank in some suit).
    let four_of_a_kind = cards & (cards >> 8) & (cards >> 16) & (cards >> 24) & ranks & 0xFF;
    let jack = 1 << 4;
    let mut bound = 100 * (four_of_a_kind & !jack).count_ones() as i32
        + if four_of_a_kind & jack != 0 { 200 } else { 0 };
    for suit in 0..4 {
        let shift = 8 * suit;
        let runs = ((three >> shift) & 0x3F) | ((four >> shift) & 0x1F) << 6;
        bound += 10 * i32::from(RUNS_BOUND[runs as usize]);
    }
    // King and queen of trump (natural ranks 6 and 5), in different hands.
    let queen = 5 + 8 * trump as u32;
    let stuk = 0b11 << queen;
    if cards & stuk == stuk && same[1] & (1 << queen) == 0 {
        bound += 20;
    }
    bound
}

/// Whether the cards `bits` can hold any roem: a run or *stuk* needs two
/// cards of one suit next to each other in natural order, four of a kind
/// one rank in every suit. A quick test before the rules' [`roem`] (which
/// gives 0 whenever this is false).
#[inline]
fn may_make_roem(bits: u32) -> bool {
    bits & (bits >> 1) & 0x7F7F_7F7F != 0 || bits & (bits >> 8) & (bits >> 16) & (bits >> 24) != 0
}

/// Ranks (natural index) worth no points and equal in strength to their
/// neighbours: plain 7 8 9, trump 7 8.
const PLAIN_ZERO: u32 = 0b111;
const TRUMP_ZERO: u32 = 0b11;

/// One transposition table entry: bounds on the value of the position
/// at the start of a trick.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    lower: i16,
    upper: i16,
    generation: u16,
    best: u8,
    /// The number of cards still out (for replacement).
    out: u8,
}

/// Settings of the search, for measuring what each technique is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Use the transposition table.
    pub table: bool,
    /// Merge equivalent cards into one move.
    pub merge: bool,
    /// Cut with the score sheet's bounds at each trick's start.
    pub bounds: bool,
    /// Order moves by the heuristics (else in card order).
    pub ordering: bool,
    /// Answer each zero-window probe, where the score sheet allows, by a
    /// search on the value of the rest of the deal alone, whose table
    /// entries do not depend on the score so far (docs/solver.md).
    pub relative: bool,
}

impl Default for Techniques {
    fn default() -> Techniques {
        Techniques {
            table: true,
            merge: true,
            bounds: true,
            ordering: true,
            relative: true,
        }
    }
}

/// Limits on one solve: it gives up (returns `None`) once it has searched
/// `nodes` nodes or the clock passes `deadline`, whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// At most this many nodes for the call (`u64::MAX`: no limit).
    pub nodes: u64,
    /// Give up at this instant (`None`: no deadline).
    pub deadline: Option<Instant>,
}

impl Limits {
    /// No limit: the solve always completes.
    pub const NONE: Limits = Limits {
        nodes: u64::MAX,
        deadline: None,
    };
}

/// How many nodes pass between two looks at the clock.
const CLOCK_EVERY: u64 = 2_048;

/// A reusable solver: it owns the transposition table, so solving many
/// positions in a row allocates nothing. Not thread-safe; make one per
/// thread.
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    generation: u16,
    nodes: u64,
    techniques: Techniques,
    trump: Suit,
    playing: Team,
    /// The node count at which the solve in progress gives up.
    stop_at: u64,
    /// The node count at which to look at the clock next.
    clock_at: u64,
    /// The node count at which `out_of_budget` looks at the limits next:
    /// the nearer of `stop_at` and `clock_at`, 0 once aborted (one
    /// comparison per node).
    check_at: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// The card points of each card (bit index) with this solve's trump:
    /// the rules' [`card_points`], read once per solve.
    points: [i32; 32],
    /// The pointless low cards that may merge with a neighbour (plain 7 8 9,
    /// trump 7 8), as a card mask for this solve's trump.
    low: u32,
    /// This solve's trumps (bit indices), strongest first (the rules'
    /// [`strength`]).
    trumps: [u8; 8],
    /// For each set of this solve's trumps (8 bits, natural rank order):
    /// the same set in strength order (bit 7 the strongest), from `trumps`.
    by_strength: [u8; 256],
    /// For each set of trumps in strength order: their card points.
    strength_points: [i32; 256],
    /// Per number of cards still out (0-32), the last move that cut off
    /// there (killer move; 0xFF: none).
    killers: [u8; 33],
    /// Switches for the newer techniques ([`Solver::set_extras`]).
    extras: u32,
    /// [`Solver::EXTRA_LAZY`] on, with move ordering (read at every node).
    lazy: bool,
    /// The table and the last two tricks' own search on, no horizon: the
    /// rest and nat searches go straight to [`Solver::two_tricks_start`]
    /// at 8 cards out.
    fast_two: bool,
    /// While the first guess is estimated: the rest and nat searches stop
    /// at a trick's start with at most this many cards still out and
    /// return an estimate there (0: never, the exact search).
    horizon: u32,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// Switch for [`Solver::set_extras`]: 2-way buckets in the table, a new
    /// entry replacing the one with fewer cards still out.
    pub const EXTRA_BUCKETS: u32 = 1;
    /// Switch: killer moves (the last move that cut off with as many cards
    /// still out) early in the move ordering.
    pub const EXTRA_KILLERS: u32 = 2;
    /// Switch: no table for the last two tricks of the rest-of-deal search
    /// (searched again faster than looked up).
    pub const EXTRA_SMALL_NO_TABLE: u32 = 4;
    /// Switch: a table of 2^20 entries (16 MiB) instead of 2^18 (4 MiB).
    pub const EXTRA_BIG_TABLE: u32 = 8;
    /// Switch: MTD(f)'s first guess from a shallow search (the first
    /// three tricks searched, the rest estimated) instead of 0.
    pub const EXTRA_GUESS: u32 = 16;
    /// Switch: the rest and nat searches solve the last two tricks by a
    /// small search of their own (the first trick's cards, then the last
    /// trick scored at once), with no table, bounds or move ordering.
    pub const EXTRA_TWO_TRICKS: u32 = 32;
    /// Switch: the rest and nat searches' table key, from 16 cards out,
    /// ignores which pointless low cards of a suit are left when none of
    /// them can still make roem (only how many, and who holds them in
    /// order).
    pub const EXTRA_LOW_KEY: u32 = 64;
    /// Switch: the rest and nat searches try the table's move and the
    /// killer before the other cards are scored (the same order, less
    /// work when one of them cuts off).
    pub const EXTRA_LAZY: u32 = 128;
    /// The switches a new solver starts with: buckets, killers, the
    /// shallow first guess, the last two tricks' own search and the
    /// low-card key, which cut nodes or instructions; not the others,
    /// which cost time on the bench (docs/benchmarks.md).
    pub const EXTRA_DEFAULT: u32 = Solver::EXTRA_BUCKETS
        | Solver::EXTRA_KILLERS
        | Solver::EXTRA_GUESS
        | Solver::EXTRA_TWO_TRICKS
        | Solver::EXTRA_LOW_KEY
        | Solver::EXTRA_LAZY;

    /// The shallow search behind the first guess stops at a trick's start
    /// with this many cards still out (after three tricks).
    const GUESS_HORIZON: u32 = 20;
    /// How far below the shallow search's value (in the playing team's
    /// terms) the first guess lies when that value is not nat: MTD(f)
    /// climbs up from a guess below the value with cheap probes, but a
    /// guess above it costs failing probes, the expensive kind
    /// (docs/benchmarks.md, step 7).
    const GUESS_BELOW: i32 = 70;

    /// A solver with the default table (2^18 entries, 4 MiB).
    pub fn new() -> Solver {
        Solver::with_techniques(Techniques::default())
    }

    /// A solver using only the given techniques.
    pub fn with_techniques(techniques: Techniques) -> Solver {
        let bits = 18;
        Solver {
            table: vec![Entry::default(); 1 << bits],
            mask: (1 << bits) - 1,
            generation: 0,
            nodes: 0,
            techniques,
            trump: Suit::Clubs,
            playing: Team::A,
            stop_at: u64::MAX,
            clock_at: u64::MAX,
            check_at: u64::MAX,
            deadline: None,
            aborted: false,
            points: [0; 32],
            low: 0,
            trumps: [0; 8],
            by_strength: [0; 256],
            strength_points: [0; 256],
            killers: [0xFF; 33],
            extras: Solver::EXTRA_DEFAULT,
            lazy: techniques.ordering,
            fast_two: techniques.table,
            horizon: 0,
        }
    }

    /// Turns the newer techniques (the `EXTRA_` switches, or-ed) on or off,
    /// for measuring what each is worth; values never change.
    pub fn set_extras(&mut self, flags: u32) {
        self.extras = flags;
        self.lazy = flags & Solver::EXTRA_LAZY != 0 && self.techniques.ordering;
        self.fast_two = self.two_trick_table();
        let bits = if flags & Solver::EXTRA_BIG_TABLE != 0 {
            20
        } else {
            18
        };
        if self.table.len() != 1 << bits {
            self.table = vec![Entry::default(); 1 << bits];
            self.mask = (1 << bits) - 1;
            self.generation = 0;
        }
    }

    /// Whether the rest and nat searches may go straight to
    /// [`Solver::two_tricks_start`] at 8 cards out (without a horizon).
    fn two_trick_table(&self) -> bool {
        self.techniques.table
            && self.extras & Solver::EXTRA_TWO_TRICKS != 0
            && self.extras & Solver::EXTRA_SMALL_NO_TABLE == 0
    }

    /// Cards played in searches so far (the node count), over the solver's
    /// life.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn start(&mut self, position: &Position, limits: Limits) {
        self.trump = position.trump;
        for (index, points) in self.points.iter_mut().enumerate() {
            *points = card_points(card_at(index as u32), position.trump);
        }
        self.low = 0;
        for suit in 0..4u32 {
            let zero = if suit == position.trump as u32 {
                TRUMP_ZERO
            } else {
                PLAIN_ZERO
            };
            self.low |= zero << (8 * suit);
        }
        let first = 8 * position.trump as u8;
        self.trumps = std::array::from_fn(|rank| first + rank as u8);
        self.trumps.sort_by_key(|&index| {
            std::cmp::Reverse(strength(u32::from(index), position.trump, position.trump))
        });
        for set in 0..256usize {
            let (mut ordered, mut points) = (0u8, 0);
            for (place, &index) in self.trumps.iter().enumerate() {
                if set & (1 << (index - first)) != 0 {
                    ordered |= 0x80 >> place;
                }
                if set & (0x80 >> place) != 0 {
                    points += self.points[usize::from(index)];
                }
            }
            self.by_strength[set] = ordered;
            self.strength_points[set] = points;
        }
        self.killers = [0xFF; 33];
        self.playing = position.playing_team;
        self.new_generation();
        self.stop_at = self.nodes.saturating_add(limits.nodes);
        self.deadline = limits.deadline;
        self.clock_at = if limits.deadline.is_some() {
            self.nodes + CLOCK_EVERY
        } else {
            u64::MAX
        };
        self.aborted = false;
        self.check_at = self.stop_at.min(self.clock_at);
    }

    /// Starts a new table generation: every entry stored so far counts as
    /// an earlier solve's (never read, replaced first).
    fn new_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.fill(Entry::default());
            self.generation = 1;
        }
    }

    /// MTD(f)'s first guess for `state`. With [`Solver::EXTRA_GUESS`]: the
    /// value of a shallow search (MTD(f) on the rest and nat searches cut
    /// off after three tricks, where the card points of the sure trumps
    /// stand for the rest), lowered by [`Solver::GUESS_BELOW`] in the
    /// playing team's terms when it is not nat. Its table entries are not
    /// exact values, so a new table generation starts after it. Else 0.
    fn first_guess(&mut self, state: &State) -> i32 {
        if self.extras & Solver::EXTRA_GUESS == 0
            || !self.techniques.relative
            || state.remaining().count_ones() <= Solver::GUESS_HORIZON
        {
            return 0;
        }
        self.horizon = Solver::GUESS_HORIZON;
        self.fast_two = false;
        let estimate = self.mtdf(state, 0);
        self.horizon = 0;
        self.fast_two = self.two_trick_table();
        self.new_generation();
        let sign = self.sign();
        if sign * estimate > 0 {
            estimate - sign * Solver::GUESS_BELOW
        } else {
            estimate
        }
    }

    /// Whether the solve in progress must give up (its limits are reached).
    #[inline]
    fn out_of_budget(&mut self) -> bool {
        if self.nodes < self.check_at {
            return false;
        }
        self.look_at_limits()
    }

    /// [`Solver::out_of_budget`] once the node count reaches `check_at`:
    /// the node limit, the clock (every [`CLOCK_EVERY`] nodes), or a solve
    /// already aborted.
    #[cold]
    #[inline(never)]
    fn look_at_limits(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= self.stop_at {
            self.aborted = true;
        } else if self.nodes >= self.clock_at {
            self.clock_at = self.nodes + CLOCK_EVERY;
            if self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                self.aborted = true;
            }
        }
        self.check_at = if self.aborted {
            0
        } else {
            self.stop_at.min(self.clock_at)
        };
        self.aborted
    }

    /// The value of `position` under best play (team A minus team B).
    pub fn value(&mut self, position: &Position) -> i32 {
        self.value_within(position, Limits::NONE)
            .expect("a solve without limits completes")
    }

    /// [`Solver::value`] within `limits`: `None` when they are reached
    /// first.
    pub fn value_within(&mut self, position: &Position, limits: Limits) -> Option<i32> {
        self.start(position, limits);
        let state = State::from_position(position);
        let guess = self.first_guess(&state);
        let value = self.mtdf(&state, guess);
        (!self.aborted).then_some(value)
    }

    /// The value of `position` and of every card the seat to play may play.
    pub fn solve(&mut self, position: &Position) -> Solution {
        self.solve_within(position, Limits::NONE)
            .expect("a solve without limits completes")
    }

    /// [`Solver::solve`] within `limits`: `None` when they are reached
    /// first.
    pub fn solve_within(&mut self, position: &Position, limits: Limits) -> Option<Solution> {
        self.start(position, limits);
        let state = State::from_position(position);
        let seat = state.mover();
        let maximising = team_index(seat) == 0;
        let legal = state.legal(self.trump);
        let mut values = [0i32; 32];
        let mut best = if maximising { -INF } else { INF };
        let mut guess = None;
        let mut moves = [0u8; 8];
        let count = self.moves(&state, legal, None, &mut moves);
        for &index in &moves[..count] {
            let mut child = state;
            child.play(u32::from(index), self.trump);
            self.nodes += 1;
            let start = match guess {
                Some(previous) => previous,
                None => self.first_guess(&child),
            };
            let value = self.mtdf(&child, start);
            if self.aborted {
                return None;
            }
            guess = Some(value);
            for member in self.group_of(&state, legal, u32::from(index)) {
                values[member as usize] = value;
            }
            best = if maximising {
                best.max(value)
            } else {
                best.min(value)
            };
        }
        let cards = CardSet::from_bits(legal)
            .iter()
            .map(|card| (card, values[card_index(card) as usize]))
            .collect();
        Some(Solution { value: best, cards })
    }

    fn mtdf(&mut self, state: &State, guess: i32) -> i32 {
        let (mut lower, mut upper) = (-INF, INF);
        let mut value = guess;
        while lower < upper && !self.aborted {
            let beta = if value == lower { value + 1 } else { value };
            value = if self.techniques.relative {
                self.relative_probe(state, beta)
            } else {
                self.search(state, beta - 1, beta)
            };
            if value < beta {
                upper = value;
            } else {
                lower = value;
            }
        }
        value
    }

    /// The bounds on the final value whatever the rest of the deal brings:
    /// the score sheet at the corners of the points and roem still to come.
    fn bounds(&self, state: &State, remaining: u32) -> (i32, i32) {
        let trump = self.trump;
        let cards = set_points(CardSet::from_bits(remaining), trump) + LAST_TRICK;
        let roem = roem_bound(&state.hands, trump);
        let sign = self.sign();
        // In the playing team's terms: its lead so far, and the roem made.
        let lead = sign * margin(state);
        let made = state.roem[0] + state.roem[1];
        // The score sheet when the playing team ends `lead` ahead with
        // `more` roem made in the rest: its lead, or nat.
        let sheet = |lead: i32, more: i32| {
            if lead > 0 {
                lead
            } else {
                -(DEAL_POINTS + made + more)
            }
        };
        // The corners: every point to one team or the other, with or
        // without every roem still possible to that team.
        let corners = [
            sheet(lead - cards - roem, roem),
            sheet(lead - cards, 0),
            sheet(lead + cards, 0),
            sheet(lead + cards + roem, roem),
        ];
        let mut lower = corners.iter().copied().min().unwrap_or(0);
        let mut upper = corners.iter().copied().max().unwrap_or(0);
        if self.pit_open(state) {
            let all = lead + cards + roem;
            let pit = if all > 0 {
                all + PIT_BONUS
            } else {
                sheet(all, roem)
            };
            lower = lower.min(pit);
            upper = upper.max(pit);
        }
        if sign == 1 {
            (lower, upper)
        } else {
            (-upper, -lower)
        }
    }

    /// The table key: the cards still out (which, within one solve, also
    /// fix the card points both teams took together), the leader, whether
    /// pit is still possible, team A's lead in card points and roem, and
    /// the roem made by both teams (always a multiple of 10). The final
    /// value depends on nothing else, so the key is exact: two positions
    /// share an entry only when their values are equal.
    fn key(&self, state: &State) -> u64 {
        debug_assert!(state.roem.iter().all(|roem| roem % 10 == 0 && *roem < 1280));
        let pit_open = self.pit_open(state);
        let made = (state.roem[0] + state.roem[1]) / 10;
        u64::from(state.remaining())
            | u64::from(state.leader) << 32
            | u64::from(pit_open) << 34
            | (((margin(state) + 2048) as u64) & 0xFFF) << 35
            | ((made as u64) & 0xFF) << 47
    }

    fn slot(&self, key: u64) -> usize {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hash >> 32) as usize & self.mask
    }

    /// Starts loading the table bucket of `key` into the cache (a hint; no
    /// effect on any value).
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.table.as_ptr().wrapping_add(self.slot(key) & !1);
            // SAFETY: a prefetch only hints the cache; it reads nothing the
            // program sees and cannot fault, whatever the address (here
            // one inside the table anyway).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The table slot for `key`: its entry when the table holds it, else
    /// the slot to replace. With buckets, each key may sit in either slot
    /// of a pair; a new key replaces an entry of an earlier solve first,
    /// else the one with fewer cards still out (cheaper to search again).
    #[inline]
    fn find(&self, key: u64) -> usize {
        let slot = self.slot(key);
        if self.extras & Solver::EXTRA_BUCKETS == 0 {
            return slot;
        }
        let first = slot & !1;
        let second = first | 1;
        let (a, b) = (&self.table[first], &self.table[second]);
        if a.generation == self.generation && a.key == key {
            return first;
        }
        if b.generation == self.generation && b.key == key {
            return second;
        }
        if a.generation != self.generation {
            return first;
        }
        if b.generation != self.generation {
            return second;
        }
        if a.out <= b.out { first } else { second }
    }

    fn search(&mut self, state: &State, mut alpha: i32, mut beta: i32) -> i32 {
        if self.out_of_budget() {
            return 0;
        }
        let trump = self.trump;
        let mut table_move = None;
        let mut slot = usize::MAX;
        let mut key = 0;
        if state.len == 0 {
            let remaining = state.remaining();
            if remaining == 0 {
                return state.final_value(self.playing);
            }
            if remaining.count_ones() == 4 {
                // The last trick: every seat holds one card, so play is forced.
                let last = state.play_last_trick(trump);
                self.nodes += 4;
                return last.final_value(self.playing);
            }
            if self.techniques.bounds {
                let (lower, upper) = self.bounds(state, remaining);
                if lower >= beta || lower == upper {
                    return lower;
                }
                if upper <= alpha {
                    return upper;
                }
            }
            if self.techniques.table {
                key = self.key(state);
                slot = self.find(key);
                let entry = self.table[slot];
                if entry.generation == self.generation && entry.key == key {
                    let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
                    if lower >= beta {
                        return lower;
                    }
                    if upper <= alpha {
                        return upper;
                    }
                    alpha = alpha.max(lower);
                    beta = beta.min(upper);
                    table_move = Some(u32::from(entry.best));
                }
            }
        }
        let legal = state.legal(trump);
        let mut moves = [0u8; 8];
        let count = self.moves(state, legal, table_move, &mut moves);
        let maximising = team_index(state.mover()) == 0;
        let mut best = if maximising { -INF } else { INF };
        let mut best_move = moves[0];
        let (start_alpha, start_beta) = (alpha, beta);
        for &index in &moves[..count] {
            let mut child = *state;
            child.play(u32::from(index), trump);
            self.nodes += 1;
            let value = self.search(&child, alpha, beta);
            if self.aborted {
                return 0;
            }
            if maximising {
                if value > best {
                    best = value;
                    best_move = index;
                }
                alpha = alpha.max(value);
            } else {
                if value < best {
                    best = value;
                    best_move = index;
                }
                beta = beta.min(value);
            }
            if alpha >= beta {
                self.killers[state.remaining().count_ones() as usize] = index;
                break;
            }
        }
        if slot != usize::MAX && !self.aborted {
            self.store(
                key,
                best,
                (start_alpha, start_beta),
                best_move,
                state.remaining().count_ones(),
            );
        }
        best
    }

    /// Stores the fail-soft result `best` of a search with the window
    /// `(alpha, beta)` under `key`, merged with the bounds already stored
    /// for it. Out of line: most nodes start no trick and store nothing.
    #[inline(never)]
    fn store(&mut self, key: u64, best: i32, (alpha, beta): (i32, i32), best_move: u8, out: u32) {
        let mut lower = if best > alpha { best } else { -INF };
        let mut upper = if best < beta { best } else { INF };
        let slot = self.find(key);
        let entry = &mut self.table[slot];
        if entry.generation == self.generation && entry.key == key {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        *entry = Entry {
            key,
            lower: lower as i16,
            upper: upper as i16,
            generation: self.generation,
            best: best_move,
            out: out as u8,
        };
    }

    /// A zero-window probe of "is the final value at least `beta`?"
    /// answered by a search on the rest of the deal alone, whose table
    /// entries any path to the same cards shares.
    ///
    /// In the playing team's terms, with `m0` its lead in points and roem so
    /// far, `r0` the roem both teams made so far, `g` what the rest of the
    /// deal adds to that lead and `r` the roem the rest makes: the deal is
    /// not nat exactly when `m0 + g > 0`, and is then worth `m0 + g` (plus
    /// the pit bonus); nat is worth `-(162 + r0 + r)`, below every value
    /// that is not nat. So for a threshold `b`:
    ///
    /// - above `-(162 + r0)`, "final at least `b`" is exactly "`g` (pit
    ///   bonus included) at least `max(b - m0, 1 - m0)`" (the rest search);
    /// - at or below it, with `c = -(162 + r0) - b` (the roem the playing
    ///   team may concede if it goes nat), it is "not (`m0 + g <= 0` and
    ///   `r > c`)", which is "`g + KEPT * [r <= c]` at least `1 - m0`"
    ///   (the nat search: the same additive `g` plus a bonus that depends
    ///   only on the roem the rest makes, so its table key is the cards
    ///   still out, the leader and the roem budget left).
    fn relative_probe(&mut self, state: &State, beta: i32) -> i32 {
        let sign = self.sign();
        let m0 = sign * margin(state);
        let nat = -(DEAL_POINTS + made(state));
        // The playing team's threshold: for team B playing, "A at least
        // beta" is "B not at least 1 - beta".
        let b = if sign == 1 { beta } else { 1 - beta };
        if b > nat {
            let target = (b - m0).max(1 - m0);
            let rest = if sign == 1 {
                self.rest::<false>(state, 0, target - 1, target)
            } else {
                -self.rest::<false>(state, 0, -target, -target + 1)
            };
            // A fail-soft bound on the playing team's final value.
            let bound = if rest > -m0 { m0 + rest } else { nat };
            return sign * bound;
        }
        // Roem comes in multiples of 10: "at most c" is "at most c rounded
        // down to one".
        let budget = (nat - b) / 10 * 10;
        let target = 1 - m0;
        let kept = if sign == 1 {
            self.rest::<true>(state, budget, target - 1, target)
        } else {
            -self.rest::<true>(state, budget, -target, -target + 1)
        };
        // Bounds on the playing team's final value: at least nat with
        // `budget` roem conceded when it keeps to that, else at most nat
        // with the least roem above `budget` that tricks can make (sums of
        // 20, 40, 50, 70, 100 and 200: every multiple of 10 but 10 and 30).
        let bound = if kept >= target {
            nat - budget
        } else {
            let more = if budget == 0 || budget == 20 {
                budget + 20
            } else {
                budget + 10
            };
            nat - more
        };
        sign * bound
    }

    /// The search on the rest of the deal, in team A's terms (team A
    /// maximises): fail-soft alpha-beta on what the rest adds to team A's
    /// lead in points and roem, plus
    /// - without `NAT` (the rest search): the pit bonus (negative for team
    ///   B's pit); the table key is the cards still out, the leader and
    ///   whether pit is still possible;
    /// - with `NAT` (the nat search): `KEPT` to the playing team (negative
    ///   for team B) when the roem the rest makes stays within `budget`;
    ///   the table key is the cards still out, the leader and the budget
    ///   left (in tens, below zero when already exceeded).
    fn rest<const NAT: bool>(
        &mut self,
        state: &State,
        budget: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        if self.out_of_budget() {
            return 0;
        }
        let trump = self.trump;
        let mut table_move = None;
        let mut slot = usize::MAX;
        let mut key = 0;
        let pit_open = !NAT && self.pit_open(state);
        // Canonical budgets for the key: every budget below zero is
        // exceeded alike, and no deal makes 2,000 roem.
        let budget = budget.clamp(-10, 2_000);
        if state.len == 0 {
            match self.trick_start::<NAT>(state, budget, pit_open, &mut alpha, &mut beta) {
                Err(value) => return value,
                Ok((found, at, entry_key)) => {
                    table_move = found;
                    slot = at;
                    key = entry_key;
                }
            }
        }
        let legal = state.legal(trump);
        let maximising = team_index(state.mover()) == 0;
        let mut best = if maximising { -INF } else { INF };
        // Every value is finite, so the first card searched sets it.
        let mut best_move = 0;
        let (start_alpha, start_beta) = (alpha, beta);
        // Searches the card at bit `index` and ends the move loop on a
        // cut-off.
        macro_rules! try_move {
            ($index:expr, $moves:lifetime) => {{
                let index: u8 = $index;
                let mut child = *state;
                child.play(u32::from(index), trump);
                self.nodes += 1;
                // Points and roem change only when the trick closes.
                let (gain, child_budget) = if child.len != 0 {
                    (0, budget)
                } else if NAT {
                    (
                        margin(&child) - margin(state),
                        budget - (made(&child) - made(state)),
                    )
                } else {
                    (margin(&child) - margin(state), 0)
                };
                let value = gain
                    + if child.len == 0 && self.fast_two && child.remaining().count_ones() == 8 {
                        self.two_tricks_start::<NAT>(
                            &child,
                            child_budget,
                            alpha - gain,
                            beta - gain,
                        )
                    } else {
                        self.rest::<NAT>(&child, child_budget, alpha - gain, beta - gain)
                    };
                if self.aborted {
                    return 0;
                }
                if maximising {
                    if value > best {
                        best = value;
                        best_move = index;
                    }
                    alpha = alpha.max(value);
                } else {
                    if value < best {
                        best = value;
                        best_move = index;
                    }
                    beta = beta.min(value);
                }
                if alpha >= beta {
                    self.killers[state.remaining().count_ones() as usize] = index;
                    break $moves;
                }
            }};
        }
        'moves: {
            if legal & legal.wrapping_sub(1) == 0 {
                // One legal card: nothing to merge or order.
                try_move!(legal.trailing_zeros() as u8, 'moves);
                break 'moves;
            }
            if !self.lazy {
                let mut moves = [0u8; 8];
                let count = self.order(state, legal, table_move, &mut moves);
                for &index in &moves[..count] {
                    try_move!(index, 'moves);
                }
                break 'moves;
            }
            // The table's move and the killer first, before the other
            // cards are scored: the same order as `order` gives (scores
            // 1,000 and 900), but most nodes cut off at one of them.
            let mut cards = legal;
            if self.techniques.merge {
                cards &= !self.mergeable(state, legal);
            }
            if let Some(first) = table_move
                && first < 32
                && cards & (1 << first) != 0
            {
                cards &= !(1 << first);
                try_move!(first as u8, 'moves);
            }
            let killer = self.killer(state);
            if killer < 32 && cards & (1 << killer) != 0 {
                cards &= !(1 << killer);
                try_move!(killer as u8, 'moves);
            }
            if cards == 0 {
                break 'moves;
            }
            let mut moves = [0u8; 8];
            let count = self.score_and_sort(state, cards, 0xFF, 0xFF, &mut moves);
            for &index in &moves[..count] {
                try_move!(index, 'moves);
            }
        }
        if slot != usize::MAX && !self.aborted {
            self.store(
                key,
                best,
                (start_alpha, start_beta),
                best_move,
                state.remaining().count_ones(),
            );
        }
        best
    }

    /// [`Solver::rest`] at the start of the second-last trick, when the
    /// table and the last two tricks' own search are on and no horizon
    /// applies (`fast_two`): what `rest` and `trick_start` do there (the
    /// table, then the search of the last two tricks, its result stored),
    /// without their work for the other tricks.
    #[inline(never)]
    fn two_tricks_start<const NAT: bool>(
        &mut self,
        state: &State,
        budget: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        if self.out_of_budget() {
            return 0;
        }
        let pit_open = !NAT && self.pit_open(state);
        let budget = budget.clamp(-10, 2_000);
        let flag = if NAT {
            (((budget / 10 + 1) as u64) & 0xFF) << 35 | 1 << 62
        } else {
            u64::from(pit_open) << 34
        };
        let key = u64::from(state.remaining()) | u64::from(state.leader) << 32 | flag | 1 << 63;
        let slot = self.find(key);
        let entry = self.table[slot];
        if entry.generation == self.generation && entry.key == key {
            let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
            if lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        let value = self.two_tricks::<NAT>(state, budget, pit_open, alpha, beta);
        if !self.aborted {
            self.store(key, value, (alpha, beta), 0, 8);
        }
        value
    }

    /// The rest and nat searches at a trick's start: the end of the deal,
    /// the last trick, the bounds, the table and the last two tricks' own
    /// search. `Err(value)` when they
    /// decide the node; else the table's move, slot and key (slot
    /// `usize::MAX`: no table), with the window narrowed by the table's
    /// bounds. Out of line, so that the three nodes in four that start no
    /// trick run through a small function.
    #[inline(never)]
    fn trick_start<const NAT: bool>(
        &mut self,
        state: &State,
        budget: i32,
        pit_open: bool,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Result<(Option<u32>, usize, u64), i32> {
        let trump = self.trump;
        let mut table_move = None;
        let mut slot = usize::MAX;
        let mut key = 0;
        let remaining = state.remaining();
        if remaining == 0 {
            return Err(if NAT {
                self.kept(budget)
            } else {
                self.pit_bonus(pit_open)
            });
        }
        if remaining.count_ones() <= self.horizon {
            // The shallow search behind the first guess: the sure
            // trumps' points stand for the rest, and no more roem.
            let (sure, _) = self.sure(state);
            return Err(sure[0] - sure[1] + if NAT { self.kept(budget) } else { 0 });
        }
        if remaining.count_ones() == 4 {
            let last = state.play_last_trick(trump);
            self.nodes += 4;
            let gain = margin(&last) - margin(state);
            return Err(gain
                + if NAT {
                    self.kept(budget - (made(&last) - made(state)))
                } else {
                    self.pit_bonus(pit_open && self.pit_open(&last))
                });
        }
        let use_table = self.techniques.table
            && (remaining.count_ones() > 8 || self.extras & Solver::EXTRA_SMALL_NO_TABLE == 0);
        if use_table {
            let flag = if NAT {
                (((budget / 10 + 1) as u64) & 0xFF) << 35 | 1 << 62
            } else {
                u64::from(pit_open) << 34
            };
            key = if remaining.count_ones() >= LOW_KEY_FROM
                && self.extras & Solver::EXTRA_LOW_KEY != 0
            {
                let flag = if NAT {
                    (((budget / 10 + 1) as u64) & 0xFF) << 51 | 1 << 62
                } else {
                    u64::from(pit_open) << 50
                };
                self.low_key(state) | u64::from(state.leader) << 48 | flag | 1 << 61 | 1 << 63
            } else {
                u64::from(remaining) | u64::from(state.leader) << 32 | flag | 1 << 63
            };
            // The bucket is rarely in the core's own cache: start
            // loading it while the bounds are worked out.
            self.prefetch(key);
        }
        if self.techniques.bounds
            && (remaining.count_ones() != 8 || self.extras & Solver::EXTRA_TWO_TRICKS == 0)
        {
            let points = set_points(CardSet::from_bits(remaining), trump) + LAST_TRICK;
            // What the rest adds to team A's lead lies between these,
            // given the points each team is sure to take and at most
            // `roem` roem still to come.
            let (sure, holder) = self.sure(state);
            let defending = if self.playing == Team::A { 1 } else { 0 };
            let extra = if NAT {
                if budget >= 0 { KEPT } else { 0 }
            } else if pit_open && holder != Some(defending) {
                // Pit stays possible unless the defenders are sure of
                // a trick.
                PIT_BONUS
            } else {
                0
            };
            let bounds = |roem: i32| {
                let (least, most) = (2 * sure[0] - points - roem, points + roem - 2 * sure[1]);
                if self.playing == Team::A {
                    (least, most + extra)
                } else {
                    (least - extra, most)
                }
            };
            // Roem to come only widens the bounds: with none they are
            // the tightest they can be, so when even those cannot cut
            // (most nodes), the roem bound is not worked out. The nat
            // search needs it while its budget lasts.
            let (lower, upper) = bounds(0);
            if (NAT && budget >= 0) || lower >= *beta || upper <= *alpha {
                let roem = roem_bound(&state.hands, trump);
                if NAT && budget >= roem {
                    // No roem can exceed the budget any more.
                    let kept = self.kept(0);
                    return Err(kept
                        + if kept > 0 {
                            2 * sure[0] - points - roem
                        } else {
                            points + roem - 2 * sure[1]
                        });
                }
                let (lower, upper) = bounds(roem);
                if lower >= *beta {
                    return Err(lower);
                }
                if upper <= *alpha {
                    return Err(upper);
                }
            }
        }
        if use_table {
            slot = self.find(key);
            let entry = self.table[slot];
            if entry.generation == self.generation && entry.key == key {
                let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
                if lower >= *beta {
                    return Err(lower);
                }
                if upper <= *alpha {
                    return Err(upper);
                }
                *alpha = (*alpha).max(lower);
                *beta = (*beta).min(upper);
                table_move = Some(u32::from(entry.best));
            }
        }
        if remaining.count_ones() == 8 && self.extras & Solver::EXTRA_TWO_TRICKS != 0 {
            let value = self.two_tricks::<NAT>(state, budget, pit_open, *alpha, *beta);
            if use_table && !self.aborted {
                self.store(key, value, (*alpha, *beta), 0, 8);
            }
            return Err(value);
        }
        Ok((table_move, slot, key))
    }

    /// The rest and nat searches' value (fail-soft within `alpha` and
    /// `beta`, in their terms: what the rest adds to team A's lead, plus the
    /// pit bonus or `KEPT`) at the start of the second-last trick, where
    /// every seat holds two cards: alpha-beta on the first trick's cards
    /// alone, each line's last trick forced (every seat's other card) and
    /// scored at once. Out of line.
    #[inline(never)]
    fn two_tricks<const NAT: bool>(
        &mut self,
        state: &State,
        budget: i32,
        pit_open: bool,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let remaining = CardSet::from_bits(state.remaining());
        // Every point of both tricks, the last trick's 10 included.
        let points = set_points(remaining, self.trump) + LAST_TRICK;
        // No trick can make roem when all eight cards together make none
        // (no run of three, four of a kind or stuk among them): then no
        // trick's roem is worked out.
        let melds = roem(remaining, self.trump) != 0;
        let end = (points, budget, pit_open, melds);
        let first = FirstTrick {
            trick: 0,
            led: 0,
            len: 0,
            top: 0,
            power: 0,
            taken: 0,
        };
        self.two_tricks_play::<NAT>(&state.hands, state.leader, end, first, alpha, beta)
    }

    /// [`Solver::two_tricks`] at a card of the first of the two tricks:
    /// `hands` as they were at its start, `leader` its leader, `first` its
    /// cards so far.
    fn two_tricks_play<const NAT: bool>(
        &mut self,
        hands: &[u32; 4],
        leader: u8,
        end: (i32, i32, bool, bool),
        first: FirstTrick,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let trump = self.trump;
        let seat = (leader + first.len) & 3;
        let hand = hands[usize::from(seat)] & !first.trick;
        let legal = if first.len == 0 {
            hand
        } else {
            legal_cards(
                CardSet::from_bits(hand),
                CardSet::from_bits(first.trick),
                Some(Suit::ALL[(first.led & 3) as usize]),
                trump,
            )
            .bits()
        };
        let maximising = team_index(seat) == 0;
        let mut best = if maximising { -INF } else { INF };
        let mut bits = legal;
        while bits != 0 {
            // The limits are looked at before each card, as the other
            // searches look at them before each node.
            if self.out_of_budget() {
                return 0;
            }
            let index = bits.trailing_zeros();
            bits &= bits - 1;
            self.nodes += 1;
            // The card joins the trick, which keeps its strongest card as
            // `State::add_to_trick` does.
            let led = if first.len == 0 { index / 8 } else { first.led };
            let power = power_of(index, led, trump);
            let mut next = first;
            next.led = led;
            next.trick |= 1 << index;
            next.taken += self.points[index as usize];
            if first.len == 0 || power > first.power {
                next.top = first.len;
                next.power = power;
            }
            next.len = first.len + 1;
            let value = if next.len == 4 {
                self.nodes += 4;
                self.two_tricks_end::<NAT>(hands, leader, end, &next)
            } else {
                self.two_tricks_play::<NAT>(hands, leader, end, next, alpha, beta)
            };
            if maximising {
                best = best.max(value);
                alpha = alpha.max(value);
            } else {
                best = best.min(value);
                beta = beta.min(value);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// [`Solver::two_tricks`] once the first trick holds its four cards
    /// (`first`): that trick and the forced last one scored as
    /// `State::play` scores them (the last trick's winner by the same
    /// `strength` order, one card at a time from its leader).
    #[inline]
    fn two_tricks_end<const NAT: bool>(
        &self,
        hands: &[u32; 4],
        leader: u8,
        (points, budget, pit_open, melds): (i32, i32, bool, bool),
        first: &FirstTrick,
    ) -> i32 {
        let trump = self.trump;
        let winner = (leader + first.top) & 3;
        let taken = first.taken;
        let roem_of = |trick: u32| {
            if melds && may_make_roem(trick) {
                roem(CardSet::from_bits(trick), trump)
            } else {
                0
            }
        };
        let first_roem = roem_of(first.trick);
        // The last trick: every seat's other card, led by the winner.
        let card_of = |seat: u8| (hands[usize::from(seat & 3)] & !first.trick).trailing_zeros();
        let lead = card_of(winner);
        let led = lead / 8;
        let mut last_winner = winner;
        let mut top = power_of(lead, led, trump);
        let mut last = 1 << lead;
        for offset in 1..4 {
            let seat = (winner + offset) & 3;
            let card = card_of(seat);
            last |= 1 << card;
            let power = power_of(card, led, trump);
            if power > top {
                top = power;
                last_winner = seat;
            }
        }
        let last_roem = roem_of(last);
        let for_a = |seat: u8, value: i32| if team_index(seat) == 0 { value } else { -value };
        let gain =
            for_a(winner, taken + first_roem) + for_a(last_winner, points - taken + last_roem);
        gain + if NAT {
            self.kept(budget - first_roem - last_roem)
        } else {
            let playing = usize::from(self.playing == Team::B);
            self.pit_bonus(
                pit_open && team_index(winner) == playing && team_index(last_winner) == playing,
            )
        }
    }

    /// The cards still out, for the rest and nat searches' table key (48
    /// bits), with the pointless low cards of a suit (plain 7 8 9, trump
    /// 7 8: the weakest of their suit, worth nothing) reduced to how many
    /// are left and who holds them, weakest first, when none of them can
    /// still make roem: no run of three through one of them whose cards
    /// are still out in three different hands, and no four of a kind of
    /// their ranks in four hands. Two positions whose low cards differ only
    /// in which ones are left then have the same legal cards, trick
    /// winners, points and roem in every line of play (map each low card
    /// to the one of the same place in the other), so the same value.
    /// Other suits keep their low cards as they are.
    fn low_key(&self, state: &State) -> u64 {
        let hands = &state.hands;
        let cards = hands[0] | hands[1] | hands[2] | hands[3];
        let mut same = [0u32; 3];
        let mut ranks = 0xFF;
        for hand in hands {
            same[1] |= hand & (hand >> 1);
            same[2] |= hand & (hand >> 2);
            ranks &= hand | (hand >> 8) | (hand >> 16) | (hand >> 24);
        }
        let three = cards & (cards >> 1) & (cards >> 2) & !(same[1] | (same[1] >> 1) | same[2]);
        let four_of_a_kind = cards & (cards >> 8) & (cards >> 16) & (cards >> 24) & ranks & 0b111;
        // Seat number bits of each card.
        let seat_low = hands[1] | hands[3];
        let seat_high = hands[2] | hands[3];
        let trump = self.trump as u32;
        let mut high = 0u64;
        let mut codes = 0u64;
        let mut at = 0;
        for suit in 0..4u32 {
            let shift = 8 * suit;
            let (low, width) = if suit == trump {
                (0b011, 2)
            } else {
                (0b111, 3)
            };
            let present = (cards >> shift) & low;
            high |= u64::from((cards >> shift & 0xFF) >> width) << at;
            at += 8 - width;
            let runs = (three >> shift) & low;
            let code = if runs == 0 && four_of_a_kind & low == 0 {
                let index = present
                    | ((seat_low >> shift) & present) << 3
                    | ((seat_high >> shift) & present) << 6;
                u64::from(LOW_CODES[index as usize])
            } else {
                85 + u64::from(present)
            };
            codes = codes * 93 + code;
        }
        high | codes << 21
    }

    /// The nat search's bonus in team A's terms: `KEPT` to the playing team
    /// when the roem budget is not exceeded.
    #[inline]
    fn kept(&self, budget: i32) -> i32 {
        if budget < 0 { 0 } else { self.sign() * KEPT }
    }

    /// The playing team's sign in team A's terms: 1 for team A, -1 for B.
    #[inline]
    fn sign(&self) -> i32 {
        if self.playing == Team::A { 1 } else { -1 }
    }

    /// Whether pit is still possible: the defenders took no trick yet.
    #[inline]
    fn pit_open(&self, state: &State) -> bool {
        let defending = if self.playing == Team::A { 1 } else { 0 };
        state.taken[defending] == 0
    }

    /// The pit bonus in team A's terms, when `pit` (the defenders took no
    /// trick in the whole deal).
    #[inline]
    fn pit_bonus(&self, pit: bool) -> i32 {
        match (pit, self.playing) {
            (false, _) => 0,
            (true, Team::A) => PIT_BONUS,
            (true, Team::B) => -PIT_BONUS,
        }
    }

    /// At the start of a trick: the card points each team (A, B) is sure
    /// to take, and the team sure to take a trick, if any. The strongest
    /// trump still out wins whatever trick it falls in, and so does every
    /// next strongest one while the same team holds all the trumps above
    /// it: those cards' points go to that team.
    ///
    /// By masks: the trumps still out and team A's, in strength order; the
    /// sure ones are those above the strongest trump of the team that
    /// does not hold the strongest.
    #[inline]
    fn sure(&self, state: &State) -> ([i32; 2], Option<usize>) {
        let shift = 8 * self.trump as u32;
        let out = u32::from(self.by_strength[((state.remaining() >> shift) & 0xFF) as usize]);
        if out == 0 {
            return ([0; 2], None);
        }
        let team_a = state.hands[0] | state.hands[2];
        let ours = u32::from(self.by_strength[((team_a >> shift) & 0xFF) as usize]);
        // The team of the strongest trump out (0: A, 1: B), and the
        // other team's trumps.
        let top = 31 - out.leading_zeros();
        let team = usize::from(ours & (1 << top) == 0);
        let theirs = if team == 0 { out & !ours } else { ours };
        let sure_set = if theirs == 0 {
            out
        } else {
            out & !((2 << (31 - theirs.leading_zeros())) - 1)
        };
        let mut sure = [0; 2];
        sure[team] = self.strength_points[sure_set as usize];
        (sure, Some(team))
    }

    /// [`Solver::sure`] card by card, strongest trump first: the
    /// reference its masks are tested against.
    #[cfg(test)]
    fn sure_card_by_card(&self, state: &State) -> ([i32; 2], Option<usize>) {
        let remaining = state.remaining();
        let team_a = state.hands[0] | state.hands[2];
        let mut sure = [0; 2];
        let mut holder = None;
        for &index in &self.trumps {
            if remaining & (1 << index) == 0 {
                continue;
            }
            let team = usize::from(team_a & (1 << index) == 0);
            if *holder.get_or_insert(team) != team {
                break;
            }
            sure[team] += self.points[usize::from(index)];
        }
        (sure, holder)
    }

    /// The cards of `legal` equivalent to the card at `index` (itself
    /// included) under the merging rule.
    fn group_of(&self, state: &State, legal: u32, index: u32) -> Vec<u32> {
        let merged = if self.techniques.merge {
            self.mergeable(state, legal)
        } else {
            0
        };
        CardSet::from_bits(legal)
            .iter()
            .map(card_index)
            .filter(|&other| representative(merged, legal, other) == index)
            .collect()
    }

    /// The cards of `legal` that merge with the card one rank below them.
    #[inline]
    fn mergeable(&self, state: &State, legal: u32) -> u32 {
        // Only two pointless low cards of one suit can merge: most nodes
        // have no such pair.
        let low = legal & self.low;
        if low & ((low >> 1) | (low >> 2)) & 0x0303_0303 == 0 {
            return 0;
        }
        self.merged_low_cards(state, low)
    }

    /// [`Solver::mergeable`] when two legal low cards (`low`) share a
    /// suit, out of line.
    #[inline(never)]
    fn merged_low_cards(&self, state: &State, low: u32) -> u32 {
        let seat = usize::from(state.mover());
        let hand = state.hands[seat];
        let in_play = state.remaining() | state.trick;
        let others = in_play & !hand;
        let free = no_roem_mask(others);
        let mut merged = 0;
        for suit in 0..4u32 {
            let shift = 8 * suit;
            let mine = (low >> shift) & 0b111;
            if mine.count_ones() < 2 {
                continue;
            }
            let theirs = (others >> shift) & 0xFF;
            let mut previous: Option<u32> = None;
            for rank in 0..3u32 {
                if mine & (1 << rank) == 0 {
                    if theirs & (1 << rank) != 0 {
                        previous = None;
                    }
                    continue;
                }
                if let Some(lower) = previous
                    && free & (1 << (shift + lower)) != 0
                    && free & (1 << (shift + rank)) != 0
                {
                    merged |= 1 << (shift + rank);
                }
                previous = Some(rank);
            }
        }
        merged
    }

    /// Orders the legal moves (merged) into `out`; returns how many.
    #[inline]
    fn moves(&self, state: &State, legal: u32, first: Option<u32>, out: &mut [u8; 8]) -> usize {
        if legal & legal.wrapping_sub(1) == 0 {
            // One legal card: nothing to merge or order.
            out[0] = legal.trailing_zeros() as u8;
            return 1;
        }
        self.order(state, legal, first, out)
    }

    /// [`Solver::moves`] for two legal cards or more, out of line.
    #[inline(never)]
    fn order(&self, state: &State, legal: u32, first: Option<u32>, out: &mut [u8; 8]) -> usize {
        let mut cards = legal;
        if self.techniques.merge {
            cards &= !self.mergeable(state, legal);
        }
        if !self.techniques.ordering {
            let mut count = 0;
            let mut bits = cards;
            while bits != 0 {
                out[count] = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                count += 1;
            }
            return count;
        }
        let killer = self.killer(state);
        self.score_and_sort(state, cards, first.unwrap_or(0xFF), killer, out)
    }

    /// The killer move for `state` (0xFF: none, or killers off).
    #[inline]
    fn killer(&self, state: &State) -> u32 {
        if self.extras & Solver::EXTRA_KILLERS != 0 {
            u32::from(self.killers[state.remaining().count_ones() as usize])
        } else {
            0xFF
        }
    }

    /// The moves among `cards` in the order of their scores, highest first
    /// (`first`, then `killer`, then by the heuristics), into `out`;
    /// returns how many.
    #[inline(never)]
    fn score_and_sort(
        &self,
        state: &State,
        cards: u32,
        first: u32,
        killer: u32,
        out: &mut [u8; 8],
    ) -> usize {
        let trump = self.trump;
        // Each card's score and bit index in one key, `score << 5 | (31 -
        // index)`, sorted highest first: equal scores keep card order. Every
        // score lies in 0..2048.
        let mut keys = [0u32; 8];
        let mut count = 0;
        let leading = state.len == 0;
        let led = u32::from(state.cards[0]) / 8;
        // The card winning the trick so far, and whether the partner holds it.
        let best_strength = state.power;
        let partner_winning =
            team_index((state.leader + state.top) & 3) == team_index(state.mover());
        let closing = state.len == 3;
        let mut bits = cards;
        while bits != 0 {
            let index = bits.trailing_zeros();
            bits &= bits - 1;
            let score = if index == first {
                1_000
            } else if index == killer {
                900
            } else if leading {
                // Leading: strong cards first, trumps last.
                let suit = index / 8;
                let power = power_of(index, suit, trump);
                i32::from(power) * 4 - if suit == trump as u32 { 40 } else { 0 }
            } else {
                let points = self.points[index as usize];
                let power = power_of(index, led, trump);
                if partner_winning {
                    if power > best_strength && !closing {
                        points
                    } else {
                        200 + points
                    }
                } else if power > best_strength {
                    300 - i32::from(power) + points
                } else {
                    100 - points
                }
            };
            debug_assert!((0..2048).contains(&score));
            let key = (score as u32) << 5 | (31 - index);
            // Insertion, highest first.
            let mut at = count;
            while at > 0 && keys[at - 1] < key {
                keys[at] = keys[at - 1];
                at -= 1;
            }
            keys[at] = key;
            count += 1;
        }
        for (slot, key) in out.iter_mut().zip(&keys[..count]) {
            *slot = (31 - (key & 31)) as u8;
        }
        count
    }
}

/// The card standing for the card at `index` among `legal`: the lowest card
/// of its run of merged cards (`merged` marks each card that merges with the
/// next lower legal card of its suit).
fn representative(merged: u32, legal: u32, index: u32) -> u32 {
    let mut rep = index;
    while merged & (1 << rep) != 0 {
        let below = legal & ((1 << rep) - 1) & (0xFF << (rep / 8 * 8));
        rep = 31 - below.leading_zeros();
    }
    rep
}

/// The low cards (natural ranks 7 8 9 of every suit) that can make no roem
/// from here on with the other seats' cards still in play, `others`: bit
/// `8 * suit + rank` set exactly when [`no_roem`] holds for it. A run of
/// three through a card needs the two other cards of one of its three
/// windows in `others`; four of a kind its rank in the other three suits.
fn no_roem_mask(others: u32) -> u32 {
    // The card's window starting at it, around it, ending at it (the
    // last two only for ranks above 7 and 8: no wrap into the suit below).
    let run = (others >> 1) & (others >> 2)
        | (others << 1) & (others >> 1) & 0x0606_0606
        | (others << 1) & (others << 2) & 0x0404_0404;
    let four = others.rotate_right(8) & others.rotate_right(16) & others.rotate_right(24);
    !(run | four) & 0x0707_0707
}

/// Whether the card of natural rank `rank` in `suit` can make no roem from
/// here on: no run of three through it among itself and the other seats'
/// cards of the suit still in play, and not all four cards of its rank in
/// play in other hands.
/// (The reference [`no_roem_mask`] is tested against.)
#[cfg(test)]
fn no_roem(rank: u32, suit: u32, theirs: u32, others: u32) -> bool {
    let cards = theirs | 1 << rank;
    for start in rank.saturating_sub(2)..=rank {
        if start + 3 <= 8 && (cards >> start) & 0b111 == 0b111 {
            return false;
        }
    }
    let same_rank = (0..4)
        .filter(|&other| other != suit)
        .all(|other| others & (1 << (8 * other + rank)) != 0);
    !same_rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_bound_covers_two_runs_of_four_in_a_full_suit() {
        // Every run start allowed: a full suit.
        assert_eq!(RUNS_BOUND[0x7FF], 10);
        // One run of three only.
        assert_eq!(RUNS_BOUND[0b1], 2);
        assert_eq!(RUNS_BOUND[0], 0);
    }

    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// The 32 bit indices in random order.
    fn shuffled(rng: &mut StdRng) -> Vec<u32> {
        let mut deck: Vec<u32> = (0..32).collect();
        for at in (1..deck.len()).rev() {
            deck.swap(at, rng.random_range(0..=at));
        }
        deck
    }

    /// A random deal's first trick and a random trump: the hands dealt
    /// from a shuffled deck, then the trump, then the leader drawn.
    fn random_start(rng: &mut StdRng) -> (State, Suit) {
        let deck = shuffled(rng);
        let mut hands = [0u32; 4];
        for (at, index) in deck.iter().enumerate() {
            hands[at / 8] |= 1 << index;
        }
        let trump = Suit::ALL[rng.random_range(0..4)];
        (state_at_start(hands, rng.random_range(0..4)), trump)
    }

    /// A state at the start of a trick, nothing taken yet.
    fn state_at_start(hands: [u32; 4], leader: u8) -> State {
        State {
            hands,
            leader,
            cards: [0; 4],
            len: 0,
            top: 0,
            power: 0,
            trick: 0,
            points: [0; 2],
            roem: [0; 2],
            taken: [0; 2],
        }
    }

    /// The trick winner the state keeps card by card (by the rules'
    /// `strength`) is the rules' `trick_winner` on random tricks, trumps and
    /// leaders.
    #[test]
    fn the_winner_kept_card_by_card_is_the_rules_trick_winner() {
        use crate::rules::klaverjassen::trick_winner;
        let mut rng = StdRng::seed_from_u64(12);
        for _ in 0..20_000 {
            let deck = shuffled(&mut rng);
            let trump = Suit::ALL[rng.random_range(0..4)];
            let leader: u8 = rng.random_range(0..4);
            let mut hands = [0u32; 4];
            for (offset, index) in deck[..4].iter().enumerate() {
                hands[usize::from((leader + offset as u8) % 4)] = 1 << index;
            }
            let state = state_at_start(hands, leader).play_last_trick(trump);
            let cards = [0, 1, 2, 3].map(|at| card_at(deck[at]));
            assert_eq!(
                Seat(state.leader),
                trick_winner(&cards, Seat(leader), trump),
                "{cards:?} trump {trump:?}"
            );
        }
    }

    /// The no-roem mask is `no_roem` card by card, for random sets of the
    /// other seats' cards, every suit and low rank.
    #[test]
    fn the_no_roem_mask_is_no_roem_card_by_card() {
        let mut rng = StdRng::seed_from_u64(18);
        for case in 0..20_000 {
            let deck = shuffled(&mut rng);
            let count = 4 + case % 24;
            let others = deck[..count]
                .iter()
                .fold(0u32, |bits, index| bits | 1 << index);
            let mask = no_roem_mask(others);
            for suit in 0..4u32 {
                let theirs = (others >> (8 * suit)) & 0xFF;
                for rank in 0..3u32 {
                    assert_eq!(
                        mask & 1 << (8 * suit + rank) != 0,
                        no_roem(rank, suit, theirs, others),
                        "{others:x} {suit} {rank}"
                    );
                }
            }
        }
    }

    /// The quick roem test never rules out a trick the rules give roem:
    /// every set of four cards of random deals, and every run, stuk and
    /// four of a kind.
    #[test]
    fn the_quick_roem_test_passes_every_trick_with_roem() {
        let mut rng = StdRng::seed_from_u64(17);
        let mut with_roem = 0;
        for _ in 0..100_000 {
            let deck = shuffled(&mut rng);
            let bits = deck[..4].iter().fold(0u32, |bits, index| bits | 1 << index);
            for trump in Suit::ALL {
                if roem(CardSet::from_bits(bits), trump) != 0 {
                    with_roem += 1;
                    assert!(may_make_roem(bits), "{bits:x} {trump:?}");
                }
            }
        }
        for suit in 0..4 {
            for rank in 0..7 {
                assert!(may_make_roem(0b11 << (8 * suit + rank)));
            }
        }
        for rank in 0..8 {
            assert!(may_make_roem(0x0101_0101 << rank));
        }
        assert!(with_roem > 1_000, "{with_roem}");
    }

    /// The card points table is the rules' `card_points` for every card and
    /// trump.
    #[test]
    fn the_card_points_table_is_the_rules_card_points() {
        for trump in Suit::ALL {
            for index in 0..32 {
                assert_eq!(
                    i32::from(CARD_POINTS[trump as usize][index as usize]),
                    card_points(card_at(index), trump)
                );
            }
        }
    }

    /// The strength table is the rules' `strength` for every card, led suit
    /// and trump.
    #[test]
    fn the_strength_table_is_the_rules_card_order() {
        for trump in Suit::ALL {
            for led in 0..4u32 {
                for index in 0..32 {
                    assert_eq!(
                        power_of(index, led, trump),
                        strength(index, Suit::ALL[led as usize], trump)
                    );
                }
            }
        }
    }

    /// The last two tricks' own search gives exactly the value of the rest
    /// and nat searches (full window), and the same side of every zero
    /// window, on random positions with two tricks left: random deals,
    /// trumps and playing teams, played out at random (so pit is sometimes
    /// still open), every roem budget from exceeded to ample.
    #[test]
    fn the_two_trick_search_gives_the_values_of_the_full_search() {
        let mut rng = StdRng::seed_from_u64(13);
        let mut full = Solver::new();
        full.set_extras(Solver::EXTRA_DEFAULT & !Solver::EXTRA_TWO_TRICKS);
        let mut two = Solver::new();
        for case in 0..5_000 {
            let (mut state, trump) = random_start(&mut rng);
            // Every third deal lets team A take the early tricks (pit open).
            let favour = case % 3 == 0;
            while state.remaining().count_ones() > 8 {
                let legal = state.legal(trump);
                let pick = if favour && team_index(state.mover()) == 0 {
                    legal.count_ones() - 1
                } else {
                    rng.random_range(0..legal.count_ones())
                };
                let mut bits = legal;
                for _ in 0..pick {
                    bits &= bits - 1;
                }
                state.play(bits.trailing_zeros(), trump);
            }
            let playing = if case % 2 == 0 { Team::A } else { Team::B };
            let position = Position {
                hands: BySeat(state.hands.map(CardSet::from_bits)),
                trump,
                playing_team: playing,
                leader: Seat(state.leader),
                trick: Vec::new(),
                card_points: ByTeam::new(state.points[0], state.points[1]),
                roem: ByTeam::new(state.roem[0], state.roem[1]),
                tricks_taken: ByTeam::new(state.taken[0], state.taken[1]),
            };
            full.start(&position, Limits::NONE);
            two.start(&position, Limits::NONE);
            let pit_open = two.pit_open(&state);
            let exact = full.rest::<false>(&state, 0, -INF, INF);
            assert_eq!(
                two.two_tricks::<false>(&state, 0, pit_open, -INF, INF),
                exact,
                "{position:?}"
            );
            for target in [exact - 2, exact - 1, exact, exact + 1] {
                let value = two.two_tricks::<false>(&state, 0, pit_open, target - 1, target);
                assert_eq!(value >= target, exact >= target, "{position:?} {target}");
            }
            // The nat search answers zero windows far below `KEPT` (its
            // early stop, once no roem can exceed the budget, is a bound
            // for those alone): the same side of each.
            let budget = [-10, 0, 20, 40, 100][case % 5];
            let kept = two.two_tricks::<true>(&state, budget, false, -INF, INF);
            for target in [-150, -40, -1, 0, 1, 2, 40, 150] {
                let searched = full.rest::<true>(&state, budget, target - 1, target);
                let value = two.two_tricks::<true>(&state, budget, false, target - 1, target);
                assert_eq!(searched >= target, kept >= target, "{position:?} {budget}");
                assert_eq!(value >= target, kept >= target, "{position:?} {budget}");
            }
        }
    }

    /// A random deal and trump played out at random (legal cards) to the
    /// start of the trick with `out` cards still out.
    fn played_to(rng: &mut StdRng, out: u32) -> (State, Suit) {
        let (mut state, trump) = random_start(rng);
        while state.remaining().count_ones() > out {
            let legal = state.legal(trump);
            let mut bits = legal;
            for _ in 0..rng.random_range(0..legal.count_ones()) {
                bits &= bits - 1;
            }
            state.play(bits.trailing_zeros(), trump);
        }
        (state, trump)
    }

    /// The position of a search state at a trick's start.
    fn position_of(state: &State, trump: Suit, playing: Team) -> Position {
        Position {
            hands: BySeat(state.hands.map(CardSet::from_bits)),
            trump,
            playing_team: playing,
            leader: Seat(state.leader),
            trick: Vec::new(),
            card_points: ByTeam::new(state.points[0], state.points[1]),
            roem: ByTeam::new(state.roem[0], state.roem[1]),
            tricks_taken: ByTeam::new(state.taken[0], state.taken[1]),
        }
    }

    /// Two positions whose low-card keys are equal have the same value in
    /// the rest search (exact, full window) and the same side of the nat
    /// search's windows: random positions 16 cards out, and the same
    /// position with each suit's pointless low cards moved to other low
    /// ranks (same number, same holders in the same order), searched
    /// without the low-card key.
    #[test]
    fn positions_with_the_same_low_card_key_have_the_same_value() {
        let mut rng = StdRng::seed_from_u64(14);
        let mut solver = Solver::new();
        solver.set_extras(Solver::EXTRA_DEFAULT & !Solver::EXTRA_LOW_KEY);
        let mut keyed = Solver::new();
        let mut shared = 0;
        for case in 0..300 {
            let (state, trump) = played_to(&mut rng, 16);
            let playing = if case % 2 == 0 { Team::A } else { Team::B };
            let mut moved = state;
            for suit in 0..4u32 {
                let shift = 8 * suit;
                let ranks: &[u32] = if suit == trump as u32 {
                    &[0, 1]
                } else {
                    &[0, 1, 2]
                };
                let holders: Vec<usize> = ranks
                    .iter()
                    .filter_map(|rank| {
                        (0..4).find(|&seat| state.hands[seat] & 1 << (shift + rank) != 0)
                    })
                    .collect();
                // A random choice of as many low ranks, weakest first.
                let mut chosen: Vec<u32> = ranks.to_vec();
                while chosen.len() > holders.len() {
                    chosen.remove(rng.random_range(0..chosen.len()));
                }
                for rank in ranks {
                    for hand in &mut moved.hands {
                        *hand &= !(1 << (shift + rank));
                    }
                }
                for (seat, rank) in holders.iter().zip(&chosen) {
                    moved.hands[*seat] |= 1 << (shift + rank);
                }
            }
            let first = position_of(&state, trump, playing);
            let second = position_of(&moved, trump, playing);
            keyed.start(&first, Limits::NONE);
            let key = keyed.low_key(&state);
            keyed.start(&second, Limits::NONE);
            if keyed.low_key(&moved) != key {
                continue;
            }
            if moved.hands != state.hands {
                shared += 1;
            }
            solver.start(&first, Limits::NONE);
            let value = solver.rest::<false>(&state, 0, -INF, INF);
            let nat: Vec<bool> = [(0, -40), (0, 0), (20, 0), (20, 40)]
                .iter()
                .map(|&(budget, target)| {
                    solver.rest::<true>(&state, budget, target - 1, target) >= target
                })
                .collect();
            solver.start(&second, Limits::NONE);
            assert_eq!(
                solver.rest::<false>(&moved, 0, -INF, INF),
                value,
                "{first:?} {second:?}"
            );
            let moved_nat: Vec<bool> = [(0, -40), (0, 0), (20, 0), (20, 40)]
                .iter()
                .map(|&(budget, target)| {
                    solver.rest::<true>(&moved, budget, target - 1, target) >= target
                })
                .collect();
            assert_eq!(moved_nat, nat, "{first:?} {second:?}");
        }
        assert!(shared > 50, "{shared}");
    }

    /// The sure trumps by masks are the sure trumps counted card by card,
    /// strongest first, at every trick's start of random deals played out
    /// at random, every trump and playing team.
    #[test]
    fn the_sure_trumps_by_masks_are_those_counted_card_by_card() {
        let mut rng = StdRng::seed_from_u64(16);
        let mut solver = Solver::new();
        for case in 0..5_000 {
            let (mut state, trump) = random_start(&mut rng);
            let playing = if case % 2 == 0 { Team::A } else { Team::B };
            solver.start(&position_of(&state, trump, playing), Limits::NONE);
            while state.remaining() != 0 {
                if state.len == 0 {
                    assert_eq!(
                        solver.sure(&state),
                        solver.sure_card_by_card(&state),
                        "{state:?} {trump:?}"
                    );
                }
                let legal = state.legal(trump);
                let mut bits = legal;
                for _ in 0..rng.random_range(0..legal.count_ones()) {
                    bits &= bits - 1;
                }
                state.play(bits.trailing_zeros(), trump);
            }
        }
    }

    /// The roem bound at each trick's start is never below the roem the
    /// rest of the deal makes, over random deals played out at random.
    #[test]
    fn the_roem_bound_covers_the_roem_of_random_play() {
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..20_000 {
            let (mut state, trump) = random_start(&mut rng);
            let hands = state.hands;
            let mut starts = Vec::new();
            while state.remaining() != 0 {
                if state.len == 0 {
                    starts.push((roem_bound(&state.hands, trump), made(&state)));
                }
                let legal = state.legal(trump);
                let pick = rng.random_range(0..legal.count_ones());
                let mut bits = legal;
                for _ in 0..pick {
                    bits &= bits - 1;
                }
                state.play(bits.trailing_zeros(), trump);
            }
            for (bound, before) in starts {
                assert!(
                    bound >= made(&state) - before,
                    "{bound} {hands:?} {trump:?}"
                );
            }
        }
    }
}
