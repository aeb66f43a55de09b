//! Who is waiting for which game to change. A move accepted by this instance
//! is published here after its commit; on Postgres, moves accepted by other
//! instances arrive through `LISTEN` (see `store::listen`) and are published
//! here too. Waiters then reload the game from the database: nothing about a
//! game is kept here but the last version heard of.

use std::collections::HashMap;
use std::sync::Mutex;

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
    /// Wakes the scheduler: a game changed here or on another instance, so
    /// automatic work may have fallen due.
    pub work: tokio::sync::Notify,
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier {
            games: Mutex::new(HashMap::new()),
            recheck: watch::channel(0).0,
            shutdown: watch::channel(false).0,
            work: tokio::sync::Notify::new(),
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
        self.work.notify_one();
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
