use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;
use crate::rules::fairness::Stream;

fn settings(format: Format, duplicate: bool) -> Settings {
    Settings {
        name: "Donderdagavond".into(),
        format,
        rounds: 3,
        deals: 2,
        duplicate,
        options: serde_json::json!({}),
        private: false,
        starts_at: None,
    }
}

fn event(format: Format, duplicate: bool) -> Event {
    let top = ServerSeed::random(&mut StdRng::seed_from_u64(5));
    Event::new(
        Uuid::from_u128(1),
        ORGANIZER,
        settings(format, duplicate),
        top,
        None,
        0,
    )
}

const ORGANIZER: Uuid = Uuid::from_u128(99);

fn member(n: u128) -> Member {
    Member {
        id: Uuid::from_u128(n),
        name: format!("P{n}"),
        bot: None,
    }
}

fn bot(i: usize) -> Member {
    Member {
        id: Uuid::from_u128(1000 + i as u128),
        name: format!("Computer {i}"),
        bot: Some(Level::Basic),
    }
}

fn code(result: Result<(), EventError>) -> &'static str {
    match result {
        Err(EventError::Conflict { code, .. }) => code,
        Err(EventError::Invalid(_)) => "validation_failed",
        Err(EventError::Forbidden(_)) => "forbidden",
        Err(EventError::NotFound(_)) => "not_found",
        Ok(()) => "ok",
    }
}

#[test]
fn a_pairs_entry_is_complete_when_the_named_partner_names_the_first() {
    let mut e = event(Format::Pairs, false);
    e.enter(member(1), Some(Uuid::from_u128(2))).unwrap();
    assert!(!e.entries[0].complete(Format::Pairs));
    assert_eq!(e.missing_players(), 1 + 2, "the partner, and a second pair");
    e.enter(member(2), Some(Uuid::from_u128(1))).unwrap();
    assert_eq!(e.entries.len(), 1);
    assert!(e.entries[0].complete(Format::Pairs));
    assert_eq!(e.entry_of(Uuid::from_u128(2)), Some(0));
    assert_eq!(e.version, 3);
}

#[test]
fn a_player_naming_someone_else_makes_an_entry_of_its_own() {
    let mut e = event(Format::Pairs, false);
    e.enter(member(1), Some(Uuid::from_u128(2))).unwrap();
    e.enter(member(2), Some(Uuid::from_u128(3))).unwrap();
    assert_eq!(e.entries.len(), 2);
    // Player 3 answers player 2: their pair is complete, player 1 waits on.
    e.enter(member(3), Some(Uuid::from_u128(2))).unwrap();
    assert!(e.entries[1].complete(Format::Pairs));
    assert!(!e.entries[0].complete(Format::Pairs));
    assert_eq!(
        code(e.enter(member(4), Some(Uuid::from_u128(2)))),
        "already_entered"
    );
    assert_eq!(code(e.enter(member(4), None)), "validation_failed");
    assert_eq!(
        code(e.enter(member(4), Some(Uuid::from_u128(4)))),
        "validation_failed"
    );
    assert_eq!(
        code(e.enter(member(1), Some(Uuid::from_u128(5)))),
        "already_entered"
    );
}

#[test]
fn the_start_needs_every_entry_complete_and_a_full_field() {
    let mut e = event(Format::Pairs, true);
    e.enter(member(1), Some(Uuid::from_u128(2))).unwrap();
    e.add_bots(ORGANIZER, 2, bot).unwrap();
    // One partner, and a fourth pair for duplicate.
    assert_eq!(e.missing_players(), 3);
    let refused = e.start(ORGANIZER);
    assert_eq!(
        refused,
        Err(EventError::Conflict {
            code: "entries_incomplete",
            detail: "3 players missing".into()
        })
    );
    assert_eq!(e.status, EventStatus::Open);
    e.enter(member(2), Some(Uuid::from_u128(1))).unwrap();
    e.add_bots(ORGANIZER, 1, |i| bot(10 + i)).unwrap();
    assert_eq!(e.missing_players(), 0);
    assert_eq!(code(e.start(Uuid::from_u128(1))), "forbidden");
    e.start(ORGANIZER).unwrap();
    assert_eq!(e.status, EventStatus::Running);
    assert_eq!(e.schedule, pairs::schedule(4, 3));
    assert_eq!(
        code(e.enter(member(7), Some(Uuid::from_u128(8)))),
        "event_started"
    );
}

#[test]
fn an_individual_field_is_a_multiple_of_four_players() {
    let mut e = event(Format::Individual, false);
    assert_eq!(e.missing_players(), 4);
    e.add_bots(ORGANIZER, 5, bot).unwrap();
    assert_eq!(e.missing_players(), 3);
    e.add_bots(ORGANIZER, 3, |i| bot(10 + i)).unwrap();
    assert_eq!(e.missing_players(), 0);
    assert_eq!(
        code(e.add_bots(ORGANIZER, 33, |i| bot(20 + i))),
        "event_full"
    );
    let mut d = event(Format::Individual, true);
    d.add_bots(ORGANIZER, 4, bot).unwrap();
    assert_eq!(d.missing_players(), 4, "duplicate needs two tables");
}

#[test]
fn the_individual_draw_is_repeated_from_the_revealed_draw_seed_and_the_entry_seeds() {
    let mut e = event(Format::Individual, false);
    e.add_bots(ORGANIZER, 8, bot).unwrap();
    e.set_seed(Uuid::from_u128(1003), SeatSeed::parse("c0ffee").unwrap())
        .unwrap();
    assert_eq!(e.draw_seed(), None, "secret while open");
    e.start(ORGANIZER).unwrap();
    let seed = crate::rules::fairness::seed_from_hex(&e.draw_seed().unwrap()).unwrap();
    assert_eq!(
        to_hex(&hash_steps(&seed, 1)),
        e.seeds.commitment(),
        "link 1 hashes once to the commitment"
    );
    let seat_seeds = e.entry_seeds();
    let inputs = DealInputs {
        server_seed: &seed,
        game_id: *e.id.as_bytes(),
        deal: 0,
        seat_seeds: &seat_seeds,
    };
    let mut stream: Stream = inputs.stream(Purpose::Draw);
    assert_eq!(individual::draw(8, 3, &mut stream), e.schedule);
}

#[test]
fn every_table_of_a_duplicate_round_deals_the_boards_of_the_event() {
    use crate::rules::fairness::Randomness;
    use crate::rules::klaverjassen::canonical_deck;
    let mut e = event(Format::Pairs, true);
    e.add_bots(ORGANIZER, 4, bot).unwrap();
    e.set_seed(Uuid::from_u128(1000), SeatSeed::parse("ab").unwrap())
        .unwrap();
    e.start(ORGANIZER).unwrap();
    for round in 1..=3 {
        let mut one = e.board_fairness(round);
        let mut other = e.board_fairness(round);
        for deal in 1..=2u8 {
            let board = board_number(2, round, deal);
            let mut expected = canonical_deck().to_vec();
            e.board_deck(board, &mut expected);
            for fair in [&mut one, &mut other] {
                // The table's own id is not mixed in.
                let mut deck = canonical_deck().to_vec();
                fair.draws(Uuid::new_v4())
                    .shuffle_deck(u32::from(deal), &mut deck);
                assert_eq!(deck, expected, "round {round} deal {deal}");
            }
            let revealed = one.reveal(u32::from(deal)).unwrap();
            assert_eq!(revealed.server_seed, to_hex(&e.seeds.link(board + 1)));
        }
    }
    let mut first = canonical_deck().to_vec();
    let mut second = canonical_deck().to_vec();
    e.board_deck(1, &mut first);
    e.board_deck(2, &mut second);
    assert_ne!(first, second, "each board its own deck");
}

#[test]
fn withdrawing_removes_the_whole_entry_and_only_the_organizer_removes_others() {
    let mut e = event(Format::Pairs, false);
    e.enter(member(1), Some(Uuid::from_u128(2))).unwrap();
    e.enter(member(2), Some(Uuid::from_u128(1))).unwrap();
    e.add_bots(ORGANIZER, 1, bot).unwrap();
    e.withdraw(Uuid::from_u128(2)).unwrap();
    assert_eq!(e.entries.len(), 1);
    assert_eq!(code(e.remove_entry(Uuid::from_u128(1), 0)), "forbidden");
    assert_eq!(code(e.remove_entry(ORGANIZER, 1)), "not_found");
    e.remove_entry(ORGANIZER, 0).unwrap();
    assert!(e.entries.is_empty());
    e.cancel(ORGANIZER).unwrap();
    assert_eq!(code(e.cancel(ORGANIZER)), "event_over");
}
