//! One accepted change to a game is written whole or not at all. In a
//! transaction: lock the game, replay or refuse a reused `Idempotency-Key`,
//! check the caller's version, apply the change through the rules, bump the
//! version, append the event, record the answer for the key, commit; any
//! failure rolls everything back. A change that writes only the game's row
//! and its event is first made on an unlocked read and written only while
//! the game is still at the version read (`change_unlocked`).

use actix_web::http::header::TryIntoHeaderPair;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use serde::Serialize;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::AppState;
use super::error::{ApiError, no_game};
use super::extract::{AuthPlayer, SignedToken};
use crate::store::events::EventRow;
use crate::store::idempotency::{self, StoredResponse};
use crate::store::record::{changed_row, game_from_row};
use crate::store::{Tx, cleanup, games};
use crate::table::{Game, GameError, SeatedPlayer};

/// The longest `Idempotency-Key` accepted.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// What a change records in the event log.
pub struct Event {
    /// `joined`, `left`, `deal` or `move`.
    pub kind: &'static str,
    /// The seat that acted.
    pub seat: Option<u8>,
    /// The change itself (public parts only; see the events endpoint).
    pub payload: serde_json::Value,
    /// A seat to add or free in the seats table.
    pub seat_change: Option<SeatChange>,
}

/// A change to who sits where.
pub enum SeatChange {
    /// The caller took this seat.
    Took(u8),
    /// The caller left this seat.
    Left(u8),
    /// A computer player, a new player row, took this seat.
    Bot(u8, SeatedPlayer),
}

/// A change's event, as the log records it.
impl Event {
    /// An event that changes no seat.
    pub fn new(kind: &'static str, seat: Option<u8>, payload: serde_json::Value) -> Event {
        Event {
            kind,
            seat,
            payload,
            seat_change: None,
        }
    }

    /// Whether the change sets the awaited seats' deadline anew: every
    /// change does but a seat's seed and a seat's `back`, which leave the
    /// game where it was, so that nobody holds a table by sending them.
    pub fn restarts_the_clock(&self) -> bool {
        let seed = self.payload.get("type").and_then(serde_json::Value::as_str) == Some("seed");
        !(seed || self.kind == "back")
    }
}

/// The caller's `Idempotency-Key`, checked.
pub fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    let key = value.to_str().ok().map(str::trim).filter(|k| {
        !k.is_empty() && k.len() <= IDEMPOTENCY_KEY_MAX && k.bytes().all(|b| b.is_ascii_graphic())
    });
    match key {
        Some(key) => Ok(Some(key.to_owned())),
        None => Err(ApiError::validation(format!(
            "Idempotency-Key: 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters"
        ))),
    }
}

/// The hash that ties a key to one request: method, path and body. Empty
/// without a key, since nothing is stored or compared then. The path is the
/// one the router reads (percent escapes of plain characters decoded), so a
/// retry spelt differently is still the same request.
pub fn request_hash(req: &HttpRequest, key: Option<&str>, body: &impl Serialize) -> String {
    if key.is_none() {
        return String::new();
    }
    let mut hasher = Sha256::new();
    hasher.update(req.method().as_str());
    hasher.update(b" ");
    hasher.update(req.match_info().as_str());
    hasher.update(b"\n");
    hasher.update(serde_json::to_vec(body).unwrap_or_default());
    crate::rules::fairness::to_hex(&hasher.finalize())
}

/// The first answer for `key`, if the key was used before: replayed when the
/// request is the same, refused when it is not.
pub async fn replay(
    conn: &mut sqlx::AnyConnection,
    caller: Uuid,
    key: Option<&str>,
    hash: &str,
    now: i64,
) -> Result<Option<HttpResponse>, ApiError> {
    let Some(key) = key else { return Ok(None) };
    let Some(stored) = idempotency::find(conn, caller, key, now).await? else {
        return Ok(None);
    };
    if stored.request_hash != hash {
        return Err(ApiError::IdempotencyMismatch);
    }
    let status =
        StatusCode::from_u16(stored.status).map_err(|e| ApiError::Internal(e.to_string()))?;
    let headers: Vec<(String, String)> = serde_json::from_str(&stored.headers).unwrap_or_default();
    Ok(Some(
        json_answer(status, headers)
            .insert_header(("Idempotent-Replayed", "true"))
            .body(stored.body),
    ))
}

/// A JSON answer with `status` and `headers`, ready for its body: the one
/// shape of a first answer and of its idempotent replay.
pub fn json_answer<H: TryIntoHeaderPair>(
    status: StatusCode,
    headers: impl IntoIterator<Item = H>,
) -> HttpResponseBuilder {
    let mut response = HttpResponse::build(status);
    for header in headers {
        response.insert_header(header);
    }
    response.content_type("application/json");
    response
}

/// `game` as `caller` sees it, as the JSON body of an answer.
pub fn view_json(game: &Game, caller: Uuid) -> Result<Vec<u8>, ApiError> {
    crate::api::game::view_json(game, Some(caller)).map_err(|e| ApiError::Internal(e.to_string()))
}

/// Records `response` as the answer for `key`.
#[expect(
    clippy::too_many_arguments,
    reason = "the answer's parts and the time it is kept from"
)]
pub async fn remember(
    tx: &mut Tx,
    caller: Uuid,
    key: Option<&str>,
    hash: String,
    status: StatusCode,
    headers: &[(&str, String)],
    body: &[u8],
    now: i64,
) -> Result<(), ApiError> {
    let Some(key) = key else { return Ok(()) };
    let body = std::str::from_utf8(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let stored = StoredResponse {
        request_hash: hash,
        status: status.as_u16(),
        headers: serde_json::to_string(&headers).unwrap_or_default(),
        body: body.to_owned(),
    };
    match idempotency::insert(tx, caller, key, &stored, now).await? {
        idempotency::Recorded::Yes => Ok(()),
        // Another request took the key while this one ran: a retry waits
        // for its original under the lock of the row both change, so this
        // is another request with the same key.
        idempotency::Recorded::Taken => Err(ApiError::IdempotencyMismatch),
    }
}

/// The most tables waiting for players one player may sit at when it makes
/// another (a new table, a quick match that makes one, a rematch): enough
/// for any club evening, while one player cannot fill the lobby, and every
/// quick match's look over it, with thousands of tables.
pub const WAITING_TABLES_PER_PLAYER: i64 = 20;

/// Refuses a new table for `player` who already waits at
/// [`WAITING_TABLES_PER_PLAYER`] tables (409 `too_many_tables`).
pub async fn room_for_a_new_table(tx: &mut Tx, player: Uuid) -> Result<(), ApiError> {
    if games::waiting_tables_of(tx, player).await? >= WAITING_TABLES_PER_PLAYER {
        return Err(ApiError::Conflict {
            code: "too_many_tables",
            detail: format!(
                "you wait at {WAITING_TABLES_PER_PLAYER} tables already: play, fill or leave one first"
            ),
        });
    }
    Ok(())
}

/// The game's ETag: its version, quoted. Written digit by digit, not with
/// `format!`, whose machinery took nearly five times the instructions, on
/// every answer with a game (docs/benchmarks.md, twenty-third session).
pub fn etag(version: i64) -> String {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(version);
    let mut tag = String::with_capacity(digits.len() + 2);
    tag.push('"');
    tag.push_str(digits);
    tag.push('"');
    tag
}

/// Who asks for a change: a player whose token was checked already, or the
/// player a signed token names, whose check comes in the change's own
/// transaction, in the statement that reads the game ([`SignedToken`]).
#[derive(Clone, Copy)]
pub struct Caller<'a> {
    /// The player.
    pub player: AuthPlayer,
    /// The token still to check.
    unconfirmed: Option<&'a SignedToken>,
}

impl From<AuthPlayer> for Caller<'_> {
    fn from(player: AuthPlayer) -> Self {
        Caller {
            player,
            unconfirmed: None,
        }
    }
}

impl<'a> Caller<'a> {
    /// The bearer of `token`, checked by the change; an external identity
    /// is checked now, on a connection of its own.
    ///
    /// # Errors
    /// As [`SignedToken::check`].
    pub async fn of(state: &AppState, token: &'a SignedToken) -> Result<Caller<'a>, ApiError> {
        match token.player() {
            Some(id) => Ok(Caller {
                player: AuthPlayer { id },
                unconfirmed: Some(token),
            }),
            None => {
                let mut conn = state.store.acquire().await?;
                Ok(token.check(state, &mut conn).await?.into())
            }
        }
    }
}

/// Applies `apply` to the game `id` for `caller` and answers with the
/// caller's new view.
///
/// A change without an `Idempotency-Key` is first made on an unlocked read
/// and written only if the game is still at the version it read
/// ([`change_unlocked`]): on Postgres two round trips where the
/// transaction takes four, and on SQLite the one writer is held only for
/// the writes. A change that another one overtook, or that writes other
/// rows than the game's own and its event (a seat, a finished deal's
/// record, a match's result), is made again in the transaction, on the
/// game as it is then: `apply` may run twice, and only the run that is
/// written counts.
pub async fn change_game<'a, B: Serialize>(
    state: &AppState,
    req: &HttpRequest,
    caller: impl Into<Caller<'a>>,
    id: Uuid,
    body: &B,
    expected_version: Option<i64>,
    mut apply: impl FnMut(&mut Game) -> Result<Event, GameError>,
) -> Result<HttpResponse, ApiError> {
    let caller = caller.into();
    // Refused after the token's check, so a bad token is 401 first.
    let key = idempotency_key(req);
    if matches!(key, Ok(None))
        && let Some(answer) =
            change_unlocked(state, req, caller, id, expected_version, &mut apply).await?
    {
        return Ok(answer);
    }
    let Caller {
        player: caller,
        unconfirmed,
    } = caller;
    let mut tx = state.store.begin_write().await?;
    let row = read_for_change(state, &mut tx, caller, unconfirmed, id, true).await?;
    let key = key?;
    let hash = request_hash(req, key.as_deref(), body);
    let row = row.ok_or_else(|| no_game(id))?;
    // Checked under the game's lock, so a retry racing its original waits for
    // it and then replays its answer.
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
    let (mut game, event) = apply_checked(state, req, &row, caller, expected_version, apply)?;
    let due_at = record_change(
        state,
        &mut tx,
        &mut game,
        &row,
        &event,
        Some(caller.id),
        None,
    )
    .await?;
    let body = view_json(&game, caller.id)?;
    let headers = [(header::ETAG.as_str(), etag(game.version))];
    remember(
        &mut tx,
        caller.id,
        key.as_deref(),
        hash,
        StatusCode::OK,
        &headers,
        &body,
        state.clock.now_micros(),
    )
    .await?;
    tx.commit().await?;
    after_commit(state, &game, &event, due_at, None);
    Ok(json_answer(StatusCode::OK, headers).body(body))
}

/// [`change_game`] on an unlocked read, written only while the game is
/// still at the version read (`games::write_change_alone`: on Postgres in
/// one statement, on SQLite in a write transaction sent as one message,
/// which holds the writer only for the writes). `None`
/// when the change must be made in a transaction instead: it writes more
/// than the game's row and its event, or another change came first
/// (nothing is written then). Refusals are answered from the game as
/// read, as if the request had come just before whatever changed it since.
async fn change_unlocked(
    state: &AppState,
    req: &HttpRequest,
    caller: Caller<'_>,
    id: Uuid,
    expected_version: Option<i64>,
    apply: impl FnOnce(&mut Game) -> Result<Event, GameError>,
) -> Result<Option<HttpResponse>, ApiError> {
    let mut conn = state.store.acquire().await?;
    let row = read_for_change(
        state,
        &mut conn,
        caller.player,
        caller.unconfirmed,
        id,
        false,
    )
    .await?
    .ok_or_else(|| no_game(id))?;
    let (mut game, event) =
        apply_checked(state, req, &row, caller.player, expected_version, apply)?;
    if event.seat_change.is_some() || super::friends::writes_after_change(&game) {
        return Ok(None);
    }
    let (new_row, due_at) = next_row(state, &mut game, &row, &event)?;
    if Some(new_row.records.len() as i64) != row.deals_stored {
        // A deal finished: its record is added in the transaction.
        return Ok(None);
    }
    let event_row = event_row(&event, game.version, Some(caller.player.id), None);
    let body = view_json(&game, caller.player.id)?;
    drop(conn);
    let written = games::write_change_alone(&state.store, new_row, event_row, due_at).await?;
    if !written {
        return Ok(None);
    }
    let headers = [(header::ETAG.as_str(), etag(game.version))];
    after_commit(state, &game, &event, due_at, None);
    Ok(Some(json_answer(StatusCode::OK, headers).body(body)))
}

/// The game a change is made on, read on `conn` (locked with `lock`), with
/// a token still to check checked in the same statement.
async fn read_for_change(
    state: &AppState,
    conn: &mut sqlx::AnyConnection,
    caller: AuthPlayer,
    unconfirmed: Option<&SignedToken>,
    id: Uuid,
    lock: bool,
) -> Result<Option<games::GameRow>, ApiError> {
    let read = games::load_for(
        conn,
        state.store.backend(),
        id,
        lock,
        unconfirmed.map(|_| caller.id),
    )
    .await?;
    if let Some(token) = unconfirmed {
        let found = match &read {
            Some((_, found)) => *found,
            None => cleanup::player_for_token(conn, caller.id).await?,
        };
        token.accept(state, conn, found).await?;
    }
    Ok(read.map(|(row, _)| row))
}

/// The game in `row` with `apply` applied for `caller`, after the checks
/// of the caller's `If-Match` and `expected_version`; and the change's event.
fn apply_checked(
    state: &AppState,
    req: &HttpRequest,
    row: &games::GameRow,
    caller: AuthPlayer,
    expected_version: Option<i64>,
    apply: impl FnOnce(&mut Game) -> Result<Event, GameError>,
) -> Result<(Game, Event), ApiError> {
    let now = state.clock.now_micros();
    let mut game = game_from_row(row)?;
    super::friends::release_reservations(&mut game, now);
    check_if_match(req, game.version)?;
    if let Some(expected) = expected_version
        && expected != game.version
    {
        return Err(ApiError::Conflict {
            code: "version_conflict",
            detail: format!(
                "expected_version is {expected} but the game is at version {}",
                game.version
            ),
        });
    }
    let event = apply(&mut game).map_err(|error| {
        // A refusal shows the legal moves of the game as it was, which
        // `apply` may have changed in part: read again from the row only
        // then, instead of a copy of the whole game made before every change.
        let mut before = match game_from_row(row) {
            Ok(before) => before,
            Err(unreadable) => return unreadable.into(),
        };
        super::friends::release_reservations(&mut before, now);
        refusal(&before, caller.id, error)
    })?;
    Ok((game, event))
}

/// The row that stores `game` after an accepted change to the game
/// `loaded` held: the version goes up by one, and the deadline and when
/// automatic work falls due are set; and when that is.
fn next_row(
    state: &AppState,
    game: &mut Game,
    loaded: &games::GameRow,
    event: &Event,
) -> Result<(games::GameRow, Option<i64>), ApiError> {
    game.version += 1;
    let created_at = loaded.created_at;
    let now = state.clock.now_micros();
    let due_at = game.schedule(created_at, now, event.restarts_the_clock());
    let mut row = changed_row(game, loaded)?;
    row.due_at = due_at;
    Ok((row, due_at))
}

/// The event log's row for `event`, the game's change to `version`.
fn event_row(event: &Event, version: i64, player: Option<Uuid>, actor: Option<&str>) -> EventRow {
    EventRow {
        seq: version,
        player_id: player,
        seat: event.seat,
        kind: event.kind.to_owned(),
        // Written into a buffer, as `to_string` does: `Display` writes the
        // same text through a formatter, one small piece at a time, and
        // took two and a half times the instructions (docs/benchmarks.md,
        // twenty-third session).
        payload: serde_json::to_string(&event.payload).expect("a JSON value always serialises"),
        created_at: 0,
        actor: actor.map(str::to_owned),
    }
}

/// Writes an accepted change inside `tx`: the version goes up by one, the
/// deadline and when automatic work falls due are set, the seat change and
/// the event are written, and (on Postgres) the change is announced. The
/// one path of a player's change and of an automatic move. `loaded` is the
/// game's row as loaded, locked, in `tx`. Returns when automatic work on
/// the game falls due, for [`after_commit`].
pub async fn record_change(
    state: &AppState,
    tx: &mut Tx,
    game: &mut Game,
    loaded: &games::GameRow,
    event: &Event,
    player: Option<Uuid>,
    actor: Option<&str>,
) -> Result<Option<i64>, ApiError> {
    let (row, due_at) = next_row(state, game, loaded, event)?;
    match event.seat_change {
        Some(SeatChange::Took(seat)) => {
            if let Some(player) = player {
                games::add_seat(tx, game.id, seat, player).await?;
            }
        }
        Some(SeatChange::Left(seat)) => games::remove_seat(tx, game.id, seat).await?,
        Some(SeatChange::Bot(seat, ref bot)) => {
            let level = bot.bot.map_or("basic", crate::table::Level::as_str);
            crate::store::players::insert_bot(tx, bot.id, &bot.name, level).await?;
            games::add_seat(tx, game.id, seat, bot.id).await?;
        }
        None => {}
    }
    let event = event_row(event, game.version, player, actor);
    // The row is locked, so it is at the version read.
    if !games::write_change(tx, state.store.backend(), &row, &event, due_at).await? {
        return Err(ApiError::Internal(format!(
            "game {}: changed under its lock",
            game.id
        )));
    }
    super::friends::after_change(tx, state.store.backend(), game).await?;
    Ok(due_at)
}

/// After a change's commit: wakes streams and long polls, and the scheduler
/// if the change made automatic work due at `due_at` (as [`record_change`]
/// returned it), and counts the move (`actor` `bot` or `clock` for an
/// automatic one).
pub fn after_commit(
    state: &AppState,
    game: &Game,
    event: &Event,
    due_at: Option<i64>,
    actor: Option<&str>,
) {
    state.notifier.publish(game.id, game.version);
    state.notifier.work_due(due_at);
    if matches!(event.kind, "deal" | "move") {
        let move_type = event.payload["type"].as_str().unwrap_or("unknown");
        state.metrics.count_move(game.kind.as_str(), move_type);
    }
    if let Some(actor) = actor {
        state.metrics.count_automatic(actor);
    }
    if event.kind == "abandoned" {
        state.metrics.count_abandoned();
    }
}

/// `If-Match` with another version than the game's is a 412.
fn check_if_match(req: &HttpRequest, version: i64) -> Result<(), ApiError> {
    let Some(value) = req.headers().get(header::IF_MATCH) else {
        return Ok(());
    };
    let value = value.to_str().unwrap_or_default();
    if etag_listed(value, version) {
        Ok(())
    } else {
        Err(ApiError::PreconditionFailed(format!(
            "If-Match {value} does not match the game's ETag {}",
            etag(version)
        )))
    }
}

/// Whether an `If-Match`/`If-None-Match` value lists the ETag of `version`
/// (or `*`). Weak tags compare equal to strong ones.
pub fn etag_listed(value: &str, version: i64) -> bool {
    let current = etag(version);
    value
        .split(',')
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag == current)
}

/// The caller as a player to seat: a token whose player is gone is invalid.
pub async fn seated_player(
    conn: &mut sqlx::AnyConnection,
    caller: AuthPlayer,
) -> Result<SeatedPlayer, ApiError> {
    let player = crate::store::players::get(conn, caller.id)
        .await?
        .ok_or(ApiError::Token(crate::auth::TokenError::Invalid))?;
    Ok(SeatedPlayer {
        id: player.id,
        name: player.name,
        bot: None,
    })
}

/// The API error for a refused change, with the caller's legal moves for a
/// refused move (computed on the unchanged game).
pub fn refusal(game: &Game, caller: Uuid, error: GameError) -> ApiError {
    let detail = error.to_string();
    match error {
        GameError::InvalidOptions(_) | GameError::InvalidMove(_) | GameError::NoSuchSeat(_) => {
            ApiError::Validation(detail)
        }
        GameError::GameFull => ApiError::Conflict {
            code: "game_full",
            detail,
        },
        GameError::SeatTaken(_) => ApiError::Conflict {
            code: "seat_taken",
            detail,
        },
        GameError::AlreadySeated(_) => ApiError::Conflict {
            code: "already_seated",
            detail,
        },
        GameError::GameStarted => ApiError::Conflict {
            code: "game_started",
            detail,
        },
        GameError::SeatReserved(_) => ApiError::Conflict {
            code: "seat_reserved",
            detail,
        },
        GameError::HostCannotLeave => ApiError::Forbidden {
            code: "forbidden",
            detail,
        },
        GameError::NotHost => ApiError::Forbidden {
            code: "forbidden",
            detail,
        },
        GameError::NoBot(_) => ApiError::NotFound(detail),
        GameError::NotSeated => ApiError::Forbidden {
            code: "not_seated",
            detail,
        },
        GameError::NotStarted => ApiError::MoveRefused {
            code: "wrong_phase",
            detail,
            legal_moves: serde_json::json!([]),
        },
        // A partner's report that arrived just after the correction: the
        // table moved on, so it is a conflict with the state, not a broken rule.
        GameError::Rules {
            code: code @ "already_corrected",
            ..
        } => ApiError::Conflict { code, detail },
        // A move only the host may make (`end_table`): not a broken rule of
        // play but a caller who is not allowed, 403 as for the host's other
        // actions.
        GameError::Rules {
            code: code @ "forbidden",
            ..
        } => ApiError::Forbidden { code, detail },
        GameError::Rules { code, .. } => ApiError::MoveRefused {
            code,
            detail,
            legal_moves: serde_json::to_value(game.legal_moves(Some(caller))).unwrap_or_default(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's ETag is its version in quotes, as clients and earlier
    /// releases' answers have it, whatever the number of digits.
    #[test]
    fn a_games_etag_is_its_version_in_quotes() {
        for version in [0, 1, 9, 10, 123_456_789, i64::MAX, -1, i64::MIN] {
            assert_eq!(etag(version), format!("\"{version}\""));
        }
        assert_eq!(etag(42), "\"42\"");
    }
}
