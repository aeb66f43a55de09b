//! Where the service gets the time from for turn clocks and the scheduler:
//! the system clock in production, a clock the test moves by hand in tests
//! (so no test sleeps for real seconds).

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
