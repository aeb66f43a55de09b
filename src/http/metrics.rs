//! The metrics over HTTP: `/metrics` (served on an address of its own,
//! `METRICS_ADDR`, never on the API's port), and the middleware that counts and
//! times every request by route pattern (never the raw path, which holds
//! ids). The registry itself is [`crate::metrics`].

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

use super::state::AppState;
use crate::jobs::scheduler;
use crate::metrics::{Metrics, RequestHandles, RequestLabels};

/// The metrics in the Prometheus (OpenMetrics) text format.
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let app = &state.app;
    let (connections, idle) = app.store.connections();
    app.metrics.set_pool(connections, idle);
    if let Ok(lag) = scheduler::lag_seconds(app).await {
        app.metrics.set_scheduler_lag(lag);
    }
    if let Ok(age) = crate::jobs::outbox::oldest_age_seconds(app).await {
        app.metrics.set_outbox_oldest(age);
    }
    let Some(body) = app.metrics.text() else {
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

/// The service [`RequestMetrics`] wraps around the app.
pub struct RequestMetricsService<S> {
    service: Rc<S>,
    metrics: std::sync::Arc<Metrics>,
    /// This worker's handles on the families' metrics, by label set: a
    /// request's are found in a map of this worker's own, without the lock
    /// the families take on every look-up. As many as the families hold,
    /// whose label sets are bounded.
    handles: Rc<RefCell<HashMap<RequestLabels, RequestHandles>>>,
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
