//! Tables: create, list, view, take and leave seats, deal and move.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::AppState;
use super::change::{
    Caller, Event, SeatChange, change_game, etag, etag_listed, idempotency_key, json_answer,
    remember, replay, request_hash, seated_player, view_json,
};
use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, OptionalJson, SignedToken};
use super::stream::{load_as, load_with_every_record, wait_past};
pub use crate::api::game::GameSummary;
use crate::api::game::GameView;
use crate::api::moves::MoveSchema;
use crate::store::events::{self, EventRow};
use crate::store::games::{self, Cursor, GameRow};
use crate::store::record::{game_from_row, game_to_row, system_rng};
use crate::table::Level;
use crate::table::events as event_log;
use crate::table::{Game, GameKind, Move, SeatedPlayer, TableOptions};

/// A new table. Its schema in the document is [`NewGameSchema`]: one shape
/// per game, each with that game's options only.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Which game.
    pub game: GameKind,
    /// The table options of the game named in `game`; every one optional.
    pub options: Option<serde_json::Value>,
    /// The seat the host takes (default 0).
    pub seat: Option<u8>,
    /// Seats to fill with computer players at creation.
    pub bots: Option<Vec<BotSeat>>,
}

/// The body of `POST /v1/games` as the document states it: a `oneOf` of one
/// shape per game (`NewKlaverjassenGame`, `NewPotverterenGame`), told apart
/// by `game`, each taking that game's options only, as the server reads
/// them ([`NewGame`]: the options of the game named, others refused).
pub struct NewGameSchema;

/// The schema of a JSON value written as JSON (the shapes no derive states).
fn schema_from(
    value: serde_json::Value,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    serde_json::from_value(value).expect("a valid schema")
}

impl utoipa::PartialSchema for NewGameSchema {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        schema_from(serde_json::json!({
            "oneOf": [
                {"$ref": "#/components/schemas/NewKlaverjassenGame"},
                {"$ref": "#/components/schemas/NewPotverterenGame"},
            ],
            "discriminator": {"propertyName": "game", "mapping": {
                "klaverjassen": "#/components/schemas/NewKlaverjassenGame",
                "potverteren": "#/components/schemas/NewPotverterenGame",
            }},
            "description": "A new table: the game, and options of that game only.",
            "example": {"game": "klaverjassen", "options": {"revoke_mode": "club", "deals": 16}},
        }))
    }
}

impl ToSchema for NewGameSchema {
    fn name() -> std::borrow::Cow<'static, str> {
        "NewGame".into()
    }

    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        for (name, game, options) in [
            ("NewKlaverjassenGame", "klaverjassen", "KlaverjassenOptions"),
            ("NewPotverterenGame", "potverteren", "PotverterenOptions"),
        ] {
            let shape = schema_from(serde_json::json!({
                "type": "object",
                "description": format!("A new {game} table."),
                "required": ["game"],
                "additionalProperties": false,
                "properties": {
                    "game": {"type": "string", "enum": [game], "description": "Which game."},
                    "options": {
                        "oneOf": [{"$ref": format!("#/components/schemas/{options}")}, {"type": "null"}],
                        "description": format!("The {game} table's options; every one optional."),
                    },
                    "seat": {
                        "type": ["integer", "null"], "format": "int32", "minimum": 0,
                        "description": "The seat the host takes (default 0).",
                        "example": 0,
                    },
                    "bots": {
                        "type": ["array", "null"],
                        "items": {"$ref": "#/components/schemas/BotSeat"},
                        "description": "Seats to fill with computer players at creation.",
                        "example": [{"seat": 1, "level": "basic"}, {"seat": 3, "level": "strong"}],
                    },
                },
            }));
            schemas.push((name.to_owned(), shape));
        }
        <crate::api::options::NewOptionsSchema as ToSchema>::schemas(schemas);
        schemas.push((BotSeat::name().into(), BotSeat::schema()));
        <BotSeat as ToSchema>::schemas(schemas);
    }
}

/// A computer player to seat.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": 1, "level": "basic"}))]
pub struct BotSeat {
    /// The seat (the first free one when left out).
    #[schema(example = 1)]
    pub seat: Option<u8>,
    /// How strong it plays: `basic`, or `strong` (the exact-solver player at
    /// Klaverjassen, its own search at Potverteren: docs/bots.md).
    #[schema(value_type = crate::api::game::Level)]
    pub level: Level,
}

/// A new computer player of `level` for `seat`, not yet stored.
pub fn seat_bot(
    game: &mut Game,
    level: Level,
    wanted: Option<u8>,
) -> Result<(crate::rules::Seat, SeatedPlayer), crate::table::GameError> {
    let mut bot = SeatedPlayer {
        id: Uuid::new_v4(),
        name: String::new(),
        bot: Some(level),
    };
    let seat = game.join(bot.clone(), wanted)?;
    // Named after the seat it got, which is known only once seated.
    bot.name = level.player_name(seat.0);
    game.seats[seat.index()] = Some(bot.clone());
    Ok((seat, bot))
}

/// Creates a table. The caller is its host and takes seat 0 (or `seat`).
#[utoipa::path(tag = "games", security(("bearer" = [])), request_body = NewGameSchema,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 201, description = "Created; `Location` names the game", body = GameView,
            headers(("Location" = String), ("ETag" = String))),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_tables`: the caller waits at 20 tables already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown option or value out of range", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    body: web::Json<NewGame>,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency_key(&req)?;
    let hash = request_hash(&req, key.as_deref(), &*body);
    let (options, table) = TableOptions::parse_with(body.game, body.options.clone())
        .map_err(|e| ApiError::validation(e.to_string()))?;
    let mut tx = state.store.begin_write().await?;
    // No row to lock yet: the key itself is held, so a retry racing its
    // original waits for it and replays its answer.
    if let Some(key) = &key {
        crate::store::idempotency::lock(&mut tx, state.store.backend(), caller.id, key).await?;
    }
    if let Some(replayed) = replay(
        &mut tx,
        caller.id,
        key.as_deref(),
        &hash,
        state.clock.now_micros(),
    )
    .await?
    {
        return Ok(replayed);
    }
    super::change::room_for_a_new_table(&mut tx, caller.id).await?;
    let host = seated_player(&mut tx, caller).await?;
    let mut game = Game::create(
        Uuid::new_v4(),
        body.game,
        options,
        table,
        host,
        body.seat,
        &mut system_rng(),
    )
    .map_err(|e| ApiError::validation(format!("seat: {e}")))?;
    let mut bots = Vec::new();
    for wanted in body.bots.iter().flatten() {
        // Every seat of a new table is named by this request, so a seat
        // asked for twice (or more bots than seats) is a bad request, not a
        // conflict with a table that does not exist yet.
        let (seat, bot) = seat_bot(&mut game, wanted.level, wanted.seat)
            .map_err(|e| ApiError::validation(format!("bots: {e}")))?;
        bots.push((seat.0, bot));
    }
    super::friends::assign_invite_code(&mut tx, &mut game).await?;
    let created_at = state.clock.now_micros();
    let due_at = game.schedule(created_at, created_at, true);
    let options = game.options_json().to_string();
    let mut row = game_to_row(&mut game, created_at, options, None)?;
    row.due_at = due_at;
    games::insert(&mut tx, &row).await?;
    let seat = game.seat_of(caller.id).map(|s| s.0).unwrap_or(0);
    games::add_seat(&mut tx, game.id, seat, caller.id).await?;
    for (seat, bot) in &bots {
        let level = bot.bot.map_or("basic", Level::as_str);
        crate::store::players::insert_bot(&mut tx, bot.id, &bot.name, level).await?;
        games::add_seat(&mut tx, game.id, *seat, bot.id).await?;
    }
    events::append(
        &mut tx,
        game.id,
        &EventRow {
            seq: game.version,
            player_id: Some(caller.id),
            seat: Some(seat),
            kind: "created".into(),
            payload: serde_json::json!({
                "type": "created",
                "seat": seat,
                "fairness": game.fairness.view(1),
            })
            .to_string(),
            created_at,
            actor: None,
        },
    )
    .await?;
    let body = view_json(&game, caller.id)?;
    let headers = [
        (
            header::LOCATION.as_str(),
            format!("{}/v1/games/{}", state.path_prefix, game.id),
        ),
        (header::ETAG.as_str(), etag(game.version)),
    ];
    remember(
        &mut tx,
        caller.id,
        key.as_deref(),
        hash,
        StatusCode::CREATED,
        &headers,
        &body,
        state.clock.now_micros(),
    )
    .await?;
    tx.commit().await?;
    state.notifier.work_due(due_at);
    Ok(json_answer(StatusCode::CREATED, headers).body(body))
}

/// A page of a listing.
#[derive(Serialize, ToSchema)]
pub struct Page<T: ToSchema> {
    /// The items, newest first.
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; null on the last page.
    #[schema(example = "1796465700000000_0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    pub next_cursor: Option<String>,
}

/// A checked cursor and page size.
pub struct PageQuery {
    /// Where the previous page ended.
    pub after: Option<Cursor>,
    /// Rows per page.
    pub limit: i64,
}

impl PageQuery {
    /// Checks `cursor` (as a `next_cursor` of ours) and `limit` (1..100, default 20).
    pub fn parse(cursor: Option<&str>, limit: Option<u32>) -> Result<PageQuery, ApiError> {
        let limit = match limit {
            None => 20,
            Some(n @ 1..=100) => i64::from(n),
            Some(_) => return Err(ApiError::validation("limit: 1 to 100")),
        };
        let after = cursor
            .map(|c| {
                let (time, id) = c.split_once('_')?;
                Some(Cursor {
                    created_at: time.parse().ok()?,
                    id: Uuid::parse_str(id).ok()?,
                })
            })
            .map(|c| {
                c.ok_or_else(|| ApiError::validation("cursor: not a cursor this service gave out"))
            })
            .transpose()?;
        Ok(PageQuery { after, limit })
    }
}

/// Turns `limit + 1` rows into a page of at most `limit`.
pub fn summaries(rows: Vec<GameRow>, limit: i64) -> Result<Page<GameSummary>, ApiError> {
    let more = rows.len() as i64 > limit;
    let rows = &rows[..rows.len().min(limit as usize)];
    let next_cursor = more
        .then(|| rows.last().map(|r| format!("{}_{}", r.created_at, r.id)))
        .flatten();
    let items = rows
        .iter()
        .map(|row| game_from_row(row).map(|g| GameSummary::from(&g)))
        .collect::<Result<_, _>>()?;
    Ok(Page { items, next_cursor })
}

/// Filtering and paging the lobby.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LobbyQuery {
    /// Only tables of this game.
    #[param(value_type = Option<crate::api::game::GameKind>)]
    pub game: Option<GameKind>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1..100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// The lobby: tables waiting for players, newest first.
#[utoipa::path(tag = "games", security(("bearer" = [])), params(LobbyQuery), responses(
    (status = 200, description = "A page of tables", body = Page<GameSummary>),
    (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "Unknown game, bad cursor or limit", body = Problem, content_type = "application/problem+json"),
))]
#[get("/games")]
pub async fn lobby(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    query: web::Query<LobbyQuery>,
) -> Result<web::Json<Page<GameSummary>>, ApiError> {
    let page = PageQuery::parse(query.cursor.as_deref(), query.limit)?;
    let mut conn = state.store.acquire().await?;
    let kind = query.game.map(GameKind::as_str);
    let rows = games::lobby(&mut conn, kind, page.after, page.limit + 1).await?;
    Ok(web::Json(summaries(rows, page.limit)?))
}

/// Waiting for a change (long poll).
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct GameQuery {
    /// Answer only once the game's version is past this one (or on timeout).
    #[param(minimum = 0)]
    pub wait_for_version: Option<i64>,
    /// How long to wait, in seconds: 0..=60, default 30.
    #[param(minimum = 0, maximum = 60)]
    pub timeout_s: Option<u64>,
}

/// The longest long poll, in seconds.
pub const LONG_POLL_MAX_SECONDS: u64 = 60;

/// The game as the caller may see it: its seat's view, or the spectator view.
/// Answers 304 when `If-None-Match` holds the current ETag. With
/// `wait_for_version=N` it is a long poll: it answers as soon as the version
/// passes N, or after `timeout_s` seconds with the current view.
#[utoipa::path(tag = "games", security(("bearer" = [])), params(("id" = Uuid, Path, description = "The game"), GameQuery),
    responses(
        (status = 200, description = "The caller's view", body = GameView, headers(("ETag" = String))),
        (status = 304, description = "Not modified since the ETag in If-None-Match"),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad wait_for_version or timeout_s", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: SignedToken,
    id: web::Path<Uuid>,
    query: web::Query<GameQuery>,
) -> Result<HttpResponse, ApiError> {
    let (caller, game) = match query.wait_for_version {
        // The token is checked in the game's own statement.
        None if query.timeout_s.is_none() => load_as(&state, &token, *id).await?,
        wait_for_version => {
            // A long poll holds no connection while it waits.
            let caller = {
                let mut conn = state.store.acquire().await?;
                token.check(&state, &mut conn).await?
            };
            let Some(version) = wait_for_version else {
                return Err(ApiError::validation(
                    "timeout_s: only with wait_for_version",
                ));
            };
            let seconds = query.timeout_s.unwrap_or(30);
            if version < 0 || seconds > LONG_POLL_MAX_SECONDS {
                return Err(ApiError::validation(format!(
                    "wait_for_version: 0 or more; timeout_s: 0 to {LONG_POLL_MAX_SECONDS}"
                )));
            }
            let game = wait_past(
                &state,
                *id,
                version,
                std::time::Duration::from_secs(seconds),
            )
            .await?;
            (caller, game)
        }
    };
    let tag = etag(game.version);
    let not_modified = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| etag_listed(v, game.version));
    if not_modified {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .finish());
    }
    Ok(json_answer(StatusCode::OK, [(header::ETAG, tag)]).body(view_json(&game, caller.id)?))
}

/// Taking a seat.
#[derive(Deserialize, Serialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct TakeSeat {
    /// The seat to take; the first free one when absent.
    #[schema(example = 2)]
    pub seat: Option<u8>,
}

/// Takes a seat. The game starts when every seat is taken.
#[utoipa::path(tag = "games", security(("bearer" = [])), request_body(content = Option<TakeSeat>),
    params(("id" = Uuid, Path, description = "The game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Seated; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_full`, `seat_taken`, `already_seated` or `game_started`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/seats")]
pub async fn take_seat(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    body: OptionalJson<TakeSeat>,
) -> Result<HttpResponse, ApiError> {
    join_game(&state, &req, caller, *id, body.0.unwrap_or_default()).await
}

/// Seats the caller at game `id` as `body` asks: the one path of taking a
/// seat by the table's id and by its invite code.
pub async fn join_game(
    state: &AppState,
    req: &HttpRequest,
    caller: AuthPlayer,
    id: Uuid,
    body: TakeSeat,
) -> Result<HttpResponse, ApiError> {
    let mut conn = state.store.acquire().await?;
    let player = seated_player(&mut conn, caller).await?;
    drop(conn);
    change_game(state, req, caller, id, &body, None, |game| {
        let seat = game.join(player.clone(), body.seat)?;
        Ok(Event {
            kind: "joined",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "joined", "seat": seat}),
            seat_change: Some(SeatChange::Took(seat.0)),
        })
    })
    .await
}

/// Leaves the caller's seat before the game has started.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Left; the caller's (now spectator) view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`, or the host (who cannot leave)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_started`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/games/{id}/seats/me")]
pub async fn leave_seat(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    change_game(&state, &req, caller, *id, &(), None, |game| {
        let seat = game.leave(caller.id)?;
        Ok(Event {
            kind: "left",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "left", "seat": seat}),
            seat_change: Some(SeatChange::Left(seat.0)),
        })
    })
    .await
}

/// The dealer (Klaverjassen) or pothouder (Potverteren) deals; the same as
/// the move `{"type": "deal"}`.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Dealt; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Refused by the rules (`wrong_phase`, `not_your_turn`), with `legal_moves`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/deal")]
pub async fn deal(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    change_game(&state, &req, caller, *id, &(), None, |game| {
        let mv = Move::deal(game.kind);
        apply_move(game, caller.id, mv)
    })
    .await
}

/// A move, with the version the caller saw.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": {"type": "play", "card": "10H"}, "expected_version": 12}))]
pub struct MoveRequest {
    /// The move, tagged by `type`.
    #[serde(rename = "move")]
    #[schema(value_type = MoveSchema)]
    pub mv: serde_json::Value,
    /// Refuse the move with 409 `version_conflict` unless the game is at this version.
    pub expected_version: Option<i64>,
}

/// Makes a move.
#[utoipa::path(tag = "games", security(("bearer" = [])), request_body = MoveRequest,
    params(("id" = Uuid, Path, description = "The game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$"),
           ("If-Match" = Option<String>, Header, description = "The game's ETag; 412 if it changed")),
    responses(
        (status = 200, description = "Accepted; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict`: expected_version is stale; `already_corrected`: a Klaverjassen report naming a seat whose revoke was just corrected (nothing changed)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a move of this game, or refused by the rules (with `legal_moves`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/moves")]
pub async fn make_move(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: SignedToken,
    id: web::Path<Uuid>,
    body: web::Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let caller = Caller::of(&state, &token).await?;
    let player = caller.player;
    change_game(
        &state,
        &req,
        caller,
        *id,
        &*body,
        body.expected_version,
        |game| {
            let mv = Move::parse(game.kind, body.mv.clone())?;
            apply_move(game, player.id, mv)
        },
    )
    .await
}

fn apply_move(game: &mut Game, caller: Uuid, mv: Move) -> Result<Event, crate::table::GameError> {
    let seat = game
        .seat_of(caller)
        .ok_or(crate::table::GameError::NotSeated)?;
    let event = seat_move(game, seat, mv)?;
    // A player who acts for its seat is back.
    game.back(seat);
    Ok(event)
}

/// Applies `mv` for `seat` and returns its event: the one path of a
/// player's move and of an automatic one.
pub fn seat_move(
    game: &mut Game,
    seat: crate::rules::Seat,
    mv: Move,
) -> Result<Event, crate::table::GameError> {
    let mut payload = serde_json::to_value(&mv).unwrap_or_default();
    let kind = if mv.is_deal() { "deal" } else { "move" };
    let context = event_log::context_before(game);
    let finished = event_log::finished_deals(game);
    let (seat, committed) = game.play_for(seat, mv, &mut system_rng())?;
    let result = event_log::public_result(game, seat, &context, &payload);
    if let Some(object) = payload.as_object_mut() {
        // `seat` is the seat that acted, in every event; the seat a move
        // names itself (a `report_revoke`'s) is kept as `reported_seat`.
        if let Some(named) = object.insert("seat".into(), serde_json::json!(seat)) {
            object.insert("reported_seat".into(), named);
        }
        object.extend(context);
        object.extend(result);
        object.extend(event_log::fairness_result(game, finished, &committed));
    }
    Ok(Event {
        kind,
        seat: Some(seat.0),
        payload,
        seat_change: None,
    })
}

/// Paging through the event log.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events after this sequence number (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many events, 1..500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// One accepted change, as the caller may see it now.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"seq": 6, "kind": "move", "seat": 0, "by": "player",
    "at": "2026-12-05T10:15:00Z",
    "data": {"type": "choose_trump", "suit": "C", "seat": 0, "deal_number": 1}}))]
pub struct EventView {
    /// Position in the log; equal to the game version the change made.
    #[schema(example = 6)]
    pub seq: i64,
    /// `created`, `joined`, `left`, `deal`, `move`, `back` (a seat no longer
    /// away), `rematch` (the next table was made) or `abandoned` (closed
    /// after waiting too long).
    #[schema(example = "move")]
    pub kind: String,
    /// The seat that acted.
    #[schema(example = 0)]
    pub seat: Option<u8>,
    /// Who made the change: `player`, `bot` (a computer player) or `clock`
    /// (a move made for a seat whose clock ran out or that is away, or a
    /// table closed after waiting too long).
    #[schema(example = "player")]
    pub by: String,
    /// When the change was accepted.
    #[schema(example = "2026-12-05T10:15:00Z")]
    pub at: chrono::DateTime<chrono::Utc>,
    /// The change: the move as made (public), plus what became public since
    /// (a deal's hands once that deal is over). `data.seat` is the seat that
    /// acted; a `report_revoke` keeps the seat it names as `reported_seat`.
    #[schema(value_type = Object,
        example = json!({"type": "choose_trump", "suit": "C", "seat": 0, "deal_number": 1}))]
    pub data: serde_json::Value,
}

/// A page of the event log.
#[derive(Serialize, ToSchema)]
pub struct EventPage {
    /// The events, oldest first.
    pub events: Vec<EventView>,
    /// Pass as `after` for the next page (the last `seq` here, or `after` when empty).
    #[schema(example = 6)]
    pub next_after: i64,
}

/// The game's event log. Every event exists for every caller (sequence numbers
/// have no gaps); its content is redacted to what the caller may see now.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"), EventsQuery),
    responses(
        (status = 200, description = "Events", body = EventPage),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad `after` or `limit`", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/events")]
pub async fn game_events(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<web::Json<EventPage>, ApiError> {
    let after = query.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::validation("after: 0 or more"));
    }
    let limit = match query.limit {
        None => 100,
        Some(n @ 1..=500) => i64::from(n),
        Some(_) => return Err(ApiError::validation("limit: 1 to 500")),
    };
    let mut conn = state.store.acquire().await?;
    let game = load_with_every_record(&mut conn, &state, *id).await?;
    let rows = events::list(&mut conn, *id, after, limit).await?;
    let next_after = rows.last().map_or(after, |r| r.seq);
    let events = rows
        .into_iter()
        .map(|row| {
            let payload = serde_json::from_str(&row.payload)
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            Ok(EventView {
                seq: row.seq,
                kind: row.kind,
                seat: row.seat,
                by: row.actor.unwrap_or_else(|| "player".to_owned()),
                at: chrono::DateTime::from_timestamp_micros(row.created_at).unwrap_or_default(),
                data: event_log::redact(&game, payload),
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(web::Json(EventPage { events, next_after }))
}
