//! Computer players at a table, and a player's return from being away.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, delete, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::change::{Event, SeatChange, change_game, etag, json_answer, refusal, view_json};
use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::games::seat_bot;
use crate::api::game::GameView;
use crate::table::Level;
use crate::table::{GameError, Status};

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
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 201, description = "Seated; the host's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not the host", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`seat_taken`, `game_full` or `game_started`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
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
    let level = body.level;
    let wanted = body.seat;
    let mut answer = change_game(&state, &req, caller, *id, &*body, None, |game| {
        if game.host != caller.id {
            return Err(GameError::NotHost);
        }
        let (seat, bot) = seat_bot(game, level, wanted)?;
        Ok(Event {
            kind: "joined",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "joined", "seat": seat, "bot": level}),
            seat_change: Some(SeatChange::Bot(seat.0, bot)),
        })
    })
    .await?;
    if answer.status() == actix_web::http::StatusCode::OK {
        *answer.status_mut() = actix_web::http::StatusCode::CREATED;
    }
    Ok(answer)
}

/// The host removes a computer player before the game starts.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"), ("seat" = u8, Path, description = "The computer player's seat"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Removed; the host's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not the host", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or no computer player in that seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_started`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/games/{id}/bots/{seat}")]
pub async fn remove_bot(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    path: web::Path<(Uuid, u8)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    change_game(&state, &req, caller, id, &(), None, |game| {
        if game.host != caller.id {
            return Err(GameError::NotHost);
        }
        game.remove_bot(seat)?;
        Ok(Event {
            kind: "left",
            seat: Some(seat),
            payload: serde_json::json!({"type": "left", "seat": seat}),
            seat_change: Some(SeatChange::Left(seat)),
        })
    })
    .await
}

/// The caller's seat is no longer away: its moves are its own again.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Back; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/seats/me/back")]
pub async fn back(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    // A seat that is not away (or a table no longer playing) has nothing to
    // come back from: the view as it is, no new version, no event, so that
    // `back` cannot be sent to bump a table's version (and wake every
    // stream on it) at will.
    let game = super::stream::load(&state, *id).await?;
    let seat = game
        .seat_of(caller.id)
        .ok_or_else(|| refusal(&game, caller.id, GameError::NotSeated))?;
    if !game.away[seat.index()] || game.status != Status::Playing {
        let headers = [(header::ETAG.as_str(), etag(game.version))];
        return Ok(json_answer(StatusCode::OK, headers).body(view_json(&game, caller.id)?));
    }
    change_game(&state, &req, caller, *id, &(), None, |game| {
        let seat = game.seat_of(caller.id).ok_or(GameError::NotSeated)?;
        game.back(seat);
        Ok(Event::new(
            "back",
            Some(seat.0),
            serde_json::json!({"type": "back", "seat": seat}),
        ))
    })
    .await
}
