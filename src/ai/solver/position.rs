//! The solver's positions: [`Position`], the public form of a position to
//! solve, and the search's own small `State` with the copy-make move that
//! plays a card and scores a trick as the rules score it.

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};
use crate::rules::klaverjassen::{
    BySeat, ByTeam, CardSet, HouseRules, LAST_TRICK, Match, Team, TrickSoFar, View, card_at,
    card_index, legal_cards, points_at, roem, score_deal, set_points, strength,
};

/// A position to solve: every hand open, the trick in progress and the score
/// of the tricks already taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The cards each seat holds now.
    pub hands: BySeat<CardSet>,
    /// The trump suit.
    pub trump: Suit,
    /// The team of the seat that named trump (*spelende partij*).
    pub playing_team: Team,
    /// The seat that leads (or led) the trick in progress.
    pub leader: Seat,
    /// The cards in the trick in progress, in play order from `leader`
    /// (0 to 3 of them).
    pub trick: Vec<Card>,
    /// Card points of the tricks each team took (the last trick's 10
    /// included once trick 8 is taken).
    pub card_points: ByTeam<i32>,
    /// Roem each team made in the tricks it took.
    pub roem: ByTeam<i32>,
    /// Tricks each team took.
    pub tricks_taken: ByTeam<u8>,
    /// The table's house rules: which cards may be played, what four jacks
    /// are worth.
    pub rules: HouseRules,
}

impl Position {
    /// The position of `game` now, every hand open; `None` outside play.
    /// For analysis of a deal and for tests: a seat's player must never see
    /// this (see the strong player, which works from a view).
    pub fn of_match(game: &Match) -> Option<Position> {
        let hands = BySeat([0, 1, 2, 3].map(|seat| game.hand(Seat(seat))));
        Position::in_view(&game.view_for(None), hands)
    }

    /// The position of the deal `view` shows during play, with `hands` as
    /// every seat's cards: the trick in progress, and the card points, roem
    /// and tricks each team took, all public. `None` outside play.
    pub fn in_view(view: &View, hands: BySeat<CardSet>) -> Option<Position> {
        let open = view.trick.as_ref()?;
        let trump = view.trump?;
        // Play ends with the eighth trick, so the last trick's 10 is never
        // among the tricks taken while a trick is open.
        let mut card_points = ByTeam::<i32>::default();
        for trick in &view.tricks {
            let set: CardSet = trick.cards.iter().map(|played| played.card).collect();
            card_points[Team::of(trick.winner)] += set_points(set, trump);
        }
        Some(Position {
            hands,
            trump,
            playing_team: view.playing_team?,
            leader: open.leader,
            trick: open.cards.iter().map(|played| played.card).collect(),
            card_points,
            roem: view.roem,
            tricks_taken: view.tricks_taken,
            rules: view.house_rules,
        })
    }

    /// The seat to play next.
    pub fn to_play(&self) -> Seat {
        Seat((self.leader.0 + self.trick.len() as u8) % 4)
    }

    /// The cards the seat to play may play (the rules' [`legal_cards`]).
    pub fn legal_cards(&self) -> CardSet {
        let trick = TrickSoFar::of(&self.trick, self.trump);
        legal_cards(self.hands[self.to_play()], trick, self.trump, self.rules)
    }

    /// The position after the seat to play plays `card` (which it must hold):
    /// the trick closes and is scored as the rules score it after its fourth
    /// card.
    pub fn after(&self, card: Card) -> Position {
        let mut state = State::from_position(self);
        state.play(card_index(card), self.trump, self.rules);
        state.to_position(self)
    }

    /// The final score difference, team A minus team B, once every card is
    /// played; `None` while cards are left.
    pub fn final_value(&self) -> Option<i32> {
        let state = State::from_position(self);
        (state.remaining() == 0 && state.len == 0).then(|| state.final_value(self.playing_team))
    }
}

/// The rules' [`strength`] of every card (bit index) in a trick led with
/// each suit, for each trump (`[trump][led][index]`), worked out at compile
/// time: the move loop reads it instead of branching on the suits.
const STRENGTHS: [[[u8; 32]; 4]; 4] = {
    let mut table = [[[0u8; 32]; 4]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut led = 0;
        while led < 4 {
            let mut index = 0;
            while index < 32 {
                table[trump][led][index] = strength(index as u32, Suit::ALL[led], Suit::ALL[trump]);
                index += 1;
            }
            led += 1;
        }
        trump += 1;
    }
    table
};

/// The rules' card points ([`points_at`], [`card_points`](crate::rules::klaverjassen::card_points) by bit
/// index) of
/// every card for each trump (`[trump][index]`), worked out at compile time.
pub(super) const CARD_POINTS: [[u8; 32]; 4] = {
    let mut table = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut index = 0;
        while index < 32 {
            table[trump][index] = points_at(index as u32, Suit::ALL[trump]);
            index += 1;
        }
        trump += 1;
    }
    table
};

/// [`strength`] by table: the card at bit `index` in a trick led with the
/// suit numbered `led`.
#[inline]
pub(super) fn power_of(index: u32, led: u32, trump: Suit) -> u8 {
    STRENGTHS[trump as usize][(led & 3) as usize][(index & 31) as usize]
}

/// The search state: small and `Copy`, so each move copies it (copy-make).
#[derive(Clone, Copy, Debug)]
pub(super) struct State {
    pub(super) hands: [u32; 4],
    pub(super) leader: u8,
    pub(super) cards: [u8; 4],
    pub(super) len: u8,
    /// The position in the trick (0-3) of the card winning it so far, and
    /// that card's [`strength`] (both 0 while no card is played).
    pub(super) top: u8,
    pub(super) power: u8,
    pub(super) trick: u32,
    pub(super) points: [i32; 2],
    pub(super) roem: [i32; 2],
    pub(super) taken: [u8; 2],
}

/// Team index (A 0, B 1) of a seat number.
#[inline]
pub(super) fn team_index(seat: u8) -> usize {
    usize::from(seat & 1)
}

impl State {
    pub(super) fn from_position(position: &Position) -> State {
        let mut state = State {
            hands: position.hands.0.map(|hand| hand.bits()),
            leader: position.leader.0 % 4,
            cards: [0; 4],
            len: 0,
            top: 0,
            power: 0,
            trick: 0,
            points: [position.card_points.a, position.card_points.b],
            roem: [position.roem.a, position.roem.b],
            taken: [position.tricks_taken.a, position.tricks_taken.b],
        };
        for card in position.trick.iter().take(3) {
            state.add_to_trick(card_index(*card), position.trump);
        }
        state
    }

    fn to_position(self, template: &Position) -> Position {
        Position {
            hands: BySeat(self.hands.map(CardSet::from_bits)),
            trump: template.trump,
            playing_team: template.playing_team,
            leader: Seat(self.leader),
            trick: self.cards[..usize::from(self.len)]
                .iter()
                .map(|index| card_at(u32::from(*index)))
                .collect(),
            card_points: ByTeam::new(self.points[0], self.points[1]),
            roem: ByTeam::new(self.roem[0], self.roem[1]),
            tricks_taken: ByTeam::new(self.taken[0], self.taken[1]),
            rules: template.rules,
        }
    }

    #[inline]
    pub(super) fn mover(&self) -> u8 {
        (self.leader + self.len) & 3
    }

    #[inline]
    pub(super) fn remaining(&self) -> u32 {
        self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
    }

    #[inline]
    fn led(&self) -> Option<Suit> {
        (self.len > 0).then(|| Suit::ALL[usize::from(self.cards[0] / 8)])
    }

    /// The cards the seat to play may play under `rules` (the rules'
    /// [`legal_cards`]); the partner is winning when the card on top is
    /// the one played two places before.
    #[inline(always)]
    pub(super) fn legal(&self, trump: Suit, rules: HouseRules) -> u32 {
        let seat = usize::from(self.mover());
        let trick = TrickSoFar {
            cards: CardSet::from_bits(self.trick),
            led: self.led(),
            partner_winning: self.len >= 2 && self.top == self.len - 2,
        };
        legal_cards(CardSet::from_bits(self.hands[seat]), trick, trump, rules).bits()
    }

    /// Plays the card at bit `index` for the seat to play; the fourth card
    /// closes the trick and scores it. In place: the caller copies the
    /// parent into the child first, so no state is read back whole right
    /// after its fields were written (a store-forwarding stall that took a
    /// third of the time when `play` returned the new state by value).
    #[inline(always)]
    pub(super) fn play(&mut self, index: u32, trump: Suit, rules: HouseRules) {
        let seat = usize::from(self.mover());
        self.hands[seat] &= !(1 << index);
        self.add_to_trick(index, trump);
        if self.len == 4 {
            self.close_trick(trump, rules);
        }
    }

    /// Scores the trick once its fourth card is in (out of line: the
    /// three cards in four that close no trick stay small).
    #[inline(never)]
    fn close_trick(&mut self, trump: Suit, rules: HouseRules) {
        let set = CardSet::from_bits(self.trick);
        let winner = (self.leader + self.top) & 3;
        let team = team_index(winner);
        // The trick's points, card by card (the same sum as the rules'
        // `set_points` of the trick).
        let table = &CARD_POINTS[trump as usize];
        self.points[team] += self
            .cards
            .iter()
            .map(|&card| i32::from(table[usize::from(card & 31)]))
            .sum::<i32>();
        if self.remaining() == 0 {
            self.points[team] += LAST_TRICK;
        }
        if may_make_roem(self.trick) {
            self.roem[team] += roem(set, trump, rules);
        }
        self.taken[team] += 1;
        self.leader = winner;
        self.len = 0;
        self.trick = 0;
    }

    /// Puts the card at bit `index` in the open trick and keeps track of
    /// the card winning it: the strongest by the rules' [`strength`], one
    /// card at a time (the order in which `play_rules::winning_position`,
    /// behind the rules' `trick_winner`, ranks a complete trick).
    #[inline]
    fn add_to_trick(&mut self, index: u32, trump: Suit) {
        let len = self.len;
        let led = if len == 0 {
            index
        } else {
            u32::from(self.cards[0])
        } / 8;
        let power = power_of(index, led, trump);
        if len == 0 || power > self.power {
            self.top = len;
            self.power = power;
        }
        self.cards[usize::from(len)] = index as u8;
        self.trick |= 1 << index;
        self.len = len + 1;
    }

    /// Plays out the last trick, where every seat holds one card.
    pub(super) fn play_last_trick(self, trump: Suit, rules: HouseRules) -> State {
        let mut last = self;
        for _ in 0..4 {
            let seat = usize::from(last.mover());
            last.play(last.hands[seat].trailing_zeros(), trump, rules);
        }
        last
    }

    pub(super) fn final_value(&self, playing: Team) -> i32 {
        score(playing, self.points, self.roem, self.taken)
    }
}

/// Team A's lead in card points and roem so far.
#[inline]
pub(super) fn margin(state: &State) -> i32 {
    state.points[0] + state.roem[0] - state.points[1] - state.roem[1]
}

/// The roem both teams made so far.
#[inline]
pub(super) fn made(state: &State) -> i32 {
    state.roem[0] + state.roem[1]
}

/// The score sheet's difference, team A minus team B.
#[inline]
fn score(playing: Team, points: [i32; 2], roem: [i32; 2], taken: [u8; 2]) -> i32 {
    let scored = score_deal(
        playing,
        ByTeam::new(points[0], points[1]),
        ByTeam::new(roem[0], roem[1]),
        ByTeam::new(taken[0], taken[1]),
    );
    scored.score.a - scored.score.b
}

/// Whether the cards `bits` can hold any roem: a run or *stuk* needs two
/// cards of one suit next to each other in natural order, four of a kind
/// one rank in every suit. A quick test before the rules' [`roem`] (which
/// gives 0 whenever this is false).
#[inline]
pub(super) fn may_make_roem(bits: u32) -> bool {
    bits & (bits >> 1) & 0x7F7F_7F7F != 0 || bits & (bits >> 8) & (bits >> 16) & (bits >> 24) != 0
}
