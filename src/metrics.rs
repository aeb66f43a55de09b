//! The service's Prometheus metrics, one registry per process: requests by
//! route pattern (never the raw path, which holds ids) and status, latency
//! histograms, the database pool, accepted and automatic moves, the
//! scheduler's lag, the storage clean-up and notifications. The HTTP layer serves them at
//! `/metrics` and counts requests; the use cases and jobs count the rest.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// What a request is counted by.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The method, one of a bounded set (see the HTTP layer).
    pub method: &'static str,
    /// The route pattern, never the raw path.
    pub route: String,
    /// The answer's status.
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MoveLabels {
    game: String,
    r#move: String,
}

/// The service's metrics.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    moves: Family<MoveLabels, Counter>,
    automatic: Family<KindLabels, Counter>,
    bot_moves_over_budget: Counter,
    scheduler_lag: Gauge<f64, std::sync::atomic::AtomicU64>,
    pool_connections: Gauge,
    pool_idle: Gauge,
    cleanup_runs: Counter,
    cleanup_rows: Family<KindLabels, Counter>,
    abandoned: Counter,
    notifications: Family<NotificationLabels, Counter>,
    outbox_oldest: Gauge<f64, std::sync::atomic::AtomicU64>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NotificationLabels {
    kind: String,
    channel: String,
    outcome: String,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("kaarttafel");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests by route pattern and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0005, 2.0, 16))
        });
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency by route pattern",
            latency.clone(),
        );
        let moves = Family::<MoveLabels, Counter>::default();
        registry.register(
            "moves",
            "Accepted moves (deals included) by game and move type",
            moves.clone(),
        );
        let automatic = Family::<KindLabels, Counter>::default();
        registry.register(
            "automatic_moves",
            "Moves the scheduler made, by kind: bot (a computer player) or clock (a seat whose clock ran out, or away)",
            automatic.clone(),
        );
        let bot_moves_over_budget = Counter::default();
        registry.register(
            "bot_moves_over_budget",
            "Computer players' moves not decided within their time for a move (BOT_MOVE_MS, BOT_TRUMP_MS at the trump choice), made with the basic player's choice instead",
            bot_moves_over_budget.clone(),
        );
        let scheduler_lag = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
        registry.register(
            "scheduler_lag_seconds",
            "How long the oldest due automatic work has been due, 0 when none is",
            scheduler_lag.clone(),
        );
        let pool_connections = Gauge::default();
        registry.register(
            "db_pool_connections",
            "Open database connections",
            pool_connections.clone(),
        );
        let pool_idle = Gauge::default();
        registry.register(
            "db_pool_idle_connections",
            "Idle database connections",
            pool_idle.clone(),
        );
        let cleanup_runs = Counter::default();
        registry.register(
            "cleanup_runs",
            "Runs of the storage cleanup job on this instance (one instance at a time runs it)",
            cleanup_runs.clone(),
        );
        let cleanup_rows = Family::<KindLabels, Counter>::default();
        registry.register(
            "cleanup_rows",
            "Rows the storage cleanup job removed or changed, by kind: idempotency_answers and guest_players removed, waiting_tables given the due time of their closing",
            cleanup_rows.clone(),
        );
        let abandoned = Counter::default();
        registry.register(
            "tables_abandoned",
            "Tables closed as abandoned after waiting 24 hours for players",
            abandoned.clone(),
        );
        let notifications = Family::<NotificationLabels, Counter>::default();
        registry.register(
            "notifications",
            "Notifications by kind (your_turn, clock_low, game_started, game_finished, ...), channel (web_push, webhook) and outcome: sent, retried (an attempt failed and another is due), dropped (given up, refused, or the subscription is gone) or suppressed (the player was at the game, or the turn is over)",
            notifications.clone(),
        );
        let outbox_oldest = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
        registry.register(
            "notification_outbox_oldest_seconds",
            "How long the oldest notification still to deliver has waited, 0 when none is",
            outbox_oldest.clone(),
        );
        Metrics {
            registry,
            notifications,
            outbox_oldest,
            cleanup_runs,
            cleanup_rows,
            abandoned,
            requests,
            latency,
            moves,
            automatic,
            bot_moves_over_budget,
            scheduler_lag,
            pool_connections,
            pool_idle,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: String,
}

impl Metrics {
    /// Counts a run of the storage cleanup job and the rows it removed or
    /// changed, by kind.
    pub fn count_cleanup(&self, rows_by_kind: &[(&str, u64)]) {
        self.cleanup_runs.inc();
        for &(kind, rows) in rows_by_kind {
            self.cleanup_rows
                .get_or_create(&KindLabels {
                    kind: kind.to_owned(),
                })
                .inc_by(rows);
        }
    }

    /// Counts what became of a notification's attempt: `outcome` `sent`,
    /// `retried`, `dropped` or `suppressed`.
    pub fn count_notification(&self, kind: &str, channel: &str, outcome: &str) {
        self.notifications
            .get_or_create(&NotificationLabels {
                kind: kind.to_owned(),
                channel: channel.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    /// Sets how long the oldest notification still to deliver has waited.
    pub fn set_outbox_oldest(&self, seconds: f64) {
        self.outbox_oldest.set(seconds);
    }

    /// Counts a table closed as abandoned.
    pub fn count_abandoned(&self) {
        self.abandoned.inc();
    }

    /// Counts a computer player's move not decided within its time for a
    /// move or for the trump choice (made with the `basic` player's choice
    /// instead).
    pub fn count_bot_move_over_budget(&self) {
        self.bot_moves_over_budget.inc();
    }

    /// Counts a move the scheduler made (`bot` or `clock`).
    pub fn count_automatic(&self, kind: &str) {
        self.automatic
            .get_or_create(&KindLabels {
                kind: if kind == "clock" { "timeout" } else { kind }.to_owned(),
            })
            .inc();
    }

    /// Counts an accepted move of `game`.
    pub fn count_move(&self, game: &str, move_type: &str) {
        self.moves
            .get_or_create(&MoveLabels {
                game: game.to_owned(),
                r#move: move_type.to_owned(),
            })
            .inc();
    }

    /// The metrics in the Prometheus (OpenMetrics) text format; `None`,
    /// logged, if they could not be written.
    pub fn text(&self) -> Option<String> {
        let mut body = String::new();
        match prometheus_client::encoding::text::encode(&mut body, &self.registry) {
            Ok(()) => Some(body),
            Err(error) => {
                tracing::error!(%error, "encoding metrics");
                None
            }
        }
    }

    /// Sets the database pool's gauges: open and idle connections.
    pub fn set_pool(&self, connections: u32, idle: usize) {
        self.pool_connections.set(i64::from(connections));
        self.pool_idle.set(idle as i64);
    }

    /// Sets how long the oldest due automatic work has waited, in seconds.
    pub fn set_scheduler_lag(&self, seconds: f64) {
        self.scheduler_lag.set(seconds);
    }

    /// The request counter and latency histogram of `labels`, made if
    /// new: handles on the families' own, which share their counts.
    pub fn request_handles(&self, labels: &RequestLabels) -> RequestHandles {
        let latency = self.latency.get_or_create_owned(&RouteLabels {
            method: labels.method,
            route: labels.route.clone(),
        });
        (self.requests.get_or_create_owned(labels), latency)
    }
}

/// A request counter and its route's latency histogram.
pub type RequestHandles = (Counter, Histogram);
