//! Which server of `DATABASE_URL` takes the writes (Postgres).
//!
//! sqlx opens a pool's connections to one URL, so the store picks the
//! server: at start, the first of the list whose session is as
//! `target_session_attrs` asks (read-write by default), tried as libpq
//! tries them. It looks again, by itself, when the server it writes to is
//! lost: a connection that cannot be opened or breaks, a new connection
//! whose server turns out read-only (the old primary come back as a
//! standby), a statement refused as read-only (SQLSTATE 25006). It probes
//! every server of the list at once, and again every [`SEARCH_EVERY`] while
//! none takes writes; requests meanwhile wait at most their wait for a
//! connection and are answered 503 `database_unavailable`. When a server
//! takes writes again, every pool opens its new connections there, and the
//! connections opened before the server was lost are closed when next
//! handed out instead of being used.

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use sqlx::any::AnyConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{AnyConnection, AnyPool, ConnectOptions, Connection};
use tokio::sync::{Notify, watch};

use super::lock;
use crate::config::postgres::{PostgresUrl, SessionAttrs};

/// How long probing one server may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How often the servers are probed while none takes writes.
pub const SEARCH_EVERY: Duration = Duration::from_millis(250);

/// SQLSTATE `invalid_catalog_name`: the database does not exist (yet).
const UNDEFINED_DATABASE: &str = "3D000";

/// Woken when a statement anywhere in the process was refused as
/// read-only: the error reaches the use case, not the store that made it,
/// so every store of the process looks again (one probe per server).
static READ_ONLY_SEEN: Notify = Notify::const_new();

/// Tells every store of the process to look for the server that takes
/// writes when `error` is a write refused as read-only (SQLSTATE 25006).
pub fn note(error: &sqlx::Error) {
    if super::retry::is_read_only(error) {
        READ_ONLY_SEEN.notify_waiters();
    }
}

/// The servers of one `DATABASE_URL`, the one written to, and every pool
/// that opens connections to it.
pub(super) struct Primary {
    url: PostgresUrl,
    /// Each server's connect options, in the list's order.
    options: Vec<AnyConnectOptions>,
    /// The server new connections are opened to.
    chosen: AtomicUsize,
    /// Every pool of the store: the main runtime's and each worker's.
    pools: Arc<Mutex<Vec<AnyPool>>>,
    /// When the server written to was last lost, in microseconds after
    /// `since` (0: never). Connections opened before are closed when next
    /// handed out.
    lost_at: AtomicU64,
    since: Instant,
    /// Wakes the search ([`Primary::lost`]).
    wake: Arc<Notify>,
    /// The server written to, as an index of the list; the `LISTEN`
    /// connection follows it.
    changed: watch::Sender<usize>,
}

/// What probing one server found.
enum Probe {
    /// It takes writes (or the target is `any` and it answered).
    Takes,
    /// It answered, read-only or a standby.
    ReadOnly,
    /// It did not answer, or refused the connection.
    Failed(sqlx::Error),
}

impl Primary {
    /// The servers of `url`, none chosen yet (the first until
    /// [`Primary::find_at_start`]); `pools` is the store's list of pools.
    pub(super) fn new(
        url: &str,
        pools: Arc<Mutex<Vec<AnyPool>>>,
    ) -> Result<Arc<Primary>, sqlx::Error> {
        let url = PostgresUrl::parse(url).map_err(|why| sqlx::Error::Configuration(why.into()))?;
        let options = (0..url.len())
            .map(|index| {
                AnyConnectOptions::from_str(&url.for_host(index))
                    .map(ConnectOptions::disable_statement_logging)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let primary = Arc::new(Primary {
            url,
            options,
            chosen: AtomicUsize::new(0),
            pools,
            lost_at: AtomicU64::new(0),
            since: Instant::now(),
            wake: Arc::new(Notify::new()),
            changed: watch::Sender::new(0),
        });
        tokio::spawn(keep_looking(
            Arc::downgrade(&primary),
            Arc::clone(&primary.wake),
        ));
        Ok(primary)
    }

    /// Finds the server that takes writes, waiting up to `wait` while none
    /// does or none answers. A server that refuses the connection for
    /// another reason (a wrong password) ends the wait at once.
    pub(super) async fn find_at_start(&self, wait: Duration) -> Result<(), sqlx::Error> {
        let started = Instant::now();
        loop {
            let probes = match self.search().await {
                Ok(index) => {
                    self.choose(index);
                    return Ok(());
                }
                Err(probes) => probes,
            };
            let refused = probes.iter().position(
                |probe| matches!(probe, Probe::Failed(error) if !super::unavailable(error)),
            );
            if refused.is_none() && started.elapsed() < wait {
                tracing::warn!(
                    servers = %self.url.hosts_text(),
                    "waiting for a database server that takes writes"
                );
                tokio::time::sleep(SEARCH_EVERY).await;
                continue;
            }
            return Err(self.none_takes_writes(probes, refused));
        }
    }

    /// The error when no server takes writes: a lone server's own error,
    /// else what each server answered.
    fn none_takes_writes(&self, probes: Vec<Probe>, refused: Option<usize>) -> sqlx::Error {
        if probes.len() == 1 || refused.is_some() {
            let at = refused.unwrap_or(0);
            if let Some(Probe::Failed(error)) = probes.into_iter().nth(at) {
                return error;
            }
            return read_only_error(&self.url.host_text(at));
        }
        let answers: Vec<String> = probes
            .iter()
            .enumerate()
            .map(|(index, probe)| {
                let host = self.url.host_text(index);
                match probe {
                    Probe::Takes => format!("{host}: takes writes"),
                    Probe::ReadOnly => format!("{host}: read-only"),
                    Probe::Failed(error) => format!("{host}: {error}"),
                }
            })
            .collect();
        sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            format!("no database server takes writes ({})", answers.join("; ")),
        ))
    }

    /// The URL of the server written to, for one connection of its own
    /// (`LISTEN`, creating the database).
    pub(super) fn url(&self) -> String {
        self.url.for_host(self.chosen.load(Ordering::Acquire))
    }

    /// A receiver that sees each change of the server written to.
    pub(super) fn changes(&self) -> watch::Receiver<usize> {
        self.changed.subscribe()
    }

    /// Something failed in a way a lost server explains: look again.
    pub(super) fn lost(&self) {
        self.wake.notify_one();
    }

    /// Checks a new pooled connection's session is as
    /// `target_session_attrs` asks. A read-only one (a standby) fails, so
    /// the pool closes it and opens another, where [`Primary::choose`]
    /// points it once the search found the server that takes writes.
    pub(super) async fn check_new(&self, conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
        let takes = match check_sql(self.url.target) {
            // Once a connection: not kept in its statement cache.
            Some(sql) => {
                sqlx::query_scalar::<_, bool>(sql)
                    .persistent(false)
                    .fetch_one(conn)
                    .await?
            }
            None => true,
        };
        if takes {
            return Ok(());
        }
        self.lost();
        let chosen = self.chosen.load(Ordering::Acquire);
        Err(read_only_error(&self.url.host_text(chosen)))
    }

    /// Keeps `pool` in the store's list, pointed at the server written to
    /// now (it may have changed since the pool was made).
    pub(super) fn adopt(&self, pool: &AnyPool) {
        let mut pools = lock(&self.pools);
        pool.set_connect_options(self.options());
        pools.push(pool.clone());
    }

    /// The connect options of the server written to.
    pub(super) fn options(&self) -> AnyConnectOptions {
        self.options[self.chosen.load(Ordering::Acquire)].clone()
    }

    /// Whether a connection `age` old was opened before the server was
    /// last lost.
    pub(super) fn opened_before_lost(&self, age: Duration) -> bool {
        let lost_at = self.lost_at.load(Ordering::Acquire);
        lost_at != 0 && self.since.elapsed().saturating_sub(age) < Duration::from_micros(lost_at)
    }

    /// Connections opened until now are not to be used again.
    fn mark_lost(&self) {
        let now = u64::try_from(self.since.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.lost_at.store(now.max(1), Ordering::Release);
    }

    /// Points every pool at server `index`.
    fn choose(&self, index: usize) {
        let pools = lock(&self.pools);
        let before = self.chosen.swap(index, Ordering::AcqRel);
        for pool in pools.iter() {
            pool.set_connect_options(self.options[index].clone());
        }
        drop(pools);
        if before != index {
            self.mark_lost();
            self.changed.send_replace(index);
            tracing::info!(
                server = %self.url.host_text(index),
                "writing to this database server"
            );
        }
    }

    /// Probes every server at once; the first of the list that takes
    /// writes, or what each answered.
    async fn search(&self) -> Result<usize, Vec<Probe>> {
        let probes =
            futures_util::future::join_all((0..self.url.len()).map(|index| self.probe(index)))
                .await;
        match probes
            .iter()
            .position(|probe| matches!(probe, Probe::Takes))
        {
            Some(index) => Ok(index),
            None => Err(probes),
        }
    }

    /// Connects to server `index` on its own and checks its session. A
    /// database not created yet is checked through the server's `postgres`
    /// database (it is created on the server found).
    async fn probe(&self, index: usize) -> Probe {
        let target = self.url.target;
        let attempt = async {
            let options =
                PgConnectOptions::from_str(&self.url.for_host(index))?.disable_statement_logging();
            let mut conn = match PgConnection::connect_with(&options).await {
                Err(sqlx::Error::Database(error))
                    if error.code().as_deref() == Some(UNDEFINED_DATABASE) =>
                {
                    PgConnection::connect_with(&options.database("postgres")).await?
                }
                other => other?,
            };
            let takes = match check_sql(target) {
                Some(sql) => {
                    sqlx::query_scalar::<_, bool>(sql)
                        .fetch_one(&mut conn)
                        .await
                }
                None => Ok(true),
            };
            let _ = conn.close().await;
            takes
        };
        match tokio::time::timeout(PROBE_TIMEOUT, attempt).await {
            Ok(Ok(true)) => Probe::Takes,
            Ok(Ok(false)) => Probe::ReadOnly,
            Ok(Err(error)) => Probe::Failed(error),
            Err(_) => Probe::Failed(sqlx::Error::PoolTimedOut),
        }
    }
}

impl std::fmt::Debug for Primary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Primary")
            .field("url", &self.url)
            .field("chosen", &self.chosen)
            .finish_non_exhaustive()
    }
}

impl Drop for Primary {
    fn drop(&mut self) {
        // Ends the search task.
        self.wake.notify_one();
    }
}

/// Waits to be woken, then probes until a server takes writes (every
/// [`SEARCH_EVERY`]); ends with the store.
async fn keep_looking(primary: Weak<Primary>, wake: Arc<Notify>) {
    loop {
        let read_only = tokio::select! {
            () = wake.notified() => false,
            () = READ_ONLY_SEEN.notified() => true,
        };
        if read_only && let Some(found) = primary.upgrade() {
            // A server took a write as read-only: the connections open now
            // may all lead there (one name that moved, say), so none is
            // used again.
            found.mark_lost();
        }
        let mut lost = false;
        loop {
            let Some(found) = primary.upgrade() else {
                return;
            };
            match found.search().await {
                Ok(index) => {
                    found.choose(index);
                    if lost {
                        tracing::info!(
                            server = %found.url.host_text(index),
                            "a database server takes writes again"
                        );
                    }
                    break;
                }
                Err(probes) if !lost => {
                    lost = true;
                    found.mark_lost();
                    let answers: Vec<String> = probes
                        .iter()
                        .enumerate()
                        .map(|(index, probe)| match probe {
                            Probe::Takes => String::new(),
                            Probe::ReadOnly => format!("{}: read-only", found.url.host_text(index)),
                            Probe::Failed(error) => {
                                format!("{}: {error}", found.url.host_text(index))
                            }
                        })
                        .collect();
                    tracing::warn!(
                        answers = %answers.join("; "),
                        "no database server takes writes; looking again every {SEARCH_EVERY:?}"
                    );
                }
                Err(_) => {}
            }
            drop(found);
            tokio::time::sleep(SEARCH_EVERY).await;
        }
    }
}

/// The query that tells whether a session is as `target` asks; none for
/// `any`.
fn check_sql(target: SessionAttrs) -> Option<&'static str> {
    match target {
        SessionAttrs::Any => None,
        // As libpq checks read-write: SHOW transaction_read_only.
        SessionAttrs::ReadWrite => Some("SELECT current_setting('transaction_read_only') = 'off'"),
        SessionAttrs::Primary => Some("SELECT NOT pg_is_in_recovery()"),
    }
}

/// The error of a connection to a server that takes no writes: the
/// database is away for writes (see `retry::unavailable`).
fn read_only_error(server: &str) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::new(
        std::io::ErrorKind::NotConnected,
        format!("database server {server} takes no writes (read-only or a standby)"),
    ))
}
