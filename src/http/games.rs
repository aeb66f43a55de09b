//! Tables over HTTP: create, list, view, take and leave seats, deal and move.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::answer::respond;
use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, OptionalJson, SignedToken};
use super::page::Page;
use super::problems::{BadLongPoll, IfMatchFailed, KeyRefused, NoSuchGame, Unauthenticated};
use super::request::{self, IdempotencyKey, IfMatch};
use super::state::AppState;
use crate::api::game::{GameSummary, GameView};
use crate::api::moves::MoveSchema;
use crate::app::answer::{Answer, OK, etag, etag_listed};
use crate::app::change::Caller;
use crate::app::tables::{self, HouseRulesFilter, NewTable, PageQuery};
use crate::app::{play, read, seats};
use crate::rules::klaverjassen::{FourJacks, TrumpChoice, TrumpObligation, Undertrump};
use crate::table::GameKind;
use crate::table::Level;

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

/// Creates a table. The caller is its host and takes seat 0 (or `seat`).
#[utoipa::path(tag = "games", security(("bearer" = [])), request_body = NewGameSchema,
    params(IdempotencyKey),
    responses(
        (status = 201, description = "Created; `Location` names the game", body = GameView,
            headers(("Location" = String), ("ETag" = String))),
        Unauthenticated,
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
    let keyed = request::keyed(&req, &*body)?;
    let NewGame {
        game,
        options,
        seat,
        bots,
    } = body.into_inner();
    let new = NewTable {
        game,
        options,
        seat,
        bots: bots
            .into_iter()
            .flatten()
            .map(|bot| (bot.seat, bot.level))
            .collect(),
    };
    respond(tables::create(&state.app, caller.id, keyed, new).await?)
}

/// Filtering and paging the lobby.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LobbyQuery {
    /// Only tables of this game.
    #[param(value_type = Option<crate::api::game::GameKind>)]
    pub game: Option<GameKind>,
    /// Only Klaverjassen tables with this `trump_obligation`.
    #[param(value_type = Option<crate::api::klaverjassen::TrumpObligation>, example = "amsterdam")]
    pub trump_obligation: Option<TrumpObligation>,
    /// Only Klaverjassen tables with this `undertrump`.
    #[param(value_type = Option<crate::api::klaverjassen::Undertrump>, example = "required")]
    pub undertrump: Option<Undertrump>,
    /// Only Klaverjassen tables with this `trump_choice`.
    #[param(value_type = Option<crate::api::klaverjassen::TrumpChoice>, example = "pass_round")]
    pub trump_choice: Option<TrumpChoice>,
    /// Only Klaverjassen tables with this `four_jacks` (200 or 100).
    #[param(value_type = Option<crate::api::options::FourJacks>, example = 100)]
    pub four_jacks: Option<FourJacks>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1..100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// The lobby: tables waiting for players, newest first; filtered by game
/// and by the Klaverjassen house rules.
#[utoipa::path(tag = "games", security(("bearer" = [])), params(LobbyQuery), responses(
    (status = 200, description = "A page of tables", body = Page<GameSummary>),
    Unauthenticated,
    (status = 422, description = "Unknown game, bad cursor or limit", body = Problem, content_type = "application/problem+json"),
))]
#[get("/games")]
pub async fn lobby(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    query: web::Query<LobbyQuery>,
) -> Result<web::Json<Page<GameSummary>>, ApiError> {
    let page = PageQuery::parse(query.cursor.as_deref(), query.limit)?;
    let filter = HouseRulesFilter {
        trump_obligation: query.trump_obligation,
        undertrump: query.undertrump,
        trump_choice: query.trump_choice,
        four_jacks: query.four_jacks,
    };
    let listing = tables::lobby(&state.app, query.game, filter, page).await?;
    Ok(web::Json(listing.into()))
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

/// The game as the caller may see it: its seat's view, or the spectator view.
/// Answers 304 when `If-None-Match` holds the current ETag. With
/// `wait_for_version=N` it is a long poll: it answers as soon as the version
/// passes N, or after `timeout_s` seconds with the current view; its token
/// is checked again before it answers, so a long poll whose player signed
/// out everywhere (which wakes it at once) or whose token expired meanwhile
/// answers 401.
#[utoipa::path(tag = "games", security(("bearer" = [])), params(("id" = Uuid, Path, description = "The game"), GameQuery),
    responses(
        (status = 200, description = "The caller's view", body = GameView, headers(("ETag" = String))),
        (status = 304, description = "Not modified since the ETag in If-None-Match"),
        Unauthenticated,
        NoSuchGame,
        BadLongPoll,
    ))]
#[get("/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: SignedToken,
    id: web::Path<Uuid>,
    query: web::Query<GameQuery>,
) -> Result<HttpResponse, ApiError> {
    let (caller, game) = read::view(
        &state.app,
        token.identity(),
        token.expires_at(),
        *id,
        query.wait_for_version,
        query.timeout_s,
    )
    .await?;
    let not_modified = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| etag_listed(v, game.version));
    if not_modified {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(game.version)))
            .finish());
    }
    respond(Answer::view(OK, &game, caller, None)?)
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
    params(("id" = Uuid, Path, description = "The game"), IdempotencyKey),
    responses(
        (status = 200, description = "Seated; the caller's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        NoSuchGame,
        (status = 409, description = "`game_full`, `seat_taken`, `already_seated` or `game_started`", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
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
    let body = body.0.unwrap_or_default();
    let asked = request::change(&req, caller.id, *id, &body, None);
    respond(seats::join(&state.app, asked, body.seat).await?)
}

/// Leaves the caller's seat before the game has started.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"), IdempotencyKey),
    responses(
        (status = 200, description = "Left; the caller's (now spectator) view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`not_seated`, or the host (who cannot leave)", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`game_started`", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
        KeyRefused,
    ))]
#[delete("/games/{id}/seats/me")]
pub async fn leave_seat(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let asked = request::change(&req, caller.id, *id, &(), None);
    respond(seats::leave(&state.app, asked).await?)
}

/// The dealer (Klaverjassen) or pothouder (Potverteren) deals; the same as
/// the move `{"type": "deal"}`.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"), IdempotencyKey),
    responses(
        (status = 200, description = "Dealt; the caller's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        IfMatchFailed,
        (status = 422, description = "Refused by the rules (`wrong_phase`, `not_your_turn`), with `legal_moves`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/deal")]
pub async fn deal(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let asked = request::change(&req, caller.id, *id, &(), None);
    respond(play::deal(&state.app, asked).await?)
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
    params(("id" = Uuid, Path, description = "The game"), IdempotencyKey, IfMatch),
    responses(
        (status = 200, description = "Accepted; the caller's view", body = GameView, headers(("ETag" = String))),
        Unauthenticated,
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`version_conflict`: expected_version is stale; `already_corrected`: a Klaverjassen report naming a seat whose revoke was just corrected (nothing changed)", body = Problem, content_type = "application/problem+json"),
        IfMatchFailed,
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
    let caller = Caller::of(&state.app, token.identity()).await?;
    let asked = request::change(&req, caller, *id, &*body, body.expected_version);
    respond(play::make_move(&state.app, asked, &body.mv).await?)
}
