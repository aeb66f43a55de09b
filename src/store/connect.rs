//! Opening the store: the pools, the SQLite file's settings, the Postgres
//! database created on first start, and the migrations.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::pool::PoolConnectionMetadata;
use sqlx::{AnyConnection, ConnectOptions, Connection};

use super::primary::Primary;
use super::retry::unavailable;
use super::{Backend, MIGRATOR, Store, WorkerPools, sqlite};
use crate::config::Database;

/// Postgres connections of the main runtime: the scheduler, the storage
/// clean-up and starting; requests use their worker's own pool.
const MAIN_CONNECTIONS: u32 = 4;

/// SQLite connections for reads (the writer has one of its own).
const SQLITE_READERS: u32 = 8;

/// A pooled connection idle for longer than this is pinged before it is
/// handed out. One used more recently answered the ping sqlx sends when a
/// connection is given back a moment ago, so under load no request waits
/// for a ping.
pub const PING_IDLE_AFTER: Duration = Duration::from_secs(1);

/// How long starting waits for the database to come up.
pub const STARTUP_WAIT: Duration = Duration::from_secs(10);

/// Pool options shared by every pool: at most `max` connections, none
/// closed for idling or age, a wait of `acquire_timeout` at most, and a
/// ping only for a connection idle longer than [`PING_IDLE_AFTER`].
pub(super) fn pool_options(max: u32, acquire_timeout: Duration) -> AnyPoolOptions {
    AnyPoolOptions::new()
        .max_connections(max)
        .idle_timeout(None)
        .max_lifetime(None)
        .acquire_timeout(acquire_timeout)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| Box::pin(ping_if_idle(conn, meta)))
}

/// Pool options of a Postgres pool: [`pool_options`], each new connection
/// checked to be as `target_session_attrs` asks ([`Primary::check_new`]),
/// and a connection opened before the server written to was lost closed
/// instead of handed out.
pub(super) fn postgres_pool_options(
    primary: &Arc<Primary>,
    max: u32,
    acquire_timeout: Duration,
) -> AnyPoolOptions {
    let checked = Arc::downgrade(primary);
    let handed = Arc::downgrade(primary);
    pool_options(max, acquire_timeout)
        .after_connect(move |conn, _| {
            let primary = checked.upgrade();
            Box::pin(async move {
                if let Some(primary) = primary {
                    primary.check_new(conn).await?;
                }
                keep_heap(conn).await
            })
        })
        .before_acquire(move |conn, meta| {
            let stale = handed
                .upgrade()
                .is_some_and(|primary| primary.opened_before_lost(meta.age));
            Box::pin(async move {
                if stale {
                    return Ok(false);
                }
                ping_if_idle(conn, meta).await
            })
        })
}

/// Has a new connection's backend keep the heap it frees, as a backend
/// that once freed a large block does.
///
/// glibc's malloc gives the free top of a process's heap back to the
/// kernel once it passes the trim threshold, 128 KiB at first. A game's
/// read frees more than that at the end of its statement, so a backend at
/// that threshold gives the pages back after every read and faults them in
/// again, zeroed, on the next. Freeing a block too large for the heap
/// (mmapped) raises the threshold to twice its size for the life of the
/// process (mallopt(3), `M_MMAP_THRESHOLD`): whether a backend has done
/// so depends on what it happened to run. This statement frees one
/// of 1 MiB, so every backend of ours keeps up to 2 MiB of freed heap
/// (docs/performance.md). Run once, so not kept in the connection's
/// statement cache.
async fn keep_heap(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT length(repeat('x', 1048576))")
        .persistent(false)
        .execute(conn)
        .await
        .map(drop)
}

/// A pooled connection idle for [`PING_IDLE_AFTER`] or longer is pinged
/// before it is handed out (a broken one is closed and another taken).
pub(super) async fn ping_if_idle(
    conn: &mut AnyConnection,
    meta: PoolConnectionMetadata,
) -> Result<bool, sqlx::Error> {
    if meta.idle_for >= PING_IDLE_AFTER {
        conn.ping().await?;
    }
    Ok(true)
}

impl Store {
    /// Connects (creating the SQLite file if needed) and applies the migrations.
    /// Several instances may start at once: sqlx serialises migrations with a lock.
    ///
    /// `acquire_timeout` bounds every later wait for a connection, opening a
    /// new one included (sqlx caps the connect with it), so a request never
    /// waits longer for a database that is away. Starting waits up to
    /// [`STARTUP_WAIT`] for the database to come up.
    pub async fn connect(
        database: &Database,
        acquire_timeout: Duration,
    ) -> Result<Store, sqlx::Error> {
        sqlx::any::install_default_drivers();
        // Postgres: the server of `DATABASE_URL`'s list that takes writes
        // (see `primary`); every pool of the store follows it.
        let pools = Arc::new(Mutex::new(Vec::new()));
        let (primary, backend, max) = match database {
            Database::Postgres(url) => {
                let primary = Primary::new(url.expose(), Arc::clone(&pools))?;
                primary.find_at_start(STARTUP_WAIT).await?;
                create_missing_database(&primary.url()).await?;
                (Some(primary), Backend::Postgres, MAIN_CONNECTIONS)
            }
            Database::Sqlite(_) => (None, Backend::Sqlite, SQLITE_READERS),
        };
        let sqlite_options = match database {
            Database::Sqlite(path) => {
                let options = AnyConnectOptions::from_str(&format!("sqlite://{path}?mode=rwc"))?
                    .disable_statement_logging();
                sqlite::turn_on_wal(&options).await?;
                Some(options)
            }
            Database::Postgres(_) => None,
        };
        // A socket belongs to the runtime that opened it. This pool's
        // connections are opened here, on the main runtime, and kept (no
        // idle or lifetime expiry), for the work of the main runtime; on
        // Postgres each HTTP worker has a pool of its own
        // (`Store::for_worker`). A connection that breaks is reopened by
        // whoever asks next.
        let started = std::time::Instant::now();
        let pool = loop {
            let (options, connect_options) = match (&primary, &sqlite_options) {
                (Some(primary), _) => (
                    postgres_pool_options(primary, max, acquire_timeout),
                    primary.options(),
                ),
                (None, Some(options)) => (
                    pool_options(max, acquire_timeout).after_connect(|conn, _| {
                        Box::pin(async move { sqlite::set_pragmas(conn).await })
                    }),
                    options.clone(),
                ),
                (None, None) => unreachable!("a database is Postgres or SQLite"),
            };
            let opened = options
                .min_connections(max)
                .connect_with(connect_options)
                .await;
            match opened {
                Ok(pool) => break pool,
                Err(error) if unavailable(&error) && started.elapsed() < STARTUP_WAIT => {
                    tracing::warn!(%error, "waiting for the database");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(error) => return Err(error),
            }
        };
        // SQLite writes go through one connection of their own (see
        // `Store::writer`); the pool above serves reads, which WAL never blocks.
        let writer = match &sqlite_options {
            Some(options) => {
                let checkpoints = Arc::default();
                Some(sqlite::writer(options, &pool, acquire_timeout, checkpoints).await?)
            }
            None => None,
        };
        MIGRATOR.run(&pool).await?;
        let worker_pools = primary.map(|primary| {
            primary.adopt(&pool);
            WorkerPools {
                primary,
                acquire_timeout,
                connections: crate::config::DEFAULT_DB_MAX_CONNECTIONS,
                opened: pools,
            }
        });
        let store = Store {
            pool,
            writer,
            backend,
            worker_pools,
        };
        let split = store.split_old_layout().await?;
        if split > 0 {
            tracing::info!(
                games = split,
                "stored games moved to the finished-deals layout"
            );
        }
        Ok(store)
    }
}

/// On first start the database named in `DATABASE_URL` may not exist yet:
/// create it through the server's `postgres` maintenance database when the
/// user may, or stop with the one command that creates it.
async fn create_missing_database(url: &str) -> Result<(), sqlx::Error> {
    use sqlx::postgres::{PgConnectOptions, PgConnection};
    const UNDEFINED_DATABASE: &str = "3D000";
    let options = PgConnectOptions::from_str(url)?;
    let missing = match PgConnection::connect_with(&options).await {
        Ok(conn) => return conn.close().await,
        Err(sqlx::Error::Database(error))
            if error.code().as_deref() == Some(UNDEFINED_DATABASE) =>
        {
            error
        }
        Err(other) => return Err(other),
    };
    let name = options
        .get_database()
        .unwrap_or_else(|| options.get_username())
        .to_owned();
    let command = format!(
        "createdb -h {} -p {} -U {} '{}'",
        options.get_host(),
        options.get_port(),
        options.get_username(),
        name
    );
    let cannot = |why: String| {
        sqlx::Error::Configuration(
            format!("{missing}, and it could not be created ({why}); create it with: {command}")
                .into(),
        )
    };
    let mut admin = PgConnection::connect_with(&options.clone().database("postgres"))
        .await
        .map_err(|e| cannot(e.to_string()))?;
    let create = format!("CREATE DATABASE \"{}\"", name.replace('"', "\"\""));
    let created = sqlx::query(sqlx::AssertSqlSafe(create))
        .execute(&mut admin)
        .await;
    admin.close().await?;
    match created {
        Ok(_) => {
            tracing::info!(database = %name, "created the database");
            Ok(())
        }
        // Another instance starting at the same moment may have created it.
        Err(error) => match PgConnection::connect_with(&options).await {
            Ok(conn) => conn.close().await,
            Err(_) => Err(cannot(error.to_string())),
        },
    }
}
