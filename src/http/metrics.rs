//! Prometheus metrics at `/metrics`: requests by route pattern (never the raw
//! path, which holds ids) and status, latency histograms, the database pool,
//! and accepted moves by game.

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::{Ready, ready};
use std::rc::Rc;
use std::time::Instant;

use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::Method;
use actix_web::{HttpResponse, get, web};
use futures_util::future::LocalBoxFuture;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use super::AppState;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: u16,
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
    /// Seconds the oldest due automatic work has waited (scheduler lag).
    pub scheduler_lag: Gauge<f64, std::sync::atomic::AtomicU64>,
    pool_connections: Gauge,
    pool_idle: Gauge,
    cleanup_runs: Counter,
    cleanup_rows: Family<KindLabels, Counter>,
    abandoned: Counter,
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
        Metrics {
            registry,
            cleanup_runs,
            cleanup_rows,
            abandoned,
            requests,
            latency,
            moves,
            automatic,
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
    /// Counts a run of the storage cleanup job and what it did.
    pub fn count_cleanup(&self, swept: &super::cleanup::Swept) {
        self.cleanup_runs.inc();
        for (kind, rows) in [
            ("idempotency_answers", swept.idempotency_answers),
            ("guest_players", swept.guest_players),
            ("bot_players", swept.bot_players),
            ("waiting_tables", swept.waiting_tables),
        ] {
            self.cleanup_rows
                .get_or_create(&KindLabels {
                    kind: kind.to_owned(),
                })
                .inc_by(rows);
        }
    }

    /// Counts a table closed as abandoned.
    pub fn count_abandoned(&self) {
        self.abandoned.inc();
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

    /// The request counter and latency histogram of `labels`, made if
    /// new: handles on the families' own, which share their counts.
    fn request_handles(&self, labels: &RequestLabels) -> RequestHandles {
        let latency = self.latency.get_or_create_owned(&RouteLabels {
            method: labels.method,
            route: labels.route.clone(),
        });
        (self.requests.get_or_create_owned(labels), latency)
    }
}

/// The metrics in the Prometheus (OpenMetrics) text format.
#[utoipa::path(tag = "health", responses((status = 200, description = "Metrics, OpenMetrics text", content_type = "application/openmetrics-text")))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let (connections, idle) = state.store.connections();
    state.metrics.pool_connections.set(i64::from(connections));
    state.metrics.pool_idle.set(idle as i64);
    if let Ok(mut conn) = state.store.acquire().await
        && let Ok(next) = crate::store::games::next_due(&mut conn).await
    {
        let now = state.clock.now_micros();
        let lag = next.map_or(0.0, |due| (now - due).max(0) as f64 / 1e6);
        state.metrics.scheduler_lag.set(lag);
    }
    let Some(body) = state.metrics.text() else {
        return HttpResponse::InternalServerError().finish();
    };
    HttpResponse::Ok()
        .content_type("application/openmetrics-text; version=1.0.0; charset=utf-8")
        .body(body)
}

/// `method` as a label: the standard methods by name, any other as
/// `OTHER`, so that made-up methods cannot grow the label sets without end.
fn method_label(method: &Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "PATCH" => "PATCH",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        "CONNECT" => "CONNECT",
        "TRACE" => "TRACE",
        _ => "OTHER",
    }
}

/// Middleware that times every request and counts it by route pattern,
/// into the metrics it holds.
pub struct RequestMetrics(pub std::sync::Arc<Metrics>);

/// The route pattern `request` matches (`/v1/games/{id}`, never the raw
/// path, which holds ids), or `unmatched`. Before routing this walks the
/// app's routes and matches the path; once a resource has taken the
/// request, actix-web looks its pattern up directly.
pub fn route_of(request: &actix_web::HttpRequest) -> String {
    request
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned())
}

impl<S, B> Transform<S, ServiceRequest> for RequestMetrics
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = actix_web::Error;
    type Transform = RequestMetricsService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestMetricsService {
            service: Rc::new(service),
            metrics: std::sync::Arc::clone(&self.0),
            handles: Rc::default(),
        }))
    }
}

/// A request counter and its route's latency histogram.
type RequestHandles = (Counter, Histogram);

/// The service [`RequestMetrics`] wraps around the app.
pub struct RequestMetricsService<S> {
    service: Rc<S>,
    metrics: std::sync::Arc<Metrics>,
    /// This worker's handles on the families' metrics, by label set: a
    /// request's are found with one foldhash lookup, where the families
    /// take a lock and hash with SipHash, twice a request (1,000
    /// instructions; docs/benchmarks.md, twenty-third session). As many as
    /// the families hold, whose label sets are bounded.
    handles: Rc<RefCell<HashMap<RequestLabels, RequestHandles, foldhash::fast::RandomState>>>,
}

impl<S, B> Service<ServiceRequest> for RequestMetricsService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let started = Instant::now();
        let counted = std::sync::Arc::clone(&self.metrics);
        let handles = Rc::clone(&self.handles);
        let method = method_label(req.method());
        let service = Rc::clone(&self.service);
        Box::pin(async move {
            let response = service.call(req).await?;
            let labels = RequestLabels {
                method,
                route: route_of(response.request()),
                status: response.response().status().as_u16(),
            };
            let seconds = started.elapsed().as_secs_f64();
            let mut handles = handles.borrow_mut();
            let (requests, latency) = match handles.entry(labels) {
                Entry::Occupied(found) => found.into_mut(),
                Entry::Vacant(new) => {
                    let made = counted.request_handles(new.key());
                    new.insert(made)
                }
            };
            requests.inc();
            latency.observe(seconds);
            Ok(response)
        })
    }
}
