//! The `strong` Potverteren player (docs/bots.md, "Potverteren strong").
//!
//! It decides from the seat's [`GameView`] alone, by expected chips:
//! - **hit or stand**: the expected chips of each choice this round, computed
//!   exactly over every card the seat cannot see (every card of the deck that
//!   is not its own and not open on the table: the other seats' blind cards
//!   and the deck), drawing without replacement, and with its own later
//!   choices made the same way (a hit is valued by the best continuation).
//!   What its final hand is worth follows the settlement rules: the excess
//!   over 16 it pays, and its share of the prize (the whole pot at exactly
//!   16, else the stakes part in the auction variant and the whole pot in
//!   the lot variant) against the other seats' final hands, ties splitting
//!   it. The other seats are valued one by one from the same unseen cards: a
//!   seat that stood holds its open cards and one unseen blind card, ruled by
//!   what the rules prove (it asked every card but the last while not over
//!   16); a seat still to play is assumed to ask while the chance of going
//!   over 16 is below one half (the `basic` habit).
//! - **auction**: bids the minimum when the expected chips of being
//!   pothouder (what the other seats are expected to pay over 16, minus the
//!   bid) beat the expected chips of playing (the stake, the expected excess
//!   paid, and an even share of the expected prize, the bid included).
//!
//! No randomness is used: the same view always gives the same decision.

use std::collections::{BTreeMap, HashMap};

use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::potverteren::deck::{BRILJANT, full_deck, value};
use crate::rules::potverteren::{
    MAX_CARDS, Move as PotMove, PotParts, SIXTEEN, Variant, View as PotView,
};
use crate::table::Move;
use crate::table::view::GameView;

use super::Player;

/// The `strong` Potverteren player.
pub struct StrongPlayer;

impl Player for StrongPlayer {
    fn choose(&self, view: &GameView, _rng: &mut dyn rand::Rng) -> Option<Move> {
        evaluate(view).map(|decision| Move::Potverteren(decision.chosen))
    }
}

/// A decision and the expected chips of every choice weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The move to make.
    pub chosen: PotMove,
    /// Each choice weighed with its expected chips this round for the seat
    /// (empty when there was nothing to weigh, e.g. the pothouder's `deal`).
    pub values: Vec<(PotMove, f64)>,
}

/// Decides for the seat of `view` (its `you`), from the view alone. `None`
/// when the view offers no move.
pub fn evaluate(view: &GameView) -> Option<Decision> {
    let moves: Vec<PotMove> = view
        .legal_moves
        .iter()
        .filter_map(|m| match m {
            Move::Potverteren(m) => Some(*m),
            Move::Klaverjassen(_) | Move::Table(_) => None,
        })
        .collect();
    let only = |chosen| {
        Some(Decision {
            chosen,
            values: Vec::new(),
        })
    };
    if moves.contains(&PotMove::Deal) {
        return only(PotMove::Deal);
    }
    let table = view.potverteren.as_ref()?;
    let me = view.you?;
    if let Some(amount) = moves.iter().find_map(|m| match m {
        PotMove::Bid { amount } => Some(*amount),
        _ => None,
    }) {
        let (pothouder, player) = auction_values(table, amount);
        let bid = PotMove::Bid { amount };
        let chosen = if pothouder > player {
            bid
        } else {
            PotMove::Pass
        };
        return Some(Decision {
            chosen,
            values: vec![(bid, pothouder), (PotMove::Pass, player)],
        });
    }
    if moves.contains(&PotMove::Hit) {
        let (stand, hit) = turn_values(table, me)?;
        let chosen = if hit > stand {
            PotMove::Hit
        } else {
            PotMove::Stand
        };
        return Some(Decision {
            chosen,
            values: vec![(PotMove::Hit, hit), (PotMove::Stand, stand)],
        });
    }
    if moves.contains(&PotMove::Stand) {
        // Over 16: standing is the only move.
        return only(PotMove::Stand);
    }
    if moves.contains(&PotMove::Pass) {
        return only(PotMove::Pass);
    }
    // Never ends the table.
    moves
        .into_iter()
        .find(|m| !matches!(m, PotMove::EndTable))
        .and_then(only)
}

/// The cards a seat cannot see, counted by value (index = value 1..=10; the
/// only 6 is the briljant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Pool([u8; 11]);

impl Pool {
    fn unseen(seen: &[Card]) -> Pool {
        let mut counts = [0u8; 11];
        for card in full_deck() {
            if !seen.contains(&card) {
                counts[value(card) as usize] += 1;
            }
        }
        Pool(counts)
    }

    fn len(&self) -> u32 {
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
struct Final {
    total: u32,
    cards: u8,
    /// Holds the briljant (the only card of value 6).
    briljant: bool,
}

impl Final {
    fn of(values: &[u32]) -> Final {
        Final {
            total: values.iter().sum(),
            cards: values.len() as u8,
            briljant: values.contains(&value(BRILJANT)),
        }
    }

    fn plus(self, v: u32) -> Final {
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
type Dist = BTreeMap<Final, f64>;

/// The final hands of a seat still to play: one blind card, then asking
/// while the chance of going over 16 is below one half (at most 4 cards).
fn to_play_dist(pool: Pool) -> Dist {
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
fn stood_dist(pool: Pool, open: &[u32]) -> Dist {
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
struct Field {
    seats: Vec<Dist>,
    /// Expected excess the other seats pay over 16.
    excess: f64,
    /// [`Field::ties`] by hand, computed once each.
    known: std::cell::RefCell<HashMap<Final, Vec<f64>>>,
}

impl Field {
    fn new(seats: Vec<Dist>) -> Field {
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
struct Settle {
    variant: Variant,
    pot: PotParts,
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
fn settle_value(rules: Settle, field: &Field, mine: Final) -> f64 {
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

/// The seats dealt in this round in order of play, starting after the
/// pothouder (who plays last in the lot variant, not at all at auction).
fn order(table: &PotView) -> Vec<Seat> {
    let seats = table.hands.len() as u8;
    let Some(pothouder) = table.pothouder else {
        return Vec::new();
    };
    let mut order: Vec<Seat> = (1..=seats)
        .map(|step| Seat((pothouder.0 + step) % seats))
        .collect();
    if table.variant == Variant::Auction {
        order.pop();
    }
    order
}

/// The expected chips of standing now and of asking a card (then playing
/// on at best) for `me`; `None` when the view lacks the seat's cards.
fn turn_values(table: &PotView, me: Seat) -> Option<(f64, f64)> {
    let mine = table.hands.get(me.index())?;
    let blind = mine.blind_card?;
    let seen: Vec<Card> = table
        .hands
        .iter()
        .flat_map(|h| h.open_cards.iter().copied())
        .chain([blind])
        .collect();
    let pool = Pool::unseen(&seen);
    let mut others = Vec::new();
    let mut still_to_play: Option<Dist> = None;
    for seat in order(table).into_iter().filter(|&s| s != me) {
        let hand = &table.hands[seat.index()];
        let open: Vec<u32> = hand.open_cards.iter().map(|&c| value(c)).collect();
        others.push(if hand.stood {
            stood_dist(pool, &open)
        } else {
            still_to_play
                .get_or_insert_with(|| to_play_dist(pool))
                .clone()
        });
    }
    let field = Field::new(others);
    let cards: Vec<u32> = [blind]
        .iter()
        .chain(&mine.open_cards)
        .map(|&c| value(c))
        .collect();
    let hand = Final::of(&cards);
    let rules = Settle {
        variant: table.variant,
        pot: table.pot_parts,
    };
    let mut memo = HashMap::new();
    let stand = settle_value(rules, &field, hand);
    let hit = hit_value(rules, &field, hand, pool, &mut memo);
    Some((stand, hit))
}

/// The expected chips of asking a card with `hand`, then standing or asking
/// on, whichever is worth more, over every unseen card.
fn hit_value(
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

/// The expected chips this round of becoming pothouder for `amount`, and of
/// playing instead (another seat pothouder for about the same bid), as the
/// auction stands (no card seen yet).
fn auction_values(table: &PotView, amount: u32) -> (f64, f64) {
    let seats = table.hands.len();
    let players = seats.saturating_sub(1).max(1);
    let pool = Pool::unseen(&[]);
    let one = to_play_dist(pool);
    let field = Field::new(vec![one.clone(); players]);
    let per_seat_excess = field.excess / players as f64;
    let pothouder = field.excess - f64::from(amount);
    // A player: stakes one chip, pays its excess, and shares the prize
    // evenly with the other players by symmetry.
    let pot = table.pot_parts;
    let stakes = pot.stakes as f64 + players as f64;
    let whole = pot.total() as f64 + players as f64 + f64::from(amount);
    let none = |pred: &dyn Fn(&Final) -> bool| -> f64 {
        let p: f64 = one.iter().filter(|(h, _)| pred(h)).map(|(_, p)| p).sum();
        p.powi(players as i32)
    };
    let no_sixteen = none(&|h| h.total != SIXTEEN);
    let all_over = none(&|h| h.total > SIXTEEN);
    let at_sixteen = 1.0 - no_sixteen;
    let below = no_sixteen - all_over;
    let prize = at_sixteen * whole + below * stakes;
    let player = -1.0 - per_seat_excess + prize / players as f64;
    (pothouder, player)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use uuid::Uuid;

    use super::*;
    use crate::bots::Level;
    use crate::rules::potverteren::{Deck, Options as PotOptions, Table};
    use crate::table::{Game, GameKind, Options, Rules, SeatedPlayer, Status, TableOptions};

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    fn seated(i: u8) -> SeatedPlayer {
        SeatedPlayer {
            id: Uuid::from_u128(u128::from(i) + 1),
            name: format!("seat {i}"),
            bot: Some(Level::Strong),
        }
    }

    /// A game of `seats` around `table`.
    fn game_around(table: Table, seats: u8) -> Game {
        let options = Options::parse(
            GameKind::Potverteren,
            Some(serde_json::json!({"seats": seats})),
        )
        .unwrap();
        let mut rng = StdRng::seed_from_u64(0);
        let mut game = Game::create(
            Uuid::nil(),
            GameKind::Potverteren,
            options,
            TableOptions::default(),
            seated(0),
            Some(0),
            &mut rng,
        )
        .unwrap();
        game.seats = (0..seats).map(|i| Some(seated(i))).collect();
        game.status = Status::Playing;
        game.rules = Some(Rules::Potverteren(table));
        game
    }

    /// A 5-seat auction table where seat 0 won the auction for 1 chip and
    /// dealt `deck`: seats 1..=4 play in that order.
    fn dealt(deck: Deck) -> Table {
        let mut rng = StdRng::seed_from_u64(7);
        let mut table = Table::new(PotOptions::default(), Seat(0), &mut rng);
        table
            .play(Seat(0), PotMove::Bid { amount: 1 }, &mut rng)
            .unwrap();
        for seat in 1..5 {
            table.play(Seat(seat), PotMove::Pass, &mut rng).unwrap();
        }
        table.deal_from(Seat(0), deck).unwrap();
        table
    }

    fn decide_for(game: &Game, seat: u8) -> Decision {
        evaluate(&game.view_of_seat(Some(Seat(seat)))).unwrap()
    }

    fn value_of(decision: &Decision, mv: PotMove) -> f64 {
        decision
            .values
            .iter()
            .find(|(m, _)| *m == mv)
            .map(|(_, v)| *v)
            .unwrap()
    }

    #[test]
    fn strong_potverteren_player_only_makes_legal_moves() {
        for seed in 0..12u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let variant = if seed % 2 == 0 { "auction" } else { "lot" };
            let seats = 5 + (seed % 6) as u8;
            let options = Options::parse(
                GameKind::Potverteren,
                Some(serde_json::json!({"seats": seats, "variant": variant})),
            )
            .unwrap();
            let mut game = Game::create(
                Uuid::new_v4(),
                GameKind::Potverteren,
                options,
                TableOptions::default(),
                seated(0),
                Some(0),
                &mut rng,
            )
            .unwrap();
            for i in 1..seats {
                game.join(seated(i), None).unwrap();
            }
            for _ in 0..150 {
                let seat = game.awaiting().unwrap().seats[0];
                let view = game.view_of_seat(Some(seat));
                let mv = StrongPlayer.choose(&view, &mut rng).expect("a move");
                assert!(view.legal_moves.contains(&mv), "{mv:?} is not legal");
                game.play_for(seat, mv, &mut rng).unwrap();
            }
        }
    }

    #[test]
    fn strong_potverteren_decision_depends_only_on_the_seats_view() {
        // Seat 1 stands on its blind card; seat 2 decides. The other seats'
        // blind cards and the deck between differ; the cards seat 2 sees
        // (its blind 5C, the cards asked) are the same.
        let one = Deck::stacked(
            &[card("KS"), card("5C"), card("9D"), card("2H")],
            &[card("7S"), card("AD")],
        )
        .unwrap();
        let two = Deck::stacked(
            &[card("3D"), card("5C"), card("QH"), card("10C")],
            &[card("7S"), card("AD")],
        )
        .unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let mut games = Vec::new();
        for deck in [one, two] {
            let mut table = dealt(deck);
            table.play(Seat(1), PotMove::Stand, &mut rng).unwrap();
            table.play(Seat(2), PotMove::Hit, &mut rng).unwrap();
            games.push(game_around(table, 5));
        }
        let views: Vec<String> = games
            .iter()
            .map(|g| serde_json::to_string(&g.view_of_seat(Some(Seat(2)))).unwrap())
            .collect();
        assert_eq!(views[0], views[1], "the seat sees the same in both");
        assert_ne!(games[0].rules, games[1].rules, "the hidden cards differ");
        assert_eq!(decide_for(&games[0], 2), decide_for(&games[1], 2));
    }

    #[test]
    fn strong_potverteren_stands_on_the_briljant_pair_worth_the_whole_pot() {
        // Seat 1: blind KS, asks the briljant: 16 with two cards beats every
        // hand, so standing takes the whole pot (4 stakes + the bid of 1).
        let deck = Deck::stacked(
            &[card("KS"), card("5C"), card("9D"), card("2H")],
            &[BRILJANT],
        )
        .unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let mut table = dealt(deck);
        table.play(Seat(1), PotMove::Hit, &mut rng).unwrap();
        let game = game_around(table, 5);
        let decision = decide_for(&game, 1);
        assert_eq!(decision.chosen, PotMove::Stand);
        assert!((value_of(&decision, PotMove::Stand) - 5.0).abs() < 1e-9);
        assert!(
            value_of(&decision, PotMove::Hit) < 0.0,
            "any card goes over 16"
        );
    }

    #[test]
    fn strong_potverteren_asks_on_an_ace_that_cannot_go_over() {
        let deck = Deck::stacked(&[card("AS"), card("5C"), card("9D"), card("2H")], &[]).unwrap();
        let table = dealt(deck);
        let game = game_around(table, 5);
        let decision = decide_for(&game, 1);
        assert_eq!(decision.chosen, PotMove::Hit);
        assert!(value_of(&decision, PotMove::Hit) > value_of(&decision, PotMove::Stand));
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

    #[test]
    fn strong_potverteren_auction_bids_when_the_pot_is_empty_and_passes_when_full() {
        let mut rng = StdRng::seed_from_u64(3);
        let table = Table::new(PotOptions::default(), Seat(0), &mut rng);
        let game = game_around(table, 5);
        let decision = decide_for(&game, 0);
        let bid = value_of(&decision, PotMove::Bid { amount: 1 });
        let pass = value_of(&decision, PotMove::Pass);
        assert_eq!(
            decision.chosen,
            if bid > pass {
                PotMove::Bid { amount: 1 }
            } else {
                PotMove::Pass
            }
        );
        let (pothouder, player) =
            auction_values(&game.view_of_seat(Some(Seat(0))).potverteren.unwrap(), 1);
        // A full pot makes playing worth more, the pothouder no more.
        let mut full = game.view_of_seat(Some(Seat(0))).potverteren.unwrap();
        full.pot_parts.pothouder = 100;
        let (pothouder_full, player_full) = auction_values(&full, 1);
        assert_eq!(pothouder, pothouder_full);
        assert!(player_full > player);
        assert!(player_full > pothouder_full);
    }
}
