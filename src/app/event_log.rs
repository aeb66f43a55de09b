//! The game's event log as a reader may see it now: every event exists for
//! every reader (sequence numbers have no gaps); what each shows is
//! redacted to what the reader may see.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::context::App;
use super::error::Error;
use super::read::load_with_every_record;
use crate::store::events;
use crate::table::events as redaction;

/// One accepted change.
pub struct Logged {
    /// Position in the log; the game's version the change made.
    pub seq: i64,
    /// `created`, `joined`, `left`, `deal`, `move`, `back`, `rematch` or
    /// `abandoned`.
    pub kind: String,
    /// The seat that acted.
    pub seat: Option<u8>,
    /// `player`, `bot` or `clock`.
    pub by: String,
    /// When the change was accepted.
    pub at: DateTime<Utc>,
    /// The change, redacted for the reader.
    pub data: serde_json::Value,
}

/// A page of the log.
pub struct LogPage {
    /// The events, oldest first.
    pub events: Vec<Logged>,
    /// Where the next page starts: the last `seq` here, or `after` when
    /// there is none.
    pub next_after: i64,
}

/// At most `limit` events (1..500, default 100) of game `id` after
/// sequence number `after` (default 0: from the start), as `reader` may
/// see them.
///
/// # Errors
/// [`Error::Invalid`] for `after` or `limit` out of range;
/// [`Error::NotFound`]; the database's.
pub async fn page(
    app: &App,
    reader: Uuid,
    id: Uuid,
    after: Option<i64>,
    limit: Option<u32>,
) -> Result<LogPage, Error> {
    let after = after.unwrap_or(0);
    if after < 0 {
        return Err(Error::invalid("after: 0 or more"));
    }
    let limit = match limit {
        None => 100,
        Some(n @ 1..=500) => i64::from(n),
        Some(_) => return Err(Error::invalid("limit: 1 to 500")),
    };
    let mut conn = app.store.acquire().await?;
    super::read::may_watch(&mut conn, id, reader).await?;
    let game = load_with_every_record(&mut conn, app, id).await?;
    let rows = events::list(&mut conn, id, after, limit).await?;
    let next_after = rows.last().map_or(after, |r| r.seq);
    let seat = game.seat_of(reader);
    let events = rows
        .into_iter()
        .map(|row| {
            let payload =
                serde_json::from_str(&row.payload).map_err(|e| Error::Internal(e.to_string()))?;
            Ok(Logged {
                seq: row.seq,
                kind: row.kind,
                seat: row.seat,
                by: row.actor.unwrap_or_else(|| "player".to_owned()),
                at: DateTime::from_timestamp_micros(row.created_at).unwrap_or_default(),
                data: redaction::redact(&game, seat, payload),
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(LogPage { events, next_after })
}
