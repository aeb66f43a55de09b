//! The event log over HTTP: every accepted change of a game, redacted to
//! what the caller may see now.

use actix_web::{get, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::{NoSuchGame, Unauthenticated};
use super::state::AppState;
use crate::app::event_log;

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
    /// away), `rematch` (the next table was made; its id, `data.game`, only
    /// for the players who sat at the table) or `abandoned` (closed
    /// after waiting too long).
    #[schema(example = "move")]
    pub kind: String,
    /// The seat that acted.
    #[schema(example = 0)]
    #[schema(required = true)]
    pub seat: Option<u8>,
    /// Who made the change: `player`, `bot` (a computer player) or `clock`
    /// (a move made for a seat whose clock ran out or that is away, or a
    /// table closed after waiting too long).
    #[schema(example = "player")]
    pub by: String,
    /// When the change was made, to the millisecond (a computer player's
    /// move: its time for a move after its turn fell due, docs/bots.md).
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
        Unauthenticated,
        NoSuchGame,
        (status = 422, description = "Bad `after` or `limit`", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/events")]
pub async fn game_events(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<web::Json<EventPage>, ApiError> {
    let page = event_log::page(&state.app, caller.id, *id, query.after, query.limit).await?;
    let events = page
        .events
        .into_iter()
        .map(|logged| EventView {
            seq: logged.seq,
            kind: logged.kind,
            seat: logged.seat,
            by: logged.by,
            at: logged.at,
            data: logged.data,
        })
        .collect();
    Ok(web::Json(EventPage {
        events,
        next_after: page.next_after,
    }))
}
