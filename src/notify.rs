//! Who is waiting for which game to change. A move accepted by this instance
//! is published here after its commit; on Postgres, moves accepted by other
//! instances arrive through `LISTEN` (see `store::listen`) and are published
//! here too. Waiters then reload the game from the database: nothing about a
//! game is kept here but the last version heard of.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::watch;
use uuid::Uuid;

/// The change a waiter is woken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// The game reached a new version.
    Changed,
    /// Notifications may have been missed (the listener reconnected): check.
    Recheck,
    /// The server is shutting down: end the wait.
    Shutdown,
}

/// Per-game version channels, a re-check signal and a shutdown signal.
pub struct Notifier {
    games: Mutex<HashMap<Uuid, watch::Sender<i64>>>,
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
            recheck: watch::channel(0).0,
            shutdown: watch::channel(false).0,
            work: tokio::sync::Notify::new(),
            sleeps_until: AtomicI64::new(AWAKE),
        }
    }
}

impl Notifier {
    /// Starts waiting for changes of `game`.
    pub fn subscribe(&self, game: Uuid) -> Subscription {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let version = games
            .entry(game)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe();
        Subscription {
            version,
            recheck: self.recheck.subscribe(),
            shutdown: self.shutdown.subscribe(),
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

    /// Whether the server is stopping.
    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }
}

/// One waiter's receivers.
pub struct Subscription {
    version: watch::Receiver<i64>,
    recheck: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
}

impl Subscription {
    /// Waits for the next reason to look at the game again.
    pub async fn wake(&mut self) -> Wake {
        if *self.shutdown.borrow() {
            return Wake::Shutdown;
        }
        tokio::select! {
            changed = self.version.changed() => if changed.is_ok() { Wake::Changed } else { Wake::Shutdown },
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
        let mut waiter = notifier.subscribe(a);
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

    #[tokio::test]
    async fn an_older_version_wakes_nobody() {
        let notifier = Notifier::default();
        let game = Uuid::new_v4();
        let mut waiter = notifier.subscribe(game);
        notifier.publish(game, 5);
        assert_eq!(waiter.wake().await, Wake::Changed);
        notifier.publish(game, 4);
        let woken = tokio::time::timeout(std::time::Duration::from_millis(50), waiter.wake()).await;
        assert!(woken.is_err(), "no wake for an older version");
    }
}
