//! Where the service gets the time from for turn clocks and the scheduler:
//! the system clock in production, a clock the test moves by hand in tests
//! (so no test sleeps for real seconds). The times a change is made at are
//! whole milliseconds ([`whole_millis`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::Notify;

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// Now, as Unix microseconds.
    fn now_micros(&self) -> i64;
    /// Woken whenever this clock jumps (a hand-moved clock); `None` for a
    /// clock that only runs.
    fn jumps(&self) -> Option<Arc<Notify>> {
        None
    }
}

/// `micros` cut to the whole millisecond at or before it: the precision of
/// every time a change is made at, so that a time shown to clients carries
/// no microseconds of how long the service worked on it.
pub fn whole_millis(micros: i64) -> i64 {
    micros - micros.rem_euclid(1000)
}

/// Returns once `clock` reads `at` (Unix microseconds) or later: a real
/// sleep on a running clock, a wait for its jumps on a hand-moved one.
pub async fn sleep_until(clock: &dyn Clock, at: i64) {
    let jumps = clock.jumps();
    loop {
        // Registered before the time is read, so a jump in between wakes it.
        let jumped = jumps.as_ref().map(|jumps| jumps.notified());
        let now = clock.now_micros();
        if now >= at {
            return;
        }
        match jumped {
            Some(jumped) => jumped.await,
            None => {
                tokio::time::sleep(std::time::Duration::from_micros((at - now) as u64)).await;
            }
        }
    }
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_micros(&self) -> i64 {
        chrono::Utc::now().timestamp_micros()
    }
}

/// A clock that stands still until [`ManualClock::advance`] moves it.
pub struct ManualClock {
    now: AtomicI64,
    jumped: Arc<Notify>,
}

impl ManualClock {
    /// A clock standing at the system time now.
    pub fn new() -> ManualClock {
        ManualClock {
            now: AtomicI64::new(chrono::Utc::now().timestamp_micros()),
            jumped: Arc::new(Notify::new()),
        }
    }

    /// Moves the clock `seconds` forward and wakes the scheduler.
    pub fn advance(&self, seconds: f64) {
        self.now
            .fetch_add((seconds * 1_000_000.0) as i64, Ordering::SeqCst);
        self.jumped.notify_waiters();
        self.jumped.notify_one();
    }
}

impl Default for ManualClock {
    fn default() -> ManualClock {
        ManualClock::new()
    }
}

impl Clock for ManualClock {
    fn now_micros(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    fn jumps(&self) -> Option<Arc<Notify>> {
        Some(Arc::clone(&self.jumped))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::{Clock, ManualClock, sleep_until, whole_millis};

    #[test]
    fn a_change_time_is_cut_to_the_whole_millisecond() {
        assert_eq!(whole_millis(1_700_000_000_123_456), 1_700_000_000_123_000);
        assert_eq!(whole_millis(1_700_000_000_123_000), 1_700_000_000_123_000);
        assert_eq!(whole_millis(-1), -1000);
    }

    /// A wait on a hand-moved clock ends when the clock is moved past its
    /// time, not before.
    #[tokio::test]
    async fn a_sleep_on_a_hand_moved_clock_ends_when_it_is_moved_past_the_time() {
        let clock = Arc::new(ManualClock::new());
        let at = clock.now_micros() + 500_000;
        let sleeper = {
            let clock = Arc::clone(&clock);
            tokio::spawn(async move { sleep_until(&*clock, at).await })
        };
        clock.advance(0.25);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!sleeper.is_finished(), "woke before its time");
        clock.advance(0.25);
        tokio::time::timeout(Duration::from_secs(10), sleeper)
            .await
            .expect("woken once the clock reads its time")
            .expect("the sleeper ends");
    }
}
