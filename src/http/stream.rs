//! Live updates: a Server-Sent Events stream of the caller's view.

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use futures_util::stream;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::open_streams::StreamGuard;
use super::problems::{NoSuchGame, Unauthenticated};
use super::state::AppState;
use crate::app::read::{load, load_to_show};
use crate::notify::Wake;

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
            let game = match load_to_show(&self.state.app, self.id).await {
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
        Unauthenticated,
        NoSuchGame,
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
    let waiter = state.app.notifier.subscribe(id).await;
    load(&state.app, id).await?;
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
