//! Bounds on what the rest of a deal can bring: the most roem its cards can
//! still make, the card points each team is sure to take, and the score
//! sheet's value at the corners of those, which cut the search at a
//! trick's start.

use crate::rules::cards::Suit;
use crate::rules::klaverjassen::{
    CardSet, DEAL_POINTS, HouseRules, LAST_TRICK, PIT_BONUS, set_points,
};

use super::Solver;
use super::position::{State, margin};

/// For one suit, indexed by the runs of three that can still fall in one
/// trick (their lowest rank, 6 bits) and the runs of four (5 bits, shifted
/// by 6): the most sequence roem, in tens, that disjoint runs among them can
/// make (runs of 3: 20, of 4: 50; each run in its own trick).
pub(super) const RUNS_BOUND: [u8; 2048] = {
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
pub(super) fn roem_bound(hands: &[u32; 4], trump: Suit, rules: HouseRules) -> i32 {
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
        + if four_of_a_kind & jack != 0 {
            rules.four_jacks.points()
        } else {
            0
        };
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

impl Solver {
    /// The bounds on the final value whatever the rest of the deal brings:
    /// the score sheet at the corners of the points and roem still to come.
    pub(super) fn bounds(&self, state: &State, remaining: u32) -> (i32, i32) {
        let trump = self.trump;
        let cards = set_points(CardSet::from_bits(remaining), trump) + LAST_TRICK;
        let roem = roem_bound(&state.hands, trump, self.rules);
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
    pub(super) fn sure(&self, state: &State) -> ([i32; 2], Option<usize>) {
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
    pub(super) fn sure_card_by_card(&self, state: &State) -> ([i32; 2], Option<usize>) {
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
}
