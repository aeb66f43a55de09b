//! Who is waiting for which game to change. A move accepted by this instance
//! is published here after its commit; on Postgres, moves accepted by other
//! instances arrive through `LISTEN` (see `store::listen`) and are published
//! here too. Waiters then reload the game from the database: nothing about a
//! game is kept here but the last version heard of.
//!
//! The `LISTEN` connection is open only while this instance has waiters (and
//! for [`LISTEN_GRACE`] after the last one left): an instance that only
//! answers requests would otherwise be sent, and parse, every change made
//! anywhere, for nobody. A waiter's first read comes after the listener is listening, so
//! it misses no change of another instance.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use uuid::Uuid;

/// The change a waiter is woken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// The game reached a new version.
    Changed,
    /// Notifications may have been missed (the listener reconnected): check.
    Recheck,
    /// The waiter's player signed out everywhere: check its token.
    SignedOut,
    /// The server is shutting down: end the wait.
    Shutdown,
}

/// How long the `LISTEN` connection stays open after the last waiter left,
/// so that clients polling one long poll after another do not open and
/// close it each time.
pub const LISTEN_GRACE: Duration = Duration::from_secs(30);

/// How long a new waiter waits for the `LISTEN` connection before its first
/// read. Past that (the database is away) it reads anyway: the listener's
/// re-check when it does connect covers whatever it missed meanwhile.
pub const LISTEN_READY_WAIT: Duration = Duration::from_secs(2);

/// Where this instance's `LISTEN` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listening {
    /// No listener: SQLite, where every change is made by this instance.
    Never,
    /// Not listening now: nobody waits here.
    Idle,
    /// Listening: every change on any instance is heard.
    Live,
}

/// How many [`Subscription`]s are live, and a wake for the listener each
/// time that changes.
#[derive(Default)]
struct Waiters {
    count: AtomicUsize,
    changed: tokio::sync::Notify,
}

/// Per-game version channels, a re-check signal and a shutdown signal.
pub struct Notifier {
    games: Mutex<HashMap<Uuid, watch::Sender<i64>>>,
    /// Per player with a waiter here, a count of its sign-outs.
    sign_outs: Mutex<HashMap<Uuid, watch::Sender<u64>>>,
    waiters: Arc<Waiters>,
    listening: watch::Sender<Listening>,
    recheck: watch::Sender<u64>,
    shutdown: watch::Sender<bool>,
    /// Wakes the scheduler: automatic work on some game falls due before
    /// the scheduler would look again (see [`Notifier::work_due`]).
    pub work: tokio::sync::Notify,
    /// When the sleeping scheduler looks again (clock micros), or
    /// [`AWAKE`] while it works.
    sleeps_until: AtomicI64,
}

/// The scheduler is working: any work falling due wakes it again.
const AWAKE: i64 = i64::MAX;

impl Default for Notifier {
    fn default() -> Self {
        Notifier {
            games: Mutex::new(HashMap::new()),
            sign_outs: Mutex::new(HashMap::new()),
            waiters: Arc::default(),
            listening: watch::channel(Listening::Never).0,
            recheck: watch::channel(0).0,
            shutdown: watch::channel(false).0,
            work: tokio::sync::Notify::new(),
            sleeps_until: AtomicI64::new(AWAKE),
        }
    }
}

impl Notifier {
    /// Starts waiting for changes of `game`, once this instance hears of
    /// every change (at most [`LISTEN_READY_WAIT`]): read the game after
    /// this returns, so that no change in between is missed.
    pub async fn subscribe(&self, game: Uuid) -> Subscription {
        let subscription = self.subscribe_now(game);
        let mut listening = self.listening.subscribe();
        let live = listening.wait_for(|state| *state != Listening::Idle);
        // Past the wait the listener's re-check on connecting covers it.
        let _ = tokio::time::timeout(LISTEN_READY_WAIT, live).await;
        subscription
    }

    /// [`Notifier::subscribe`] for a waiter on behalf of `player`, woken
    /// also when that player signs out everywhere ([`Wake::SignedOut`]).
    pub async fn subscribe_as(&self, game: Uuid, player: Uuid) -> Subscription {
        let mut subscription = self.subscribe(game).await;
        let mut sign_outs = self.sign_outs.lock().unwrap_or_else(|e| e.into_inner());
        // Forget players nobody waits for any more.
        sign_outs.retain(|_, sender| sender.receiver_count() > 0);
        subscription.signed_out = Some(
            sign_outs
                .entry(player)
                .or_insert_with(|| watch::channel(0).0)
                .subscribe(),
        );
        subscription
    }

    /// `player` signed out everywhere (here or on another instance): wakes
    /// its waiters here.
    pub fn signed_out(&self, player: Uuid) {
        let sign_outs = self.sign_outs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sender) = sign_outs.get(&player) {
            sender.send_modify(|count| *count += 1);
        }
    }

    /// [`Notifier::subscribe`] without waiting for the listener.
    fn subscribe_now(&self, game: Uuid) -> Subscription {
        let version = {
            let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
            games
                .entry(game)
                .or_insert_with(|| watch::channel(0).0)
                .subscribe()
        };
        self.waiters.count.fetch_add(1, Ordering::SeqCst);
        self.waiters.changed.notify_one();
        Subscription {
            version,
            signed_out: None,
            recheck: self.recheck.subscribe(),
            shutdown: self.shutdown.subscribe(),
            _counted: Counted(Arc::clone(&self.waiters)),
        }
    }

    /// This instance has a `LISTEN` connection to open while someone
    /// waits (Postgres); until then waiters do not wait for one.
    pub fn expect_listener(&self) {
        self.listening.send_replace(Listening::Idle);
    }

    /// The listener connected and listens (`true`), or closed (`false`).
    pub fn set_listening(&self, live: bool) {
        let state = if live {
            Listening::Live
        } else {
            Listening::Idle
        };
        self.listening.send_replace(state);
    }

    /// Where this instance's `LISTEN` stands (what the tests look at).
    #[cfg(test)]
    pub fn listening(&self) -> Listening {
        *self.listening.borrow()
    }

    /// Returns once someone waits here (at once if someone does).
    pub async fn someone_waits(&self) {
        loop {
            let changed = self.waiters.changed.notified();
            if self.waiters.count.load(Ordering::SeqCst) > 0 {
                return;
            }
            changed.await;
        }
    }

    /// Returns once nobody has waited here for `grace` in a row.
    pub async fn nobody_waits_for(&self, grace: Duration) {
        loop {
            let changed = self.waiters.changed.notified();
            if self.waiters.count.load(Ordering::SeqCst) > 0 {
                changed.await;
            } else if tokio::time::timeout(grace, changed).await.is_err()
                && self.waiters.count.load(Ordering::SeqCst) == 0
            {
                return;
            }
        }
    }

    /// `game` is at `version` now.
    pub fn publish(&self, game: Uuid, version: i64) {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sender) = games.get(&game) {
            sender.send_if_modified(|known| {
                let newer = version > *known;
                if newer {
                    *known = version;
                }
                newer
            });
        }
        // Forget games nobody waits for any more.
        games.retain(|_, sender| sender.receiver_count() > 0);
    }

    /// A change made automatic work due at `due_at` (here or on another
    /// instance): wakes the scheduler if that is before it would look
    /// anyway. A change that makes nothing due, or something due after the
    /// scheduler's planned look, costs it nothing (before, every move woke
    /// it for a round of four statements that found nothing).
    pub fn work_due(&self, due_at: Option<i64>) {
        if due_at.is_some_and(|at| at <= self.sleeps_until.load(Ordering::SeqCst)) {
            self.work.notify_one();
        }
    }

    /// The scheduler starts a round: every change with due work wakes it
    /// again after the round (a `Notify` keeps one wake for a later wait).
    pub fn scheduler_awake(&self) {
        self.sleeps_until.store(AWAKE, Ordering::SeqCst);
    }

    /// The scheduler sleeps until `at` (clock micros) unless woken. Set
    /// after it read when work is next due: a change committed in between
    /// saw it awake and left it a wake.
    pub fn scheduler_sleeps_until(&self, at: i64) {
        self.sleeps_until.store(at, Ordering::SeqCst);
    }

    /// Every waiter checks its game again (after a listener reconnect).
    pub fn recheck_all(&self) {
        self.recheck.send_modify(|n| *n += 1);
    }

    /// Ends every wait: the server is stopping.
    pub fn shut_down(&self) {
        self.shutdown.send_replace(true);
        self.work.notify_one();
    }

    /// Returns once the server is stopping.
    pub async fn shutting_down(&self) {
        let mut stopping = self.shutdown.subscribe();
        // The sender lives as long as `self`, so the wait cannot fail.
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }

    /// Whether the server is stopping.
    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }
}

/// One waiter's receivers.
pub struct Subscription {
    version: watch::Receiver<i64>,
    /// The sign-outs of the player the waiter waits for, if any.
    signed_out: Option<watch::Receiver<u64>>,
    recheck: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
    _counted: Counted,
}

/// A live subscription, counted until it is dropped.
struct Counted(Arc<Waiters>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_one();
    }
}

impl Subscription {
    /// Waits for the next reason to look at the game again.
    pub async fn wake(&mut self) -> Wake {
        if *self.shutdown.borrow() {
            return Wake::Shutdown;
        }
        let signed_out = async {
            match &mut self.signed_out {
                Some(sign_outs) => sign_outs.changed().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            changed = self.version.changed() => if changed.is_ok() { Wake::Changed } else { Wake::Shutdown },
            changed = signed_out => if changed.is_ok() { Wake::SignedOut } else { Wake::Shutdown },
            changed = self.recheck.changed() => if changed.is_ok() { Wake::Recheck } else { Wake::Shutdown },
            _ = self.shutdown.changed() => Wake::Shutdown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_published_version_wakes_its_waiters_only() {
        let notifier = Notifier::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let mut waiter = notifier.subscribe(a).await;
        notifier.publish(b, 3);
        notifier.publish(a, 2);
        assert_eq!(waiter.wake().await, Wake::Changed);
        notifier.recheck_all();
        assert_eq!(waiter.wake().await, Wake::Recheck);
        notifier.shut_down();
        assert_eq!(waiter.wake().await, Wake::Shutdown);
    }

    async fn scheduler_woken(notifier: &Notifier) -> bool {
        tokio::time::timeout(
            std::time::Duration::from_millis(50),
            notifier.work.notified(),
        )
        .await
        .is_ok()
    }

    #[tokio::test]
    async fn a_change_wakes_the_sleeping_scheduler_only_for_work_due_before_it_looks() {
        let notifier = Notifier::default();
        notifier.scheduler_sleeps_until(1_000);
        notifier.work_due(None);
        assert!(!scheduler_woken(&notifier).await, "nothing due");
        notifier.work_due(Some(1_001));
        assert!(
            !scheduler_woken(&notifier).await,
            "due after it looks anyway"
        );
        notifier.work_due(Some(1_000));
        assert!(scheduler_woken(&notifier).await, "due when it looks");
        notifier.work_due(Some(5));
        assert!(scheduler_woken(&notifier).await, "due before it looks");
    }

    #[tokio::test]
    async fn work_falling_due_while_the_scheduler_works_wakes_it_after_the_round() {
        let notifier = Notifier::default();
        notifier.scheduler_sleeps_until(1_000);
        notifier.scheduler_awake();
        notifier.work_due(Some(i64::MAX - 1));
        assert!(scheduler_woken(&notifier).await);
        notifier.publish(Uuid::new_v4(), 1);
        assert!(
            !scheduler_woken(&notifier).await,
            "a change alone wakes no scheduler"
        );
    }

    async fn done_within<F: std::future::Future>(future: F, millis: u64) -> bool {
        tokio::time::timeout(std::time::Duration::from_millis(millis), future)
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn the_listener_is_wanted_only_while_someone_waits() {
        let notifier = Notifier::default();
        assert!(!done_within(notifier.someone_waits(), 50).await, "nobody");
        let waiter = notifier.subscribe(Uuid::new_v4()).await;
        let other = notifier.subscribe(Uuid::new_v4()).await;
        assert!(done_within(notifier.someone_waits(), 50).await);
        let grace = std::time::Duration::from_millis(30);
        drop(waiter);
        assert!(
            !done_within(notifier.nobody_waits_for(grace), 150).await,
            "one waiter is left"
        );
        drop(other);
        assert!(done_within(notifier.nobody_waits_for(grace), 150).await);
        assert!(!done_within(notifier.someone_waits(), 50).await);
    }

    #[tokio::test]
    async fn nobody_waits_only_after_a_whole_grace_without_waiters() {
        let notifier = Notifier::default();
        let grace = std::time::Duration::from_millis(200);
        let quiet = notifier.nobody_waits_for(grace);
        tokio::pin!(quiet);
        assert!(!done_within(&mut quiet, 120).await);
        // A waiter that comes and goes within the grace starts it again.
        drop(notifier.subscribe(Uuid::new_v4()).await);
        assert!(
            !done_within(&mut quiet, 120).await,
            "the grace started again"
        );
        assert!(done_within(&mut quiet, 200).await);
    }

    #[tokio::test]
    async fn a_new_waiter_waits_for_the_listener_to_listen() {
        let notifier = std::sync::Arc::new(Notifier::default());
        // SQLite: no listener, nothing to wait for.
        assert!(done_within(notifier.subscribe(Uuid::new_v4()), 50).await);
        notifier.expect_listener();
        let subscribing = {
            let notifier = std::sync::Arc::clone(&notifier);
            tokio::spawn(async move { notifier.subscribe(Uuid::new_v4()).await })
        };
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert!(!subscribing.is_finished(), "still waiting for the listener");
        notifier.set_listening(true);
        assert!(done_within(subscribing, 100).await);
        assert_eq!(notifier.listening(), Listening::Live);
        notifier.set_listening(false);
        assert_eq!(notifier.listening(), Listening::Idle);
    }

    #[tokio::test]
    async fn a_new_waiter_reads_anyway_when_the_listener_cannot_connect() {
        let notifier = Notifier::default();
        notifier.expect_listener();
        let started = std::time::Instant::now();
        let _waiter = notifier.subscribe(Uuid::new_v4()).await;
        let waited = started.elapsed();
        assert!(waited >= LISTEN_READY_WAIT, "waited {waited:?}");
    }

    #[tokio::test]
    async fn a_sign_out_wakes_that_players_waiters_only() {
        let notifier = Notifier::default();
        let (game, anne, bram) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut annes = notifier.subscribe_as(game, anne).await;
        let mut brams = notifier.subscribe_as(game, bram).await;
        let mut anyone = notifier.subscribe(game).await;
        notifier.signed_out(anne);
        assert_eq!(annes.wake().await, Wake::SignedOut);
        for other in [&mut brams, &mut anyone] {
            let woken =
                tokio::time::timeout(std::time::Duration::from_millis(50), other.wake()).await;
            assert!(woken.is_err(), "only Anne's waiters are woken");
        }
    }

    #[tokio::test]
    async fn an_older_version_wakes_nobody() {
        let notifier = Notifier::default();
        let game = Uuid::new_v4();
        let mut waiter = notifier.subscribe(game).await;
        notifier.publish(game, 5);
        assert_eq!(waiter.wake().await, Wake::Changed);
        notifier.publish(game, 4);
        let woken = tokio::time::timeout(std::time::Duration::from_millis(50), waiter.wake()).await;
        assert!(woken.is_err(), "no wake for an older version");
    }
}
