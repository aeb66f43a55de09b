//! The first answer to each request sent with an `Idempotency-Key`, kept
//! for [`TTL_MICROS`]: an older answer is never replayed, whether or not the
//! cleanup job has removed it yet.

use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::{Backend, id_text};

/// How long an answer is replayed: 24 hours, as the IETF
/// `Idempotency-Key` draft and Stripe keep them.
pub const TTL_MICROS: i64 = 24 * 3600 * 1_000_000;

/// A stored answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    /// Hash of the request the key was first used with (method, path, body).
    pub request_hash: String,
    /// The HTTP status of the first answer.
    pub status: u16,
    /// The headers worth replaying (`ETag`, `Location`), as JSON pairs.
    pub headers: String,
    /// The body of the first answer.
    pub body: String,
}

/// The answer stored for `player`'s `key` less than [`TTL_MICROS`] before
/// `now`, if any.
pub async fn find(
    conn: &mut AnyConnection,
    player: Uuid,
    key: &str,
    now: i64,
) -> Result<Option<StoredResponse>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT request_hash, status, headers, body FROM idempotency_keys \
         WHERE player_id = $1 AND key = $2 AND created_at > $3",
    )
    .bind(id_text(player))
    .bind(key)
    .bind(now - TTL_MICROS)
    .fetch_optional(conn)
    .await?;
    row.map(|r| {
        Ok(StoredResponse {
            request_hash: r.try_get("request_hash")?,
            status: u16::try_from(r.try_get::<i64, _>("status")?).unwrap_or(500),
            headers: r.try_get("headers")?,
            body: r.try_get("body")?,
        })
    })
    .transpose()
}

/// Holds `player`'s `key` until the transaction ends, so that a retry
/// racing its original waits for it and then finds its answer: for a
/// request that locks no existing row first (creating a table). A
/// transaction-level advisory lock on Postgres; on SQLite the write
/// transaction already holds the file's lock. Two keys may share a lock
/// (a hash of both): they then only wait for each other.
pub async fn lock(
    conn: &mut AnyConnection,
    backend: Backend,
    player: Uuid,
    key: &str,
) -> Result<(), sqlx::Error> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    // The function returns `void`, which the Any driver cannot decode:
    // select a constant beside it instead.
    sqlx::query(
        "SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))) AS l",
    )
    .bind(id_text(player))
    .bind(key)
    .execute(conn)
    .await?;
    Ok(())
}

/// Whether the answer was recorded: [`Recorded::Taken`] when another
/// request recorded one for the same key since this one looked ([`find`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Recorded {
    /// The answer is the key's.
    Yes,
    /// Another request's answer holds the key: this request must not commit.
    Taken,
}

/// Records the first answer for `player`'s `key` at `now`, in the request's
/// transaction, in place of an expired answer to the same key. A key
/// recorded meanwhile by a request that held no lock this one waited for
/// (the same key sent to two games at once) is [`Recorded::Taken`], never
/// a database error.
pub async fn insert(
    conn: &mut AnyConnection,
    player: Uuid,
    key: &str,
    response: &StoredResponse,
    now: i64,
) -> Result<Recorded, sqlx::Error> {
    sqlx::query(
        "DELETE FROM idempotency_keys WHERE player_id = $1 AND key = $2 AND created_at <= $3",
    )
    .bind(id_text(player))
    .bind(key)
    .bind(now - TTL_MICROS)
    .execute(&mut *conn)
    .await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (player_id, key, request_hash, status, headers, body, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player_id, key) DO NOTHING",
    )
    .bind(id_text(player))
    .bind(key)
    .bind(&response.request_hash)
    .bind(i64::from(response.status))
    .bind(&response.headers)
    .bind(&response.body)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(if inserted.rows_affected() == 1 {
        Recorded::Yes
    } else {
        Recorded::Taken
    })
}
