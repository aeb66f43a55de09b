//! Throughput of whole random Klaverjassen deals on one core: shuffle, deal
//! 3-2-3, trump, 32 plays picked at random from `legal_cards`, scoring and
//! the score sheet row. One iteration is a 16-deal match.
//!
//! Run: `cargo bench --bench klaverjassen`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kaarttafel::rules::cards::Suit;
use kaarttafel::rules::klaverjassen::{Match, Move, Options};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const DEALS: u8 = 16;

fn play_match(rng: &mut StdRng) -> Match {
    let options = Options {
        auto_deal: true,
        deals: DEALS,
        ..Options::default()
    };
    let mut game = Match::new(options, rng);
    while !game.is_finished() {
        let suit = Suit::ALL[rng.random_range(0..4)];
        let chooser = game.first_hand();
        game.play(chooser, Move::ChooseTrump { suit }, rng)
            .expect("the first hand names trump");
        while let Some(seat) = game.to_play() {
            let legal = game.legal_cards(seat);
            let card = legal
                .nth(rng.random_range(0..legal.len()))
                .expect("a legal card");
            game.play(seat, Move::Play { card }, rng)
                .expect("a legal card is accepted");
            if game.is_finished() {
                break;
            }
        }
    }
    game
}

fn random_deals(c: &mut Criterion) {
    let mut group = c.benchmark_group("klaverjassen");
    group.throughput(Throughput::Elements(u64::from(DEALS)));
    let mut rng = StdRng::seed_from_u64(2026);
    group.bench_function("random_deals", |b| {
        b.iter(|| black_box(play_match(&mut rng)))
    });
    group.finish();
}

criterion_group!(benches, random_deals);
criterion_main!(benches);
