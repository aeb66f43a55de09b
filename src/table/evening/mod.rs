//! Club evenings (*klaverjasavonden*, RULES.md section 4), pure: who sits
//! where in every round ([`pairs`] by the circle method, [`individual`] by a
//! draw from the event's committed seed) and the standings from the tables'
//! score sheets ([`standings`]). No I/O, no clock: the store keeps the event,
//! the use cases start its rounds.

pub mod event;
pub mod individual;
pub mod pairs;
pub mod standings;

use serde::{Deserialize, Serialize};

/// An entry's number in entry order, from 0 (pair or player "1" is entry 0).
pub type Entry = u16;

/// Who sits in one seat: an entry, and which of its players (0 or 1 for a
/// pair, always 0 in an individual event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Place {
    /// The entry.
    pub entry: Entry,
    /// The entry's player: 0 (who entered) or 1 (the partner).
    pub member: u8,
}

/// One table of a round: who sits in seats 0 to 3. Seats 0 and 2 are team
/// A, seats 1 and 3 team B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableSeats(pub [Place; 4]);

impl TableSeats {
    /// The entries of team A (seats 0 and 2) or team B (seats 1 and 3):
    /// one entry in a pairs event, two in an individual one.
    pub fn team(&self, team_a: bool) -> Vec<Entry> {
        let (first, second) = if team_a { (0, 2) } else { (1, 3) };
        let (x, y) = (self.0[first].entry, self.0[second].entry);
        if x == y { vec![x] } else { vec![x, y] }
    }

    /// Whether `entry` sits at this table.
    pub fn has(&self, entry: Entry) -> bool {
        self.0.iter().any(|p| p.entry == entry)
    }
}

/// The tables of one round, table 1 first.
pub type Round = Vec<TableSeats>;

/// Round `ri` (from 0) of the circle method for `n` (even) participants
/// numbered `0..n`: participant `n - 1` stays, the others rotate. The
/// matches come as `(a, b, k)`: `k` is 0 for the match of the staying
/// participant (`a` = the staying one) and `1..n/2` for the others, where
/// `a = (ri + k) mod (n - 1)` and `b = (ri - k) mod (n - 1)`.
pub(crate) fn circle_round(n: usize, ri: usize) -> Vec<(usize, usize, usize)> {
    debug_assert!(n >= 2 && n.is_multiple_of(2));
    let m = n - 1;
    let ri = ri % m;
    let mut matches = vec![(n - 1, ri, 0)];
    for k in 1..n / 2 {
        matches.push(((ri + k) % m, (ri + m - k) % m, k));
    }
    matches
}
