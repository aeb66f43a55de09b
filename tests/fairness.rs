//! Provably fair deals (docs/fairness.md): the published test vectors, and
//! the properties of the committed shuffle.

use kaarttafel::rules::cards::Card;
use kaarttafel::rules::fairness::{
    DealInputs, Purpose, SeatSeed, Seed, hash_steps, seed_from_hex, to_hex,
};
use kaarttafel::rules::klaverjassen::canonical_deck;
use kaarttafel::rules::potverteren::deck::full_deck;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The vectors' server seed: the bytes 0x00, 0x01, …, 0x1f.
fn vector_seed() -> Seed {
    std::array::from_fn(|i| i as u8)
}

const VECTOR_GAME: &str = "00000000-0000-4000-8000-000000000001";

fn game_id() -> [u8; 16] {
    *uuid::Uuid::parse_str(VECTOR_GAME).unwrap().as_bytes()
}

fn seeds(values: &[Option<&str>]) -> Vec<Option<SeatSeed>> {
    values
        .iter()
        .map(|v| v.map(|v| SeatSeed::parse(v).unwrap()))
        .collect()
}

fn codes(cards: &[Card]) -> String {
    cards
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn klaverjassen_deck(seed: &Seed, deal: u32, seat_seeds: &[Option<SeatSeed>]) -> [Card; 32] {
    let mut deck = canonical_deck();
    DealInputs {
        server_seed: seed,
        game_id: game_id(),
        deal,
        seat_seeds,
    }
    .deck(&mut deck);
    deck
}

#[test]
fn the_chain_vector_hashes_the_last_seed_down_to_the_published_commitment() {
    let top = vector_seed();
    assert_eq!(
        to_hex(&hash_steps(&top, 16)),
        "1c215c754f780ff661dd09ea79024d83cb66ff9246b8aa1835f2ed146589f8e9"
    );
    assert_eq!(
        to_hex(&hash_steps(&top, 15)),
        "2655d5d747dd46b58afc28b77684ea0fc1c7b719905edd5739109f414399e5de"
    );
}

#[test]
fn the_message_prefix_vector_is_byte_for_byte_the_documented_layout() {
    let seat_seeds = seeds(&[Some("0a"), None, Some("DEADBEEF"), Some(&"f".repeat(64))]);
    let prefix = DealInputs {
        server_seed: &vector_seed(),
        game_id: game_id(),
        deal: 7,
        seat_seeds: &seat_seeds,
    }
    .message_prefix(Purpose::Deck);
    assert_eq!(
        to_hex(&prefix),
        format!(
            "6b61617274746166656c2066616972206465616c2076310001000000000000400080000000000000010000000704023061000864656164626565664{}",
            "0".to_owned() + &"66".repeat(64)
        )
    );
}

#[test]
fn the_klaverjassen_vector_without_seat_seeds_gives_the_published_deck() {
    let deck = klaverjassen_deck(&vector_seed(), 1, &seeds(&[None, None, None, None]));
    assert_eq!(
        codes(&deck),
        "AS JS 10D 9H 7D QS 10S 9C 8H JH 7C 8S QH KD 9S 7H 8C AH QD JC 10H KH AC 9D JD 7S AD KC KS QC 10C 8D"
    );
}

#[test]
fn the_klaverjassen_vector_with_seat_seeds_gives_the_published_deck() {
    let seat_seeds = seeds(&[Some("0a"), None, Some("deadbeef"), Some(&"f".repeat(64))]);
    let deck = klaverjassen_deck(&vector_seed(), 7, &seat_seeds);
    assert_eq!(
        codes(&deck),
        "QS JD KD 8S AC KC QC 10D KS AD AS 7H 9H 9S 7D 10S 7S 7C 9C QD JC AH KH JH 8D 8H 10H 9D 10C QH JS 8C"
    );
}

#[test]
fn the_potverteren_vector_gives_the_published_deck_and_lot() {
    let seat_seeds = seeds(&[Some("1234"), None, None, None, Some("abc")]);
    let inputs = DealInputs {
        server_seed: &vector_seed(),
        game_id: game_id(),
        deal: 65,
        seat_seeds: &seat_seeds,
    };
    let mut deck = full_deck();
    inputs.deck(&mut deck);
    assert_eq!(
        codes(&deck),
        "10H 5H 7D 9C QH 9H 9D AS 3S 9S AC QC 2D JS 4S AH 3H KH JH 3D 6H 4D 4C 5S JC 5D KS 10D QD KC 10C 7H 2C 3C 7C QS JD 2H 5C 4H 7S KD 10S 2S AD"
    );
    assert_eq!(inputs.lot(5), 1);
}

#[test]
fn seat_seeds_are_mixed_in_whatever_case_they_were_sent_in() {
    let upper = seeds(&[Some("DEADBEEF"), None, None, None]);
    let lower = seeds(&[Some("deadbeef"), None, None, None]);
    assert_eq!(
        klaverjassen_deck(&vector_seed(), 3, &upper),
        klaverjassen_deck(&vector_seed(), 3, &lower)
    );
}

#[test]
fn every_deck_is_a_permutation_of_the_canonical_deck() {
    let mut rng = StdRng::seed_from_u64(11);
    for deal in 1..=500 {
        let seed: Seed = rng.random();
        let mut deck = klaverjassen_deck(&seed, deal, &seeds(&[None, Some("1"), None, None]));
        deck.sort();
        let mut canonical = canonical_deck();
        canonical.sort();
        assert_eq!(deck, canonical);
    }
}

#[test]
fn changing_any_single_seat_seed_or_the_server_seed_changes_the_deck() {
    let mut rng = StdRng::seed_from_u64(12);
    for _ in 0..100 {
        let seed: Seed = rng.random();
        let base = seeds(&[Some("01"), Some("02"), None, Some("04")]);
        let deck = klaverjassen_deck(&seed, 5, &base);
        for seat in 0..4 {
            let mut changed = base.clone();
            changed[seat] = Some(SeatSeed::parse(&format!("{:x}", rng.random::<u32>())).unwrap());
            assert_ne!(klaverjassen_deck(&seed, 5, &changed), deck, "seat {seat}");
            changed[seat] = None;
            if base[seat].is_some() {
                assert_ne!(klaverjassen_deck(&seed, 5, &changed), deck, "seat {seat}");
            }
        }
        let mut other = seed;
        other[rng.random_range(0..32)] ^= 1 << rng.random_range(0..8);
        assert_ne!(klaverjassen_deck(&other, 5, &base), deck);
        assert_ne!(klaverjassen_deck(&seed, 6, &base), deck, "the deal number");
    }
}

/// χ² with 31 degrees of freedom: P(χ² > 69.3) ≈ 0.0001.
const CHI_SQUARE_31_P0001: f64 = 69.3;

/// 200,000 deals with fixed seat seeds and server seeds from a fixed-seed
/// RNG: for every card, its 32 position counts pass a χ² test against the
/// uniform 6,250 each at p = 0.0001; and so do the positions taken together
/// (each position's 32 card counts).
#[test]
fn every_card_lands_in_every_position_equally_often_over_200000_deals() {
    const DEALS: u32 = 200_000;
    let seat_seeds = seeds(&[Some("c0ffee"), None, Some("42"), None]);
    let mut rng = StdRng::seed_from_u64(2026);
    let canonical = canonical_deck();
    let index = |card: Card| canonical.iter().position(|&c| c == card).unwrap();
    let mut counts = [[0u32; 32]; 32];
    for deal in 0..DEALS {
        let seed: Seed = rng.random();
        let deck = klaverjassen_deck(&seed, deal % 16 + 1, &seat_seeds);
        for (position, card) in deck.iter().enumerate() {
            counts[index(*card)][position] += 1;
        }
    }
    let expected = f64::from(DEALS) / 32.0;
    let chi = |cells: &mut dyn Iterator<Item = u32>| {
        cells
            .map(|n| (f64::from(n) - expected).powi(2) / expected)
            .sum::<f64>()
    };
    for (card, row) in counts.iter().enumerate() {
        let statistic = chi(&mut row.iter().copied());
        assert!(
            statistic < CHI_SQUARE_31_P0001,
            "card {} χ² {statistic}",
            canonical[card]
        );
    }
    for position in 0..32 {
        let statistic = chi(&mut counts.iter().map(|row| row[position]));
        assert!(
            statistic < CHI_SQUARE_31_P0001,
            "position {position} χ² {statistic}"
        );
    }
}

#[test]
fn the_lot_draws_every_seat_equally_often() {
    let mut rng = StdRng::seed_from_u64(7);
    let seat_seeds = seeds(&[None, None, Some("9"), None, None, None, None]);
    let mut counts = [0u32; 7];
    for round in 0..70_000 {
        let seed: Seed = rng.random();
        let inputs = DealInputs {
            server_seed: &seed,
            game_id: game_id(),
            deal: round + 1,
            seat_seeds: &seat_seeds,
        };
        counts[usize::from(inputs.lot(7))] += 1;
    }
    // χ² with 6 degrees of freedom: P(χ² > 27.86) ≈ 0.0001.
    let statistic: f64 = counts
        .iter()
        .map(|&n| (f64::from(n) - 10_000.0).powi(2) / 10_000.0)
        .sum();
    assert!(statistic < 27.86, "{counts:?} χ² {statistic}");
}

#[test]
fn a_server_seed_reads_back_from_its_hex() {
    let seed = vector_seed();
    assert_eq!(seed_from_hex(&to_hex(&seed)), Some(seed));
    assert_eq!(seed_from_hex("00"), None);
}
