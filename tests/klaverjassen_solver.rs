//! The exact solver against plain minimax (no pruning, no table, no merged
//! cards) on random endgames of the last 3 and 4 tricks, in both revoke
//! modes and under every combination of the house rules, and its properties: a position's value is its best child's, and
//! values do not depend on the order in which cards are searched.

use kaarttafel::ai::solver::{Limits, Position, Solver, Techniques};
use kaarttafel::rules::Seat;
use kaarttafel::rules::cards::{Card, Suit};
use kaarttafel::rules::klaverjassen::{
    BySeat, ByTeam, CardSet, HouseRules, LAST_TRICK, Match, Move, Options, RevokeMode, Team,
    TrickSoFar, card_points, legal_cards, roem, score_deal, trick_winner,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The reference's state: small and `Copy`, so plain minimax stays quick
/// even in a debug build.
#[derive(Clone, Copy)]
struct Plain {
    hands: [CardSet; 4],
    trump: Suit,
    playing: Team,
    leader: Seat,
    trick: [Card; 4],
    len: usize,
    points: ByTeam<i32>,
    roem: ByTeam<i32>,
    taken: ByTeam<u8>,
    rules: HouseRules,
}

impl Plain {
    fn new(position: &Position) -> Plain {
        let mut trick = [Card::new(kaarttafel::rules::cards::Rank::Seven, Suit::Clubs); 4];
        trick[..position.trick.len()].copy_from_slice(&position.trick);
        Plain {
            hands: position.hands.0,
            trump: position.trump,
            playing: position.playing_team,
            leader: position.leader,
            trick,
            len: position.trick.len(),
            points: position.card_points,
            roem: position.roem,
            taken: position.tricks_taken,
            rules: position.rules,
        }
    }

    fn mover(&self) -> Seat {
        Seat((self.leader.0 + self.len as u8) % 4)
    }

    /// The rules' legal cards, the trick so far found from its cards in
    /// play order.
    fn legal(&self) -> CardSet {
        let trick = TrickSoFar::of(&self.trick[..self.len], self.trump);
        legal_cards(
            self.hands[self.mover().index()],
            trick,
            self.trump,
            self.rules,
        )
    }

    /// The rules' trick winner, card points and roem, written out apart
    /// from the solver's own move.
    fn play(mut self, card: Card) -> Plain {
        let seat = self.mover().index();
        self.hands[seat].remove(card);
        self.trick[self.len] = card;
        self.len += 1;
        if self.len == 4 {
            let winner = trick_winner(&self.trick, self.leader, self.trump);
            let team = Team::of(winner);
            let set: CardSet = self.trick.iter().copied().collect();
            self.points[team] += self
                .trick
                .iter()
                .map(|c| card_points(*c, self.trump))
                .sum::<i32>();
            if self.hands.iter().all(|hand| hand.is_empty()) {
                self.points[team] += LAST_TRICK;
            }
            self.roem[team] += roem(set, self.trump, self.rules);
            self.taken[team] += 1;
            self.leader = winner;
            self.len = 0;
        }
        self
    }

    /// Plain minimax: the value (team A minus team B) under best play.
    fn minimax(&self) -> i32 {
        let cards = self.legal();
        if cards.is_empty() {
            let scored = score_deal(self.playing, self.points, self.roem, self.taken);
            return scored.score.a - scored.score.b;
        }
        let values = cards.iter().map(|card| self.play(card).minimax());
        if Team::of(self.mover()) == Team::A {
            values.max().unwrap()
        } else {
            values.min().unwrap()
        }
    }
}

/// The reference value of `position` after `card`.
fn minimax_after(position: &Position, card: Card) -> i32 {
    Plain::new(position).play(card).minimax()
}

/// Plays `card` in `position` the reference's way.
fn play(position: &Position, card: Card) -> Position {
    let next = Plain::new(position).play(card);
    Position {
        hands: BySeat(next.hands),
        leader: next.leader,
        trick: next.trick[..next.len].to_vec(),
        card_points: next.points,
        roem: next.roem,
        tricks_taken: next.taken,
        ..position.clone()
    }
}

/// The final value straight from the score sheet, for the reference.
fn sheet_value(position: &Position) -> i32 {
    let scored = score_deal(
        position.playing_team,
        position.card_points,
        position.roem,
        position.tricks_taken,
    );
    scored.score.a - scored.score.b
}

/// A random position with `cards_left` cards in the hands (before the open
/// trick's extra cards) at a table with the house `rules`, reached by random
/// play: legal cards in enforced mode, any held card in club mode (revokes
/// nobody reports); with a pass round, each seat passes half the time.
/// Every third position lets the playing team win the early tricks, so pit
/// stays alive.
fn random_position_under(
    rng: &mut StdRng,
    mode: RevokeMode,
    rules: HouseRules,
    cards_left: u32,
) -> Position {
    let options = Options {
        revoke_mode: mode,
        first_dealer: Seat(rng.random_range(0..4)),
        auto_deal: true,
        deals: 1,
        ..Options::default()
    }
    .with_house_rules(rules);
    let mut game = Match::new(options, rng);
    while game.legal_moves(game.trump_chooser()).contains(&Move::Pass)
        && rng.random_range(0..2) == 0
    {
        game.play(game.trump_chooser(), Move::Pass, rng).unwrap();
    }
    let chooser = game.trump_chooser();
    let suit = Suit::ALL[rng.random_range(0..4)];
    game.play(chooser, Move::ChooseTrump { suit }, rng).unwrap();
    let favour_playing = rng.random_range(0..3) == 0;
    let extra = rng.random_range(0..4);
    let target = 4 * cards_left - extra;
    loop {
        let left: u32 = (0..4).map(|seat| game.hand(Seat(seat)).len()).sum();
        if left <= target {
            break;
        }
        let seat = game.to_play().unwrap();
        let allowed = if mode == RevokeMode::Club && rng.random_range(0..4) == 0 {
            game.hand(seat)
        } else {
            game.legal_cards(seat)
        };
        let card = if favour_playing {
            let strongest = Team::of(seat) == Team::of(chooser);
            let mut cards: Vec<Card> = allowed.iter().collect();
            cards.sort_by_key(|c| (c.suit == suit, c.rank));
            if strongest {
                *cards.last().unwrap()
            } else {
                cards[0]
            }
        } else {
            allowed.nth(rng.random_range(0..allowed.len())).unwrap()
        };
        game.play(seat, Move::Play { card }, rng).unwrap();
    }
    Position::of_match(&game).expect("still playing")
}

/// [`random_position_under`] section 1's rules.
fn random_position(rng: &mut StdRng, mode: RevokeMode, cards_left: u32) -> Position {
    random_position_under(rng, mode, HouseRules::default(), cards_left)
}

/// The house rules of case `case`: every combination in turn.
fn rules_of(case: usize) -> HouseRules {
    let all = HouseRules::all();
    all[case % all.len()]
}

/// Case `case` of a test that mixes both revoke modes and every house rule:
/// every third position in club mode, 5 or 6 cards left by turns
/// ([`random_position_under`]).
fn mixed_position(rng: &mut StdRng, case: usize) -> Position {
    let mode = if case.is_multiple_of(3) {
        RevokeMode::Club
    } else {
        RevokeMode::Enforced
    };
    random_position_under(rng, mode, rules_of(case / 2), 5 + case as u32 % 2)
}

fn check_against_minimax(mode: RevokeMode, seed: u64, count: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut solver = Solver::new();
    for case in 0..count {
        // Four-trick endgames cost plain minimax far more: one in five.
        let tricks = if case % 5 == 0 { 4 } else { 3 };
        let position = random_position_under(&mut rng, mode, rules_of(case / 5), tricks);
        let solution = solver.solve(&position);
        let expected: Vec<(Card, i32)> = position
            .legal_cards()
            .iter()
            .map(|card| (card, minimax_after(&position, card)))
            .collect();
        assert_eq!(solution.cards, expected, "{position:?}");
        let values = expected.iter().map(|(_, value)| *value);
        let best = if Team::of(position.to_play()) == Team::A {
            values.max()
        } else {
            values.min()
        };
        assert_eq!(Some(solution.value), best, "{position:?}");
    }
}

/// Every case of [`check_against_minimax`] is checked under each of the
/// 16 combinations of the house rules in turn.
#[test]
fn the_solver_gives_every_card_the_minimax_value_in_enforced_endgames() {
    check_against_minimax(RevokeMode::Enforced, 1, 10_000);
}

#[test]
fn the_solver_gives_every_card_the_minimax_value_in_club_endgames_after_unreported_revokes() {
    check_against_minimax(RevokeMode::Club, 2, 10_000);
}

#[test]
fn a_finished_position_is_worth_its_score_sheet_difference() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut position = random_position(&mut rng, RevokeMode::Enforced, 1);
    while let Some(card) = position.legal_cards().iter().next() {
        position = play(&position, card);
    }
    assert_eq!(position.final_value(), Some(sheet_value(&position)));
    assert_eq!(
        position.tricks_taken.a + position.tricks_taken.b,
        8,
        "a whole deal"
    );
}

#[test]
fn the_value_of_a_position_is_the_best_value_of_its_children() {
    let mut rng = StdRng::seed_from_u64(4);
    let mut solver = Solver::new();
    for case in 0..60 {
        let rules = rules_of(case as usize);
        let position = random_position_under(&mut rng, RevokeMode::Enforced, rules, 5 + case % 2);
        let solution = solver.solve(&position);
        let children: Vec<i32> = position
            .legal_cards()
            .iter()
            .map(|card| solver.value(&position.after(card)))
            .collect();
        let best = if Team::of(position.to_play()) == Team::A {
            *children.iter().max().unwrap()
        } else {
            *children.iter().min().unwrap()
        };
        assert_eq!(solution.value, best);
        assert_eq!(solver.value(&position), best);
        let values: Vec<i32> = solution.cards.iter().map(|(_, v)| *v).collect();
        assert_eq!(values, children);
    }
}

/// Renames the suits: trump stays, the other three are permuted.
fn rename_suits(position: &Position, map: [Suit; 4]) -> Position {
    let card = |c: Card| Card::new(c.rank, map[c.suit.index()]);
    let set = |s: CardSet| s.iter().map(card).collect::<CardSet>();
    Position {
        hands: BySeat(position.hands.0.map(set)),
        trump: map[position.trump.index()],
        trick: position.trick.iter().copied().map(card).collect(),
        ..position.clone()
    }
}

#[test]
fn values_do_not_depend_on_the_order_in_which_cards_are_searched() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut solver = Solver::new();
    let mut plain = Solver::with_techniques(Techniques {
        table: false,
        merge: false,
        bounds: false,
        ordering: false,
        relative: false,
    });
    for case in 0..100 {
        let position = random_position_under(&mut rng, RevokeMode::Enforced, rules_of(case), 4);
        let solution = solver.solve(&position);
        assert_eq!(plain.solve(&position), solution);
        // Renaming the suits changes the order of the cards in every hand
        // (hands iterate clubs to spades) but not the game.
        let mut others: Vec<Suit> = Suit::ALL
            .into_iter()
            .filter(|s| *s != position.trump)
            .collect();
        others.rotate_left(1);
        let mut map = [position.trump; 4];
        let mut rest = others.into_iter();
        for suit in Suit::ALL {
            if suit != position.trump {
                map[suit.index()] = rest.next().unwrap();
            }
        }
        let renamed = rename_suits(&position, map);
        let renamed_solution = solver.solve(&renamed);
        assert_eq!(renamed_solution.value, solution.value);
        let mut expected: Vec<(Card, i32)> = solution
            .cards
            .iter()
            .map(|(c, v)| (Card::new(c.rank, map[c.suit.index()]), *v))
            .collect();
        expected.sort_by_key(|(c, _)| CardSet::single(*c).bits());
        assert_eq!(renamed_solution.cards, expected);
    }
}

#[test]
fn team_values_convert_between_perspectives() {
    let solution = kaarttafel::ai::solver::Solution {
        value: 42,
        cards: Vec::new(),
    };
    assert_eq!(solution.value_for(Team::A), 42);
    assert_eq!(solution.value_for(Team::B), -42);
    let _ = ByTeam::new(0, 0);
}

#[test]
fn the_rest_of_deal_search_gives_the_same_values_as_the_search_on_the_whole_score() {
    let mut rng = StdRng::seed_from_u64(6);
    let mut relative = Solver::new();
    let mut absolute = Solver::with_techniques(Techniques {
        relative: false,
        ..Techniques::default()
    });
    for case in 0..150 {
        let position = mixed_position(&mut rng, case);
        assert_eq!(
            relative.solve(&position),
            absolute.solve(&position),
            "{position:?}"
        );
    }
}

#[test]
fn a_solve_that_reaches_its_limits_gives_up_and_the_next_solve_is_exact() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut solver = Solver::new();
    let mut fresh = Solver::new();
    for _ in 0..20 {
        let position = random_position(&mut rng, RevokeMode::Enforced, 6);
        let limits = Limits {
            nodes: 50,
            deadline: None,
        };
        let before = solver.nodes();
        assert_eq!(solver.solve_within(&position, limits), None);
        assert!(solver.nodes() - before <= 50 + 8, "stops at the limit");
        assert_eq!(solver.value_within(&position, limits), None);
        let past = Limits {
            nodes: u64::MAX,
            deadline: Some(std::time::Instant::now()),
        };
        // A deadline already past: given up at the first look at the clock,
        // or done before it.
        if let Some(solution) = solver.solve_within(&position, past) {
            assert_eq!(solution, fresh.solve(&position));
        }
        assert_eq!(solver.solve(&position), fresh.solve(&position));
        assert_eq!(
            solver.solve_within(&position, Limits::NONE),
            Some(fresh.solve(&position))
        );
    }
}

/// The trick winner written out from RULES.md's card order, apart from the
/// rules core's tables: trumps J 9 A 10 K Q 8 7 beat everything, then the
/// led suit A 10 K Q J 9 8 7; other cards never win.
fn reference_winner(cards: &[Card; 4], trump: Suit) -> usize {
    use kaarttafel::rules::cards::Rank;
    let trump_order = [
        Rank::Jack,
        Rank::Nine,
        Rank::Ace,
        Rank::Ten,
        Rank::King,
        Rank::Queen,
        Rank::Eight,
        Rank::Seven,
    ];
    let plain_order = [
        Rank::Ace,
        Rank::Ten,
        Rank::King,
        Rank::Queen,
        Rank::Jack,
        Rank::Nine,
        Rank::Eight,
        Rank::Seven,
    ];
    let led = cards[0].suit;
    let place = |card: &Card| -> Option<usize> {
        if card.suit == trump {
            trump_order.iter().position(|r| *r == card.rank)
        } else if card.suit == led {
            plain_order
                .iter()
                .position(|r| *r == card.rank)
                .map(|p| p + 8)
        } else {
            None
        }
    };
    let mut best = 0;
    for position in 1..4 {
        if let (Some(new), Some(old)) = (place(&cards[position]), place(&cards[best]))
            && new < old
        {
            best = position;
        }
    }
    best
}

/// The solver's trick winner is the rules' `trick_winner`, now computed by
/// card strength (`winning_position`): it must still follow the card order of
/// the rules on every kind of trick.
#[test]
fn the_trick_winner_follows_the_card_order_of_the_rules_on_random_tricks() {
    let mut rng = StdRng::seed_from_u64(8);
    let deck: Vec<Card> = CardSet::DECK.iter().collect();
    for case in 0..20_000 {
        let trump = Suit::ALL[case % 4];
        let mut picked = CardSet::EMPTY;
        let mut cards = [deck[0]; 4];
        for slot in &mut cards {
            let mut card = deck[rng.random_range(0..deck.len())];
            while picked.contains(card) {
                card = deck[rng.random_range(0..deck.len())];
            }
            picked.insert(card);
            *slot = card;
        }
        let expected = reference_winner(&cards, trump);
        for leader in 0..4u8 {
            assert_eq!(
                trick_winner(&cards, Seat(leader), trump),
                Seat((leader + expected as u8) % 4),
                "{cards:?} trump {trump:?}"
            );
        }
    }
}
