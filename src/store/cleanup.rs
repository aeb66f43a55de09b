//! Bounded storage: what the periodic cleanup job (`src/http/cleanup.rs`)
//! removes, the lease that lets one instance at a time run it, and the
//! activity mark that keeps an active guest.

use sqlx::AnyConnection;
use uuid::Uuid;

use super::id_text;

/// Takes the lease of job `name` for `holder` until `until`, if nobody holds
/// it at `now` (the holder itself included: it waits out its own lease). True when taken: the caller runs
/// the job. One statement, so two instances never both take it.
pub async fn take_lease(
    conn: &mut AnyConnection,
    name: &str,
    holder: &str,
    now: i64,
    until: i64,
) -> Result<bool, sqlx::Error> {
    let taken = sqlx::query(
        "INSERT INTO job_leases (name, holder, until_at) VALUES ($1, $2, $3) \
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_at = excluded.until_at \
         WHERE job_leases.until_at <= $4",
    )
    .bind(name)
    .bind(holder)
    .bind(until)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(taken.rows_affected() == 1)
}

/// Removes the idempotency answers stored before `before`; how many.
pub async fn remove_idempotency_answers(
    conn: &mut AnyConnection,
    before: i64,
) -> Result<u64, sqlx::Error> {
    let removed = sqlx::query("DELETE FROM idempotency_keys WHERE created_at < $1")
        .bind(before)
        .execute(conn)
        .await?;
    Ok(removed.rows_affected())
}

/// The condition under which a player is a guest with no game, unused since
/// `$1`: not a provider's player nor a computer player, hosts no table,
/// holds no seat and appears in no game's event log.
const IDLE_GUEST: &str = "p.external_sub IS NULL AND p.bot_level IS NULL \
     AND COALESCE(p.last_seen_at, p.created_at) < $1 \
     AND NOT EXISTS (SELECT 1 FROM games g WHERE g.host_id = p.id) \
     AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.player_id = p.id) \
     AND NOT EXISTS (SELECT 1 FROM game_events e WHERE e.player_id = p.id)";

/// Removes the guests with no game that were last used before `before`,
/// with their idempotency answers, `batch` at a time (see
/// [`remove_players_where`]); how many players. Each player goes in a
/// statement that checks the condition again, so a guest who takes a seat
/// or comes back meanwhile stays.
pub async fn remove_idle_guests(
    conn: &mut AnyConnection,
    before: i64,
    batch: i64,
) -> Result<u64, sqlx::Error> {
    remove_players_where(conn, IDLE_GUEST, before, batch).await
}

/// The most batches one call of [`remove_players_where`] removes.
const BATCHES_PER_CALL: u32 = 1000;

/// Removes the players for whom `condition` holds (its `$1` is `before`),
/// with their idempotency answers, `batch` at a time until a batch removes
/// fewer (at most [`BATCHES_PER_CALL`] batches); how many.
async fn remove_players_where(
    conn: &mut AnyConnection,
    condition: &'static str,
    before: i64,
    batch: i64,
) -> Result<u64, sqlx::Error> {
    let mut removed = 0;
    for _ in 0..BATCHES_PER_CALL {
        let this_batch = remove_batch_where(conn, condition, before, batch).await?;
        removed += this_batch;
        if this_batch < batch as u64 {
            break;
        }
    }
    Ok(removed)
}

/// Removes up to `limit` players for whom `condition` holds (its `$1` is
/// `before`), with their idempotency answers; how many. Each goes in a
/// statement that checks the condition again, and one that a record the
/// condition does not list still names (the foreign key refuses) stays.
async fn remove_batch_where(
    conn: &mut AnyConnection,
    condition: &'static str,
    before: i64,
    limit: i64,
) -> Result<u64, sqlx::Error> {
    let ids: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT p.id FROM players p WHERE {condition} ORDER BY p.id LIMIT $2"
    )))
    .bind(before)
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    let mut removed = 0;
    for id in ids {
        sqlx::query("DELETE FROM idempotency_keys WHERE player_id = $1")
            .bind(&id)
            .execute(&mut *conn)
            .await?;
        let deleted = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM players WHERE id = $2 AND id IN (SELECT p.id FROM players p WHERE {condition})"
        )))
        .bind(before)
        .bind(&id)
        .execute(&mut *conn)
        .await;
        match deleted {
            Ok(done) => removed += done.rows_affected(),
            // A seat or a table of the player's appeared between the
            // check and the delete (the foreign key refused): it stays.
            Err(sqlx::Error::Database(error))
                if error.kind() == sqlx::error::ErrorKind::ForeignKeyViolation => {}
            Err(error) => return Err(error),
        }
    }
    Ok(removed)
}

/// The condition under which a computer player never played: no seat (a
/// host removed it before the start), no event, made before `$1`. A
/// computer player with a game on record keeps its seat row, its profile
/// and its rating.
const UNPLAYED_BOT: &str = "p.bot_level IS NOT NULL AND p.created_at < $1 \
     AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.player_id = p.id) \
     AND NOT EXISTS (SELECT 1 FROM game_events e WHERE e.player_id = p.id)";

/// Removes the computer players that never played, made before `before`,
/// `batch` at a time (see [`remove_players_where`]); how many. Each host's
/// "add a computer player" makes a new one, so without this every one
/// removed before the start would stay for ever.
pub async fn remove_unplayed_bots(
    conn: &mut AnyConnection,
    before: i64,
    batch: i64,
) -> Result<u64, sqlx::Error> {
    remove_players_where(conn, UNPLAYED_BOT, before, batch).await
}

/// Gives every table that waits for players and has no due time (stored
/// before tables were closed automatically) the due time of its closing,
/// `abandon_after` after its creation, for the scheduler; how many.
pub async fn schedule_waiting_tables(
    conn: &mut AnyConnection,
    abandon_after: i64,
) -> Result<u64, sqlx::Error> {
    let scheduled = sqlx::query(
        "UPDATE games SET due_at = created_at + $1 WHERE status = 'waiting' AND due_at IS NULL",
    )
    .bind(abandon_after)
    .execute(conn)
    .await?;
    Ok(scheduled.rows_affected())
}

/// The player's token generation and when it was last used (its creation
/// time if never), if the player exists.
pub async fn player_for_token(
    conn: &mut AnyConnection,
    id: Uuid,
) -> Result<Option<(i64, i64)>, sqlx::Error> {
    use sqlx::Row;
    let row = sqlx::query(
        "SELECT token_generation, COALESCE(last_seen_at, created_at) AS seen FROM players WHERE id = $1",
    )
    .bind(id_text(id))
    .fetch_optional(conn)
    .await?;
    row.map(|r| Ok((r.try_get("token_generation")?, r.try_get("seen")?)))
        .transpose()
}

/// Marks the player used at `now`.
pub async fn touch(conn: &mut AnyConnection, id: Uuid, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE players SET last_seen_at = $1 WHERE id = $2")
        .bind(now)
        .bind(id_text(id))
        .execute(conn)
        .await?;
    Ok(())
}
