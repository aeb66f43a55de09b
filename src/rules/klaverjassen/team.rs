//! The two teams and the small per-team and per-seat containers the rules use.

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

use crate::rules::Seat;

/// The number of seats at a Klaverjassen table.
pub const SEATS: u8 = 4;

/// A team: seats 0 and 2 are team A (*wij*), seats 1 and 3 team B (*zij*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Team {
    /// Seats 0 and 2 (*wij*).
    #[serde(rename = "A")]
    A,
    /// Seats 1 and 3 (*zij*).
    #[serde(rename = "B")]
    B,
}

impl Team {
    /// The team a seat plays for.
    pub const fn of(seat: Seat) -> Team {
        if seat.0.is_multiple_of(2) {
            Team::A
        } else {
            Team::B
        }
    }

    /// The other team.
    pub const fn other(self) -> Team {
        match self {
            Team::A => Team::B,
            Team::B => Team::A,
        }
    }
}

impl std::fmt::Display for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Team::A => f.write_str("team A"),
            Team::B => f.write_str("team B"),
        }
    }
}

/// One value per team, written `{"A": .., "B": ..}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByTeam<T> {
    /// Team A's value.
    #[serde(rename = "A")]
    pub a: T,
    /// Team B's value.
    #[serde(rename = "B")]
    pub b: T,
}

impl<T> ByTeam<T> {
    /// The values for team A and team B.
    pub const fn new(a: T, b: T) -> ByTeam<T> {
        ByTeam { a, b }
    }
}

impl<T> Index<Team> for ByTeam<T> {
    type Output = T;

    fn index(&self, team: Team) -> &T {
        match team {
            Team::A => &self.a,
            Team::B => &self.b,
        }
    }
}

impl<T> IndexMut<Team> for ByTeam<T> {
    fn index_mut(&mut self, team: Team) -> &mut T {
        match team {
            Team::A => &mut self.a,
            Team::B => &mut self.b,
        }
    }
}

/// One value per seat, written as an array indexed by seat number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BySeat<T>(pub [T; 4]);

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;

    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}
