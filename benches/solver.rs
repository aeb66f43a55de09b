//! The exact solver on whole deals, and the strong player's decisions, on
//! one core.
//!
//! Run: `cargo bench --bench solver`. First prints the distribution of the
//! time to solve a whole deal from the first lead (every card's value) over
//! 1,000 random deals and trumps (median, 99th percentile, maximum, nodes per
//! second), then criterion's figures.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group};
use kaarttafel::games::Seat;
use kaarttafel::games::cards::Suit;
use kaarttafel::games::klaverjassen::{Match, Move, Options, Position, Solver};
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
    let mut rng = StdRng::seed_from_u64(2026);
    let mut solver = Solver::new();
    for (label, every_card) in [("value", false), ("every card", true)] {
        let mut times = Vec::with_capacity(deals);
        let nodes_before = solver.nodes();
        let started = Instant::now();
        for _ in 0..deals {
            let position = first_lead(&mut rng);
            let start = Instant::now();
            if every_card {
                black_box(solver.solve(&position));
            } else {
                black_box(solver.value(&position));
            }
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let total = started.elapsed().as_secs_f64();
        times.sort_by(f64::total_cmp);
        let nodes = solver.nodes() - nodes_before;
        println!(
            "solver, whole deal from the first lead ({label}), {deals} deals: median {:.3} ms, p99 {:.3} ms, max {:.3} ms, {:.1} M nodes/s, {:.0} nodes per deal",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times[times.len() - 1],
            nodes as f64 / total / 1e6,
            nodes as f64 / deals as f64,
        );
    }
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
    benches();
    Criterion::default().configure_from_args().final_summary();
}
