//! What a seat knows of the hidden hands, and deals drawn to fit it: every
//! card played, the voids shown by not following suit, and what mandatory
//! play reveals (a seat that did not trump, or did not overtrump, when the
//! rules would have forced it holds no such trump). Those facts come from
//! the rules' own [`legal_cards`]: a card `x` is ruled out for a seat that
//! played `c` when `c` would not have been allowed from a hand holding both
//! `c` and `x`. Deals are drawn uniformly among all consistent ones by exact
//! counting (each consistent deal has probability exactly 1/N).

use rand::Rng;
use rand::seq::SliceRandom;

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};
use crate::rules::klaverjassen::{
    BySeat, CardSet, CompletedTrick, HouseRules, PlayedCard, TrickSoFar, View, legal_cards,
};

/// Every card played in the deal so far as tricks in order: the completed
/// tricks, then the open trick's cards.
pub(super) fn played_tricks(view: &View) -> Vec<(Seat, Vec<PlayedCard>)> {
    let completed: &[CompletedTrick] = view.review_tricks.as_deref().unwrap_or(&view.tricks);
    let mut tricks: Vec<(Seat, Vec<PlayedCard>)> = completed
        .iter()
        .map(|trick| (trick.leader, trick.cards.to_vec()))
        .collect();
    if let Some(open) = &view.trick {
        tricks.push((open.leader, open.cards.clone()));
    }
    tricks
}

/// What a play reveals: the cards the seat that played `card` into a trick
/// holding `before` cannot have held then, because `card` would not have been
/// allowed from a hand holding both (the rules' own [`legal_cards`], under
/// the table's house `rules`).
fn ruled_out(card: Card, before: &[PlayedCard], trump: Suit, rules: HouseRules) -> CardSet {
    if before.is_empty() {
        return CardSet::EMPTY;
    }
    let cards: Vec<Card> = before.iter().map(|played| played.card).collect();
    let trick = TrickSoFar::of(&cards, trump);
    let mine = CardSet::single(card);
    (CardSet::DECK - mine - trick.cards)
        .iter()
        .filter(|other| {
            !legal_cards(mine | CardSet::single(*other), trick, trump, rules).contains(card)
        })
        .collect()
}

/// For each seat: the cards it cannot hold now by the rules, and whether its
/// own later plays contradict what its earlier plays revealed (a proven
/// revoke).
fn inferences(
    tricks: &[(Seat, Vec<PlayedCard>)],
    trump: Suit,
    rules: HouseRules,
) -> ([CardSet; 4], [bool; 4]) {
    let mut excluded = [CardSet::EMPTY; 4];
    let mut revoked = [false; 4];
    for (_, cards) in tricks {
        for (position, played) in cards.iter().enumerate() {
            let seat = played.seat.index();
            if excluded[seat].contains(played.card) {
                revoked[seat] = true;
            }
            excluded[seat] =
                excluded[seat] | ruled_out(played.card, &cards[..position], trump, rules);
        }
    }
    (excluded, revoked)
}

/// Whether the public history proves that `seat` revoked, judged by the
/// table's house `rules`.
pub(super) fn proven_revoke(
    tricks: &[(Seat, Vec<PlayedCard>)],
    seat: Seat,
    trump: Suit,
    rules: HouseRules,
) -> bool {
    inferences(tricks, trump, rules).1[seat.index()]
}

/// Draws the hidden hands uniformly among every assignment of `unknown` to
/// the other seats with the right sizes in which no seat holds a card in its
/// `excluded` set. Returns `None` when no such assignment exists.
///
/// Exact counting: cards are grouped by the set of seats that may hold them
/// (at most 7 groups); a table counts the ways to give the first k groups'
/// cards with given counts to the seats; drawing backwards through it with
/// those counts as weights gives every consistent deal probability 1/N.
fn sample_hands<R: Rng + ?Sized>(
    seats: [Seat; 3],
    sizes: [usize; 3],
    unknown: CardSet,
    excluded: [CardSet; 3],
    rng: &mut R,
) -> Option<[CardSet; 3]> {
    let mut groups: Vec<(u8, Vec<Card>)> = Vec::new();
    for card in unknown {
        let mask = (0..3)
            .filter(|&i| !excluded[i].contains(card))
            .fold(0u8, |mask, i| mask | 1 << i);
        if mask == 0 {
            return None;
        }
        match groups.iter_mut().find(|(m, _)| *m == mask) {
            Some((_, cards)) => cards.push(card),
            None => groups.push((mask, vec![card])),
        }
    }
    let _ = seats;
    let total = unknown.len() as usize;
    if sizes.iter().sum::<usize>() != total {
        return None;
    }
    let binomial = |n: usize, k: usize| -> u128 {
        (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i + 1) as u128)
    };
    // ways[k][a][b]: ways to place groups 0..k with a cards to seat 0 and b
    // to seat 1 (the rest to seat 2).
    let n = total + 1;
    let mut ways = vec![vec![0u128; n * n]; groups.len() + 1];
    ways[0][0] = 1;
    let mut placed = 0;
    for (k, (mask, cards)) in groups.iter().enumerate() {
        let m = cards.len();
        for a in 0..=placed {
            for b in 0..=placed - a {
                let w = ways[k][a * n + b];
                if w == 0 {
                    continue;
                }
                for (x, y, z) in splits(*mask, m) {
                    ways[k + 1][(a + x) * n + b + y] += w * binomial(m, x) * binomial(m - x, y);
                    let _ = z;
                }
            }
        }
        placed += m;
    }
    let count = ways[groups.len()][sizes[0] * n + sizes[1]];
    if count == 0 {
        return None;
    }
    let mut hands = [CardSet::EMPTY; 3];
    let (mut a, mut b) = (sizes[0], sizes[1]);
    for k in (0..groups.len()).rev() {
        let (mask, cards) = &groups[k];
        let m = cards.len();
        let options: Vec<((usize, usize, usize), u128)> = splits(*mask, m)
            .into_iter()
            .filter(|(x, y, _)| *x <= a && *y <= b)
            .map(|(x, y, z)| {
                let w = ways[k][(a - x) * n + (b - y)] * binomial(m, x) * binomial(m - x, y);
                ((x, y, z), w)
            })
            .collect();
        let sum: u128 = options.iter().map(|(_, w)| w).sum();
        let mut pick = uniform_below(sum, rng);
        let mut chosen = options[0].0;
        for (split, w) in options {
            if pick < w {
                chosen = split;
                break;
            }
            pick -= w;
        }
        let mut shuffled = cards.clone();
        shuffled.shuffle(rng);
        let (x, y, _) = chosen;
        hands[0] = hands[0] | shuffled[..x].iter().copied().collect();
        hands[1] = hands[1] | shuffled[x..x + y].iter().copied().collect();
        hands[2] = hands[2] | shuffled[x + y..].iter().copied().collect();
        a -= x;
        b -= y;
    }
    Some(hands)
}

/// The ways to split `m` cards over the three seats allowed by `mask`.
fn splits(mask: u8, m: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for x in 0..=m {
        for y in 0..=m - x {
            let z = m - x - y;
            let ok =
                (x == 0 || mask & 1 != 0) && (y == 0 || mask & 2 != 0) && (z == 0 || mask & 4 != 0);
            if ok {
                out.push((x, y, z));
            }
        }
    }
    out
}

/// A uniform number below `bound` (which is below 2^64 for any deal).
fn uniform_below<R: Rng + ?Sized>(bound: u128, rng: &mut R) -> u128 {
    let bound = u64::try_from(bound).unwrap_or(u64::MAX);
    u128::from(rand::RngExt::random_range(rng, 0..bound))
}

/// The seats other than `seat`, in seat order.
fn others(seat: Seat) -> [Seat; 3] {
    let mut out = [Seat(0); 3];
    let mut i = 0;
    for other in 0..4 {
        if other != seat.0 {
            out[i] = Seat(other);
            i += 1;
        }
    }
    out
}

/// A sampled full deal: the seat's own hand and drawn hands for the others.
pub(super) fn sample_deal<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    tricks: &[(Seat, Vec<PlayedCard>)],
    trump: Option<Suit>,
    rng: &mut R,
) -> BySeat<CardSet> {
    let played: CardSet = tricks
        .iter()
        .flat_map(|(_, cards)| cards.iter().map(|played| played.card))
        .collect();
    let unknown = CardSet::DECK - view.hand - played;
    let seats = others(seat);
    let sizes = seats.map(|other| usize::from(view.hand_sizes[other]));
    let (excluded, revoked) = match trump {
        Some(trump) => inferences(tricks, trump, view.house_rules),
        None => ([CardSet::EMPTY; 4], [false; 4]),
    };
    // A seat that revoked proves nothing by its plays (club mode).
    let excluded = seats.map(|other| {
        if revoked[other.index()] {
            CardSet::EMPTY
        } else {
            excluded[other.index()]
        }
    });
    let hands = sample_hands(seats, sizes, unknown, excluded, rng)
        .or_else(|| sample_hands(seats, sizes, unknown, [CardSet::EMPTY; 3], rng))
        .unwrap_or([CardSet::EMPTY; 3]);
    let mut deal = BySeat([CardSet::EMPTY; 4]);
    deal[seat] = view.hand;
    for (other, hand) in seats.iter().zip(hands) {
        deal[*other] = hand;
    }
    deal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cards::Rank;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    fn played(seat: u8, code: &str) -> PlayedCard {
        PlayedCard {
            seat: Seat(seat),
            card: card(code),
        }
    }

    #[test]
    fn not_following_suit_shows_a_void_and_not_overtrumping_shows_no_higher_trump() {
        // Hearts trump; clubs led, seat 2 trumps with the 9, seat 3 discards.
        let before = [played(0, "AC"), played(1, "7C"), played(2, "9H")];
        let out = ruled_out(card("8D"), &before, Suit::Hearts, HouseRules::default());
        assert!(out.contains(card("KC")), "void in clubs");
        assert!(out.contains(card("JH")), "cannot overtrump the 9");
        assert!(!out.contains(card("AH")), "may hold a lower trump");
        assert!(!out.contains(card("KD")), "may hold other plain cards");
        let undertrump = ruled_out(card("8H"), &before, Suit::Hearts, HouseRules::default());
        assert!(undertrump.contains(card("KD")), "only lower trumps left");
        assert!(undertrump.contains(card("JH")));
        assert!(!undertrump.contains(card("7H")));
    }

    #[test]
    fn a_seat_that_did_not_follow_and_later_plays_the_suit_has_revoked() {
        let tricks = vec![
            (
                Seat(0),
                vec![
                    played(0, "AC"),
                    played(1, "7D"),
                    played(2, "8C"),
                    played(3, "9C"),
                ],
            ),
            (Seat(0), vec![played(0, "KC"), played(1, "QC")]),
        ];
        let rules = HouseRules::default();
        assert!(proven_revoke(&tricks, Seat(1), Suit::Hearts, rules));
        assert!(!proven_revoke(&tricks, Seat(3), Suit::Hearts, rules));
    }

    #[test]
    fn sampling_is_uniform_among_consistent_deals() {
        use rand::SeedableRng;
        // Four cards to seats of sizes 1, 1, 2; seat 0 may not hold the ace.
        let unknown: CardSet = ["7C", "8C", "9C", "AC"].iter().map(|c| card(c)).collect();
        let excluded = [
            CardSet::single(Card::new(Rank::Ace, Suit::Clubs)),
            CardSet::EMPTY,
            CardSet::EMPTY,
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut counts = std::collections::HashMap::new();
        let draws = 9_000;
        for _ in 0..draws {
            let hands = sample_hands(
                [Seat(1), Seat(2), Seat(3)],
                [1, 1, 2],
                unknown,
                excluded,
                &mut rng,
            )
            .unwrap();
            assert!(!hands[0].contains(card("AC")));
            *counts.entry(hands.map(|h| h.bits())).or_insert(0) += 1;
        }
        // 12 deals in all, 3 of them give seat 0 the ace: 9 remain.
        assert_eq!(counts.len(), 9);
        for count in counts.values() {
            assert!((800..1200).contains(count), "{count}");
        }
    }
}
