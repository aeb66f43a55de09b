//! The pairs schedule (*koppels*): the circle method. Pair `P` stays, the
//! others rotate; in rounds `1..=P-1` every pair meets every other once,
//! later rounds repeat the cycle.
//!
//! Seats: at each table the pair listed first sits in seats 0 and 2 (its
//! entrant in 0, the partner in 2), the other in 1 and 3. Who is listed
//! first alternates from round to round where the circle allows: the
//! staying pair is listed second in odd rounds and first in even ones; at
//! the other tables (`a = r + k`, `b = r - k` in the circle) `a` is listed
//! first when `k` is odd. Every pair then changes sides each round except
//! at most once in rounds `1..=P-1` (docs/events.md shows why).

use super::{Entry, Place, Round, TableSeats, circle_round};

/// The matches of `round` (from 1) for `pairs` pairs (even, at least 2):
/// `(listed first, listed second)` by entry, table 1 first (the staying
/// pair's table).
pub fn matches(pairs: usize, round: u32) -> Vec<(Entry, Entry)> {
    let ri = (round as usize - 1) % (pairs - 1);
    circle_round(pairs, ri)
        .into_iter()
        .map(|(a, b, k)| {
            let a_first = if k == 0 {
                round.is_multiple_of(2)
            } else {
                k % 2 == 1
            };
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            (first as Entry, second as Entry)
        })
        .collect()
}

/// The tables of `round` (from 1) for `pairs` pairs.
pub fn round(pairs: usize, round: u32) -> Round {
    matches(pairs, round)
        .into_iter()
        .map(|(first, second)| {
            let place = |entry, member| Place { entry, member };
            TableSeats([
                place(first, 0),
                place(second, 0),
                place(first, 1),
                place(second, 1),
            ])
        })
        .collect()
}

/// Every round of an evening of `rounds` rounds for `pairs` pairs.
pub fn schedule(pairs: usize, rounds: u32) -> Vec<Round> {
    (1..=rounds).map(|r| round(pairs, r)).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn even_fields() -> impl Iterator<Item = usize> {
        (2..=20).step_by(2)
    }

    #[test]
    fn every_pair_plays_once_in_every_round() {
        for pairs in even_fields() {
            for r in 1..=2 * pairs as u32 {
                let mut seen: Vec<Entry> = matches(pairs, r)
                    .into_iter()
                    .flat_map(|(a, b)| [a, b])
                    .collect();
                seen.sort_unstable();
                let all: Vec<Entry> = (0..pairs as Entry).collect();
                assert_eq!(seen, all, "{pairs} pairs, round {r}");
                assert_eq!(round(pairs, r).len(), pairs / 2);
            }
        }
    }

    #[test]
    fn no_two_pairs_meet_twice_in_rounds_one_to_p_minus_one() {
        for pairs in even_fields() {
            let mut met = HashSet::new();
            for r in 1..pairs as u32 {
                for (a, b) in matches(pairs, r) {
                    assert!(
                        met.insert((a.min(b), a.max(b))),
                        "{pairs} pairs: {a} and {b} meet again in round {r}"
                    );
                }
            }
            assert_eq!(met.len(), pairs * (pairs - 1) / 2, "everyone met everyone");
        }
    }

    #[test]
    fn rounds_after_p_minus_one_repeat_the_cycle() {
        for pairs in even_fields() {
            let cycle = pairs as u32 - 1;
            for r in 1..=cycle {
                let pairs_of = |r| {
                    matches(pairs, r)
                        .into_iter()
                        .map(|(a, b)| (a.min(b), a.max(b)))
                        .collect::<HashSet<_>>()
                };
                assert_eq!(pairs_of(r), pairs_of(r + cycle), "{pairs} pairs, round {r}");
            }
        }
    }

    #[test]
    fn the_pair_listed_first_sits_in_seats_zero_and_two() {
        for (table, (first, second)) in round(6, 3).iter().zip(matches(6, 3)) {
            assert_eq!(
                table.0[0],
                Place {
                    entry: first,
                    member: 0
                }
            );
            assert_eq!(
                table.0[2],
                Place {
                    entry: first,
                    member: 1
                }
            );
            assert_eq!(
                table.0[1],
                Place {
                    entry: second,
                    member: 0
                }
            );
            assert_eq!(
                table.0[3],
                Place {
                    entry: second,
                    member: 1
                }
            );
        }
    }

    #[test]
    fn two_pairs_play_round_one_with_pair_one_in_seats_zero_and_two() {
        assert_eq!(matches(2, 1), vec![(0, 1)]);
        assert_eq!(matches(2, 2), vec![(1, 0)]);
        assert_eq!(matches(4, 1), vec![(0, 3), (1, 2)]);
    }

    #[test]
    fn a_pair_changes_sides_every_round_but_at_most_once_in_a_cycle() {
        for pairs in even_fields() {
            let mut first: Vec<Vec<bool>> = vec![Vec::new(); pairs];
            for r in 1..pairs as u32 {
                for (a, b) in matches(pairs, r) {
                    first[usize::from(a)].push(true);
                    first[usize::from(b)].push(false);
                }
            }
            for (pair, sides) in first.iter().enumerate() {
                let breaks = sides.windows(2).filter(|w| w[0] == w[1]).count();
                assert!(breaks <= 1, "{pairs} pairs: pair {pair} sides {sides:?}");
                if pair == pairs - 1 {
                    assert_eq!(breaks, 0, "the staying pair alternates: {sides:?}");
                }
            }
        }
    }
}
