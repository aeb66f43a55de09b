//! The expected chips of a Potverteren hand: the cards a seat cannot see
//! ([`Pool`]), the final hands of the other seats as distributions
//! ([`Field`]), and what a final hand is worth by the settlement rules,
//! standing now or asking on at best.

use std::collections::{BTreeMap, HashMap};

use crate::rules::cards::Card;
use crate::rules::potverteren::deck::{BRILJANT, full_deck, value};
use crate::rules::potverteren::{MAX_CARDS, PotParts, SIXTEEN, Variant};

/// The cards a seat cannot see, counted by value (index = value 1..=10; the
/// only 6 is the briljant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Pool([u8; 11]);

impl Pool {
    pub(super) fn unseen(seen: &[Card]) -> Pool {
        let mut counts = [0u8; 11];
        for card in full_deck() {
            if !seen.contains(&card) {
                counts[value(card) as usize] += 1;
            }
        }
        Pool(counts)
    }

    pub(super) fn len(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Each value still unseen with its probability of being the next card.
    fn draws(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        let total = f64::from(self.len());
        (1u32..=10)
            .filter(|&v| self.0[v as usize] > 0)
            .map(move |v| (v, f64::from(self.0[v as usize]) / total))
    }

    fn without(&self, v: u32) -> Pool {
        let mut pool = *self;
        pool.0[v as usize] -= 1;
        pool
    }

    /// The chance that one more card takes `total` over 16.
    fn bust_chance(&self, total: u32) -> f64 {
        self.draws()
            .filter(|&(v, _)| total + v > SIXTEEN)
            .map(|(_, p)| p)
            .sum()
    }
}

/// A final hand as the settlement sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Final {
    pub(super) total: u32,
    cards: u8,
    /// Holds the briljant (the only card of value 6).
    briljant: bool,
}

impl Final {
    pub(super) fn of(values: &[u32]) -> Final {
        Final {
            total: values.iter().sum(),
            cards: values.len() as u8,
            briljant: values.contains(&value(BRILJANT)),
        }
    }

    pub(super) fn plus(self, v: u32) -> Final {
        Final {
            total: self.total + v,
            cards: self.cards + 1,
            briljant: self.briljant || v == value(BRILJANT),
        }
    }

    /// How good the hand is in the settlement's order, `None` over 16: at
    /// exactly 16 the briljant pair first, then fewest cards; below 16 the
    /// highest total, then fewest cards.
    fn rank(self) -> Option<(u8, u32, u8)> {
        let fewer = MAX_CARDS as u8 - self.cards;
        match self.total {
            t if t > SIXTEEN => None,
            SIXTEEN => Some((2, u32::from(self.briljant && self.cards == 2), fewer)),
            t => Some((1, t, fewer)),
        }
    }

    fn excess(self) -> f64 {
        f64::from(self.total.saturating_sub(SIXTEEN))
    }
}

/// A distribution of final hands (ordered, so sums are always taken in the
/// same order and the same view gives bit-identical values).
pub(super) type Dist = BTreeMap<Final, f64>;

/// The final hands of a seat still to play: one blind card, then asking
/// while the chance of going over 16 is below one half (at most 4 cards).
pub(super) fn to_play_dist(pool: Pool) -> Dist {
    fn grow(hand: Final, pool: Pool, p: f64, out: &mut Dist) {
        let asks = hand.cards < MAX_CARDS as u8
            && hand.total <= SIXTEEN
            && pool.len() > 0
            && pool.bust_chance(hand.total) < 0.5;
        if !asks {
            *out.entry(hand).or_default() += p;
            return;
        }
        for (v, q) in pool.draws() {
            grow(hand.plus(v), pool.without(v), p * q, out);
        }
    }
    let mut out = Dist::new();
    for (v, q) in pool.draws() {
        grow(Final::of(&[v]), pool.without(v), q, &mut out);
    }
    out
}

/// The final hand of a seat that stood with `open` cards: an unseen blind
/// card, one that let it ask every open card but the last while not over 16.
pub(super) fn stood_dist(pool: Pool, open: &[u32]) -> Dist {
    let before_last: u32 = open.iter().take(open.len().saturating_sub(1)).sum();
    let allowed = |v: u32| open.is_empty() || v + before_last <= SIXTEEN;
    let weight: f64 = pool
        .draws()
        .filter(|&(v, _)| allowed(v))
        .map(|(_, p)| p)
        .sum();
    let mut out = Dist::new();
    for (v, p) in pool.draws() {
        // No blind card fits (cannot happen at a real table): any unseen card.
        if weight > 0.0 && !allowed(v) {
            continue;
        }
        let mut hand: Vec<u32> = vec![v];
        hand.extend_from_slice(open);
        let p = if weight > 0.0 { p / weight } else { p };
        *out.entry(Final::of(&hand)).or_default() += p;
    }
    out
}

/// What the other seats' final hands mean for a hand: per seat, the chance
/// it beats the hand, ties it, or loses to it.
pub(super) struct Field {
    seats: Vec<Dist>,
    /// Expected excess the other seats pay over 16.
    pub(super) excess: f64,
    /// [`Field::ties`] by hand, computed once each.
    known: std::cell::RefCell<HashMap<Final, Vec<f64>>>,
}

impl Field {
    pub(super) fn new(seats: Vec<Dist>) -> Field {
        let excess = seats
            .iter()
            .flat_map(|d| d.iter().map(|(h, p)| h.excess() * p))
            .sum();
        Field {
            seats,
            excess,
            known: Default::default(),
        }
    }

    /// The chance of sharing the prize with exactly `k` others, for each `k`,
    /// given no seat beats `mine` (index k).
    fn ties(&self, mine: Final) -> Vec<f64> {
        if let Some(known) = self.known.borrow().get(&mine) {
            return known.clone();
        }
        let poly = self.compute_ties(mine);
        self.known.borrow_mut().insert(mine, poly.clone());
        poly
    }

    fn compute_ties(&self, mine: Final) -> Vec<f64> {
        let Some(rank) = mine.rank() else {
            return Vec::new();
        };
        let mut poly = vec![1.0];
        for dist in &self.seats {
            let (mut tie, mut lose) = (0.0, 0.0);
            for (hand, p) in dist {
                match hand.rank() {
                    Some(r) if r > rank => {}
                    Some(r) if r == rank => tie += p,
                    _ => lose += p,
                }
            }
            let mut next = vec![0.0; poly.len() + 1];
            for (k, q) in poly.iter().enumerate() {
                next[k] += q * lose;
                next[k + 1] += q * tie;
            }
            poly = next;
        }
        poly
    }
}

/// What the settlement of this round depends on besides the hands.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settle {
    pub(super) variant: Variant,
    pub(super) pot: PotParts,
}

/// The settlement's prize for a winner at `mine`: the whole pot at 16 or in
/// the lot variant, else the stakes part.
fn prize(rules: Settle, mine: Final, others_excess: f64) -> f64 {
    let pot = rules.pot;
    match rules.variant {
        // In the lot variant the excess goes into the pot before the prize.
        Variant::Lot => pot.total() as f64 + others_excess,
        Variant::Auction if mine.total == SIXTEEN => pot.total() as f64,
        Variant::Auction => pot.stakes as f64,
    }
}

/// The expected chips of ending the turn with `mine`, from now on (stake
/// and bid already paid): minus the excess over 16, plus the share of the
/// prize. In the auction variant chips divide evenly and the remainder stays
/// in the pot.
pub(super) fn settle_value(rules: Settle, field: &Field, mine: Final) -> f64 {
    let prize = prize(rules, mine, field.excess);
    let share: f64 = field
        .ties(mine)
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let split = prize / (k as f64 + 1.0);
            q * match rules.variant {
                Variant::Auction => split.floor(),
                Variant::Lot => split,
            }
        })
        .sum();
    share - mine.excess()
}

/// The expected chips of asking a card with `hand`, then standing or asking
/// on, whichever is worth more, over every unseen card.
pub(super) fn hit_value(
    rules: Settle,
    field: &Field,
    hand: Final,
    pool: Pool,
    memo: &mut HashMap<(Final, Pool), f64>,
) -> f64 {
    pool.draws()
        .map(|(v, p)| p * best_value(rules, field, hand.plus(v), pool.without(v), memo))
        .sum()
}

fn best_value(
    rules: Settle,
    field: &Field,
    hand: Final,
    pool: Pool,
    memo: &mut HashMap<(Final, Pool), f64>,
) -> f64 {
    if let Some(&known) = memo.get(&(hand, pool)) {
        return known;
    }
    let stand = settle_value(rules, field, hand);
    let best = if hand.total > SIXTEEN || usize::from(hand.cards) >= MAX_CARDS || pool.len() == 0 {
        stand
    } else {
        stand.max(hit_value(rules, field, hand, pool, memo))
    };
    memo.insert((hand, pool), best);
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    #[test]
    fn strong_potverteren_settle_value_follows_the_settlement() {
        let auction = Settle {
            variant: Variant::Auction,
            pot: PotParts {
                stakes: 5,
                pothouder: 3,
            },
        };
        let hand = |total, cards, briljant| Final {
            total,
            cards,
            briljant,
        };
        // One other seat, surely at 15 with two cards.
        let field = Field::new(vec![Dist::from([(hand(15, 2, false), 1.0)])]);
        // A tie at 15 with two cards: half the stakes part, rounded down.
        assert_eq!(settle_value(auction, &field, hand(15, 2, false)), 2.0);
        // 15 with three cards loses on the card count; 14 loses.
        assert_eq!(settle_value(auction, &field, hand(15, 3, false)), 0.0);
        assert_eq!(settle_value(auction, &field, hand(14, 2, false)), 0.0);
        // Exactly 16 takes the whole pot.
        assert_eq!(settle_value(auction, &field, hand(16, 3, false)), 8.0);
        // Over 16 pays the excess.
        assert_eq!(settle_value(auction, &field, hand(19, 3, false)), -3.0);
        // Half the time the other seat is over 18: 15 with three cards
        // wins the stakes part then.
        let field = Field::new(vec![Dist::from([
            (hand(15, 2, false), 0.5),
            (hand(18, 3, false), 0.5),
        ])]);
        assert_eq!(settle_value(auction, &field, hand(15, 3, false)), 2.5);
        // The lot variant: the whole pot plus the expected excess (1 chip).
        let lot = Settle {
            variant: Variant::Lot,
            ..auction
        };
        assert_eq!(settle_value(lot, &field, hand(15, 3, false)), 4.5);
    }

    /// The expected chips of asking, by brute force over every unseen card
    /// (not by value), standing afterwards.
    fn brute_hit_then_stand(rules: Settle, field: &Field, cards: &[Card], unseen: &[Card]) -> f64 {
        let mut sum = 0.0;
        for &c in unseen {
            let mut hand: Vec<u32> = cards.iter().map(|&c| value(c)).collect();
            hand.push(value(c));
            sum += settle_value(rules, field, Final::of(&hand));
        }
        sum / unseen.len() as f64
    }

    #[test]
    fn strong_potverteren_hit_value_is_exact_over_the_unseen_cards() {
        // With three cards the seat may ask once more only: the hit value is
        // the plain average over every unseen card.
        let rules = Settle {
            variant: Variant::Auction,
            pot: PotParts {
                stakes: 4,
                pothouder: 2,
            },
        };
        let mine = [card("2C"), card("3D"), card("AH")];
        let seen = [mine.as_slice(), &[card("KS"), card("9H")]].concat();
        let unseen: Vec<Card> = full_deck()
            .into_iter()
            .filter(|c| !seen.contains(c))
            .collect();
        let pool = Pool::unseen(&seen);
        let field = Field::new(vec![stood_dist(pool, &[10, 9]), to_play_dist(pool)]);
        let values: Vec<u32> = mine.iter().map(|&c| value(c)).collect();
        let hit = hit_value(rules, &field, Final::of(&values), pool, &mut HashMap::new());
        let brute = brute_hit_then_stand(rules, &field, &mine, &unseen);
        assert!((hit - brute).abs() < 1e-9, "{hit} vs {brute}");
    }

    #[test]
    fn strong_potverteren_stood_seat_blind_is_ruled_by_asking_while_not_over_16() {
        // A seat that asked 9 then K had at most 7 before its second card:
        // its blind card is worth at most 7.
        let pool = Pool::unseen(&[]);
        let dist = stood_dist(pool, &[9, 10]);
        let total: f64 = dist.values().sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert!(dist.keys().all(|h| h.total - 19 <= 7));
    }
}
