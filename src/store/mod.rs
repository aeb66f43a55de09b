//! All SQL lives here. One request is one transaction: handlers begin one with
//! [`Store::begin_write`], call these functions with it, and commit.
//!
//! The same portable schema and queries run on Postgres and on the embedded
//! SQLite file through sqlx's `Any` driver; the two differ only in how a write
//! transaction takes its lock (see [`Store::begin_write`] and [`games::load`]).

pub mod events;
pub mod games;
pub mod idempotency;
pub mod listen;
pub mod players;
pub mod settings;

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, ConnectOptions};

use crate::config::Database;

/// A write transaction: the game row it loads stays locked until commit.
pub type Tx = sqlx::Transaction<'static, sqlx::Any>;

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
    backend: Backend,
    postgres_url: Option<crate::config::Secret>,
}

impl Store {
    /// Connects (creating the SQLite file if needed) and applies the migrations.
    /// Several instances may start at once: sqlx serialises migrations with a lock.
    pub async fn connect(database: &Database) -> Result<Store, sqlx::Error> {
        sqlx::any::install_default_drivers();
        let (url, backend, max) = match database {
            Database::Postgres(url) => (url.expose().to_owned(), Backend::Postgres, 16),
            Database::Sqlite(path) => (format!("sqlite://{path}?mode=rwc"), Backend::Sqlite, 8),
        };
        if backend == Backend::Postgres {
            create_missing_database(&url).await?;
        }
        let options = AnyConnectOptions::from_str(&url)?.disable_statement_logging();
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        if backend == Backend::Sqlite {
            // WAL lets readers go on while one writer holds the lock; the
            // setting is kept in the file, so once is enough.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await?;
        }
        MIGRATOR.run(&pool).await?;
        let postgres_url = match database {
            Database::Postgres(url) => Some(url.clone()),
            Database::Sqlite(_) => None,
        };
        Ok(Store {
            pool,
            backend,
            postgres_url,
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

    /// The pool, for reads outside a write transaction.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Begins a transaction that may write. On SQLite it takes the write lock
    /// at once (`BEGIN IMMEDIATE`), so two writers never both read a stale game.
    pub async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        match self.backend {
            Backend::Postgres => self.pool.begin().await,
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
        }
    }

    /// Readiness: the database answers and every migration is applied.
    pub async fn ready(&self) -> Result<(), sqlx::Error> {
        let applied: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success = TRUE")
                .fetch_one(&self.pool)
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
        self.pool.close().await;
    }
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

/// Now, as Unix microseconds (the schema's time format).
pub fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}
