//! The strong computer player: decides for one seat from that seat's
//! [`View`] alone (never the match state), by perfect-information Monte
//! Carlo over the exact [`Solver`] (docs/solver.md).
//!
//! For a card to play it samples full deals consistent with everything the
//! seat knows: its own hand, every card played, the voids shown by not
//! following suit, and what mandatory play reveals (a seat that did not
//! trump, or did not overtrump, when the rules would have forced it holds no
//! such trump). Those facts come from the rules' own [`legal_cards`]: a card
//! `x` is ruled out for a seat that played `c` when `c` would not have been
//! allowed from a hand holding both `c` and `x`. Deals are drawn uniformly
//! among all consistent ones by exact counting (each consistent deal has
//! probability exactly 1/N), each is solved exactly, and the card with the
//! best average value wins. Trump is chosen the same way, each suit valued
//! over sampled deals.
//!
//! In club mode it reports an opponent's revoke as soon as the cards played
//! prove it (the seat later played a card it cannot have held then), and
//! never revokes itself.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use rand::Rng;
use rand::seq::SliceRandom;

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

use super::cardset::CardSet;
use super::game::Phase;
use super::history::{CompletedTrick, PlayedCard};
use super::moves::Move;
use super::play_rules::{legal_cards, set_points};
use super::solver::{Limits, Position, Solver, for_team};
use super::team::{BySeat, ByTeam, Team};
use super::view::View;

/// How much thinking one decision may use. `samples` and `nodes` are
/// counts, so with `time: None` the same view, budget and random seed always
/// give the same decision; `time` bounds the wall-clock time as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// At most this many sampled deals per decision.
    pub samples: u32,
    /// At most this many solver nodes per decision: the sample being solved
    /// when they run out is dropped, and the decision uses the samples
    /// completed before it.
    pub nodes: u64,
    /// At most this much wall-clock time per decision, enforced the same
    /// way (`None`: counts only, reproducible).
    pub time: Option<Duration>,
}

/// The default time bound of one decision (docs/solver.md).
pub const DEFAULT_TIME: Duration = Duration::from_millis(200);

impl Default for Budget {
    /// 32 samples, 2 million nodes and 200 ms, whichever runs out first
    /// (docs/solver.md, docs/benchmarks.md).
    fn default() -> Budget {
        Budget {
            samples: 32,
            nodes: 2_000_000,
            time: Some(DEFAULT_TIME),
        }
    }
}

impl Budget {
    /// A budget of counts only (no clock): reproducible decisions.
    pub const fn counted(samples: u32, nodes: u64) -> Budget {
        Budget {
            samples,
            nodes,
            time: None,
        }
    }

    /// The solver limits for the next sample of a decision that started at
    /// `started` and has used `used` nodes so far.
    fn limits(&self, started: Instant, used: u64) -> Limits {
        Limits {
            nodes: self.nodes.saturating_sub(used),
            deadline: self.time.map(|time| started + time),
        }
    }
}

thread_local! {
    /// One solver (and its 4 MiB table) per thread, reused by every
    /// decision the thread makes.
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

/// A decision and what it is based on.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The move to make.
    pub chosen: Move,
    /// The estimated value of each candidate move: the deal's final score
    /// difference, the seat's team minus the other, averaged over the
    /// sampled deals (empty for a move with no alternative worth valuing).
    pub values: Vec<(Move, f64)>,
    /// How many deals were sampled.
    pub samples: u32,
    /// Not one sampled deal could be solved within the budget, so `chosen`
    /// is only the first legal card or suit: a caller with a better rule of
    /// thumb should play that instead (the `strong` computer player plays as
    /// `basic` then, docs/solver.md).
    pub out_of_budget: bool,
}

/// Decides `seat`'s move from its view and its legal moves (as the table
/// lists them). `None` when there is nothing to do: `legal` is empty, or
/// holds only reports (club mode) and no revoke is proven.
pub fn decide<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Option<Decision> {
    let first = *legal.first()?;
    let only = |chosen: Move| Decision {
        chosen,
        values: Vec::new(),
        samples: 0,
        out_of_budget: false,
    };
    let tricks = played_tricks(view);
    // Club mode offers reports; report an opponent whose revoke is proven.
    for mv in legal {
        if let Move::ReportRevoke { seat: named } = mv
            && let Some(trump) = view.trump
            && proven_revoke(&tricks, *named, trump)
        {
            return Some(only(*mv));
        }
    }
    match view.phase {
        Phase::ChoosingTrump => Some(choose_trump(seat, view, legal, budget, rng)),
        Phase::Playing if legal.iter().any(|mv| matches!(mv, Move::Play { .. })) => {
            Some(play_card(seat, view, legal, budget, rng))
        }
        Phase::Review => Some(only(
            legal
                .iter()
                .copied()
                .find(|mv| *mv == Move::EndReview)
                .unwrap_or(first),
        )),
        _ => legal
            .iter()
            .copied()
            .find(|mv| !matches!(mv, Move::ReportRevoke { .. } | Move::TakeBack))
            .map(only),
    }
}

/// Every card played in the deal so far as tricks in order: the completed
/// tricks, then the open trick's cards.
fn played_tricks(view: &View) -> Vec<(Seat, Vec<PlayedCard>)> {
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
/// allowed from a hand holding both (the rules' own [`legal_cards`]).
fn ruled_out(card: Card, before: &[PlayedCard], trump: Suit) -> CardSet {
    let Some(led) = before.first().map(|played| played.card.suit) else {
        return CardSet::EMPTY;
    };
    let trick: CardSet = before.iter().map(|played| played.card).collect();
    let mine = CardSet::single(card);
    (CardSet::DECK - mine - trick)
        .iter()
        .filter(|other| {
            !legal_cards(mine | CardSet::single(*other), trick, Some(led), trump).contains(card)
        })
        .collect()
}

/// For each seat: the cards it cannot hold now by the rules, and whether its
/// own later plays contradict what its earlier plays revealed (a proven
/// revoke).
fn inferences(tricks: &[(Seat, Vec<PlayedCard>)], trump: Suit) -> ([CardSet; 4], [bool; 4]) {
    let mut excluded = [CardSet::EMPTY; 4];
    let mut revoked = [false; 4];
    for (_, cards) in tricks {
        for (position, played) in cards.iter().enumerate() {
            let seat = played.seat.index();
            if excluded[seat].contains(played.card) {
                revoked[seat] = true;
            }
            excluded[seat] = excluded[seat] | ruled_out(played.card, &cards[..position], trump);
        }
    }
    (excluded, revoked)
}

/// Whether the public history proves that `seat` revoked.
fn proven_revoke(tricks: &[(Seat, Vec<PlayedCard>)], seat: Seat, trump: Suit) -> bool {
    inferences(tricks, trump).1[seat.index()]
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
fn sample_deal<R: Rng + ?Sized>(
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
        Some(trump) => inferences(tricks, trump),
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

fn choose_trump<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Decision {
    let suits: Vec<Suit> = legal
        .iter()
        .filter_map(|mv| match mv {
            Move::ChooseTrump { suit } => Some(*suit),
            _ => None,
        })
        .collect();
    let team = Team::of(seat);
    let started = Instant::now();
    let mut sums = vec![0f64; suits.len()];
    let mut samples = 0;
    SOLVER.with_borrow_mut(|solver| {
        let first = solver.nodes();
        'sampling: while samples < budget.samples.max(1) {
            let hands = sample_deal(seat, view, &[], None, rng);
            let mut values = Vec::with_capacity(suits.len());
            for suit in &suits {
                let position = Position {
                    hands,
                    trump: *suit,
                    playing_team: team,
                    leader: seat,
                    trick: Vec::new(),
                    card_points: ByTeam::default(),
                    roem: ByTeam::default(),
                    tricks_taken: ByTeam::default(),
                };
                let limits = budget.limits(started, solver.nodes() - first);
                let Some(value) = solver.value_within(&position, limits) else {
                    break 'sampling;
                };
                values.push(f64::from(for_team(value, team)));
            }
            for (sum, value) in sums.iter_mut().zip(values) {
                *sum += value;
            }
            samples += 1;
        }
    });
    if samples == 0 {
        return fallback(legal);
    }
    let values: Vec<(Move, f64)> = suits
        .iter()
        .zip(&sums)
        .map(|(suit, sum)| (Move::ChooseTrump { suit: *suit }, sum / f64::from(samples)))
        .collect();
    finish(values, samples)
}

fn play_card<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Decision {
    let trump = view.trump.expect("trump is named during play");
    let team = Team::of(seat);
    let playing_team = view.playing_team.expect("a playing team during play");
    let tricks = played_tricks(view);
    let cards: Vec<Card> = legal
        .iter()
        .filter_map(|mv| match mv {
            Move::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    if cards.len() == 1 {
        return finish(vec![(Move::Play { card: cards[0] }, 0.0)], 0);
    }
    // The score so far, from the public tricks.
    let mut card_points = ByTeam::<i32>::default();
    for trick in &view.tricks {
        let set: CardSet = trick.cards.iter().map(|played| played.card).collect();
        card_points[Team::of(trick.winner)] += set_points(set, trump);
    }
    let (leader, trick) = match &view.trick {
        Some(open) => (open.leader, open.cards.iter().map(|p| p.card).collect()),
        None => (seat, Vec::new()),
    };
    let started = Instant::now();
    let mut sums = vec![0f64; cards.len()];
    let mut samples = 0;
    SOLVER.with_borrow_mut(|solver| {
        let first = solver.nodes();
        while samples < budget.samples.max(1) {
            let hands = sample_deal(seat, view, &tricks, Some(trump), rng);
            let position = Position {
                hands,
                trump,
                playing_team,
                leader,
                trick: trick.clone(),
                card_points,
                roem: view.roem,
                tricks_taken: view.tricks_taken,
            };
            let limits = budget.limits(started, solver.nodes() - first);
            let Some(solution) = solver.solve_within(&position, limits) else {
                break;
            };
            for (sum, card) in sums.iter_mut().zip(&cards) {
                let value = solution
                    .cards
                    .iter()
                    .find(|(c, _)| c == card)
                    .map_or(0, |(_, v)| *v);
                *sum += f64::from(for_team(value, team));
            }
            samples += 1;
        }
    });
    if samples == 0 {
        return fallback(legal);
    }
    let values = cards
        .iter()
        .zip(&sums)
        .map(|(card, sum)| (Move::Play { card: *card }, sum / f64::from(samples)))
        .collect();
    finish(values, samples)
}

/// When not one sample could be solved within the budget: the first legal
/// move (cards in card order, suits in suit order), with no values.
fn fallback(legal: &[Move]) -> Decision {
    let chosen = legal
        .iter()
        .copied()
        .find(|mv| matches!(mv, Move::Play { .. } | Move::ChooseTrump { .. }))
        .unwrap_or(legal[0]);
    Decision {
        chosen,
        values: Vec::new(),
        samples: 0,
        out_of_budget: true,
    }
}

/// Picks the best average (the first in the table's order on a tie).
fn finish(values: Vec<(Move, f64)>, samples: u32) -> Decision {
    let mut chosen = values[0].0;
    let mut best = f64::NEG_INFINITY;
    for (mv, value) in &values {
        if *value > best {
            best = *value;
            chosen = *mv;
        }
    }
    Decision {
        chosen,
        values,
        samples,
        out_of_budget: false,
    }
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
        let out = ruled_out(card("8D"), &before, Suit::Hearts);
        assert!(out.contains(card("KC")), "void in clubs");
        assert!(out.contains(card("JH")), "cannot overtrump the 9");
        assert!(!out.contains(card("AH")), "may hold a lower trump");
        assert!(!out.contains(card("KD")), "may hold other plain cards");
        let undertrump = ruled_out(card("8H"), &before, Suit::Hearts);
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
        assert!(proven_revoke(&tricks, Seat(1), Suit::Hearts));
        assert!(!proven_revoke(&tricks, Seat(3), Suit::Hearts));
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
