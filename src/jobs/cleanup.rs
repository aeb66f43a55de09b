//! Bounded storage: a periodic job that removes what nobody can use any
//! more, on one instance at a time (a lease row in `job_leases`, the same on
//! Postgres and SQLite).
//!
//! - Idempotency answers older than 24 hours (they are never replayed after
//!   that anyway: the lookup itself checks their age).
//! - Guest players with no game (no table hosted, no seat, no event) whose
//!   last use is older than the token lifetime plus a day: every token they
//!   ever held has expired, and a guest has no other way back in.
//! - Tables still waiting for players with no due time (stored before tables
//!   were closed automatically) get one, 24 hours after their creation, so
//!   the scheduler closes them as `abandoned` like every newer table.
//!
//! Every instance wakes every [`POLL`] (often with a hand-moved clock)
//! and tries to take the lease; the one that takes it holds it for
//! [`Policy::interval`] and runs the job, so the job runs once per interval
//! across all instances. What it removes is counted in `/metrics`.

use std::time::Duration;

use uuid::Uuid;

use crate::app::context::App;
use crate::store::{Store, cleanup};
use crate::table::automation::ABANDON_AFTER_MICROS;

/// The lease's name in `job_leases`.
pub const LEASE: &str = "cleanup";
/// How often each instance tries to take the lease.
const POLL: Duration = Duration::from_secs(60);
/// Players (guests, unplayed computer players) removed per batch; batches
/// repeat until one comes back short.
const BATCH: i64 = 500;
/// How long after a guest's last use, beyond the token lifetime, it is kept.
pub const GUEST_GRACE_MICROS: i64 = 24 * 3600 * 1_000_000;

/// How often the job runs and what it removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// How long the lease is held: the job runs once per interval.
    pub interval: Duration,
    /// A guest with no game is removed this long after its last use.
    pub guest_idle_micros: i64,
}

impl Policy {
    /// Hourly runs; guests kept for `token_ttl` plus [`GUEST_GRACE_MICROS`].
    pub fn new(token_ttl: Duration) -> Policy {
        Policy {
            interval: Duration::from_secs(3600),
            guest_idle_micros: i64::try_from(token_ttl.as_micros())
                .unwrap_or(i64::MAX / 2)
                .saturating_add(GUEST_GRACE_MICROS),
        }
    }
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Idempotency answers removed.
    pub idempotency_answers: u64,
    /// Guest players removed.
    pub guest_players: u64,
    /// Computer players that never played, removed.
    pub bot_players: u64,
    /// Waiting tables given the due time of their closing.
    pub waiting_tables: u64,
}

impl Swept {
    /// What the run removed or changed, by kind, as the metrics count it.
    pub fn rows_by_kind(&self) -> [(&'static str, u64); 4] {
        [
            ("idempotency_answers", self.idempotency_answers),
            ("guest_players", self.guest_players),
            ("bot_players", self.bot_players),
            ("waiting_tables", self.waiting_tables),
        ]
    }
}

/// How long a computer player that never played is kept: a day, so one
/// made a moment before the job runs is not removed while its host's
/// request is still seating it.
const BOT_KEPT_MICROS: i64 = 24 * 3600 * 1_000_000;

/// One run of the job at `now`, without the lease.
pub async fn sweep(store: &Store, now: i64, policy: &Policy) -> Result<Swept, sqlx::Error> {
    let mut conn = store.acquire().await?;
    let idempotency_answers =
        cleanup::remove_idempotency_answers(&mut conn, now - crate::store::idempotency::TTL_MICROS)
            .await?;
    let guest_players =
        cleanup::remove_idle_guests(&mut conn, now - policy.guest_idle_micros, BATCH).await?;
    let bot_players =
        cleanup::remove_unplayed_bots(&mut conn, now - BOT_KEPT_MICROS, BATCH).await?;
    let waiting_tables = cleanup::schedule_waiting_tables(&mut conn, ABANDON_AFTER_MICROS).await?;
    Ok(Swept {
        idempotency_answers,
        guest_players,
        bot_players,
        waiting_tables,
    })
}

/// Runs the job at `now` if `holder` can take the lease; `None` when another
/// instance holds it (or ran it less than an interval ago).
pub async fn run_if_free(
    store: &Store,
    holder: &str,
    now: i64,
    policy: &Policy,
) -> Result<Option<Swept>, sqlx::Error> {
    let until = now + i64::try_from(policy.interval.as_micros()).unwrap_or(i64::MAX / 2);
    let taken = {
        let mut conn = store.acquire().await?;
        cleanup::take_lease(&mut conn, LEASE, holder, now, until).await?
    };
    if !taken {
        return Ok(None);
    }
    sweep(store, now, policy).await.map(Some)
}

/// Runs until the server shuts down.
pub async fn run(app: App, policy: Policy) {
    // Each instance its own holder name: a restarted instance waits out the
    // lease its earlier life took, like any other instance.
    let holder = Uuid::new_v4().to_string();
    let jumps = app.clock.jumps();
    while !app.notifier.is_shutting_down() {
        let now = app.now();
        match run_if_free(&app.store, &holder, now, &policy).await {
            Ok(Some(swept)) => {
                app.metrics.count_cleanup(&swept.rows_by_kind());
                if swept.waiting_tables > 0 {
                    app.notifier.work.notify_one();
                }
                tracing::info!(?swept, "storage cleanup");
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "storage cleanup failed"),
        }
        // A hand-moved clock (tests) is looked at often: the lease, not
        // the wait, decides how often the job runs.
        let wait = if jumps.is_some() {
            Duration::from_millis(100)
        } else {
            POLL
        };
        tokio::time::sleep(wait).await;
    }
}
