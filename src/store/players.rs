//! Players: guest identities and players of an external identity provider.

use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::{id_text, now_micros};

/// A stored player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// The player's id.
    pub id: Uuid,
    /// The name others see.
    pub name: String,
    /// `basic` or `strong` for a computer player; `None` for a person.
    pub bot_level: Option<String>,
}

/// Stores a new guest player.
pub async fn insert(conn: &mut AnyConnection, id: Uuid, name: &str) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO players (id, name, created_at) VALUES ($1, $2, $3)")
        .bind(id_text(id))
        .bind(name)
        .bind(now_micros())
        .execute(conn)
        .await?;
    Ok(())
}

/// Stores a new computer player of `level`.
pub async fn insert_bot(
    conn: &mut AnyConnection,
    id: Uuid,
    name: &str,
    level: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO players (id, name, bot_level, created_at) VALUES ($1, $2, $3, $4)")
        .bind(id_text(id))
        .bind(name)
        .bind(level)
        .bind(now_micros())
        .execute(conn)
        .await?;
    Ok(())
}

/// The player with `id`, if any.
pub async fn get(conn: &mut AnyConnection, id: Uuid) -> Result<Option<PlayerRow>, sqlx::Error> {
    let row = sqlx::query("SELECT id, name, bot_level FROM players WHERE id = $1")
        .bind(id_text(id))
        .fetch_optional(conn)
        .await?;
    row.map(|r| player_from(&r)).transpose()
}

/// The player behind an external identity's `sub`, created on first use.
pub async fn for_external_subject(
    conn: &mut AnyConnection,
    subject: &str,
    name: &str,
) -> Result<PlayerRow, sqlx::Error> {
    sqlx::query(
        "INSERT INTO players (id, name, external_sub, created_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (external_sub) DO NOTHING",
    )
    .bind(id_text(Uuid::new_v4()))
    .bind(name)
    .bind(subject)
    .bind(now_micros())
    .execute(&mut *conn)
    .await?;
    let row = sqlx::query("SELECT id, name, bot_level FROM players WHERE external_sub = $1")
        .bind(subject)
        .fetch_one(conn)
        .await?;
    player_from(&row)
}

pub(super) fn player_from(row: &sqlx::any::AnyRow) -> Result<PlayerRow, sqlx::Error> {
    Ok(PlayerRow {
        id: parse_uuid(row.try_get::<&str, _>("id")?)?,
        name: row.try_get("name")?,
        bot_level: row.try_get("bot_level")?,
    })
}

pub(super) fn parse_uuid(text: impl AsRef<str>) -> Result<Uuid, sqlx::Error> {
    Uuid::parse_str(text.as_ref()).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

/// The player's current token generation, if the player exists. Tokens of
/// an earlier generation were signed out.
pub async fn token_generation(
    conn: &mut AnyConnection,
    id: Uuid,
) -> Result<Option<i64>, sqlx::Error> {
    let row = sqlx::query("SELECT token_generation FROM players WHERE id = $1")
        .bind(id_text(id))
        .fetch_optional(conn)
        .await?;
    row.map(|r| r.try_get("token_generation")).transpose()
}

/// Signs the player out everywhere: starts a new token generation and
/// returns it (`None` for an unknown player).
pub async fn next_token_generation(
    conn: &mut AnyConnection,
    id: Uuid,
) -> Result<Option<i64>, sqlx::Error> {
    // Read to its end, not to its first row: outside a transaction the
    // statement commits after its row is sent, and a sign-out must not be
    // answered before it is committed (a server shutting down for a
    // failover in between would undo it).
    let rows = sqlx::query(
        "UPDATE players SET token_generation = token_generation + 1 WHERE id = $1 \
         RETURNING token_generation",
    )
    .bind(id_text(id))
    .fetch_all(conn)
    .await?;
    rows.first()
        .map(|r| r.try_get("token_generation"))
        .transpose()
}
