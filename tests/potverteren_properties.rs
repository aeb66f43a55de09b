//! Properties over many seeded random rounds, 5 to 10 seats, both variants:
//! chips are conserved, no card is dealt twice, no seat holds more than 4
//! cards, each settlement equals an independent recomputation from the
//! revealed hands, no view shows what its seat may not see before the reveal,
//! `play` accepts exactly what `legal_moves` offers, and a table saved and
//! reloaded at any point plays on identically.

use std::collections::HashSet;

use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::{Card, Rank, Suit};
use kaarttafel::rules::potverteren::{Move, Options, PotParts, RoundResult, Table, Variant};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

/// Rounds per variant.
const ROUNDS: u64 = 10_000;
/// One table in this many gets the costly checks at every step.
const THOROUGH_EVERY: u64 = 200;
/// One table in this many gets the costly checks at one random step.
const SPOT_EVERY: u64 = 4;
/// Rounds played at each random table.
const ROUNDS_PER_TABLE: u32 = 2;

#[test]
fn random_rounds_of_the_auction_variant_keep_every_invariant() {
    random_rounds(Variant::Auction);
}

#[test]
fn random_rounds_of_the_lot_variant_keep_every_invariant() {
    random_rounds(Variant::Lot);
}

fn random_rounds(variant: Variant) {
    let mut rounds = 0;
    for seed in 0..ROUNDS / u64::from(ROUNDS_PER_TABLE) {
        rounds += random_table(variant, seed);
    }
    assert!(rounds >= ROUNDS, "{rounds} rounds");
}

/// What the test itself knows of the round in progress.
struct Expected {
    balances: Vec<i64>,
    pot: PotParts,
    high_bid: Option<(Seat, u32)>,
}

/// Plays `ROUNDS_PER_TABLE` rounds at a random table; returns the rounds settled.
fn random_table(variant: Variant, seed: u64) -> u64 {
    let mut rng = StdRng::seed_from_u64(seed);
    // The probes of refused moves draw from their own randomness, so the
    // table and its reloaded twin see the same sequence.
    let mut probe_rng = StdRng::seed_from_u64(!seed);
    let seats = rng.random_range(5..=10u8);
    let options = Options {
        seats,
        variant,
        starting_chips: rng.random_range(0..=20),
        auto_deal: rng.random_bool(0.5),
    };
    let mut table = Table::new(options.clone(), Seat(0), &mut rng);
    let brought = i64::from(seats) * options.starting_chips;
    let mut expected = Expected {
        balances: vec![options.starting_chips; usize::from(seats)],
        pot: PotParts::default(),
        high_bid: None,
    };
    let mut settled = 0;
    let mut twin: Option<(Table, StdRng)> = None;
    let reload_at = rng.random_range(0..12);
    // The costly checks (every view of every seat as JSON, probes of refused
    // moves, hidden cards swapped) run at every step of one table in
    // `THOROUGH_EVERY`, and at one random step of one table in `SPOT_EVERY`;
    // debug builds stay within seconds.
    let thorough = seed.is_multiple_of(THOROUGH_EVERY);
    let spot = rng.random_range(0..20);
    let mut step = 0;
    while settled < ROUNDS_PER_TABLE {
        assert_eq!(
            table.balances().iter().sum::<i64>() + table.pot().total(),
            brought,
            "seed {seed}: chips are conserved"
        );
        let costly = thorough || (seed % SPOT_EVERY == 1 && step == spot);
        if costly {
            check_invariants(&table, brought);
        }
        if step == reload_at {
            let saved = serde_json::to_string(&table).unwrap();
            let reloaded: Table = serde_json::from_str(&saved).unwrap();
            assert_eq!(reloaded, table, "seed {seed}: reload changes nothing");
            // From here the table and its reloaded twin play on with the
            // same randomness and must stay equal.
            let fork = rng.random::<u64>();
            rng = StdRng::seed_from_u64(fork);
            twin = Some((reloaded, StdRng::seed_from_u64(fork)));
        }
        if costly {
            check_hidden_blind_cards_change_no_other_seat(&table);
            check_refused_moves_change_nothing(&table, &mut probe_rng);
        }
        step += 1;

        let (seat, mv) = random_move(&table, &mut rng);
        if let Move::Bid { amount } = mv {
            expected.high_bid = Some((seat, amount));
        }
        table.play(seat, mv, &mut rng).unwrap();
        if let Some((twin_table, twin_rng)) = &mut twin {
            let (twin_seat, twin_mv) = random_move(twin_table, twin_rng);
            assert_eq!((twin_seat, twin_mv), (seat, mv));
            twin_table.play(seat, mv, twin_rng).unwrap();
            assert_eq!(
                *twin_table, table,
                "seed {seed}: the reloaded twin plays on identically"
            );
        }

        if let Some(result) = table.settled_round(settled + 1) {
            check_settlement(result, &options, &mut expected, seed);
            settled += 1;
        }
    }
    assert_eq!(table.settled_rounds().len(), settled as usize);
    u64::from(settled)
}

/// A random legal move of the seat awaited (never `end_table`); bids go a
/// little above the minimum now and then.
fn random_move(table: &Table, rng: &mut StdRng) -> (Seat, Move) {
    let seat = table.awaiting().unwrap().seats[0];
    let moves: Vec<Move> = table
        .legal_moves(seat)
        .into_iter()
        .filter(|&mv| mv != Move::EndTable)
        .collect();
    let mv = moves[rng.random_range(0..moves.len())];
    let mv = match mv {
        Move::Bid { amount } => Move::Bid {
            amount: amount + rng.random_range(0..3),
        },
        mv => mv,
    };
    (seat, mv)
}

fn check_invariants(table: &Table, brought: i64) {
    assert_eq!(
        table.balances().iter().sum::<i64>() + table.pot().total(),
        brought,
        "chips are conserved"
    );
    assert!(table.pot().stakes >= 0 && table.pot().pothouder >= 0);
    let seats: Vec<Seat> = (0..table.balances().len())
        .map(|s| Seat(u8::try_from(s).unwrap()))
        .collect();
    let mut seen = HashSet::new();
    let mut blinds = Vec::new();
    for &seat in &seats {
        let own = table.view_for(Some(seat));
        let hand = &own.hands[seat.index()];
        let cards: Vec<Card> = hand
            .blind_card
            .iter()
            .chain(&hand.open_cards)
            .copied()
            .collect();
        assert!(cards.len() <= 4, "at most 4 cards");
        assert!(hand.open_cards.is_empty() || hand.blind_card.is_some());
        assert_eq!(
            hand.total,
            hand.blind_card.map(|_| independent_total(&cards))
        );
        for card in cards {
            assert!(seen.insert(card), "{card} dealt twice");
            assert!(in_potverteren_deck(card));
        }
        blinds.push(hand.blind_card);
    }
    for viewer in seats.iter().copied().map(Some).chain([None]) {
        check_view_hides_other_blind_cards(table, viewer, &blinds);
    }
}

/// The serialised view of `viewer` holds no other seat's blind card
/// (`blinds`, by seat) or total for the round in progress (`last_round` is a
/// settled round, all public).
fn check_view_hides_other_blind_cards(
    table: &Table,
    viewer: Option<Seat>,
    blinds: &[Option<Card>],
) {
    let mut json = serde_json::to_value(table.view_for(viewer)).unwrap();
    json.as_object_mut().unwrap().remove("last_round");
    let text = json.to_string();
    for (index, blind) in blinds.iter().enumerate() {
        if viewer.map(Seat::index) == Some(index) {
            continue;
        }
        if let Some(blind) = blind {
            assert!(
                !text.contains(&format!("\"{blind}\"")),
                "{viewer:?} sees the blind card of seat {index}"
            );
        }
        assert_eq!(json["hands"][index]["total"], Value::Null);
        assert_eq!(json["hands"][index]["blind_card"], Value::Null);
    }
}

/// Swapping one seat's blind card for a card still in the deck (edited in the
/// saved state) changes nothing that any other seat is shown or offered:
/// views, legal moves and awaiting never depend on another's blind card,
/// nor on whether that seat is over 16.
fn check_hidden_blind_cards_change_no_other_seat(table: &Table) {
    let mut state = serde_json::to_value(table).unwrap();
    let Some(turns) = state["phase"].get_mut("turns") else {
        return;
    };
    let deck_card = turns["deck"][0].clone();
    let seats = table.balances().len();
    let Some(owner) = (0..seats).find(|&s| turns["hands"][s]["blind"] != Value::Null) else {
        return;
    };
    turns["deck"][0] = turns["hands"][owner]["blind"].clone();
    turns["hands"][owner]["blind"] = deck_card;
    let other: Table = serde_json::from_value(state).unwrap();
    assert_eq!(other.awaiting(), table.awaiting());
    for seat in (0..seats).filter(|&s| s != owner) {
        let seat = Seat(u8::try_from(seat).unwrap());
        assert_eq!(other.view_for(Some(seat)), table.view_for(Some(seat)));
        assert_eq!(other.legal_moves(seat), table.legal_moves(seat));
    }
    assert_eq!(other.view_for(None), table.view_for(None));
}

/// Every move `legal_moves` does not offer is refused and changes nothing;
/// every move it offers would be accepted.
fn check_refused_moves_change_nothing(table: &Table, rng: &mut StdRng) {
    let seats = u8::try_from(table.balances().len()).unwrap();
    let seat = Seat(rng.random_range(0..seats));
    let legal = table.legal_moves(seat);
    for mv in [
        Move::Deal,
        Move::Bid { amount: 1 },
        Move::Bid { amount: 1_000_000 },
        Move::Pass,
        Move::Hit,
        Move::Stand,
        Move::EndTable,
    ] {
        let mut copy = table.clone();
        let result = copy.play(seat, mv, rng);
        let offered = legal.iter().any(|&l| match (l, mv) {
            (Move::Bid { amount: min }, Move::Bid { amount }) => amount >= min,
            (l, mv) => l == mv,
        });
        assert_eq!(result.is_ok(), offered, "{seat} {mv:?}: {result:?}");
        if result.is_err() {
            assert_eq!(&copy, table, "a refused move changes nothing");
        }
    }
}

/// Recomputes the round from its revealed hands with rules written here
/// independently, and compares with what the table settled.
fn check_settlement(result: &RoundResult, options: &Options, expected: &mut Expected, seed: u64) {
    let seats = usize::from(options.seats);
    let pothouder = result.pothouder;
    let auction = options.variant == Variant::Auction;
    assert_eq!(result.pot_before, expected.pot, "seed {seed}");

    // The hands: dealt seats only, at most 4 cards, no card twice.
    let dealt: Vec<Seat> = (0..options.seats)
        .map(Seat)
        .filter(|&s| !auction || s != pothouder)
        .collect();
    assert_eq!(
        result.hands.iter().map(|h| h.seat).collect::<Vec<_>>(),
        dealt
    );
    let mut seen = HashSet::new();
    for hand in &result.hands {
        assert!((1..=4).contains(&hand.cards.len()));
        assert_eq!(hand.total, independent_total(&hand.cards));
        for &card in &hand.cards {
            assert!(seen.insert(card) && in_potverteren_deck(card));
        }
    }

    // Pothouder, bid and stakes.
    let mut balances = expected.balances.clone();
    let mut pot = expected.pot;
    match (options.variant, expected.high_bid) {
        (Variant::Auction, Some((bidder, bid))) => {
            assert_eq!((pothouder, result.bid), (bidder, Some(bid)));
            balances[pothouder.index()] -= i64::from(bid);
            pot.pothouder += i64::from(bid);
        }
        _ => assert_eq!(result.bid, None),
    }
    for seat in &dealt {
        balances[seat.index()] -= 1;
        pot.stakes += 1;
    }

    // Excess of every seat over 16.
    for hand in result.hands.iter().filter(|h| h.total > 16) {
        let excess = i64::from(hand.total) - 16;
        balances[hand.seat.index()] -= excess;
        if auction {
            balances[pothouder.index()] += excess;
        } else {
            pot.stakes += excess;
        }
    }

    // The winners: the best rank, lowest first: (distance below 16, not the
    // briljant pair, number of cards); 16 is distance 0.
    let rank = |cards: &[Card], total: u32| {
        let briljant =
            cards.len() == 2 && cards.contains(&Card::new(Rank::Six, Suit::Hearts)) && total == 16;
        (16 - total, !briljant, cards.len())
    };
    let ranked: Vec<(Seat, (u32, bool, usize))> = result
        .hands
        .iter()
        .filter(|h| h.total <= 16)
        .map(|h| (h.seat, rank(&h.cards, h.total)))
        .collect();
    let best = ranked.iter().map(|(_, r)| *r).min();
    let winners: Vec<Seat> = ranked
        .iter()
        .filter(|(_, r)| Some(*r) == best)
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(result.winners, winners, "seed {seed}");
    if let Some((distance, _, _)) = best {
        let whole = distance == 0 || !auction;
        let prize = if whole {
            pot.stakes + pot.pothouder
        } else {
            pot.stakes
        };
        let each = prize / winners.len() as i64;
        for seat in &winners {
            balances[seat.index()] += each;
        }
        let left = prize - each * winners.len() as i64;
        pot = if whole {
            PotParts {
                stakes: left,
                pothouder: 0,
            }
        } else {
            PotParts {
                stakes: left,
                pothouder: pot.pothouder,
            }
        };
    }
    assert_eq!(result.pot_after, pot, "seed {seed}");
    let changes: Vec<i64> = (0..seats)
        .map(|s| balances[s] - expected.balances[s])
        .collect();
    assert_eq!(result.balance_changes, changes, "seed {seed}");
    *expected = Expected {
        balances,
        pot,
        high_bid: None,
    };
}

fn independent_total(cards: &[Card]) -> u32 {
    cards
        .iter()
        .map(|card| match card.rank {
            Rank::King | Rank::Queen | Rank::Jack | Rank::Ten => 10,
            Rank::Ace => 1,
            Rank::Nine => 9,
            Rank::Seven => 7,
            Rank::Six => 6,
            Rank::Five => 5,
            Rank::Four => 4,
            Rank::Three => 3,
            Rank::Two => 2,
            Rank::Eight => panic!("no 8s in the deck"),
        })
        .sum()
}

fn in_potverteren_deck(card: Card) -> bool {
    card.rank != Rank::Eight && (card.rank != Rank::Six || card.suit == Suit::Hearts)
}
