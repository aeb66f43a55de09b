//! Move ordering: equivalent cards merged into one move (pointless low
//! cards of one suit next to each other in rank order, when neither can
//! still make roem), then the table's move, the killer, cheap winners,
//! smearing points on a partner's trick and discarding low.

use crate::rules::cards::Suit;
use crate::rules::klaverjassen::{CardSet, card_index};

use super::Solver;
use super::position::{State, power_of, team_index};

/// Ranks (natural index) worth no points and equal in strength to their
/// neighbours: plain 7 8 9, trump 7 8.
const PLAIN_ZERO: u32 = 0b111;
const TRUMP_ZERO: u32 = 0b11;

/// The pointless low cards that may merge with a neighbour (plain 7 8 9,
/// trump 7 8) with `trump`, as a card mask.
pub(super) fn low_cards(trump: Suit) -> u32 {
    let mut low = 0;
    for suit in 0..4u32 {
        let zero = if suit == trump as u32 {
            TRUMP_ZERO
        } else {
            PLAIN_ZERO
        };
        low |= zero << (8 * suit);
    }
    low
}

impl Solver {
    /// The cards of `legal` equivalent to the card at `index` (itself
    /// included) under the merging rule.
    pub(super) fn group_of(&self, state: &State, legal: u32, index: u32) -> Vec<u32> {
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
    pub(super) fn mergeable(&self, state: &State, legal: u32) -> u32 {
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
    pub(super) fn moves(
        &self,
        state: &State,
        legal: u32,
        first: Option<u32>,
        out: &mut [u8; 8],
    ) -> usize {
        if legal & legal.wrapping_sub(1) == 0 {
            // One legal card: nothing to merge or order.
            out[0] = legal.trailing_zeros() as u8;
            return 1;
        }
        self.order(state, legal, first, out)
    }

    /// [`Solver::moves`] for two legal cards or more, out of line.
    #[inline(never)]
    pub(super) fn order(
        &self,
        state: &State,
        legal: u32,
        first: Option<u32>,
        out: &mut [u8; 8],
    ) -> usize {
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

    /// The killer move for `state`: the last move that cut off with as many
    /// cards still out (0xFF: none).
    #[inline]
    pub(super) fn killer(&self, state: &State) -> u32 {
        u32::from(self.killers[state.remaining().count_ones() as usize])
    }

    /// The moves among `cards` in the order of their scores, highest first
    /// (`first`, then `killer`, then by the heuristics), into `out`;
    /// returns how many.
    #[inline(never)]
    pub(super) fn score_and_sort(
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
pub(super) fn no_roem_mask(others: u32) -> u32 {
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
pub(super) fn no_roem(rank: u32, suit: u32, theirs: u32, others: u32) -> bool {
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
