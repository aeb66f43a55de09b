//! The hint at the trump choice: the strong player's value of every suit
//! from the chooser's view (deals sampled and each solved for every trump
//! by two threads, docs/solver.md "The trump choice"), at the budget a hint
//! uses there.
//!
//! Run: `cargo bench --bench trump_hint`. First prints the distribution of
//! one hint's time over 100 random hands (median, 90th percentile, maximum;
//! `TRUMP_HINT_HANDS=N` for another count), at a table where the voorhand
//! names trump and again under `trump_choice: pass_round` (the first seat's
//! hint then values passing too), and how stable the values are (a
//! second hint for each hand with another seed, so other sampled deals: how
//! often it names the same suit, how far its values lie from the first's),
//! then criterion's figures (one iteration: the hint for the next of 32
//! random hands). `TRUMP_HINT_SAMPLES=N` sets the number of sampled deals
//! for the run, to tune `strong::TRUMP_SAMPLES`.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group};
use kaarttafel::ai::hints::{Advice, advice};
use kaarttafel::ai::klaverjassen::strong::Budget;
use kaarttafel::rules::Seat;
use kaarttafel::rules::klaverjassen::{Match, Move, Options, TrumpChoice, View};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A random deal at its trump choice: the chooser, its view and its legal
/// moves.
fn trump_choice(rng: &mut StdRng, trump_choice: TrumpChoice) -> (Seat, View, Vec<Move>) {
    let options = Options {
        first_dealer: Seat(rng.random_range(0..4)),
        auto_deal: true,
        deals: 1,
        trump_choice,
        ..Options::default()
    };
    let game = Match::new(options, rng);
    let seat = game.first_hand();
    (seat, game.view_for(Some(seat)), game.legal_moves(seat))
}

/// One hint at the trump choice, at the hint's own budget there
/// (`TRUMP_HINT_SAMPLES=N`: at N samples instead, to tune it).
fn hint(seat: Seat, view: &View, legal: &[Move], seed: u64) -> Advice<Move> {
    let budget = Budget::for_view(view);
    let samples = std::env::var("TRUMP_HINT_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(budget.samples);
    let budget = Budget { samples, ..budget };
    black_box(advice::<Match>(seat, view, legal, budget, seed).expect("the chooser has a hint"))
}

/// The value of each suit (and of passing) of a hint, in the order of the
/// legal moves.
fn values(hint: &Advice<Move>) -> Vec<f64> {
    hint.moves
        .iter()
        .map(|(_, value)| value.expect("every choice is valued"))
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn distribution(trump_choice_rule: TrumpChoice) {
    let hands = std::env::var("TRUMP_HINT_HANDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    if hands == 0 {
        return;
    }
    let mut rng = StdRng::seed_from_u64(48);
    let mut times = Vec::with_capacity(hands);
    // Stability: a second hint with another seed (other sampled deals) for
    // each hand; how often it names the same suit, and how far its values
    // are from the first's.
    let (mut same, mut apart) = (0, 0.0);
    for _ in 0..hands {
        let (seat, view, legal) = trump_choice(&mut rng, trump_choice_rule);
        let start = Instant::now();
        let first = hint(seat, &view, &legal, rng.random());
        times.push(start.elapsed().as_secs_f64() * 1e3);
        let second = hint(seat, &view, &legal, rng.random());
        same += usize::from(first.chosen == second.chosen);
        let (first, second) = (values(&first), values(&second));
        apart += first
            .iter()
            .zip(&second)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / first.len() as f64;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "hint at the trump choice ({trump_choice_rule:?}), {hands} random hands: median {:.0} ms, p90 {:.0} ms, max {:.0} ms; \
         two seeds make the same choice in {:.0} % of hands, a choice's values differ by {:.1} points on average",
        percentile(&times, 0.5),
        percentile(&times, 0.9),
        times[times.len() - 1],
        100.0 * same as f64 / hands as f64,
        apart / hands as f64,
    );
}

fn trump_hint(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let choices: Vec<(Seat, View, Vec<Move>)> = (0..32)
        .map(|_| trump_choice(&mut rng, TrumpChoice::Voorhand))
        .collect();
    let mut next = 0;
    let mut group = c.benchmark_group("hint");
    group.sample_size(10);
    group.bench_function("trump_choice", |b| {
        b.iter(|| {
            next = (next + 1) % choices.len();
            let (seat, view, legal) = &choices[next];
            hint(*seat, view, legal, next as u64);
        })
    });
    group.finish();
}

criterion_group!(benches, trump_hint);

fn main() {
    distribution(TrumpChoice::Voorhand);
    distribution(TrumpChoice::PassRound);
    benches();
    Criterion::default().configure_from_args().final_summary();
}
