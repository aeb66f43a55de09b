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
//! core ([`legal_cards`], the card order [`strength`], [`set_points`],
//! [`roem`]): there is no second copy of the rules here. The search is
//! fail-soft alpha-beta, driven by MTD(f) zero-window probes, with
//! - each probe turned into a question about an additive value of the rest
//!   of the deal (the rest search, or the nat search for "how much roem
//!   does a team that goes nat concede"), so that
//! - the transposition table at the start of each trick is keyed by the
//!   cards still out, the leader and a small flag, shared by every path;
//! - exact bounds at the start of each trick (the score sheet evaluated at
//!   the corners of what the remaining cards and roem could still bring);
//! - move ordering (the table's best move, the killer move, then cheap
//!   winners, smearing points on a partner's trick, discarding low);
//! - merging of equivalent cards: pointless cards of one suit (plain 7 8 9,
//!   trump 7 8) next to each other in rank order, counting only the cards
//!   still in play, are one move when neither can still make roem;
//! - the last two tricks searched by a small search of their own.
//!
//! By concern: `position` (the positions and the move that plays a card),
//! `search` (the searches), `bounds`, `table` (the transposition table and
//! its keys), `ordering` (move ordering and merging) and `two_tricks`.
//!
//! [`score_deal`]: crate::rules::klaverjassen::score_deal
//! [`legal_cards`]: crate::rules::klaverjassen::legal_cards
//! [`strength`]: crate::rules::klaverjassen::strength
//! [`set_points`]: crate::rules::klaverjassen::set_points
//! [`roem`]: crate::rules::klaverjassen::roem

mod bounds;
mod ordering;
mod position;
mod search;
mod table;
#[cfg(test)]
mod tests;
mod two_tricks;

use std::time::Instant;

use crate::rules::cards::{Card, Suit};
use crate::rules::klaverjassen::{
    CardSet, HouseRules, PIT_BONUS, Team, card_at, card_index, card_points, strength,
};

pub use position::Position;
use position::{State, team_index};
use table::Table;

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

/// Above any value a deal can have.
const INF: i32 = 30_000;

/// The nat search's reward for keeping the roem within budget: above any
/// lead a deal can bring, below `INF` with any lead added.
const KEPT: i32 = 10_000;

/// Settings of the search, every one on by default. A solver with some of
/// them off searches more plainly and more slowly, to the same values: the
/// tests compare the two, and the bench measures what each is worth.
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
    table: Table,
    nodes: u64,
    techniques: Techniques,
    trump: Suit,
    /// This solve's house rules (which cards may be played, four jacks).
    rules: HouseRules,
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
    /// The table on and no horizon: the rest and nat searches go straight
    /// to [`Solver::two_tricks_start`] at 8 cards out.
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
    /// The shallow search behind the first guess stops at a trick's start
    /// with this many cards still out (after three tricks).
    const GUESS_HORIZON: u32 = 20;
    /// How far below the shallow search's value (in the playing team's
    /// terms) the first guess lies when that value is not nat: MTD(f)
    /// climbs up from a guess below the value with cheap probes, but a
    /// guess above it costs failing probes, the expensive kind.
    const GUESS_BELOW: i32 = 70;

    /// A solver with every technique on and a table of 2^18 entries (4 MiB).
    pub fn new() -> Solver {
        Solver::with_techniques(Techniques::default())
    }

    /// A solver using only the given techniques.
    pub fn with_techniques(techniques: Techniques) -> Solver {
        Solver {
            table: Table::new(),
            nodes: 0,
            techniques,
            trump: Suit::Clubs,
            rules: HouseRules::default(),
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
            fast_two: techniques.table,
            horizon: 0,
        }
    }

    /// Cards played in searches so far (the node count), over the solver's
    /// life.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn start(&mut self, position: &Position, limits: Limits) {
        self.trump = position.trump;
        self.rules = position.rules;
        for (index, points) in self.points.iter_mut().enumerate() {
            *points = card_points(card_at(index as u32), position.trump);
        }
        self.low = ordering::low_cards(position.trump);
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
        self.table.new_generation();
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

    /// MTD(f)'s first guess for `state`: the value of a shallow search
    /// (MTD(f) on the rest and nat searches cut off after three tricks,
    /// where the card points of the sure trumps stand for the rest),
    /// lowered by [`Solver::GUESS_BELOW`] in the playing team's terms when
    /// it is not nat. Its table entries are not exact values, so a new
    /// table generation starts after it. 0 without the rest search, or
    /// with three tricks or fewer left.
    fn first_guess(&mut self, state: &State) -> i32 {
        if !self.techniques.relative || state.remaining().count_ones() <= Solver::GUESS_HORIZON {
            return 0;
        }
        self.horizon = Solver::GUESS_HORIZON;
        self.fast_two = false;
        let estimate = self.mtdf(state, 0);
        self.horizon = 0;
        self.fast_two = self.techniques.table;
        self.table.new_generation();
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
        let legal = state.legal(self.trump, self.rules);
        let mut values = [0i32; 32];
        let mut best = if maximising { -INF } else { INF };
        let mut guess = None;
        let mut moves = [0u8; 8];
        let count = self.moves(&state, legal, None, &mut moves);
        for &index in &moves[..count] {
            let mut child = state;
            child.play(u32::from(index), self.trump, self.rules);
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

    /// MTD(f): zero-window probes from `guess` until the bounds on the
    /// value of `state` meet.
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
}
