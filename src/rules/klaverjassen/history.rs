//! The public record of play: tricks as the API shows them, and the score
//! sheet row of a finished deal with its full history.

use serde::{Deserialize, Serialize};

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

use super::cardset::CardSet;
use super::team::{BySeat, ByTeam, Team};

/// A card in a trick and the seat that played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"seat": 1, "card": "10H"}))]
pub struct PlayedCard {
    /// Who played the card.
    pub seat: Seat,
    /// The card.
    pub card: Card,
}

/// The trick in progress (*de slag die open ligt*), possibly still empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"number": 2, "leader": 2, "cards": [{"seat": 2, "card": "AD"}]}))]
pub struct OpenTrick {
    /// The trick's number in the deal, 1..=8.
    #[schema(example = 3)]
    pub number: u8,
    /// The seat that leads it.
    pub leader: Seat,
    /// The cards played so far, in play order.
    pub cards: Vec<PlayedCard>,
}

/// A trick with all four cards and its winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"number": 1, "leader": 0, "cards": [
    {"seat": 0, "card": "AC"}, {"seat": 1, "card": "10C"},
    {"seat": 2, "card": "9C"}, {"seat": 3, "card": "KC"}
], "winner": 2}))]
pub struct CompletedTrick {
    /// The trick's number in the deal, 1..=8.
    #[schema(example = 2)]
    pub number: u8,
    /// The seat that led it.
    pub leader: Seat,
    /// The four cards in play order.
    pub cards: [PlayedCard; 4],
    /// The seat that won it and leads the next.
    pub winner: Seat,
}

/// A revoke (*verzaking*) made in a deal, public once the deal is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"seat": 1, "trick": 4, "corrected": false}))]
pub struct RevokeRecord {
    /// The seat that revoked.
    pub seat: Seat,
    /// The trick it revoked in, 1..=8.
    #[schema(example = 4)]
    pub trick: u8,
    /// Whether the card went back to the hand while the trick was open
    /// (taken back, reported, or returned because an earlier card in the
    /// trick was taken back).
    #[schema(example = false)]
    pub corrected: bool,
}

/// The report that ended a deal with a punishment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"seat": 1, "reported_by": 2, "valid": true}))]
pub struct ReportRecord {
    /// The seat reported.
    pub seat: Seat,
    /// The seat that reported.
    pub reported_by: Seat,
    /// Whether the named seat had revoked: true punishes its team, false the
    /// reporter's team.
    #[schema(example = true)]
    pub valid: bool,
}

/// One row of the score sheet: a finished deal, its score and its history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({
    "number": 1, "dealer": 3, "trump": "H", "playing_team": "A",
    "card_points": {"A": 124, "B": 38}, "roem": {"A": 0, "B": 20},
    "score": {"A": 124, "B": 58}, "pit": false, "nat": false, "report": null,
    "hands": [
        ["7C", "9C", "QD", "KD", "AD", "10H", "QH", "AS"],
        ["7D", "7H", "JH", "AH", "10S", "JS", "QS", "KS"],
        ["8C", "9D", "10D", "JD", "9H", "KH", "7S", "8S"],
        ["10C", "JC", "QC", "KC", "AC", "8D", "8H", "9S"]
    ],
    "tricks": [
        {"number": 1, "leader": 0, "winner": 1, "cards": [{"seat": 0, "card": "9C"},
            {"seat": 1, "card": "JH"}, {"seat": 2, "card": "8C"}, {"seat": 3, "card": "10C"}]},
        {"number": 2, "leader": 1, "winner": 0, "cards": [{"seat": 1, "card": "KS"},
            {"seat": 2, "card": "8S"}, {"seat": 3, "card": "9S"}, {"seat": 0, "card": "AS"}]},
        {"number": 3, "leader": 0, "winner": 2, "cards": [{"seat": 0, "card": "QH"},
            {"seat": 1, "card": "AH"}, {"seat": 2, "card": "9H"}, {"seat": 3, "card": "8H"}]},
        {"number": 4, "leader": 2, "winner": 0, "cards": [{"seat": 2, "card": "10D"},
            {"seat": 3, "card": "8D"}, {"seat": 0, "card": "AD"}, {"seat": 1, "card": "7D"}]},
        {"number": 5, "leader": 0, "winner": 1, "cards": [{"seat": 0, "card": "KD"},
            {"seat": 1, "card": "7H"}, {"seat": 2, "card": "JD"}, {"seat": 3, "card": "JC"}]},
        {"number": 6, "leader": 1, "winner": 0, "cards": [{"seat": 1, "card": "10S"},
            {"seat": 2, "card": "7S"}, {"seat": 3, "card": "AC"}, {"seat": 0, "card": "10H"}]},
        {"number": 7, "leader": 0, "winner": 2, "cards": [{"seat": 0, "card": "7C"},
            {"seat": 1, "card": "JS"}, {"seat": 2, "card": "KH"}, {"seat": 3, "card": "KC"}]},
        {"number": 8, "leader": 2, "winner": 0, "cards": [{"seat": 2, "card": "9D"},
            {"seat": 3, "card": "QC"}, {"seat": 0, "card": "QD"}, {"seat": 1, "card": "QS"}]}
    ],
    "revokes": [],
    "server_seed": "fcff9d515fbd181265afc65ab23729e596b24118fba4609941c7acefb6bd0092",
    "seat_seeds": [null, null, null, null]
}))]
pub struct DealRecord {
    /// The deal's number in the match, 1..=`deals`.
    #[schema(example = 1)]
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
    #[schema(example = false)]
    pub pit: bool,
    /// The playing team did not score more than the defenders.
    #[schema(example = false)]
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
    #[schema(example = "5be1c0f8a3d24e6b9f7a1c3e5d7b9f1a2c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2f")]
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the deal's deck, by seat (null where none).
    #[serde(default)]
    #[schema(example = json!(["9f2c", null, null, "00ff17"]))]
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
