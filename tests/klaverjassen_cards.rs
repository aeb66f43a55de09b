//! Card order, points, play obligations, trick winner, roem and deal scoring
//! (docs/klaverjassen.md), as table-driven cases on the pure rule functions.

use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    ByTeam, CardSet, HouseRules, Team, TrickSoFar, card_points, legal_cards, punishment, refusal,
    roem, score_deal, trick_winner,
};

fn card(code: &str) -> Card {
    code.parse().unwrap()
}

fn cards(codes: &str) -> CardSet {
    codes.split_whitespace().map(card).collect()
}

/// The trick so far from its cards in play order (the seat to play comes
/// next).
fn so_far(trick: &str, trump: Suit) -> TrickSoFar {
    let played: Vec<Card> = trick.split_whitespace().map(card).collect();
    TrickSoFar::of(&played, trump)
}

fn legal(hand: &str, trick: &str, trump: Suit) -> CardSet {
    legal_cards(
        cards(hand),
        so_far(trick, trump),
        trump,
        HouseRules::default(),
    )
}

fn refused(hand: &str, trick: &str, trump: Suit, played: &str) -> Option<&'static str> {
    refusal(
        cards(hand),
        so_far(trick, trump),
        trump,
        HouseRules::default(),
        card(played),
    )
    .map(|error| error.code())
}

const H: Suit = Suit::Hearts;

#[test]
fn which_cards_may_be_played() {
    // (rule, hand, trick so far, allowed), trump hearts.
    let cases = [
        ("the leader plays any card", "7C 9H AS", "", "7C 9H AS"),
        (
            "a seat holding the led suit follows it",
            "7C KC 9H AS",
            "AC",
            "7C KC",
        ),
        (
            "following suit need not beat the trick",
            "7C 8C 9H",
            "10C",
            "7C 8C",
        ),
        (
            "a seat void in the led suit must trump",
            "7H JH AS",
            "AC",
            "7H JH",
        ),
        (
            "with no led suit and no trump any card goes",
            "7D AS",
            "AC",
            "7D AS",
        ),
        (
            "a trumped trick must be overtrumped even when the partner wins it",
            "7H JH AS",
            "AC 8H 7C",
            "JH",
        ),
        (
            "overtrumping beats the highest trump, not the first",
            "8H JH 7D",
            "AC 7H 9H",
            "JH",
        ),
        (
            "unable to overtrump, play a non-trump",
            "7H 8H AS 7D",
            "AC 9H",
            "AS 7D",
        ),
        (
            "only a hand of nothing but lower trumps undertrumps",
            "7H 8H",
            "AC 9H",
            "7H 8H",
        ),
        (
            "a trump lead must be headed if possible",
            "7H JH AC",
            "9H",
            "JH",
        ),
        (
            "a trump lead is headed over the highest trump so far",
            "KH 9H QH",
            "10H AH",
            "9H",
        ),
        (
            "a trump lead nobody can head takes any trump",
            "7H 8H AC",
            "JH",
            "7H 8H",
        ),
        (
            "a trump lead with no trump in hand takes any card",
            "7C AS",
            "JH",
            "7C AS",
        ),
    ];
    for (rule, hand, trick, allowed) in cases {
        assert_eq!(legal(hand, trick, H), cards(allowed), "{rule}");
    }
}

#[test]
fn a_refused_card_names_the_rule_it_breaks() {
    let cases = [
        ("7C 9H", "AC", "9H", Some("must_follow_suit")),
        ("7H AS", "AC", "AS", Some("must_trump")),
        ("7H JH AS", "AC 9H", "AS", Some("must_overtrump")),
        ("7H JH AS", "AC 9H", "7H", Some("must_overtrump")),
        ("7H AS", "AC 9H", "7H", Some("must_not_undertrump")),
        ("JH AC", "9H", "AC", Some("must_follow_suit")),
        ("7H JH", "9H", "7H", Some("must_overtrump")),
        ("7H AS", "AC 9H", "AS", None),
        ("7C AS", "", "AS", None),
    ];
    for (hand, trick, played, code) in cases {
        assert_eq!(
            refused(hand, trick, H, played),
            code,
            "{hand} / {trick} / {played}"
        );
    }
}

#[test]
fn cannot_undertrump_while_holding_a_plain_card() {
    assert_eq!(
        refused("7H AS", "AC 9H", H, "7H"),
        Some("must_not_undertrump")
    );
    assert_eq!(legal("7H AS", "AC 9H", H), cards("AS"));
}

#[test]
fn must_overtrump_even_when_the_partner_wins_the_trick() {
    // Seat 0 leads, seat 1 (partner of seat 3) trumps, seat 2 follows; seat 3
    // still has to go over its partner's trump.
    assert_eq!(legal("JH 7H AD", "AC 8H 7C", H), cards("JH"));
}

#[test]
fn trumps_rank_jack_nine_ace_ten_king_queen_eight_seven() {
    let order = ["7H", "8H", "QH", "KH", "10H", "AH", "9H", "JH"];
    for (low, high) in order.iter().zip(order.iter().skip(1)) {
        let trick = [card("AC"), card(low), card(high), card("7C")];
        assert_eq!(
            trick_winner(&trick, Seat(0), H),
            Seat(2),
            "{high} beats {low}"
        );
    }
}

#[test]
fn plain_suits_rank_ace_ten_king_queen_jack_nine_eight_seven() {
    let order = ["7C", "8C", "9C", "JC", "QC", "KC", "10C", "AC"];
    for (low, high) in order.iter().zip(order.iter().skip(1)) {
        let trick = [card(low), card(high), card("7D"), card("8D")];
        assert_eq!(
            trick_winner(&trick, Seat(0), H),
            Seat(1),
            "{high} beats {low}"
        );
    }
}

#[test]
fn the_trick_goes_to_the_highest_trump_else_the_highest_card_of_the_led_suit() {
    let cases = [
        ("10C AD 7C KC", Seat(0), Seat(0)),
        ("7C AD 8C 9C", Seat(0), Seat(3)),
        ("AC 7H KC 10C", Seat(0), Seat(1)),
        ("AC 7H 8H 10C", Seat(2), Seat(0)),
        ("9H JH AH 10H", Seat(1), Seat(2)),
    ];
    for (trick, leader, winner) in cases {
        let played: Vec<Card> = trick.split_whitespace().map(card).collect();
        let played: [Card; 4] = played.try_into().unwrap();
        assert_eq!(trick_winner(&played, leader, H), winner, "{trick}");
    }
}

#[test]
fn card_points_follow_the_table_and_make_152_per_deck() {
    let trump_points = [
        ("JH", 20),
        ("9H", 14),
        ("AH", 11),
        ("10H", 10),
        ("KH", 4),
        ("QH", 3),
        ("8H", 0),
        ("7H", 0),
    ];
    let plain_points = [
        ("AC", 11),
        ("10C", 10),
        ("KC", 4),
        ("QC", 3),
        ("JC", 2),
        ("9C", 0),
        ("8C", 0),
        ("7C", 0),
    ];
    for (code, points) in trump_points.into_iter().chain(plain_points) {
        assert_eq!(card_points(card(code), H), points, "{code}");
    }
    for trump in Suit::ALL {
        let total: i32 = CardSet::DECK.iter().map(|c| card_points(c, trump)).sum();
        assert_eq!(total, 152);
    }
}

#[test]
fn roem_of_a_trick() {
    // (what, trick, trump, roem)
    let cases = [
        ("three in sequence", "7C 8C 9C AD", H, 20),
        ("four in sequence", "7C 8C 9C 10C", H, 50),
        (
            "sequences use the natural order, even in trump",
            "9H 10H JH 7C",
            H,
            20,
        ),
        ("jack to ace is a sequence of four", "JC QC KC AC", H, 50),
        ("a gap breaks the sequence", "7C 8C 10C JC", H, 0),
        ("only the highest sequence counts", "8C 9C 10C QC", H, 20),
        (
            "sequences do not run from one suit into the next",
            "KC AC 7D 8D",
            H,
            0,
        ),
        ("stuk: king and queen of trump", "QH KH AD 7S", H, 20),
        ("stuk adds to a sequence of three", "QH KH AH 7S", H, 40),
        ("stuk adds to a sequence of four", "JH QH KH AH", H, 70),
        (
            "stuk inside a sequence of four below the ace",
            "10H JH QH KH",
            H,
            70,
        ),
        (
            "king and queen of a plain suit are no stuk",
            "QS KS 7C 8D",
            H,
            0,
        ),
        (
            "a plain king-queen-ace is only a sequence",
            "QS KS AS 7C",
            H,
            20,
        ),
        ("four aces", "AC AD AH AS", H, 100),
        ("four sevens", "7C 7D 7H 7S", H, 100),
        ("four nines", "9C 9D 9H 9S", H, 100),
        ("four jacks", "JC JD JH JS", H, 200),
        ("nothing", "7C 9D JH KS", H, 0),
    ];
    for (what, trick, trump, points) in cases {
        assert_eq!(
            roem(cards(trick), trump, HouseRules::default()),
            points,
            "{what}"
        );
    }
}

fn by(a: i32, b: i32) -> ByTeam<i32> {
    ByTeam::new(a, b)
}

#[test]
fn scoring_a_deal() {
    // (what, playing team, card points, roem, tricks taken, score, pit, nat)
    let cases = [
        (
            "the playing team with more keeps its points",
            Team::A,
            by(90, 72),
            by(0, 0),
            ByTeam::new(5, 3),
            by(90, 72),
            false,
            false,
        ),
        (
            "a tie is nat",
            Team::A,
            by(81, 81),
            by(0, 0),
            ByTeam::new(4, 4),
            by(0, 162),
            false,
            true,
        ),
        (
            "roem counts toward the majority",
            Team::B,
            by(92, 70),
            by(0, 50),
            ByTeam::new(4, 4),
            by(92, 120),
            false,
            false,
        ),
        (
            "nat gives the defenders 162 and all roem",
            Team::A,
            by(80, 82),
            by(20, 20),
            ByTeam::new(4, 4),
            by(0, 202),
            false,
            true,
        ),
        (
            "pit adds 100 to the playing team",
            Team::A,
            by(162, 0),
            by(20, 0),
            ByTeam::new(8, 0),
            by(282, 0),
            true,
            false,
        ),
        (
            "the defenders taking every trick is nat, not pit",
            Team::A,
            by(0, 162),
            by(0, 20),
            ByTeam::new(0, 8),
            by(0, 182),
            false,
            true,
        ),
    ];
    for (what, playing, points, roem, tricks, score, pit, nat) in cases {
        let scored = score_deal(playing, points, roem, tricks);
        assert_eq!(
            (scored.score, scored.pit, scored.nat),
            (score, pit, nat),
            "{what}"
        );
    }
}

#[test]
fn a_punished_team_scores_nothing_and_the_other_262_plus_all_roem() {
    assert_eq!(punishment(Team::A, by(20, 50)), by(0, 332));
    assert_eq!(punishment(Team::B, by(0, 0)), by(262, 0));
}
