//! Postgres `LISTEN` for changes accepted by any instance. A dropped
//! connection is reconnected, and every waiter re-checks its game then, since
//! notifications sent while it was down are lost.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use uuid::Uuid;

use crate::notify::Notifier;

/// The channel changes are announced on, as `<game id>:<version>`.
pub const CHANNEL: &str = "kaarttafel_games";

/// Listens until the notifier shuts down.
pub async fn run(url: String, notifier: Arc<Notifier>) {
    while !notifier.is_shutting_down() {
        let mut listener = match connect(&url).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "LISTEN connection failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        // Whatever was announced before this connection listened is missed.
        notifier.recheck_all();
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => {
                    if let Some((game, version)) = parse(notification.payload()) {
                        notifier.publish(game, version);
                    }
                }
                Ok(None) => {
                    tracing::warn!("LISTEN connection lost; reconnected, re-checking every stream");
                    notifier.recheck_all();
                }
                Err(error) => {
                    tracing::warn!(%error, "LISTEN failed; reconnecting");
                    break;
                }
            }
        }
    }
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

fn parse(payload: &str) -> Option<(Uuid, i64)> {
    let (game, version) = payload.split_once(':')?;
    Some((Uuid::parse_str(game).ok()?, version.parse().ok()?))
}

/// Announces, inside the change's transaction, that `game` reached
/// `version`; Postgres delivers it to every listener when the transaction commits.
pub async fn announce(
    conn: &mut sqlx::AnyConnection,
    game: Uuid,
    version: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(format!("{game}:{version}"))
        .execute(conn)
        .await?;
    Ok(())
}
