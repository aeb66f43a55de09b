//! Computer players and the analysis behind them: the exact Klaverjassen
//! solver ([`solver`]), each game's players ([`klaverjassen`],
//! [`potverteren`]), the hints ([`hints`]) and the deal analysis
//! ([`analysis`]). Depends on the rules only.
//!
//! A computer player decides from exactly what a person in its seat may
//! see: the rules' view of that seat and its legal moves (by type: it never
//! receives the game's state), and answers with one of those moves.

pub mod analysis;
pub mod hints;
pub mod klaverjassen;
pub mod potverteren;
pub mod solver;

use std::time::Instant;

use crate::rules::{GameRules, Seat};

/// A move a computer player chose by a given time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen<M> {
    /// The move.
    pub mv: M,
    /// Whether it is the player's own decision: false when the player could
    /// not decide by the time and made a simpler player's move instead (the
    /// `strong` Klaverjassen player that solved no sampled deal in time
    /// makes the `basic` player's).
    pub own: bool,
}

/// A computer player of the game `G`.
pub trait Player<G: GameRules>: Send + Sync {
    /// One of `legal`, the moves `seat` may make, decided from `view`, what
    /// `seat` may see; `None` when `legal` is empty (or holds only moves a
    /// computer player does not make).
    fn choose(
        &self,
        seat: Seat,
        view: &G::View,
        legal: &[G::Move],
        rng: &mut dyn rand::Rng,
    ) -> Option<G::Move>;

    /// As [`Player::choose`], thinking no later than `_until`: a player that
    /// searches stops by then and decides from what it has (the service
    /// makes the move at a fixed time, so that its timing tells nothing,
    /// and a search must not run on past it). By default the player's
    /// [`Player::choose`], for a player that answers at once.
    fn choose_by(
        &self,
        seat: Seat,
        view: &G::View,
        legal: &[G::Move],
        _until: Instant,
        rng: &mut dyn rand::Rng,
    ) -> Option<Chosen<G::Move>> {
        self.choose(seat, view, legal, rng)
            .map(|mv| Chosen { mv, own: true })
    }
}

/// A game with computer players: its player of each strength.
pub trait Players: GameRules + Sized {
    /// A sound rule-based player with a club player's habits.
    fn basic() -> Box<dyn Player<Self>>;

    /// The strongest player there is: at Klaverjassen the exact-solver
    /// player (docs/solver.md), at Potverteren the expected-chips player
    /// (docs/bots.md).
    fn strong() -> Box<dyn Player<Self>>;
}

/// The move `player` makes for `seat` in `game`, decided from the seat's
/// view and legal moves alone.
pub fn decide<G: GameRules>(
    game: &G,
    seat: Seat,
    player: &dyn Player<G>,
    rng: &mut dyn rand::Rng,
) -> Option<G::Move> {
    player.choose(seat, &game.view(Some(seat)), &game.legal_moves(seat), rng)
}

/// As [`decide`], thinking no later than `until` ([`Player::choose_by`]).
pub fn decide_by<G: GameRules>(
    game: &G,
    seat: Seat,
    player: &dyn Player<G>,
    until: Instant,
    rng: &mut dyn rand::Rng,
) -> Option<Chosen<G::Move>> {
    let (view, legal) = (game.view(Some(seat)), game.legal_moves(seat));
    player.choose_by(seat, &view, &legal, until, rng)
}

/// A player that picks uniformly among the legal moves: the yardstick of the
/// strength benchmark.
pub struct RandomPlayer;

impl<G: GameRules> Player<G> for RandomPlayer
where
    G::Move: Clone,
{
    fn choose(
        &self,
        _seat: Seat,
        _view: &G::View,
        legal: &[G::Move],
        rng: &mut dyn rand::Rng,
    ) -> Option<G::Move> {
        if legal.is_empty() {
            return None;
        }
        let index = (rng.next_u32() as usize) % legal.len();
        legal.get(index).cloned()
    }
}
