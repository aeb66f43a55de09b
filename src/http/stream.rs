//! Live updates: a Server-Sent Events stream of the caller's view, and the
//! wait behind the long-poll of `GET /v1/games/{id}?wait_for_version=N`.

use std::time::Duration;

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use futures_util::stream;
use uuid::Uuid;

use super::AppState;
use super::error::no_game;
use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, SignedToken};
use crate::notify::Wake;
use crate::store::games;
use crate::store::record::game_from_row;
use crate::table::Game;

/// The game as stored now.
pub async fn load(state: &AppState, id: Uuid) -> Result<Game, ApiError> {
    let mut conn = state.store.acquire().await?;
    load_on(&mut conn, state, id).await
}

/// The game as stored now, read on `conn`.
pub async fn load_on(
    conn: &mut sqlx::AnyConnection,
    state: &AppState,
    id: Uuid,
) -> Result<Game, ApiError> {
    Ok(game_from_row(&row_on(conn, state, id).await?)?)
}

/// [`load_on`] with every finished record, the oldest included, where it
/// holds only the recent ones ([`games::RECENT_RECORDS`]): for the event
/// log, which shows every round's cards.
pub async fn load_with_every_record(
    conn: &mut sqlx::AnyConnection,
    state: &AppState,
    id: Uuid,
) -> Result<Game, ApiError> {
    let mut row = row_on(conn, state, id).await?;
    games::read_all_records(conn, &mut row).await?;
    Ok(game_from_row(&row)?)
}

/// Game `id`'s row as stored now, read on `conn`; a 404 when there is none.
async fn row_on(
    conn: &mut sqlx::AnyConnection,
    state: &AppState,
    id: Uuid,
) -> Result<games::GameRow, ApiError> {
    games::load(conn, state.store.backend(), id, false)
        .await?
        .ok_or_else(|| no_game(id))
}

/// Game `id` read for the bearer of `token`, whose check comes in the
/// game's own statement ([`SignedToken`]); a 401 still comes before a 404.
pub async fn load_as(
    state: &AppState,
    token: &SignedToken,
    id: Uuid,
) -> Result<(AuthPlayer, Game), ApiError> {
    let Some(player) = token.player() else {
        let mut conn = state.store.acquire().await?;
        let caller = token.check(state, &mut conn).await?;
        let game = load_on(&mut conn, state, id).await?;
        return Ok((caller, game));
    };
    let backend = state.store.backend();
    let (mut conn, read) = state
        .store
        .acquire_with(async |conn| games::load_for(conn, backend, id, false, Some(player)).await)
        .await?;
    let Some((row, found)) = read else {
        token.check(state, &mut conn).await?;
        return Err(no_game(id));
    };
    let caller = token.accept(state, &mut conn, found).await?;
    // Given back before the game is decoded and its view built.
    drop(conn);
    Ok((caller, game_from_row(&row)?))
}

/// Waits until game `id` passes `version` or `timeout` ends, and returns it then.
pub async fn wait_past(
    state: &AppState,
    id: Uuid,
    version: i64,
    timeout: Duration,
) -> Result<Game, ApiError> {
    let mut waiter = state.notifier.subscribe(id).await;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        // Load after subscribing, so a change in between is not missed.
        let game = load(state, id).await?;
        if game.version > version {
            return Ok(game);
        }
        match tokio::time::timeout_at(deadline, waiter.wake()).await {
            Ok(Wake::Changed | Wake::Recheck) => continue,
            Ok(Wake::Shutdown) | Err(_) => return Ok(game),
        }
    }
}

/// The most live streams (`GET /v1/games/{id}/stream`) one player may hold
/// open on one instance: a table's view on a phone, a tablet and a few
/// spectated tables, while a client cannot open thousands, each of which
/// reloads its game on every change.
pub const STREAMS_PER_PLAYER: u32 = 16;

/// The live streams each player holds on this instance.
#[derive(Debug, Default)]
pub struct OpenStreams(std::sync::Mutex<std::collections::HashMap<Uuid, u32>>);

impl OpenStreams {
    /// Counts a new stream of `player`'s, or refuses it past
    /// [`STREAMS_PER_PLAYER`]; the count goes down when the guard drops.
    fn open(self: &std::sync::Arc<Self>, player: Uuid) -> Result<StreamGuard, ApiError> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(player).or_default();
        if *count >= STREAMS_PER_PLAYER {
            return Err(ApiError::TooManyStreams(STREAMS_PER_PLAYER));
        }
        *count += 1;
        Ok(StreamGuard {
            streams: std::sync::Arc::clone(self),
            player,
        })
    }
}

/// One counted stream; uncounted when the stream ends or its client goes.
#[derive(Debug)]
struct StreamGuard {
    streams: std::sync::Arc<OpenStreams>,
    player: Uuid,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut open = self.streams.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.player) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.player);
            }
        }
    }
}

struct Stream {
    _counted: StreamGuard,
    state: web::Data<AppState>,
    id: Uuid,
    caller: Uuid,
    last: i64,
    waiter: crate::notify::Subscription,
    done: bool,
}

impl Stream {
    /// The next chunk: a view event, a keep-alive comment, or the end.
    async fn next(mut self) -> Option<(Result<Bytes, ApiError>, Stream)> {
        loop {
            if self.done {
                return None;
            }
            let game = match load(&self.state, self.id).await {
                Ok(game) => game,
                Err(error) => {
                    self.done = true;
                    tracing::warn!(%error, "stream ends: game could not be loaded");
                    return None;
                }
            };
            if game.version > self.last {
                self.last = game.version;
                // The view written into the frame itself (empty data if it
                // could not be written).
                let mut event = format!("id: {}\nevent: view\ndata: ", game.version).into_bytes();
                let data = event.len();
                if crate::api::game::write_view_json(&game, Some(self.caller), &mut event).is_err()
                {
                    event.truncate(data);
                }
                event.extend_from_slice(b"\n\n");
                return Some((Ok(Bytes::from(event)), self));
            }
            let keep_alive = self.state.sse_keep_alive;
            match tokio::time::timeout(keep_alive, self.waiter.wake()).await {
                Ok(Wake::Changed | Wake::Recheck) => continue,
                Ok(Wake::Shutdown) => {
                    self.done = true;
                    return Some((
                        Ok(Bytes::from_static(b"event: shutdown\ndata: {}\n\n")),
                        self,
                    ));
                }
                Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self)),
            }
        }
    }
}

/// A stream of the caller's view (`text/event-stream`): one `view` event each
/// time the game's version changes, with the version as the event id. The
/// first event is the current view; with `Last-Event-ID: N` it comes only
/// when the game is past N, so a client that reconnects misses nothing (a
/// client that missed versions gets the current view at once). A comment
/// line every 15 s keeps proxies from closing an idle stream; a `shutdown`
/// event ends it when the server stops.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           ("Last-Event-ID" = Option<i64>, Header, description = "The last version seen: resume after it", minimum = 0)),
    responses(
        (status = 200, description = "`text/event-stream`: `id: <version>`, `event: view`, `data: <the caller's view, as GET /v1/games/{id}>`",
            content_type = "text/event-stream", body = String),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Last-Event-ID is not a version", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`, or `too_many_streams`: the caller holds 16 live streams on this instance already", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/stream")]
pub async fn game_stream(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = *id;
    let last = match req.headers().get("Last-Event-ID") {
        None => 0,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|v| *v >= 0)
            .ok_or_else(|| ApiError::validation("Last-Event-ID: a game version (0 or more)"))?,
    };
    let counted = state.streams.open(caller.id)?;
    let waiter = state.notifier.subscribe(id).await;
    load(&state, id).await?;
    let start = Stream {
        _counted: counted,
        state: state.clone(),
        id,
        caller: caller.id,
        last,
        waiter,
        done: false,
    };
    let events = stream::unfold(start, Stream::next);
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}
