//! Which cards may be played, who wins a trick and what the cards are worth
//! (RULES.md §1, "Card order and points" and "Which cards may be played").
//!
//! Rotterdam rules: the obligations hold even when the partner is winning.

use crate::games::Seat;
use crate::games::cards::{Card, Rank, Suit};

use super::cardset::{CardSet, rank_index};
use super::moves::MoveError;
use super::team::SEATS;

/// Trump strength by natural rank index (7 8 9 10 J Q K A): J 9 A 10 K Q 8 7.
const TRUMP_ORDER: [u8; 8] = [0, 1, 6, 4, 7, 2, 3, 5];
/// Plain-suit strength by natural rank index: A 10 K Q J 9 8 7.
const PLAIN_ORDER: [u8; 8] = [0, 1, 2, 6, 3, 4, 5, 7];
/// Trump points by natural rank index: J 20, 9 14, A 11, 10 10, K 4, Q 3.
const TRUMP_POINTS: [u8; 8] = [0, 0, 14, 10, 20, 3, 4, 11];
/// Plain-suit points by natural rank index: A 11, 10 10, K 4, Q 3, J 2.
const PLAIN_POINTS: [u8; 8] = [0, 0, 0, 10, 2, 3, 4, 11];

/// For each trump strength, the ranks (as an 8-bit natural-order mask) that
/// beat it.
const TRUMPS_ABOVE: [u32; 8] = {
    let mut table = [0u32; 8];
    let mut strength = 0;
    while strength < 8 {
        let mut rank = 0;
        while rank < 8 {
            if TRUMP_ORDER[rank] > strength as u8 {
                table[strength] |= 1 << rank;
            }
            rank += 1;
        }
        strength += 1;
    }
    table
};

/// The card's natural rank index 7..A (0..8); only Klaverjassen cards reach
/// the rules, so the 2..6 ranks never get here.
#[inline]
fn index(card: Card) -> usize {
    debug_assert!(
        rank_index(card.rank).is_some(),
        "{card} is not a Klaverjassen card"
    );
    (card.rank as usize - Rank::Seven as usize) & 7
}

/// The points a card is worth with this trump.
#[inline]
pub fn card_points(card: Card, trump: Suit) -> i32 {
    let table = if card.suit == trump {
        &TRUMP_POINTS
    } else {
        &PLAIN_POINTS
    };
    i32::from(table[index(card)])
}

/// The strength of the highest trump among `cards`, if any.
fn highest_trump(cards: CardSet, trump: Suit) -> Option<u8> {
    let mut bits = (cards & CardSet::suit(trump)).bits() >> (8 * trump as u32);
    let mut highest = None;
    while bits != 0 {
        let strength = TRUMP_ORDER[bits.trailing_zeros() as usize];
        highest = highest.max(Some(strength));
        bits &= bits - 1;
    }
    highest
}

/// The rule that limits what a seat may play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Obligation {
    /// Any card (leading, or nothing to follow or trump with).
    Free,
    /// Follow the led suit (for a trump lead: any trump, none can beat).
    FollowSuit,
    /// Void in the led suit and the trick not yet trumped: play a trump.
    Trump,
    /// Beat the highest trump in the trick.
    Overtrump,
    /// No trump beats the trick: play a card that is not a trump.
    NotUndertrump,
}

/// The cards allowed from `hand` into a trick holding `trick` (led with
/// `led`, `None` when the seat leads), and the rule that narrowed them.
fn obligation(
    hand: CardSet,
    trick: CardSet,
    led: Option<Suit>,
    trump: Suit,
) -> (CardSet, Obligation) {
    let Some(led) = led else {
        return (hand, Obligation::Free);
    };
    let trumps = hand & CardSet::suit(trump);
    let highest = highest_trump(trick, trump);
    let higher = |strength: u8| {
        trumps & CardSet::from_bits(TRUMPS_ABOVE[strength as usize] << (8 * trump as u32))
    };
    if led != trump {
        let follow = hand & CardSet::suit(led);
        if !follow.is_empty() {
            return (follow, Obligation::FollowSuit);
        }
        if trumps.is_empty() {
            return (hand, Obligation::Free);
        }
        let Some(highest) = highest else {
            return (trumps, Obligation::Trump);
        };
        let over = higher(highest);
        if !over.is_empty() {
            return (over, Obligation::Overtrump);
        }
        let plain = hand - trumps;
        if !plain.is_empty() {
            return (plain, Obligation::NotUndertrump);
        }
        (hand, Obligation::Free)
    } else {
        if trumps.is_empty() {
            return (hand, Obligation::Free);
        }
        // A trump lead always leaves a trump in the trick.
        let over = higher(highest.unwrap_or(0));
        if !over.is_empty() {
            (over, Obligation::Overtrump)
        } else {
            (trumps, Obligation::FollowSuit)
        }
    }
}

/// The cards `hand` may play into a trick that already holds `trick`, led
/// with `led` (`None`: the seat leads and may play anything).
pub fn legal_cards(hand: CardSet, trick: CardSet, led: Option<Suit>, trump: Suit) -> CardSet {
    obligation(hand, trick, led, trump).0
}

/// Why `card` (held in `hand`) may not be played into the trick, or `None`
/// when it may.
pub fn refusal(
    hand: CardSet,
    trick: CardSet,
    led: Option<Suit>,
    trump: Suit,
    card: Card,
) -> Option<MoveError> {
    let (allowed, rule) = obligation(hand, trick, led, trump);
    if allowed.contains(card) {
        return None;
    }
    let led = led?;
    if card.suit != led && !(hand & CardSet::suit(led)).is_empty() {
        return Some(MoveError::MustFollowSuit { card, led });
    }
    Some(match rule {
        Obligation::Trump => MoveError::MustTrump { card },
        Obligation::Overtrump => MoveError::MustOvertrump { card },
        Obligation::NotUndertrump => MoveError::MustNotUndertrump { card },
        Obligation::FollowSuit | Obligation::Free => MoveError::MustFollowSuit { card, led },
    })
}

/// The seat that wins a complete trick: the highest trump, else the highest
/// card of the led suit. `cards` are in play order, starting with `leader`.
pub fn trick_winner(cards: &[Card; 4], leader: Seat, trump: Suit) -> Seat {
    let led = cards[0].suit;
    let strength = |card: &Card| {
        if card.suit == trump {
            16 + TRUMP_ORDER[index(*card)]
        } else if card.suit == led {
            8 + PLAIN_ORDER[index(*card)]
        } else {
            0
        }
    };
    let mut best = 0;
    for position in 1..4 {
        if strength(&cards[position]) > strength(&cards[best]) {
            best = position;
        }
    }
    Seat((leader.0 + best as u8) % SEATS)
}
