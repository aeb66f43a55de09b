//! The house rules of RULES.md section 3 (docs/klaverjassen.md, "House
//! rules"), one test per rule: `trump_obligation` (Amsterdam), `undertrump`
//! (compulsory undertrumping), `trump_choice` (the pass round) and
//! `four_jacks`, each against section 1 where they differ, with the refusal
//! codes of section 1.

use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    BySeat, CardSet, FourJacks, HouseRules, Match, Move, Options, Phase, RevokeMode, Team,
    TrickSoFar, TrumpChoice, TrumpObligation, Undertrump, legal_cards, refusal, roem,
};
use kaarttafel::rules::{Action, Awaiting, Seat};
use rand::SeedableRng;
use rand::rngs::StdRng;

const H: Suit = Suit::Hearts;

fn card(code: &str) -> Card {
    code.parse().unwrap()
}

fn cards(codes: &str) -> CardSet {
    codes.split_whitespace().map(card).collect()
}

fn rng() -> StdRng {
    StdRng::seed_from_u64(48)
}

const ROTTERDAM: HouseRules = HouseRules {
    trump_obligation: TrumpObligation::Rotterdam,
    undertrump: Undertrump::LastResort,
    trump_choice: TrumpChoice::Voorhand,
    four_jacks: FourJacks::TwoHundred,
};

const AMSTERDAM: HouseRules = HouseRules {
    trump_obligation: TrumpObligation::Amsterdam,
    ..ROTTERDAM
};

const REQUIRED: HouseRules = HouseRules {
    undertrump: Undertrump::Required,
    ..ROTTERDAM
};

const AMSTERDAM_REQUIRED: HouseRules = HouseRules {
    trump_obligation: TrumpObligation::Amsterdam,
    undertrump: Undertrump::Required,
    ..ROTTERDAM
};

/// The cards `hand` may play into `trick` (cards in play order from the
/// leader; the seat to play comes next), hearts trump.
fn legal(rules: HouseRules, hand: &str, trick: &str) -> CardSet {
    let played: Vec<Card> = trick.split_whitespace().map(card).collect();
    legal_cards(cards(hand), TrickSoFar::of(&played, H), H, rules)
}

/// The code refusing `played`, or `None` when it may be played.
fn refused(rules: HouseRules, hand: &str, trick: &str, played: &str) -> Option<&'static str> {
    let trick: Vec<Card> = trick.split_whitespace().map(card).collect();
    refusal(
        cards(hand),
        TrickSoFar::of(&trick, H),
        H,
        rules,
        card(played),
    )
    .map(|error| error.code())
}

// ---- trump_obligation: amsterdam ----

// In "AC 8H 7C" seat 0 led the ace of clubs, seat 1 trumped with the 8 of
// hearts and seat 2 followed: seat 3, seat 1's partner, is to play, and
// its partner is winning the trick.

#[test]
fn amsterdam_partner_winning_may_discard() {
    assert_eq!(legal(AMSTERDAM, "7H JH AD", "AC 8H 7C"), cards("JH AD"));
    assert_eq!(refused(AMSTERDAM, "7H JH AD", "AC 8H 7C", "AD"), None);
    // Rotterdam: the partner's trump must be overtrumped all the same.
    assert_eq!(legal(ROTTERDAM, "7H JH AD", "AC 8H 7C"), cards("JH"));
    assert_eq!(
        refused(ROTTERDAM, "7H JH AD", "AC 8H 7C", "AD"),
        Some("must_overtrump")
    );
}

#[test]
fn amsterdam_partner_winning_need_not_trump_an_untrumped_trick() {
    // Seat 1's ace of clubs wins; seat 3 holds no clubs.
    assert_eq!(legal(AMSTERDAM, "7H AD", "7C AC 8C"), cards("7H AD"));
    assert_eq!(legal(ROTTERDAM, "7H AD", "7C AC 8C"), cards("7H"));
    assert_eq!(
        refused(ROTTERDAM, "7H AD", "7C AC 8C", "AD"),
        Some("must_trump")
    );
}

#[test]
fn amsterdam_partner_winning_may_overtrump_the_partner() {
    assert!(legal(AMSTERDAM, "JH AD", "AC 8H 7C").contains(card("JH")));
}

#[test]
fn amsterdam_partner_winning_may_not_undertrump_while_holding_another_card() {
    assert_eq!(legal(AMSTERDAM, "7H AD", "AC 9H 7C"), cards("AD"));
    assert_eq!(
        refused(AMSTERDAM, "7H AD", "AC 9H 7C", "7H"),
        Some("must_not_undertrump")
    );
    // A higher trump beside the lower one does not make the lower one go.
    assert_eq!(
        refused(AMSTERDAM, "7H JH", "AC 9H 7C", "7H"),
        Some("must_not_undertrump")
    );
}

#[test]
fn amsterdam_partner_winning_may_undertrump_holding_nothing_but_lower_trumps() {
    assert_eq!(legal(AMSTERDAM, "7H 8H", "AC 9H 7C"), cards("7H 8H"));
}

#[test]
fn amsterdam_partner_is_the_seat_two_places_before() {
    // Second to play: the leader is an opponent, so the obligation holds.
    assert_eq!(legal(AMSTERDAM, "7H AD", "AC"), cards("7H"));
    // Third to play: the leader is the partner.
    assert_eq!(legal(AMSTERDAM, "7H AD", "AC 8C"), cards("7H AD"));
}

#[test]
fn amsterdam_opponent_winning_keeps_the_obligations() {
    // Seat 1 trumped over the partner's ace: seat 2 must overtrump.
    assert_eq!(legal(AMSTERDAM, "JH AD", "AC 8H"), cards("JH"));
    assert_eq!(
        refused(AMSTERDAM, "JH AD", "AC 8H", "AD"),
        Some("must_overtrump")
    );
    // The partner's ace of clubs is beaten by the opponent's 9 of trump,
    // which seat 2 cannot overtrump: no undertrumping while it holds
    // another card.
    assert_eq!(legal(AMSTERDAM, "7H AD", "AC 9H"), cards("AD"));
    assert_eq!(
        refused(AMSTERDAM, "7H AD", "AC 9H", "7H"),
        Some("must_not_undertrump")
    );
    // The opponent's plain card winning: trump.
    assert_eq!(
        refused(AMSTERDAM, "7H AD", "AC 7C 8C", "AD"),
        Some("must_trump")
    );
}

#[test]
fn amsterdam_trump_led_keeps_the_obligations() {
    // The partner led the 9 of trump and wins: still go over it.
    assert_eq!(legal(AMSTERDAM, "JH 8H AD", "9H 7H"), cards("JH"));
    assert_eq!(
        refused(AMSTERDAM, "JH 8H AD", "9H 7H", "8H"),
        Some("must_overtrump")
    );
}

#[test]
fn amsterdam_partner_winning_still_follows_suit() {
    assert_eq!(legal(AMSTERDAM, "7C 7H AD", "AC 8H 8C"), cards("7C"));
    assert_eq!(
        refused(AMSTERDAM, "7C 7H AD", "AC 8H 8C", "AD"),
        Some("must_follow_suit")
    );
}

// ---- undertrump: required ----

#[test]
fn required_undertrump_when_unable_to_overtrump() {
    assert_eq!(legal(REQUIRED, "7H AS 7D", "AC 9H"), cards("7H"));
    assert_eq!(
        refused(REQUIRED, "7H AS 7D", "AC 9H", "AS"),
        Some("must_trump")
    );
    // Section 1: a card that is no trump instead.
    assert_eq!(legal(ROTTERDAM, "7H AS 7D", "AC 9H"), cards("AS 7D"));
    assert_eq!(
        refused(ROTTERDAM, "7H AS 7D", "AC 9H", "7H"),
        Some("must_not_undertrump")
    );
}

#[test]
fn required_undertrump_takes_any_trump_when_none_beats_the_trick() {
    assert_eq!(legal(REQUIRED, "7H 8H AS", "AC JH"), cards("7H 8H"));
}

#[test]
fn required_undertrump_still_overtrumps_when_it_can() {
    assert_eq!(legal(REQUIRED, "JH 7H AS", "AC 9H"), cards("JH"));
    assert_eq!(
        refused(REQUIRED, "JH 7H AS", "AC 9H", "7H"),
        Some("must_overtrump")
    );
    assert_eq!(
        refused(REQUIRED, "JH 7H AS", "AC 9H", "AS"),
        Some("must_overtrump")
    );
}

#[test]
fn required_undertrump_trumps_an_untrumped_trick_and_frees_a_hand_without_trump() {
    assert_eq!(legal(REQUIRED, "7H AS", "AC"), cards("7H"));
    assert_eq!(refused(REQUIRED, "7H AS", "AC", "AS"), Some("must_trump"));
    assert_eq!(legal(REQUIRED, "AS 7D", "AC 9H"), cards("AS 7D"));
}

#[test]
fn required_undertrump_with_amsterdam_the_partner_exemption_comes_first() {
    // The partner (seat 1) trumped and wins: no trump needed, and the lower
    // trump stays a last resort.
    assert_eq!(legal(AMSTERDAM_REQUIRED, "7H AS", "AC 9H 7C"), cards("AS"));
    assert_eq!(
        refused(AMSTERDAM_REQUIRED, "7H AS", "AC 9H 7C", "7H"),
        Some("must_not_undertrump")
    );
    assert_eq!(
        legal(AMSTERDAM_REQUIRED, "7H AS", "7C AC 8C"),
        cards("7H AS")
    );
    // An opponent winning: compulsory undertrumping holds.
    assert_eq!(legal(AMSTERDAM_REQUIRED, "7H AS", "AC 9H"), cards("7H"));
    assert_eq!(
        refused(AMSTERDAM_REQUIRED, "7H AS", "AC 9H", "AS"),
        Some("must_trump")
    );
}

// ---- the refusal codes stay those of section 1 under every option ----

#[test]
fn every_refusal_under_every_house_rule_is_a_section_one_code() {
    let section_one = [
        "must_follow_suit",
        "must_trump",
        "must_overtrump",
        "must_not_undertrump",
    ];
    let deck: Vec<Card> = CardSet::DECK.iter().collect();
    let mut rng = rng();
    let mut refusals = 0;
    for rules in HouseRules::all() {
        for case in 0..2_000 {
            use rand::seq::SliceRandom;
            let mut shuffled = deck.clone();
            shuffled.shuffle(&mut rng);
            let trick = &shuffled[..case % 4];
            let hand: CardSet = shuffled[4..5 + case % 8].iter().copied().collect();
            let allowed = legal_cards(hand, TrickSoFar::of(trick, H), H, rules);
            assert!(!allowed.is_empty());
            for played in hand {
                let code = refusal(hand, TrickSoFar::of(trick, H), H, rules, played)
                    .map(|error| error.code());
                assert_eq!(code.is_none(), allowed.contains(played));
                if let Some(code) = code {
                    assert!(section_one.contains(&code), "{code}");
                    refusals += 1;
                }
            }
        }
    }
    assert!(refusals > 10_000, "{refusals}");
}

// ---- four_jacks ----

#[test]
fn four_jacks_count_200_roem_by_default_and_100_under_the_house_rule() {
    let hundred = HouseRules {
        four_jacks: FourJacks::OneHundred,
        ..ROTTERDAM
    };
    assert_eq!(roem(cards("JC JD JH JS"), H, ROTTERDAM), 200);
    assert_eq!(roem(cards("JC JD JH JS"), H, hundred), 100);
    // Other fours are 100 either way.
    assert_eq!(roem(cards("AC AD AH AS"), H, hundred), 100);
    assert_eq!(roem(cards("9C 9D 9H 9S"), H, ROTTERDAM), 100);
}

/// A deal whose first trick holds the four jacks: seat 0 holds the clubs,
/// seat 1 the diamonds, seat 2 the hearts (trump) and seat 3 the spades.
fn suit_per_seat() -> BySeat<CardSet> {
    let suit = |s: &str| cards(&format!("7{s} 8{s} 9{s} 10{s} J{s} Q{s} K{s} A{s}"));
    BySeat([suit("C"), suit("D"), suit("H"), suit("S")])
}

#[test]
fn four_jacks_in_a_trick_bring_the_tables_roem() {
    for (four_jacks, points) in [(FourJacks::TwoHundred, 200), (FourJacks::OneHundred, 100)] {
        let options = Options {
            four_jacks,
            ..Options::default()
        };
        let mut game = Match::from_hands(options, suit_per_seat());
        let rng = &mut rng();
        game.play(Seat(0), Move::ChooseTrump { suit: H }, rng)
            .unwrap();
        for (seat, code) in [(0, "JC"), (1, "JD"), (2, "JH"), (3, "JS")] {
            game.play(Seat(seat), Move::Play { card: card(code) }, rng)
                .unwrap();
        }
        let view = game.view_for(None);
        assert_eq!((view.roem.a, view.roem.b), (points, 0), "{four_jacks:?}");
    }
}

// ---- trump_choice: pass_round ----

/// A pass-round table whose first deal is dealt, dealer 3: seat 0 is the
/// voorhand.
fn pass_round(revoke_mode: RevokeMode) -> Match {
    let options = Options {
        trump_choice: TrumpChoice::PassRound,
        revoke_mode,
        deals: 2,
        ..Options::default()
    };
    Match::from_hands(options, suit_per_seat())
}

fn suits() -> Vec<Move> {
    Suit::ALL.map(|suit| Move::ChooseTrump { suit }).to_vec()
}

fn choosing(seat: u8) -> Option<Awaiting> {
    Some(Awaiting {
        seats: vec![Seat(seat)],
        action: Action::ChooseTrump,
    })
}

#[test]
fn pass_round_each_seat_in_turn_names_trump_or_passes() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    let with_pass = [suits(), vec![Move::Pass]].concat();
    for seat in 0..4u8 {
        assert_eq!(game.awaiting(), choosing(seat));
        for other in 0..4u8 {
            let expected = if other == seat {
                with_pass.clone()
            } else {
                Vec::new()
            };
            assert_eq!(game.legal_moves(Seat(other)), expected, "seat {other}");
        }
        if seat < 3 {
            game.play(Seat(seat), Move::Pass, rng).unwrap();
        }
    }
}

#[test]
fn pass_round_the_first_seat_to_name_trump_makes_its_team_the_playing_team() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    game.play(Seat(0), Move::Pass, rng).unwrap();
    game.play(Seat(1), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    let view = game.view_for(Some(Seat(2)));
    assert_eq!(view.phase, Phase::Playing);
    assert_eq!(view.trump, Some(H));
    assert_eq!(view.trump_chosen_by, Some(Seat(1)));
    assert_eq!(view.playing_team, Some(Team::B));
    // Played out, the score sheet's playing team is seat 1's.
    while game.phase() == Phase::Playing {
        let seat = game.to_play().unwrap();
        let card = game.legal_cards(seat).iter().next().unwrap();
        game.play(seat, Move::Play { card }, rng).unwrap();
    }
    assert_eq!(game.deals()[0].playing_team, Team::B);
}

#[test]
fn voorhand_leads_when_another_seat_chose_trump() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    for seat in 0..2 {
        game.play(Seat(seat), Move::Pass, rng).unwrap();
    }
    game.play(Seat(2), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    assert_eq!(game.to_play(), Some(Seat(0)));
    assert_eq!(
        game.view_for(None).trick.map(|trick| trick.leader),
        Some(Seat(0))
    );
    assert_eq!(
        game.play(Seat(2), Move::Play { card: card("JH") }, rng)
            .unwrap_err()
            .code(),
        "not_your_turn"
    );
    game.play(Seat(0), Move::Play { card: card("AC") }, rng)
        .unwrap();
}

#[test]
fn pass_round_all_pass_voorhand_must_choose() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    for seat in 0..4 {
        game.play(Seat(seat), Move::Pass, rng).unwrap();
    }
    assert_eq!(game.awaiting(), choosing(0));
    assert_eq!(game.legal_moves(Seat(0)), suits());
    let before = game.clone();
    let error = game.play(Seat(0), Move::Pass, rng).unwrap_err();
    assert_eq!(error.code(), "must_choose_trump");
    assert_eq!(game, before, "a refused pass changes nothing");
    game.play(Seat(0), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    let view = game.view_for(None);
    assert_eq!(
        (view.trump_chosen_by, view.playing_team),
        (Some(Seat(0)), Some(Team::A))
    );
}

#[test]
fn pass_round_every_seat_sees_who_passed() {
    let mut game = pass_round(RevokeMode::Club);
    let rng = &mut rng();
    for seat in 0..2 {
        game.play(Seat(seat), Move::Pass, rng).unwrap();
    }
    for viewer in [
        None,
        Some(Seat(0)),
        Some(Seat(1)),
        Some(Seat(2)),
        Some(Seat(3)),
    ] {
        assert_eq!(
            game.view_for(viewer).passed,
            [Seat(0), Seat(1)],
            "{viewer:?}"
        );
    }
    game.play(Seat(2), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    assert_eq!(game.view_for(Some(Seat(3))).passed, [Seat(0), Seat(1)]);
}

#[test]
fn pass_round_passes_are_cleared_for_the_next_deal() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    for seat in 0..4 {
        game.play(Seat(seat), Move::Pass, rng).unwrap();
    }
    game.play(Seat(0), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    while game.phase() == Phase::Playing {
        let seat = game.to_play().unwrap();
        let card = game.legal_cards(seat).iter().next().unwrap();
        game.play(seat, Move::Play { card }, rng).unwrap();
    }
    assert_eq!(game.phase(), Phase::Dealing);
    assert!(game.view_for(None).passed.is_empty());
    game.play(Seat(0), Move::Deal, rng).unwrap();
    // Dealer 0 now: seat 1 is the voorhand, and may pass again.
    assert_eq!(game.awaiting(), choosing(1));
    assert!(game.legal_moves(Seat(1)).contains(&Move::Pass));
}

#[test]
fn pass_round_a_pass_out_of_turn_or_outside_the_choice_is_refused() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    assert_eq!(
        game.play(Seat(1), Move::Pass, rng).unwrap_err().code(),
        "not_your_turn"
    );
    assert_eq!(
        game.play(Seat(1), Move::ChooseTrump { suit: H }, rng)
            .unwrap_err()
            .code(),
        "not_your_turn"
    );
    game.play(Seat(0), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    assert_eq!(
        game.play(Seat(0), Move::Pass, rng).unwrap_err().code(),
        "wrong_phase"
    );
}

#[test]
fn voorhand_cannot_pass_at_a_table_without_a_pass_round() {
    let mut game = Match::from_hands(Options::default(), suit_per_seat());
    assert_eq!(game.legal_moves(Seat(0)), suits());
    assert_eq!(
        game.play(Seat(0), Move::Pass, &mut rng())
            .unwrap_err()
            .code(),
        "must_choose_trump"
    );
}

#[test]
fn pass_round_a_stored_match_reloads_with_its_passes() {
    let mut game = pass_round(RevokeMode::Enforced);
    let rng = &mut rng();
    game.play(Seat(0), Move::Pass, rng).unwrap();
    let reloaded: Match = serde_json::from_str(&serde_json::to_string(&game).unwrap()).unwrap();
    assert_eq!(reloaded, game);
    assert_eq!(reloaded.awaiting(), choosing(1));
}

#[test]
fn the_pass_move_is_written_as_its_type() {
    assert_eq!(
        serde_json::to_value(Move::Pass).unwrap(),
        serde_json::json!({"type": "pass"})
    );
    assert_eq!(
        serde_json::from_str::<Move>(r#"{"type":"pass"}"#).unwrap(),
        Move::Pass
    );
    assert!(serde_json::from_str::<Move>(r#"{"type":"pass","suit":"H"}"#).is_err());
}

// ---- the options ----

#[test]
fn house_rules_default_to_section_one() {
    let options: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(options.house_rules(), ROTTERDAM);
    assert_eq!(HouseRules::default(), ROTTERDAM);
    let json = serde_json::to_value(&options).unwrap();
    assert_eq!(json["trump_obligation"], "rotterdam");
    assert_eq!(json["undertrump"], "last_resort");
    assert_eq!(json["trump_choice"], "voorhand");
    assert_eq!(json["four_jacks"], 200);
}

#[test]
fn house_rules_are_read_and_written_by_name_and_every_combination_is_a_table() {
    let all = HouseRules::all();
    assert_eq!(all.len(), 16);
    for (index, rules) in all.iter().enumerate() {
        assert!(!all[..index].contains(rules), "{rules:?} twice");
        let options = Options::default().with_house_rules(*rules);
        assert_eq!(options.validate(), Ok(()));
        let json = serde_json::to_string(&options).unwrap();
        let read: Options = serde_json::from_str(&json).unwrap();
        assert_eq!(read.house_rules(), *rules, "{json}");
    }
    let chosen: Options = serde_json::from_str(
        r#"{"trump_obligation":"amsterdam","undertrump":"required","trump_choice":"pass_round","four_jacks":100}"#,
    )
    .unwrap();
    assert_eq!(
        chosen.house_rules(),
        HouseRules {
            trump_obligation: TrumpObligation::Amsterdam,
            undertrump: Undertrump::Required,
            trump_choice: TrumpChoice::PassRound,
            four_jacks: FourJacks::OneHundred,
        }
    );
    for bad in [
        r#"{"trump_obligation":"utrecht"}"#,
        r#"{"undertrump":"never"}"#,
        r#"{"trump_choice":"dealer"}"#,
        r#"{"four_jacks":150}"#,
        r#"{"four_jacks":"200"}"#,
    ] {
        assert!(serde_json::from_str::<Options>(bad).is_err(), "{bad}");
    }
}

#[test]
fn an_option_out_of_range_is_refused_naming_it() {
    use kaarttafel::table::{GameKind, Options as TableOptions};
    for (name, value) in [
        ("four_jacks", serde_json::json!(150)),
        ("trump_obligation", serde_json::json!("utrecht")),
        ("undertrump", serde_json::json!(true)),
        ("trump_choice", serde_json::json!("dealer")),
    ] {
        let options = serde_json::json!({ name: value });
        let error = TableOptions::parse(GameKind::Klaverjassen, Some(options))
            .unwrap_err()
            .to_string();
        assert!(error.contains(&format!("options.{name}")), "{error}");
    }
}

// ---- club mode judges a revoke by the table's rules ----

/// A club-mode table with `rules`: seat 0 leads the ace of clubs, seat 1
/// follows, and seat 2 (no clubs, holding trumps) discards the ace of
/// spades on its partner's winning ace: allowed under Amsterdam, a revoke
/// under Rotterdam (it had to trump).
fn discard_on_the_partners_ace(rules: HouseRules) -> Match {
    let options = Options {
        revoke_mode: RevokeMode::Club,
        ..Options::default()
    }
    .with_house_rules(rules);
    let hands = BySeat([
        cards("AC 10C KC QC 9S 10S QS KS"),
        cards("7C 8C 9C JC 7D 8D 9D 10D"),
        cards("8H 7H QH KH AS JS 8S 7S"),
        cards("JH 9H 10H AH AD KD QD JD"),
    ]);
    let mut game = Match::from_hands(options, hands);
    let rng = &mut rng();
    game.play(Seat(0), Move::ChooseTrump { suit: H }, rng)
        .unwrap();
    for (seat, code) in [(0, "AC"), (1, "7C"), (2, "AS")] {
        game.play(Seat(seat), Move::Play { card: card(code) }, rng)
            .unwrap();
    }
    game
}

#[test]
fn club_mode_takes_back_a_discard_on_the_partners_trick_only_where_the_rules_forbid_it() {
    let rng = &mut rng();
    let mut rotterdam = discard_on_the_partners_ace(ROTTERDAM);
    rotterdam.play(Seat(2), Move::TakeBack, rng).unwrap();
    assert_eq!(rotterdam.to_play(), Some(Seat(2)));
    assert_eq!(rotterdam.legal_cards(Seat(2)), cards("8H 7H QH KH"));
    for rules in [AMSTERDAM, AMSTERDAM_REQUIRED] {
        let mut amsterdam = discard_on_the_partners_ace(rules);
        let before = amsterdam.clone();
        assert_eq!(
            amsterdam
                .play(Seat(2), Move::TakeBack, rng)
                .unwrap_err()
                .code(),
            "not_a_revoke",
            "{rules:?}"
        );
        assert_eq!(amsterdam, before);
    }
}

#[test]
fn club_mode_judges_a_report_by_the_tables_trump_obligation() {
    let rng = &mut rng();
    for (rules, valid) in [
        (ROTTERDAM, true),
        (REQUIRED, true),
        (AMSTERDAM, false),
        (AMSTERDAM_REQUIRED, false),
    ] {
        let mut game = discard_on_the_partners_ace(rules);
        game.play(Seat(3), Move::Play { card: card("9H") }, rng)
            .unwrap();
        // Trick 1 is closed; seat 1 reports seat 2.
        game.play(Seat(1), Move::ReportRevoke { seat: Seat(2) }, rng)
            .unwrap();
        let row = &game.deals()[0];
        let report = row.report.expect("the report ended the deal");
        assert_eq!(report.valid, valid, "{rules:?}");
        assert_eq!(row.revokes.len(), usize::from(valid), "{rules:?}");
        let punished = if valid { Team::A } else { Team::B };
        assert_eq!(row.score[punished], 0, "{rules:?}");
        assert_eq!(row.score[punished.other()], 262, "{rules:?}");
    }
}
