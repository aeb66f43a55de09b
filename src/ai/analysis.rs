//! Deal analysis: the exact value of every card of a finished Klaverjassen
//! deal, each position solved with every hand open (they are all public
//! once the deal is over).

use super::solver::{Position, Solver, for_team};
use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::klaverjassen::{DealRecord, HouseRules, Match, Team};

/// One card of a deal and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardAnalysis {
    /// The trick, 1..=8.
    pub trick: u8,
    /// The seat that played the card.
    pub seat: Seat,
    /// The card.
    pub card: Card,
    /// The value before the card: the final score difference, team A minus
    /// team B, under best play by both teams from there.
    pub value_before: i32,
    /// The value after the card, the same way.
    pub value_after: i32,
    /// What the card cost its own team against its best card: 0 for a best
    /// card, more for a mistake (`value_before - value_after` for team A,
    /// the opposite for team B). Only a revoke left standing can show less
    /// than 0 (the solver's best card is always an allowed one).
    pub lost: i32,
}

/// The exact analysis of a finished Klaverjassen deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealAnalysis {
    /// The deal's number.
    pub deal: u8,
    /// The value of the deal as dealt (after trump), before the first card:
    /// the final score difference, team A minus team B, under best play.
    pub par: i32,
    /// The deal's result on the score sheet: team A's score minus team B's.
    pub result: i32,
    /// Every card played, in play order.
    pub cards: Vec<CardAnalysis>,
}

/// Why a deal has no analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnalysis {
    /// Not a Klaverjassen game, or the deal is not over, or its score does
    /// not come from the cards; the reason, in a sentence.
    NotFound(String),
}

/// The analysis of the finished deal `record`, played under the house
/// `rules`: each position solved exactly.
pub fn analyse(record: &DealRecord, rules: HouseRules) -> Result<DealAnalysis, NoAnalysis> {
    if record.report.is_some() || record.tricks.len() != 8 {
        return Err(NoAnalysis::NotFound(format!(
            "deal {} ended with a revoke punishment: its score does not come from the cards",
            record.number
        )));
    }
    let first = record
        .tricks
        .first()
        .map_or(record.dealer.next(4), |t| t.leader);
    let mut position = Position {
        hands: record.hands,
        trump: record.trump,
        playing_team: record.playing_team,
        leader: first,
        trick: Vec::new(),
        card_points: Default::default(),
        roem: Default::default(),
        tricks_taken: Default::default(),
        rules,
    };
    let mut solver = Solver::new();
    let par = solver.value(&position);
    let mut before = par;
    let mut cards = Vec::with_capacity(32);
    for trick in &record.tricks {
        for played in &trick.cards {
            position = position.after(played.card);
            let after = match position.final_value() {
                Some(value) => value,
                None => solver.value(&position),
            };
            cards.push(CardAnalysis {
                trick: trick.number,
                seat: played.seat,
                card: played.card,
                value_before: before,
                value_after: after,
                lost: for_team(before - after, Team::of(played.seat)),
            });
            before = after;
        }
    }
    Ok(DealAnalysis {
        deal: record.number,
        par,
        result: record.score[Team::A] - record.score[Team::B],
        cards,
    })
}

/// The finished deal `n` of `game`, analysed.
pub fn deal_analysis(game: &Match, n: u32) -> Result<DealAnalysis, NoAnalysis> {
    let record = game
        .deals()
        .iter()
        .find(|d| u32::from(d.number) == n)
        .ok_or_else(|| NoAnalysis::NotFound(format!("deal {n} is not over (or does not exist)")))?;
    analyse(record, game.house_rules())
}
