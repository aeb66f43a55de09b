//! The searches: fail-soft alpha-beta on the whole score (the absolute
//! search), and the zero-window probes MTD(f) makes answered by a search on
//! what the rest of the deal adds alone (the rest and nat searches), whose
//! table entries every path to the same cards shares.

use crate::rules::klaverjassen::{CardSet, DEAL_POINTS, LAST_TRICK, PIT_BONUS, Team, set_points};

use super::bounds::roem_bound;
use super::position::{State, made, margin, team_index};
use super::{INF, KEPT, Solver};

impl Solver {
    /// The absolute search: fail-soft alpha-beta on the final value, team A
    /// maximising, the table keyed by the whole score so far. MTD(f) probes
    /// with it when the rest-of-deal search is off ([`Techniques::relative`](super::Techniques)).
    pub(super) fn search(&mut self, state: &State, mut alpha: i32, mut beta: i32) -> i32 {
        if self.out_of_budget() {
            return 0;
        }
        let trump = self.trump;
        let mut table_move = None;
        let mut stored = None;
        if state.len == 0 {
            let remaining = state.remaining();
            if remaining == 0 {
                return state.final_value(self.playing);
            }
            if remaining.count_ones() == 4 {
                // The last trick: every seat holds one card, so play is forced.
                let last = state.play_last_trick(trump, self.rules);
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
                let key = self.key(state);
                stored = Some(key);
                if let Some(entry) = self.table.probe(key) {
                    if let Some(value) = entry.cut(&mut alpha, &mut beta) {
                        return value;
                    }
                    table_move = Some(u32::from(entry.best));
                }
            }
        }
        let legal = state.legal(trump, self.rules);
        let mut moves = [0u8; 8];
        let count = self.moves(state, legal, table_move, &mut moves);
        let mut node = Window::new(state.mover(), alpha, beta);
        node.best_move = moves[0];
        for &index in &moves[..count] {
            let mut child = *state;
            child.play(u32::from(index), trump, self.rules);
            self.nodes += 1;
            let value = self.search(&child, node.alpha, node.beta);
            if self.aborted {
                return 0;
            }
            if node.take(index, value) {
                self.killers[state.remaining().count_ones() as usize] = index;
                break;
            }
        }
        if let Some(key) = stored
            && !self.aborted
        {
            self.table.store(
                key,
                node.best,
                (alpha, beta),
                node.best_move,
                state.remaining().count_ones(),
            );
        }
        node.best
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
    pub(super) fn relative_probe(&mut self, state: &State, beta: i32) -> i32 {
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
    pub(super) fn rest<const NAT: bool>(
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
        let mut stored = None;
        let pit_open = !NAT && self.pit_open(state);
        // Canonical budgets for the key: every budget below zero is
        // exceeded alike, and no deal makes 2,000 roem.
        let budget = budget.clamp(-10, 2_000);
        if state.len == 0 {
            match self.trick_start::<NAT>(state, budget, pit_open, &mut alpha, &mut beta) {
                Err(value) => return value,
                Ok((found, key)) => {
                    table_move = found;
                    stored = key;
                }
            }
        }
        let legal = state.legal(trump, self.rules);
        // Every value is finite, so the first card searched sets the best
        // move.
        let mut node = Window::new(state.mover(), alpha, beta);
        // Searches the card at bit `index` and ends the move loop on a
        // cut-off.
        macro_rules! try_move {
            ($index:expr, $moves:lifetime) => {{
                let index: u8 = $index;
                let mut child = *state;
                child.play(u32::from(index), trump, self.rules);
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
                            node.alpha - gain,
                            node.beta - gain,
                        )
                    } else {
                        self.rest::<NAT>(&child, child_budget, node.alpha - gain, node.beta - gain)
                    };
                if self.aborted {
                    return 0;
                }
                if node.take(index, value) {
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
            if !self.techniques.ordering {
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
        if let Some(key) = stored
            && !self.aborted
        {
            self.table.store(
                key,
                node.best,
                (alpha, beta),
                node.best_move,
                state.remaining().count_ones(),
            );
        }
        node.best
    }

    /// The rest and nat searches at a trick's start: the end of the deal,
    /// the last trick, the bounds, the table and the last two tricks' own
    /// search. `Err(value)` when they decide the node; else the table's move
    /// and the key to store the result under (`None`: no table), with the
    /// window narrowed by the table's bounds. Out of line, so that the three nodes in four that start no
    /// trick run through a small function.
    #[inline(never)]
    fn trick_start<const NAT: bool>(
        &mut self,
        state: &State,
        budget: i32,
        pit_open: bool,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Result<(Option<u32>, Option<u64>), i32> {
        let trump = self.trump;
        let mut table_move = None;
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
            let last = state.play_last_trick(trump, self.rules);
            self.nodes += 4;
            let gain = margin(&last) - margin(state);
            return Err(gain
                + if NAT {
                    self.kept(budget - (made(&last) - made(state)))
                } else {
                    self.pit_bonus(pit_open && self.pit_open(&last))
                });
        }
        let key = self.techniques.table.then(|| {
            let key = self.rest_key::<NAT>(state, budget, pit_open);
            // The bucket is rarely in the core's own cache: start loading
            // it while the bounds are worked out.
            self.table.prefetch(key);
            key
        });
        // At 8 cards out the last two tricks' own search below is quicker
        // than bounds that seldom cut there.
        if self.techniques.bounds && remaining.count_ones() != 8 {
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
                let roem = roem_bound(&state.hands, trump, self.rules);
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
        if let Some(key) = key
            && let Some(entry) = self.table.probe(key)
        {
            if let Some(value) = entry.cut(alpha, beta) {
                return Err(value);
            }
            table_move = Some(u32::from(entry.best));
        }
        if remaining.count_ones() == 8 {
            let value = self.two_tricks::<NAT>(state, budget, pit_open, *alpha, *beta);
            if let Some(key) = key
                && !self.aborted
            {
                self.table.store(key, value, (*alpha, *beta), 0, 8);
            }
            return Err(value);
        }
        Ok((table_move, key))
    }
}

/// A node's alpha-beta window and the best child found so far, for the
/// side to move: team A maximises, team B minimises.
pub(super) struct Window {
    maximising: bool,
    /// The lower end of the window.
    pub(super) alpha: i32,
    /// The upper end of the window.
    pub(super) beta: i32,
    /// The best value found so far (fail-soft).
    pub(super) best: i32,
    /// The card that gave it.
    pub(super) best_move: u8,
}

impl Window {
    /// The window `(alpha, beta)` at a node where `seat` is to play, no
    /// child searched yet.
    #[inline]
    pub(super) fn new(seat: u8, alpha: i32, beta: i32) -> Window {
        let maximising = team_index(seat) == 0;
        Window {
            maximising,
            alpha,
            beta,
            best: if maximising { -INF } else { INF },
            best_move: 0,
        }
    }

    /// Takes the value of the child reached by the card at bit `index`:
    /// `true` when the window has closed (a cut-off).
    #[inline]
    pub(super) fn take(&mut self, index: u8, value: i32) -> bool {
        if self.maximising {
            if value > self.best {
                self.best = value;
                self.best_move = index;
            }
            self.alpha = self.alpha.max(value);
        } else {
            if value < self.best {
                self.best = value;
                self.best_move = index;
            }
            self.beta = self.beta.min(value);
        }
        self.alpha >= self.beta
    }
}
