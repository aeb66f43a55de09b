//! The solver's parts against their references: the tables against the
//! rules, the mask tricks against card-by-card versions, the bounds against
//! random play, and the last two tricks' own search and the low-card key
//! against plain search.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::rules::Seat;
use crate::rules::cards::Suit;
use crate::rules::klaverjassen::{
    BySeat, ByTeam, CardSet, HouseRules, Team, card_at, card_points, roem, strength,
};

use super::bounds::RUNS_BOUND;
use super::bounds::roem_bound;
use super::ordering::{no_roem, no_roem_mask};
use super::position::{CARD_POINTS, State, made, margin, may_make_roem, power_of, team_index};
use super::{INF, Limits, Position, Solver};

#[test]
fn the_sequence_bound_covers_two_runs_of_four_in_a_full_suit() {
    // Every run start allowed: a full suit.
    assert_eq!(RUNS_BOUND[0x7FF], 10);
    // One run of three only.
    assert_eq!(RUNS_BOUND[0b1], 2);
    assert_eq!(RUNS_BOUND[0], 0);
}

/// The 32 bit indices in random order.
fn shuffled(rng: &mut StdRng) -> Vec<u32> {
    let mut deck: Vec<u32> = (0..32).collect();
    for at in (1..deck.len()).rev() {
        deck.swap(at, rng.random_range(0..=at));
    }
    deck
}

/// A random deal's first trick, a random trump and random house rules:
/// the hands dealt from a shuffled deck, then the trump, then the leader
/// and the house rules drawn (every combination alike).
fn random_start(rng: &mut StdRng) -> (State, Suit, HouseRules) {
    let deck = shuffled(rng);
    let mut hands = [0u32; 4];
    for (at, index) in deck.iter().enumerate() {
        hands[at / 8] |= 1 << index;
    }
    let trump = Suit::ALL[rng.random_range(0..4)];
    let state = state_at_start(hands, rng.random_range(0..4));
    let all = HouseRules::all();
    (state, trump, all[rng.random_range(0..all.len())])
}

/// A state at the start of a trick, nothing taken yet.
fn state_at_start(hands: [u32; 4], leader: u8) -> State {
    State {
        hands,
        leader,
        cards: [0; 4],
        len: 0,
        top: 0,
        power: 0,
        trick: 0,
        points: [0; 2],
        roem: [0; 2],
        taken: [0; 2],
    }
}

/// The trick winner the state keeps card by card (by the rules'
/// `strength`) is the rules' `trick_winner` on random tricks, trumps and
/// leaders.
#[test]
fn the_winner_kept_card_by_card_is_the_rules_trick_winner() {
    use crate::rules::klaverjassen::trick_winner;
    let mut rng = StdRng::seed_from_u64(12);
    for _ in 0..20_000 {
        let deck = shuffled(&mut rng);
        let trump = Suit::ALL[rng.random_range(0..4)];
        let leader: u8 = rng.random_range(0..4);
        let mut hands = [0u32; 4];
        for (offset, index) in deck[..4].iter().enumerate() {
            hands[usize::from((leader + offset as u8) % 4)] = 1 << index;
        }
        let state = state_at_start(hands, leader).play_last_trick(trump, HouseRules::default());
        let cards = [0, 1, 2, 3].map(|at| card_at(deck[at]));
        assert_eq!(
            Seat(state.leader),
            trick_winner(&cards, Seat(leader), trump),
            "{cards:?} trump {trump:?}"
        );
    }
}

/// The no-roem mask is `no_roem` card by card, for random sets of the
/// other seats' cards, every suit and low rank.
#[test]
fn the_no_roem_mask_is_no_roem_card_by_card() {
    let mut rng = StdRng::seed_from_u64(18);
    for case in 0..20_000 {
        let deck = shuffled(&mut rng);
        let count = 4 + case % 24;
        let others = deck[..count]
            .iter()
            .fold(0u32, |bits, index| bits | 1 << index);
        let mask = no_roem_mask(others);
        for suit in 0..4u32 {
            let theirs = (others >> (8 * suit)) & 0xFF;
            for rank in 0..3u32 {
                assert_eq!(
                    mask & 1 << (8 * suit + rank) != 0,
                    no_roem(rank, suit, theirs, others),
                    "{others:x} {suit} {rank}"
                );
            }
        }
    }
}

/// The quick roem test never rules out a trick the rules give roem:
/// every set of four cards of random deals (four jacks at 200 or 100), and
/// every run, stuk and four of a kind.
#[test]
fn the_quick_roem_test_passes_every_trick_with_roem() {
    let mut rng = StdRng::seed_from_u64(17);
    let mut with_roem = 0;
    for _ in 0..100_000 {
        let deck = shuffled(&mut rng);
        let bits = deck[..4].iter().fold(0u32, |bits, index| bits | 1 << index);
        for (trump, rules) in Suit::ALL
            .into_iter()
            .zip(HouseRules::all().into_iter().step_by(3))
        {
            if roem(CardSet::from_bits(bits), trump, rules) != 0 {
                with_roem += 1;
                assert!(may_make_roem(bits), "{bits:x} {trump:?}");
            }
        }
    }
    for suit in 0..4 {
        for rank in 0..7 {
            assert!(may_make_roem(0b11 << (8 * suit + rank)));
        }
    }
    for rank in 0..8 {
        assert!(may_make_roem(0x0101_0101 << rank));
    }
    assert!(with_roem > 1_000, "{with_roem}");
}

/// The card points table is the rules' `card_points` for every card and
/// trump.
#[test]
fn the_card_points_table_is_the_rules_card_points() {
    for trump in Suit::ALL {
        for index in 0..32 {
            assert_eq!(
                i32::from(CARD_POINTS[trump as usize][index as usize]),
                card_points(card_at(index), trump)
            );
        }
    }
}

/// The strength table is the rules' `strength` for every card, led suit
/// and trump.
#[test]
fn the_strength_table_is_the_rules_card_order() {
    for trump in Suit::ALL {
        for led in 0..4u32 {
            for index in 0..32 {
                assert_eq!(
                    power_of(index, led, trump),
                    strength(index, Suit::ALL[led as usize], trump)
                );
            }
        }
    }
}

/// The value the rest search (without `NAT`) or the nat search (with it)
/// gives `state`, by plain minimax over every line of play: what the rest
/// of the deal adds to team A's lead, plus the pit bonus, or `KEPT` to the
/// playing team while the roem the rest makes stays within `budget`.
fn plain_rest<const NAT: bool>(solver: &Solver, state: &State, budget: i32) -> i32 {
    if state.remaining() == 0 {
        return if NAT {
            solver.kept(budget)
        } else {
            solver.pit_bonus(solver.pit_open(state))
        };
    }
    let maximising = team_index(state.mover()) == 0;
    let mut best = if maximising { -INF } else { INF };
    let mut bits = state.legal(solver.trump, solver.rules);
    while bits != 0 {
        let mut child = *state;
        child.play(bits.trailing_zeros(), solver.trump, solver.rules);
        bits &= bits - 1;
        let rest = plain_rest::<NAT>(solver, &child, budget - (made(&child) - made(state)));
        let value = margin(&child) - margin(state) + rest;
        best = if maximising {
            best.max(value)
        } else {
            best.min(value)
        };
    }
    best
}

/// The last two tricks' own search gives exactly the value of the rest
/// and nat searches by plain minimax (full window), and the same side of
/// every zero window, on random positions with two tricks left: random
/// deals, trumps, house rules and playing teams, played out at random (so
/// pit is sometimes still open), every roem budget from exceeded to ample.
#[test]
fn the_two_trick_search_gives_the_values_of_the_full_search() {
    let mut rng = StdRng::seed_from_u64(13);
    let mut two = Solver::new();
    for case in 0..5_000 {
        let (mut state, trump, rules) = random_start(&mut rng);
        // Every third deal lets team A take the early tricks (pit open).
        let favour = case % 3 == 0;
        while state.remaining().count_ones() > 8 {
            let legal = state.legal(trump, rules);
            let pick = if favour && team_index(state.mover()) == 0 {
                legal.count_ones() - 1
            } else {
                rng.random_range(0..legal.count_ones())
            };
            let mut bits = legal;
            for _ in 0..pick {
                bits &= bits - 1;
            }
            state.play(bits.trailing_zeros(), trump, rules);
        }
        let playing = if case % 2 == 0 { Team::A } else { Team::B };
        let position = Position {
            hands: BySeat(state.hands.map(CardSet::from_bits)),
            trump,
            playing_team: playing,
            leader: Seat(state.leader),
            trick: Vec::new(),
            card_points: ByTeam::new(state.points[0], state.points[1]),
            roem: ByTeam::new(state.roem[0], state.roem[1]),
            tricks_taken: ByTeam::new(state.taken[0], state.taken[1]),
            rules,
        };
        two.start(&position, Limits::NONE);
        let pit_open = two.pit_open(&state);
        let exact = plain_rest::<false>(&two, &state, 0);
        assert_eq!(
            two.two_tricks::<false>(&state, 0, pit_open, -INF, INF),
            exact,
            "{position:?}"
        );
        for target in [exact - 2, exact - 1, exact, exact + 1] {
            let value = two.two_tricks::<false>(&state, 0, pit_open, target - 1, target);
            assert_eq!(value >= target, exact >= target, "{position:?} {target}");
        }
        // The nat search answers zero windows far below `KEPT`: the same
        // side of each.
        let budget = [-10, 0, 20, 40, 100][case % 5];
        let kept = two.two_tricks::<true>(&state, budget, false, -INF, INF);
        let searched = plain_rest::<true>(&two, &state, budget);
        for target in [-150, -40, -1, 0, 1, 2, 40, 150] {
            let value = two.two_tricks::<true>(&state, budget, false, target - 1, target);
            assert_eq!(searched >= target, kept >= target, "{position:?} {budget}");
            assert_eq!(value >= target, kept >= target, "{position:?} {budget}");
        }
    }
}

/// A random deal, trump and house rules played out at random (legal
/// cards) to the start of the trick with `out` cards still out.
fn played_to(rng: &mut StdRng, out: u32) -> (State, Suit, HouseRules) {
    let (mut state, trump, rules) = random_start(rng);
    while state.remaining().count_ones() > out {
        let legal = state.legal(trump, rules);
        let mut bits = legal;
        for _ in 0..rng.random_range(0..legal.count_ones()) {
            bits &= bits - 1;
        }
        state.play(bits.trailing_zeros(), trump, rules);
    }
    (state, trump, rules)
}

/// The position of a search state at a trick's start.
fn position_of(state: &State, trump: Suit, rules: HouseRules, playing: Team) -> Position {
    Position {
        hands: BySeat(state.hands.map(CardSet::from_bits)),
        trump,
        playing_team: playing,
        leader: Seat(state.leader),
        trick: Vec::new(),
        card_points: ByTeam::new(state.points[0], state.points[1]),
        roem: ByTeam::new(state.roem[0], state.roem[1]),
        tricks_taken: ByTeam::new(state.taken[0], state.taken[1]),
        rules,
    }
}

/// Two positions whose low-card keys are equal have the same value in
/// the rest search (exact, full window) and the same side of the nat
/// search's windows: random positions 16 cards out, and the same
/// position with each suit's pointless low cards moved to other low
/// ranks (same number, same holders in the same order), each searched in
/// a table generation of its own (the start of a trick 16 cards out is
/// the only node keyed by low cards, so no entry of one serves the other).
#[test]
fn positions_with_the_same_low_card_key_have_the_same_value() {
    let mut rng = StdRng::seed_from_u64(14);
    let mut solver = Solver::new();
    let mut keyed = Solver::new();
    let mut shared = 0;
    for case in 0..300 {
        let (state, trump, rules) = played_to(&mut rng, 16);
        let playing = if case % 2 == 0 { Team::A } else { Team::B };
        let mut moved = state;
        for suit in 0..4u32 {
            let shift = 8 * suit;
            let ranks: &[u32] = if suit == trump as u32 {
                &[0, 1]
            } else {
                &[0, 1, 2]
            };
            let holders: Vec<usize> = ranks
                .iter()
                .filter_map(|rank| {
                    (0..4).find(|&seat| state.hands[seat] & 1 << (shift + rank) != 0)
                })
                .collect();
            // A random choice of as many low ranks, weakest first.
            let mut chosen: Vec<u32> = ranks.to_vec();
            while chosen.len() > holders.len() {
                chosen.remove(rng.random_range(0..chosen.len()));
            }
            for rank in ranks {
                for hand in &mut moved.hands {
                    *hand &= !(1 << (shift + rank));
                }
            }
            for (seat, rank) in holders.iter().zip(&chosen) {
                moved.hands[*seat] |= 1 << (shift + rank);
            }
        }
        let first = position_of(&state, trump, rules, playing);
        let second = position_of(&moved, trump, rules, playing);
        keyed.start(&first, Limits::NONE);
        let key = keyed.low_key(&state);
        keyed.start(&second, Limits::NONE);
        if keyed.low_key(&moved) != key {
            continue;
        }
        if moved.hands != state.hands {
            shared += 1;
        }
        solver.start(&first, Limits::NONE);
        let value = solver.rest::<false>(&state, 0, -INF, INF);
        let nat: Vec<bool> = [(0, -40), (0, 0), (20, 0), (20, 40)]
            .iter()
            .map(|&(budget, target)| {
                solver.rest::<true>(&state, budget, target - 1, target) >= target
            })
            .collect();
        solver.start(&second, Limits::NONE);
        assert_eq!(
            solver.rest::<false>(&moved, 0, -INF, INF),
            value,
            "{first:?} {second:?}"
        );
        let moved_nat: Vec<bool> = [(0, -40), (0, 0), (20, 0), (20, 40)]
            .iter()
            .map(|&(budget, target)| {
                solver.rest::<true>(&moved, budget, target - 1, target) >= target
            })
            .collect();
        assert_eq!(moved_nat, nat, "{first:?} {second:?}");
    }
    assert!(shared > 50, "{shared}");
}

/// The sure trumps by masks are the sure trumps counted card by card,
/// strongest first, at every trick's start of random deals played out
/// at random, every trump and playing team.
#[test]
fn the_sure_trumps_by_masks_are_those_counted_card_by_card() {
    let mut rng = StdRng::seed_from_u64(16);
    let mut solver = Solver::new();
    for case in 0..5_000 {
        let (mut state, trump, rules) = random_start(&mut rng);
        let playing = if case % 2 == 0 { Team::A } else { Team::B };
        solver.start(&position_of(&state, trump, rules, playing), Limits::NONE);
        while state.remaining() != 0 {
            if state.len == 0 {
                assert_eq!(
                    solver.sure(&state),
                    solver.sure_card_by_card(&state),
                    "{state:?} {trump:?}"
                );
            }
            let legal = state.legal(trump, rules);
            let mut bits = legal;
            for _ in 0..rng.random_range(0..legal.count_ones()) {
                bits &= bits - 1;
            }
            state.play(bits.trailing_zeros(), trump, rules);
        }
    }
}

/// The roem bound at each trick's start is never below the roem the
/// rest of the deal makes, over random deals played out at random.
#[test]
fn the_roem_bound_covers_the_roem_of_random_play() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..20_000 {
        let (mut state, trump, rules) = random_start(&mut rng);
        let hands = state.hands;
        let mut starts = Vec::new();
        while state.remaining() != 0 {
            if state.len == 0 {
                starts.push((roem_bound(&state.hands, trump, rules), made(&state)));
            }
            let legal = state.legal(trump, rules);
            let pick = rng.random_range(0..legal.count_ones());
            let mut bits = legal;
            for _ in 0..pick {
                bits &= bits - 1;
            }
            state.play(bits.trailing_zeros(), trump, rules);
        }
        for (bound, before) in starts {
            assert!(
                bound >= made(&state) - before,
                "{bound} {hands:?} {trump:?}"
            );
        }
    }
}
