//! The append-only event log of every game.

use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::id_text;
use super::players::parse_uuid;

/// One accepted change to a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    /// Position in the game's log; equal to the version the change made.
    pub seq: i64,
    /// Who made the change, if a player did.
    pub player_id: Option<Uuid>,
    /// The seat that acted, if any.
    pub seat: Option<u8>,
    /// What kind of change (`created`, `joined`, `left`, `deal`, `move`).
    pub kind: String,
    /// The change, JSON, unredacted: the HTTP layer redacts it per caller.
    pub payload: String,
    /// When it was made, Unix microseconds: the change's own time (whole
    /// milliseconds), given by the application.
    pub created_at: i64,
    /// Who made it: `None` (a player), `bot` or `clock`.
    pub actor: Option<String>,
}

/// The table and columns of an event's `INSERT`, in the order the game's id
/// and then [`bind_fields`] bind them.
macro_rules! event_columns {
    () => {
        "game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor)"
    };
}
pub(super) use event_columns;

/// Appends an event. On Postgres a change's event goes in with the game's
/// row and the change's announcement (`games::update_announcing`).
pub async fn append(
    conn: &mut AnyConnection,
    game: Uuid,
    event: &EventRow,
) -> Result<(), sqlx::Error> {
    let insert = sqlx::query(concat!(
        "INSERT INTO ",
        event_columns!(),
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    ));
    bind_fields(insert.bind(id_text(game)), event)
        .execute(conn)
        .await?;
    Ok(())
}

/// Binds `event`'s fields after the game's id, in the order of
/// [`event_columns`]: `seq`, `player_id`, `seat`, `kind`, `payload`, `created_at`,
/// `actor`.
pub(super) fn bind_fields<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    event: &'q EventRow,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    query
        .bind(event.seq)
        .bind(event.player_id.map(id_text))
        .bind(event.seat.map(i64::from))
        .bind(&event.kind)
        .bind(&event.payload)
        .bind(event.created_at)
        .bind(event.actor.clone())
}

/// The events after `after`, oldest first, at most `limit`.
pub async fn list(
    conn: &mut AnyConnection,
    game: Uuid,
    after: i64,
    limit: i64,
) -> Result<Vec<EventRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT seq, player_id, seat, kind, payload, created_at, actor FROM game_events \
         WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    )
    .bind(id_text(game))
    .bind(after)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(EventRow {
                seq: r.try_get("seq")?,
                player_id: r
                    .try_get::<Option<String>, _>("player_id")?
                    .map(parse_uuid)
                    .transpose()?,
                seat: r
                    .try_get::<Option<i64>, _>("seat")?
                    .map(|s| u8::try_from(s).map_err(|e| sqlx::Error::Decode(Box::new(e))))
                    .transpose()?,
                kind: r.try_get("kind")?,
                payload: r.try_get("payload")?,
                created_at: r.try_get("created_at")?,
                actor: r.try_get("actor")?,
            })
        })
        .collect()
}
