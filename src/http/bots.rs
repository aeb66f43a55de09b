//! Computer players at a table, and a player's return from being away,
//! over HTTP.

use actix_web::{HttpRequest, HttpResponse, delete, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::answer::respond;
use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::{IfMatchFailed, KeyRefused, NoSuchGame, Unauthenticated};
use super::request::{self, IdempotencyKey};
use super::state::AppState;
use crate::api::game::GameView;
use crate::app::seats;
use crate::table::Level;

/// A computer player to seat.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": 1, "level": "basic"}))]
pub struct NewBot {
    /// The seat (the first free one when left out).
    pub seat: Option<u8>,
    /// How strong it plays: `basic`, or `strong` (the exact-solver player at
    /// Klaverjassen, its own search at Potverteren: docs/bots.md).
    #[schema(value_type = crate::api::game::Level)]
    pub level: Level,
}

/// The host seats a computer player before the game starts. The game starts
/// when the last seat is taken.
#[utoipa::path(tag = "games", security(("bearer" = [])), request_body = NewBot,
    params(("id" = Uuid, Path, description = "The game"),
           IdempotencyKey),
    responses(
        (status = 201, description = "Seated; the host's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`forbidden`: not the host", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`seat_taken`, `game_full` or `game_started`", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
        (status = 422, description = "Unknown level or no such seat (`validation_failed`), an invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/bots")]
pub async fn add_bot(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    body: web::Json<NewBot>,
) -> Result<HttpResponse, ApiError> {
    let asked = request::change(&req, caller.id, *id, &*body, None);
    respond(seats::add_bot(&state.app, asked, body.level, body.seat).await?)
}

/// The host removes a computer player before the game starts.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"), ("seat" = u8, Path, description = "The computer player's seat"),
           IdempotencyKey),
    responses(
        (status = 200, description = "Removed; the host's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`forbidden`: not the host", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or no computer player in that seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_started`", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
        KeyRefused,
    ))]
#[delete("/games/{id}/bots/{seat}")]
pub async fn remove_bot(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    path: web::Path<(Uuid, u8)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let asked = request::change(&req, caller.id, id, &(), None);
    respond(seats::remove_bot(&state.app, asked, seat).await?)
}

/// The caller's seat is no longer away: its moves are its own again.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           IdempotencyKey),
    responses(
        (status = 200, description = "Back; the caller's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        IfMatchFailed,
        KeyRefused,
    ))]
#[post("/games/{id}/seats/me/back")]
pub async fn back(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let asked = request::change(&req, caller.id, *id, &(), None);
    respond(seats::back(&state.app, asked).await?)
}
