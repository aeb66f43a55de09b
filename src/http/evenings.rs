//! Club evenings over HTTP (API.md, "Club evenings"): create and list
//! events, enter, computer entries, start, cancel, event seeds, the event
//! (long poll and stream), standings as JSON or CSV, and complete boards.

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, OptionalJson};
use super::page::Page;
use super::problems::{
    BadLongPoll, BadPage, EventStarted, NoSuchEvent, NotOrganizer, Unauthenticated,
};
use super::state::AppState;
use crate::api::evenings::ClubEvent;
use crate::api::evenings::{ClubBoard, ClubBoardTable, ClubStanding, standing_view, standings_csv};
use crate::app::answer::{etag, etag_listed};
use crate::app::evenings::{self, NewEvent};
use crate::app::tables::PageQuery;
use crate::notify::Wake;
use crate::table::evening::event::{Event, Format};
use crate::table::{GameKind, Level};

/// A new club evening.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Donderdagavond", "game": "klaverjassen", "format": "pairs", "rounds": 3, "deals": 2, "duplicate": true, "options": {"bot_delay_ms": 200}}))]
pub struct NewEventBody {
    /// The evening's name, 1 to 100 characters.
    pub name: String,
    /// Only `klaverjassen`.
    #[schema(value_type = crate::api::game::GameKind)]
    pub game: GameKind,
    /// `pairs` (*koppels*) or `individual`.
    #[schema(value_type = String, example = "pairs")]
    pub format: Format,
    /// Rounds, 1 to 20.
    #[schema(minimum = 1, maximum = 20)]
    pub rounds: u32,
    /// Deals per table per round, 1 to 16 (default 16).
    #[schema(minimum = 1, maximum = 16)]
    pub deals: Option<u8>,
    /// Duplicate boards (*portefeuille*; default false); needs at least 2
    /// tables per round at the start.
    pub duplicate: Option<bool>,
    /// Table options for every table: revoke mode, house rules,
    /// `turn_seconds`, `bot_delay_ms` (not `deals`, `first_dealer`,
    /// `auto_deal` or `private`, which the event sets).
    #[schema(value_type = Option<Object>)]
    pub options: Option<serde_json::Value>,
    /// Kept out of the list of open events; joined by invite code.
    pub private: Option<bool>,
    /// When the organizer means to start (RFC 3339).
    pub starts_at: Option<chrono::DateTime<chrono::Utc>>,
}

fn answer(status: actix_web::http::StatusCode, event: &Event, caller: Uuid) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::ETAG, etag(event.version)))
        .json(ClubEvent::of(event, caller))
}

fn ok(event: &Event, caller: Uuid) -> HttpResponse {
    answer(actix_web::http::StatusCode::OK, event, caller)
}

/// Makes a club evening with the caller as organizer (who need not play).
#[utoipa::path(tag = "events", security(("bearer" = [])), request_body = NewEventBody,
    responses(
        (status = 201, description = "The event; `Location` names it", body = ClubEvent, headers(("Location" = String), ("ETag" = String))),
        Unauthenticated,
        (status = 422, description = "A value out of range, an unknown option, or an option the event sets", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events")]
pub async fn create_event(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    body: web::Json<NewEventBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    if body.game != GameKind::Klaverjassen {
        return Err(ApiError::validation(
            "game: club evenings play klaverjassen",
        ));
    }
    let new = NewEvent {
        name: body.name,
        format: body.format,
        rounds: body.rounds,
        deals: body.deals,
        duplicate: body.duplicate.unwrap_or(false),
        options: body.options,
        private: body.private.unwrap_or(false),
        starts_at: body.starts_at.map(|t| t.timestamp_micros()),
    };
    let event = evenings::create(&state.app, caller.id, new).await?;
    let location = format!("{}/v1/events/{}", state.app.path_prefix, event.id);
    let mut response = answer(actix_web::http::StatusCode::CREATED, &event, caller.id);
    response.headers_mut().insert(
        header::LOCATION,
        header::HeaderValue::from_str(&location).map_err(ApiError::internal)?,
    );
    Ok(response)
}

/// A page of the list.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Events per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// Open public events, newest first.
#[utoipa::path(tag = "events", security(("bearer" = [])), params(ListQuery),
    responses(
        (status = 200, description = "A page of open events", body = Page<ClubEvent>),
        Unauthenticated,
        BadPage,
    ))]
#[get("/events")]
pub async fn list_events(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    query: web::Query<ListQuery>,
) -> Result<web::Json<Page<ClubEvent>>, ApiError> {
    let page = PageQuery::parse(query.cursor.as_deref(), query.limit)?;
    let listing = evenings::list(&state.app, page).await?;
    Ok(web::Json(Page {
        items: listing
            .items
            .iter()
            .map(|e| ClubEvent::of(e, caller.id))
            .collect(),
        next_cursor: listing.next_cursor,
    }))
}

/// Waiting for a change (long poll).
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    /// Answer only once the event's version is past this one (or on timeout).
    #[param(minimum = 0)]
    pub wait_for_version: Option<i64>,
    /// How long to wait, in seconds: 0..=60, default 30.
    #[param(minimum = 0, maximum = 60)]
    pub timeout_s: Option<u64>,
}

/// The event. With `wait_for_version=N` it is a long poll, as for games:
/// it answers once the version passes N (an entry, a start, a round begun,
/// a table finished: the standings changed), or after `timeout_s`.
#[utoipa::path(tag = "events", security(("bearer" = [])), params(("id" = Uuid, Path, description = "The event"), EventQuery),
    responses(
        (status = 200, description = "The event", body = ClubEvent, headers(("ETag" = String))),
        (status = 304, description = "Not modified since the ETag in If-None-Match"),
        Unauthenticated,
        NoSuchEvent,
        BadLongPoll,
    ))]
#[get("/events/{id}")]
pub async fn get_event(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::show(&state.app, *id, query.wait_for_version, query.timeout_s).await?;
    let not_modified = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| etag_listed(v, event.version));
    if not_modified {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(event.version)))
            .finish());
    }
    Ok(ok(&event, caller.id))
}

/// An entry.
#[derive(Deserialize, Serialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"partner": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d"}))]
pub struct NewEntry {
    /// Pairs: the partner's player id (required). The entry is complete
    /// when the partner posts naming the caller.
    pub partner: Option<Uuid>,
}

/// The caller enters an open event.
#[utoipa::path(tag = "events", security(("bearer" = [])), request_body(content = Option<NewEntry>),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Entered; the event", body = ClubEvent),
        Unauthenticated,
        NoSuchEvent,
        (status = 409, description = "`event_started`, `already_entered` or `event_full`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A pairs entry without a partner, an individual one with one, or an unknown partner", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events/{id}/entries")]
pub async fn enter(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    body: OptionalJson<NewEntry>,
) -> Result<HttpResponse, ApiError> {
    let partner = body.0.unwrap_or_default().partner;
    let event = evenings::enter(&state.app, caller.id, *id, partner).await?;
    Ok(ok(&event, caller.id))
}

/// The caller withdraws its entry (a pair's entry goes with either player).
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Withdrawn; the event", body = ClubEvent),
        Unauthenticated,
        (status = 404, description = "`not_found`: no such event, or the caller has not entered", body = Problem, content_type = "application/problem+json"),
        EventStarted,
    ))]
#[delete("/events/{id}/entries/me")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::withdraw(&state.app, caller.id, *id).await?;
    Ok(ok(&event, caller.id))
}

/// The organizer removes an entry, named by its id.
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event"), ("entry" = Uuid, Path, description = "The entry's id")),
    responses(
        (status = 200, description = "Removed; the event", body = ClubEvent),
        Unauthenticated,
        NotOrganizer,
        NoSuchEvent,
        EventStarted,
    ))]
#[delete("/events/{id}/entries/{entry}")]
pub async fn remove_entry(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, entry) = *path;
    let event = evenings::remove_entry(&state.app, caller.id, id, entry).await?;
    Ok(ok(&event, caller.id))
}

/// Computer entries.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"count": 2, "level": "basic"}))]
pub struct NewBots {
    /// Entries to add: pairs of two computer players, or single players.
    #[schema(minimum = 1, maximum = 40)]
    pub count: usize,
    /// `basic` or `strong`.
    #[schema(value_type = String, example = "basic")]
    pub level: Level,
}

/// The organizer fills the field with computer entries.
#[utoipa::path(tag = "events", security(("bearer" = [])), request_body = NewBots,
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Added; the event", body = ClubEvent),
        Unauthenticated,
        NotOrganizer,
        NoSuchEvent,
        (status = 409, description = "`event_started` or `event_full`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`count` 0 or an unknown level", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events/{id}/bots")]
pub async fn add_bots(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    body: web::Json<NewBots>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::add_bots(&state.app, caller.id, *id, body.count, body.level).await?;
    Ok(ok(&event, caller.id))
}

/// The organizer starts the event: the schedule is made and round 1's
/// tables are created with their seats filled.
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Started; the event", body = ClubEvent),
        Unauthenticated,
        NotOrganizer,
        NoSuchEvent,
        (status = 409, description = "`entries_incomplete` (the detail says how many players are missing) or `event_started`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events/{id}/start")]
pub async fn start(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::start(&state.app, caller.id, *id).await?;
    Ok(ok(&event, caller.id))
}

/// The organizer calls the event off (open or running).
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Cancelled; the event", body = ClubEvent),
        Unauthenticated,
        NotOrganizer,
        NoSuchEvent,
        (status = 409, description = "`event_over`: finished or cancelled already", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events/{id}/cancel")]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::cancel(&state.app, caller.id, *id).await?;
    Ok(ok(&event, caller.id))
}

/// An event seed.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"value": "c0ffee"}))]
pub struct EventSeed {
    /// 1 to 64 hex characters.
    pub value: String,
}

/// An entry's event seed, mixed into the draw and the boards (while open).
#[utoipa::path(tag = "events", security(("bearer" = [])), request_body = EventSeed,
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "Sent; the event", body = ClubEvent),
        Unauthenticated,
        (status = 403, description = "`forbidden`: the caller has not entered", body = Problem, content_type = "application/problem+json"),
        NoSuchEvent,
        EventStarted,
        (status = 422, description = "Not 1 to 64 hex characters", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/events/{id}/seeds")]
pub async fn send_seed(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    body: web::Json<EventSeed>,
) -> Result<HttpResponse, ApiError> {
    let event = evenings::send_seed(&state.app, caller.id, *id, &body.value).await?;
    Ok(ok(&event, caller.id))
}

/// The standings, best first: JSON, or with `Accept: text/csv` the same as
/// CSV for a club's spreadsheet (a header line, then one line per entry).
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "The standings", content(
            (Vec<ClubStanding> = "application/json"),
            (String = "text/csv"),
        ), headers(("ETag" = String))),
        Unauthenticated,
        NoSuchEvent,
    ))]
#[get("/events/{id}/standings")]
pub async fn standings(
    state: web::Data<AppState>,
    req: HttpRequest,
    _caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (event, lines) = evenings::standings(&state.app, *id).await?;
    let lines: Vec<ClubStanding> = lines.iter().map(|l| standing_view(&event, l)).collect();
    let csv = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/csv"));
    let mut response = HttpResponse::Ok();
    response.insert_header((header::ETAG, etag(event.version)));
    if csv {
        return Ok(response
            .content_type("text/csv; charset=utf-8")
            .body(standings_csv(&event, &lines).map_err(ApiError::internal)?));
    }
    Ok(response.json(lines))
}

/// A duplicate event's board: its hands and every table's result, once
/// every table of the round has finished it (404 `not_found` before).
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event"), ("round" = u32, Path, description = "The round"), ("deal" = u8, Path, description = "The deal of the round")),
    responses(
        (status = 200, description = "The board", body = ClubBoard),
        Unauthenticated,
        (status = 404, description = "`not_found`: no such event or board, not a duplicate event, or not every table has finished the board", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/events/{id}/boards/{round}/{deal}")]
pub async fn board(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    path: web::Path<(Uuid, u32, u8)>,
) -> Result<web::Json<ClubBoard>, ApiError> {
    let (id, round, deal) = *path;
    let results = evenings::board(&state.app, id, round, deal).await?;
    let first = &results[0].record;
    let hands = serde_json::to_value(first.hands).map_err(ApiError::internal)?;
    let dealer = first.dealer.0;
    let tables = results
        .iter()
        .map(|r| {
            Ok(ClubBoardTable {
                table: r.table,
                game_id: r.game,
                record: serde_json::to_value(&r.record).map_err(ApiError::internal)?,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(web::Json(ClubBoard {
        round,
        deal,
        hands,
        dealer,
        tables,
    }))
}

/// The event's stream (`text/event-stream`): an `event` event with the
/// event, and a `standings` event with the standings, each time the
/// version changes, the version as the event id; `: keep-alive` comments.
#[utoipa::path(tag = "events", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The event")),
    responses(
        (status = 200, description = "`text/event-stream`: `id: <version>`, `event: event`, `data: <GET /v1/events/{id}>`; then `event: standings`, `data: <GET /v1/events/{id}/standings>`; `: keep-alive` comments; `event: shutdown` when the server stops",
            content_type = "text/event-stream", body = String),
        Unauthenticated,
        NoSuchEvent,
    ))]
#[get("/events/{id}/stream")]
pub async fn event_stream(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = *id;
    let waiter = state.app.notifier.subscribe(id).await;
    evenings::show(&state.app, id, None, None).await?;
    let opened = (state.clone(), caller.id, id, 0_i64, waiter, false);
    let events = futures_util::stream::unfold(
        opened,
        |(state, caller, id, last, mut waiter, done)| async move {
            if done {
                return None;
            }
            loop {
                let (event, lines) = match evenings::standings(&state.app, id).await {
                    Ok(read) => read,
                    Err(error) => {
                        tracing::warn!(%error, "event stream ends: event could not be loaded");
                        return None;
                    }
                };
                if event.version > last {
                    let view =
                        serde_json::to_string(&ClubEvent::of(&event, caller)).unwrap_or_default();
                    let lines: Vec<ClubStanding> =
                        lines.iter().map(|l| standing_view(&event, l)).collect();
                    let ranked = serde_json::to_string(&lines).unwrap_or_default();
                    let chunk = format!(
                        "id: {}\nevent: event\ndata: {view}\n\nevent: standings\ndata: {ranked}\n\n",
                        event.version
                    );
                    let version = event.version;
                    return Some((
                        Ok::<_, ApiError>(Bytes::from(chunk)),
                        (state, caller, id, version, waiter, false),
                    ));
                }
                let keep_alive = state.sse_keep_alive;
                match tokio::time::timeout(keep_alive, waiter.wake()).await {
                    Ok(Wake::Changed | Wake::Recheck | Wake::SignedOut) => continue,
                    Ok(Wake::Shutdown) => {
                        let chunk = Bytes::from_static(b"event: shutdown\ndata: {}\n\n");
                        return Some((Ok(chunk), (state, caller, id, last, waiter, true)));
                    }
                    Err(_) => {
                        let chunk = Bytes::from_static(b": keep-alive\n\n");
                        return Some((Ok(chunk), (state, caller, id, last, waiter, false)));
                    }
                }
            }
        },
    );
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}
