//! Tables among friends: invite codes, the matchmaking lock, players'
//! statistics and ratings, renames.

use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::players::parse_uuid;
use super::{Backend, id_text, now_micros};

/// Stores `code` for `game` unless a live table already has it; whether it
/// was stored.
pub async fn claim_invite_code(
    conn: &mut AnyConnection,
    code: &str,
    game: Uuid,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO invite_codes (code, game_id) VALUES ($1, $2) ON CONFLICT (code) DO NOTHING",
    )
    .bind(code)
    .bind(id_text(game))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The live table with invite `code`, if any.
pub async fn game_of_invite(
    conn: &mut AnyConnection,
    code: &str,
) -> Result<Option<Uuid>, sqlx::Error> {
    let id: Option<String> = sqlx::query_scalar("SELECT game_id FROM invite_codes WHERE code = $1")
        .bind(code)
        .fetch_optional(conn)
        .await?;
    id.map(parse_uuid).transpose()
}

/// Forgets `game`'s invite code (the table finished or was abandoned).
pub async fn drop_invite_code(conn: &mut AnyConnection, game: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM invite_codes WHERE game_id = $1")
        .bind(id_text(game))
        .execute(conn)
        .await?;
    Ok(())
}

/// Serialises matchmaking for one game kind until the transaction ends: a
/// transaction-level advisory lock on Postgres (across instances); on
/// SQLite the write transaction already holds the file's lock.
pub async fn lock_matchmaking(
    conn: &mut AnyConnection,
    backend: Backend,
    kind: &str,
) -> Result<(), sqlx::Error> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    // A fixed key per kind: "kaart" in the high bytes, the kind below.
    let key: i64 = 0x6b61_6172_7400_0000 + i64::from(kind == "potverteren");
    // The function returns `void`, which the Any driver cannot decode:
    // select a constant beside it instead.
    sqlx::query("SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock($1)) AS l")
        .bind(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// A public table waiting for players, as matchmaking looks it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitingTable {
    /// The game.
    pub id: Uuid,
    /// When it was created (the order of the list, with `id`).
    pub created_at: i64,
    /// Its options as stored.
    pub options: String,
}

/// Public tables of `kind` waiting for players, oldest first: at most
/// `limit` of them, after `after` (the last of the previous page) if given.
pub async fn waiting_public(
    conn: &mut AnyConnection,
    kind: &str,
    after: Option<&WaitingTable>,
    limit: i64,
) -> Result<Vec<WaitingTable>, sqlx::Error> {
    let (after_created, after_id) = after.map_or((i64::MIN, String::new()), |table| {
        (table.created_at, id_text(table.id))
    });
    let rows = sqlx::query(
        "SELECT id, created_at, options FROM games WHERE status = 'waiting' AND kind = $1 \
         AND id NOT IN (SELECT game_id FROM invite_codes) \
         AND (created_at > $2 OR (created_at = $2 AND id > $3)) \
         ORDER BY created_at, id LIMIT $4",
    )
    .bind(kind)
    .bind(after_created)
    .bind(after_id)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(WaitingTable {
                id: parse_uuid(row.try_get::<String, _>("id")?)?,
                created_at: row.try_get("created_at")?,
                options: row.try_get("options")?,
            })
        })
        .collect()
}

/// Marks `game`'s result as counted; false when it already was.
pub async fn mark_result(conn: &mut AnyConnection, game: Uuid) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO game_results (game_id, recorded_at) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING",
    )
    .bind(id_text(game))
    .bind(now_micros())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A player's statistics and rating in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct StatsRow {
    /// The player.
    pub player: Uuid,
    /// `klaverjassen` or `potverteren`.
    pub kind: String,
    /// Matches finished.
    pub played: i64,
    /// Matches won.
    pub won: i64,
    /// Matches drawn.
    pub drawn: i64,
    /// Klaverjassen: the player's team's points over all deals.
    pub points: i64,
    /// Klaverjassen: deals played.
    pub deals: i64,
    /// Potverteren: net chips over all tables.
    pub chips: i64,
    /// Weng-Lin rating.
    pub rating: f64,
    /// Weng-Lin uncertainty.
    pub uncertainty: f64,
}

/// Gives `player` a statistics row in `kind` (a new rating) if it has
/// none, then locks it until the transaction ends (Postgres `FOR UPDATE`;
/// a SQLite write transaction holds the file's lock), so games finishing
/// at once on several instances count one after the other. Callers lock
/// their players in one order (by id), so two never wait for each other.
pub async fn lock_stats(
    conn: &mut AnyConnection,
    backend: Backend,
    player: Uuid,
    kind: &str,
    rating: f64,
    uncertainty: f64,
) -> Result<StatsRow, sqlx::Error> {
    sqlx::query(
        "INSERT INTO player_stats (player_id, kind, played, won, drawn, points, deals, chips, rating, uncertainty) \
         VALUES ($1, $2, 0, 0, 0, 0, 0, 0, $3, $4) ON CONFLICT (player_id, kind) DO NOTHING",
    )
    .bind(id_text(player))
    .bind(kind)
    .bind(rating)
    .bind(uncertainty)
    .execute(&mut *conn)
    .await?;
    let lock = backend == Backend::Postgres;
    stats_row(conn, player, kind, lock)
        .await?
        .ok_or(sqlx::Error::RowNotFound)
}

/// `player`'s statistics in `kind`, if it finished a match of it.
pub async fn stats(
    conn: &mut AnyConnection,
    player: Uuid,
    kind: &str,
) -> Result<Option<StatsRow>, sqlx::Error> {
    stats_row(conn, player, kind, false).await
}

async fn stats_row(
    conn: &mut AnyConnection,
    player: Uuid,
    kind: &str,
    lock: bool,
) -> Result<Option<StatsRow>, sqlx::Error> {
    let query = if lock {
        "SELECT played, won, drawn, points, deals, chips, rating, uncertainty FROM player_stats \
         WHERE player_id = $1 AND kind = $2 FOR UPDATE"
    } else {
        "SELECT played, won, drawn, points, deals, chips, rating, uncertainty FROM player_stats \
         WHERE player_id = $1 AND kind = $2"
    };
    let row = sqlx::query(query)
        .bind(id_text(player))
        .bind(kind)
        .fetch_optional(conn)
        .await?;
    row.map(|r| {
        Ok(StatsRow {
            player,
            kind: kind.to_owned(),
            played: r.try_get("played")?,
            won: r.try_get("won")?,
            drawn: r.try_get("drawn")?,
            points: r.try_get("points")?,
            deals: r.try_get("deals")?,
            chips: r.try_get("chips")?,
            rating: r.try_get("rating")?,
            uncertainty: r.try_get("uncertainty")?,
        })
    })
    .transpose()
}

/// Writes `stats` over the row [`lock_stats`] locked.
pub async fn save_stats(conn: &mut AnyConnection, stats: &StatsRow) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE player_stats SET played = $3, won = $4, drawn = $5, points = $6, deals = $7, \
         chips = $8, rating = $9, uncertainty = $10 WHERE player_id = $1 AND kind = $2",
    )
    .bind(id_text(stats.player))
    .bind(&stats.kind)
    .bind(stats.played)
    .bind(stats.won)
    .bind(stats.drawn)
    .bind(stats.points)
    .bind(stats.deals)
    .bind(stats.chips)
    .bind(stats.rating)
    .bind(stats.uncertainty)
    .execute(conn)
    .await?;
    Ok(())
}

/// Renames `player`; false for an unknown player.
pub async fn rename(
    conn: &mut AnyConnection,
    player: Uuid,
    name: &str,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query("UPDATE players SET name = $1 WHERE id = $2")
        .bind(name)
        .bind(id_text(player))
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
