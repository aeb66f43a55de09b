//! The exact solver on whole deals, and the strong player's decisions, on
//! one core.
//!
//! Run: `cargo bench --bench solver`. First prints the distribution of the
//! time to solve a whole deal from the first lead (every card's value) over
//! 1,000 random deals and trumps (median, 99th percentile, maximum, nodes per
//! second), then the strong player's decision time at its default budget
//! over 10,000 random positions (`STRONG_POSITIONS=N` for another count;
//! `SOLVER_DEALS=N` for the deal count; `SOLVER_ROWS=value` or `=every` for
//! one row only; `SOLVER_RELATIVE=0` turns the rest-of-deal search off),
//! then criterion's figures.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group};
use kaarttafel::ai::klaverjassen::strong::{Budget, decide};
use kaarttafel::ai::solver::{Position, Solver, Techniques};
use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::Suit;
use kaarttafel::rules::klaverjassen::{Match, Move, Options};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A random deal and trump at the first lead.
fn first_lead(rng: &mut StdRng) -> Position {
    let options = Options {
        first_dealer: Seat(rng.random_range(0..4)),
        auto_deal: true,
        deals: 1,
        ..Options::default()
    };
    let mut game = Match::new(options, rng);
    let suit = Suit::ALL[rng.random_range(0..4)];
    game.play(game.first_hand(), Move::ChooseTrump { suit }, rng)
        .expect("the first hand names trump");
    Position::of_match(&game).expect("play has begun")
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn distribution() {
    let deals = std::env::var("SOLVER_DEALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000);
    if deals == 0 {
        return;
    }
    let mut rng = StdRng::seed_from_u64(2026);
    // SOLVER_RELATIVE=0: without the rest-of-deal search, for comparison.
    let relative = std::env::var("SOLVER_RELATIVE").as_deref() != Ok("0");
    let mut solver = Solver::with_techniques(Techniques {
        relative,
        ..Techniques::default()
    });
    // SOLVER_ROWS=value or =every: one row only (for CPU time per row).
    let rows = std::env::var("SOLVER_ROWS").unwrap_or_default();
    for (label, every_card) in [("value", false), ("every card", true)] {
        if (rows == "value" && every_card) || (rows == "every" && !every_card) {
            // The same deals for the other row as in a run of both.
            for _ in 0..deals {
                first_lead(&mut rng);
            }
            continue;
        }
        let mut times = Vec::with_capacity(deals);
        // Nodes per deal: exact, so their distribution compares two
        // versions on a loaded machine, where the times do not.
        let mut deal_nodes = Vec::with_capacity(deals);
        // Every value found, folded into one number: two versions of the
        // solver must print the same checksum (values never change).
        let mut checksum = 0u64;
        let mut fold = |value: i32| checksum = checksum.wrapping_mul(31).wrapping_add(value as u64);
        let nodes_before = solver.nodes();
        let started = Instant::now();
        for _ in 0..deals {
            let position = first_lead(&mut rng);
            let nodes_at = solver.nodes();
            let start = Instant::now();
            if every_card {
                let solution = black_box(solver.solve(&position));
                times.push(start.elapsed().as_secs_f64() * 1e3);
                fold(solution.value);
                solution.cards.iter().for_each(|(_, value)| fold(*value));
            } else {
                let value = black_box(solver.value(&position));
                times.push(start.elapsed().as_secs_f64() * 1e3);
                fold(value);
            }
            deal_nodes.push((solver.nodes() - nodes_at) as f64);
        }
        let total = started.elapsed().as_secs_f64();
        times.sort_by(f64::total_cmp);
        deal_nodes.sort_by(f64::total_cmp);
        let nodes = solver.nodes() - nodes_before;
        println!(
            "solver, whole deal from the first lead ({label}), {deals} deals: median {:.3} ms, p99 {:.3} ms, max {:.3} ms, {:.1} M nodes/s, {:.0} nodes per deal, values checksum {checksum:016x}",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times[times.len() - 1],
            nodes as f64 / total / 1e6,
            nodes as f64 / deals as f64,
        );
        println!(
            "solver ({label}), nodes per deal: median {:.0}, p99 {:.0}, max {:.0}",
            percentile(&deal_nodes, 0.5),
            percentile(&deal_nodes, 0.99),
            deal_nodes[deal_nodes.len() - 1],
        );
    }
}

/// A random position of a random deal where some seat decides: naming trump
/// or any card of the deal, reached by random legal play.
fn random_decision(rng: &mut StdRng) -> (Match, Seat) {
    let options = Options {
        first_dealer: Seat(rng.random_range(0..4)),
        auto_deal: true,
        deals: 1,
        ..Options::default()
    };
    let mut game = Match::new(options, rng);
    let stop = rng.random_range(0..33);
    if stop == 0 {
        let seat = game.first_hand();
        return (game, seat);
    }
    let suit = Suit::ALL[rng.random_range(0..4)];
    game.play(game.first_hand(), Move::ChooseTrump { suit }, rng)
        .expect("the first hand names trump");
    for _ in 1..stop {
        let seat = game.to_play().expect("in play");
        let legal = game.legal_cards(seat);
        let card = legal.nth(rng.random_range(0..legal.len())).expect("a card");
        game.play(seat, Move::Play { card }, rng).expect("legal");
    }
    let seat = game.to_play().expect("in play");
    (game, seat)
}

/// The strong player at its default budget on random positions: the
/// slowest decision and decisions per second.
fn strong_decisions() {
    let positions = std::env::var("STRONG_POSITIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    if positions == 0 {
        return;
    }
    let mut rng = StdRng::seed_from_u64(99);
    let mut times = Vec::with_capacity(positions);
    let mut slowest = (0.0, String::new());
    let started = Instant::now();
    for _ in 0..positions {
        let (game, seat) = random_decision(&mut rng);
        let view = game.view_for(Some(seat));
        let legal = game.legal_moves(seat);
        let start = Instant::now();
        black_box(decide(seat, &view, &legal, Budget::default(), &mut rng));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if ms > slowest.0 {
            slowest = (
                ms,
                format!(
                    "{:?} trick {:?}",
                    view.phase,
                    view.trick.map(|t| (t.number, t.cards.len()))
                ),
            );
        }
        times.push(ms);
    }
    let total = started.elapsed().as_secs_f64();
    times.sort_by(f64::total_cmp);
    let over = times.iter().filter(|ms| **ms > 250.0).count();
    println!(
        "strong player, default budget, {positions} random positions: median {:.2} ms, p99 {:.2} ms, max {:.2} ms ({}), {over} over 250 ms, {:.1} decisions/s",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        slowest.0,
        slowest.1,
        positions as f64 / total,
    );
}

fn solve_first_lead(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let positions: Vec<Position> = (0..64).map(|_| first_lead(&mut rng)).collect();
    let mut solver = Solver::new();
    let mut next = 0;
    c.bench_function("solver/whole_deal_every_card", |b| {
        b.iter(|| {
            next = (next + 1) % positions.len();
            black_box(solver.solve(&positions[next]))
        })
    });
}

criterion_group!(benches, solve_first_lead);

fn main() {
    distribution();
    strong_decisions();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
