//! Hints: the strong player's advice for a seat, decided from that seat's
//! view alone, with the estimated value of every legal move it weighs.

use rand::SeedableRng;
use rand::rngs::StdRng;
use sha2::{Digest, Sha256};

use super::Player;
use super::klaverjassen::BasicPlayer;
use super::klaverjassen::strong::{self, Budget};
use super::potverteren::strong::evaluate;
use crate::rules::klaverjassen::{self, Match};
use crate::rules::potverteren::{self, Table};
use crate::rules::{GameRules, Seat};

/// A strong player's choice and its estimated value of each move it
/// weighed.
pub struct Choice<M> {
    /// The move it makes.
    pub chosen: M,
    /// Each move weighed, with its value.
    pub values: Vec<(M, f64)>,
}

/// A game whose strong player can advise a seat.
pub trait Advise: GameRules {
    /// The strong player's choice for `seat` from its view and legal moves,
    /// with its estimated value of each move it weighed (none when it had
    /// no alternative worth weighing); `None` when there is nothing to
    /// decide. `budget` bounds the thinking of a player that searches.
    fn advise(
        seat: Seat,
        view: &Self::View,
        legal: &[Self::Move],
        budget: Budget,
        rng: &mut StdRng,
    ) -> Option<Choice<Self::Move>>;

    /// Whether a hint leaves `mv` out of the moves it lists: moves the
    /// strong player makes only when the cards prove a revoke, and ending
    /// the table.
    fn is_aside(mv: &Self::Move) -> bool;
}

impl Advise for Match {
    fn advise(
        seat: Seat,
        view: &klaverjassen::View,
        legal: &[klaverjassen::Move],
        budget: Budget,
        rng: &mut StdRng,
    ) -> Option<Choice<klaverjassen::Move>> {
        let decision = strong::decide(seat, view, legal, budget, rng)?;
        if decision.out_of_budget {
            // No sampled deal fitted the budget: the strong player plays as
            // `basic` then (docs/solver.md), and no move has a value.
            let chosen = BasicPlayer.choose(seat, view, legal, rng)?;
            return Some(Choice {
                chosen,
                values: Vec::new(),
            });
        }
        Some(Choice {
            chosen: decision.chosen,
            values: decision.values,
        })
    }

    fn is_aside(mv: &klaverjassen::Move) -> bool {
        matches!(
            mv,
            klaverjassen::Move::ReportRevoke { .. } | klaverjassen::Move::TakeBack
        )
    }
}

impl Advise for Table {
    fn advise(
        seat: Seat,
        view: &potverteren::View,
        legal: &[potverteren::Move],
        _budget: Budget,
        _rng: &mut StdRng,
    ) -> Option<Choice<potverteren::Move>> {
        let decision = evaluate(seat, view, legal)?;
        Some(Choice {
            chosen: decision.chosen,
            values: decision.values,
        })
    }

    fn is_aside(mv: &potverteren::Move) -> bool {
        *mv == potverteren::Move::EndTable
    }
}

/// The strong player's advice for a seat now.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice<M> {
    /// The strong player's choice.
    pub chosen: M,
    /// Every legal move of the seat (those [`Advise::is_aside`] aside),
    /// with its estimated value when the player weighed it.
    pub moves: Vec<(M, Option<f64>)>,
}

/// The seed of a hint's sampling: from what the seat sees (the game's id,
/// its version, the seat), so the same view always gets the same hint.
pub fn hint_seed(game: uuid::Uuid, version: i64, seat: Seat) -> u64 {
    let mut hash = Sha256::new();
    hash.update(game.as_bytes());
    hash.update(version.to_be_bytes());
    hash.update([seat.0]);
    let digest = hash.finalize();
    u64::from_be_bytes(digest[..8].try_into().expect("32 bytes"))
}

/// The advice for `seat` from its view and legal moves alone, its sampling
/// drawn from `seed` ([`hint_seed`]). `None` when there is nothing to
/// decide.
pub fn advice<G: Advise>(
    seat: Seat,
    view: &G::View,
    legal: &[G::Move],
    budget: Budget,
    seed: u64,
) -> Option<Advice<G::Move>>
where
    G::Move: Clone + PartialEq,
{
    let mut rng = StdRng::seed_from_u64(seed);
    let Choice { chosen, values } = G::advise(seat, view, legal, budget, &mut rng)?;
    let value_of = |mv: &G::Move| values.iter().find(|(v, _)| v == mv).map(|(_, v)| *v);
    let mut moves: Vec<(G::Move, Option<f64>)> = legal
        .iter()
        .filter(|mv| !G::is_aside(mv))
        .map(|mv| (mv.clone(), value_of(mv)))
        .collect();
    // A bid is listed at its minimum; the value is for that bid.
    if moves.iter().all(|(mv, _)| *mv != chosen) {
        moves.push((chosen.clone(), value_of(&chosen)));
    }
    Some(Advice { chosen, moves })
}
