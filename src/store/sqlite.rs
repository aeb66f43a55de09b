//! SQLite's settings: WAL, one writer connection, and checkpoints copied
//! by a read connection so that no writer waits for them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use sqlx::any::AnyConnectOptions;
use sqlx::{AnyConnection, AnyPool, ConnectOptions, Connection};

use super::connect::{PING_IDLE_AFTER, pool_options};

/// Set on every SQLite connection. WAL lets readers go on while one writer
/// holds the lock. It is turned on before the pools open and the file keeps
/// it; every connection sets it too (a read of the file, which then needs
/// no lock of its own), because one that has not read the file yet does
/// not know, and its checkpoint would find no log to copy. With
/// NORMAL syncs at checkpoints, not at every commit: a commit survives a
/// crash of the process, and the last ones may be lost only if the machine
/// itself goes down. A write outside the writer connection (an autocommit
/// statement on a read connection) waits up to 5 s for the write lock.
const PRAGMAS: [&str; 3] = [
    "PRAGMA busy_timeout = 5000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
];

/// How many writes the writer makes between two checkpoints, which a read
/// connection runs ([`note_write`]). A move adds about six pages to the
/// log, so this is about 1,500 pages, near SQLite's own default of 1,000.
pub(super) const CHECKPOINT_EVERY: u32 = 256;

/// How many frames of the log [`copy_log`] may leave to the writer.
const CHECKPOINT_LEFT: i64 = 64;

/// How many times [`copy_log`] copies at most.
const CHECKPOINT_ROUNDS: usize = 4;

/// Turns WAL on, which needs the file to itself: once, on a connection of
/// its own, before the pools open several side by side.
pub(super) async fn turn_on_wal(options: &AnyConnectOptions) -> Result<(), sqlx::Error> {
    let mut conn = options.connect().await?;
    sqlx::query("PRAGMA journal_mode = WAL")
        .execute(&mut conn)
        .await?;
    conn.close().await
}

/// Sets [`PRAGMAS`] on a new connection.
pub(super) async fn set_pragmas(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    for pragma in PRAGMAS {
        sqlx::query(pragma).execute(&mut *conn).await?;
    }
    Ok(())
}

/// The writer's writes since the last checkpoint, and whether one is
/// running.
#[derive(Debug, Default)]
pub(super) struct Checkpoints {
    writes: AtomicU32,
    running: AtomicBool,
    /// A read connection's checkpoint has copied the log up to where it
    /// began: the writer copies the rest before its next write.
    copied: AtomicBool,
}

/// A checkpoint running: it is over when this drops, finished or not.
struct CheckpointRunning(Arc<Checkpoints>);

impl Drop for CheckpointRunning {
    fn drop(&mut self) {
        self.0.running.store(false, Ordering::Release);
    }
}

/// The writer's pool: one connection, handed out first come, first served,
/// whose commits leave the log to be copied by a read connection of
/// `readers`. Every hand-out is for a write, and counts as one in
/// `checkpoints` ([`note_write`]).
pub(super) async fn writer(
    options: &AnyConnectOptions,
    readers: &AnyPool,
    acquire_timeout: Duration,
    checkpoints: Arc<Checkpoints>,
) -> Result<AnyPool, sqlx::Error> {
    let readers = readers.clone();
    pool_options(1, acquire_timeout)
        .min_connections(1)
        .after_connect(|conn, _| {
            Box::pin(async move {
                set_pragmas(conn).await?;
                sqlx::query("PRAGMA wal_autocheckpoint = 0")
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            })
        })
        .before_acquire(move |conn, meta| {
            let (checkpoints, readers) = (Arc::clone(&checkpoints), readers.clone());
            Box::pin(async move {
                if meta.idle_for >= PING_IDLE_AFTER {
                    conn.ping().await?;
                }
                note_write(conn, &checkpoints, &readers).await;
                Ok(true)
            })
        })
        .connect_with(options.clone())
        .await
}

/// Counts a write by the writer and, every [`CHECKPOINT_EVERY`] writes,
/// has a read connection of `readers` copy the log into the database file
/// (`PRAGMA wal_checkpoint(PASSIVE)`: it copies what no reader still needs
/// and waits for no one). The writer never does it itself
/// (`wal_autocheckpoint = 0`): a checkpoint, with its syncs, inside a
/// writer's commit would hold every writer queued behind it.
///
/// A checkpoint copies the log up to where it began, while the writer
/// adds to it; SQLite starts the log over only once it is copied to its
/// end, so the writer, on `conn`, copies what was added since (a few
/// writes' pages) before its next write, and the log does not grow
/// without end.
async fn note_write(conn: &mut AnyConnection, checkpoints: &Arc<Checkpoints>, readers: &AnyPool) {
    if checkpoints.copied.swap(false, Ordering::AcqRel) {
        let rest = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)");
        if let Err(error) = rest.execute(&mut *conn).await {
            tracing::warn!(%error, "an SQLite checkpoint failed");
        }
    }
    if checkpoints.writes.fetch_add(1, Ordering::Relaxed) + 1 < CHECKPOINT_EVERY
        || checkpoints.running.swap(true, Ordering::AcqRel)
    {
        return;
    }
    checkpoints.writes.store(0, Ordering::Relaxed);
    let running = CheckpointRunning(Arc::clone(checkpoints));
    let readers = readers.clone();
    tokio::spawn(async move {
        match copy_log(&readers).await {
            Ok(()) => running.0.copied.store(true, Ordering::Release),
            Err(error) => tracing::warn!(%error, "an SQLite checkpoint failed"),
        }
        drop(running);
    });
}

/// Copies the log into the database file on a read connection, and again
/// while the writer has added more than [`CHECKPOINT_LEFT`] frames (pages)
/// meanwhile, at most [`CHECKPOINT_ROUNDS`] times: what is left is for the
/// writer to copy before its next write ([`note_write`]), so it should be
/// little.
async fn copy_log(pool: &AnyPool) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    for _ in 0..CHECKPOINT_ROUNDS {
        let (_busy, log, copied): (i64, i64, i64) =
            sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                .fetch_one(&mut *conn)
                .await?;
        if log - copied <= CHECKPOINT_LEFT {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Database;
    use crate::store::Store;

    /// A new SQLite file's read pool and writer pool, as the store opens
    /// them, with the writer's checkpoints, the file's folder (removed when
    /// dropped) and the file's path.
    async fn pools() -> (
        tempfile::TempDir,
        std::path::PathBuf,
        AnyPool,
        AnyPool,
        Arc<Checkpoints>,
    ) {
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kaarttafel.db");
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let options: AnyConnectOptions = url.parse().unwrap();
        turn_on_wal(&options).await.unwrap();
        let readers = pool_options(2, Duration::from_secs(5))
            .after_connect(|conn, _| Box::pin(async move { set_pragmas(conn).await }))
            .connect_with(options.clone())
            .await
            .unwrap();
        let checkpoints = Arc::new(Checkpoints::default());
        let writer = writer(
            &options,
            &readers,
            Duration::from_secs(5),
            Arc::clone(&checkpoints),
        )
        .await
        .unwrap();
        (dir, path, readers, writer, checkpoints)
    }

    /// SQLite's writer commits without copying the log into the database
    /// file, which would hold every queued writer for the copy and its
    /// syncs; after every [`CHECKPOINT_EVERY`] writes a read connection
    /// copies it, beside the writer.
    #[tokio::test]
    async fn sqlite_checkpoints_are_left_by_the_writer_to_a_read_connection_and_the_log_starts_over()
     {
        let (_dir, path, readers, writer, checkpoints) = pools().await;
        for (mut conn, expected) in [
            (writer.acquire().await.unwrap(), 0),
            (readers.acquire().await.unwrap(), 1000),
        ] {
            let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
                .fetch_one(&mut *conn)
                .await
                .unwrap();
            assert_eq!(pages, expected);
        }
        sqlx::query("CREATE TABLE scratch (b TEXT)")
            .execute(&writer)
            .await
            .unwrap();
        let file_len = || std::fs::metadata(&path).unwrap().len();
        let before = file_len();
        let row = "x".repeat(4096);
        let write_rows = async |count: u32| {
            for _ in 0..count {
                sqlx::query("INSERT INTO scratch (b) VALUES ($1)")
                    .bind(&row)
                    .execute(&writer)
                    .await
                    .unwrap();
            }
        };
        write_rows(CHECKPOINT_EVERY).await;
        let written = u64::from(CHECKPOINT_EVERY) * 4096;
        for _ in 0..100 {
            if file_len() >= before + written {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            file_len() >= before + written,
            "the database file holds {} bytes after {written} were written",
            file_len()
        );
        // The log starts over once copied to its end: eight more rounds of
        // writes leave it at a few rounds' pages (each row takes two), not
        // at every page written since the start. Each round waits for the
        // checkpoint it started, so a slow disk (whose syncs make the
        // checkpoints lag the writes) does not decide the outcome.
        for _ in 0..8 {
            write_rows(CHECKPOINT_EVERY).await;
            for _ in 0..200 {
                if !checkpoints.running.load(Ordering::Acquire) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let log = std::fs::metadata(path.with_extension("db-wal"))
            .unwrap()
            .len();
        assert!(log < 9 * written, "the log holds {log} bytes");
        writer.close().await;
        readers.close().await;
    }

    /// A graceful stop closes the store while the scheduler (on the main
    /// runtime) may still hold SQLite's writer connection: the close waits
    /// for it, and finishes once it is given back.
    #[tokio::test]
    async fn a_writer_connection_given_back_while_the_store_closes_lets_the_close_finish() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kaarttafel.db");
        let database = Database::Sqlite(path.to_str().unwrap().to_owned());
        let store = Store::connect(&database, Duration::from_secs(5))
            .await
            .unwrap();
        let held = store.begin_write().await.unwrap();
        let closing = tokio::spawn({
            let store = store.clone();
            async move { store.close().await }
        });
        // The close has begun and waits for the held connection.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!closing.is_finished());
        held.commit().await.unwrap();
        tokio::time::timeout(Duration::from_secs(10), closing)
            .await
            .expect("the close finishes once the writer is given back")
            .unwrap();
        assert!(
            store.begin_write().await.is_err(),
            "a closed store lends no writer"
        );
    }
}
