//! The standings of a club evening from its tables' score sheets (RULES.md
//! section 4): without duplicate, the sum of each entry's team totals; with
//! duplicate (*portefeuille*), matchpoints board by board within each
//! direction, and the percentage of the most an entry could have had.
//! Equal results share a rank (1, 2, 2, 4).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::{Entry, TableSeats};

/// One table's score sheet as the standings read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSheet {
    /// The round, from 1.
    pub round: u32,
    /// Who sits where.
    pub seats: TableSeats,
    /// Every finished deal's score, team A (seats 0 and 2) then team B,
    /// deal 1 first: the deal's row of the score sheet.
    pub deals: Vec<[i32; 2]>,
    /// The match totals, team A then team B (nat, pit and revoke
    /// punishments included), once the table has finished; `None` before.
    pub totals: Option<[i32; 2]>,
}

/// How an evening is ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// By the sum of team totals.
    Totals,
    /// By matchpoints over the boards (`deals` per round), as a percentage.
    Duplicate {
        /// Deals (boards) per round.
        deals: usize,
    },
}

/// One entry's result in one round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundResult {
    /// The round, from 1.
    pub round: u32,
    /// The table of the round, from 1.
    pub table: u32,
    /// The team's match total, once the table has finished.
    pub score: Option<i32>,
    /// Duplicate: matchpoints on the round's complete boards.
    pub matchpoints: Option<u32>,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// 1 for the best; equal results share a rank.
    pub rank: u32,
    /// The entry.
    pub entry: Entry,
    /// The sum of the entry's team totals over its finished tables.
    pub score: i64,
    /// Duplicate: matchpoints over every complete board.
    pub matchpoints: Option<u32>,
    /// Duplicate: the most matchpoints the entry could have had on those boards.
    pub max_matchpoints: Option<u32>,
    /// Duplicate: `matchpoints / max_matchpoints` in percent, to two
    /// decimals (half up); `None` while no board is complete.
    pub percent: Option<f64>,
    /// The entry's rounds, round 1 first.
    pub rounds: Vec<RoundResult>,
}

/// Per entry: matchpoints and their maximum, by round.
type Points = BTreeMap<(Entry, u32), (u32, u32)>;

/// The standings of `entries` entries from `sheets` (every table of every
/// round begun), best first; equal results in entry order.
pub fn standings(entries: usize, scoring: Scoring, sheets: &[TableSheet]) -> Vec<Standing> {
    let points = match scoring {
        Scoring::Totals => None,
        Scoring::Duplicate { deals } => Some(matchpoints(deals, sheets)),
    };
    let mut lines: Vec<Standing> = (0..entries as Entry)
        .map(|entry| line(entry, sheets, points.as_ref()))
        .collect();
    let better = |x: &Standing, y: &Standing| match scoring {
        Scoring::Totals => y.score.cmp(&x.score),
        // mp_x / max_x against mp_y / max_y, exactly; nothing complete is 0.
        Scoring::Duplicate { .. } => {
            let ratio = |s: &Standing| {
                let max = s.max_matchpoints.unwrap_or(0);
                (u64::from(s.matchpoints.unwrap_or(0)), u64::from(max.max(1)))
            };
            let ((mx, dx), (my, dy)) = (ratio(x), ratio(y));
            (my * dx).cmp(&(mx * dy))
        }
    };
    lines.sort_by(|x, y| better(x, y).then(x.entry.cmp(&y.entry)));
    for i in 0..lines.len() {
        let shared = i > 0 && better(&lines[i - 1], &lines[i]) == Ordering::Equal;
        let rank = if shared {
            lines[i - 1].rank
        } else {
            i as u32 + 1
        };
        lines[i].rank = rank;
    }
    lines
}

fn line(entry: Entry, sheets: &[TableSheet], points: Option<&Points>) -> Standing {
    let mut rounds = Vec::new();
    let mut round_tables: BTreeMap<u32, u32> = BTreeMap::new();
    for sheet in sheets {
        let table = round_tables.entry(sheet.round).or_insert(0);
        *table += 1;
        if !sheet.seats.has(entry) {
            continue;
        }
        let team_a = sheet.seats.team(true).contains(&entry);
        let side = usize::from(!team_a);
        rounds.push(RoundResult {
            round: sheet.round,
            table: *table,
            score: sheet.totals.map(|t| t[side]),
            matchpoints: points.map(|p| p.get(&(entry, sheet.round)).map_or(0, |m| m.0)),
        });
    }
    rounds.sort_by_key(|r| r.round);
    let score = rounds.iter().filter_map(|r| r.score).map(i64::from).sum();
    let (matchpoints, max_matchpoints, percent) = match points {
        None => (None, None, None),
        Some(points) => {
            let (mp, max) = points
                .range((entry, 0)..=(entry, u32::MAX))
                .fold((0, 0), |(m, x), (_, (pm, px))| (m + pm, x + px));
            (Some(mp), Some(max), percent(mp, max))
        }
    };
    Standing {
        rank: 0,
        entry,
        score,
        matchpoints,
        max_matchpoints,
        percent,
        rounds,
    }
}

/// `mp / max` in percent, to two decimals, half up.
fn percent(mp: u32, max: u32) -> Option<f64> {
    (max > 0).then(|| {
        let hundredths = (u64::from(mp) * 20_000 + u64::from(max)) / (2 * u64::from(max));
        hundredths as f64 / 100.0
    })
}

/// Matchpoints of every entry in every round, with their maximum, over the
/// complete boards: a board (round, deal) is complete once every table of
/// the round has finished that deal. On a board each team is compared with
/// the teams in the same seats at every other table: 2 for each it
/// outscored, 1 for each tie.
fn matchpoints(deals: usize, sheets: &[TableSheet]) -> Points {
    let mut by_round: BTreeMap<u32, Vec<&TableSheet>> = BTreeMap::new();
    for sheet in sheets {
        by_round.entry(sheet.round).or_default().push(sheet);
    }
    let mut points = Points::new();
    for (round, tables) in by_round {
        let complete = tables.iter().map(|t| t.deals.len()).min().unwrap_or(0);
        for deal in 0..complete.min(deals) {
            for side in 0..2 {
                for table in &tables {
                    let own = table.deals[deal][side];
                    let mp: u32 = tables
                        .iter()
                        .filter(|other| !std::ptr::eq(**other, *table))
                        .map(|other| match own.cmp(&other.deals[deal][side]) {
                            Ordering::Greater => 2,
                            Ordering::Equal => 1,
                            Ordering::Less => 0,
                        })
                        .sum();
                    let max = 2 * (tables.len() as u32 - 1);
                    for entry in table.seats.team(side == 0) {
                        let slot = points.entry((entry, round)).or_default();
                        slot.0 += mp;
                        slot.1 += max;
                    }
                }
            }
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::super::{Place, pairs};
    use super::*;

    fn sheet(
        seats: TableSeats,
        round: u32,
        deals: &[[i32; 2]],
        totals: Option<[i32; 2]>,
    ) -> TableSheet {
        TableSheet {
            round,
            seats,
            deals: deals.to_vec(),
            totals,
        }
    }

    fn pairs_sheet(pairs_: usize, round: u32, table: usize, deals: &[[i32; 2]]) -> TableSheet {
        let totals = deals.iter().fold([0, 0], |t, d| [t[0] + d[0], t[1] + d[1]]);
        sheet(
            pairs::round(pairs_, round)[table],
            round,
            deals,
            Some(totals),
        )
    }

    fn ranks(lines: &[Standing]) -> Vec<(Entry, u32)> {
        lines.iter().map(|l| (l.entry, l.rank)).collect()
    }

    fn scores(lines: &[Standing]) -> Vec<(Entry, i64)> {
        lines.iter().map(|l| (l.entry, l.score)).collect()
    }

    #[test]
    fn an_entrys_score_is_the_sum_of_its_team_totals_over_its_rounds() {
        assert_eq!(pairs::matches(4, 1), vec![(0, 3), (1, 2)]);
        assert_eq!(pairs::matches(4, 2), vec![(3, 1), (2, 0)]);
        let sheets = [
            sheet(pairs::round(4, 1)[0], 1, &[], Some([1200, 800])),
            sheet(pairs::round(4, 1)[1], 1, &[], Some([1500, 0])),
            sheet(pairs::round(4, 2)[0], 2, &[], Some([900, 1100])),
            sheet(pairs::round(4, 2)[1], 2, &[], Some([700, 1300])),
        ];
        let lines = standings(4, Scoring::Totals, &sheets);
        // Pair 1: 1500 + 1100; pair 0: 1200 + 1300; pair 3: 800 + 900; pair 2: 0 + 700.
        assert_eq!(
            scores(&lines),
            vec![(1, 2600), (0, 2500), (3, 1700), (2, 700)]
        );
        assert_eq!(ranks(&lines), vec![(1, 1), (0, 2), (3, 3), (2, 4)]);
        assert_eq!(
            lines[1].rounds,
            vec![
                RoundResult {
                    round: 1,
                    table: 1,
                    score: Some(1200),
                    matchpoints: None
                },
                RoundResult {
                    round: 2,
                    table: 2,
                    score: Some(1300),
                    matchpoints: None
                },
            ]
        );
        assert_eq!((lines[0].matchpoints, lines[0].percent), (None, None));
    }

    #[test]
    fn equal_scores_share_a_rank_and_the_next_rank_is_skipped() {
        let sheets = [
            sheet(pairs::round(4, 1)[0], 1, &[], Some([1000, 1000])),
            sheet(pairs::round(4, 1)[1], 1, &[], Some([1000, 400])),
        ];
        let lines = standings(4, Scoring::Totals, &sheets);
        assert_eq!(ranks(&lines), vec![(0, 1), (1, 1), (3, 1), (2, 4)]);
    }

    #[test]
    fn a_table_still_playing_adds_nothing_to_the_scores() {
        let sheets = [
            sheet(pairs::round(4, 1)[0], 1, &[[100, 62]], None),
            sheet(pairs::round(4, 1)[1], 1, &[], Some([300, 200])),
        ];
        let lines = standings(4, Scoring::Totals, &sheets);
        assert_eq!(scores(&lines), vec![(1, 300), (2, 200), (0, 0), (3, 0)]);
        assert_eq!(lines[2].rounds[0].score, None);
        assert_eq!(ranks(&lines), vec![(1, 1), (2, 2), (0, 3), (3, 3)]);
    }

    #[test]
    fn a_player_of_an_individual_evening_scores_the_total_of_the_team_it_sat_in() {
        let table = |first: Entry| {
            TableSeats(std::array::from_fn(|i| Place {
                entry: first + i as Entry,
                member: 0,
            }))
        };
        let sheets = [
            sheet(table(0), 1, &[], Some([500, 300])),
            sheet(table(4), 1, &[], Some([200, 400])),
        ];
        let lines = standings(8, Scoring::Totals, &sheets);
        assert_eq!(
            scores(&lines),
            vec![
                (0, 500),
                (2, 500),
                (5, 400),
                (7, 400),
                (1, 300),
                (3, 300),
                (4, 200),
                (6, 200)
            ]
        );
        assert_eq!(
            ranks(&lines),
            vec![
                (0, 1),
                (2, 1),
                (5, 3),
                (7, 3),
                (1, 5),
                (3, 5),
                (4, 7),
                (6, 7)
            ]
        );
    }

    /// Six pairs, round 1: table 1 pair 0 (seats 0 and 2) v pair 5, table 2
    /// pair 1 v pair 4, table 3 pair 3 v pair 2; two boards.
    fn six_pair_round() -> Vec<TableSheet> {
        assert_eq!(pairs::matches(6, 1), vec![(0, 5), (1, 4), (3, 2)]);
        vec![
            pairs_sheet(6, 1, 0, &[[100, 62], [0, 182]]),
            pairs_sheet(6, 1, 1, &[[100, 62], [81, 81]]),
            pairs_sheet(6, 1, 2, &[[62, 100], [162, 0]]),
        ]
    }

    #[test]
    fn matchpoints_compare_each_team_with_the_same_seats_at_the_other_tables() {
        let lines = standings(6, Scoring::Duplicate { deals: 2 }, &six_pair_round());
        let mp = |entry: Entry| {
            let line = lines.iter().find(|l| l.entry == entry).unwrap();
            (line.matchpoints.unwrap(), line.max_matchpoints.unwrap())
        };
        // Board 1, seats 0 and 2: 100, 100, 62 -> 1 + 2, 1 + 2, 0.
        // Board 1, seats 1 and 3: 62, 62, 100 -> 1, 1, 4 (a tie is 1 each way).
        // Board 2, seats 0 and 2: 0, 81, 162 -> 0, 2, 4.
        // Board 2, seats 1 and 3: 182, 81, 0 -> 4, 2, 0.
        assert_eq!(mp(0), (3, 8));
        assert_eq!(mp(1), (5, 8));
        assert_eq!(mp(3), (4, 8));
        assert_eq!(mp(5), (5, 8));
        assert_eq!(mp(4), (3, 8));
        assert_eq!(mp(2), (4, 8));
        assert_eq!(lines[0].rounds[0].matchpoints, Some(5));
    }

    #[test]
    fn a_duplicate_evening_is_ranked_by_percentage_and_equal_percentages_share_a_rank() {
        let lines = standings(6, Scoring::Duplicate { deals: 2 }, &six_pair_round());
        assert_eq!(
            ranks(&lines),
            vec![(1, 1), (5, 1), (2, 3), (3, 3), (0, 5), (4, 5)]
        );
        let percents: Vec<Option<f64>> = lines.iter().map(|l| l.percent).collect();
        let want = [62.5, 62.5, 50.0, 50.0, 37.5, 37.5].map(Some);
        assert_eq!(percents, want);
        // The totals are still added up: pair 5 had 62 + 182.
        assert_eq!(lines[1].score, 244);
    }

    #[test]
    fn a_board_counts_only_once_every_table_of_the_round_has_finished_it() {
        let mut sheets = six_pair_round();
        sheets[2].deals.truncate(1);
        sheets[2].totals = None;
        let lines = standings(6, Scoring::Duplicate { deals: 2 }, &sheets);
        let line = lines.iter().find(|l| l.entry == 0).unwrap();
        assert_eq!(
            (line.matchpoints, line.max_matchpoints, line.percent),
            (Some(3), Some(4), Some(75.0))
        );
        sheets[2].deals.clear();
        let lines = standings(6, Scoring::Duplicate { deals: 2 }, &sheets);
        assert!(
            lines
                .iter()
                .all(|l| (l.matchpoints, l.percent, l.rank) == (Some(0), None, 1))
        );
    }

    #[test]
    fn a_percentage_is_rounded_half_up_to_two_decimals() {
        assert_eq!(percent(1, 3), Some(33.33));
        assert_eq!(percent(2, 3), Some(66.67));
        assert_eq!(percent(1, 8), Some(12.5));
        assert_eq!(percent(1, 16_000), Some(0.01), "0.00625 rounds up");
        assert_eq!(percent(0, 0), None);
    }
}
