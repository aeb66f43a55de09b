//! Game rows and their seats.

use std::ops::Range;
use std::sync::Arc;

#[cfg(debug_assertions)]
use sqlx::Column;
use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use crate::json_text::JsonText;

use super::players::{PlayerRow, parse_uuid, player_from};
use super::{Backend, id_text, now_micros};
use super::{events, layout};

/// The `games` columns [`game_from`] reads, for the queries that read a
/// whole row: first in the row, in this order ([`column`] numbers them).
macro_rules! game_columns {
    () => {
        "id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored"
    };
}

/// Where each column of a row read whole is: [`game_columns`] first, then
/// what [`load_for`] reads beside them, in its statement's order. Read by
/// position, not by name: sqlx's `Any` row finds a name in a hash map, for
/// each of the 16 columns of every request's read.
mod column {
    pub const ID: usize = 0;
    pub const KIND: usize = 1;
    pub const STATUS: usize = 2;
    pub const VERSION: usize = 3;
    pub const HOST_ID: usize = 4;
    pub const OPTIONS: usize = 5;
    pub const STATE: usize = 6;
    pub const FAIRNESS: usize = 7;
    pub const CREATED_AT: usize = 8;
    pub const AUTOMATION: usize = 9;
    pub const DUE_AT: usize = 10;
    pub const DEALS_STORED: usize = 11;
    pub const RECORDS: usize = 12;
    pub const CALLER_GENERATION: usize = 13;
    pub const CALLER_SEEN: usize = 14;
    pub const SEATS: usize = 15;
    /// Postgres, under the lock only.
    pub const SNAPSHOT_VERSION: usize = 16;

    /// Each position with the name of its column in the statements, which
    /// debug builds (every test) check in each row read.
    #[cfg(debug_assertions)]
    pub const NAMED: [(usize, &str); 17] = [
        (ID, "id"),
        (KIND, "kind"),
        (STATUS, "status"),
        (VERSION, "version"),
        (HOST_ID, "host_id"),
        (OPTIONS, "options"),
        (STATE, "state"),
        (FAIRNESS, "fairness"),
        (CREATED_AT, "created_at"),
        (AUTOMATION, "automation"),
        (DUE_AT, "due_at"),
        (DEALS_STORED, "deals_stored"),
        (RECORDS, "records"),
        (CALLER_GENERATION, "caller_generation"),
        (CALLER_SEEN, "caller_seen"),
        (SEATS, "seats"),
        (SNAPSHOT_VERSION, "snapshot_version"),
    ];
}

/// How many of a game's finished records, the newest, a read of the game
/// brings (the `16` in [`postgres_records`], [`sqlite_records`] and
/// [`complete`]): a whole Klaverjassen match (at most 16 deals), and a
/// Potverteren table's last rounds, of which a move and a view use only the
/// last. The older ones stay in `game_deals` and are held as
/// [`JsonText::null`], so the records keep their count and order; the
/// event log, which shows every round's cards, reads them all
/// ([`read_all_records`]). Reading them all made a Potverteren table's
/// every request cost more with every round (docs/benchmarks.md, "A
/// Potverteren table's cost grows with its rounds").
pub const RECENT_RECORDS: i64 = 16;

/// Between the finished records [`load`] reads in the row's own statement:
/// the ASCII record separator, which JSON text never holds unescaped.
const RECORD_SEPARATOR: u8 = 0x1e;

/// The finished records of the row, in order, joined by
/// [`RECORD_SEPARATOR`] (NULL when there are none), as a column of bytes:
/// [`records_text`] checks them to be UTF-8 faster than the driver checks a
/// text column.
macro_rules! postgres_records {
    () => {
        "(SELECT convert_to(string_agg(d.record, chr(30) ORDER BY d.number), 'UTF8') \
         FROM game_deals d \
         WHERE d.game_id = games.id AND d.number <= games.deals_stored \
         AND d.number > games.deals_stored - 16) AS records"
    };
}

/// The token generation and last activity of the player `$2` (NULL when
/// there is none, or `$2` is NULL), as two columns.
macro_rules! caller_token {
    () => {
        "(SELECT p.token_generation FROM players p WHERE p.id = $2) AS caller_generation, \
         (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = $2) AS caller_seen"
    };
}

/// Who sits where, as text [`seats_from_text`] reads (NULL when nobody
/// does), as a column.
macro_rules! postgres_seats {
    () => {
        "(SELECT string_agg(concat_ws(',', s.seat, p.id, COALESCE(p.bot_level, ''), \
         octet_length(p.name), p.name), ',') \
         FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats"
    };
}

/// What [`load_for`] reads of a game on Postgres, with or without the lock.
macro_rules! postgres_read {
    () => {
        concat!(
            "SELECT ",
            game_columns!(),
            ", ",
            postgres_records!(),
            ", ",
            caller_token!(),
            ", ",
            postgres_seats!()
        )
    };
}

/// [`postgres_records`] in SQLite's words.
macro_rules! sqlite_records {
    () => {
        "(SELECT CAST(group_concat(d.record, char(30) ORDER BY d.number) AS BLOB) \
         FROM game_deals d \
         WHERE d.game_id = games.id AND d.number <= games.deals_stored \
         AND d.number > games.deals_stored - 16) AS records"
    };
}

/// A stored game: the table's record plus the rules state as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id.
    pub id: Uuid,
    /// `klaverjassen` or `potverteren`.
    pub kind: String,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// Adds one with every accepted change.
    pub version: i64,
    /// The player who created the table.
    pub host_id: Uuid,
    /// The table options, JSON.
    pub options: String,
    /// The rules state without its finished records, JSON (layout.rs; a
    /// row stored before the records were kept apart holds them here too);
    /// `None` until the table is full.
    pub state: Option<String>,
    /// The finished records (score-sheet rows, settled rounds), JSON each,
    /// in order: read with the row, and written by [`insert`] and
    /// [`update`] from the first the row does not hold yet. Shared with
    /// the game read from the row, its views and the row written next.
    pub records: Vec<JsonText>,
    /// The secret fair-deal state (seed chains, seat seeds), JSON; `None`
    /// only in rows stored before fair deals.
    pub fairness: Option<String>,
    /// When the table was created, Unix microseconds.
    pub created_at: i64,
    /// Who sits where.
    pub seats: Vec<SeatRow>,
    /// Away seats and the turn deadline, JSON.
    pub automation: Option<String>,
    /// When automatic work is due on this game, Unix microseconds.
    pub due_at: Option<i64>,
    /// How many finished records `game_deals` holds for the game, as
    /// [`load`] read it (0 for a row of the old layout); `None` when not
    /// known, and [`update`] reads it then.
    pub deals_stored: Option<i64>,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    /// The seat number.
    pub seat: u8,
    /// The player in it.
    pub player: PlayerRow,
}

/// A position in a newest-first listing: the last row's creation time and id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Creation time of the last row seen.
    pub created_at: i64,
    /// Id of the last row seen.
    pub id: Uuid,
}

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
    .bind(game.fairness.clone())
    .bind(game.created_at)
    .bind(now)
    .bind(game.automation.clone())
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
/// (src/http/change.rs) finds out here whether another came first, and
/// then nothing is written.
async fn update_announcing(
    conn: &mut AnyConnection,
    game: &GameRow,
    event: &events::EventRow,
    due_at: Option<i64>,
) -> Result<bool, sqlx::Error> {
    let records = add_records(conn, game).await?;
    let statement = concat!(
        "WITH updated AS (",
        update_game!(),
        " AND version = $19 RETURNING id), appended AS (",
        "INSERT INTO ",
        events::event_columns!(),
        " SELECT id, $10, $11, $12, $13, $14, $15, $16 FROM updated RETURNING seq) ",
        "SELECT pg_notify($17, $18) FROM appended"
    );
    let query = bind_update(sqlx::query(statement), game, records);
    let announced = events::bind_fields(query, event)
        .bind(super::listen::CHANNEL)
        .bind(super::listen::payload(game.id, event.seq, due_at))
        .bind(game.version - 1)
        .fetch_optional(conn)
        .await?;
    Ok(announced.is_some())
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
        Backend::Postgres => update_announcing(conn, game, event, due_at).await,
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
/// (only if the `UPDATE` wrote the row) and `COMMIT`. Sent one by one,
/// each statement's answer would wait for the request's HTTP worker to take
/// it up and send the next, and the writer, which every write queues for,
/// is held through all of it (docs/benchmarks.md, "SQLite's writer"). The
/// SQLite write runs to its end even if the request is dropped; on an error
/// the connection is closed, which rolls back whatever the transaction
/// began.
pub async fn write_change_alone(
    store: &super::Store,
    game: GameRow,
    event: events::EventRow,
    due_at: Option<i64>,
) -> Result<bool, sqlx::Error> {
    if game.deals_stored != Some(game.records.len() as i64) {
        return Err(sqlx::Error::Protocol(format!(
            "game {}: a change that adds a finished record needs a transaction",
            game.id
        )));
    }
    if store.backend() == Backend::Postgres {
        let mut conn = store.acquire().await?;
        return update_announcing(&mut conn, &game, &event, due_at).await;
    }
    let mut conn = store.acquire_writer().await?;
    let write = async move {
        let statement = concat!(
            "BEGIN IMMEDIATE; ",
            update_game!(),
            " AND version = $10; INSERT INTO ",
            events::event_columns!(),
            " SELECT $9, $11, $12, $13, $14, $15, $16, $17 WHERE changes() = 1 RETURNING seq; ",
            "COMMIT"
        );
        let query =
            bind_update(sqlx::query(statement), &game, game.records.len()).bind(game.version - 1);
        let written = events::bind_fields(query, &event)
            .fetch_all(&mut *conn)
            .await;
        match written {
            Ok(rows) => Ok(rows.len() == 1),
            Err(error) => {
                conn.discard();
                Err(error)
            }
        }
    };
    tokio::spawn(write)
        .await
        .map_err(|e| sqlx::Error::Protocol(format!("the write stopped: {e}")))?
}

/// Adds the finished records `game_deals` does not hold yet; returns how
/// many the game has.
async fn add_records(conn: &mut AnyConnection, game: &GameRow) -> Result<usize, sqlx::Error> {
    let records = &game.records;
    if records.is_empty() {
        return Ok(0);
    }
    // Known from the locked load in the same transaction, so nothing can
    // have added a record since; read only when not known.
    let stored = match game.deals_stored {
        Some(stored) => stored,
        None => {
            sqlx::query_scalar::<_, Option<i64>>("SELECT deals_stored FROM games WHERE id = $1")
                .bind(id_text(game.id))
                .fetch_one(&mut *conn)
                .await?
                .unwrap_or(0)
        }
    };
    let stored = stored_count(stored, records.len())?;
    insert_records(conn, game.id, records, stored).await?;
    Ok(records.len())
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
        .bind(game.fairness.clone())
        .bind(now_micros())
        .bind(game.automation.clone())
        .bind(game.due_at)
        .bind(records as i64)
        .bind(id_text(game.id))
}

/// How many of `total` records are stored, checked: records are only ever
/// added to a state.
fn stored_count(stored: i64, total: usize) -> Result<usize, sqlx::Error> {
    usize::try_from(stored)
        .ok()
        .filter(|&stored| stored <= total)
        .ok_or_else(|| {
            sqlx::Error::Protocol(format!(
                "{stored} finished records stored but the state has {total}"
            ))
        })
}

/// Adds `records[from..]` to `game_deals`, numbered from `from + 1`.
async fn insert_records(
    conn: &mut AnyConnection,
    game: Uuid,
    records: &[impl AsRef<str>],
    from: usize,
) -> Result<(), sqlx::Error> {
    for (index, record) in records.iter().enumerate().skip(from) {
        sqlx::query("INSERT INTO game_deals (game_id, number, record) VALUES ($1, $2, $3)")
            .bind(id_text(game))
            .bind(index as i64 + 1)
            .bind(record.as_ref())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// A finished record read back from `game_deals`, taken as the text this
/// service wrote there: `text[at]`, sharing `text` with the other records
/// read with it. It is not checked to be JSON again: that check was 11 % of
/// the service's CPU per move (docs/benchmarks.md, "Finished records not
/// checked again"). Debug builds, and so every test, check it.
fn stored_record(text: &Arc<str>, at: Range<usize>) -> JsonText {
    // SAFETY: `game_deals.record` is written only by `insert_records`, with
    // the texts `Rules::to_stored` takes from the game's records (serde_json's
    // own output, or text `RawValue` checked when it was read) or that
    // `layout::split` cut out of a state with `RawValue`: each one JSON value
    // without space around it. The row's statement joins them with
    // `RECORD_SEPARATOR`, which JSON text never holds unescaped, and
    // `split_records` cuts them apart there.
    unsafe { JsonText::part_unchecked(Arc::clone(text), at) }
}

/// The records [`postgres_records`] or [`sqlite_records`] joined, as the
/// text they must be. simdutf8 checks ASCII text (which JSON records nearly
/// all are) several bytes at a time: the driver's own check of a text
/// column, std's, was 4 % of a request's instructions, nearly all of it
/// this column's 10-20 KB (docs/benchmarks.md, "The records checked as
/// bytes, the log line written plainly").
fn records_text(joined: &[u8]) -> Result<&str, sqlx::Error> {
    simdutf8::basic::from_utf8(joined)
        .map_err(|_| sqlx::Error::Decode("the finished records read are not UTF-8 text".into()))
}

/// The records [`postgres_records`] or [`sqlite_records`] joined, apart:
/// copied once, together, and shared by the records, where a copy and two
/// allocations each took 150 instructions a record.
fn split_records(joined: &str) -> Vec<JsonText> {
    let text: Arc<str> = joined.into();
    let mut records = Vec::new();
    let mut start = 0;
    // A separator is one byte, never inside a character of more.
    for end in memchr::memchr_iter(RECORD_SEPARATOR, joined.as_bytes()) {
        records.push(stored_record(&text, start..end));
        start = end + 1;
    }
    records.push(stored_record(&text, start..joined.len()));
    records
}

/// Reads a game's finished records into `game.records`, as loaded with
/// `deals_stored` (None: a row of the old layout, whose state holds them).
/// `read`: the records read in the row's own statement, if it read them.
async fn complete(
    conn: &mut AnyConnection,
    game: &mut GameRow,
    deals_stored: Option<i64>,
    read: Option<&str>,
) -> Result<(), sqlx::Error> {
    let (Some(count), Some(_)) = (deals_stored, game.state.as_deref()) else {
        return Ok(());
    };
    if count == 0 {
        return Ok(());
    }
    let recent = count.min(RECENT_RECORDS);
    if let Some(read) = read {
        let records = split_records(read);
        // All the recent ones: `load_for` passes none it read in another
        // snapshot than the row's; counted anyway, since a missing one
        // would be lost from the state for good at the next write.
        if records.len() as i64 == recent {
            game.records = after_older(count, records);
            return Ok(());
        }
    }
    // Up to the count read with the row: a read outside a transaction may
    // see a deal finished since (records are only ever added, and never
    // change once written).
    let records = records_between(conn, game.id, count - recent, count).await?;
    game.records = after_older(count, records);
    Ok(())
}

/// Reads every finished record of `game`, where a read of the game brought
/// only the [`RECENT_RECORDS`] newest: for what shows older ones.
pub async fn read_all_records(
    conn: &mut AnyConnection,
    game: &mut GameRow,
) -> Result<(), sqlx::Error> {
    let count = game.records.len() as i64;
    if count > RECENT_RECORDS {
        game.records = records_between(conn, game.id, 0, count).await?;
    }
    Ok(())
}

/// Records `after + 1 ..= upto` of game `id`, all of them or an error.
async fn records_between(
    conn: &mut AnyConnection,
    id: Uuid,
    after: i64,
    upto: i64,
) -> Result<Vec<JsonText>, sqlx::Error> {
    let records: Vec<JsonText> = sqlx::query_scalar::<_, String>(
        "SELECT record FROM game_deals WHERE game_id = $1 AND number > $2 AND number <= $3 \
         ORDER BY number",
    )
    .bind(id_text(id))
    .bind(after)
    .bind(upto)
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|record| {
        let at = 0..record.len();
        stored_record(&record.into(), at)
    })
    .collect();
    if records.len() as i64 != upto - after {
        return Err(sqlx::Error::Protocol(format!(
            "game {id}: {} finished records expected, {} stored",
            upto - after,
            records.len()
        )));
    }
    Ok(records)
}

/// `recent`, the newest of `count` records, after a [`JsonText::null`] for
/// each older one left in the store.
fn after_older(count: i64, recent: Vec<JsonText>) -> Vec<JsonText> {
    let older = usize::try_from(count)
        .unwrap_or(0)
        .saturating_sub(recent.len());
    if older == 0 {
        return recent;
    }
    let mut records = Vec::with_capacity(older + recent.len());
    records.resize(older, JsonText::null());
    records.extend(recent);
    records
}

/// Splits one row still in the old layout (whole state in `games.state`),
/// if it still is: its finished records go to `game_deals`, its state
/// keeps the live part. `updated_at` is left as it is. Returns whether the
/// row was split.
pub async fn split_old_row(
    conn: &mut AnyConnection,
    backend: Backend,
    id: &str,
) -> Result<bool, sqlx::Error> {
    let query = if backend == Backend::Postgres {
        "SELECT state FROM games WHERE id = $1 AND deals_stored IS NULL FOR UPDATE"
    } else {
        "SELECT state FROM games WHERE id = $1 AND deals_stored IS NULL"
    };
    let Some(state): Option<Option<String>> = sqlx::query_scalar(query)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(false);
    };
    let (state, records) = match state.as_deref().map(layout::split).transpose() {
        Ok(Some(split)) => (Some(split.live), split.records),
        Ok(None) => (None, Vec::new()),
        Err(e) => return Err(sqlx::Error::Encode(Box::new(e))),
    };
    insert_records(conn, parse_uuid(id)?, &records, 0).await?;
    sqlx::query("UPDATE games SET state = $1, deals_stored = $2 WHERE id = $3")
        .bind(state)
        .bind(records.len() as i64)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(true)
}

/// How many tables waiting for players `player` sits at.
pub async fn waiting_tables_of(conn: &mut AnyConnection, player: Uuid) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM game_seats s JOIN games g ON g.id = s.game_id \
         WHERE s.player_id = $1 AND g.status = 'waiting'",
    )
    .bind(id_text(player))
    .fetch_one(conn)
    .await
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

/// Loads a game with its seats. With `lock`, the row stays locked until the
/// transaction ends (Postgres `FOR UPDATE`; a SQLite write transaction already
/// holds the file's write lock).
pub async fn load(
    conn: &mut AnyConnection,
    backend: Backend,
    id: Uuid,
    lock: bool,
) -> Result<Option<GameRow>, sqlx::Error> {
    Ok(load_for(conn, backend, id, lock, None)
        .await?
        .map(|(game, _)| game))
}

/// What [`load_for`] read about the caller's player beside the game: its
/// token generation and when it was last seen (`None`: no such player).
pub type CallerToken = Option<(i64, i64)>;

/// [`load`], and in the same statement what a token check needs to know
/// about `caller` (src/http/extract.rs): a request that reads its game
/// first checks its token without a statement of its own. Under the lock
/// the caller's row is read as it was when the statement began, before any
/// wait for the lock: a sign-out committed during that wait takes effect
/// from the caller's next request, as if it had come just after this one.
pub async fn load_for(
    conn: &mut AnyConnection,
    backend: Backend,
    id: Uuid,
    lock: bool,
    caller: Option<Uuid>,
) -> Result<Option<(GameRow, CallerToken)>, sqlx::Error> {
    // Everything in one statement: the row, its finished records (joined
    // by RECORD_SEPARATOR), the caller's token columns and the seats. On
    // Postgres a statement that waited for the row's lock sees the row as
    // its holder left it, but its subqueries see the records and seats as
    // they were before the wait; so it also reads the row's version as of
    // then, and when that is not the row's version the records and seats
    // are read again on their own. (A SQLite write transaction holds the
    // write lock from its BEGIN: no statement in it waits.)
    let Some(row) = sqlx::query(read_statement(backend, lock))
        .bind(id_text(id))
        .bind(caller.map(id_text))
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut game = game_from(&row)?;
    let generation: Option<i64> = row.try_get(column::CALLER_GENERATION)?;
    let seen: Option<i64> = row.try_get(column::CALLER_SEEN)?;
    let token = generation.zip(seen);
    let waited = lock
        && backend == Backend::Postgres
        && row.try_get::<Option<i64>, _>(column::SNAPSHOT_VERSION)? != Some(game.version);
    let deals_stored: Option<i64> = row.try_get(column::DEALS_STORED)?;
    // Borrowed from the row: `complete` copies the joined text out of it
    // once, and the records share that copy.
    let records = if waited {
        None
    } else {
        row.try_get::<Option<&[u8]>, _>(column::RECORDS)?
            .map(records_text)
            .transpose()?
    };
    complete(conn, &mut game, deals_stored, records).await?;
    game.deals_stored = Some(deals_stored.unwrap_or(0));
    game.seats = if waited {
        seats_of(conn, id).await?
    } else {
        // Borrowed from the row, like the records.
        seats_from_text(row.try_get(column::SEATS)?)?
    };
    Ok(Some((game, token)))
}

/// [`load_for`]'s statement: its columns are where [`column`] says.
fn read_statement(backend: Backend, lock: bool) -> &'static str {
    match (lock, backend) {
        (true, Backend::Postgres) => concat!(
            postgres_read!(),
            ", (SELECT g.version FROM games g WHERE g.id = games.id) AS snapshot_version \
             FROM games WHERE id = $1 FOR UPDATE"
        ),
        (false, Backend::Postgres) => concat!(postgres_read!(), " FROM games WHERE id = $1"),
        (_, Backend::Sqlite) => concat!(
            "SELECT ",
            game_columns!(),
            ", ",
            sqlite_records!(),
            ", ",
            caller_token!(),
            ", (SELECT group_concat(s.seat || ',' || p.id || ',' || COALESCE(p.bot_level, '') \
             || ',' || length(CAST(p.name AS BLOB)) || ',' || p.name, ',') \
             FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats \
             FROM games WHERE id = $1"
        ),
    }
}

/// The seats as [`load_for`] reads them, in any order (`None`: no seat
/// taken): each `seat,player id,bot level,name length,name`, one after
/// another with a comma between, the bot level empty for a person. The
/// name's length is in bytes, so a name reads back whatever it holds,
/// commas included. (A JSON array read with serde_json cost four times as
/// many instructions: docs/benchmarks.md, "The stack's floor at a move's
/// pace, field names written as they are".)
fn seats_from_text(text: Option<&str>) -> Result<Vec<SeatRow>, sqlx::Error> {
    let corrupt = || sqlx::Error::Decode(format!("seats read as {text:?}").into());
    let mut seats = Vec::new();
    let Some(mut rest) = text else {
        return Ok(seats);
    };
    loop {
        // A plain search: `str::split_once` took 150 instructions a field.
        let mut field = || -> Result<&str, sqlx::Error> {
            let at = rest.bytes().position(|b| b == b',').ok_or_else(corrupt)?;
            let field = &rest[..at];
            rest = &rest[at + 1..];
            Ok(field)
        };
        let (seat, id, bot_level, length) = (field()?, field()?, field()?, field()?);
        let length: usize = length.parse().map_err(|_| corrupt())?;
        let name = rest.get(..length).ok_or_else(corrupt)?;
        rest = &rest[length..];
        seats.push(SeatRow {
            seat: seat.parse().map_err(|_| corrupt())?,
            player: PlayerRow {
                id: parse_uuid(id)?,
                name: name.to_owned(),
                bot_level: (!bot_level.is_empty()).then(|| bot_level.to_owned()),
            },
        });
        match rest.strip_prefix(',') {
            Some(next) => rest = next,
            None if rest.is_empty() => break,
            None => return Err(corrupt()),
        }
    }
    seats.sort_by_key(|s| s.seat);
    Ok(seats)
}

/// Tables waiting for players, newest first, optionally of one kind.
pub async fn lobby(
    conn: &mut AnyConnection,
    kind: Option<&str>,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let (before_time, before_id) = cursor_bounds(after);
    let rows = sqlx::query(concat!(
        "SELECT ",
        game_columns!(),
        " FROM games \
         WHERE status = 'waiting' AND ($1 IS NULL OR kind = $1) \
           AND id NOT IN (SELECT game_id FROM invite_codes) \
           AND (created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4"
    ))
    .bind(kind)
    .bind(before_time)
    .bind(before_id)
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    with_seats(conn, rows).await
}

/// The games `player` sits at, newest first.
pub async fn of_player(
    conn: &mut AnyConnection,
    player: Uuid,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let (before_time, before_id) = cursor_bounds(after);
    let rows = sqlx::query(
        "SELECT g.id, g.kind, g.status, g.version, g.host_id, g.options, g.state, g.fairness, g.created_at, g.automation, g.due_at, g.deals_stored \
         FROM games g JOIN game_seats s ON s.game_id = g.id \
         WHERE s.player_id = $1 AND (g.created_at < $2 OR (g.created_at = $2 AND g.id < $3)) \
         ORDER BY g.created_at DESC, g.id DESC LIMIT $4",
    )
    .bind(id_text(player))
    .bind(before_time)
    .bind(before_id)
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    with_seats(conn, rows).await
}

fn cursor_bounds(after: Option<Cursor>) -> (i64, String) {
    match after {
        Some(c) => (c.created_at, id_text(c.id)),
        // Past every row: ids are lower-case hex, so "~" sorts after all of them.
        None => (i64::MAX, "~".to_owned()),
    }
}

async fn with_seats(
    conn: &mut AnyConnection,
    rows: Vec<sqlx::any::AnyRow>,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let mut games = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut game = game_from(row)?;
        complete(conn, &mut game, row.try_get(column::DEALS_STORED)?, None).await?;
        game.seats = seats_of(conn, game.id).await?;
        games.push(game);
    }
    Ok(games)
}

async fn seats_of(conn: &mut AnyConnection, game: Uuid) -> Result<Vec<SeatRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT s.seat, p.id, p.name, p.bot_level FROM game_seats s JOIN players p ON p.id = s.player_id \
         WHERE s.game_id = $1 ORDER BY s.seat",
    )
    .bind(id_text(game))
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(SeatRow {
                seat: u8::try_from(r.try_get::<i64, _>("seat")?)
                    .map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
                player: player_from(r)?,
            })
        })
        .collect()
}

fn game_from(row: &sqlx::any::AnyRow) -> Result<GameRow, sqlx::Error> {
    #[cfg(debug_assertions)]
    for (at, name) in column::NAMED {
        if let Some(found) = row.columns().get(at) {
            assert_eq!(found.name(), name, "the column at {at}");
        }
    }
    // Text columns are borrowed and copied: the `Any` driver's own
    // `String` decode goes through `Display` (`to_string`), 120 more
    // instructions a column.
    let text = |at| row.try_get::<&str, _>(at).map(str::to_owned);
    let optional_text = |at| {
        row.try_get::<Option<&str>, _>(at)
            .map(|t| t.map(str::to_owned))
    };
    Ok(GameRow {
        id: parse_uuid(row.try_get::<&str, _>(column::ID)?)?,
        kind: text(column::KIND)?,
        status: text(column::STATUS)?,
        version: row.try_get(column::VERSION)?,
        host_id: parse_uuid(row.try_get::<&str, _>(column::HOST_ID)?)?,
        options: text(column::OPTIONS)?,
        state: optional_text(column::STATE)?,
        fairness: optional_text(column::FAIRNESS)?,
        created_at: row.try_get(column::CREATED_AT)?,
        seats: Vec::new(),
        automation: optional_text(column::AUTOMATION)?,
        due_at: row.try_get(column::DUE_AT)?,
        deals_stored: None,
        records: Vec::new(),
    })
}

/// Games whose automatic work is due at `now`, most overdue first, at most
/// `limit`. On Postgres rows another instance has locked are skipped
/// (`FOR UPDATE SKIP LOCKED`), so instances spread the work between them;
/// the claim only picks, the move itself is applied under the row's lock.
pub async fn due(
    conn: &mut AnyConnection,
    backend: Backend,
    now: i64,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    let query = if backend == Backend::Postgres {
        "SELECT id FROM games WHERE due_at <= $1 ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED"
    } else {
        "SELECT id FROM games WHERE due_at <= $1 ORDER BY due_at LIMIT $2"
    };
    let rows = sqlx::query(query)
        .bind(now)
        .bind(limit)
        .fetch_all(conn)
        .await?;
    rows.iter()
        .map(|r| parse_uuid(r.try_get::<&str, _>("id")?))
        .collect()
}

/// When the soonest automatic work is due on any game, if any.
pub async fn next_due(conn: &mut AnyConnection) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT MIN(due_at) FROM games WHERE due_at IS NOT NULL")
        .fetch_one(conn)
        .await
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A read brings a whole Klaverjassen match, whose view shows every
    /// deal: the longest match allowed fits in [`RECENT_RECORDS`], and both
    /// statements read that many.
    #[test]
    fn a_read_brings_every_record_of_the_longest_klaverjassen_match() {
        use crate::rules::klaverjassen::Options;
        let longest = (1..=u8::MAX)
            .take_while(|&deals| {
                Options {
                    deals,
                    ..Options::default()
                }
                .validate()
                .is_ok()
            })
            .last()
            .unwrap();
        assert!(i64::from(longest) <= RECENT_RECORDS, "{longest} deals");
        let window = format!("d.number > games.deals_stored - {RECENT_RECORDS})");
        for statement in [postgres_records!(), sqlite_records!()] {
            assert!(statement.contains(&window), "{statement}");
        }
    }

    /// The older records a read leaves in the store are held as `null`,
    /// before the recent ones, so that their count and order stay.
    #[test]
    fn older_records_are_held_as_null_before_the_recent_ones() {
        let recent = split_records("{\"round\":19}\u{1e}{\"round\":20}");
        let held = after_older(20, recent.clone());
        let records: Vec<&str> = held.iter().map(JsonText::get).collect();
        assert_eq!(records.len(), 20);
        assert!(records[..18].iter().all(|r| *r == "null"));
        assert_eq!(records[18..], ["{\"round\":19}", "{\"round\":20}"]);
        assert_eq!(after_older(2, recent).len(), 2);
    }

    #[test]
    fn joined_records_come_apart_at_each_separator_and_nowhere_else() {
        let records = [r#"{"n":1}"#, r#"{"name":"Ée\u001e"}"#, "[]", r#""✓""#];
        let joined = records.join("\u{1e}");
        let apart: Vec<String> = split_records(&joined)
            .iter()
            .map(|record| record.get().to_owned())
            .collect();
        assert_eq!(apart, records);
        let split = split_records(&joined);
        let (first, second) = (split[0].get(), split[1].get());
        assert_eq!(
            second.as_ptr() as usize - first.as_ptr() as usize,
            first.len() + 1,
            "one text shared, each record its part"
        );
        assert_eq!(
            split_records(records[0]),
            [stored_record(&records[0].into(), 0..records[0].len())]
        );
    }

    /// The joined records read as the UTF-8 text they are, characters of
    /// several bytes included; bytes that are not UTF-8 are refused.
    #[test]
    fn joined_records_are_read_as_utf8_text_and_refused_otherwise() {
        let text = "{\"name\":\"Ée 🂡\"}\u{1e}[]";
        assert_eq!(records_text(text.as_bytes()).unwrap(), text);
        for bad in [
            &b"{\"n\":\"\xff\"}"[..],
            // A character cut short, and a surrogate's encoding.
            b"[\"\xc3\"]",
            b"\"\xed\xa0\x80\"",
        ] {
            assert!(records_text(bad).is_err(), "{bad:?}");
        }
    }

    /// The seats' text reads back every name whatever it holds (commas, a
    /// length's digits, characters of several bytes), a computer player's
    /// level, and no seat at all; text cut short or with anything after it
    /// is refused.
    #[test]
    fn seats_read_back_from_their_text_whatever_the_names_hold() {
        let id = |n: u128| Uuid::from_u128(n);
        let one = |seat: u8, n: u128, bot: &str, name: &str| {
            format!("{seat},{},{bot},{},{name}", id(n), name.len())
        };
        let names = ["a,b", ",3,x,", "Ée 🂡", "\"q\" \\ \u{7}"];
        let text = [
            one(3, 4, "", names[3]),
            one(0, 1, "", names[0]),
            one(2, 3, "strong", names[2]),
            one(1, 2, "basic", names[1]),
        ]
        .join(",");
        let seats = seats_from_text(Some(&text)).unwrap();
        let read: Vec<(u8, Uuid, &str, Option<&str>)> = seats
            .iter()
            .map(|s| {
                let p = &s.player;
                (s.seat, p.id, p.name.as_str(), p.bot_level.as_deref())
            })
            .collect();
        assert_eq!(
            read,
            [
                (0, id(1), names[0], None),
                (1, id(2), names[1], Some("basic")),
                (2, id(3), names[2], Some("strong")),
                (3, id(4), names[3], None),
            ]
        );
        assert!(seats_from_text(None).unwrap().is_empty());
        for bad in [
            &text[..text.len() - 1],
            &format!("{text},"),
            &format!("{text}x"),
            "0,not an id,,1,x",
            "0,00000000-0000-0000-0000-000000000001,,9,short",
            // A length that ends inside a character.
            "0,00000000-0000-0000-0000-000000000001,,1,É",
        ] {
            assert!(seats_from_text(Some(bad)).is_err(), "{bad:?}");
        }
    }
}
