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
use crate::app::answer::{etag, etag_listed};
use crate::app::evenings::{self, NewEvent};
use crate::app::tables::PageQuery;
use crate::notify::Wake;
use crate::table::evening::event::{Event, Format};
use crate::table::evening::standings::Standing;
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

/// One player of an entry.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}))]
pub struct ClubPlayer {
    /// The player.
    pub id: Uuid,
    /// Its name.
    #[schema(example = "Anne")]
    pub name: String,
    /// The level of a computer player; null for a person.
    #[schema(value_type = Option<String>, example = json!(null))]
    pub bot: Option<Level>,
}

/// One entry: a pair, or one player.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"entry": 1, "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "players": [{"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}], "partner": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "complete": false, "seed": null}))]
pub struct ClubEntry {
    /// The entry's number: pair or player 1, 2, ... in entry order.
    #[schema(example = 1)]
    pub entry: u16,
    /// The entry's id: its first player's (for `DELETE .../entries/{entry}`).
    pub id: Uuid,
    /// Its players: who entered, then the partner once confirmed.
    pub players: Vec<ClubPlayer>,
    /// A pair waiting for its partner: the player named.
    pub partner: Option<Uuid>,
    /// Whether the entry can play.
    pub complete: bool,
    /// The entry's event seed (hex), mixed into the draw and the boards;
    /// null when it sent none.
    pub seed: Option<String>,
}

/// Who sits in one seat of a table.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}))]
pub struct ClubSeat {
    /// The seat, 0 to 3.
    pub seat: u8,
    /// The entry's number.
    pub entry: u16,
    /// The player.
    pub player: Uuid,
    /// Its name.
    pub name: String,
}

/// One table of a round.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "seats": [{"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}]}))]
pub struct ClubTable {
    /// The table's number in the round, from 1.
    pub table: u32,
    /// Its game (`GET /v1/games/{id}`).
    pub game_id: Uuid,
    /// Who sits where.
    pub seats: Vec<ClubSeat>,
}

/// One round begun.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "tables": [{"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "seats": [{"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}]}]}))]
pub struct ClubRound {
    /// The round, from 1.
    pub round: u32,
    /// Its tables.
    pub tables: Vec<ClubTable>,
}

/// The event's fair-deal commitment (docs/events.md, "Fair boards").
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"commitment": "3b0e1f5a9c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f", "chain_length": 7, "draw_seed": null}))]
pub struct ClubFairness {
    /// SHA-256 applied `chain_length` times to the chain's secret last link.
    pub commitment: String,
    /// Links in the chain: `rounds * deals + 1`.
    pub chain_length: u32,
    /// Link 1, which draws an individual schedule: null until the start.
    pub draw_seed: Option<String>,
}

/// A club evening.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "2f1c7d9a-4b6e-4c1d-9a3f-8e5b7c2d1a60", "name": "Donderdagavond", "game": "klaverjassen", "format": "pairs", "status": "open", "rounds": 3, "deals": 2, "duplicate": true, "options": {"deals": 2, "first_dealer": 3, "auto_deal": true}, "private": false, "starts_at": "2026-12-10T19:30:00Z", "organizer": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "entries": [{"entry": 1, "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "players": [{"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}], "partner": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "complete": false, "seed": null}], "missing_players": 7, "round": 0, "schedule": [], "fairness": {"commitment": "3b0e1f5a9c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f", "chain_length": 7, "draw_seed": null}, "invite_code": null, "version": 2, "created_at": "2026-12-06T08:00:00Z"}))]
pub struct ClubEvent {
    /// The event.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// `klaverjassen`.
    #[schema(example = "klaverjassen")]
    pub game: String,
    /// `pairs` or `individual`.
    #[schema(example = "pairs")]
    pub format: String,
    /// `open`, `running`, `finished` or `cancelled`.
    #[schema(example = "open")]
    pub status: String,
    /// Rounds.
    pub rounds: u32,
    /// Deals per table per round.
    pub deals: u8,
    /// Duplicate boards.
    pub duplicate: bool,
    /// The options of every table.
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
    /// Kept out of the list of open events.
    pub private: bool,
    /// When the organizer means to start.
    pub starts_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The organizer.
    pub organizer: Uuid,
    /// The entries, in entry order.
    pub entries: Vec<ClubEntry>,
    /// Players still needed before the start.
    pub missing_players: usize,
    /// The round being played; 0 before the start.
    pub round: u32,
    /// Every round begun, round 1 first.
    pub schedule: Vec<ClubRound>,
    /// The fair-deal commitment.
    pub fairness: ClubFairness,
    /// A private event's invite code, shown to its organizer and entries.
    pub invite_code: Option<String>,
    /// Every accepted change adds 1.
    pub version: i64,
    /// When it was made.
    pub created_at: chrono::DateTime<chrono::Utc>,
}

fn time(micros: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or_default()
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Pairs => "pairs",
        Format::Individual => "individual",
    }
}

impl ClubEvent {
    /// `event` as `caller` sees it.
    pub fn of(event: &Event, caller: Uuid) -> ClubEvent {
        let entries = event
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| ClubEntry {
                entry: i as u16 + 1,
                id: e.players[0].id,
                players: e
                    .players
                    .iter()
                    .map(|m| ClubPlayer {
                        id: m.id,
                        name: m.name.clone(),
                        bot: m.bot,
                    })
                    .collect(),
                partner: e.named,
                complete: e.complete(event.settings.format),
                seed: e.seed.as_ref().map(|s| s.as_str().to_owned()),
            })
            .collect();
        let schedule = event
            .tables
            .iter()
            .enumerate()
            .map(|(r, games)| ClubRound {
                round: r as u32 + 1,
                tables: games
                    .iter()
                    .zip(&event.schedule[r])
                    .enumerate()
                    .map(|(t, (game, seats))| ClubTable {
                        table: t as u32 + 1,
                        game_id: *game,
                        seats: seats
                            .0
                            .iter()
                            .enumerate()
                            .map(|(seat, place)| {
                                let member = &event.entries[usize::from(place.entry)].players
                                    [usize::from(place.member)];
                                ClubSeat {
                                    seat: seat as u8,
                                    entry: place.entry + 1,
                                    player: member.id,
                                    name: member.name.clone(),
                                }
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let insider = caller == event.organizer || event.entry_of(caller).is_some();
        ClubEvent {
            id: event.id,
            name: event.settings.name.clone(),
            game: "klaverjassen".into(),
            format: format_name(event.settings.format).into(),
            status: event.status.as_str().into(),
            rounds: event.settings.rounds,
            deals: event.settings.deals,
            duplicate: event.settings.duplicate,
            options: event.settings.options.clone(),
            private: event.settings.private,
            starts_at: event.settings.starts_at.map(time),
            organizer: event.organizer,
            entries,
            missing_players: event.missing_players(),
            round: event.round,
            schedule,
            fairness: ClubFairness {
                commitment: event.seeds.commitment(),
                chain_length: event.seeds.length(),
                draw_seed: event.draw_seed(),
            },
            invite_code: event.invite_code.clone().filter(|_| insider),
            version: event.version,
            created_at: time(event.created_at),
        }
    }
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
        header::HeaderValue::from_str(&location).map_err(|e| ApiError::Internal(e.to_string()))?,
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

/// One entry's result in one round.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "table": 2, "score": 1234, "matchpoints": 3}))]
pub struct ClubRoundResult {
    /// The round.
    pub round: u32,
    /// The table, from 1.
    pub table: u32,
    /// The team's match total; null until it counts (in a duplicate event,
    /// until every table of the round has finished).
    pub score: Option<i32>,
    /// Duplicate: matchpoints on the round's complete boards.
    pub matchpoints: Option<u32>,
}

/// One line of the standings.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"rank": 1, "entry": 3, "players": ["Anneke", "Bert"], "score": 2468, "matchpoints": 9, "max_matchpoints": 12, "percent": 75.0, "rounds": [{"round": 1, "table": 2, "score": 1234, "matchpoints": 3}]}))]
pub struct ClubStanding {
    /// 1 for the best; equal results share a rank.
    pub rank: u32,
    /// The entry's number.
    pub entry: u16,
    /// The entry's players' names.
    pub players: Vec<String>,
    /// The sum of the entry's team totals.
    pub score: i64,
    /// Duplicate: matchpoints over every complete board.
    pub matchpoints: Option<u32>,
    /// Duplicate: the most matchpoints the entry could have had on them.
    pub max_matchpoints: Option<u32>,
    /// Duplicate: matchpoints in percent of the maximum, two decimals.
    pub percent: Option<f64>,
    /// Round by round.
    pub rounds: Vec<ClubRoundResult>,
}

fn standing_view(event: &Event, line: &Standing) -> ClubStanding {
    ClubStanding {
        rank: line.rank,
        entry: line.entry + 1,
        players: event.entries[usize::from(line.entry)]
            .players
            .iter()
            .map(|m| m.name.clone())
            .collect(),
        score: line.score,
        matchpoints: line.matchpoints,
        max_matchpoints: line.max_matchpoints,
        percent: line.percent,
        rounds: line
            .rounds
            .iter()
            .map(|r| ClubRoundResult {
                round: r.round,
                table: r.table,
                score: r.score,
                matchpoints: r.matchpoints,
            })
            .collect(),
    }
}

/// The standings as CSV: one line per entry, best first; a column per
/// round's score (and matchpoints, in a duplicate event).
fn standings_csv(event: &Event, lines: &[ClubStanding]) -> Result<Vec<u8>, ApiError> {
    let internal = |e: csv::Error| ApiError::Internal(e.to_string());
    let mut out = csv::Writer::from_writer(Vec::new());
    let duplicate = event.settings.duplicate;
    let mut head: Vec<String> = ["rank", "entry", "players", "score"]
        .map(String::from)
        .into();
    if duplicate {
        head.extend(["matchpoints", "max_matchpoints", "percent"].map(String::from));
    }
    for round in 1..=event.settings.rounds {
        head.push(format!("round_{round}_score"));
        if duplicate {
            head.push(format!("round_{round}_matchpoints"));
        }
    }
    out.write_record(&head).map_err(internal)?;
    let text = |v: Option<String>| v.unwrap_or_default();
    for line in lines {
        let mut record = vec![
            line.rank.to_string(),
            line.entry.to_string(),
            line.players.join(" & "),
            line.score.to_string(),
        ];
        if duplicate {
            record.push(text(line.matchpoints.map(|m| m.to_string())));
            record.push(text(line.max_matchpoints.map(|m| m.to_string())));
            record.push(text(line.percent.map(|p| format!("{p:.2}"))));
        }
        for round in 1..=event.settings.rounds {
            let result = line.rounds.iter().find(|r| r.round == round);
            record.push(text(result.and_then(|r| r.score).map(|s| s.to_string())));
            if duplicate {
                record.push(text(
                    result.and_then(|r| r.matchpoints).map(|m| m.to_string()),
                ));
            }
        }
        out.write_record(&record).map_err(internal)?;
    }
    out.into_inner()
        .map_err(|e| ApiError::Internal(e.to_string()))
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
            .body(standings_csv(&event, &lines)?));
    }
    Ok(response.json(lines))
}

/// One table's result on a board.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "record": {"number": 1, "dealer": 3, "score": {"A": 100, "B": 62}}}))]
pub struct ClubBoardTable {
    /// The table, from 1.
    pub table: u32,
    /// Its game.
    pub game_id: Uuid,
    /// The deal's score-sheet row at that table, as in the game's view.
    #[schema(value_type = Object)]
    pub record: serde_json::Value,
}

/// A complete board.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "deal": 1, "hands": [["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"], ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"], ["7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"], ["7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]], "dealer": 3, "tables": [{"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "record": {"number": 1, "dealer": 3, "score": {"A": 100, "B": 62}}}]}))]
pub struct ClubBoard {
    /// The round.
    pub round: u32,
    /// The deal of the round.
    pub deal: u8,
    /// The hands as dealt, by seat (the same at every table).
    #[schema(value_type = Vec<Vec<String>>)]
    pub hands: serde_json::Value,
    /// The dealer (seat).
    pub dealer: u8,
    /// Every table's result on it.
    pub tables: Vec<ClubBoardTable>,
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
    let hands = serde_json::to_value(first.hands).map_err(|e| ApiError::Internal(e.to_string()))?;
    let dealer = first.dealer.0;
    let tables = results
        .iter()
        .map(|r| {
            Ok(ClubBoardTable {
                table: r.table,
                game_id: r.game,
                record: serde_json::to_value(&r.record)
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
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
