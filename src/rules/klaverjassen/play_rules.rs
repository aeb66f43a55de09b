//! Which cards may be played, who wins a trick and what the cards are worth
//! (docs/klaverjassen.md, "Trump, lead and tricks").
//!
//! Section 1 (Rotterdam: the obligations hold even when the partner is
//! winning) and the house rules of section 3 that change it
//! (`trump_obligation`, `undertrump`), chosen per table by [`HouseRules`].

use crate::rules::Seat;
use crate::rules::cards::{Card, Rank, Suit};

use super::cardset::{CardSet, card_index, rank_index};
use super::moves::MoveError;
use super::options::{HouseRules, TrumpObligation, Undertrump};
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

/// The points of the card at bit `index` (see [`CardSet`]) with this trump:
/// [`card_points`] by bit index, from the same tables, for tables worked
/// out at compile time.
#[inline]
pub const fn points_at(index: u32, trump: Suit) -> u8 {
    let rank = (index % 8) as usize;
    if index / 8 == trump as u32 {
        TRUMP_POINTS[rank]
    } else {
        PLAIN_POINTS[rank]
    }
}

/// Builds a table over every 8-bit set of ranks (natural order) of the
/// strength, in `order`, of the strongest rank in the set (0 for none).
const fn highest_by_mask(order: &[u8; 8]) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut mask = 1;
    while mask < 256 {
        let mut rank = 0;
        while rank < 8 {
            if mask & (1 << rank) != 0 && order[rank] > table[mask] {
                table[mask] = order[rank];
            }
            rank += 1;
        }
        mask += 1;
    }
    table
}

/// Trump strength of the highest trump in each 8-bit rank set.
const HIGHEST_TRUMP: [u8; 256] = highest_by_mask(&TRUMP_ORDER);

/// Builds a table over every 8-bit set of ranks of the sum of their points.
const fn points_by_mask(points: &[u8; 8]) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut rank = 0;
        while rank < 8 {
            if mask & (1 << rank) != 0 {
                table[mask] += points[rank];
            }
            rank += 1;
        }
        mask += 1;
    }
    table
}

/// Trump points of each 8-bit rank set.
const TRUMP_POINTS_BY_MASK: [u8; 256] = points_by_mask(&TRUMP_POINTS);
/// Plain-suit points of each 8-bit rank set.
const PLAIN_POINTS_BY_MASK: [u8; 256] = points_by_mask(&PLAIN_POINTS);

/// The 8-bit rank set (natural order) of `cards` in `suit`.
#[inline]
fn ranks_in(cards: CardSet, suit: Suit) -> usize {
    ((cards.bits() >> (8 * suit as u32)) & 0xFF) as usize
}

/// The points all of `cards` are worth with this trump: the same sum as
/// [`card_points`] over each card, by table per suit.
#[inline]
pub fn set_points(cards: CardSet, trump: Suit) -> i32 {
    let mut total = 0;
    for suit in Suit::ALL {
        let table = if suit == trump {
            &TRUMP_POINTS_BY_MASK
        } else {
            &PLAIN_POINTS_BY_MASK
        };
        total += i32::from(table[ranks_in(cards, suit)]);
    }
    total
}

/// How strongly the card at bit `index` (see [`CardSet`]) stands in a trick
/// led with `led`: a trump above every card of the led suit, those above the
/// rest (0, they cannot win). The card order of RULES.md, as used by
/// [`trick_winner`], for callers that compare cards one at a time.
#[inline]
pub const fn strength(index: u32, led: Suit, trump: Suit) -> u8 {
    let suit = index / 8;
    let rank = (index % 8) as usize;
    if suit == trump as u32 {
        16 + TRUMP_ORDER[rank]
    } else if suit == led as u32 {
        8 + PLAIN_ORDER[rank]
    } else {
        0
    }
}

/// The strength of the highest trump among `cards`, if any.
#[inline]
fn highest_trump(cards: CardSet, trump: Suit) -> Option<u8> {
    let ranks = ranks_in(cards, trump);
    (ranks != 0).then(|| HIGHEST_TRUMP[ranks])
}

/// What the seat to play needs to know of the trick in progress: its cards,
/// the suit led (`None`: the seat leads) and whether the card winning it so
/// far is the partner's (Amsterdam's exemption, RULES.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrickSoFar {
    /// The cards in the trick.
    pub cards: CardSet,
    /// The suit led, once a card is played.
    pub led: Option<Suit>,
    /// The card winning the trick so far is the partner's of the seat to
    /// play (the card two places before it).
    pub partner_winning: bool,
}

impl TrickSoFar {
    /// An empty trick: the seat to play leads.
    pub const LEAD: TrickSoFar = TrickSoFar {
        cards: CardSet::EMPTY,
        led: None,
        partner_winning: false,
    };

    /// The trick holding `cards`, in play order from its leader (0 to 3 of
    /// them), with `trump`.
    pub fn of(cards: &[Card], trump: Suit) -> TrickSoFar {
        let len = cards.len().min(3);
        let mut indices = [0u8; 3];
        for (index, card) in indices.iter_mut().zip(cards) {
            *index = card_index(*card) as u8;
        }
        TrickSoFar {
            cards: cards[..len].iter().copied().collect(),
            led: cards.first().map(|card| card.suit),
            partner_winning: len >= 2 && winning_position(&indices[..len], trump) == len - 2,
        }
    }
}

/// The rule that limits what a seat may play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Obligation {
    /// Any card (leading, or nothing to follow or trump with).
    Free,
    /// Follow the led suit (for a trump lead: any trump, none can beat).
    FollowSuit,
    /// Void in the led suit: play a trump (the trick not yet trumped, or,
    /// with `undertrump: required`, no trump in hand beats it).
    Trump,
    /// Beat the highest trump in the trick.
    Overtrump,
    /// No trump beats the trick (or, under Amsterdam, the partner is
    /// winning it): play a card that is not a lower trump.
    NotUndertrump,
}

/// The cards allowed from `hand` into `trick`, and the rule that narrowed
/// them.
#[inline]
fn obligation(
    hand: CardSet,
    trick: TrickSoFar,
    trump: Suit,
    rules: HouseRules,
) -> (CardSet, Obligation) {
    let Some(led) = trick.led else {
        return (hand, Obligation::Free);
    };
    let trumps = hand & CardSet::suit(trump);
    let highest = highest_trump(trick.cards, trump);
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
        if trick.partner_winning && rules.trump_obligation == TrumpObligation::Amsterdam {
            // Amsterdam: no need to trump on the partner's trick; a trump
            // below the highest in it stays a last resort.
            let lower = highest.map_or(CardSet::EMPTY, |highest| trumps - higher(highest));
            let allowed = hand - lower;
            return if allowed.is_empty() {
                (hand, Obligation::Free)
            } else {
                (allowed, Obligation::NotUndertrump)
            };
        }
        let Some(highest) = highest else {
            return (trumps, Obligation::Trump);
        };
        let over = higher(highest);
        if !over.is_empty() {
            return (over, Obligation::Overtrump);
        }
        if rules.undertrump == Undertrump::Required {
            return (trumps, Obligation::Trump);
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

/// The cards `hand` may play into `trick` with `trump`, under the table's
/// house `rules` (an empty trick: the seat leads and may play anything).
#[inline]
pub fn legal_cards(hand: CardSet, trick: TrickSoFar, trump: Suit, rules: HouseRules) -> CardSet {
    obligation(hand, trick, trump, rules).0
}

/// Why `card` (held in `hand`) may not be played into `trick` under the
/// table's house `rules`, or `None` when it may.
#[inline]
pub fn refusal(
    hand: CardSet,
    trick: TrickSoFar,
    trump: Suit,
    rules: HouseRules,
    card: Card,
) -> Option<MoveError> {
    let (allowed, rule) = obligation(hand, trick, trump, rules);
    if allowed.contains(card) {
        return None;
    }
    let led = trick.led?;
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
    let indices = cards.map(|card| (8 * card.suit as u32 + index(card) as u32) as u8);
    Seat((leader.0 + winning_position(&indices, trump) as u8) % SEATS)
}

/// The position in play order (0-3) of the card winning a trick whose
/// cards so far (at least one), by bit index (see [`CardSet`]), are
/// `cards`: the highest trump, else the highest card of the led suit, as
/// [`strength`] ranks them. [`trick_winner`] is this function on a complete
/// trick.
#[inline]
pub(super) fn winning_position(cards: &[u8], trump: Suit) -> usize {
    let led = Suit::ALL[usize::from(cards[0] / 8) & 3];
    let mut best = 0;
    let mut strongest = strength(u32::from(cards[0]), led, trump);
    for (position, card) in cards.iter().enumerate().skip(1) {
        let power = strength(u32::from(*card), led, trump);
        if power > strongest {
            strongest = power;
            best = position;
        }
    }
    best
}
