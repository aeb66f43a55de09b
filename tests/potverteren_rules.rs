//! One test per rule and per decision of docs/potverteren.md, with exact
//! chip amounts. Decks are stacked with
//! `Deck::stacked` so every round is known card by card.

use kaarttafel::rules::cards::Card;
use kaarttafel::rules::potverteren::{
    Deck, Move, MoveError, Options, PhaseName, PotParts, Table, Variant, deck,
};
use kaarttafel::rules::{Action, Awaiting, Seat};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Hands in order of play, each the blind card then the cards asked.
type Hands<'a> = &'a [&'a [&'a str]];

fn card(code: &str) -> Card {
    code.parse().unwrap()
}

fn cards(codes: &[&str]) -> Vec<Card> {
    codes.iter().map(|code| card(code)).collect()
}

fn options(seats: u8, variant: Variant, auto_deal: bool) -> Options {
    Options {
        seats,
        variant,
        starting_chips: 100,
        auto_deal,
    }
}

/// A five-seat auction table hosted by seat 0.
fn auction_table() -> (Table, StdRng) {
    let mut rng = StdRng::seed_from_u64(7);
    let table = Table::new(options(5, Variant::Auction, false), Seat(0), &mut rng);
    (table, rng)
}

/// A lot-variant table whose first pothouder is `pothouder`, hosted by seat 0.
fn lot_table(seats: u8, pothouder: u8, auto_deal: bool) -> (Table, StdRng) {
    (0..)
        .map(|seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            let table = Table::new(options(seats, Variant::Lot, auto_deal), Seat(0), &mut rng);
            (table, rng)
        })
        .find(|(table, _)| table.pothouder() == Some(Seat(pothouder)))
        .unwrap()
}

fn to_move(table: &Table) -> Seat {
    table.awaiting().unwrap().seats[0]
}

/// Everyone passes except `winner`, who bids `bid` when its turn comes.
fn win_auction(table: &mut Table, winner: u8, bid: u32, rng: &mut StdRng) {
    let round = table.round();
    let mut bid_made = false;
    while table.view_for(None).phase == PhaseName::Auction && table.round() == round {
        let seat = to_move(table);
        let mv = if seat == Seat(winner) && !bid_made {
            bid_made = true;
            Move::Bid { amount: bid }
        } else {
            Move::Pass
        };
        table.play(seat, mv, rng).unwrap();
    }
}

/// Deals from a deck stacked so that the seats, in order of play, get
/// `hands` (blind card first, then the cards each asks), and plays the turns:
/// each seat asks its cards, then stands unless its 4th card ended its turn.
fn deal_and_play(table: &mut Table, hands: &[&[&str]], rng: &mut StdRng) {
    deal_stacked(table, hands);
    for hand in hands {
        let seat = to_move(table);
        for _ in 1..hand.len() {
            table.play(seat, Move::Hit, rng).unwrap();
        }
        if hand.len() < 4 {
            table.play(seat, Move::Stand, rng).unwrap();
        }
    }
}

fn deal_stacked(table: &mut Table, hands: &[&[&str]]) {
    let blinds: Vec<&str> = hands.iter().map(|hand| hand[0]).collect();
    let asked: Vec<&str> = hands.iter().flat_map(|hand| hand[1..].to_vec()).collect();
    let deck = Deck::stacked(&cards(&blinds), &cards(&asked)).unwrap();
    table.deal_from(table.pothouder().unwrap(), deck).unwrap();
}

fn chips_on_table(table: &Table) -> i64 {
    table.balances().iter().sum::<i64>() + table.pot().total()
}

fn pot(stakes: i64, pothouder: i64) -> PotParts {
    PotParts { stakes, pothouder }
}

// ---------------------------------------------------------------- deck

#[test]
fn cards_count_as_the_rules_table_says() {
    for (code, value) in [
        ("KS", 10),
        ("QH", 10),
        ("JD", 10),
        ("10C", 10),
        ("9S", 9),
        ("7H", 7),
        ("6H", 6),
        ("5D", 5),
        ("4C", 4),
        ("3S", 3),
        ("2H", 2),
        ("AD", 1),
    ] {
        assert_eq!(deck::value(card(code)), value, "{code}");
    }
}

#[test]
fn the_deck_is_45_cards_without_eights_and_with_only_the_six_of_hearts() {
    let full = deck::full_deck();
    assert_eq!(full.len(), 45);
    for code in ["8C", "8D", "8H", "8S", "6C", "6D", "6S"] {
        assert!(!full.contains(&card(code)), "{code}");
    }
    assert!(full.contains(&card("6H")));
}

// ---------------------------------------------------------------- options

#[test]
fn options_default_to_five_seats_auction_100_chips_and_manual_dealing() {
    let parsed: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(parsed, options(5, Variant::Auction, false));
    assert_eq!(parsed, Options::default());
    let lot: Options = serde_json::from_str(r#"{"variant":"lot","seats":10}"#).unwrap();
    assert_eq!(lot.variant, Variant::Lot);
    assert_eq!(lot.seats, 10);
}

#[test]
fn options_out_of_range_are_refused_naming_the_option() {
    for (seats, chips, option) in [
        (4, 100, Some("seats")),
        (5, 100, None),
        (10, 100, None),
        (11, 100, Some("seats")),
        (5, -1, Some("starting_chips")),
        (5, 0, None),
        (5, 1_000_000, None),
        (5, 1_000_001, Some("starting_chips")),
    ] {
        let opts = Options {
            seats,
            starting_chips: chips,
            ..Options::default()
        };
        assert_eq!(opts.validate().err().map(|e| e.option), option, "{opts:?}");
    }
}

#[test]
fn unknown_options_are_refused() {
    assert!(serde_json::from_str::<Options>(r#"{"seat":6}"#).is_err());
    assert!(serde_json::from_str::<Options>(r#"{"variant":"opbod"}"#).is_err());
}

// ---------------------------------------------------------------- moves

#[test]
fn moves_read_and_write_the_api_json() {
    for (json, mv) in [
        (r#"{"type":"deal"}"#, Move::Deal),
        (r#"{"type":"bid","amount":3}"#, Move::Bid { amount: 3 }),
        (r#"{"type":"pass"}"#, Move::Pass),
        (r#"{"type":"hit"}"#, Move::Hit),
        (r#"{"type":"stand"}"#, Move::Stand),
        (r#"{"type":"end_table"}"#, Move::EndTable),
    ] {
        assert_eq!(serde_json::from_str::<Move>(json).unwrap(), mv);
        assert_eq!(serde_json::to_string(&mv).unwrap(), json);
    }
}

#[test]
fn moves_with_unknown_fields_or_types_are_refused() {
    for json in [
        r#"{"type":"bid","amount":3,"extra":1}"#,
        r#"{"type":"bid"}"#,
        r#"{"type":"bid","amount":-1}"#,
        r#"{"type":"hit","card":"7C"}"#,
        r#"{"type":"pass","amount":1}"#,
        r#"{"type":"play"}"#,
    ] {
        assert!(
            serde_json::from_str::<Move>(json).is_err(),
            "{json} parsed as {:?}",
            serde_json::from_str::<Move>(json)
        );
    }
}

// ---------------------------------------------------------------- auction

#[test]
fn the_first_auction_opens_with_seat_zero_offering_a_bid_of_one_or_a_pass() {
    let (table, _) = auction_table();
    assert_eq!(table.round(), 1);
    assert_eq!(
        table.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(0)],
            action: Action::Bid
        })
    );
    assert_eq!(
        table.legal_moves(Seat(0)),
        vec![Move::Bid { amount: 1 }, Move::Pass, Move::EndTable]
    );
    assert_eq!(
        table.legal_moves(Seat(1)),
        Vec::<Move>::new(),
        "not yet its turn"
    );
}

#[test]
fn a_bid_must_be_higher_than_the_highest_bid_and_at_least_one() {
    let (mut table, mut rng) = auction_table();
    assert_eq!(
        table.play(Seat(0), Move::Bid { amount: 0 }, &mut rng),
        Err(MoveError::BidTooLow { minimum: 1 })
    );
    table
        .play(Seat(0), Move::Bid { amount: 4 }, &mut rng)
        .unwrap();
    for amount in [3, 4] {
        let error = table
            .play(Seat(1), Move::Bid { amount }, &mut rng)
            .unwrap_err();
        assert_eq!(error, MoveError::BidTooLow { minimum: 5 });
        assert_eq!(error.code(), "bid_too_low");
    }
    assert_eq!(
        table.legal_moves(Seat(1)),
        vec![Move::Bid { amount: 5 }, Move::Pass]
    );
    table
        .play(Seat(1), Move::Bid { amount: 9 }, &mut rng)
        .unwrap();
    let auction = table.view_for(None).auction.unwrap();
    assert_eq!(
        (auction.high_bid, auction.high_bidder),
        (Some(9), Some(Seat(1)))
    );
}

#[test]
fn a_bid_above_one_million_is_refused_as_out_of_range() {
    let (mut table, mut rng) = auction_table();
    let before = table.clone();
    let error = table
        .play(Seat(0), Move::Bid { amount: 1_000_001 }, &mut rng)
        .unwrap_err();
    assert_eq!(error, MoveError::BidOutOfRange);
    assert_eq!(error.code(), "validation_failed");
    assert_eq!(error.to_string(), "a bid is at most 1000000 chips");
    assert_eq!(table, before);
    table
        .play(Seat(0), Move::Bid { amount: 1_000_000 }, &mut rng)
        .unwrap();
    assert_eq!(
        table.legal_moves(Seat(1)),
        vec![Move::Pass],
        "no higher bid exists"
    );
}

#[test]
fn only_the_seat_to_speak_may_bid_or_pass() {
    let (mut table, mut rng) = auction_table();
    for mv in [Move::Bid { amount: 2 }, Move::Pass] {
        let error = table.play(Seat(2), mv, &mut rng).unwrap_err();
        assert_eq!(error.code(), "not_your_turn");
    }
}

#[test]
fn a_pass_is_final_for_the_auction() {
    let (mut table, mut rng) = auction_table();
    table.play(Seat(0), Move::Pass, &mut rng).unwrap();
    table
        .play(Seat(1), Move::Bid { amount: 1 }, &mut rng)
        .unwrap();
    table
        .play(Seat(2), Move::Bid { amount: 2 }, &mut rng)
        .unwrap();
    table.play(Seat(3), Move::Pass, &mut rng).unwrap();
    table.play(Seat(4), Move::Pass, &mut rng).unwrap();
    // Seat 0 passed, so the auction goes round to seat 1.
    assert_eq!(to_move(&table), Seat(1));
    assert_eq!(
        table.view_for(None).auction.unwrap().passed,
        vec![Seat(0), Seat(3), Seat(4)]
    );
    table.play(Seat(1), Move::Pass, &mut rng).unwrap();
    assert_eq!(table.pothouder(), Some(Seat(2)));
}

#[test]
fn a_seat_that_has_not_yet_spoken_still_speaks_and_may_win() {
    let (mut table, mut rng) = auction_table();
    table
        .play(Seat(0), Move::Bid { amount: 3 }, &mut rng)
        .unwrap();
    for seat in 1..4 {
        table.play(Seat(seat), Move::Pass, &mut rng).unwrap();
    }
    // One bidder remains, but seat 4 has not spoken yet.
    assert_eq!(to_move(&table), Seat(4));
    table
        .play(Seat(4), Move::Bid { amount: 4 }, &mut rng)
        .unwrap();
    assert_eq!(to_move(&table), Seat(0));
    table.play(Seat(0), Move::Pass, &mut rng).unwrap();
    assert_eq!(table.pothouder(), Some(Seat(4)));
    assert_eq!(table.balances(), &[99, 99, 99, 99, 96]);
}

#[test]
fn the_winner_pays_the_bid_into_the_pothouder_part_and_every_other_seat_stakes_one() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 2, 7, &mut rng);
    assert_eq!(table.pothouder(), Some(Seat(2)));
    assert_eq!(table.balances(), &[99, 99, 93, 99, 99]);
    assert_eq!(table.pot(), pot(4, 7));
    let view = table.view_for(None);
    assert_eq!(view.phase, PhaseName::Dealing);
    assert_eq!(view.auction, None);
    assert_eq!(
        table.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(2)],
            action: Action::Deal
        })
    );
}

#[test]
fn when_every_seat_passes_the_pothouder_is_drawn_by_lot_and_pays_nothing() {
    let mut drawn = Vec::new();
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut table = Table::new(options(5, Variant::Auction, false), Seat(0), &mut rng);
        for seat in 0..5 {
            table.play(Seat(seat), Move::Pass, &mut rng).unwrap();
        }
        let pothouder = table.pothouder().unwrap();
        let mut expected = vec![99; 5];
        expected[pothouder.index()] = 100;
        assert_eq!(table.balances(), expected.as_slice());
        assert_eq!(table.pot(), pot(4, 0));
        drawn.push(pothouder);
    }
    drawn.sort();
    drawn.dedup();
    assert_eq!(drawn.len(), 5, "every seat can be drawn");
}

#[test]
fn the_next_auction_opens_with_the_seat_after_the_last_pothouder() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 4, 1, &mut rng);
    deal_and_play(&mut table, &[&["KS"], &["QS"], &["JS"], &["10S"]], &mut rng);
    assert_eq!(table.round(), 2);
    assert_eq!(to_move(&table), Seat(0));
    win_auction(&mut table, 2, 1, &mut rng);
    deal_and_play(&mut table, &[&["KS"], &["QS"], &["JS"], &["10S"]], &mut rng);
    assert_eq!(to_move(&table), Seat(3));
}

// ---------------------------------------------------------------- deal

#[test]
fn only_the_pothouder_deals_and_only_when_a_deal_is_due() {
    let (mut table, mut rng) = auction_table();
    assert_eq!(
        table
            .play(Seat(0), Move::Deal, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
    win_auction(&mut table, 1, 2, &mut rng);
    assert_eq!(
        table.play(Seat(0), Move::Deal, &mut rng),
        Err(MoveError::NotYourTurn {
            attempted: Move::Deal
        })
    );
    assert_eq!(table.legal_moves(Seat(1)), vec![Move::Deal]);
    table.play(Seat(1), Move::Deal, &mut rng).unwrap();
    assert_eq!(table.view_for(None).phase, PhaseName::Turns);
}

#[test]
fn the_deal_gives_one_blind_card_from_the_top_to_each_other_seat_starting_after_the_pothouder() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 2, 1, &mut rng);
    let deck = Deck::stacked(&cards(&["AC", "2C", "3C", "4C"]), &[]).unwrap();
    table.deal_from(Seat(2), deck).unwrap();
    let blind = |seat: u8| table.view_for(Some(Seat(seat))).hands[usize::from(seat)].blind_card;
    assert_eq!(blind(3), Some(card("AC")));
    assert_eq!(blind(4), Some(card("2C")));
    assert_eq!(blind(0), Some(card("3C")));
    assert_eq!(blind(1), Some(card("4C")));
    assert_eq!(blind(2), None, "the pothouder gets no card");
    assert_eq!(to_move(&table), Seat(3), "turns start after the pothouder");
}

#[test]
fn with_auto_deal_the_server_deals_as_soon_as_the_pothouder_is_known() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut table = Table::new(options(6, Variant::Auction, true), Seat(0), &mut rng);
    win_auction(&mut table, 0, 2, &mut rng);
    let view = table.view_for(None);
    assert_eq!(view.phase, PhaseName::Turns);
    assert_eq!(view.pothouder, Some(Seat(0)));
    assert_eq!(
        table.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(1)],
            action: Action::HitOrStand
        })
    );
    assert_eq!(table.legal_moves(Seat(0)), Vec::<Move>::new());
}

// ---------------------------------------------------------------- turns

#[test]
fn a_hit_takes_the_bottom_card_face_up_for_everyone_to_see() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 1, &mut rng);
    let deck = Deck::stacked(&cards(&["2C", "3C", "4C", "5C"]), &cards(&["9H", "KD"])).unwrap();
    table.deal_from(Seat(0), deck).unwrap();
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    for viewer in [None, Some(Seat(3)), Some(Seat(1))] {
        assert_eq!(
            table.view_for(viewer).hands[1].open_cards,
            cards(&["9H", "KD"])
        );
    }
    assert_eq!(table.view_for(Some(Seat(1))).hands[1].total, Some(21));
}

#[test]
fn a_seat_may_stand_on_its_blind_card_alone_and_turns_follow_the_order_of_play() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 3, 1, &mut rng);
    deal_stacked(&mut table, &[&["2C"], &["3C"], &["4C"], &["5C"]]);
    for seat in [4, 0, 1] {
        assert_eq!(to_move(&table), Seat(seat));
        assert_eq!(table.legal_moves(Seat(seat)), vec![Move::Hit, Move::Stand]);
        table.play(Seat(seat), Move::Stand, &mut rng).unwrap();
        assert!(table.view_for(None).hands[usize::from(seat)].stood);
    }
    assert_eq!(
        table
            .play(Seat(4), Move::Stand, &mut rng)
            .unwrap_err()
            .code(),
        "not_your_turn"
    );
    assert_eq!(to_move(&table), Seat(2));
}

#[test]
fn the_turn_ends_with_the_fourth_card_and_a_further_hit_is_refused_as_hand_full() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 1, &mut rng);
    deal_stacked(
        &mut table,
        &[&["AC", "2D", "3D", "AD"], &["2C"], &["3C"], &["4C"]],
    );
    for _ in 0..3 {
        table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    }
    let view = table.view_for(None);
    assert!(view.hands[1].stood, "its turn ended on the 4th card");
    assert_eq!(to_move(&table), Seat(2));
    let before = table.clone();
    let error = table.play(Seat(1), Move::Hit, &mut rng).unwrap_err();
    assert_eq!(error, MoveError::HandFull);
    assert_eq!(error.code(), "hand_full");
    assert_eq!(table, before);
}

#[test]
fn a_seat_over_sixteen_that_tries_to_hit_must_stand_and_nothing_public_changes() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 1, &mut rng);
    deal_stacked(&mut table, &[&["KS", "9C"], &["2C"], &["3C"], &["4C"]]);
    let others = |table: &Table| {
        [None, Some(Seat(0)), Some(Seat(2)), Some(Seat(3))]
            .map(|viewer| (table.view_for(viewer), viewer.map(|s| table.legal_moves(s))))
    };
    let under = others(&table);
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    assert_eq!(table.view_for(Some(Seat(1))).hands[1].total, Some(19));
    assert_eq!(table.legal_moves(Seat(1)), vec![Move::Stand]);
    let over = others(&table);
    let before = table.clone();
    let error = table.play(Seat(1), Move::Hit, &mut rng).unwrap_err();
    assert_eq!(error, MoveError::MustStand);
    assert_eq!(error.code(), "must_stand");
    assert_eq!(table, before, "a refused hit changes nothing");
    assert_eq!(others(&table), over);
    // The others see the open 9C and nothing more: no total, no blind card.
    for ((view_under, moves_under), (view_over, moves_over)) in under.iter().zip(&over) {
        assert_eq!(view_over.hands[1].total, None);
        assert_eq!(view_over.hands[1].blind_card, None);
        assert_eq!(view_over.hands[1].open_cards, cards(&["9C"]));
        assert_eq!(moves_under, moves_over);
        assert_eq!(view_under.hands[1].total, None);
    }
    assert_eq!(
        table.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(1)],
            action: Action::HitOrStand
        })
    );
    table.play(Seat(1), Move::Stand, &mut rng).unwrap();
}

#[test]
fn hits_and_stands_belong_to_the_turns() {
    let (mut table, mut rng) = auction_table();
    for mv in [Move::Hit, Move::Stand] {
        assert_eq!(
            table.play(Seat(0), mv, &mut rng),
            Err(MoveError::WrongPhase {
                attempted: mv,
                phase: "during the auction"
            })
        );
    }
    win_auction(&mut table, 0, 1, &mut rng);
    assert_eq!(
        table
            .play(Seat(0), Move::Pass, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
}

// ---------------------------------------------------------------- settlement

#[test]
fn each_seat_over_sixteen_pays_the_pothouder_its_excess_and_exactly_sixteen_takes_the_whole_pot() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 3, &mut rng);
    assert_eq!(table.pot(), pot(4, 3));
    deal_and_play(
        &mut table,
        &[&["KS", "9C"], &["QD", "6H"], &["5C"], &["JD", "9D"]],
        &mut rng,
    );
    // Seats 1 and 4 pay 3 each to seat 0; seat 2 takes the pot of 7.
    assert_eq!(table.balances(), &[103, 96, 106, 99, 96]);
    assert_eq!(table.pot(), pot(0, 0));
    let result = table.settled_round(1).unwrap();
    assert_eq!(result.winners, vec![Seat(2)]);
    assert_eq!(result.prize_each, 7);
    assert_eq!(result.balance_changes, vec![3, -4, 6, -1, -4]);
}

#[test]
fn among_sixteens_the_winner_is_chosen_by_the_briljant_then_fewest_cards_then_an_even_split() {
    // (hands in order of play for seats 1..=4, winners, balances after)
    // Seat 0 bids 3: the pot is 4 stakes + 3 pothouder = 7.
    let cases: [(Hands, &[u8], [i64; 5]); 4] = [
        (
            // The briljant pair beats a two-card 16 and a three-card 16.
            &[&["9C", "7C"], &["10H", "6H"], &["5C", "4D", "7D"], &["2C"]],
            &[2],
            [97, 99, 106, 99, 99],
        ),
        (
            // No briljant: two cards beat three.
            &[&["4C", "5D", "7D"], &["9C", "7C"], &["2C"], &["3C"]],
            &[2],
            [97, 99, 106, 99, 99],
        ),
        (
            // Two two-card 16s split 7: 3 each, 1 stays in the stakes part.
            &[&["9C", "7C"], &["9D", "7D"], &["2C"], &["4C", "2D", "JS"]],
            &[1, 2],
            [97, 102, 102, 99, 99],
        ),
        (
            // Three three-card 16s split 7: 2 each, 1 stays.
            &[
                &["9C", "5C", "2C"],
                &["9D", "5D", "2D"],
                &["9H", "5H", "2H"],
                &["KS"],
            ],
            &[1, 2, 3],
            [97, 101, 101, 101, 99],
        ),
    ];
    for (hands, winners, balances) in cases {
        let (mut table, mut rng) = auction_table();
        win_auction(&mut table, 0, 3, &mut rng);
        deal_and_play(&mut table, hands, &mut rng);
        let result = table.settled_round(1).unwrap();
        let winners: Vec<Seat> = winners.iter().map(|&s| Seat(s)).collect();
        assert_eq!(result.winners, winners, "{hands:?}");
        assert_eq!(table.balances(), balances.as_slice(), "{hands:?}");
        let remainder = 7 % i64::try_from(winners.len()).unwrap();
        assert_eq!(table.pot(), pot(remainder, 0), "{hands:?}");
        assert_eq!(chips_on_table(&table), 500);
    }
}

#[test]
fn closest_below_sixteen_takes_only_the_stakes_part() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 5, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "4C"], &["QD", "5C"], &["9C"], &["JD", "9D"]],
        &mut rng,
    );
    // Seat 2 has 15: it takes the 4 stakes; seat 4 pays 3 to seat 0; the
    // pothouder's 5 stay in the pot.
    assert_eq!(table.balances(), &[98, 99, 103, 99, 96]);
    assert_eq!(table.pot(), pot(0, 5));
    assert_eq!(table.settled_round(1).unwrap().winners, vec![Seat(2)]);
}

#[test]
fn closest_below_ties_go_to_the_fewest_cards_then_split_with_the_remainder_in_the_stakes_part() {
    let cases: [(Hands, &[u8], [i64; 5], PotParts); 2] = [
        (
            // 15 in two cards beats 15 in three cards.
            &[&["KS", "5C"], &["9C", "4D", "2D"], &["3C"], &["AC"]],
            &[1],
            [99, 103, 99, 99, 99],
            pot(0, 1),
        ),
        (
            // Three two-card 15s split the 4 stakes: 1 each, 1 stays.
            &[&["KS", "5C"], &["KD", "5D"], &["KH", "5H"], &["AC"]],
            &[1, 2, 3],
            [99, 100, 100, 100, 99],
            pot(1, 1),
        ),
    ];
    for (hands, winners, balances, pot_after) in cases {
        let (mut table, mut rng) = auction_table();
        win_auction(&mut table, 0, 1, &mut rng);
        deal_and_play(&mut table, hands, &mut rng);
        let winners: Vec<Seat> = winners.iter().map(|&s| Seat(s)).collect();
        assert_eq!(table.settled_round(1).unwrap().winners, winners);
        assert_eq!(table.balances(), balances.as_slice());
        assert_eq!(table.pot(), pot_after);
    }
}

#[test]
fn when_every_seat_is_over_sixteen_nobody_wins_and_the_pot_carries_over() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 2, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "7C"], &["KD", "9C"], &["KH", "QH"], &["JS", "JD"]],
        &mut rng,
    );
    // Excess 1 + 3 + 4 + 4 = 12 to the pothouder.
    assert_eq!(table.balances(), &[110, 98, 96, 95, 95]);
    assert_eq!(table.pot(), pot(4, 2));
    let result = table.settled_round(1).unwrap();
    assert_eq!(result.winners, Vec::<Seat>::new());
    assert_eq!(result.pot_after, pot(4, 2));
}

#[test]
fn stakes_carried_over_are_won_by_a_closest_below_seat_while_the_pothouder_part_stays() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 2, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "7C"], &["KD", "9C"], &["KH", "QH"], &["JS", "JD"]],
        &mut rng,
    );
    assert_eq!(table.pot(), pot(4, 2));
    // Round 2 opens with seat 1; seat 1 bids 3 and becomes pothouder.
    win_auction(&mut table, 1, 3, &mut rng);
    assert_eq!(table.pot(), pot(8, 5));
    assert_eq!(table.balances(), &[109, 95, 95, 94, 94]);
    deal_and_play(
        &mut table,
        &[&["9C", "5C"], &["AC"], &["2C"], &["QS"]],
        &mut rng,
    );
    // Seat 2 (14) takes all 8 stakes, this round's and last round's; the
    // pothouder part (2 + 3) stays.
    assert_eq!(table.balances(), &[109, 95, 103, 94, 94]);
    assert_eq!(table.pot(), pot(0, 5));
    let result = table.settled_round(2).unwrap();
    assert_eq!(result.pot_before, pot(4, 2));
    assert_eq!(result.balance_changes, vec![-1, -3, 7, -1, -1]);
    // Round 3: a 16 takes the whole pot, the pothouder part included.
    win_auction(&mut table, 2, 1, &mut rng);
    assert_eq!(table.pot(), pot(4, 6));
    deal_and_play(
        &mut table,
        &[&["AC"], &["KS", "6H"], &["2C"], &["3C"]],
        &mut rng,
    );
    assert_eq!(table.balances(), &[108, 94, 102, 93, 103]);
    assert_eq!(table.pot(), pot(0, 0));
    assert_eq!(chips_on_table(&table), 500);
}

#[test]
fn the_pothouder_net_change_is_its_excess_income_minus_its_bid() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 6, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "9C"], &["2C"], &["3C"], &["4C"]],
        &mut rng,
    );
    let last = table.view_for(None).last_round.unwrap();
    // Bid 6 out, excess 3 in; the pothouder stakes nothing.
    assert_eq!(last.balance_changes, vec![-3, -4, -1, -1, 3]);
    assert_eq!(last.winners, vec![Seat(4)]);
    assert_eq!(last.pot_before, 0);
    assert_eq!(last.pot_after, 6);
}

#[test]
fn balances_may_go_below_zero() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut table = Table::new(
        Options {
            starting_chips: 0,
            ..Options::default()
        },
        Seat(0),
        &mut rng,
    );
    win_auction(&mut table, 0, 10, &mut rng);
    assert_eq!(table.balances(), &[-10, -1, -1, -1, -1]);
    deal_and_play(
        &mut table,
        &[&["KS", "QS"], &["2C"], &["3C"], &["4C"]],
        &mut rng,
    );
    assert_eq!(table.balances(), &[-6, -5, -1, -1, 3]);
}

// ---------------------------------------------------------------- end_table

#[test]
fn the_host_may_end_the_table_before_any_bid_even_after_passes() {
    let (mut table, mut rng) = auction_table();
    table.play(Seat(0), Move::Pass, &mut rng).unwrap();
    assert_eq!(table.legal_moves(Seat(0)), vec![Move::EndTable]);
    table.play(Seat(0), Move::EndTable, &mut rng).unwrap();
    assert!(table.is_finished());
    assert_eq!(table.awaiting(), None);
    assert_eq!(table.round(), 0, "no round was settled");
    for seat in 0..5 {
        assert_eq!(table.legal_moves(Seat(seat)), Vec::<Move>::new());
    }
    assert_eq!(
        table
            .play(Seat(1), Move::Pass, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
    assert_eq!(table.view_for(None).phase, PhaseName::Finished);
}

#[test]
fn the_table_ends_with_the_balances_as_they_stand_and_the_pot_stays() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 5, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "4C"], &["QD", "5C"], &["9C"], &["JD", "9D"]],
        &mut rng,
    );
    table.play(Seat(0), Move::EndTable, &mut rng).unwrap();
    assert_eq!(table.balances(), &[98, 99, 103, 99, 96]);
    assert_eq!(table.pot(), pot(0, 5));
    assert_eq!(table.round(), 1);
    assert!(table.view_for(None).last_round.is_some());
}

#[test]
fn only_the_host_may_end_the_table_and_not_after_a_bid() {
    let (mut table, mut rng) = auction_table();
    let error = table.play(Seat(3), Move::EndTable, &mut rng).unwrap_err();
    assert_eq!(error, MoveError::NotHost);
    assert_eq!(error.code(), "forbidden");
    table
        .play(Seat(0), Move::Bid { amount: 1 }, &mut rng)
        .unwrap();
    assert_eq!(table.legal_moves(Seat(0)), Vec::<Move>::new());
    assert_eq!(
        table
            .play(Seat(0), Move::EndTable, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
    win_auction(&mut table, 0, 1, &mut rng);
    assert_eq!(
        table
            .play(Seat(0), Move::EndTable, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase",
        "not while the pothouder is to deal in the auction variant"
    );
}

// ---------------------------------------------------------------- lot variant

/// A named deviation from the seed text, chosen on purpose (RULES.md, docs/
/// potverteren.md): in the seed's lot variant the previous pothouder points
/// out the next one; here the pothouder is drawn by lot among all seats,
/// every round.
#[test]
fn in_the_lot_variant_the_pothouder_is_drawn_by_lot_every_round_and_deals() {
    let (mut table, mut rng) = lot_table(5, 3, false);
    let view = table.view_for(None);
    assert_eq!(view.phase, PhaseName::Dealing);
    assert_eq!(view.auction, None);
    assert_eq!(table.legal_moves(Seat(3)), vec![Move::Deal]);
    assert_eq!(
        table
            .play(Seat(3), Move::Bid { amount: 1 }, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
    let mut drawn = Vec::new();
    for _ in 0..30 {
        drawn.push(table.pothouder().unwrap());
        deal_and_play(
            &mut table,
            &[&["2C"], &["3C"], &["4C"], &["5C"], &["7C"]],
            &mut rng,
        );
    }
    drawn.sort();
    drawn.dedup();
    assert_eq!(drawn.len(), 5, "any seat may be drawn, the last one too");
}

#[test]
fn in_the_lot_variant_everyone_stakes_when_the_pothouder_deals_and_the_pothouder_plays_last() {
    let (mut table, mut rng) = lot_table(5, 1, false);
    assert_eq!(table.balances(), &[100; 5]);
    deal_stacked(&mut table, &[&["2C"], &["3C"], &["4C"], &["5C"], &["7C"]]);
    assert_eq!(table.balances(), &[99; 5]);
    assert_eq!(table.pot(), pot(5, 0));
    for (seat, blind) in [(2, "2C"), (3, "3C"), (4, "4C"), (0, "5C"), (1, "7C")] {
        assert_eq!(to_move(&table), Seat(seat));
        assert_eq!(
            table.view_for(Some(Seat(seat))).hands[usize::from(seat)].blind_card,
            Some(card(blind))
        );
        table.play(Seat(seat), Move::Stand, &mut rng).unwrap();
    }
    // The pothouder's 7 is closest below 16: it takes the whole pot.
    let result = table.settled_round(1).unwrap();
    assert_eq!(result.winners, vec![Seat(1)]);
    assert_eq!(table.balances(), &[99, 104, 99, 99, 99]);
}

#[test]
fn in_the_lot_variant_excess_goes_into_the_stakes_part_and_the_winner_takes_the_whole_pot() {
    let (mut table, mut rng) = lot_table(5, 0, false);
    deal_and_play(
        &mut table,
        &[
            &["KS", "9C"],
            &["QD", "6H"],
            &["5C"],
            &["JD", "9D"],
            &["2C"],
        ],
        &mut rng,
    );
    // 5 stakes + 3 + 3 excess = 11 to seat 2 (16).
    assert_eq!(table.balances(), &[99, 96, 110, 99, 96]);
    assert_eq!(table.pot(), pot(0, 0));
    assert_eq!(table.settled_round(1).unwrap().excess_payments.len(), 2);
}

#[test]
fn in_the_lot_variant_closest_below_sixteen_takes_the_whole_pot_and_splits_leave_a_remainder() {
    let (mut table, mut rng) = lot_table(5, 0, false);
    deal_and_play(
        &mut table,
        &[
            &["KS", "9C"],
            &["QD", "4C"],
            &["KD", "4D"],
            &["JD", "2C"],
            &["AC"],
        ],
        &mut rng,
    );
    // 5 stakes + 3 excess = 8 split by seats 2 and 3 (14 in two cards each).
    assert_eq!(table.balances(), &[99, 96, 103, 103, 99]);
    assert_eq!(table.pot(), pot(0, 0));
    let (mut table, mut rng) = lot_table(5, 0, false);
    deal_and_play(
        &mut table,
        &[
            &["KS", "4C"],
            &["QD", "4D"],
            &["JD", "4H"],
            &["2C"],
            &["AC"],
        ],
        &mut rng,
    );
    // 5 stakes split by three 14s: 1 each, 2 stay in the stakes part.
    assert_eq!(table.balances(), &[99, 100, 100, 100, 99]);
    assert_eq!(table.pot(), pot(2, 0));
}

#[test]
fn in_the_lot_variant_when_every_seat_is_over_sixteen_the_pot_carries_over() {
    let (mut table, mut rng) = lot_table(5, 0, false);
    deal_and_play(
        &mut table,
        &[
            &["KS", "7C"],
            &["KD", "9C"],
            &["KH", "QH"],
            &["JS", "JD"],
            &["10C", "9S"],
        ],
        &mut rng,
    );
    // 5 stakes + excess 1 + 3 + 4 + 4 + 3.
    assert_eq!(table.balances(), &[96, 98, 96, 95, 95]);
    assert_eq!(table.pot(), pot(20, 0));
    assert_eq!(chips_on_table(&table), 500);
}

#[test]
fn in_the_lot_variant_the_host_may_end_the_table_until_the_deal() {
    let (mut table, mut rng) = lot_table(5, 2, false);
    assert_eq!(table.legal_moves(Seat(0)), vec![Move::EndTable]);
    assert_eq!(table.legal_moves(Seat(2)), vec![Move::Deal]);
    let mut ended = table.clone();
    ended.play(Seat(0), Move::EndTable, &mut rng).unwrap();
    assert!(ended.is_finished());
    assert_eq!(ended.balances(), &[100; 5]);
    table.play(Seat(2), Move::Deal, &mut rng).unwrap();
    assert_eq!(
        table
            .play(Seat(0), Move::EndTable, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
}

#[test]
fn with_auto_deal_in_the_lot_variant_the_host_may_end_the_table_until_the_first_move_and_the_stakes_go_back()
 {
    let (mut table, mut rng) = lot_table(6, 0, true);
    assert_eq!(table.view_for(None).phase, PhaseName::Turns);
    assert_eq!(table.pot(), pot(6, 0));
    assert_eq!(table.legal_moves(Seat(0)), vec![Move::EndTable]);
    let mut ended = table.clone();
    ended.play(Seat(0), Move::EndTable, &mut rng).unwrap();
    assert_eq!(ended.balances(), &[100; 6]);
    assert_eq!(ended.pot(), pot(0, 0));
    assert_eq!(ended.view_for(None).hands[5].blind_card, None);
    table.play(Seat(1), Move::Stand, &mut rng).unwrap();
    assert_eq!(table.legal_moves(Seat(0)), Vec::<Move>::new());
    assert_eq!(
        table
            .play(Seat(0), Move::EndTable, &mut rng)
            .unwrap_err()
            .code(),
        "wrong_phase"
    );
}

// ---------------------------------------------------------------- views

#[test]
fn a_seat_sees_its_own_blind_card_and_total_but_never_another_seats_before_the_reveal() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 1, &mut rng);
    deal_stacked(&mut table, &[&["KS", "4C"], &["QD"], &["9C"], &["JD"]]);
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    let own = table.view_for(Some(Seat(1)));
    assert_eq!(own.hands[1].blind_card, Some(card("KS")));
    assert_eq!(own.hands[1].total, Some(14));
    for seat in [2, 3, 4] {
        assert_eq!(own.hands[seat].blind_card, None);
        assert_eq!(own.hands[seat].total, None);
    }
    let spectator = table.view_for(None);
    assert!(
        spectator
            .hands
            .iter()
            .all(|h| h.blind_card.is_none() && h.total.is_none())
    );
    assert_eq!(spectator.hands[1].open_cards, cards(&["4C"]));
    assert_eq!(
        spectator.hands[0].blind_card, None,
        "the pothouder has no card"
    );
}

#[test]
fn the_view_is_the_api_json_with_its_field_names() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 2, &mut rng);
    deal_stacked(&mut table, &[&["KS", "4C"], &["QD"], &["9C"], &["JD"]]);
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    let json = serde_json::to_value(table.view_for(Some(Seat(2)))).unwrap();
    let hand = |seat: u8, blind: Option<&str>, open: &[&str], stood: bool, total: Option<u32>| serde_json::json!({"seat": seat, "blind_card": blind, "open_cards": open, "stood": stood, "total": total});
    assert_eq!(
        json,
        serde_json::json!({
            "round": 1,
            "variant": "auction",
            "phase": "turns",
            "pothouder": 0,
            "pot": 6,
            "pot_parts": {"stakes": 4, "pothouder": 2},
            "balances": [98, 99, 99, 99, 99],
            "auction": null,
            "hands": [
                hand(0, None, &[], false, None),
                hand(1, None, &["4C"], false, None),
                hand(2, Some("QD"), &[], false, Some(10)),
                hand(3, None, &[], false, None),
                hand(4, None, &[], false, None),
            ],
            "last_round": null,
        })
    );
    let auction = serde_json::to_value(auction_table().0.view_for(None)).unwrap();
    assert_eq!(
        auction["auction"],
        serde_json::json!({"high_bid": null, "high_bidder": null, "passed": []})
    );
}

#[test]
fn last_round_reveals_every_dealt_hand_and_the_history_keeps_each_settled_round() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 3, &mut rng);
    deal_and_play(
        &mut table,
        &[&["KS", "9C"], &["QD", "6H"], &["5C"], &["JD", "9D"]],
        &mut rng,
    );
    let json = serde_json::to_value(table.view_for(None)).unwrap();
    assert_eq!(
        json["last_round"],
        serde_json::json!({
            "round": 1,
            "pothouder": 0,
            "hands": [
                {"seat": 1, "cards": ["KS", "9C"], "total": 19},
                {"seat": 2, "cards": ["QD", "6H"], "total": 16},
                {"seat": 3, "cards": ["5C"], "total": 5},
                {"seat": 4, "cards": ["JD", "9D"], "total": 19},
            ],
            "winners": [2],
            "pot_before": 0,
            "pot_after": 0,
            "balance_changes": [3, -4, 6, -1, -4],
            // The table around the rules fills these in (docs/fairness.md).
            "server_seed": null,
            "seat_seeds": [],
        })
    );
    assert_eq!(json["phase"], "auction");
    assert_eq!(json["round"], 2);
    assert!(
        json["hands"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["open_cards"] == serde_json::json!([]))
    );
    let first = table.settled_round(1).unwrap();
    assert_eq!(first.bid, Some(3));
    assert_eq!(first.hands[1].cards, cards(&["QD", "6H"]));
    assert_eq!(table.settled_round(2), None);
    assert_eq!(table.settled_round(0), None);
}

#[test]
fn a_table_saved_in_the_middle_of_a_round_reloads_exactly() {
    let (mut table, mut rng) = auction_table();
    win_auction(&mut table, 0, 1, &mut rng);
    deal_stacked(&mut table, &[&["KS", "4C"], &["QD"], &["9C"], &["JD"]]);
    table.play(Seat(1), Move::Hit, &mut rng).unwrap();
    let saved = serde_json::to_string(&table).unwrap();
    let mut reloaded: Table = serde_json::from_str(&saved).unwrap();
    assert_eq!(reloaded, table);
    // The same randomness from here on for both copies.
    let mut rng = StdRng::seed_from_u64(99);
    let mut rng_copy = StdRng::seed_from_u64(99);
    for seat in 1..5 {
        table.play(Seat(seat), Move::Stand, &mut rng).unwrap();
        reloaded
            .play(Seat(seat), Move::Stand, &mut rng_copy)
            .unwrap();
    }
    assert_eq!(reloaded, table);
}
