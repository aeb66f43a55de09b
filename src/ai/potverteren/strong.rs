//! The `strong` Potverteren player (docs/bots.md, "Potverteren strong").
//!
//! It decides from the seat's [`View`] alone, by expected chips (the odds
//! module):
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

use std::collections::HashMap;

use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::potverteren::deck::value;
use crate::rules::potverteren::{Move as PotMove, SIXTEEN, Table, Variant, View};

use super::odds::{
    Dist, Field, Final, Pool, Settle, hit_value, settle_value, stood_dist, to_play_dist,
};
use crate::ai::Player;

/// The `strong` Potverteren player.
pub struct StrongPlayer;

impl Player<Table> for StrongPlayer {
    fn choose(
        &self,
        seat: Seat,
        view: &View,
        legal: &[PotMove],
        _rng: &mut dyn rand::Rng,
    ) -> Option<PotMove> {
        evaluate(seat, view, legal).map(|decision| decision.chosen)
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

/// Decides for `seat` from its view and its legal moves `moves` alone.
/// `None` when there is no move.
pub fn evaluate(me: Seat, table: &View, moves: &[PotMove]) -> Option<Decision> {
    let only = |chosen| {
        Some(Decision {
            chosen,
            values: Vec::new(),
        })
    };
    if moves.contains(&PotMove::Deal) {
        return only(PotMove::Deal);
    }
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
        .iter()
        .copied()
        .find(|m| !matches!(m, PotMove::EndTable))
        .and_then(only)
}

/// The seats dealt in this round in order of play, starting after the
/// pothouder (who plays last in the lot variant, not at all at auction).
fn order(table: &View) -> Vec<Seat> {
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
fn turn_values(table: &View, me: Seat) -> Option<(f64, f64)> {
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

/// The expected chips this round of becoming pothouder for `amount`, and of
/// playing instead (another seat pothouder for about the same bid), as the
/// auction stands (no card seen yet).
fn auction_values(table: &View, amount: u32) -> (f64, f64) {
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

    use super::*;
    use crate::rules::potverteren::deck::BRILJANT;
    use crate::rules::potverteren::{Deck, Options as PotOptions};

    fn card(code: &str) -> Card {
        code.parse().unwrap()
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

    /// The decision for `seat` from its view and legal moves.
    fn decide_for(table: &Table, seat: u8) -> Decision {
        let seat = Seat(seat);
        evaluate(seat, &table.view_for(Some(seat)), &table.legal_moves(seat)).unwrap()
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
            games.push(table);
        }
        let views: Vec<String> = games
            .iter()
            .map(|g| serde_json::to_string(&g.view_for(Some(Seat(2)))).unwrap())
            .collect();
        assert_eq!(views[0], views[1], "the seat sees the same in both");
        assert_ne!(games[0], games[1], "the hidden cards differ");
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
        let decision = decide_for(&table, 1);
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
        let decision = decide_for(&table, 1);
        assert_eq!(decision.chosen, PotMove::Hit);
        assert!(value_of(&decision, PotMove::Hit) > value_of(&decision, PotMove::Stand));
    }

    #[test]
    fn strong_potverteren_auction_bids_when_the_pot_is_empty_and_passes_when_full() {
        let mut rng = StdRng::seed_from_u64(3);
        let table = Table::new(PotOptions::default(), Seat(0), &mut rng);
        let decision = decide_for(&table, 0);
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
        let (pothouder, player) = auction_values(&table.view_for(Some(Seat(0))), 1);
        // A full pot makes playing worth more, the pothouder no more.
        let mut full = table.view_for(Some(Seat(0)));
        full.pot_parts.pothouder = 100;
        let (pothouder_full, player_full) = auction_values(&full, 1);
        assert_eq!(pothouder, pothouder_full);
        assert!(player_full > player);
        assert!(player_full > pothouder_full);
    }
}
