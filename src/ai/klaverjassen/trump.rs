//! The trump choice valued from the chooser's view alone (docs/solver.md,
//! "The trump choice"): deals are sampled consistently with what the seat
//! knows (its own eight cards; nothing is played yet), every sampled deal is
//! solved exactly for each trump, and each choice is worth the average
//! final score difference, the chooser's team minus the other, the units
//! of every other hint.
//!
//! Passing (`trump_choice: pass_round`) is valued by the same samples: each
//! seat after the passer names the suit worth most to its team in the
//! sampled deal, or passes when the rest of the round is worth more to it
//! (worked back from the end: when all four passed the voorhand names its
//! best suit). [`value_of_passing`] does that for one sampled deal from the
//! values of every trump for both teams.

use std::time::Instant;

use rand::Rng;

use crate::ai::solver::{Limits, Position, Solver, for_team};
use crate::rules::Seat;
use crate::rules::cards::Suit;
use crate::rules::klaverjassen::{BySeat, ByTeam, CardSet, Team, View};

use super::sampling::sample_deal;

/// The deal values of one sampled deal (team A minus team B) for each team
/// naming each trump, the voorhand leading. Only the teams asked for are
/// filled in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DealValues(pub(super) ByTeam<[i32; 4]>);

impl DealValues {
    /// The deal's value (team A minus team B) when `team` names `suit`.
    fn get(&self, team: Team, suit: Suit) -> i32 {
        self.0[team][suit_index(suit)]
    }

    /// The suit `team` names when it names one: the one worth most to it
    /// (the first in suit order on a tie), and the deal's value then.
    fn best_for(&self, team: Team) -> i32 {
        Suit::ALL
            .iter()
            .map(|suit| self.get(team, *suit))
            .max_by_key(|value| for_team(*value, team))
            .expect("four suits")
    }
}

fn suit_index(suit: Suit) -> usize {
    Suit::ALL
        .iter()
        .position(|s| *s == suit)
        .expect("a suit of the deck")
}

/// What passing is worth in one sampled deal (team A minus team B) when
/// `seats` are the seats still to decide after the pass, in order, and
/// `voorhand` must name trump if they all pass too: each names its team's
/// best suit unless passing on is worth more to its team (a tie names).
pub(super) fn value_of_passing(values: &DealValues, seats: &[Seat], voorhand: Seat) -> i32 {
    match seats.split_first() {
        None => values.best_for(Team::of(voorhand)),
        Some((seat, rest)) => {
            let team = Team::of(*seat);
            let naming = values.best_for(team);
            let passing = value_of_passing(values, rest, voorhand);
            if for_team(passing, team) > for_team(naming, team) {
                passing
            } else {
                naming
            }
        }
    }
}

/// The seats that decide after `seat` passes, in order, until every seat
/// has passed once (the voorhand decides first).
pub(super) fn seats_after(seat: Seat, voorhand: Seat) -> Vec<Seat> {
    let mut seats = Vec::new();
    let mut next = seat.next(4);
    while next != voorhand {
        seats.push(next);
        next = next.next(4);
    }
    seats
}

/// The position at the first lead of `hands` when `team` named `trump`:
/// the voorhand (the seat after the dealer) leads, whoever named trump.
fn first_lead(view: &View, hands: BySeat<CardSet>, trump: Suit, team: Team) -> Position {
    Position {
        hands,
        trump,
        playing_team: team,
        leader: view.dealer.next(4),
        trick: Vec::new(),
        card_points: ByTeam::default(),
        roem: ByTeam::default(),
        tricks_taken: ByTeam::default(),
        rules: view.house_rules,
    }
}

/// The trump choice of `seat` valued over sampled deals.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Valued {
    /// Each suit asked for, with its average value to `seat`'s team.
    pub(super) suits: Vec<(Suit, f64)>,
    /// The average value of passing to `seat`'s team, when asked for.
    pub(super) pass: Option<f64>,
    /// How many sampled deals were solved within the budget.
    pub(super) samples: u32,
}

/// How many threads solve the samples of one trump choice. Fixed, not the
/// machine's core count, so that the samples a node budget lets through,
/// and with them the values, are the same on every machine.
const WORKERS: usize = 2;

/// How much one trump choice may solve: the strong player's budget.
#[derive(Clone, Copy, Debug)]
pub(super) struct Thinking {
    /// Sampled deals, counted in deals of four solves.
    pub(super) samples: u32,
    /// Solver nodes, all threads together.
    pub(super) nodes: u64,
    /// No solving past this instant.
    pub(super) deadline: Option<Instant>,
}

/// Values naming each of `suits` (and passing, when `pass`) for `seat` from
/// its view. The sampled deals are drawn from `rng` first, then solved by
/// [`WORKERS`] threads together, deal after deal: each thread solves its
/// share of every deal's positions (every [`WORKERS`]th of them; `solver` is
/// the first thread's) with an equal share of the nodes (see
/// [`solve_share`]). A deal counts once every thread has solved its share of
/// it, so the first deal is in hand after a [`WORKERS`]th of its solves. A
/// deal valued for passing as well solves eight positions, so half as many
/// are drawn, with half as many nodes again; as many again are drawn in
/// reserve, for the deals a thread drops. `samples` is 0 when none fitted.
pub(super) fn value_choices<R: Rng + ?Sized>(
    solver: &mut Solver,
    seat: Seat,
    view: &View,
    suits: &[Suit],
    pass: bool,
    thinking: Thinking,
    rng: &mut R,
) -> Valued {
    let team = Team::of(seat);
    let voorhand = view.dealer.next(4);
    // Passing needs every trump for both teams; naming, one team's suits.
    let wanted: Vec<(Team, Suit)> = if pass {
        [team, team.other()]
            .iter()
            .flat_map(|t| Suit::ALL.iter().map(move |s| (*t, *s)))
            .collect()
    } else {
        suits.iter().map(|suit| (team, *suit)).collect()
    };
    let solves = u32::try_from(wanted.len().max(1)).expect("at most eight");
    let count = (thinking.samples.max(1) * 4).div_ceil(solves);
    let deals: Vec<BySeat<CardSet>> = (0..2 * count)
        .map(|_| sample_deal(seat, view, &[], None, rng))
        .collect();
    let wanted_deals = usize::try_from(count).expect("a few deals");
    // Valued for passing a deal is twice the solves, all or nothing, so a
    // hand whose deals are all hard would fit none in the nodes of naming:
    // passing gets half as many again.
    let nodes = if pass {
        thinking.nodes.saturating_add(thinking.nodes / 2)
    } else {
        thinking.nodes
    };
    let share = Limits {
        nodes: nodes / WORKERS as u64,
        deadline: thinking.deadline,
    };
    let parts: Vec<Vec<(Team, Suit)>> = (0..WORKERS)
        .map(|first| {
            wanted
                .iter()
                .copied()
                .skip(first)
                .step_by(WORKERS)
                .collect()
        })
        .collect();
    let solve = |solver: &mut Solver, part: &[(Team, Suit)]| {
        solve_share(solver, view, &deals, part, share, wanted_deals)
    };
    let solved: Vec<Vec<Option<Vec<i32>>>> = std::thread::scope(|scope| {
        let others: Vec<_> = parts[1..]
            .iter()
            .map(|part| scope.spawn(move || solve(&mut Solver::new(), part)))
            .collect();
        let mut solved = vec![solve(solver, &parts[0])];
        for other in others {
            solved.push(other.join().expect("a trump worker does not panic"));
        }
        solved
    });
    // The deals every thread solved its share of, the first `count`.
    let complete = solved.iter().map(Vec::len).min().unwrap_or(0);
    let solved: Vec<DealValues> = (0..complete)
        .filter_map(|deal| {
            let mut values = DealValues::default();
            for (part, values_of_part) in parts.iter().zip(&solved) {
                for ((naming, suit), value) in part.iter().zip(values_of_part[deal].as_ref()?) {
                    values.0[*naming][suit_index(*suit)] = *value;
                }
            }
            Some(values)
        })
        .take(wanted_deals)
        .collect();
    let samples = u32::try_from(solved.len()).expect("few samples");
    let later = seats_after(seat, voorhand);
    let mean = |value: &dyn Fn(&DealValues) -> i32| {
        let sum: f64 = solved
            .iter()
            .map(|v| f64::from(for_team(value(v), team)))
            .sum();
        sum / f64::from(samples.max(1))
    };
    Valued {
        suits: suits
            .iter()
            .map(|suit| (*suit, mean(&|v| v.get(team, *suit))))
            .collect(),
        pass: pass.then(|| mean(&|v| value_of_passing(v, &later, voorhand))),
        samples,
    }
}

/// One thread's share of a trump choice: the positions of `part` (a team
/// naming a trump) of each deal in turn, their values in `part`'s order,
/// until `wanted` deals are solved or `share` (its nodes and the decision's
/// deadline) runs out. A deal whose positions would take more than half the
/// thread's nodes is dropped (`None`) and the thread goes on with the next:
/// the cost of a deal varies more than tenfold, and one hard deal drawn first
/// would otherwise leave no nodes for the easy ones after it.
fn solve_share(
    solver: &mut Solver,
    view: &View,
    deals: &[BySeat<CardSet>],
    part: &[(Team, Suit)],
    share: Limits,
    wanted: usize,
) -> Vec<Option<Vec<i32>>> {
    let at_start = solver.nodes();
    let per_deal = share.nodes / 2;
    let mut solved = Vec::new();
    for hands in deals {
        if solved.iter().flatten().count() == wanted {
            break;
        }
        let left = share.nodes.saturating_sub(solver.nodes() - at_start);
        let deal_start = solver.nodes();
        // The first position cut short drops the deal.
        let values: Option<Vec<i32>> = part
            .iter()
            .map(|(naming, suit)| {
                let limits = Limits {
                    nodes: left
                        .min(per_deal)
                        .saturating_sub(solver.nodes() - deal_start),
                    ..share
                };
                solver.value_within(&first_lead(view, *hands, *suit, *naming), limits)
            })
            .collect();
        let out_of_time = share
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        if values.is_none() && (out_of_time || solver.nodes() - at_start >= share.nodes) {
            break;
        }
        solved.push(values);
    }
    solved
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values where team A gains `a[s]` naming suit s and team B gains
    /// `b[s]` (each in its own terms).
    fn values(a: [i32; 4], b: [i32; 4]) -> DealValues {
        DealValues(ByTeam::new(a, b.map(|v| -v)))
    }

    /// The view of the first seat to decide at a fresh table's trump
    /// choice, and deals sampled for it.
    fn chooser_and_deals(count: usize) -> (View, Vec<BySeat<CardSet>>) {
        use crate::rules::klaverjassen::{Match, Options};
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let options = Options {
            auto_deal: true,
            deals: 1,
            ..Options::default()
        };
        let game = Match::new(options, &mut rng);
        let seat = game.first_hand();
        let view = game.view_for(Some(seat));
        let deals = (0..count)
            .map(|_| sample_deal(seat, &view, &[], None, &mut rng))
            .collect();
        (view, deals)
    }

    #[test]
    fn a_deal_too_hard_for_half_a_threads_nodes_is_dropped_and_the_next_solved() {
        let (view, deals) = chooser_and_deals(12);
        let part = [(Team::A, Suit::Hearts)];
        let position = |hands| first_lead(&view, hands, Suit::Hearts, Team::A);
        // Each deal's cost in nodes, by a fresh solver, and its value.
        let solved: Vec<(u64, i32)> = deals
            .iter()
            .map(|hands| {
                let mut solver = Solver::new();
                let value = solver.value(&position(*hands));
                (solver.nodes(), value)
            })
            .collect();
        let hard = (0..deals.len()).max_by_key(|i| solved[*i].0).unwrap();
        let easy = (0..deals.len()).min_by_key(|i| solved[*i].0).unwrap();
        let (hard_cost, easy_cost) = (solved[hard].0, solved[easy].0);
        assert!(hard_cost >= 6 * easy_cost, "{solved:?}");
        // Half the thread's nodes is half the hard deal's cost: it is
        // dropped, and the other half solves the easy deal after it.
        let share = Limits {
            nodes: hard_cost,
            deadline: None,
        };
        let got = solve_share(
            &mut Solver::new(),
            &view,
            &[deals[hard], deals[easy]],
            &part,
            share,
            1,
        );
        assert_eq!(got, vec![None, Some(vec![solved[easy].1])]);
        // A thread stops once it has the deals wanted.
        let got = solve_share(
            &mut Solver::new(),
            &view,
            &[deals[easy], deals[hard]],
            &part,
            share,
            1,
        );
        assert_eq!(got, vec![Some(vec![solved[easy].1])]);
    }

    #[test]
    fn the_seats_after_a_pass_run_up_to_the_voorhand() {
        assert_eq!(
            seats_after(Seat(0), Seat(0)),
            vec![Seat(1), Seat(2), Seat(3)]
        );
        assert_eq!(seats_after(Seat(2), Seat(1)), vec![Seat(3), Seat(0)]);
        assert_eq!(seats_after(Seat(0), Seat(1)), Vec::<Seat>::new());
    }

    #[test]
    fn when_all_pass_the_voorhand_names_its_best_suit() {
        // The last seat passes on when the voorhand's forced choice is worth
        // more to its team than naming: here team A's best suit is worth
        // -50 to it, while naming makes team B lose 30.
        let deal = values([-50, -80, -90, -60], [-30, -40, -70, -100]);
        // Seat 3 (team B) is the last before the voorhand seat 0 (team A).
        assert_eq!(value_of_passing(&deal, &[Seat(3)], Seat(0)), -50);
        assert_eq!(value_of_passing(&deal, &[], Seat(0)), -50);
    }

    #[test]
    fn a_later_seat_names_its_best_suit_when_passing_on_is_worth_less() {
        // Team B names clubs (worth 70 to it) rather than leave team A a
        // suit worth 40 to team A.
        let deal = values([40, 10, 0, -20], [70, 20, -10, 5]);
        assert_eq!(value_of_passing(&deal, &[Seat(1)], Seat(0)), -70);
        // With seat 2 (team A) between: seat 2 would name (40 to A) over
        // passing on to seat 3 (team B naming: -70 to A), so seat 1 sees
        // passing worth -40 to B, naming +70: it names.
        assert_eq!(
            value_of_passing(&deal, &[Seat(1), Seat(2), Seat(3)], Seat(0)),
            -70
        );
    }

    #[test]
    fn a_later_seat_passes_when_the_rest_of_the_round_is_worth_more_to_it() {
        // Team B's best suit is worth -20 to it; if it passes, team A must
        // name and its best is worth -60 to team A, i.e. +60 to team B.
        let deal = values([-60, -70, -80, -90], [-20, -30, -40, -50]);
        assert_eq!(value_of_passing(&deal, &[Seat(3)], Seat(0)), -60);
    }
}
