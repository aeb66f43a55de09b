//! The public record of play: tricks as the API shows them, and the score
//! sheet row of a finished deal with its full history.

use serde::{Deserialize, Serialize};

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

use super::cardset::CardSet;
use super::team::{BySeat, ByTeam, Team};

/// A card in a trick and the seat that played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedCard {
    /// Who played the card.
    pub seat: Seat,
    /// The card.
    pub card: Card,
}

/// The trick in progress (*de slag die open ligt*), possibly still empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenTrick {
    /// The trick's number in the deal, 1..=8.
    pub number: u8,
    /// The seat that leads it.
    pub leader: Seat,
    /// The cards played so far, in play order.
    pub cards: Vec<PlayedCard>,
}

/// A trick with all four cards and its winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletedTrick {
    /// The trick's number in the deal, 1..=8.
    pub number: u8,
    /// The seat that led it.
    pub leader: Seat,
    /// The four cards in play order.
    pub cards: [PlayedCard; 4],
    /// The seat that won it and leads the next.
    pub winner: Seat,
}

/// A revoke (*verzaking*) made in a deal, public once the deal is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevokeRecord {
    /// The seat that revoked.
    pub seat: Seat,
    /// The trick it revoked in, 1..=8.
    pub trick: u8,
    /// Whether the card went back to the hand while the trick was open
    /// (taken back, reported, or returned because an earlier card in the
    /// trick was taken back).
    pub corrected: bool,
}

/// The report that ended a deal with a punishment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRecord {
    /// The seat reported.
    pub seat: Seat,
    /// The seat that reported.
    pub reported_by: Seat,
    /// Whether the named seat had revoked: true punishes its team, false the
    /// reporter's team.
    pub valid: bool,
}

/// One row of the score sheet: a finished deal, its score and its history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    /// The deal's number in the match, 1..=`deals`.
    pub number: u8,
    /// The seat that dealt.
    pub dealer: Seat,
    /// The trump suit.
    pub trump: Suit,
    /// The team of the seat that named trump (*spelende partij*).
    pub playing_team: Team,
    /// Card points of the tricks each team took, the last trick's 10 included.
    pub card_points: ByTeam<i32>,
    /// Roem each team made.
    pub roem: ByTeam<i32>,
    /// What each team scored for the deal.
    pub score: ByTeam<i32>,
    /// The playing team took all eight tricks.
    pub pit: bool,
    /// The playing team did not score more than the defenders.
    pub nat: bool,
    /// The report that punished a team, if one did.
    pub report: Option<ReportRecord>,
    /// The hands as dealt, by seat.
    pub hands: BySeat<CardSet>,
    /// The completed tricks (all eight unless a punishment ended the deal).
    pub tricks: Vec<CompletedTrick>,
    /// Every revoke of the deal, corrected or not.
    pub revokes: Vec<RevokeRecord>,
    /// The deal's server seed `s(k)` (docs/fairness.md); filled in by the
    /// table around the rules, which keeps the seeds.
    #[serde(default)]
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the deal's deck, by seat (null where none).
    #[serde(default)]
    pub seat_seeds: Vec<Option<String>>,
}

/// A finished deal's seeds as the table reveals them: the server seed and
/// the seat seeds (docs/fairness.md).
pub type Seeds = (String, Vec<Option<String>>);

/// Fills in the seeds of every row of `rows` that has none yet, from
/// `reveal` (given a deal's number). The table writes them into a row when
/// its deal ends, so a stored row has them; rows stored before that was
/// done get them each time they are shown.
pub fn fill_seeds(rows: &mut [DealRecord], reveal: impl Fn(u8) -> Option<Seeds>) {
    for row in rows.iter_mut().filter(|row| row.server_seed.is_none()) {
        if let Some((server_seed, seat_seeds)) = reveal(row.number) {
            row.server_seed = Some(server_seed);
            row.seat_seeds = seat_seeds;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::klaverjassen::team::{BySeat, ByTeam};

    fn row(number: u8) -> DealRecord {
        DealRecord {
            number,
            dealer: Seat(0),
            trump: Suit::Hearts,
            playing_team: Team::A,
            card_points: ByTeam::new(100, 62),
            roem: ByTeam::new(0, 0),
            score: ByTeam::new(100, 62),
            pit: false,
            nat: false,
            report: None,
            hands: BySeat([CardSet::EMPTY; 4]),
            tricks: Vec::new(),
            revokes: Vec::new(),
            server_seed: None,
            seat_seeds: Vec::new(),
        }
    }

    #[test]
    fn a_row_without_seeds_gets_them() {
        let mut rows = vec![row(1), row(2)];
        fill_seeds(&mut rows, |n| {
            Some((format!("seed{n}"), vec![None, Some("ab".into())]))
        });
        for (row, n) in rows.iter().zip(1..) {
            assert_eq!(
                row.server_seed.as_deref(),
                Some(format!("seed{n}").as_str())
            );
            assert_eq!(row.seat_seeds, vec![None, Some("ab".to_owned())]);
        }
    }

    #[test]
    fn a_row_with_seeds_is_left_as_it_is() {
        let mut seeded = row(1);
        seeded.server_seed = Some("00".into());
        let mut rows = vec![seeded.clone()];
        fill_seeds(&mut rows, |_| Some(("ff".into(), Vec::new())));
        assert_eq!(rows, [seeded]);
    }
}
