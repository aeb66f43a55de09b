//! All SQL lives here. One request is one transaction: handlers begin one with
//! [`Store::begin_write`], call these functions with it, and commit.
//!
//! The same portable schema and queries run on Postgres and on the embedded
//! SQLite file through sqlx's `Any` driver; the two differ only in how a write
//! transaction takes its lock (see [`Store::begin_write`] and [`games::load`]).

pub mod cleanup;
pub mod events;
pub mod friends;
pub mod games;
pub mod idempotency;
pub mod layout;
pub mod listen;
pub mod players;
pub mod record;
pub mod settings;

use std::ops::{Deref, DerefMut};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, ConnectOptions, Connection, SqlSafeStr};
use sqlx_core::transaction::TransactionManager;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

use crate::config::Database;

/// The transaction statements of the `Any` driver (sqlx's own, as its
/// `Transaction` uses them).
type Transactions = <Any as sqlx::Database>::TransactionManager;

/// A connection from the store. On an HTTP worker's store (Postgres) it
/// goes back to the worker's shelf of idle connections when dropped, not to
/// sqlx's pool: sqlx pings every connection given back to its pool, one
/// round trip more per request than the work itself (a quarter of a move's
/// round trips once the rest were folded together). A connection from the
/// shelf idle for [`PING_IDLE_AFTER`] or longer is pinged before use, as
/// the pool's own are.
pub struct Conn {
    conn: Option<PoolConnection<Any>>,
    shelf: Option<Shelf>,
    /// The worker's leave to hold a connection, given back after the
    /// connection is on the shelf (fields drop after `drop`).
    _permit: Option<OwnedSemaphorePermit>,
}

impl Conn {
    fn new(conn: PoolConnection<Any>) -> Conn {
        Conn {
            conn: Some(conn),
            shelf: None,
            _permit: None,
        }
    }

    /// Closes a connection found broken instead of keeping it.
    fn discard(mut self) {
        if let Some(mut conn) = self.conn.take() {
            conn.close_on_drop();
        }
    }
}

impl Deref for Conn {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        self.conn.as_ref().expect("a connection until dropped")
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        self.conn.as_mut().expect("a connection until dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let (Some(conn), Some(shelf)) = (self.conn.take(), &self.shelf) {
            shelf.put(conn);
        }
    }
}

/// One HTTP worker's idle connections, most recently used last, and its
/// leave to hold one: a request waits for a permit (in order of arrival, at
/// most the acquire timeout), then takes a shelved connection or, with
/// none on the shelf, one from the pool, which then has one free: shelved
/// and held connections together never pass the permits, the pool's size.
#[derive(Clone, Debug)]
struct Shelf {
    idle: Arc<ShelfInner>,
    permits: Arc<Semaphore>,
    acquire_timeout: Duration,
}

#[derive(Debug, Default)]
struct ShelfInner {
    conns: Mutex<Vec<(PoolConnection<Any>, Instant)>>,
    /// Set, under `conns`' lock, when the store closes: a connection given
    /// back after that goes to sqlx's pool, whose close waits for it.
    closed: AtomicBool,
}

impl Shelf {
    fn new(max: u32, acquire_timeout: Duration) -> Shelf {
        Shelf {
            idle: Arc::default(),
            permits: Arc::new(Semaphore::new(max as usize)),
            acquire_timeout,
        }
    }

    fn put(&self, conn: PoolConnection<Any>) {
        let mut conns = lock(&self.idle.conns);
        if self.idle.closed.load(Ordering::Relaxed) {
            drop(conns);
            // Back to sqlx's pool.
            drop(conn);
            return;
        }
        conns.push((conn, Instant::now()));
    }

    /// Lends no more connections, gives the shelved ones back to sqlx's
    /// pool, and sends any given back later there too.
    fn close(&self) {
        self.permits.close();
        let conns = {
            let mut conns = lock(&self.idle.conns);
            self.idle.closed.store(true, Ordering::Relaxed);
            std::mem::take(conns.deref_mut())
        };
        drop(conns);
    }

    fn len(&self) -> usize {
        lock(&self.idle.conns).len()
    }

    /// Waits for leave to hold a connection.
    async fn permit(&self) -> Result<OwnedSemaphorePermit, sqlx::Error> {
        match tokio::time::timeout(self.acquire_timeout, self.permits.clone().acquire_owned()).await
        {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(sqlx::Error::PoolClosed),
            Err(_) => Err(sqlx::Error::PoolTimedOut),
        }
    }

    /// The most recently used idle connection that answers, if any.
    async fn take(&self) -> Option<PoolConnection<Any>> {
        loop {
            let (mut conn, since) = lock(&self.idle.conns).pop()?;
            if since.elapsed() < PING_IDLE_AFTER && !suspect() {
                return Some(conn);
            }
            match sqlx::Connection::ping(&mut *conn).await {
                Ok(()) => return Some(conn),
                Err(error) => {
                    tracing::warn!(%error, "closing a broken idle database connection");
                    conn.close_on_drop();
                }
            }
        }
    }
}

impl Drop for ShelfInner {
    fn drop(&mut self) {
        // Given back to the pool, which needs a runtime for it; a worker's
        // runtime may be gone when its last connection is dropped at a
        // graceful stop, and then they are closed with the process.
        let conns = std::mem::take(lock(&self.conns).deref_mut());
        if tokio::runtime::Handle::try_current().is_err() {
            for (conn, _) in conns {
                drop(conn.detach());
            }
        }
    }
}

/// When a database error last said a connection was broken (microseconds
/// on [`now_micros`]'s clock), as [`note_failure`] noted it.
static FAILED_AT: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(i64::MIN);

/// How long after such an error every shelved connection is pinged before
/// use, however recently it was used.
const SUSPECT_FOR_MICROS: i64 = 5_000_000;

/// Notes `error` if it says a connection broke (not a wait for one that ran
/// out). A connection that broke goes back to its shelf like any other (a
/// handler's error does not say which connection it came from), so for a
/// while after this every shelved connection is pinged before use and a
/// broken one is closed.
pub fn note_failure(error: &sqlx::Error) {
    if retryable(error) {
        FAILED_AT.store(now_micros(), std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether a database error was noted a moment ago.
fn suspect() -> bool {
    let at = FAILED_AT.load(std::sync::atomic::Ordering::Relaxed);
    at != i64::MIN && now_micros() - at < SUSPECT_FOR_MICROS
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A write transaction: the game row it loads stays locked until commit.
/// Dropped before its commit, it is rolled back, at once, as sqlx's own
/// transactions are.
pub struct Tx {
    conn: Conn,
    open: bool,
}

impl Tx {
    /// Commits the transaction.
    ///
    /// # Errors
    /// The database's error; nothing was committed then.
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        Transactions::commit(&mut self.conn).await?;
        self.open = false;
        Ok(())
    }
}

impl Deref for Tx {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        &self.conn
    }
}

impl DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.conn
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        if self.open {
            Transactions::start_rollback(&mut self.conn);
            // The ROLLBACK waits in the connection's buffer for its next
            // message, and until it is sent the transaction keeps its row
            // locks: a shelved connection may wait for a long time, so
            // this one goes back to sqlx's pool, whose ping sends it now.
            self.conn.shelf = None;
        }
    }
}

/// Which database engine is behind the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Postgres: rows are locked with `SELECT … FOR UPDATE`.
    Postgres,
    /// SQLite: a write transaction is `BEGIN IMMEDIATE`, which locks the file.
    Sqlite,
}

/// The embedded migrations under `migrations/`, applied at start.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The database pool and which engine it talks to.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// SQLite: the one connection write transactions run on, so writers
    /// queue in the pool (first come, first served) instead of polling the
    /// file lock in SQLite's busy handler, whose sleeps grow to 100 ms.
    /// `None` on Postgres, where rows are locked one by one.
    writer: Option<AnyPool>,
    /// SQLite: where the writer connection waits between writes, and the
    /// leave to hold it (one, handed out first come, first served). Given
    /// back to sqlx's pool, the connection would be pinged first (a message
    /// to its thread and back) while the next writer waits for it.
    writer_shelf: Option<Shelf>,
    /// SQLite: the writes since the last checkpoint ([`Store::note_write`]).
    checkpoints: Option<Arc<Checkpoints>>,
    backend: Backend,
    postgres_url: Option<crate::config::Secret>,
    /// Postgres: how an HTTP worker opens a pool of its own
    /// ([`Store::for_worker`]). `None` on SQLite.
    worker_pools: Option<WorkerPools>,
    /// An HTTP worker's idle connections ([`Conn`]); `None` for the main
    /// runtime's store and on SQLite.
    shelf: Option<Shelf>,
}

/// SQLite: the writer's writes since the last checkpoint, and whether one
/// is running.
#[derive(Debug, Default)]
struct Checkpoints {
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

/// The pools of the HTTP workers (Postgres), opened from one recipe.
#[derive(Clone, Debug)]
struct WorkerPools {
    options: AnyConnectOptions,
    /// The main runtime's pool.
    main: AnyPool,
    acquire_timeout: Duration,
    /// Every worker pool opened so far with its shelf, for the connection
    /// gauges.
    opened: Arc<Mutex<Vec<(AnyPool, Shelf)>>>,
}

/// Postgres connections of the main runtime: the scheduler, the storage
/// clean-up and starting; requests use their worker's own pool.
const MAIN_CONNECTIONS: u32 = 4;

/// Postgres connections all HTTP workers share out between them (each
/// worker at least [`MIN_WORKER_CONNECTIONS`]).
const WORKER_CONNECTIONS: u32 = 16;

/// The fewest Postgres connections one HTTP worker gets.
const MIN_WORKER_CONNECTIONS: u32 = 2;

/// A pooled connection idle for longer than this is pinged before it is
/// handed out. One used more recently answered the ping sqlx sends on every
/// release a moment ago, so under load no request waits for a ping.
const PING_IDLE_AFTER: Duration = Duration::from_secs(1);

/// How often a request's first statement is made again on another
/// connection when the one handed out turns out broken (see
/// [`Store::acquire_with`]).
const BROKEN_RETRIES: usize = 3;

/// Pool options shared by every pool: at most `max` connections, none
/// closed for idling or age, a wait of `acquire_timeout` at most, and a
/// ping only for a connection idle longer than [`PING_IDLE_AFTER`].
fn pool_options(max: u32, acquire_timeout: Duration) -> AnyPoolOptions {
    AnyPoolOptions::new()
        .max_connections(max)
        .idle_timeout(None)
        .max_lifetime(None)
        .acquire_timeout(acquire_timeout)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_IDLE_AFTER {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
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
        let (url, backend, max) = match database {
            Database::Postgres(url) => {
                (url.expose().to_owned(), Backend::Postgres, MAIN_CONNECTIONS)
            }
            Database::Sqlite(path) => (format!("sqlite://{path}?mode=rwc"), Backend::Sqlite, 8),
        };
        if backend == Backend::Postgres {
            create_missing_database(&url).await?;
        }
        let options = AnyConnectOptions::from_str(&url)?.disable_statement_logging();
        if backend == Backend::Sqlite {
            // Turning WAL on needs the file to itself: once, on a connection
            // of its own, before the pool opens several side by side.
            let mut conn = options.connect().await?;
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&mut conn)
                .await?;
            conn.close().await?;
        }
        // A socket belongs to the runtime that opened it. This pool's
        // connections are opened here, on the main runtime, and kept (no
        // idle or lifetime expiry), for the work of the main runtime. On
        // Postgres each HTTP worker has a pool of its own (`for_worker`),
        // whose connections only that worker opens and uses: a connection
        // shared between runtimes would break under one worker when another
        // stopped first at a graceful stop, and every message on it would
        // wake two threads (the owning runtime's and the worker's).
        // (A connection that breaks is reopened by whoever asks next.)
        let started = std::time::Instant::now();
        let pool = loop {
            let opened = pool_options(max, acquire_timeout)
                .min_connections(max)
                .after_connect(move |conn, _| {
                    Box::pin(async move {
                        if backend == Backend::Sqlite {
                            // WAL, NORMAL syncs, a 5 s busy wait (see
                            // SQLITE_PRAGMAS).
                            for pragma in SQLITE_PRAGMAS {
                                sqlx::query(pragma).execute(&mut *conn).await?;
                            }
                        }
                        Ok(())
                    })
                })
                .connect_with(options.clone())
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
        let writer = match backend {
            Backend::Sqlite => Some(
                pool_options(1, acquire_timeout)
                    .min_connections(1)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            for pragma in SQLITE_PRAGMAS {
                                sqlx::query(pragma).execute(&mut *conn).await?;
                            }
                            // Its commits leave the log to be copied into
                            // the database file by a read connection.
                            sqlx::query("PRAGMA wal_autocheckpoint = 0")
                                .execute(&mut *conn)
                                .await?;
                            Ok(())
                        })
                    })
                    .connect_with(options.clone())
                    .await?,
            ),
            Backend::Postgres => None,
        };
        MIGRATOR.run(&pool).await?;
        let postgres_url = match database {
            Database::Postgres(url) => Some(url.clone()),
            Database::Sqlite(_) => None,
        };
        let worker_pools = (backend == Backend::Postgres).then(|| WorkerPools {
            options,
            main: pool.clone(),
            acquire_timeout,
            opened: Arc::default(),
        });
        let writer_shelf = writer.as_ref().map(|_| Shelf::new(1, acquire_timeout));
        let checkpoints = writer.as_ref().map(|_| Arc::default());
        let store = Store {
            pool,
            writer,
            writer_shelf,
            checkpoints,
            backend,
            postgres_url,
            worker_pools,
            shelf: None,
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

    /// Splits every game row still in the layout of earlier releases (the
    /// whole state in `games.state`, `deals_stored` NULL) into its live part
    /// and its `game_deals` rows, in batches of one transaction each. Rows
    /// not split yet are read as they are, and a row is split on its next
    /// write anyway; this does it for all at start so none is left behind.
    pub async fn split_old_layout(&self) -> Result<u64, sqlx::Error> {
        const BATCH: i64 = 200;
        let mut split = 0;
        let mut after = String::new();
        loop {
            let mut tx = self.begin_write().await?;
            let ids: Vec<String> = sqlx::query_scalar(
                "SELECT id FROM games WHERE deals_stored IS NULL AND id > $1 ORDER BY id LIMIT $2",
            )
            .bind(&after)
            .bind(BATCH)
            .fetch_all(&mut *tx)
            .await?;
            let Some(last) = ids.last() else {
                tx.commit().await?;
                return Ok(split);
            };
            after.clone_from(last);
            for id in &ids {
                match games::split_old_row(&mut tx, self.backend, id).await {
                    Ok(true) => split += 1,
                    Ok(false) => {}
                    // An unreadable state stays as it is (and answers as
                    // before: a 500 naming the game), not blocking the start.
                    Err(sqlx::Error::Encode(error)) => {
                        tracing::error!(game = %id, %error, "stored state unreadable, left whole");
                    }
                    Err(error) => return Err(error),
                }
            }
            tx.commit().await?;
        }
    }

    /// This store for one of `workers` HTTP workers, called on that
    /// worker's thread. On Postgres it has a pool of its own, empty until
    /// the worker needs a connection: its connections are opened on the
    /// worker's runtime and used by no other, so each database message
    /// wakes only the worker's thread, and a worker that stops first at a
    /// graceful stop takes none of another's connections with it. The
    /// workers share [`WORKER_CONNECTIONS`] (at least
    /// [`MIN_WORKER_CONNECTIONS`] each). On SQLite every connection runs on
    /// a thread of its own anyway, and writers must share the one writer:
    /// the same pools serve every worker.
    pub fn for_worker(&self, workers: usize) -> Store {
        let Some(recipe) = &self.worker_pools else {
            return self.clone();
        };
        let workers = u32::try_from(workers.max(1)).unwrap_or(u32::MAX);
        let max = WORKER_CONNECTIONS
            .div_ceil(workers)
            .max(MIN_WORKER_CONNECTIONS);
        let pool = pool_options(max, recipe.acquire_timeout)
            .min_connections(0)
            .connect_lazy_with(recipe.options.clone());
        let shelf = Shelf::new(max, recipe.acquire_timeout);
        lock(&recipe.opened).push((pool.clone(), shelf.clone()));
        Store {
            pool,
            shelf: Some(shelf),
            ..self.clone()
        }
    }

    /// Open and idle connections over every pool of the process (a
    /// worker's shelved connections count as idle).
    pub fn connections(&self) -> (u32, usize) {
        let pools: Vec<(AnyPool, Option<Shelf>)> = match &self.worker_pools {
            Some(recipe) => std::iter::once((recipe.main.clone(), None))
                .chain(
                    lock(&recipe.opened)
                        .iter()
                        .map(|(pool, shelf)| (pool.clone(), Some(shelf.clone()))),
                )
                .collect(),
            None => std::iter::once((self.pool.clone(), None))
                .chain(
                    self.writer
                        .clone()
                        .map(|pool| (pool, self.writer_shelf.clone())),
                )
                .collect(),
        };
        pools.iter().fold((0, 0), |(size, idle), (pool, shelf)| {
            let shelved = shelf.as_ref().map_or(0, Shelf::len);
            (size + pool.size(), idle + pool.num_idle() + shelved)
        })
    }

    /// The engine behind this store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The Postgres URL, for the `LISTEN` connection (None on SQLite).
    pub fn postgres_url(&self) -> Option<&str> {
        self.postgres_url.as_ref().map(|url| url.expose())
    }

    /// The pool itself, for the main runtime's store. A worker's store
    /// hands out connections with [`Store::acquire`] only: its pool's
    /// connections may all be on the worker's shelf, checked out.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A connection for reads: a shelved one of this worker when there is
    /// one ([`Conn`]), else one from the pool. A connection that breaks as
    /// the pool hands it out (the server restarted under an idle pool) is
    /// retried once: nothing was sent yet, so nothing changed.
    pub async fn acquire(&self) -> Result<Conn, sqlx::Error> {
        let permit = match &self.shelf {
            Some(shelf) => {
                let permit = shelf.permit().await?;
                if let Some(conn) = shelf.take().await {
                    return Ok(Conn {
                        conn: Some(conn),
                        shelf: Some(shelf.clone()),
                        _permit: Some(permit),
                    });
                }
                Some(permit)
            }
            None => None,
        };
        let conn = match self.pool.acquire().await {
            Err(error) if retryable(&error) => {
                tracing::warn!(%error, "retrying a broken database connection once");
                self.pool.acquire().await
            }
            other => other,
        }?;
        Ok(Conn {
            conn: Some(conn),
            shelf: self.shelf.clone(),
            _permit: permit,
        })
    }

    /// A connection and what `read`, the request's first statement, read
    /// on it. A connection handed out broken (pooled connections are pinged
    /// only after a second of idling, [`PING_IDLE_AFTER`]) is dropped and
    /// the read made again on another, up to [`BROKEN_RETRIES`] times:
    /// nothing was changed yet, so nothing is done twice.
    pub async fn acquire_with<T>(
        &self,
        read: impl AsyncFn(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<(Conn, T), sqlx::Error> {
        let mut tries = 0;
        loop {
            // A broken connection is closed before the next is asked for.
            let mut conn = self.acquire().await?;
            match read(&mut conn).await {
                Ok(answer) => return Ok((conn, answer)),
                Err(error) if retry_broken(&error, &mut tries) => conn.discard(),
                Err(error) => return Err(error),
            }
        }
    }

    /// Begins a transaction that may write. On SQLite it takes the write lock
    /// at once (`BEGIN IMMEDIATE`), so two writers never both read a stale game.
    /// A connection broken at `BEGIN` is dropped and `BEGIN` sent on another,
    /// up to [`BROKEN_RETRIES`] times, as in [`Store::acquire_with`].
    pub async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        let mut tries = 0;
        loop {
            match self.begin_write_once().await {
                Err(error) if retry_broken(&error, &mut tries) => {}
                other => return other,
            }
        }
    }

    async fn begin_write_once(&self) -> Result<Tx, sqlx::Error> {
        let (mut conn, statement) = match self.backend {
            Backend::Postgres => (self.acquire().await?, None),
            Backend::Sqlite => (self.acquire_writer().await?, Some("BEGIN IMMEDIATE")),
        };
        match Transactions::begin(&mut conn, statement.map(SqlSafeStr::into_sql_str)).await {
            Ok(()) => Ok(Tx { conn, open: true }),
            Err(error) => {
                if unavailable(&error) {
                    conn.discard();
                }
                Err(error)
            }
        }
    }

    /// SQLite: the writer connection, once the writers before have given it
    /// back (in order of arrival, at most the acquire timeout). Dropped, it
    /// goes back to the writer's shelf, not to sqlx's pool.
    async fn acquire_writer(&self) -> Result<Conn, sqlx::Error> {
        let (Some(writer), Some(shelf)) = (&self.writer, &self.writer_shelf) else {
            return Ok(Conn::new(self.pool.acquire().await?));
        };
        let permit = shelf.permit().await?;
        let mut conn = match shelf.take().await {
            Some(conn) => conn,
            None => writer.acquire().await?,
        };
        self.note_write(&mut conn).await;
        Ok(Conn {
            conn: Some(conn),
            shelf: Some(shelf.clone()),
            _permit: Some(permit),
        })
    }

    /// SQLite: counts a write by the writer and, every [`CHECKPOINT_EVERY`]
    /// writes, has a read connection copy the log into the database file
    /// (`PRAGMA wal_checkpoint(PASSIVE)`: it copies what no reader still
    /// needs and waits for no one). The writer never does it itself
    /// (`wal_autocheckpoint = 0`): a checkpoint, with its syncs, inside a
    /// writer's commit held every writer queued behind it, and made the
    /// tail of SQLite's move latency (docs/benchmarks.md, "Hands written
    /// as bits, tricks read packed, SQLite's checkpoints off the writer").
    ///
    /// A checkpoint copies the log up to where it began, while the writer
    /// adds to it; SQLite starts the log over only once it is copied to its
    /// end, so the writer, on `conn`, copies what was added since (a few
    /// writes' pages) before its next write, and the log does not grow
    /// without end.
    async fn note_write(&self, conn: &mut AnyConnection) {
        let Some(checkpoints) = &self.checkpoints else {
            return;
        };
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
        let pool = self.pool.clone();
        tokio::spawn(async move {
            match copy_log(&pool).await {
                Ok(()) => running.0.copied.store(true, Ordering::Release),
                Err(error) => tracing::warn!(%error, "an SQLite checkpoint failed"),
            }
            drop(running);
        });
    }

    /// Readiness: the database answers and every migration is applied.
    pub async fn ready(&self) -> Result<(), sqlx::Error> {
        let mut conn = self.acquire().await?;
        let applied: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success = TRUE")
                .fetch_one(&mut *conn)
                .await?;
        let expected = MIGRATOR.iter().count() as i64;
        if applied < expected {
            return Err(sqlx::Error::Protocol(format!(
                "{applied} of {expected} migrations applied"
            )));
        }
        Ok(())
    }

    /// Closes the pool, waiting for connections in use.
    pub async fn close(&self) {
        if let Some(writer) = &self.writer {
            if let Some(shelf) = &self.writer_shelf {
                // Back to the pool, which waits for every connection it gave
                // out: the one a writer holds now too, since the shelf sends
                // it there once closed.
                shelf.close();
            }
            writer.close().await;
        }
        self.pool.close().await;
    }
}

/// Set on every SQLite connection. WAL lets readers go on while one writer
/// holds the lock. It is turned on before the pool opens and the file keeps
/// it; every connection sets it too (a read of the file, which then needs
/// no lock of its own), because one that has not read the file yet does
/// not know, and its checkpoint would find no log to copy. With
/// NORMAL syncs at checkpoints, not at every commit: a commit survives a
/// crash of the process, and the last ones may be lost only if the machine
/// itself goes down. A write outside the writer connection (an autocommit
/// statement on a read connection) waits up to 5 s for the write lock.
const SQLITE_PRAGMAS: [&str; 3] = [
    "PRAGMA busy_timeout = 5000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
];

/// SQLite: copies the log into the database file on a read connection, and
/// again while the writer has added more than [`CHECKPOINT_LEFT`] frames
/// (pages) meanwhile, at most [`CHECKPOINT_ROUNDS`] times: what is left is
/// for the writer to copy before its next write ([`Store::note_write`]), so
/// it should be little.
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

/// How many frames of the log [`copy_log`] may leave to the writer.
const CHECKPOINT_LEFT: i64 = 64;

/// How many times [`copy_log`] copies at most.
const CHECKPOINT_ROUNDS: usize = 4;

/// SQLite: how many writes the writer makes between two checkpoints, which
/// a read connection runs ([`Store::note_write`]). A move adds about six
/// pages to the log (1 GB in 30 s at 1,530 moves/s with no checkpoint), so
/// this is about 1,500 pages, near SQLite's own default of 1,000.
const CHECKPOINT_EVERY: u32 = 256;

/// How long starting waits for the database to come up.
pub const STARTUP_WAIT: Duration = Duration::from_secs(10);

/// Whether `error` means the database is away or going away (a timed-out
/// wait for a connection, a broken or refused connection, a server shutting
/// down or starting up) rather than a fault of the request or of the code.
pub fn unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Postgres: class 08 connection exception, 57P01..57P03 shutdown
            // and startup, 53300 too many connections.
            code.starts_with("08") || code.starts_with("57P0") || code == "53300"
        }),
        _ => false,
    }
}

/// Whether to make a first statement again after `error`: the connection
/// was broken and fewer than [`BROKEN_RETRIES`] retries were made (counted
/// in `tries`). The one rule of [`Store::acquire_with`] and
/// [`Store::begin_write`].
fn retry_broken(error: &sqlx::Error, tries: &mut usize) -> bool {
    note_failure(error);
    if !retryable(error) || *tries >= BROKEN_RETRIES {
        return false;
    }
    *tries += 1;
    tracing::warn!(%error, "retrying a broken database connection");
    true
}

/// Whether a fresh try may succeed at once: the database is away in a way
/// a new connection may cure, and the wait for one did not already run out.
fn retryable(error: &sqlx::Error) -> bool {
    unavailable(error) && !matches!(error, sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed)
}

/// On first start the database named in `DATABASE_URL` may not exist yet:
/// create it through the server's `postgres` maintenance database when the
/// user may, or stop with the one command that creates it.
async fn create_missing_database(url: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
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

/// `id` as the tables hold it: hyphenated, lower case. Written without
/// the formatter, which `Uuid::to_string` goes through (`Display`): four
/// ids a request cost 2.3 k instructions that way (docs/benchmarks.md,
/// "The records checked as bytes, the log line written plainly").
pub fn id_text(id: Uuid) -> String {
    id.hyphenated()
        .encode_lower(&mut Uuid::encode_buffer())
        .to_owned()
}

/// Now, as Unix microseconds (the schema's time format).
pub fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// An id is stored as `Uuid`'s `Display` writes it, so that ids stored
    /// before read back and compare as before.
    #[test]
    fn an_id_is_written_as_its_display_writes_it() {
        for id in [
            Uuid::nil(),
            Uuid::max(),
            Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210),
            Uuid::new_v4(),
        ] {
            assert_eq!(id_text(id), id.to_string());
        }
    }

    #[test]
    fn a_broken_connection_makes_shelved_connections_suspect_and_a_timed_out_wait_does_not() {
        let before = FAILED_AT.load(Ordering::Relaxed);
        note_failure(&sqlx::Error::PoolTimedOut);
        assert_eq!(
            FAILED_AT.load(Ordering::Relaxed),
            before,
            "a wait that ran out"
        );
        note_failure(&sqlx::Error::Io(std::io::ErrorKind::ConnectionReset.into()));
        assert!(suspect(), "a connection that broke");
        FAILED_AT.store(now_micros() - SUSPECT_FOR_MICROS, Ordering::Relaxed);
        assert!(!suspect(), "only for a while");
    }

    /// A store on a new SQLite file, the file's folder (removed when
    /// dropped) and the file's path.
    async fn sqlite_store() -> (tempfile::TempDir, std::path::PathBuf, Store) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kaarttafel.db");
        let database = Database::Sqlite(path.to_str().unwrap().to_owned());
        let store = Store::connect(&database, Duration::from_secs(5))
            .await
            .unwrap();
        (dir, path, store)
    }

    /// SQLite's writer commits without copying the log into the database
    /// file, which would hold every queued writer for the copy and its
    /// syncs; after every [`CHECKPOINT_EVERY`] writes a read connection
    /// copies it, beside the writer (docs/benchmarks.md, "Hands written
    /// as bits, tricks read packed, SQLite's checkpoints off the writer").
    #[tokio::test]
    async fn sqlite_checkpoints_are_left_by_the_writer_to_a_read_connection_and_the_log_starts_over()
     {
        let (_dir, path, store) = sqlite_store().await;
        for (mut conn, expected) in [
            (store.acquire_writer().await.unwrap(), 0),
            (store.acquire().await.unwrap(), 1000),
        ] {
            let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
                .fetch_one(&mut *conn)
                .await
                .unwrap();
            assert_eq!(pages, expected);
        }
        sqlx::query("CREATE TABLE scratch (b TEXT)")
            .execute(&mut *store.acquire_writer().await.unwrap())
            .await
            .unwrap();
        let file_len = || std::fs::metadata(&path).unwrap().len();
        let before = file_len();
        let row = "x".repeat(4096);
        let write_rows = async |count: u32| {
            for _ in 0..count {
                sqlx::query("INSERT INTO scratch (b) VALUES ($1)")
                    .bind(&row)
                    .execute(&mut *store.acquire_writer().await.unwrap())
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
        let checkpoints = store.checkpoints.clone().expect("SQLite");
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
        store.close().await;
    }

    /// A graceful stop closes the store while the scheduler (on the main
    /// runtime) may still hold SQLite's writer connection. Given back after
    /// the close began, the connection went to the writer's shelf, which
    /// nobody emptied again, so the close waited for it for ever and the
    /// process never exited after SIGTERM.
    #[tokio::test]
    async fn a_writer_connection_given_back_while_the_store_closes_lets_the_close_finish() {
        let (_dir, _, store) = sqlite_store().await;
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
