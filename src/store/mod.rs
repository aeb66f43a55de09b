//! All SQL lives here. One request is one transaction: handlers begin one with
//! [`Store::begin_write`], call these functions with it, and commit.
//!
//! The same portable schema and queries run on Postgres and on the embedded
//! SQLite file through sqlx's `Any` driver; the two differ only in how a write
//! transaction takes its lock (see [`Store::begin_write`] and [`games::load`]).
//! Connections come from sqlx's own pools ([`connect`] opens them); a
//! connection handed out broken is retried as [`retry`] says.

pub mod cleanup;
pub mod club_events;
pub mod connect;
pub mod error;
pub mod events;
pub mod friends;
pub mod games;
pub mod idempotency;
pub mod layout;
pub mod listen;
pub mod notifications;
pub mod players;
pub mod primary;
pub mod record;
pub mod retry;
pub mod settings;
mod sqlite;
#[cfg(test)]
mod testing;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool};
use uuid::Uuid;

pub use error::StoreError;
pub use retry::unavailable;

use retry::{retry_broken, retryable};

/// A write transaction: sqlx's own, on a connection of the store's pool.
/// The game row it loads stays locked until commit; dropped before its
/// commit, it is rolled back.
pub type Tx = sqlx::Transaction<'static, Any>;

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
    /// SQLite: a pool of the one connection write transactions run on, so
    /// writers queue for it (first come, first served) instead of polling
    /// the file lock in SQLite's busy handler, whose sleeps grow to 100 ms.
    /// `None` on Postgres, where rows are locked one by one.
    writer: Option<AnyPool>,
    backend: Backend,
    /// Postgres: how an HTTP worker opens a pool of its own
    /// ([`Store::for_worker`]). `None` on SQLite.
    worker_pools: Option<WorkerPools>,
}

/// The recipe of the HTTP workers' pools (Postgres): the server that
/// takes writes, and every pool opened so far, for the connection gauges.
#[derive(Clone, Debug)]
struct WorkerPools {
    primary: Arc<primary::Primary>,
    acquire_timeout: Duration,
    /// Connections all HTTP workers share out between them.
    connections: u32,
    /// The main runtime's pool first, then each worker's.
    opened: Arc<Mutex<Vec<AnyPool>>>,
}

/// The fewest Postgres connections one HTTP worker gets.
const MIN_WORKER_CONNECTIONS: u32 = 2;

/// One worker's pool size when `workers` share `connections`: an even
/// share, rounded up, at least [`MIN_WORKER_CONNECTIONS`].
fn worker_share(connections: u32, workers: u32) -> u32 {
    connections
        .div_ceil(workers.max(1))
        .max(MIN_WORKER_CONNECTIONS)
}

impl Store {
    /// This store for one of `workers` HTTP workers, called on that
    /// worker's thread. On Postgres it has a pool of its own, empty until
    /// the worker needs a connection. Each actix-web worker runs a runtime
    /// of its own on one thread, and a socket answers through the runtime
    /// that opened it, which reads it only when its thread is free: a
    /// connection opened by one worker and used by another would wait for
    /// the first worker's other work, and break when that worker stops
    /// first at a graceful stop. The workers share the store's connections
    /// ([`Store::with_worker_connections`], at least
    /// [`MIN_WORKER_CONNECTIONS`] each). On SQLite every
    /// connection runs on a thread of its own anyway, and writers must
    /// share the one writer: the same pools serve every worker.
    pub fn for_worker(&self, workers: usize) -> Store {
        let Some(recipe) = &self.worker_pools else {
            return self.clone();
        };
        let workers = u32::try_from(workers).unwrap_or(u32::MAX);
        let max = worker_share(recipe.connections, workers);
        let pool = connect::postgres_pool_options(&recipe.primary, max, recipe.acquire_timeout)
            .connect_lazy_with(recipe.primary.options());
        recipe.primary.adopt(&pool);
        Store {
            pool,
            ..self.clone()
        }
    }

    /// This store with its HTTP workers sharing `connections` Postgres
    /// connections (`DB_MAX_CONNECTIONS`); call it before
    /// [`Store::for_worker`]. Nothing changes on SQLite.
    pub fn with_worker_connections(mut self, connections: u32) -> Store {
        if let Some(recipe) = &mut self.worker_pools {
            recipe.connections = connections;
        }
        self
    }

    /// Open and idle connections over every pool of the process.
    pub fn connections(&self) -> (u32, usize) {
        let pools: Vec<AnyPool> = match &self.worker_pools {
            Some(recipe) => lock(&recipe.opened).clone(),
            None => std::iter::once(self.pool.clone())
                .chain(self.writer.clone())
                .collect(),
        };
        // sqlx counts idle connections in an atomic: a connection given back
        // can be taken, and counted out, before it is counted in, so the
        // count is briefly below zero (a huge usize). Taken at most the
        // pool's size.
        pools.iter().fold((0, 0), |(size, idle), pool| {
            let pool_idle = pool.num_idle().min(pool.size() as usize);
            (
                size.saturating_add(pool.size()),
                idle.saturating_add(pool_idle),
            )
        })
    }

    /// The engine behind this store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL of the Postgres server that takes writes, for a connection
    /// of its own such as `LISTEN` (None on SQLite).
    pub fn postgres_url(&self) -> Option<String> {
        Some(self.worker_pools.as_ref()?.primary.url())
    }

    /// Postgres: a receiver that sees each change of the server written to.
    pub fn postgres_changes(&self) -> Option<tokio::sync::watch::Receiver<usize>> {
        Some(self.worker_pools.as_ref()?.primary.changes())
    }

    /// Postgres: something failed in a way a lost server explains, so look
    /// for the server that takes writes again ([`primary`]).
    pub fn lost(&self) {
        if let Some(recipe) = &self.worker_pools {
            recipe.primary.lost();
        }
    }

    /// The pool reads are served from.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A connection for reads. A connection that breaks as the pool hands
    /// it out (the server restarted under an idle pool) is retried once:
    /// nothing was sent yet, so nothing changed.
    pub async fn acquire(&self) -> Result<PoolConnection<Any>, sqlx::Error> {
        let acquired = match self.pool.acquire().await {
            Err(error) if retryable(&error) => {
                tracing::warn!(%error, "retrying a broken database connection once");
                self.lost();
                self.pool.acquire().await
            }
            other => other,
        };
        if acquired.as_ref().is_err_and(unavailable) {
            self.lost();
        }
        acquired
    }

    /// A connection and what `read`, the request's first statement, read
    /// on it. A connection handed out broken (pooled connections are pinged
    /// only after a second of idling, [`connect::PING_IDLE_AFTER`]) is
    /// closed and the read made again on another, up to
    /// [`retry::BROKEN_RETRIES`] times: nothing was changed yet, so nothing
    /// is done twice.
    pub async fn acquire_with<T>(
        &self,
        read: impl AsyncFn(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<(PoolConnection<Any>, T), sqlx::Error> {
        let mut tries = 0;
        loop {
            let mut conn = self.acquire().await?;
            match read(&mut conn).await {
                Ok(answer) => return Ok((conn, answer)),
                // Closed before the next is asked for.
                Err(error) if retry_broken(&error, &mut tries) => {
                    self.lost();
                    conn.close_on_drop();
                }
                Err(error) => {
                    if unavailable(&error) {
                        self.lost();
                    }
                    return Err(error);
                }
            }
        }
    }

    /// Begins a transaction that may write. On SQLite it takes the write lock
    /// at once (`BEGIN IMMEDIATE`), so two writers never both read a stale game.
    /// A connection broken at `BEGIN` is dropped and `BEGIN` sent on another,
    /// up to [`retry::BROKEN_RETRIES`] times, as in [`Store::acquire_with`].
    pub async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        let mut tries = 0;
        loop {
            // A transaction whose BEGIN failed goes back to its pool, whose
            // ping on the way closes the connection if it is broken.
            let begun = match &self.writer {
                Some(writer) => writer.begin_with("BEGIN IMMEDIATE").await,
                None => self.pool.begin().await,
            };
            match begun {
                Err(error) if retry_broken(&error, &mut tries) => self.lost(),
                Err(error) => {
                    if unavailable(&error) {
                        self.lost();
                    }
                    return Err(error);
                }
                ok => return ok,
            }
        }
    }

    /// SQLite: the writer connection, once the writers before have given it
    /// back; on Postgres a connection of the pool.
    async fn acquire_writer(&self) -> Result<PoolConnection<Any>, sqlx::Error> {
        match &self.writer {
            Some(writer) => writer.acquire().await,
            None => self.acquire().await,
        }
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

    /// Closes the pools, waiting for connections in use.
    pub async fn close(&self) {
        if let Some(writer) = &self.writer {
            writer.close().await;
        }
        self.pool.close().await;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The ids a due-work query picks: `queries` is its text for Postgres
/// (`... FOR UPDATE SKIP LOCKED`, so instances spread the work between
/// them) and for SQLite, each selecting `id` with `$1` the time now and `$2`
/// the limit.
async fn due_ids(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    (postgres, sqlite): (&'static str, &'static str),
    now: i64,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    let query = match backend {
        Backend::Postgres => postgres,
        Backend::Sqlite => sqlite,
    };
    let ids: Vec<String> = sqlx::query_scalar(query)
        .bind(now)
        .bind(limit)
        .fetch_all(conn)
        .await?;
    ids.into_iter().map(players::parse_uuid).collect()
}

/// `id` as the tables hold it: hyphenated, lower case.
pub fn id_text(id: Uuid) -> String {
    id.to_string()
}

/// Now, as Unix microseconds (the schema's time format).
pub fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_share_the_connections_each_with_at_least_two() {
        assert_eq!(worker_share(16, 2), 8);
        assert_eq!(worker_share(16, 3), 6);
        assert_eq!(worker_share(4, 4), 2);
        assert_eq!(worker_share(2, 16), 2);
        assert_eq!(worker_share(100, 1), 100);
        assert_eq!(worker_share(16, 0), 16);
    }
}
