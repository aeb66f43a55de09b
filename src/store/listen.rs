//! Postgres `LISTEN` for changes accepted by any instance, while someone
//! on this instance waits for one (a stream or a long poll; see
//! `notify`). A dropped connection is reconnected, and every waiter
//! re-checks its game then, since notifications sent while it was down are
//! lost.

use std::sync::Arc;
use std::time::Duration;

use sqlx::AnyConnection;
use sqlx::postgres::PgListener;
use uuid::Uuid;

use super::Store;
use crate::notify::{LISTEN_GRACE, Notifier};

/// The channel changes are announced on, as `<game id>:<version>`.
pub const CHANNEL: &str = "kaarttafel_games";

/// Listens while someone waits, until the notifier shuts down. The
/// connection goes to the server `store` writes to, and moves with it.
pub async fn run(store: Store, notifier: Arc<Notifier>) {
    notifier.expect_listener();
    while !notifier.is_shutting_down() {
        notifier.someone_waits().await;
        listen_while_waited_for(&store, &notifier).await;
    }
}

/// Listens until nobody has waited for [`LISTEN_GRACE`] (or on shutdown),
/// then closes the connection.
async fn listen_while_waited_for(store: &Store, notifier: &Notifier) {
    tokio::select! {
        () = listen(store, notifier) => {}
        () = notifier.nobody_waits_for(LISTEN_GRACE) => {}
    }
    notifier.set_listening(false);
}

/// Listens, reconnecting after failures and when the server written to
/// changes (notifications are sent there), until shutdown.
async fn listen(store: &Store, notifier: &Notifier) {
    let Some(mut moved) = store.postgres_changes() else {
        return;
    };
    while !notifier.is_shutting_down() {
        moved.mark_unchanged();
        let mut listener = match connect(store).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "LISTEN connection failed; retrying");
                store.lost();
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        notifier.set_listening(true);
        // Whatever was announced before this connection listened is missed.
        notifier.recheck_all();
        loop {
            let received = tokio::select! {
                received = listener.try_recv() => received,
                _ = moved.changed() => {
                    tracing::info!("LISTEN moves to the database server that takes writes");
                    notifier.set_listening(false);
                    break;
                }
            };
            match received {
                Ok(Some(notification)) => {
                    if let Some(player) = parse_sign_out(notification.payload()) {
                        notifier.signed_out(player);
                    } else if let Some(change) = parse(notification.payload()) {
                        notifier.publish(change.game, change.version);
                        notifier.work_due(change.due_at);
                    }
                }
                Ok(None) => {
                    // Reconnected here, to the server written to now, which
                    // re-checks every stream.
                    tracing::warn!("LISTEN connection lost; reconnecting");
                    store.lost();
                    notifier.set_listening(false);
                    break;
                }
                Err(error) => {
                    tracing::warn!(%error, "LISTEN failed; reconnecting");
                    store.lost();
                    notifier.set_listening(false);
                    break;
                }
            }
        }
    }
}

async fn connect(store: &Store) -> Result<PgListener, sqlx::Error> {
    let url = store
        .postgres_url()
        .ok_or_else(|| sqlx::Error::Configuration("LISTEN needs Postgres".into()))?;
    let mut listener = PgListener::connect(&url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// A change as announced.
#[derive(Debug, PartialEq, Eq)]
struct Announced {
    game: Uuid,
    version: i64,
    /// When automatic work on the game falls due.
    due_at: Option<i64>,
}

/// Reads `<game>:<version>:<due_at or ->`. An announcement of an earlier
/// release (no due time) counts as work due now, which wakes the scheduler
/// as that release's announcements did.
fn parse(payload: &str) -> Option<Announced> {
    let mut parts = payload.split(':');
    let game = Uuid::parse_str(parts.next()?).ok()?;
    let version = parts.next()?.parse().ok()?;
    let due_at = match parts.next() {
        None => Some(i64::MIN),
        Some("-") => None,
        Some(due) => Some(due.parse().ok()?),
    };
    if parts.next().is_some() {
        return None;
    }
    Some(Announced {
        game,
        version,
        due_at,
    })
}

/// What announces that a player signed out everywhere, before its id.
const SIGNED_OUT: &str = "signed_out:";

/// Reads `signed_out:<player>`. (An earlier release's [`parse`] reads no
/// game in it, and ignores it.)
fn parse_sign_out(payload: &str) -> Option<Uuid> {
    Uuid::parse_str(payload.strip_prefix(SIGNED_OUT)?).ok()
}

/// Tells every instance that `player` signed out everywhere, so that each
/// ends that player's streams and long polls at once (Postgres; on SQLite
/// every stream is this instance's).
pub async fn announce_sign_out(conn: &mut AnyConnection, player: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(format!("{SIGNED_OUT}{player}"))
        .execute(conn)
        .await?;
    Ok(())
}

/// The payload announcing that `game` reached `version`, with automatic
/// work due at `due_at`.
pub(super) fn payload(game: Uuid, version: i64, due_at: Option<i64>) -> String {
    match due_at {
        Some(due) => format!("{game}:{version}:{due}"),
        None => format!("{game}:{version}:-"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_reads_back_as_it_was_made() {
        let game = Uuid::new_v4();
        for due_at in [None, Some(0), Some(1_796_131_084_226_878), Some(-5)] {
            let read = parse(&payload(game, 7, due_at));
            assert_eq!(
                read,
                Some(Announced {
                    game,
                    version: 7,
                    due_at
                })
            );
        }
    }

    /// Every instance reads what any other writes, during an upgrade an
    /// earlier release's too: the text is the one `format!` wrote.
    #[test]
    fn an_announcement_is_written_as_earlier_releases_wrote_it() {
        let game = Uuid::new_v4();
        for version in [0, 7, 1_000_000, i64::MAX, -1, i64::MIN] {
            assert_eq!(payload(game, version, None), format!("{game}:{version}:-"));
            for due in [0, -5, 1_796_131_084_226_878, i64::MAX, i64::MIN] {
                assert_eq!(
                    payload(game, version, Some(due)),
                    format!("{game}:{version}:{due}")
                );
            }
        }
    }

    #[test]
    fn an_earlier_releases_announcement_counts_as_work_due_now() {
        let game = Uuid::new_v4();
        let read = parse(&format!("{game}:3")).expect("read");
        assert_eq!((read.version, read.due_at), (3, Some(i64::MIN)));
    }

    #[test]
    fn a_sign_out_reads_back_and_is_no_change_of_a_game() {
        let player = Uuid::new_v4();
        let announced = format!("{SIGNED_OUT}{player}");
        assert_eq!(parse_sign_out(&announced), Some(player));
        assert_eq!(parse(&announced), None);
        assert_eq!(parse_sign_out(&payload(player, 1, None)), None);
    }

    #[test]
    fn a_malformed_announcement_is_ignored() {
        let game = Uuid::new_v4();
        for bad in [
            "x:1:-".to_owned(),
            format!("{game}"),
            format!("{game}:v:-"),
            format!("{game}:1:soon"),
            format!("{game}:1:-:extra"),
        ] {
            assert_eq!(parse(&bad), None, "{bad}");
        }
    }
}
