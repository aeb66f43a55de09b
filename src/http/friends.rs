//! Tables among friends over HTTP: private tables joined by invite code,
//! quick match and rematch.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::answer::respond;
use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, OptionalJson};
use super::games::TakeSeat;
use super::problems::{
    IfMatchFailed, KeyRefused, NoSuchGame, NoSuchInvite, TooManyWrongCodes, Unauthenticated,
};
use super::request::{self, IdempotencyKey};
use super::state::AppState;
use crate::api::evenings::ClubEvent;
use crate::api::game::{GameSummary, GameView};
use crate::app::error::Error as AppError;
use crate::app::{evenings, invites, matchmaking};
use crate::rules::Seat;
use crate::table::GameKind;

/// What an invite code shows before taking a seat.
#[derive(Serialize, ToSchema)]
pub struct Invite {
    /// The table: game, options, status and who sits where.
    pub table: GameSummary,
    /// The host's name ("Anne invites you to Klaverjassen").
    #[schema(example = "Anne")]
    pub host_name: String,
    /// The seats still free for the caller.
    #[schema(value_type = Vec<crate::api::cards::Seat>)]
    pub free_seats: Vec<Seat>,
}

impl From<invites::Invitation> for Invite {
    fn from(invitation: invites::Invitation) -> Self {
        Invite {
            table: invitation.table,
            host_name: invitation.host_name,
            free_seats: invitation.free_seats,
        }
    }
}

/// A private club evening, by its invite code.
#[derive(Serialize, ToSchema)]
pub struct EventInvite {
    /// The event; enter it with `POST /v1/invites/{code}` or
    /// `POST /v1/events/{id}/entries`.
    pub event: ClubEvent,
}

/// A private table's summary, or a private club evening, by its invite
/// code. An unknown, finished or abandoned table's code is a plain 404;
/// repeated wrong codes from one client are slowed down (429 `rate_limited`).
#[utoipa::path(tag = "friends", security(("bearer" = [])),
    params(("code" = String, Path, description = "The invite code (case and dashes ignored)", example = "K7M9TQ4XRB")),
    responses(
        (status = 200, description = "The table (`Invite`), or the club evening (`EventInvite`)", body = inline(InviteAnswer)),
        Unauthenticated,
        NoSuchInvite,
        TooManyWrongCodes,
    ))]
#[get("/invites/{code}")]
pub async fn show_invite(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    code: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match invites::show(&state.app, caller.id, &code).await {
        Ok(invitation) => Ok(HttpResponse::Ok().json(Invite::from(invitation))),
        Err(AppError::NotFound(detail)) => match evenings::of_invite(&state.app, &code).await? {
            Some(event) => Ok(HttpResponse::Ok().json(EventInvite {
                event: ClubEvent::of(&event, caller.id),
            })),
            None => Err(ApiError::not_found(detail)),
        },
        Err(error) => Err(error.into()),
    }
}

/// What an invite code shows: a table or a club evening.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum InviteAnswer {
    /// A private table.
    Table(Invite),
    /// A private club evening.
    Event(EventInvite),
}

/// Takes a seat at a private table by its invite code (as `POST
/// /v1/games/{id}/seats`). Already seated there: the view, unchanged. A
/// private club evening's code enters the caller in an individual event
/// (as `POST /v1/events/{id}/entries`, answered with an `EventInvite`); a
/// pair enters by naming its partner there.
#[utoipa::path(tag = "friends", security(("bearer" = [])), request_body(content = Option<TakeSeat>),
    params(("code" = String, Path, description = "The invite code (case and dashes ignored)", example = "K7M9TQ4XRB"),
           IdempotencyKey),
    responses(
        (status = 200, description = "Seated; the caller's view (a club evening: entered, `EventInvite`)", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        NoSuchInvite,
        (status = 409, description = "`game_full`, `seat_taken`, `seat_reserved` or `game_started`", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
        (status = 422, description = "No such seat, an invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
        TooManyWrongCodes,
    ))]
#[post("/invites/{code}")]
pub async fn accept_invite(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    code: web::Path<String>,
    body: OptionalJson<TakeSeat>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0.unwrap_or_default();
    if let Some(event) = evenings::of_invite(&state.app, &code).await? {
        if body.seat.is_some() {
            return Err(ApiError::validation(
                "seat: a club evening has no seats to take",
            ));
        }
        // An individual entry; a pair names its partner at
        // `POST /v1/events/{id}/entries`, which says so.
        let event = evenings::enter(&state.app, caller.id, event.id, None).await?;
        return Ok(HttpResponse::Ok().json(EventInvite {
            event: ClubEvent::of(&event, caller.id),
        }));
    }
    let keyed = request::keyed(&req, &body);
    let if_match = request::if_match(&req);
    let answer = invites::accept(&state.app, caller.id, &code, keyed, if_match, body.seat).await?;
    respond(answer)
}

// ------------------------------------------------------------ quick match

/// A quick match: any public table of `game` waiting for players whose
/// options match those given.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"game": "klaverjassen", "options": {"deals": 16}}))]
pub struct QuickMatch {
    /// Which game.
    #[schema(value_type = crate::api::game::GameKind)]
    pub game: GameKind,
    /// The options the table must have; an option left out matches any
    /// value. A new table gets these (and the defaults for the rest).
    /// `private` is not allowed: matchmaking only finds public tables.
    #[schema(value_type = Option<crate::api::options::NewOptionsSchema>)]
    pub options: Option<serde_json::Value>,
}

/// Seats the caller at the oldest public table of `game` waiting for
/// players whose options match, or creates one with the caller as host.
/// Callers arriving together never both get the last seat, and never get
/// two tables where one would do (one at a time per game, also across
/// instances). A caller already waiting at a matching table gets it back.
#[utoipa::path(tag = "friends", security(("bearer" = [])), request_body = QuickMatch,
    params(IdempotencyKey),
    responses(
        (status = 200, description = "Seated at a waiting table; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 201, description = "A new table with the caller as host; `Location` names it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        Unauthenticated,
        (status = 409, description = "`too_many_tables`: no table to join, and the caller waits at 20 tables already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown option, value out of range, or `private`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/matchmaking")]
pub async fn quick_match(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    body: web::Json<QuickMatch>,
) -> Result<HttpResponse, ApiError> {
    let keyed = request::keyed(&req, &*body)?;
    let QuickMatch { game, options } = body.into_inner();
    respond(matchmaking::quick_match(&state.app, caller.id, keyed, game, options).await?)
}

// ---------------------------------------------------------------- rematch

/// The next table after a finished one, created once: same options, the
/// same computer players in their seats, the caller in its seat, and every
/// other seat held for the player who sat there for 5 minutes (then free
/// for anyone). Asked again, by anyone seated, it answers the same table.
/// The finished game's version goes up by one and its view's `rematch`
/// names the new table, so its streams and long polls hear of it.
#[utoipa::path(tag = "friends", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The finished game"),
           IdempotencyKey),
    responses(
        (status = 200, description = "The rematch existed; the caller's view of it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        (status = 201, description = "The rematch, created; the caller's view of it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`not_seated`: the caller did not play this game", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`not_finished`: the game is not finished; `too_many_tables`: the caller waits at 20 tables already", body = Problem, content_type = "application/problem+json"),
        KeyRefused,
    ))]
#[post("/games/{id}/rematch")]
pub async fn rematch(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let keyed = request::keyed(&req, &())?;
    respond(crate::app::rematch::rematch(&state.app, caller.id, keyed, *id).await?)
}
