//! Writing game rows: a new game, a change (with its event, announced to
//! every instance on Postgres), seats taken and freed, and when automatic
//! work is due.

use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection};
use uuid::Uuid;

use super::GameRow;
use super::records::{add_records, insert_records};
use crate::store::notifications::{Notification, bind_outbox, outbox_insert};
use crate::store::{Backend, Store, events, id_text, listen, now_micros};

/// Stores a new game (its seats are added with [`add_seat`]).
pub async fn insert(conn: &mut AnyConnection, game: &GameRow) -> Result<(), sqlx::Error> {
    let now = now_micros();
    let records = &game.records;
    sqlx::query(
        "INSERT INTO games (id, kind, status, version, host_id, options, state, fairness, created_at, updated_at, automation, due_at, deals_stored) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(id_text(game.id))
    .bind(&game.kind)
    .bind(&game.status)
    .bind(game.version)
    .bind(id_text(game.host_id))
    .bind(&game.options)
    .bind(game.state.as_deref())
    .bind(game.fairness.as_deref())
    .bind(game.created_at)
    .bind(now)
    .bind(game.automation.as_deref())
    .bind(game.due_at)
    .bind(records.len() as i64)
    .execute(&mut *conn)
    .await?;
    insert_records(conn, game.id, records, 0).await
}

/// The `UPDATE` of [`update`]: `$1` to `$8` the fields, `$9` the id.
macro_rules! update_game {
    () => {
        "UPDATE games SET status = $1, version = $2, state = $3, fairness = $4, updated_at = $5, \
         automation = $6, due_at = $7, deals_stored = $8 WHERE id = $9"
    };
}

/// Writes a game's status, version, state, automation and when work is due.
/// Only the live part of the state is rewritten; finished records the row
/// does not hold yet are added to `game_deals` (one row on the move that
/// finishes a deal, all of them for a row still in the old layout).
///
/// The row is written only while it is still at `game.version - 1`, the
/// version the change was made on: returns whether it was (as
/// [`update_announcing`]).
pub async fn update(conn: &mut AnyConnection, game: &GameRow) -> Result<bool, sqlx::Error> {
    let records = add_records(conn, game).await?;
    let written = bind_update(
        sqlx::query(concat!(update_game!(), " AND version = $10")),
        game,
        records,
    )
    .bind(game.version - 1)
    .execute(conn)
    .await?;
    Ok(written.rows_affected() == 1)
}

/// [`update`] and the change's `event` in one statement, with the change's
/// announcement to every instance (`listen`: the game reached the event's
/// version, with automatic work due at `due_at`), which Postgres delivers
/// at the commit. Postgres only (a data-modifying `WITH`); one round trip
/// where [`update`] and `events::append` take two.
///
/// The row is written only while it is still at `game.version - 1`, the
/// version the change was made on: returns whether it was. Under the
/// row's lock it always is; a change made on an unlocked read
/// (src/app/change.rs) finds out here whether another came first, and
/// then nothing is written, its notifications (`caused`, written to the
/// outbox with the change) included.
async fn update_announcing(
    conn: &mut AnyConnection,
    game: &GameRow,
    event: &events::EventRow,
    due_at: Option<i64>,
    caused: &[(Notification, i64)],
) -> Result<bool, sqlx::Error> {
    let records = add_records(conn, game).await?;
    let mut statement = concat!(
        "WITH updated AS (",
        update_game!(),
        " AND version = $19 RETURNING id), appended AS (",
        "INSERT INTO ",
        events::event_columns!(),
        " SELECT id, $10, $11, $12, $13, $14, $15, $16 FROM updated RETURNING seq)"
    )
    .to_owned();
    if !caused.is_empty() {
        let told = outbox_insert(caused.len(), 20);
        statement += &format!(", told AS ({told} WHERE EXISTS (SELECT 1 FROM appended))");
    }
    statement += " SELECT pg_notify($17, $18) FROM appended";
    let query = bind_update(sqlx::query(sqlx::AssertSqlSafe(statement)), game, records);
    // Read to the end: the statement commits on its own only after its row
    // is sent, so an answer taken at the row (`fetch_optional`) could
    // acknowledge a change whose commit then failed, the server shutting
    // down for a failover, say. The commit's outcome comes with the end.
    let announced = events::bind_fields(query, event)
        .bind(listen::CHANNEL)
        .bind(listen::payload(game.id, event.seq, due_at))
        .bind(game.version - 1);
    let announced = bind_outbox(announced, caused).fetch_all(conn).await?;
    Ok(!announced.is_empty())
}

/// Writes a change: the game's row ([`update`]) and the change's `event`,
/// announced on Postgres ([`update_announcing`]: in one statement), only
/// while the row is still at the version the change was made on; returns
/// whether it was (nothing is written when not). On SQLite, call it in a
/// write transaction.
pub async fn write_change(
    conn: &mut AnyConnection,
    backend: Backend,
    game: &GameRow,
    event: &events::EventRow,
    due_at: Option<i64>,
) -> Result<bool, sqlx::Error> {
    match backend {
        Backend::Postgres => update_announcing(conn, game, event, due_at, &[]).await,
        Backend::Sqlite => {
            if !update(conn, game).await? {
                return Ok(false);
            }
            events::append(conn, game.id, event).await?;
            Ok(true)
        }
    }
}

/// [`write_change`] in a transaction of its own, for a change that adds no
/// finished record (`game.deals_stored` is the number of its records).
/// Returns whether the row was written (only at the version the change was
/// made on).
///
/// On Postgres that is [`update_announcing`]'s one statement. On SQLite
/// the transaction is sent to the writer connection's thread as one
/// message: `BEGIN IMMEDIATE`, the row's `UPDATE`, the event's `INSERT`
/// (only if the `UPDATE` wrote the row), the outbox's (only if the event's
/// wrote its row) and `COMMIT`. Sent one by one, each statement's answer
/// would wait for the request's HTTP worker to take it up and send the
/// next, and the writer, which every write queues for, is held through all
/// of it. The SQLite write runs to its end even if the
/// request is dropped; on an error the connection is closed, which rolls
/// back whatever the transaction began.
///
/// `caused`, the notifications the change causes, go to the outbox with
/// it ([`crate::store::notifications::enqueue`]'s rows).
pub async fn write_change_alone(
    store: &Store,
    game: GameRow,
    event: events::EventRow,
    due_at: Option<i64>,
    caused: Vec<(Notification, i64)>,
) -> Result<bool, sqlx::Error> {
    write_alone(store, None, game, event, due_at, caused).await
}

/// [`write_change_alone`] for a change made on a game read on `read`: on
/// Postgres the write goes on that same connection. sqlx pings every
/// connection given back to its pool, so each one a request takes costs
/// Postgres a round trip of its own; the change is worked out between the
/// read and the write without waiting for anything, so holding the
/// connection through it keeps nothing else waiting on this worker. On
/// SQLite `read` is given back and the write goes to the writer.
pub async fn write_change_read_on(
    store: &Store,
    read: PoolConnection<Any>,
    game: GameRow,
    event: events::EventRow,
    due_at: Option<i64>,
    caused: Vec<(Notification, i64)>,
) -> Result<bool, sqlx::Error> {
    write_alone(store, Some(read), game, event, due_at, caused).await
}

async fn write_alone(
    store: &Store,
    read: Option<PoolConnection<Any>>,
    game: GameRow,
    event: events::EventRow,
    due_at: Option<i64>,
    caused: Vec<(Notification, i64)>,
) -> Result<bool, sqlx::Error> {
    if game.deals_stored != Some(game.records.len() as i64) {
        return Err(sqlx::Error::Protocol(format!(
            "game {}: a change that adds a finished record needs a transaction",
            game.id
        )));
    }
    if store.backend() == Backend::Postgres {
        let mut conn = match read {
            Some(conn) => conn,
            None => store.acquire().await?,
        };
        return update_announcing(&mut conn, &game, &event, due_at, &caused).await;
    }
    drop(read);
    let mut conn = store.acquire_writer().await?;
    let write = async move {
        let mut statement = concat!(
            "BEGIN IMMEDIATE; ",
            update_game!(),
            " AND version = $10; INSERT INTO ",
            events::event_columns!(),
            " SELECT $9, $11, $12, $13, $14, $15, $16, $17 WHERE changes() = 1 RETURNING seq; "
        )
        .to_owned();
        if !caused.is_empty() {
            // `changes()`: the rows the event's `INSERT` wrote.
            let told = outbox_insert(caused.len(), 18);
            statement += &format!("{told} WHERE changes() = 1; ");
        }
        statement += "COMMIT";
        let query = bind_update(
            sqlx::query(sqlx::AssertSqlSafe(statement)),
            &game,
            game.records.len(),
        )
        .bind(game.version - 1);
        let written = bind_outbox(events::bind_fields(query, &event), &caused)
            .fetch_all(&mut *conn)
            .await;
        match written {
            Ok(rows) => Ok(rows.len() == 1),
            Err(error) => {
                conn.close_on_drop();
                Err(error)
            }
        }
    };
    tokio::spawn(write)
        .await
        .map_err(|e| sqlx::Error::Protocol(format!("the write stopped: {e}")))?
}

/// Binds the fields of [`update_game`], `$1` to `$9`.
fn bind_update<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    game: &'q GameRow,
    records: usize,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    query
        .bind(&game.status)
        .bind(game.version)
        .bind(game.state.as_deref())
        .bind(game.fairness.as_deref())
        .bind(now_micros())
        .bind(game.automation.as_deref())
        .bind(game.due_at)
        .bind(records as i64)
        .bind(id_text(game.id))
}

/// Seats `player` at `seat`.
pub async fn add_seat(
    conn: &mut AnyConnection,
    game: Uuid,
    seat: u8,
    player: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO game_seats (game_id, seat, player_id) VALUES ($1, $2, $3)")
        .bind(id_text(game))
        .bind(i64::from(seat))
        .bind(id_text(player))
        .execute(conn)
        .await?;
    Ok(())
}

/// Frees `seat`.
pub async fn remove_seat(
    conn: &mut AnyConnection,
    game: Uuid,
    seat: u8,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM game_seats WHERE game_id = $1 AND seat = $2")
        .bind(id_text(game))
        .bind(i64::from(seat))
        .execute(conn)
        .await?;
    Ok(())
}

/// Sets when work is due on a game without changing it (a stale mark).
pub async fn set_due(
    conn: &mut AnyConnection,
    id: Uuid,
    due_at: Option<i64>,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET due_at = $1 WHERE id = $2")
        .bind(due_at)
        .bind(id_text(id))
        .execute(conn)
        .await?;
    Ok(())
}
