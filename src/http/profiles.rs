//! Players' public profiles (statistics and ratings per game) and
//! renaming, over HTTP.

use actix_web::{get, patch, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::Unauthenticated;
use super::state::AppState;
use crate::app::players;

/// A player's public profile.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null,
    "stats": {
        "klaverjassen": {"played": 12, "won": 7, "drawn": 1, "lost": 4,
            "average_points_per_deal": 87.5},
        "potverteren": {"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}
    },
    "rating": {
        "klaverjassen": {"rating": 27.3, "uncertainty": 7.9},
        "potverteren": {"rating": 24.1, "uncertainty": 8.2}
    }
}))]
pub struct Profile {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The name others see.
    #[schema(example = "Anneke")]
    pub name: String,
    /// The level, for a computer player; null for a person.
    #[schema(example = "strong")]
    #[schema(required = true)]
    pub bot: Option<String>,
    /// Finished matches, per game.
    pub stats: GameStats,
    /// The Weng-Lin (OpenSkill) rating, per game.
    pub rating: GameRatings,
}

/// Statistics per game.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "klaverjassen": {"played": 12, "won": 7, "drawn": 1, "lost": 4,
        "average_points_per_deal": 87.5},
    "potverteren": {"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}
}))]
pub struct GameStats {
    /// Klaverjassen.
    pub klaverjassen: KlaverjassenStats,
    /// Potverteren.
    pub potverteren: PotverterenStats,
}

/// Klaverjassen matches finished.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"played": 12, "won": 7, "drawn": 1, "lost": 4,
    "average_points_per_deal": 87.5}))]
pub struct KlaverjassenStats {
    /// Matches finished.
    #[schema(example = 12)]
    pub played: i64,
    /// Matches the player's team won (more points than the other team).
    #[schema(example = 7)]
    pub won: i64,
    /// Matches that ended level.
    #[schema(example = 1)]
    pub drawn: i64,
    /// Matches lost.
    #[schema(example = 4)]
    pub lost: i64,
    /// The player's team's points per deal, over every deal of those
    /// matches (score sheet: card points, roem, nat and pit); null before
    /// the first.
    #[schema(example = 87.5)]
    #[schema(required = true)]
    pub average_points_per_deal: Option<f64>,
}

/// Potverteren tables finished.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}))]
pub struct PotverterenStats {
    /// Tables finished.
    #[schema(example = 5)]
    pub played: i64,
    /// Tables the player ended with the highest balance alone.
    #[schema(example = 2)]
    pub won: i64,
    /// Tables the player ended sharing the highest balance.
    #[schema(example = 0)]
    pub drawn: i64,
    /// Tables lost.
    #[schema(example = 3)]
    pub lost: i64,
    /// Chips won minus chips lost over all those tables.
    #[schema(example = -14)]
    pub net_chips: i64,
}

/// A rating per game.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "klaverjassen": {"rating": 27.3, "uncertainty": 7.9},
    "potverteren": {"rating": 24.1, "uncertainty": 8.2}
}))]
pub struct GameRatings {
    /// Klaverjassen (teams of two).
    pub klaverjassen: Rating,
    /// Potverteren (every seat for itself).
    pub potverteren: Rating,
}

/// A Weng-Lin rating: a new player starts at 25 with uncertainty 25/3.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"rating": 27.3, "uncertainty": 7.9}))]
pub struct Rating {
    /// The skill estimate.
    #[schema(example = 27.3)]
    pub rating: f64,
    /// How unsure the estimate is (one standard deviation).
    #[schema(example = 7.9)]
    pub uncertainty: f64,
}

impl From<players::Profile> for Profile {
    fn from(profile: players::Profile) -> Self {
        let players::Profile {
            player,
            klaverjassen: k,
            potverteren: p,
        } = profile;
        let rating = |results: &players::Results| Rating {
            rating: results.rating,
            uncertainty: results.uncertainty,
        };
        Profile {
            id: player.id,
            name: player.name,
            bot: player.bot_level,
            stats: GameStats {
                klaverjassen: KlaverjassenStats {
                    played: k.played,
                    won: k.won,
                    drawn: k.drawn,
                    lost: k.played - k.won - k.drawn,
                    average_points_per_deal: (k.deals > 0)
                        .then(|| k.points as f64 / k.deals as f64),
                },
                potverteren: PotverterenStats {
                    played: p.played,
                    won: p.won,
                    drawn: p.drawn,
                    lost: p.played - p.won - p.drawn,
                    net_chips: p.chips,
                },
            },
            rating: GameRatings {
                klaverjassen: rating(&k),
                potverteren: rating(&p),
            },
        }
    }
}

/// A player's public profile: name, statistics and ratings per game.
#[utoipa::path(tag = "players", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The player")),
    responses(
        (status = 200, description = "The profile", body = Profile),
        Unauthenticated,
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{id}")]
pub async fn player_profile(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<web::Json<Profile>, ApiError> {
    Ok(web::Json(players::profile(&state.app, *id).await?.into()))
}

/// A new name.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    /// The name others see: trimmed, 1 to 40 characters, no control characters.
    #[schema(example = "Anneke", min_length = 1, max_length = 40)]
    pub name: String,
}

/// Renames the caller; every table shows the new name.
#[utoipa::path(tag = "players", security(("bearer" = [])), request_body = Rename,
    responses(
        (status = 200, description = "The caller's profile", body = Profile),
        Unauthenticated,
        (status = 422, description = "Invalid name", body = Problem, content_type = "application/problem+json"),
    ))]
#[patch("/players/me")]
pub async fn rename(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    body: web::Json<Rename>,
) -> Result<web::Json<Profile>, ApiError> {
    Ok(web::Json(
        players::rename(&state.app, caller.id, &body.name)
            .await?
            .into(),
    ))
}
