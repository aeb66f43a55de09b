//! The individual schedule (*individueel*): partners and tables drawn from
//! the event's committed seed, so that nobody partners anyone twice while
//! that is possible.
//!
//! The draw (docs/events.md, "Individual schedule", repeats it step by step):
//! 1. The players, in entry order, are shuffled by Fisher–Yates on the
//!    event's draw stream ([`crate::rules::fairness::shuffle`]): the
//!    shuffled list gives each player a place `0..N`.
//! 2. Round `r` pairs the places as round `(r - 1) mod (N - 1)` of the
//!    circle method over `N` places (place `N - 1` stays): the circle's
//!    `N - 1` rounds pair every two places exactly once, so in rounds
//!    `1..=N-1` nobody partners anyone twice, and every later round repeats
//!    the fewest partnerships that any schedule must repeat.
//! 3. For each round in turn, the round's `N / 2` partnerships, in circle
//!    order (the staying place's first, then `k = 1, 2, ...`), are shuffled
//!    on the same stream; tables take them two by two: the first of the two
//!    in seats 0 and 2, the second in 1 and 3; in each partnership the
//!    player with the lower circle position `a` before `b` (seat 0 or 1).

use crate::rules::fairness::{Stream, shuffle};

use super::{Entry, Place, Round, TableSeats, circle_round};

/// Every round of an individual evening of `players` players (a multiple
/// of 4, at least 4) and `rounds` rounds, drawn from `stream`.
pub fn draw(players: usize, rounds: u32, stream: &mut Stream) -> Vec<Round> {
    assert!(
        players >= 4 && players.is_multiple_of(4),
        "{players} players"
    );
    let mut order: Vec<Entry> = (0..players as Entry).collect();
    shuffle(stream, &mut order);
    (0..rounds as usize)
        .map(|ri| {
            let mut partnerships: Vec<(Entry, Entry)> = circle_round(players, ri)
                .into_iter()
                .map(|(a, b, _)| (order[a], order[b]))
                .collect();
            shuffle(stream, &mut partnerships);
            partnerships
                .chunks_exact(2)
                .map(|two| {
                    let place = |entry| Place { entry, member: 0 };
                    let ((n, s), (e, w)) = (two[0], two[1]);
                    TableSeats([place(n), place(e), place(s), place(w)])
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::rules::fairness::{Seed, sha256};

    fn stream(seed: &Seed) -> Stream {
        Stream::new(seed, b"individual draw test".to_vec())
    }

    fn partnerships(rounds: &[Round]) -> HashMap<(Entry, Entry), usize> {
        let mut count = HashMap::new();
        for round in rounds {
            for table in round {
                for (x, y) in [(0, 2), (1, 3)] {
                    let (a, b) = (table.0[x].entry, table.0[y].entry);
                    *count.entry((a.min(b), a.max(b))).or_default() += 1;
                }
            }
        }
        count
    }

    #[test]
    fn every_player_plays_once_in_every_round_at_a_table_of_four() {
        for players in (4..=40).step_by(4) {
            let rounds = draw(players, 20, &mut stream(&[players as u8; 32]));
            assert_eq!(rounds.len(), 20);
            for (r, round) in rounds.iter().enumerate() {
                assert_eq!(round.len(), players / 4);
                let mut seen: Vec<Entry> = round
                    .iter()
                    .flat_map(|t| t.0.iter().map(|p| p.entry))
                    .collect();
                seen.sort_unstable();
                let all: Vec<Entry> = (0..players as Entry).collect();
                assert_eq!(seen, all, "{players} players, round {}", r + 1);
            }
        }
    }

    #[test]
    fn nobody_partners_anyone_twice_while_that_is_possible() {
        // Any schedule of R rounds forms R * N / 2 partnerships among at most
        // N (N - 1) / 2 different two-somes: at least
        // R * N / 2 - min(R, N - 1) * N / 2 of them repeat one. The draw
        // repeats exactly that many, for every field and number of rounds.
        for players in (4..=40).step_by(4) {
            for seed in 0..3u8 {
                let all = draw(players, 20, &mut stream(&sha256(&[seed, players as u8])));
                for rounds in 1..=20 {
                    let count = partnerships(&all[..rounds]);
                    let formed = rounds * players / 2;
                    let repeats: usize = count.values().map(|c| c - 1).sum();
                    let fewest = formed - rounds.min(players - 1) * players / 2;
                    assert_eq!(repeats, fewest, "{players} players, {rounds} rounds");
                }
            }
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_evening_and_another_seed_another() {
        let seed = sha256(b"club evening");
        assert_eq!(
            draw(16, 5, &mut stream(&seed)),
            draw(16, 5, &mut stream(&seed))
        );
        assert_ne!(
            draw(16, 5, &mut stream(&seed)),
            draw(16, 5, &mut stream(&sha256(&seed)))
        );
    }

    #[test]
    fn the_draw_of_a_round_does_not_depend_on_how_many_rounds_follow() {
        let seed = sha256(b"rounds");
        let five = draw(12, 5, &mut stream(&seed));
        assert_eq!(draw(12, 3, &mut stream(&seed))[..], five[..3]);
    }
}
