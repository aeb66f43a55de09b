//! Live updates: a Server-Sent Events stream of the caller's view.

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use futures_util::stream;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::SignedToken;
use super::open_streams::StreamGuard;
use super::problems::{NoSuchGame, Unauthenticated};
use super::state::AppState;
use crate::app::error::Error;
use crate::app::read::load_as;
use crate::app::sign_in;
use crate::auth::Identity;
use crate::notify::Wake;

struct Stream {
    _counted: StreamGuard,
    /// The caller is at the game while the stream is held (notifications).
    _watching: crate::app::notifications::Watching,
    state: web::Data<AppState>,
    id: Uuid,
    caller: Uuid,
    /// The token the stream was opened with, checked again before every
    /// event, and when it expires (Unix seconds).
    identity: Identity,
    expires_at: i64,
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
            // The token is checked in the game's own statement: a stream
            // whose player signed out everywhere since sends no more views.
            let read = load_as(&self.state.app, &self.identity, self.id)
                .await
                .and_then(|read| {
                    sign_in::unexpired(&self.state.app, self.expires_at).map(|()| read)
                });
            let game = match read {
                Ok((_, game)) => game,
                Err(Error::Token(refused)) => return Some((Ok(signed_out(&refused)), self.end())),
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
                Ok(Wake::Changed | Wake::Recheck | Wake::SignedOut) => continue,
                Ok(Wake::Shutdown) => {
                    self.done = true;
                    return Some((
                        Ok(Bytes::from_static(b"event: shutdown\ndata: {}\n\n")),
                        self,
                    ));
                }
                Err(_) => {
                    // An idle stream ends when its token expires, at its
                    // next keep-alive (a clock read, no statement).
                    if let Err(Error::Token(refused)) =
                        sign_in::unexpired(&self.state.app, self.expires_at)
                    {
                        return Some((Ok(signed_out(&refused)), self.end()));
                    }
                    return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self));
                }
            }
        }
    }

    /// This stream, to end after the chunk it sends now.
    fn end(mut self) -> Stream {
        self.done = true;
        self
    }
}

/// The last event of a stream whose token no longer holds: `signed_out`,
/// with the problem a request with that token now gets.
fn signed_out(refused: &crate::auth::TokenError) -> Bytes {
    let problem = ApiError::from(*refused).problem();
    let data = serde_json::to_string(&problem).unwrap_or_else(|_| "{}".into());
    Bytes::from(format!("event: signed_out\ndata: {data}\n\n"))
}

/// A stream of the caller's view (`text/event-stream`): one `view` event each
/// time the game's version changes, with the version as the event id. The
/// first event is the current view; with `Last-Event-ID: N` it comes only
/// when the game is past N, so a client that reconnects misses nothing (a
/// client that missed versions gets the current view at once). A comment
/// line every 15 s keeps proxies from closing an idle stream; a `shutdown`
/// event ends it when the server stops. The token is checked again before
/// every event: once its player signed out everywhere (which wakes the
/// stream at once) or it expired (noticed at the latest at the next
/// keep-alive), a `signed_out` event with the 401's problem ends the
/// stream.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
           ("Last-Event-ID" = Option<i64>, Header, description = "The last version seen: resume after it", minimum = 0)),
    responses(
        (status = 200, description = "`text/event-stream`: `id: <version>`, `event: view`, `data: <the caller's view, as GET /v1/games/{id}>`; `: keep-alive` comments; `event: shutdown` when the server stops; `event: signed_out`, `data: <the problem of a 401 invalid_token>` when the token expired or its player signed out everywhere, after which the stream ends",
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
    token: SignedToken,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = *id;
    let caller = sign_in::authenticate(&state.app, token.identity()).await?;
    let last = match req.headers().get("Last-Event-ID") {
        None => 0,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|v| *v >= 0)
            .ok_or_else(|| ApiError::validation("Last-Event-ID: a game version (0 or more)"))?,
    };
    let counted = state.streams.open(caller)?;
    let waiter = state.app.notifier.subscribe_as(id, caller).await;
    crate::app::read::load(&state.app, id).await?;
    let start = Stream {
        _counted: counted,
        _watching: state.app.notifications.presence.watch(caller, id),
        state: state.clone(),
        id,
        caller,
        identity: token.identity().clone(),
        expires_at: token.expires_at(),
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
