//! Players over HTTP: create a guest identity, who am I, tokens, my games.

use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::page::Page;
use super::problems::{BadPage, Unauthenticated};
use super::state::AppState;
use crate::api::game::GameSummary;
use crate::app::players::{self, Issued};
use crate::app::tables::{self, PageQuery};

/// A new guest player.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// The name others see: 1 to 40 characters, not blank, no control characters.
    #[schema(
        example = "Anneke",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: String,
}

/// A player and its bearer token.
#[derive(Serialize, ToSchema)]
pub struct CreatedPlayer {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The player's name.
    #[schema(example = "Anneke")]
    pub name: String,
    /// A bearer token for `Authorization: Bearer <token>`.
    #[schema(example = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl")]
    pub token: String,
    /// When the token expires.
    #[schema(example = "2027-01-04T10:15:00Z")]
    pub expires_at: DateTime<Utc>,
}

/// A player as others see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Player {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The player's name.
    #[schema(example = "Anneke")]
    pub name: String,
}

/// Creates a guest player and returns its token. No authentication; an
/// `Idempotency-Key` is not honoured here, since a retry without a token
/// cannot be told apart from another client (it just makes another guest).
#[utoipa::path(tag = "players", request_body = NewPlayer, responses(
    (status = 201, description = "Created", body = CreatedPlayer),
    (status = 422, description = "Invalid name", body = Problem, content_type = "application/problem+json"),
))]
#[post("/players")]
pub async fn create_player(
    state: web::Data<AppState>,
    body: web::Json<NewPlayer>,
) -> Result<HttpResponse, ApiError> {
    let (name, issued) = players::sign_up(&state.app, &body.name).await?;
    Ok(HttpResponse::Created().json(CreatedPlayer {
        id: issued.player,
        name,
        token: issued.token,
        expires_at: issued.expires_at,
    }))
}

/// The caller.
#[utoipa::path(tag = "players", security(("bearer" = [])), responses(
    (status = 200, description = "The caller", body = Player),
    Unauthenticated,
))]
#[get("/players/me")]
pub async fn me(
    state: web::Data<AppState>,
    caller: AuthPlayer,
) -> Result<web::Json<Player>, ApiError> {
    let player = players::me(&state.app, caller.id).await?;
    Ok(web::Json(Player {
        id: player.id,
        name: player.name,
    }))
}

/// A fresh bearer token for the caller's identity.
#[derive(Serialize, ToSchema)]
pub struct FreshToken {
    /// The player's id (unchanged).
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// A bearer token for `Authorization: Bearer <token>`.
    #[schema(example = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl")]
    pub token: String,
    /// When the token expires.
    #[schema(example = "2027-01-04T10:15:00Z")]
    pub expires_at: DateTime<Utc>,
}

impl From<Issued> for FreshToken {
    fn from(issued: Issued) -> Self {
        FreshToken {
            id: issued.player,
            token: issued.token,
            expires_at: issued.expires_at,
        }
    }
}

/// A fresh token for the same player, valid for the full token lifetime
/// (`TOKEN_TTL`); the caller's current token stays valid until it expires.
/// An app renews before its token expires and so keeps its player (and its
/// games) for as long as it is used.
#[utoipa::path(tag = "players", security(("bearer" = [])), responses(
    (status = 200, description = "A fresh token for the caller", body = FreshToken),
    (status = 401, description = "Missing, invalid, expired or signed-out token", body = Problem, content_type = "application/problem+json"),
))]
#[post("/players/me/token")]
pub async fn renew_token(
    state: web::Data<AppState>,
    caller: AuthPlayer,
) -> Result<web::Json<FreshToken>, ApiError> {
    Ok(web::Json(
        players::renew_token(&state.app, caller.id).await?.into(),
    ))
}

/// Signs the caller out everywhere: every token issued to this player
/// before, the caller's own included, is refused from now on (401
/// `invalid_token`). The answer holds the one token issued since, for the
/// device that signed out to stay signed in; a client that wants to be
/// signed out too simply forgets it. (Tokens of an external identity
/// provider are the provider's to revoke.)
#[utoipa::path(tag = "players", security(("bearer" = [])), responses(
    (status = 200, description = "Signed out everywhere; the only valid token now", body = FreshToken),
    (status = 401, description = "Missing, invalid, expired or signed-out token", body = Problem, content_type = "application/problem+json"),
))]
#[post("/players/me/sign_out")]
pub async fn sign_out(
    state: web::Data<AppState>,
    caller: AuthPlayer,
) -> Result<web::Json<FreshToken>, ApiError> {
    Ok(web::Json(
        players::sign_out(&state.app, caller.id).await?.into(),
    ))
}

/// Paging through the caller's games.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MyGamesQuery {
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1..100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// The caller's games (every table it sits at), newest first.
#[utoipa::path(tag = "players", security(("bearer" = [])), params(MyGamesQuery), responses(
    (status = 200, description = "A page of games", body = Page<GameSummary>),
    Unauthenticated,
    BadPage,
))]
#[get("/players/me/games")]
pub async fn my_games(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    query: web::Query<MyGamesQuery>,
) -> Result<web::Json<Page<GameSummary>>, ApiError> {
    let page = PageQuery::parse(query.cursor.as_deref(), query.limit)?;
    let listing = tables::of_player(&state.app, caller.id, page).await?;
    Ok(web::Json(listing.into()))
}
