//! The last two tricks' own search: at the start of the second-last trick
//! every seat holds two cards, so the rest and nat searches play out the
//! first trick's cards alone, each line's last trick forced and scored at
//! once, with no bounds or move ordering.

use crate::rules::cards::Suit;
use crate::rules::klaverjassen::{
    CardSet, LAST_TRICK, Team, TrickSoFar, legal_cards, roem, set_points,
};

use super::Solver;
use super::position::{State, may_make_roem, power_of, team_index};
use super::search::Window;

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

impl Solver {
    /// [`Solver::rest`] at the start of the second-last trick, when the
    /// table is on and no horizon applies (`fast_two`): what `rest` and
    /// `trick_start` do there (the table, then the search of the last two
    /// tricks, its result stored), without their work for the other tricks.
    #[inline(never)]
    pub(super) fn two_tricks_start<const NAT: bool>(
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
        let key = self.rest_key::<NAT>(state, budget, pit_open);
        if let Some(entry) = self.table.probe(key)
            && let Some(value) = entry.cut(&mut alpha, &mut beta)
        {
            return value;
        }
        let value = self.two_tricks::<NAT>(state, budget, pit_open, alpha, beta);
        if !self.aborted {
            self.table.store(key, value, (alpha, beta), 0, 8);
        }
        value
    }

    /// The rest and nat searches' value (fail-soft within `alpha` and
    /// `beta`, in their terms: what the rest adds to team A's lead, plus the
    /// pit bonus or `KEPT`) at the start of the second-last trick, where
    /// every seat holds two cards: alpha-beta on the first trick's cards
    /// alone, each line's last trick forced (every seat's other card) and
    /// scored at once. Out of line.
    #[inline(never)]
    pub(super) fn two_tricks<const NAT: bool>(
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
        let melds = roem(remaining, self.trump, self.rules) != 0;
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
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let trump = self.trump;
        let seat = (leader + first.len) & 3;
        let hand = hands[usize::from(seat)] & !first.trick;
        let legal = if first.len == 0 {
            hand
        } else {
            let trick = TrickSoFar {
                cards: CardSet::from_bits(first.trick),
                led: Some(Suit::ALL[(first.led & 3) as usize]),
                partner_winning: first.len >= 2 && first.top == first.len - 2,
            };
            legal_cards(CardSet::from_bits(hand), trick, trump, self.rules).bits()
        };
        let mut node = Window::new(seat, alpha, beta);
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
                self.two_tricks_play::<NAT>(hands, leader, end, next, node.alpha, node.beta)
            };
            if node.take(index as u8, value) {
                break;
            }
        }
        node.best
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
        let (trump, rules) = (self.trump, self.rules);
        let winner = (leader + first.top) & 3;
        let taken = first.taken;
        let roem_of = |trick: u32| {
            if melds && may_make_roem(trick) {
                roem(CardSet::from_bits(trick), trump, rules)
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
}
