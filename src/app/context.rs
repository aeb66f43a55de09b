//! What every use case works with: the database, the tokens, the clock,
//! the notifier that wakes streams and the scheduler, and the metrics.

use std::sync::Arc;

use crate::auth::Tokens;
use crate::clock::Clock;
use crate::metrics::Metrics;
use crate::notify::Notifier;
use crate::store::Store;
use crate::table::automation::BotTimes;

/// The application: shared by the HTTP workers and the jobs. Cloning it is
/// cheap; each HTTP worker holds its own ([`App::for_worker`]).
#[derive(Clone)]
pub struct App {
    /// The database.
    pub store: Store,
    /// Issues and verifies bearer tokens.
    pub tokens: Tokens,
    /// Prometheus metrics, one set for the process.
    pub metrics: Arc<Metrics>,
    /// Wakes streams, long polls and the scheduler when a game changes.
    pub notifier: Arc<Notifier>,
    /// The time, for turn clocks and the scheduler (moved by hand in tests).
    pub clock: Arc<dyn Clock>,
    /// The time a computer player has for a move (`BOT_MOVE_MS`) and for
    /// the trump choice (`BOT_TRUMP_MS`): its move is made that long after
    /// it falls due.
    pub bot_times: BotTimes,
    /// How notifications are sent: the delay, the guard, the VAPID key,
    /// who is at which game.
    pub notifications: Arc<super::notifications::Notifications>,
    /// The path prefix everything is served under (`""` for none), for the
    /// links an answer carries.
    pub path_prefix: String,
}

impl App {
    /// The application as one of `workers` HTTP workers holds it, made on
    /// its thread: its own database pool, everything else shared.
    pub fn for_worker(&self, workers: usize) -> App {
        App {
            store: self.store.for_worker(workers),
            ..self.clone()
        }
    }

    /// Now, in microseconds since the Unix epoch, by the application's
    /// clock, cut to the whole millisecond: the time a change is made at
    /// (its event's `at`, the deadlines and due times that follow from it).
    pub fn now(&self) -> i64 {
        crate::clock::whole_millis(self.clock.now_micros())
    }

    /// The address of game `id`, as the `Location` of a new table.
    pub fn game_location(&self, id: uuid::Uuid) -> String {
        format!("{}/v1/games/{id}", self.path_prefix)
    }
}
