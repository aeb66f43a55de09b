//! The match as a table plays it: dealing, trump, turns, club-mode revokes,
//! the review, the score sheet, the match end, views and the API's JSON
//! (docs/klaverjassen.md, docs/api.md).

use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    BySeat, ByTeam, CardSet, Match, MatchResult, Move, MoveError, Options, Phase, RevokeMode,
    RevokeRecord, Team, deal_from_deck,
};
use kaarttafel::rules::{Action, Awaiting, Seat};
use rand::SeedableRng;
use rand::rngs::StdRng;

fn card(code: &str) -> Card {
    code.parse().unwrap()
}

fn cards(codes: &str) -> CardSet {
    codes.split_whitespace().map(card).collect()
}

fn rng() -> StdRng {
    StdRng::seed_from_u64(1)
}

/// Dealer 3, so seat 0 names trump. Trick 1 can be 7C 8C 9C 10C (a sequence
/// of four won by seat 3).
fn fixed_hands() -> BySeat<CardSet> {
    BySeat([
        cards("7C JC 7D 8D 9D 7H 8H 9H"),
        cards("8C QC 10D JD QD 10H JH QH"),
        cards("9C KC KD AD 7S 8S 9S 10S"),
        cards("10C AC KH AH JS QS KS AS"),
    ])
}

fn options(revoke_mode: RevokeMode) -> Options {
    Options {
        revoke_mode,
        ..Options::default()
    }
}

/// The fixed deal with spades as trump, ready for seat 0 to lead.
fn spades(revoke_mode: RevokeMode) -> Match {
    let mut game = Match::from_hands(options(revoke_mode), fixed_hands());
    game.play(
        Seat(0),
        Move::ChooseTrump { suit: Suit::Spades },
        &mut rng(),
    )
    .unwrap();
    game
}

fn play(game: &mut Match, seat: u8, code: &str) -> Result<(), MoveError> {
    game.play(Seat(seat), Move::Play { card: card(code) }, &mut rng())
}

fn act(game: &mut Match, seat: u8, mv: Move) -> Result<(), MoveError> {
    game.play(Seat(seat), mv, &mut rng())
}

fn report(seat: u8) -> Move {
    Move::ReportRevoke { seat: Seat(seat) }
}

/// Refuses `mv` with `code` and checks nothing changed.
fn assert_refused(game: &mut Match, seat: u8, mv: Move, code: &str) {
    let before = game.clone();
    let error = act(game, seat, mv).unwrap_err();
    assert_eq!(error.code(), code, "{mv:?} by seat {seat}: {error}");
    assert_eq!(*game, before, "a refused move changes nothing");
}

#[test]
fn deals_three_two_three_starting_with_the_seat_after_the_dealer() {
    let deck: [Card; 32] = std::array::from_fn(|i| CardSet::DECK.nth(i as u32).unwrap());
    let hands = deal_from_deck(&deck, Seat(1));
    let from = |ranges: [std::ops::Range<usize>; 3]| -> CardSet {
        ranges.into_iter().flat_map(|r| deck[r].to_vec()).collect()
    };
    assert_eq!(hands[Seat(2)], from([0..3, 12..14, 20..23]));
    assert_eq!(hands[Seat(3)], from([3..6, 14..16, 23..26]));
    assert_eq!(hands[Seat(0)], from([6..9, 16..18, 26..29]));
    assert_eq!(hands[Seat(1)], from([9..12, 18..20, 29..32]));
}

#[test]
fn dealing_is_an_action_of_the_dealer_unless_the_table_deals_automatically() {
    let mut game = Match::new(Options::default(), &mut rng());
    assert_eq!(game.phase(), Phase::Dealing);
    assert_eq!(game.dealer(), Seat(3));
    assert_eq!(
        game.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(3)],
            action: Action::Deal
        })
    );
    assert_eq!(game.legal_moves(Seat(3)), vec![Move::Deal]);
    assert_eq!(game.legal_moves(Seat(0)), vec![]);
    assert_refused(&mut game, 0, Move::Deal, "not_your_turn");
    act(&mut game, 3, Move::Deal).unwrap();
    assert_eq!(game.phase(), Phase::ChoosingTrump);
    for seat in 0..4 {
        assert_eq!(game.hand(Seat(seat)).len(), 8);
    }
    assert_refused(&mut game, 3, Move::Deal, "wrong_phase");

    let auto = Match::new(
        Options {
            auto_deal: true,
            ..Options::default()
        },
        &mut rng(),
    );
    assert_eq!(auto.phase(), Phase::ChoosingTrump);
}

#[test]
fn the_seat_after_the_dealer_must_name_trump_and_cannot_pass() {
    let mut game = Match::from_hands(options(RevokeMode::Enforced), fixed_hands());
    assert_eq!(
        game.awaiting(),
        Some(Awaiting {
            seats: vec![Seat(0)],
            action: Action::ChooseTrump
        })
    );
    let choices: Vec<Move> = Suit::ALL
        .iter()
        .map(|&suit| Move::ChooseTrump { suit })
        .collect();
    assert_eq!(game.legal_moves(Seat(0)), choices);
    for seat in 1..4 {
        assert_eq!(game.legal_moves(Seat(seat)), vec![]);
    }
    assert_refused(
        &mut game,
        1,
        Move::ChooseTrump { suit: Suit::Hearts },
        "not_your_turn",
    );
    // Section 1: no pass (a pass round is a house rule, RULES.md section 3).
    assert_refused(&mut game, 0, Move::Pass, "must_choose_trump");
    act(&mut game, 0, Move::ChooseTrump { suit: Suit::Hearts }).unwrap();
    assert_eq!(game.trump(), Some(Suit::Hearts));
    let view = game.view_for(Some(Seat(2)));
    assert_eq!(view.trump_chosen_by, Some(Seat(0)));
    assert_eq!(view.playing_team, Some(Team::A));
}

#[test]
fn the_seat_that_named_trump_leads_the_first_trick_and_the_winner_leads_the_next() {
    let mut game = spades(RevokeMode::Enforced);
    assert_eq!(game.to_play(), Some(Seat(0)));
    assert_refused(
        &mut game,
        1,
        Move::Play { card: card("8C") },
        "not_your_turn",
    );
    for (seat, code) in [(0, "7C"), (1, "8C"), (2, "9C"), (3, "10C")] {
        play(&mut game, seat, code).unwrap();
    }
    assert_eq!(game.to_play(), Some(Seat(3)));
    let view = game.view_for(Some(Seat(0)));
    assert_eq!(view.tricks_taken, ByTeam::new(0, 1));
    assert_eq!(
        view.roem,
        ByTeam::new(0, 50),
        "7C 8C 9C 10C: fifty to the trick winner's team"
    );
    assert_eq!(view.previous_trick.unwrap().winner, Seat(3));
}

#[test]
fn enforced_mode_refuses_a_card_that_may_not_be_played() {
    let mut game = spades(RevokeMode::Enforced);
    play(&mut game, 0, "7C").unwrap();
    assert_refused(
        &mut game,
        1,
        Move::Play { card: card("10D") },
        "must_follow_suit",
    );
    assert_refused(
        &mut game,
        1,
        Move::Play { card: card("9C") },
        "card_not_in_hand",
    );
    assert_refused(&mut game, 1, Move::TakeBack, "club_mode_only");
    assert_refused(&mut game, 1, report(0), "club_mode_only");
    assert_eq!(
        game.legal_moves(Seat(1)),
        vec![
            Move::Play { card: card("8C") },
            Move::Play { card: card("QC") }
        ]
    );
}

/// Seat 0 leads 7C; seat 1 holds clubs but lays 10D.
fn seat_one_revokes() -> Match {
    let mut game = spades(RevokeMode::Club);
    play(&mut game, 0, "7C").unwrap();
    play(&mut game, 1, "10D").unwrap();
    game
}

#[test]
fn club_mode_accepts_a_revoke_and_tells_nobody() {
    let revoked = seat_one_revokes();
    let mut followed = spades(RevokeMode::Club);
    play(&mut followed, 0, "7C").unwrap();
    play(&mut followed, 1, "8C").unwrap();
    for seat in [0, 1, 3] {
        assert_eq!(
            revoked.legal_moves(Seat(seat)),
            followed.legal_moves(Seat(seat))
        );
    }
    for viewer in [
        None,
        Some(Seat(0)),
        Some(Seat(1)),
        Some(Seat(2)),
        Some(Seat(3)),
    ] {
        let json = serde_json::to_string(&revoked.view_for(viewer)).unwrap();
        assert!(!json.contains("revoke"), "{json}");
    }
}

#[test]
fn club_mode_offers_take_back_to_every_seat_with_a_card_in_the_open_trick_and_reports_of_both_opponents()
 {
    let game = seat_one_revokes();
    assert_eq!(
        game.legal_moves(Seat(0)),
        vec![Move::TakeBack, report(1), report(3)]
    );
    assert_eq!(
        game.legal_moves(Seat(1)),
        vec![Move::TakeBack, report(0), report(2)]
    );
    assert_eq!(
        game.legal_moves(Seat(2)),
        vec![
            Move::Play { card: card("9C") },
            Move::Play { card: card("KC") },
            report(1),
            report(3)
        ]
    );
    assert_eq!(game.legal_moves(Seat(3)), vec![report(0), report(2)]);
}

#[test]
fn a_revoke_taken_back_while_the_trick_is_open_costs_nothing_and_the_replacement_must_be_allowed() {
    let mut game = seat_one_revokes();
    play(&mut game, 2, "9C").unwrap();
    assert_refused(&mut game, 0, Move::TakeBack, "not_a_revoke");
    assert_refused(&mut game, 3, Move::TakeBack, "nothing_to_take_back");
    act(&mut game, 1, Move::TakeBack).unwrap();
    assert_eq!(game.hand(Seat(1)), fixed_hands()[Seat(1)]);
    assert_eq!(
        game.hand(Seat(2)),
        fixed_hands()[Seat(2)],
        "later cards go back too"
    );
    assert_eq!(game.view_for(None).trick.unwrap().cards.len(), 1);
    assert_eq!(game.to_play(), Some(Seat(1)));
    assert_refused(
        &mut game,
        1,
        Move::Play { card: card("10D") },
        "must_follow_suit",
    );
    play(&mut game, 1, "QC").unwrap();
    play(&mut game, 2, "KC").unwrap();
    play(&mut game, 3, "AC").unwrap();
    assert_eq!(game.deals(), &[], "no penalty");
}

/// Seat 1's revoke in trick 1 corrected by `correction` (a take-back or a
/// report), then trick 1 played out: 7C QC KC AC, won by seat 3.
fn trick_one_after_correcting_seat_one(correction: (u8, Move)) -> Match {
    let mut game = seat_one_revokes();
    act(&mut game, correction.0, correction.1).unwrap();
    for (seat, code) in [(1, "QC"), (2, "KC"), (3, "AC")] {
        play(&mut game, seat, code).unwrap();
    }
    game
}

#[test]
fn a_report_after_a_take_back_of_that_seats_revoke_in_the_open_trick_is_already_corrected() {
    let mut game = seat_one_revokes();
    act(&mut game, 1, Move::TakeBack).unwrap();
    assert_refused(&mut game, 0, report(1), "already_corrected");
    assert_refused(&mut game, 2, report(1), "already_corrected");
    play(&mut game, 1, "QC").unwrap();
    assert_refused(&mut game, 2, report(1), "already_corrected");
}

#[test]
fn a_report_after_a_partners_correcting_report_in_the_open_trick_is_already_corrected() {
    let mut game = seat_one_revokes();
    act(&mut game, 2, report(1)).unwrap();
    assert_refused(&mut game, 0, report(1), "already_corrected");
    assert_eq!(game.deals(), &[], "nobody is punished");
    assert_eq!(game.to_play(), Some(Seat(1)));
}

#[test]
fn a_report_of_a_revoke_corrected_in_the_trick_that_closed_since_is_already_corrected() {
    for correction in [(1, Move::TakeBack), (2, report(1))] {
        let mut game = trick_one_after_correcting_seat_one(correction);
        assert_refused(&mut game, 0, report(1), "already_corrected");
        // Still so while the next trick is open with cards in it.
        play(&mut game, 3, "KH").unwrap();
        play(&mut game, 0, "7H").unwrap();
        assert_refused(&mut game, 2, report(1), "already_corrected");
        assert_eq!(game.deals(), &[], "nobody is punished");
    }
}

#[test]
fn a_report_of_a_revoke_corrected_two_tricks_ago_is_a_false_report_and_punished() {
    let mut game = trick_one_after_correcting_seat_one((1, Move::TakeBack));
    // Trick 2: KH 7H 10H, seat 2 trumps with 7S and wins.
    for (seat, code) in [(3, "KH"), (0, "7H"), (1, "10H"), (2, "7S")] {
        play(&mut game, seat, code).unwrap();
    }
    act(&mut game, 0, report(1)).unwrap();
    let row = &game.deals()[0];
    assert_eq!(
        row.report.map(|r| (r.seat, r.reported_by, r.valid)),
        Some((Seat(1), Seat(0), false))
    );
    assert_eq!(row.roem, ByTeam::new(0, 20), "QC KC AC in trick 1");
    assert_eq!(row.score, ByTeam::new(0, 262 + 20));
    assert_eq!(
        row.revokes,
        vec![RevokeRecord {
            seat: Seat(1),
            trick: 1,
            corrected: true
        }]
    );
}

#[test]
fn reporting_a_revoke_in_the_open_trick_corrects_it_without_penalty() {
    let mut game = seat_one_revokes();
    act(&mut game, 2, report(1)).unwrap();
    assert_eq!(game.phase(), Phase::Playing);
    assert_eq!(game.deals(), &[]);
    assert_eq!(game.to_play(), Some(Seat(1)));
    assert_eq!(game.hand(Seat(1)).len(), 8);
    assert_refused(
        &mut game,
        1,
        Move::Play { card: card("JD") },
        "must_follow_suit",
    );
}

/// Seat 1 revokes in trick 1 (7C 10D 9C 10C, won by seat 3) and nobody
/// reports it; in trick 2 seat 3 leads AC, seat 0 follows with JC and seat
/// 1, still holding 8C and QC, lays 10H: a second revoke, in the open trick.
fn seat_one_revokes_in_a_closed_and_in_the_open_trick() -> Match {
    let mut game = seat_one_revokes();
    for (seat, code) in [(2, "9C"), (3, "10C"), (3, "AC"), (0, "JC"), (1, "10H")] {
        play(&mut game, seat, code).unwrap();
    }
    game
}

/// The punishment of team B (seat 1's) for seat 1's revokes, reported by
/// seat 0: no roem was made in trick 1, so team A scores 262.
fn assert_team_b_punished_for_seat_one(game: &Match, revokes: Vec<RevokeRecord>) {
    let row = &game.deals()[0];
    assert_eq!(
        row.report.map(|r| (r.seat, r.reported_by, r.valid)),
        Some((Seat(1), Seat(0), true))
    );
    assert_eq!(row.score, ByTeam::new(262, 0));
    assert_eq!(row.revokes, revokes);
    assert_eq!(game.phase(), Phase::Dealing, "the deal ends at once");
}

#[test]
fn a_report_judges_closed_tricks_before_the_open_trick() {
    let mut game = seat_one_revokes_in_a_closed_and_in_the_open_trick();
    act(&mut game, 0, report(1)).unwrap();
    // Judged on the open trick first, the report would only have corrected
    // the 10H and the deal would go on.
    assert_team_b_punished_for_seat_one(
        &game,
        vec![
            RevokeRecord {
                seat: Seat(1),
                trick: 1,
                corrected: false,
            },
            RevokeRecord {
                seat: Seat(1),
                trick: 2,
                corrected: false,
            },
        ],
    );
}

#[test]
fn a_take_back_in_the_open_trick_does_not_shelter_a_revoke_in_a_closed_trick() {
    let mut game = seat_one_revokes_in_a_closed_and_in_the_open_trick();
    act(&mut game, 1, Move::TakeBack).unwrap();
    play(&mut game, 1, "QC").unwrap();
    // Seat 1's revoke in the open trick was just corrected, which alone
    // would make this report `already_corrected`; the uncorrected revoke of
    // trick 1 is judged first.
    act(&mut game, 0, report(1)).unwrap();
    assert_team_b_punished_for_seat_one(
        &game,
        vec![
            RevokeRecord {
                seat: Seat(1),
                trick: 1,
                corrected: false,
            },
            RevokeRecord {
                seat: Seat(1),
                trick: 2,
                corrected: true,
            },
        ],
    );
}

#[test]
fn a_revoke_returned_by_an_earlier_take_back_is_corrected_but_a_report_of_it_is_false() {
    let mut game = seat_one_revokes();
    // Seat 2 holds 9C and KC but lays KD: a second revoke in the trick.
    play(&mut game, 2, "KD").unwrap();
    act(&mut game, 1, Move::TakeBack).unwrap();
    assert_eq!(
        game.hand(Seat(2)),
        fixed_hands()[Seat(2)],
        "seat 2's card goes back"
    );
    play(&mut game, 1, "QC").unwrap();
    play(&mut game, 2, "KC").unwrap();
    // Whether seat 2's returned card was a revoke is secret, so naming seat 2
    // now is judged as any report: no revoke stands, the report is false.
    act(&mut game, 3, report(2)).unwrap();
    let row = &game.deals()[0];
    assert_eq!(
        row.report.map(|r| (r.seat, r.reported_by, r.valid)),
        Some((Seat(2), Seat(3), false))
    );
    assert_eq!(row.score, ByTeam::new(262, 0), "team B punished");
    assert_eq!(
        row.revokes,
        vec![
            RevokeRecord {
                seat: Seat(1),
                trick: 1,
                corrected: true,
            },
            RevokeRecord {
                seat: Seat(2),
                trick: 1,
                corrected: true,
            },
        ]
    );
}

#[test]
fn a_report_before_the_first_card_is_refused_as_the_wrong_phase() {
    let mut game = Match::from_hands(options(RevokeMode::Club), fixed_hands());
    assert_eq!(game.phase(), Phase::ChoosingTrump);
    assert_refused(&mut game, 1, report(0), "wrong_phase");
    assert_refused(&mut game, 1, Move::TakeBack, "wrong_phase");
}

#[test]
fn a_team_cannot_report_its_own_seats() {
    let mut game = seat_one_revokes();
    assert_refused(&mut game, 3, report(1), "own_team");
    assert_refused(&mut game, 1, report(1), "own_team");
    assert_refused(&mut game, 0, report(7), "no_such_seat");
}

#[test]
fn a_revoke_in_a_closed_trick_punishes_its_team_with_262_plus_all_roem() {
    let mut game = spades(RevokeMode::Club);
    for (seat, code) in [(0, "7C"), (1, "8C"), (2, "9C"), (3, "10C")] {
        play(&mut game, seat, code).unwrap();
    }
    // Seat 3 leads AC; seat 0 holds JC but lays 7D.
    for (seat, code) in [(3, "AC"), (0, "7D"), (1, "QC"), (2, "KC")] {
        play(&mut game, seat, code).unwrap();
    }
    act(&mut game, 1, report(0)).unwrap();
    let row = &game.deals()[0];
    assert_eq!(
        row.report.map(|r| (r.seat, r.reported_by, r.valid)),
        Some((Seat(0), Seat(1), true))
    );
    assert_eq!(row.roem, ByTeam::new(0, 50 + 20), "7C-10C, then QC KC AC");
    assert_eq!(row.score, ByTeam::new(0, 262 + 70));
    assert_eq!((row.pit, row.nat), (false, false));
    assert_eq!(row.tricks.len(), 2);
    assert_eq!(row.card_points, ByTeam::new(0, 10 + 11 + 3 + 4));
    assert_eq!(game.totals(), ByTeam::new(0, 332));
    assert_eq!(game.phase(), Phase::Dealing, "the deal ends at once");
    assert_eq!(game.deal_number(), 2);
    assert_refused(&mut game, 2, report(1), "wrong_phase");
}

#[test]
fn a_false_report_punishes_the_reporting_team() {
    let mut game = seat_one_revokes();
    act(&mut game, 1, report(2)).unwrap();
    let row = &game.deals()[0];
    assert_eq!(
        row.report.map(|r| (r.seat, r.reported_by, r.valid)),
        Some((Seat(2), Seat(1), false))
    );
    assert_eq!(row.score, ByTeam::new(262, 0));
}

/// Plays the rest of the deal with the first allowed card each time.
fn play_out(game: &mut Match) {
    while let Some(seat) = game.to_play() {
        let first = game.legal_cards(seat).nth(0).unwrap();
        game.play(seat, Move::Play { card: first }, &mut rng())
            .unwrap();
    }
}

#[test]
fn club_mode_reviews_every_trick_after_the_last_and_scores_when_all_four_are_done() {
    let mut game = spades(RevokeMode::Club);
    play_out(&mut game);
    assert_eq!(game.phase(), Phase::Review);
    assert_eq!(
        game.awaiting(),
        Some(Awaiting {
            seats: (0..4).map(Seat).collect(),
            action: Action::EndReview
        })
    );
    let view = game.view_for(None);
    let tricks = view.review_tricks.unwrap();
    assert_eq!(tricks.len(), 8);
    assert_eq!(view.previous_trick, Some(tricks[7]));
    assert_eq!(view.trick, None);
    assert_eq!(
        game.legal_moves(Seat(2)),
        vec![Move::EndReview, report(1), report(3)]
    );
    for seat in 0..3 {
        act(&mut game, seat, Move::EndReview).unwrap();
    }
    assert_eq!(game.legal_moves(Seat(0)), vec![]);
    assert_refused(&mut game, 0, Move::EndReview, "already_reported");
    assert_refused(&mut game, 0, report(1), "already_reported");
    assert_eq!(game.deals(), &[]);
    act(&mut game, 3, Move::EndReview).unwrap();
    let row = &game.deals()[0];
    assert_eq!(row.card_points.a + row.card_points.b, 162);
    assert_eq!(row.report, None);
    assert_eq!(game.phase(), Phase::Dealing);
}

#[test]
fn a_revoke_nobody_reported_during_play_is_punished_when_reported_in_the_review() {
    let mut game = spades(RevokeMode::Club);
    for (seat, code) in [(0, "7C"), (1, "10D"), (2, "9C"), (3, "10C")] {
        play(&mut game, seat, code).unwrap();
    }
    play_out(&mut game);
    assert_eq!(game.phase(), Phase::Review);
    act(&mut game, 2, Move::EndReview).unwrap();
    act(&mut game, 0, report(1)).unwrap();
    let row = &game.deals()[0];
    assert_eq!(row.report.map(|r| r.valid), Some(true));
    assert_eq!(row.score.b, 0);
    assert_eq!(row.score.a, 262 + row.roem.a + row.roem.b);
    assert_eq!(row.tricks.len(), 8);
}

/// A named deviation from the seed text, chosen on purpose (RULES.md, docs/
/// klaverjassen.md): the seed lets only the first trick be viewed while the
/// second is open; every completed trick stays visible until the next one
/// completes.
#[test]
fn the_previous_trick_stays_visible_until_the_next_one_completes() {
    let mut game = spades(RevokeMode::Enforced);
    assert_eq!(game.view_for(None).previous_trick, None);
    for (seat, code) in [(0, "7C"), (1, "8C"), (2, "9C"), (3, "10C")] {
        play(&mut game, seat, code).unwrap();
    }
    for (seat, code) in [(3, "AC"), (0, "JC"), (1, "QC")] {
        play(&mut game, seat, code).unwrap();
        assert_eq!(
            game.view_for(Some(Seat(2))).previous_trick.unwrap().number,
            1
        );
    }
    play(&mut game, 2, "KC").unwrap();
    let view = game.view_for(Some(Seat(2)));
    assert_eq!(view.previous_trick.unwrap().number, 2);
    assert_eq!(view.trick.unwrap().number, 3);
}

#[test]
fn a_seat_sees_its_own_hand_and_a_spectator_none() {
    let game = spades(RevokeMode::Enforced);
    for seat in 0..4 {
        assert_eq!(
            game.view_for(Some(Seat(seat))).hand,
            fixed_hands()[Seat(seat)]
        );
    }
    let spectator = game.view_for(None);
    assert_eq!(spectator.hand, CardSet::EMPTY);
    assert_eq!(spectator.hand_sizes, BySeat([8, 8, 8, 8]));
}

#[test]
fn a_finished_deal_shows_its_hands_tricks_and_card_points_in_the_score_sheet() {
    let mut game = spades(RevokeMode::Enforced);
    play_out(&mut game);
    let view = game.view_for(None);
    assert_eq!(view.phase, Phase::Dealing);
    assert_eq!(
        (view.previous_trick, view.trick, view.trump),
        (None, None, None)
    );
    assert_eq!(view.tricks_taken, ByTeam::new(0, 0));
    let row = &view.deals[0];
    assert_eq!(row.hands, fixed_hands());
    assert_eq!(row.tricks.len(), 8);
    assert_eq!(row.card_points.a + row.card_points.b, 162);
    assert_eq!(
        (row.number, row.dealer, row.trump),
        (1, Seat(3), Suit::Spades)
    );
}

#[test]
fn the_dealer_moves_on_every_deal_and_each_seat_deals_four_times() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut game = Match::new(
        Options {
            auto_deal: true,
            ..Options::default()
        },
        &mut rng,
    );
    while !game.is_finished() {
        let chooser = game.first_hand();
        game.play(chooser, Move::ChooseTrump { suit: Suit::Clubs }, &mut rng)
            .unwrap();
        play_out(&mut game);
    }
    let dealers: Vec<u8> = game.deals().iter().map(|row| row.dealer.0).collect();
    assert_eq!(dealers, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
    let numbers: Vec<u8> = game.deals().iter().map(|row| row.number).collect();
    assert_eq!(numbers, (1..=16).collect::<Vec<u8>>());
}

#[test]
fn the_match_ends_after_its_deals_with_the_higher_total_winning_or_a_draw() {
    let mut game = Match::from_hands(
        Options {
            revoke_mode: RevokeMode::Club,
            deals: 2,
            ..Options::default()
        },
        fixed_hands(),
    );
    act(&mut game, 0, Move::ChooseTrump { suit: Suit::Spades }).unwrap();
    act(&mut game, 0, report(1)).unwrap();
    assert_eq!(game.totals(), ByTeam::new(0, 262));
    assert_eq!(game.result(), None);
    // Deal 2: dealer 0, seat 1 names trump; a false report by team B.
    game.deal_hands(Seat(0), fixed_hands()).unwrap();
    act(&mut game, 1, Move::ChooseTrump { suit: Suit::Hearts }).unwrap();
    act(&mut game, 1, report(0)).unwrap();
    assert!(game.is_finished());
    assert_eq!(game.totals(), ByTeam::new(262, 262));
    assert_eq!(game.result(), Some(MatchResult::Draw));
    assert_eq!(game.awaiting(), None);
    for seat in 0..4 {
        assert_eq!(game.legal_moves(Seat(seat)), vec![]);
    }
    assert_refused(&mut game, 0, Move::Deal, "wrong_phase");
    assert_eq!(game.view_for(None).phase, Phase::Finished);

    let mut won = Match::from_hands(
        Options {
            deals: 1,
            ..Options::default()
        },
        fixed_hands(),
    );
    act(&mut won, 0, Move::ChooseTrump { suit: Suit::Spades }).unwrap();
    play_out(&mut won);
    let totals = won.totals();
    let winner = if totals.a > totals.b {
        Team::A
    } else {
        Team::B
    };
    assert_eq!(won.result(), Some(MatchResult::Won(winner)));
}

#[test]
fn moves_with_fields_they_do_not_have_are_refused() {
    for (json, message) in [
        (
            r#"{"type":"deal","card":"7C"}"#,
            "`deal` has no field `card`",
        ),
        (
            r#"{"type":"take_back","seat":1}"#,
            "`take_back` has no field `seat`",
        ),
        (
            r#"{"type":"end_review","suit":"H"}"#,
            "`end_review` has no field `suit`",
        ),
        (
            r#"{"type":"play","card":"7C","suit":"H"}"#,
            "`play` has no field `suit`",
        ),
        (
            r#"{"type":"choose_trump","suit":"H","seat":0}"#,
            "`choose_trump` has no field `seat`",
        ),
        (
            r#"{"type":"report_revoke","card":"7C","seat":1}"#,
            "`report_revoke` has no field `card`",
        ),
        (
            r#"{"type":"report_revoke"}"#,
            "`report_revoke` needs a `seat`",
        ),
        (
            r#"{"type":"choose_trump"}"#,
            "`choose_trump` needs a `suit`",
        ),
        (r#"{"type":"deal","amount":1}"#, "unknown field `amount`"),
    ] {
        let error = serde_json::from_str::<Move>(json).unwrap_err().to_string();
        assert!(error.contains(message), "{json}: {error}");
    }
}

#[test]
fn moves_read_and_write_the_api_json() {
    let cases = [
        (Move::Deal, r#"{"type":"deal"}"#),
        (
            Move::ChooseTrump { suit: Suit::Hearts },
            r#"{"type":"choose_trump","suit":"H"}"#,
        ),
        (
            Move::Play { card: card("7C") },
            r#"{"type":"play","card":"7C"}"#,
        ),
        (Move::TakeBack, r#"{"type":"take_back"}"#),
        (report(1), r#"{"type":"report_revoke","seat":1}"#),
        (Move::EndReview, r#"{"type":"end_review"}"#),
    ];
    for (mv, json) in cases {
        assert_eq!(serde_json::to_string(&mv).unwrap(), json);
        assert_eq!(serde_json::from_str::<Move>(json).unwrap(), mv);
    }
    for bad in [
        r#"{"type":"play","card":"7C","extra":1}"#,
        r#"{"type":"play","card":"1C"}"#,
        r#"{"type":"play"}"#,
        r#"{"type":"bid","amount":3}"#,
    ] {
        assert!(serde_json::from_str::<Move>(bad).is_err(), "{bad}");
    }
}

#[test]
fn options_default_to_enforced_seat_three_sixteen_deals_manual_dealing() {
    let options: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(options, Options::default());
    assert_eq!(
        serde_json::to_value(&options).unwrap(),
        serde_json::json!({"revoke_mode": "enforced", "first_dealer": 3, "deals": 16, "auto_deal": false,
            "trump_obligation": "rotterdam", "undertrump": "last_resort",
            "trump_choice": "voorhand", "four_jacks": 200})
    );
    let club: Options = serde_json::from_str(r#"{"revoke_mode":"club","deals":4}"#).unwrap();
    assert_eq!((club.revoke_mode, club.deals), (RevokeMode::Club, 4));
    assert!(serde_json::from_str::<Options>(r#"{"colour":"red"}"#).is_err());
    assert!(serde_json::from_str::<Options>(r#"{"revoke_mode":"lenient"}"#).is_err());
    for (bad, option) in [
        (
            Options {
                deals: 0,
                ..Options::default()
            },
            "deals",
        ),
        (
            Options {
                deals: 17,
                ..Options::default()
            },
            "deals",
        ),
        (
            Options {
                first_dealer: Seat(4),
                ..Options::default()
            },
            "first_dealer",
        ),
    ] {
        assert_eq!(bad.validate().unwrap_err().option, option);
    }
    assert_eq!(
        Options {
            deals: 1,
            first_dealer: Seat(0),
            ..Options::default()
        }
        .validate(),
        Ok(())
    );
}

#[test]
fn the_view_has_exactly_the_api_fields() {
    let mut game = spades(RevokeMode::Club);
    play(&mut game, 0, "7C").unwrap();
    let json = serde_json::to_value(game.view_for(Some(Seat(1)))).unwrap();
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "deal_number",
            "dealer",
            "deals",
            "hand",
            "hand_sizes",
            "passed",
            "phase",
            "playing_team",
            "previous_trick",
            "review_tricks",
            "roem",
            "totals",
            "trick",
            "tricks_taken",
            "trump",
            "trump_chosen_by",
        ]
    );
    assert_eq!(json["phase"], "playing");
    assert_eq!(json["playing_team"], "A");
    assert_eq!(json["trump"], "S");
    assert_eq!(
        json["trick"],
        serde_json::json!({"number": 1, "leader": 0, "cards": [{"seat": 0, "card": "7C"}]})
    );
    assert_eq!(json["roem"], serde_json::json!({"A": 0, "B": 0}));
    assert_eq!(json["hand_sizes"], serde_json::json!([7, 8, 8, 8]));
}

#[test]
fn every_refusal_has_a_stable_code_and_a_sentence() {
    let errors = [
        (MoveError::WrongPhase, "wrong_phase"),
        (MoveError::NotYourTurn, "not_your_turn"),
        (MoveError::NoSuchSeat { seat: Seat(9) }, "no_such_seat"),
        (
            MoveError::CardNotInHand { card: card("7C") },
            "card_not_in_hand",
        ),
        (
            MoveError::MustFollowSuit {
                card: card("7C"),
                led: Suit::Hearts,
            },
            "must_follow_suit",
        ),
        (MoveError::MustTrump { card: card("7C") }, "must_trump"),
        (
            MoveError::MustOvertrump { card: card("7C") },
            "must_overtrump",
        ),
        (
            MoveError::MustNotUndertrump { card: card("7C") },
            "must_not_undertrump",
        ),
        (MoveError::MustChooseTrump, "must_choose_trump"),
        (MoveError::NotARevoke, "not_a_revoke"),
        (MoveError::NothingToTakeBack, "nothing_to_take_back"),
        (MoveError::OwnTeam, "own_team"),
        (MoveError::AlreadyReported, "already_reported"),
        (MoveError::AlreadyCorrected, "already_corrected"),
        (MoveError::ClubModeOnly, "club_mode_only"),
    ];
    for (error, code) in errors {
        assert_eq!(error.code(), code);
        assert!(error.to_string().len() > 20, "{error}");
    }
}
