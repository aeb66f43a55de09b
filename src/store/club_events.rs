//! Club evenings: the event rows (one JSON document each beside the columns
//! the lists and locks need), their players and their rounds' tables.

use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::games::Cursor;
use super::players::parse_uuid;
use super::{Backend, StoreError, id_text};
use crate::table::evening::event::{Event, EventStatus};

fn to_json(event: &Event) -> Result<String, StoreError> {
    serde_json::to_string(event).map_err(|source| StoreError::Unwritable {
        game: event.id,
        source,
    })
}

fn from_json(id: Uuid, text: &str) -> Result<Event, StoreError> {
    serde_json::from_str(text).map_err(|_| StoreError::Unreadable {
        game: id,
        what: "event",
    })
}

/// Inserts a new event, its players and its invite code.
pub async fn insert(conn: &mut AnyConnection, event: &Event) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO club_events \
         (id, organizer_id, status, private, invite_code, version, state, due_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $8)",
    )
    .bind(id_text(event.id))
    .bind(id_text(event.organizer))
    .bind(event.status.as_str())
    .bind(i64::from(event.settings.private))
    .bind(event.invite_code.as_deref())
    .bind(event.version)
    .bind(to_json(event)?)
    .bind(event.created_at)
    .execute(&mut *conn)
    .await?;
    write_players(conn, event).await
}

/// Writes `event` over its row (and its players), with work due at `due_at`.
pub async fn save(
    conn: &mut AnyConnection,
    event: &Event,
    due_at: Option<i64>,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE club_events SET status = $2, version = $3, state = $4, due_at = $5, updated_at = $6 \
         WHERE id = $1",
    )
    .bind(id_text(event.id))
    .bind(event.status.as_str())
    .bind(event.version)
    .bind(to_json(event)?)
    .bind(due_at)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    write_players(conn, event).await
}

async fn write_players(conn: &mut AnyConnection, event: &Event) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM club_event_players WHERE event_id = $1")
        .bind(id_text(event.id))
        .execute(&mut *conn)
        .await?;
    for member in event.entries.iter().flat_map(|e| &e.players) {
        sqlx::query("INSERT INTO club_event_players (event_id, player_id) VALUES ($1, $2)")
            .bind(id_text(event.id))
            .bind(id_text(member.id))
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Loads event `id`. With `lock`, the row stays locked until the
/// transaction ends (Postgres `FOR UPDATE`; a SQLite write transaction
/// holds the file's lock already).
pub async fn load(
    conn: &mut AnyConnection,
    backend: Backend,
    id: Uuid,
    lock: bool,
) -> Result<Option<Event>, StoreError> {
    let sql = if lock && backend == Backend::Postgres {
        "SELECT state FROM club_events WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT state FROM club_events WHERE id = $1"
    };
    let state: Option<String> = sqlx::query_scalar(sql)
        .bind(id_text(id))
        .fetch_optional(conn)
        .await?;
    state.map(|text| from_json(id, &text)).transpose()
}

/// The version of event `id`, if there is one (for long polls).
pub async fn version(conn: &mut AnyConnection, id: Uuid) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT version FROM club_events WHERE id = $1")
        .bind(id_text(id))
        .fetch_optional(conn)
        .await
}

/// Public open events, newest first, at most `limit` after `after`.
pub async fn open(
    conn: &mut AnyConnection,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<Event>, StoreError> {
    let (before_time, before_id) = match after {
        Some(c) => (c.created_at, id_text(c.id)),
        // Past every row: ids are lower-case hex, so "~" sorts after all of them.
        None => (i64::MAX, "~".to_owned()),
    };
    let rows = sqlx::query(
        "SELECT id, state FROM club_events \
         WHERE status = $1 AND private = 0 \
           AND (created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4",
    )
    .bind(EventStatus::Open.as_str())
    .bind(before_time)
    .bind(before_id)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            let id = parse_uuid(row.try_get::<String, _>("id")?)?;
            from_json(id, &row.try_get::<String, _>("state")?)
        })
        .collect()
}

/// The event with invite `code`, if any.
pub async fn of_invite(conn: &mut AnyConnection, code: &str) -> Result<Option<Uuid>, sqlx::Error> {
    let id: Option<String> =
        sqlx::query_scalar("SELECT id FROM club_events WHERE invite_code = $1")
            .bind(code)
            .fetch_optional(conn)
            .await?;
    id.map(parse_uuid).transpose()
}

/// The event a game is a table of, if any.
pub async fn of_game(conn: &mut AnyConnection, game: Uuid) -> Result<Option<Uuid>, sqlx::Error> {
    let id: Option<String> =
        sqlx::query_scalar("SELECT event_id FROM club_event_tables WHERE game_id = $1")
            .bind(id_text(game))
            .fetch_optional(conn)
            .await?;
    id.map(parse_uuid).transpose()
}

/// Records `game` as table `table` (from 1) of `round` of `event`; fails
/// on a second table of the same number (a round is started once).
pub async fn add_table(
    conn: &mut AnyConnection,
    event: Uuid,
    round: u32,
    table: u32,
    game: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO club_event_tables (event_id, round, table_no, game_id) VALUES ($1, $2, $3, $4)",
    )
    .bind(id_text(event))
    .bind(i64::from(round))
    .bind(i64::from(table))
    .bind(id_text(game))
    .execute(conn)
    .await?;
    Ok(())
}

/// Makes the work of event `event` due at `at`. Always written, even over
/// an earlier due mark: the write holds the event's row until the
/// transaction that finished a table commits, so the round change never
/// reads that table as still playing and then clears the mark.
pub async fn make_due(conn: &mut AnyConnection, event: Uuid, at: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE club_events SET due_at = $2 WHERE id = $1")
        .bind(id_text(event))
        .bind(at)
        .execute(conn)
        .await?;
    Ok(())
}

/// Up to `limit` events whose work is due at `now`, locked (on Postgres,
/// skipping those another instance holds).
pub async fn due(
    conn: &mut AnyConnection,
    backend: Backend,
    now: i64,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    let queries = (
        "SELECT id FROM club_events WHERE due_at <= $1 ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED",
        "SELECT id FROM club_events WHERE due_at <= $1 ORDER BY due_at LIMIT $2",
    );
    super::due_ids(conn, backend, queries, now, limit).await
}

/// Tells every instance that event `event` reached `version` (Postgres, at
/// the commit; on SQLite every waiter is this instance's), so that its long
/// polls and streams wake as a game's do.
pub async fn announce(
    conn: &mut AnyConnection,
    backend: Backend,
    event: Uuid,
    version: i64,
) -> Result<(), sqlx::Error> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    sqlx::query("SELECT 1 AS sent FROM (SELECT pg_notify($1, $2)) AS n")
        .bind(super::listen::CHANNEL)
        .bind(super::listen::payload(event, version, None))
        .execute(conn)
        .await?;
    Ok(())
}

/// How many of `games` have finished (or were abandoned).
pub async fn finished_tables(
    conn: &mut AnyConnection,
    games: &[Uuid],
) -> Result<usize, sqlx::Error> {
    let mut finished = 0;
    for game in games {
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM games WHERE id = $1")
            .bind(id_text(*game))
            .fetch_optional(&mut *conn)
            .await?;
        if matches!(status.as_deref(), Some("finished" | "abandoned")) {
            finished += 1;
        }
    }
    Ok(finished)
}

/// Whether `game` is a table of a running event at which `player` does not
/// sit: such a table has no spectators.
pub async fn watching_running_table(
    conn: &mut AnyConnection,
    game: Uuid,
    player: Uuid,
) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT 1 AS found FROM club_event_tables t JOIN club_events e ON e.id = t.event_id \
         WHERE t.game_id = $1 AND e.status = 'running' \
           AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = $1 AND s.player_id = $2)",
    )
    .bind(id_text(game))
    .bind(id_text(player))
    .fetch_optional(conn)
    .await?;
    Ok(found.is_some())
}

/// Whether any event has work due at `now` (a read, without a lock).
pub async fn any_due(conn: &mut AnyConnection, now: i64) -> Result<bool, sqlx::Error> {
    let found: Option<i64> =
        sqlx::query_scalar("SELECT 1 AS found FROM club_events WHERE due_at <= $1 LIMIT 1")
            .bind(now)
            .fetch_optional(conn)
            .await?;
    Ok(found.is_some())
}
