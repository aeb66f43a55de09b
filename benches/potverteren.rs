//! Throughput of random Potverteren rounds: a 7-seat table of each variant
//! plays rounds of random legal moves (`cargo bench --bench potverteren`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kaarttafel::rules::Seat;
use kaarttafel::rules::potverteren::{Move, Options, Table, Variant};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Rounds played per benchmark iteration.
const ROUNDS: u32 = 100;

/// Plays `ROUNDS` rounds of random legal moves (never `end_table`).
fn play_rounds(variant: Variant, rng: &mut SmallRng) -> Table {
    let options = Options {
        seats: 7,
        variant,
        auto_deal: false,
        ..Options::default()
    };
    let mut table = Table::new(options, Seat(0), rng);
    while table.settled_rounds().len() < ROUNDS as usize {
        let seat = table.awaiting().expect("a table nobody ends goes on").seats[0];
        let moves = table.legal_moves(seat);
        let mv = match moves[rng.random_range(0..moves.len())] {
            Move::EndTable => moves[0],
            mv => mv,
        };
        table.play(seat, mv, rng).expect("a legal move is accepted");
    }
    table
}

fn random_rounds(c: &mut Criterion) {
    let mut group = c.benchmark_group("potverteren_random_rounds");
    group.throughput(Throughput::Elements(u64::from(ROUNDS)));
    for (name, variant) in [("auction", Variant::Auction), ("lot", Variant::Lot)] {
        let mut rng = SmallRng::seed_from_u64(1);
        group.bench_function(name, |b| {
            b.iter(|| black_box(play_rounds(variant, &mut rng)));
        });
    }
    group.finish();
}

criterion_group!(benches, random_rounds);
criterion_main!(benches);
