//! The `basic` Klaverjassen player: a club player's habits, as rules.
//!
//! - Trump: the suit whose cards and side aces make the strongest hand; at
//!   a table with a pass round it passes when even that suit is weaker than
//!   [`PASS_BELOW`] (and names it when it may not pass).
//! - Leading: trumps while its team named trump and it holds the jack or
//!   three trumps or more, then aces, else its cheapest card.
//! - Following: on a partner's winning trick it throws its most valuable
//!   card that is no trump; when the other team is winning it wins the trick
//!   with its cheapest winning card if the trick holds points or it plays
//!   last, else it gives its cheapest card.
//! - Club mode: it only ever plays cards from `legal_moves` (which holds no
//!   revoke), never takes back, never reports, and says `end_review` in the
//!   review.

use crate::rules::Seat;
use crate::rules::cards::{Card, Rank, Suit};
use crate::rules::klaverjassen::{Match, Move as KlaverMove, Team, View, card_points};

use crate::ai::Player;

/// The `basic` Klaverjassen player.
pub struct BasicPlayer;

impl Player<Match> for BasicPlayer {
    fn choose(
        &self,
        seat: Seat,
        view: &View,
        legal: &[KlaverMove],
        _rng: &mut dyn rand::Rng,
    ) -> Option<KlaverMove> {
        choose(seat, view, legal)
    }
}

fn choose(me: Seat, game: &View, moves: &[KlaverMove]) -> Option<KlaverMove> {
    if moves.contains(&KlaverMove::Deal) {
        return Some(KlaverMove::Deal);
    }
    if moves.contains(&KlaverMove::EndReview) {
        return Some(KlaverMove::EndReview);
    }
    let hand: Vec<Card> = game.hand.iter().collect();
    let suits: Vec<Suit> = moves
        .iter()
        .filter_map(|m| match m {
            KlaverMove::ChooseTrump { suit } => Some(*suit),
            _ => None,
        })
        .collect();
    if let Some(best) = suits
        .iter()
        .copied()
        .max_by_key(|s| (trump_strength(&hand, *s), std::cmp::Reverse(s.index())))
    {
        if moves.contains(&KlaverMove::Pass) && trump_strength(&hand, best) < PASS_BELOW {
            return Some(KlaverMove::Pass);
        }
        return Some(KlaverMove::ChooseTrump { suit: best });
    }
    let cards: Vec<Card> = moves
        .iter()
        .filter_map(|m| match m {
            KlaverMove::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    if cards.is_empty() {
        // Only club-mode extras (reports, take-backs) are left: make none.
        return None;
    }
    let trump = game.trump?;
    let played: Vec<(Seat, Card)> = game
        .trick
        .as_ref()
        .map(|t| t.cards.iter().map(|p| (p.seat, p.card)).collect())
        .unwrap_or_default();
    let card = if played.is_empty() {
        lead(
            &cards,
            &hand,
            trump,
            game.playing_team == Some(Team::of(me)),
        )
    } else {
        follow(&cards, &played, me, trump)
    };
    Some(KlaverMove::Play { card })
}

/// The [`trump_strength`] below which `basic` passes when it may: about the
/// jack and nine of trump, or three trumps with the jack and a side ace.
pub const PASS_BELOW: i32 = 48;

/// How good `suit` is as trump for `hand`: the trumps' points and number,
/// plus the aces beside them.
fn trump_strength(hand: &[Card], suit: Suit) -> i32 {
    hand.iter()
        .map(|c| {
            if c.suit == suit {
                card_points(*c, suit) + 8
            } else if c.rank == Rank::Ace {
                8
            } else {
                0
            }
        })
        .sum()
}

/// Trick-taking strength of `card` (higher wins), given the led suit.
fn strength(card: Card, led: Suit, trump: Suit) -> i32 {
    let trump_order = [
        Rank::Seven,
        Rank::Eight,
        Rank::Queen,
        Rank::King,
        Rank::Ten,
        Rank::Ace,
        Rank::Nine,
        Rank::Jack,
    ];
    let plain_order = [
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ten,
        Rank::Ace,
    ];
    let place = |order: &[Rank; 8]| order.iter().position(|r| *r == card.rank).unwrap_or(0) as i32;
    if card.suit == trump {
        100 + place(&trump_order)
    } else if card.suit == led {
        10 + place(&plain_order)
    } else {
        0
    }
}

fn lead(cards: &[Card], hand: &[Card], trump: Suit, our_trump: bool) -> Card {
    let trumps: Vec<Card> = cards.iter().copied().filter(|c| c.suit == trump).collect();
    let holds_jack = hand.contains(&Card::new(Rank::Jack, trump));
    if our_trump && !trumps.is_empty() && (holds_jack || trumps.len() >= 3) {
        return *trumps
            .iter()
            .max_by_key(|c| strength(**c, trump, trump))
            .expect("a trump");
    }
    if let Some(ace) = cards
        .iter()
        .find(|c| c.rank == Rank::Ace && c.suit != trump)
    {
        return *ace;
    }
    cheapest(cards, trump)
}

fn follow(cards: &[Card], played: &[(Seat, Card)], me: Seat, trump: Suit) -> Card {
    let led = played[0].1.suit;
    let (winner, best) = played
        .iter()
        .copied()
        .max_by_key(|(_, c)| strength(*c, led, trump))
        .expect("a played card");
    let partner = Seat((me.0 + 2) % 4);
    if winner == partner {
        let plain: Vec<Card> = cards.iter().copied().filter(|c| c.suit != trump).collect();
        let pool = if plain.is_empty() { cards } else { &plain };
        return *pool
            .iter()
            .max_by_key(|c| (card_points(**c, trump), -strength(**c, led, trump)))
            .expect("a card");
    }
    let to_beat = strength(best, led, trump);
    let winning: Vec<Card> = cards
        .iter()
        .copied()
        .filter(|c| strength(*c, led, trump) > to_beat)
        .collect();
    let points: i32 = played.iter().map(|(_, c)| card_points(*c, trump)).sum();
    let last = played.len() == 3;
    if !winning.is_empty() && (points >= 10 || last) {
        return *winning
            .iter()
            .min_by_key(|c| (c.suit == trump, strength(**c, led, trump)))
            .expect("a winning card");
    }
    cheapest(cards, trump)
}

/// The card worth least, and of those the weakest (trumps kept).
fn cheapest(cards: &[Card], trump: Suit) -> Card {
    *cards
        .iter()
        .min_by_key(|c| {
            (
                c.suit == trump,
                card_points(**c, trump),
                strength(**c, c.suit, trump),
            )
        })
        .expect("a card")
}
