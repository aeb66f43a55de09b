//! Scoring a deal: majority, nat, pit and the punishment for a revoke
//! (docs/klaverjassen.md, "Scoring a deal" and "Revokes").

use super::team::{ByTeam, Team};

/// All card points of a deal, last trick included.
pub const DEAL_POINTS: i32 = 162;
/// Points for taking the last trick (*laatste slag*).
pub const LAST_TRICK: i32 = 10;
/// What the team that did not revoke scores, before roem.
pub const PUNISHMENT_POINTS: i32 = 262;
/// The bonus for the playing team taking every trick (*pit*).
pub const PIT_BONUS: i32 = 100;

/// How a deal played to its end scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealScore {
    /// Points each team scores.
    pub score: ByTeam<i32>,
    /// The playing team took all 8 tricks.
    pub pit: bool,
    /// The playing team did not score strictly more than the defenders.
    pub nat: bool,
}

/// Scores a deal played to its end from each team's card points (last trick
/// included), roem and tricks taken.
pub fn score_deal(
    playing: Team,
    card_points: ByTeam<i32>,
    roem: ByTeam<i32>,
    tricks_taken: ByTeam<u8>,
) -> DealScore {
    let defending = playing.other();
    let total = |team: Team| card_points[team] + roem[team];
    let mut score = ByTeam::default();
    if total(playing) > total(defending) {
        let pit = tricks_taken[playing] == 8;
        score[playing] = total(playing) + if pit { PIT_BONUS } else { 0 };
        score[defending] = total(defending);
        DealScore {
            score,
            pit,
            nat: false,
        }
    } else {
        score[defending] = DEAL_POINTS + roem.a + roem.b;
        DealScore {
            score,
            pit: false,
            nat: true,
        }
    }
}

/// The score of a deal ended by a punishment: the punished team 0, the other
/// 262 plus all roem both teams made so far.
pub fn punishment(punished: Team, roem: ByTeam<i32>) -> ByTeam<i32> {
    let mut score = ByTeam::default();
    score[punished.other()] = PUNISHMENT_POINTS + roem.a + roem.b;
    score
}
