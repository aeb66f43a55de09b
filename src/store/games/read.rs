//! Reading game rows: one game with its seats, its newest finished records
//! and what a token check needs to know about the caller, in one statement
//! (a request's first read); lists of games; and when automatic work is due.

use serde::Deserialize;
use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::records;
use super::{Cursor, GameRow, SeatRow};
use crate::store::players::{PlayerRow, parse_uuid, player_from};
use crate::store::{Backend, id_text};

/// The `games` columns [`game_from`] reads, for the queries that read a
/// whole row.
macro_rules! game_columns {
    () => {
        "id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored"
    };
}

/// The row's newest finished records ([`RECENT_RECORDS`](super::RECENT_RECORDS)
/// of them) as one JSON array, NULL when there are none. Each record is JSON
/// the store wrote (`records::insert_records`), so the database joins them
/// as they are rather than reading each as JSON again (`json_agg` of each
/// record cast to `json` took a third more of the statement's time).
/// `string_agg` with `ORDER BY` is spelt alike on Postgres and SQLite;
/// Postgres reads [`postgres_records`] instead.
macro_rules! records_column {
    () => {
        "(SELECT '[' || string_agg(d.record, ',' ORDER BY d.number) || ']' \
         FROM game_deals d \
         WHERE d.game_id = games.id AND d.number <= games.deals_stored \
         AND d.number > games.deals_stored - 16) AS records"
    };
}

/// [`records_column`] on Postgres: the records in an `ARRAY` in the order
/// of the primary key's index, joined. An aggregate's own `ORDER BY` makes
/// Postgres start a sort on every statement, even of rows that come in
/// order, whose first 24 KB grow the backend's heap and are given back to
/// the system at the statement's end (two `brk` calls and fresh pages every
/// time): it cost more than the rest of the statement.
macro_rules! postgres_records {
    () => {
        "'[' || NULLIF(array_to_string(ARRAY(SELECT d.record \
         FROM game_deals d \
         WHERE d.game_id = games.id AND d.number <= games.deals_stored \
         AND d.number > games.deals_stored - 16 ORDER BY d.number), ','), '') || ']' AS records"
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

/// Who sits where, as a JSON array of [`SeatJson`] objects in Postgres's
/// words (NULL when nobody does).
macro_rules! postgres_seats {
    () => {
        "(SELECT json_agg(json_build_object('seat', s.seat, 'id', p.id, 'name', p.name, \
         'bot_level', p.bot_level))::text \
         FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats"
    };
}

/// [`postgres_seats`] in SQLite's words (`[]` when nobody sits).
macro_rules! sqlite_seats {
    () => {
        "(SELECT json_group_array(json_object('seat', s.seat, 'id', p.id, 'name', p.name, \
         'bot_level', p.bot_level)) \
         FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats"
    };
}

/// What [`load_for`] reads of a game beside its seats, with its
/// `records` column read as the backend's macro says.
macro_rules! game_read {
    ($records:ident) => {
        concat!(
            "SELECT ",
            game_columns!(),
            ", ",
            $records!(),
            ", ",
            caller_token!(),
        )
    };
}

/// One seat as [`postgres_seats`] and [`sqlite_seats`] write it.
#[derive(Deserialize)]
struct SeatJson {
    seat: u8,
    id: Uuid,
    name: String,
    bot_level: Option<String>,
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
    // Everything in one statement: the row, its newest finished records,
    // the caller's token columns and the seats. On Postgres a statement
    // that waited for the row's lock sees the row as its holder left it,
    // but its subqueries see the records and seats as they were before the
    // wait; so it also reads the row's version as of then, and when that is
    // not the row's version the records and seats are read again on their
    // own. (A SQLite write transaction holds the write lock from its BEGIN:
    // no statement in it waits.)
    let Some(row) = sqlx::query(read_statement(backend, lock))
        .bind(id_text(id))
        .bind(caller.map(id_text))
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut game = game_from(&row)?;
    let generation: Option<i64> = row.try_get("caller_generation")?;
    let seen: Option<i64> = row.try_get("caller_seen")?;
    let token = generation.zip(seen);
    let waited = lock
        && backend == Backend::Postgres
        && row.try_get::<Option<i64>, _>("snapshot_version")? != Some(game.version);
    let deals_stored: Option<i64> = row.try_get("deals_stored")?;
    let read = if waited {
        None
    } else {
        row.try_get("records")?
    };
    records::complete(conn, &mut game, deals_stored, read).await?;
    game.deals_stored = Some(deals_stored.unwrap_or(0));
    game.seats = if waited {
        seats_of(conn, id).await?
    } else {
        seats_from_json(row.try_get("seats")?)?
    };
    Ok(Some((game, token)))
}

/// [`load_for`]'s statement.
fn read_statement(backend: Backend, lock: bool) -> &'static str {
    match (lock, backend) {
        (true, Backend::Postgres) => concat!(
            game_read!(postgres_records),
            ", ",
            postgres_seats!(),
            ", (SELECT g.version FROM games g WHERE g.id = games.id) AS snapshot_version \
             FROM games WHERE id = $1 FOR UPDATE"
        ),
        (false, Backend::Postgres) => concat!(
            game_read!(postgres_records),
            ", ",
            postgres_seats!(),
            " FROM games WHERE id = $1"
        ),
        (_, Backend::Sqlite) => concat!(
            game_read!(records_column),
            ", ",
            sqlite_seats!(),
            " FROM games WHERE id = $1"
        ),
    }
}

/// The seats as [`load_for`] reads them, in order of seat (`None`: no
/// seat taken).
fn seats_from_json(json: Option<&str>) -> Result<Vec<SeatRow>, sqlx::Error> {
    let Some(json) = json else {
        return Ok(Vec::new());
    };
    let read: Vec<SeatJson> =
        serde_json::from_str(json).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    let mut seats: Vec<SeatRow> = read
        .into_iter()
        .map(|seat| SeatRow {
            seat: seat.seat,
            player: PlayerRow {
                id: seat.id,
                name: seat.name,
                bot_level: seat.bot_level,
            },
        })
        .collect();
    seats.sort_by_key(|s| s.seat);
    Ok(seats)
}

/// A page of games whose rows `$where` (a `FROM games WHERE ... LIMIT $4`
/// clause) picks, each with its newest finished records and its seats, in
/// one statement on `backend`.
macro_rules! page_statement {
    ($backend:expr, $where:expr) => {
        match $backend {
            Backend::Postgres => concat!(
                "SELECT ",
                game_columns!(),
                ", ",
                postgres_records!(),
                ", ",
                postgres_seats!(),
                $where
            ),
            Backend::Sqlite => concat!(
                "SELECT ",
                game_columns!(),
                ", ",
                records_column!(),
                ", ",
                sqlite_seats!(),
                $where
            ),
        }
    };
}

/// Tables waiting for players, newest first, optionally of one kind.
pub async fn lobby(
    conn: &mut AnyConnection,
    backend: Backend,
    kind: Option<&str>,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let statement = page_statement!(
        backend,
        " FROM games \
         WHERE status = 'waiting' AND ($1 IS NULL OR kind = $1) \
           AND id NOT IN (SELECT game_id FROM invite_codes) \
           AND (created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4"
    );
    page(conn, sqlx::query(statement).bind(kind), after, limit).await
}

/// The games `player` sits at, newest first.
pub async fn of_player(
    conn: &mut AnyConnection,
    backend: Backend,
    player: Uuid,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let statement = page_statement!(
        backend,
        " FROM games \
         WHERE id IN (SELECT game_id FROM game_seats WHERE player_id = $1) \
           AND (created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4"
    );
    page(
        conn,
        sqlx::query(statement).bind(id_text(player)),
        after,
        limit,
    )
    .await
}

/// The games `query` lists, its `$1` bound: at most `limit` (`$4`) after
/// `after` (`$2` and `$3`), with their seats and newest finished records
/// read in the same statement.
async fn page(
    conn: &mut AnyConnection,
    query: sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments>,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<GameRow>, sqlx::Error> {
    let (before_time, before_id) = match after {
        Some(c) => (c.created_at, id_text(c.id)),
        // Past every row: ids are lower-case hex, so "~" sorts after all of them.
        None => (i64::MAX, "~".to_owned()),
    };
    let rows = query
        .bind(before_time)
        .bind(before_id)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    let mut games = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut game = game_from(row)?;
        let deals_stored = row.try_get("deals_stored")?;
        records::complete(conn, &mut game, deals_stored, row.try_get("records")?).await?;
        game.seats = seats_from_json(row.try_get("seats")?)?;
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

/// The game in `row`, without its seats and finished records.
fn game_from(row: &sqlx::any::AnyRow) -> Result<GameRow, sqlx::Error> {
    Ok(GameRow {
        id: parse_uuid(row.try_get::<&str, _>("id")?)?,
        kind: row.try_get("kind")?,
        status: row.try_get("status")?,
        version: row.try_get("version")?,
        host_id: parse_uuid(row.try_get::<&str, _>("host_id")?)?,
        options: row.try_get("options")?,
        state: row.try_get("state")?,
        fairness: row.try_get("fairness")?,
        created_at: row.try_get("created_at")?,
        seats: Vec::new(),
        automation: row.try_get("automation")?,
        due_at: row.try_get("due_at")?,
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
    let queries = (
        "SELECT id FROM games WHERE due_at <= $1 ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED",
        "SELECT id FROM games WHERE due_at <= $1 ORDER BY due_at LIMIT $2",
    );
    crate::store::due_ids(conn, backend, queries, now, limit).await
}

/// When the soonest automatic work is due on any game, if any.
pub async fn next_due(conn: &mut AnyConnection) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT MIN(due_at) FROM games WHERE due_at IS NOT NULL")
        .fetch_one(conn)
        .await
}

/// When the soonest automatic work due after `now` is, if any.
pub async fn next_due_after(
    conn: &mut AnyConnection,
    now: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT MIN(due_at) FROM games WHERE due_at > $1")
        .bind(now)
        .fetch_one(conn)
        .await
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::games::RECENT_RECORDS;

    /// A read brings a whole Klaverjassen match, whose view shows every
    /// deal: the longest match allowed fits in [`RECENT_RECORDS`], and the
    /// statement reads that many.
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
        assert!(records_column!().contains(&window), "{}", records_column!());
    }

    /// Postgres reads the same window of records as [`records_column`].
    #[test]
    fn postgres_reads_the_newest_records_as_many_as_sqlite() {
        let window = format!("d.number > games.deals_stored - {RECENT_RECORDS} ORDER BY");
        assert!(
            postgres_records!().contains(&window),
            "{}",
            postgres_records!()
        );
    }

    /// The seats' JSON reads back every name whatever it holds (commas,
    /// quotes, characters of several bytes), a computer player's level, and
    /// no seat at all; JSON that is not seats is refused.
    #[test]
    fn seats_read_back_from_their_json_whatever_the_names_hold() {
        let id = |n: u128| Uuid::from_u128(n);
        let names = ["a,b", ",3,x,", "Ée 🂡", "\"q\" \\ \u{7}"];
        let json = serde_json::json!([
            {"seat": 3, "id": id(4), "name": names[3], "bot_level": null},
            {"seat": 0, "id": id(1), "name": names[0], "bot_level": null},
            {"seat": 2, "id": id(3), "name": names[2], "bot_level": "strong"},
            {"seat": 1, "id": id(2), "name": names[1], "bot_level": "basic"},
        ])
        .to_string();
        let seats = seats_from_json(Some(&json)).unwrap();
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
        assert!(seats_from_json(None).unwrap().is_empty());
        assert!(seats_from_json(Some("[]")).unwrap().is_empty());
        for bad in [
            &json[..json.len() - 1],
            r#"[{"seat": 0, "id": "not an id", "name": "x", "bot_level": null}]"#,
            r#"[{"seat": 300, "id": "00000000-0000-0000-0000-000000000001", "name": "x", "bot_level": null}]"#,
        ] {
            assert!(seats_from_json(Some(bad)).is_err(), "{bad:?}");
        }
    }
}
