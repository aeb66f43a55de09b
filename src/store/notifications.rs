//! Notifications: players' subscriptions (Web Push and webhooks), the
//! transactional outbox they are delivered from, and players' presence at
//! games (migration 0061, docs/notifications.md).

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use uuid::Uuid;

use super::players::parse_uuid;
use super::{Backend, id_text};

/// A subscription as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionRow {
    /// Its id.
    pub id: Uuid,
    /// Whose.
    pub player: Uuid,
    /// `web_push` or `webhook`.
    pub kind: String,
    /// The push service's endpoint, or the webhook's URL.
    pub url: String,
    /// Web Push: the browser's P-256 public key (base64url).
    pub p256dh: Option<String>,
    /// Web Push: the browser's authentication secret (base64url).
    pub auth: Option<String>,
    /// Webhook: the signing secret, `whsec_` + base64.
    pub secret: Option<String>,
    /// When it was made, Unix microseconds.
    pub created_at: i64,
}

const SUBSCRIPTION_COLUMNS: &str = "id, player_id, kind, url, p256dh, auth, secret, created_at";

fn subscription(row: &AnyRow) -> Result<SubscriptionRow, sqlx::Error> {
    Ok(SubscriptionRow {
        id: parse_uuid(row.try_get::<String, _>("id")?)?,
        player: parse_uuid(row.try_get::<String, _>("player_id")?)?,
        kind: row.try_get("kind")?,
        url: row.try_get("url")?,
        p256dh: row.try_get("p256dh")?,
        auth: row.try_get("auth")?,
        secret: row.try_get("secret")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Takes player `player`'s row lock (Postgres) until the transaction ends,
/// so that two subscriptions made at once are counted one after the other;
/// on SQLite the write transaction holds the file's lock already.
pub async fn lock_player(
    conn: &mut AnyConnection,
    backend: Backend,
    player: Uuid,
) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT id FROM players WHERE id = $1 FOR UPDATE")
            .bind(id_text(player))
            .fetch_optional(conn)
            .await?;
    }
    Ok(())
}

/// Stores `row`; a subscription of the same player to the same URL is
/// replaced (its keys or secret), keeping its id. Returns the id stored.
pub async fn upsert_subscription(
    conn: &mut AnyConnection,
    row: &SubscriptionRow,
) -> Result<Uuid, sqlx::Error> {
    let id: String = sqlx::query_scalar(
        "INSERT INTO push_subscriptions (id, player_id, kind, url, p256dh, auth, secret, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT (player_id, url) DO UPDATE SET kind = excluded.kind, p256dh = excluded.p256dh, \
         auth = excluded.auth, secret = excluded.secret RETURNING id",
    )
    .bind(id_text(row.id))
    .bind(id_text(row.player))
    .bind(&row.kind)
    .bind(&row.url)
    .bind(row.p256dh.as_deref())
    .bind(row.auth.as_deref())
    .bind(row.secret.as_deref())
    .bind(row.created_at)
    .fetch_one(conn)
    .await?;
    parse_uuid(id)
}

/// Player `player`'s subscriptions, oldest first.
pub async fn subscriptions_of(
    conn: &mut AnyConnection,
    player: Uuid,
) -> Result<Vec<SubscriptionRow>, sqlx::Error> {
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE player_id = $1 \
         ORDER BY created_at, id"
    )))
    .bind(id_text(player))
    .fetch_all(conn)
    .await?;
    rows.iter().map(subscription).collect()
}

/// `$a, $a+1, … $b-1` for the numbers `a..b`.
fn placeholders(numbers: std::ops::Range<usize>) -> String {
    numbers
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The subscriptions with these ids (those still there).
pub async fn subscriptions_by_id(
    conn: &mut AnyConnection,
    ids: &[Uuid],
) -> Result<Vec<SubscriptionRow>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let statement = format!(
        "SELECT {SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE id IN ({})",
        placeholders(1..ids.len() + 1)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
    for id in ids {
        query = query.bind(id_text(*id));
    }
    let rows = query.fetch_all(conn).await?;
    rows.iter().map(subscription).collect()
}

/// Removes subscription `id` of `player` (any player's with `None`), with
/// what its outbox still held; whether there was one.
pub async fn delete_subscription(
    conn: &mut AnyConnection,
    id: Uuid,
    player: Option<Uuid>,
) -> Result<bool, sqlx::Error> {
    sqlx::query("DELETE FROM notification_outbox WHERE subscription_id = $1")
        .bind(id_text(id))
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query(
        "DELETE FROM push_subscriptions WHERE id = $1 AND ($2 IS NULL OR player_id = $2)",
    )
    .bind(id_text(id))
    .bind(player.map(id_text))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A notification: what it says, to whom, and for how long it is worth
/// sending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// Its id, the same for every subscription and retry.
    pub id: Uuid,
    /// Who is told.
    pub player: Uuid,
    /// The game it is about.
    pub game: Option<Uuid>,
    /// `your_turn`, `clock_low`, `game_started`, `game_finished`, …
    pub kind: String,
    /// The game's version it was written at.
    pub version: Option<i64>,
    /// The JSON sent.
    pub payload: String,
    /// When it was written, Unix microseconds.
    pub created_at: i64,
    /// When it is no use any more (Web Push `TTL`).
    pub expires_at: i64,
}

/// Writes `caused` (each notification with when it is first tried) to the
/// outbox: a row for each subscription of the notification's player, none
/// without one; how many rows. One statement for them all.
pub async fn enqueue(
    conn: &mut AnyConnection,
    caused: &[(Notification, i64)],
) -> Result<u64, sqlx::Error> {
    if caused.is_empty() {
        return Ok(0);
    }
    let statement = outbox_insert(caused.len(), 1);
    let query = bind_outbox(sqlx::query(sqlx::AssertSqlSafe(statement)), caused);
    Ok(query.execute(conn).await?.rows_affected())
}

/// How many placeholders [`outbox_insert`] takes per notification.
const OUTBOX_FIELDS: usize = 9;

/// The `INSERT … SELECT` of [`enqueue`] for `count` notifications, their
/// fields bound from `$first` on ([`bind_outbox`]): the notifications as a
/// `VALUES` list, joined to their players' subscriptions. A statement
/// writing a change puts it after its own (a `WITH` part on Postgres), so
/// the outbox is written with the change or not at all.
pub(crate) fn outbox_insert(count: usize, first: usize) -> String {
    let rows: Vec<String> = (0..count)
        .map(|i| {
            let at = first + i * OUTBOX_FIELDS;
            format!("({})", placeholders(at..at + OUTBOX_FIELDS))
        })
        .collect();
    // A `VALUES` list's columns are column1, column2, … on both databases.
    format!(
        "INSERT INTO notification_outbox (notification_id, subscription_id, player_id, game_id, \
         kind, version, payload, created_at, expires_at, next_at, attempts) \
         SELECT v.column1, s.id, s.player_id, v.column3, v.column4, v.column5, v.column6, \
         v.column7, v.column8, v.column9, 0 \
         FROM (VALUES {}) AS v JOIN push_subscriptions s ON s.player_id = v.column2",
        rows.join(", ")
    )
}

/// Binds the fields of [`outbox_insert`]'s notifications, in its order.
pub(crate) fn bind_outbox<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    caused: &'q [(Notification, i64)],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    for (notification, not_before) in caused {
        query = query
            .bind(id_text(notification.id))
            .bind(id_text(notification.player))
            .bind(notification.game.map(id_text))
            .bind(&notification.kind)
            .bind(notification.version)
            .bind(&notification.payload)
            .bind(notification.created_at)
            .bind(notification.expires_at)
            .bind(*not_before);
    }
    query
}

/// An outbox row taken for delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxRow {
    /// The notification.
    pub notification: Notification,
    /// The subscription it goes to.
    pub subscription: Uuid,
    /// Attempts so far, this one included.
    pub attempts: i64,
}

/// Takes up to `limit` outbox rows due at `now` for delivery: each is held
/// until `lease_until` (another instance takes it only after that) and
/// counts one attempt more. On Postgres rows another instance is taking at
/// the same time are skipped (`FOR UPDATE SKIP LOCKED`); on SQLite call it
/// in a write transaction.
pub async fn take_due(
    conn: &mut AnyConnection,
    backend: Backend,
    now: i64,
    lease_until: i64,
    limit: i64,
) -> Result<Vec<OutboxRow>, sqlx::Error> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let statement = format!(
        "UPDATE notification_outbox SET next_at = $1, attempts = attempts + 1 \
         WHERE (notification_id, subscription_id) IN (SELECT notification_id, subscription_id \
         FROM notification_outbox WHERE next_at <= $2 ORDER BY next_at LIMIT $3{lock}) \
         RETURNING notification_id, subscription_id, player_id, game_id, kind, version, payload, \
         created_at, expires_at, attempts"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(statement))
        .bind(lease_until)
        .bind(now)
        .bind(limit)
        .fetch_all(conn)
        .await?;
    rows.iter()
        .map(|row| {
            Ok(OutboxRow {
                notification: Notification {
                    id: parse_uuid(row.try_get::<String, _>("notification_id")?)?,
                    player: parse_uuid(row.try_get::<String, _>("player_id")?)?,
                    game: row
                        .try_get::<Option<String>, _>("game_id")?
                        .map(parse_uuid)
                        .transpose()?,
                    kind: row.try_get("kind")?,
                    version: row.try_get("version")?,
                    payload: row.try_get("payload")?,
                    created_at: row.try_get("created_at")?,
                    expires_at: row.try_get("expires_at")?,
                },
                subscription: parse_uuid(row.try_get::<String, _>("subscription_id")?)?,
                attempts: row.try_get("attempts")?,
            })
        })
        .collect()
}

/// Removes an outbox row: delivered, dropped or suppressed.
pub async fn remove(
    conn: &mut AnyConnection,
    id: Uuid,
    subscription: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM notification_outbox WHERE notification_id = $1 AND subscription_id = $2",
    )
    .bind(id_text(id))
    .bind(id_text(subscription))
    .execute(conn)
    .await?;
    Ok(())
}

/// Tries an outbox row again at `next_at`.
pub async fn retry_at(
    conn: &mut AnyConnection,
    id: Uuid,
    subscription: Uuid,
    next_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE notification_outbox SET next_at = $1 \
         WHERE notification_id = $2 AND subscription_id = $3",
    )
    .bind(next_at)
    .bind(id_text(id))
    .bind(id_text(subscription))
    .execute(conn)
    .await?;
    Ok(())
}

/// When the oldest notification still in the outbox was written.
pub async fn oldest(conn: &mut AnyConnection) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT MIN(created_at) FROM notification_outbox")
        .fetch_one(conn)
        .await
}

/// When the next outbox row is due, if any.
pub async fn next_due(conn: &mut AnyConnection) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT MIN(next_at) FROM notification_outbox")
        .fetch_one(conn)
        .await
}

/// What is known at delivery about a turn a notification announced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnNow {
    /// The game's status now (`None`: the game is gone).
    pub status: Option<String>,
    /// Whether the player, or the clock for the player, made a change to the
    /// game after the notification's version.
    pub acted_since: bool,
    /// When the player last read the game (0: never).
    pub seen_at: i64,
    /// Until when a stream or long poll the player holds on it counts.
    pub watching_until: i64,
}

/// [`TurnNow`] of `player` at `game` after `version`, in one statement.
pub async fn turn_now(
    conn: &mut AnyConnection,
    player: Uuid,
    game: Uuid,
    version: i64,
) -> Result<TurnNow, sqlx::Error> {
    let row = sqlx::query(
        "SELECT (SELECT status FROM games WHERE id = $1) AS status, \
         CAST(CASE WHEN EXISTS (SELECT 1 FROM game_events WHERE game_id = $1 AND seq > $2 \
             AND player_id = $3) THEN 1 ELSE 0 END AS BIGINT) AS acted, \
         COALESCE((SELECT seen_at FROM player_presence WHERE player_id = $3 AND game_id = $1), 0) AS seen_at, \
         COALESCE((SELECT watching_until FROM player_presence WHERE player_id = $3 AND game_id = $1), 0) AS watching_until",
    )
    .bind(id_text(game))
    .bind(version)
    .bind(id_text(player))
    .fetch_one(conn)
    .await?;
    Ok(TurnNow {
        status: row.try_get("status")?,
        acted_since: row.try_get::<i64, _>("acted")? == 1,
        seen_at: row.try_get("seen_at")?,
        watching_until: row.try_get("watching_until")?,
    })
}

/// Notes that `player` read `game` at `seen_at` and/or watches it until
/// `watching_until` (0 leaves either as it is); times only move forward.
pub async fn note_presence(
    conn: &mut AnyConnection,
    player: Uuid,
    game: Uuid,
    seen_at: i64,
    watching_until: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO player_presence (player_id, game_id, seen_at, watching_until) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (player_id, game_id) DO UPDATE SET \
         seen_at = CASE WHEN excluded.seen_at > player_presence.seen_at \
             THEN excluded.seen_at ELSE player_presence.seen_at END, \
         watching_until = CASE WHEN excluded.watching_until > player_presence.watching_until \
             THEN excluded.watching_until ELSE player_presence.watching_until END",
    )
    .bind(id_text(player))
    .bind(id_text(game))
    .bind(seen_at)
    .bind(watching_until)
    .execute(conn)
    .await?;
    Ok(())
}

/// Forgets presence last noted before `before`; how many rows.
pub async fn forget_presence(conn: &mut AnyConnection, before: i64) -> Result<u64, sqlx::Error> {
    let done =
        sqlx::query("DELETE FROM player_presence WHERE seen_at < $1 AND watching_until < $1")
            .bind(before)
            .execute(conn)
            .await?;
    Ok(done.rows_affected())
}
