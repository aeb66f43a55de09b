//! A finished game in its players' statistics and ratings, written in the
//! transaction that finishes it, so they never disagree with the games.

use skillratings::weng_lin::{
    WengLinConfig, WengLinRating, weng_lin_multi_team, weng_lin_two_teams,
};
use skillratings::{MultiTeamOutcome, Outcomes};
use uuid::Uuid;

use super::error::Error;
use crate::rules::Seat;
use crate::rules::klaverjassen::Team;
use crate::store::friends::{self as store, StatsRow};
use crate::store::{Backend, Tx};
use crate::table::{Game, Options, Rules};

/// One seat's result in a finished match.
struct SeatResult {
    player: Uuid,
    won: bool,
    drawn: bool,
    points: i64,
    deals: i64,
    chips: i64,
}

/// Counts the finished `game` in its players' statistics and ratings
/// (per game: Weng-Lin, teams of two at Klaverjassen, every seat for itself
/// at Potverteren). A table with an empty seat counts for nobody.
pub async fn record_results(tx: &mut Tx, backend: Backend, game: &Game) -> Result<(), Error> {
    let kind = game.kind.as_str();
    let players: Vec<Uuid> = game.seats.iter().flatten().map(|p| p.id).collect();
    if players.len() != game.seats.len() {
        return Ok(());
    }
    let fresh = WengLinRating::new();
    let mut order = players.clone();
    order.sort();
    let mut locked = std::collections::HashMap::new();
    for &player in &order {
        let row =
            store::lock_stats(tx, backend, player, kind, fresh.rating, fresh.uncertainty).await?;
        locked.insert(player, row);
    }
    let stats: Vec<StatsRow> = players.iter().filter_map(|p| locked.remove(p)).collect();
    let rating = |s: &StatsRow| WengLinRating {
        rating: s.rating,
        uncertainty: s.uncertainty,
    };
    let config = WengLinConfig::new();
    let (results, ratings): (Vec<SeatResult>, Vec<WengLinRating>) = match &game.rules {
        Some(Rules::Klaverjassen(m)) => {
            let totals = m.totals();
            let deals = m.deals().len() as i64;
            let team_points = |team: Team| match team {
                Team::A => totals.a,
                Team::B => totals.b,
            };
            let results: Vec<SeatResult> = players
                .iter()
                .enumerate()
                .map(|(i, &player)| {
                    let team = Team::of(Seat(i as u8));
                    let (own, other) = (team_points(team), team_points(team.other()));
                    SeatResult {
                        player,
                        won: own > other,
                        drawn: own == other,
                        points: i64::from(own),
                        deals,
                        chips: 0,
                    }
                })
                .collect();
            // Team A sits in seats 0 and 2, team B in 1 and 3.
            let outcome = match totals.a.cmp(&totals.b) {
                std::cmp::Ordering::Greater => Outcomes::WIN,
                std::cmp::Ordering::Less => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            let (a, b) = weng_lin_two_teams(
                &[rating(&stats[0]), rating(&stats[2])],
                &[rating(&stats[1]), rating(&stats[3])],
                &outcome,
                &config,
            );
            (results, vec![a[0], b[0], a[1], b[1]])
        }
        Some(Rules::Potverteren(table)) => {
            let balances = table.balances();
            let start = match &game.options {
                Options::Potverteren(options) => options.starting_chips,
                Options::Klaverjassen(_) => 0,
            };
            let best = balances.iter().copied().max().unwrap_or(0);
            let at_best = balances.iter().filter(|&&b| b == best).count();
            let results: Vec<SeatResult> = players
                .iter()
                .zip(balances)
                .map(|(&player, &balance)| SeatResult {
                    player,
                    won: balance == best && at_best == 1,
                    drawn: balance == best && at_best > 1,
                    points: 0,
                    deals: 0,
                    chips: balance - start,
                })
                .collect();
            // Free for all: each seat a team of one, ranked by its final
            // balance (equal balances share a rank).
            let teams: Vec<[WengLinRating; 1]> = stats.iter().map(|s| [rating(s)]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(balances)
                .map(|(team, &balance)| {
                    let rank = 1 + balances.iter().filter(|&&b| b > balance).count();
                    (&team[..], MultiTeamOutcome::new(rank))
                })
                .collect();
            let ratings = weng_lin_multi_team(&ranked, &config)
                .into_iter()
                .map(|team| team[0])
                .collect();
            (results, ratings)
        }
        None => return Ok(()),
    };
    for ((mut row, result), new) in stats.into_iter().zip(results).zip(ratings) {
        debug_assert_eq!(row.player, result.player);
        row.played += 1;
        row.won += i64::from(result.won);
        row.drawn += i64::from(result.drawn);
        row.points += result.points;
        row.deals += result.deals;
        row.chips += result.chips;
        row.rating = new.rating;
        row.uncertainty = new.uncertainty;
        store::save_stats(tx, &row).await?;
    }
    Ok(())
}
