//! Builds the application and binds its listener. Tests call [`Application::build`]
//! with port 0 and read the real port back.

use std::net::TcpListener;
use std::sync::Arc;

use actix_cors::Cors;

use actix_web::dev::Server;
use actix_web::middleware::{Condition, from_fn};
use actix_web::{App, HttpResponse, HttpServer, web};
use tracing_actix_web::TracingLogger;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::auth::{Tokens, generate_secret};
use crate::config::Settings;
use crate::http::limits::{Limiter, rate_limit};
use crate::http::metrics::RequestMetrics;
use crate::http::proxy::{RequestSpan, TrustedProxies};
use crate::http::state::AppState;
use crate::http::timeout::{BodyTimeout, body_deadline};
use crate::http::{self, extract};
use crate::jobs;
use crate::metrics::Metrics;
use crate::notify::Notifier;
use crate::store::{Store, listen, settings};

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The database could not be reached or migrated.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// The listener could not be bound.
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
    /// The address to listen on is taken or not ours.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address, `HOST:PORT`.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// The token keys could not be built.
    #[error("token keys: {0}")]
    Keys(#[from] jsonwebtoken::errors::Error),
    /// The notifications could not be set up (the VAPID key).
    #[error("notifications: {0}")]
    Notifications(#[from] crate::app::error::Error),
}

/// Schedules the calling thread, and every thread it starts later, as
/// `policy` says. Called first in `main`, before the runtime's threads
/// exist, so that they all inherit it. Outside Linux the system's default
/// is kept.
pub fn schedule_threads(policy: crate::config::CpuScheduling) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use crate::config::CpuScheduling;
        let policy = match policy {
            CpuScheduling::Batch => libc::SCHED_BATCH,
            CpuScheduling::Normal => libc::SCHED_OTHER,
        };
        // Both policies take priority 0 and keep the thread's nice value.
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a valid `sched_param` that outlives the call,
        // and pid 0 names the calling thread.
        if unsafe { libc::sched_setscheduler(0, policy, &param) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = policy;
    Ok(())
}

/// A bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    /// The `/metrics` server on its own address, and its port.
    metrics: Option<(Server, u16)>,
    store: Store,
    notifier: Arc<Notifier>,
    /// The scheduler, which finishes its moves in hand before the pool closes.
    scheduler: tokio::task::JoinHandle<()>,
}

/// Stops a running application gracefully: streams and long polls end, the
/// listener closes, in-flight requests finish within the shutdown timeout.
#[derive(Clone)]
pub struct Stopper {
    handle: actix_web::dev::ServerHandle,
    metrics: Option<actix_web::dev::ServerHandle>,
    notifier: Arc<Notifier>,
}

impl Stopper {
    /// Stops the server and waits until it has stopped.
    pub async fn stop(&self) {
        self.notifier.shut_down();
        self.handle.stop(true).await;
        if let Some(metrics) = &self.metrics {
            metrics.stop(true).await;
        }
    }
}

/// The `/metrics` server on `address`, apart from the API's port (so that
/// only a scraper reaches it), with the jobs' `state`; and its port.
fn metrics_server(
    address: std::net::SocketAddr,
    state: web::Data<AppState>,
) -> Result<(Server, u16), StartError> {
    let listener = TcpListener::bind(address).map_err(|source| StartError::Bind {
        address: address.to_string(),
        source,
    })?;
    let port = listener.local_addr()?.port();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .service(http::metrics::metrics)
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run();
    Ok((server, port))
}

/// CORS for the configured browser origins (the page's own origin, such as
/// Swagger UI's, is always allowed). With no origins configured the
/// middleware is off and no CORS headers are sent.
fn cors(origins: &[String]) -> Cors {
    let listed = origins.to_vec();
    Cors::default()
        .allowed_origin_fn(move |origin, head| {
            let origin = origin.to_str().unwrap_or_default();
            let own = head
                .headers()
                .get("host")
                .and_then(|h| h.to_str().ok())
                .is_some_and(|host| {
                    origin
                        .split_once("://")
                        .is_some_and(|(_, rest)| rest == host)
                });
            own || listed.iter().any(|allowed| allowed == origin)
        })
        .allowed_methods(["GET", "POST", "DELETE"])
        .allowed_headers([
            "Authorization",
            "Content-Type",
            "Idempotency-Key",
            "If-Match",
            "If-None-Match",
            "Last-Event-ID",
        ])
        .expose_headers(["ETag", "Location"])
        .max_age(3600)
}

impl Application {
    /// Connects the database, applies migrations and binds the listener.
    pub async fn build(settings: &Settings) -> Result<Application, StartError> {
        Application::build_with_clock(settings, Arc::new(crate::clock::SystemClock)).await
    }

    /// As [`Application::build`], with the time taken from `clock` (tests
    /// pass a clock they move by hand).
    pub async fn build_with_clock(
        settings: &Settings,
        clock: Arc<dyn crate::clock::Clock>,
    ) -> Result<Application, StartError> {
        let store = Store::connect(&settings.database, settings.db_acquire_timeout)
            .await?
            .with_worker_connections(settings.db_max_connections);
        let secret = match &settings.jwt_secret {
            Some(secret) => secret.clone(),
            None => {
                let mut conn = store.acquire().await?;
                let kept =
                    settings::get_or_insert(&mut conn, "jwt_secret", generate_secret().expose())
                        .await?;
                crate::config::Secret::new(kept)
            }
        };
        let tokens = Tokens::new(
            &secret,
            settings.token_ttl,
            settings.external_identity.as_ref(),
        )?;
        let notifier = Arc::new(Notifier::default());
        if store.backend() == crate::store::Backend::Postgres {
            tokio::spawn(listen::run(store.clone(), Arc::clone(&notifier)));
        }
        let notifications =
            crate::app::notifications::Notifications::load(&store, &settings.notifications).await?;
        let app = crate::app::context::App {
            store: store.clone(),
            tokens,
            metrics: Arc::new(Metrics::default()),
            notifier: Arc::clone(&notifier),
            clock,
            bot_times: crate::table::automation::BotTimes {
                moves: i64::try_from(settings.bot_move.as_micros()).unwrap_or(i64::MAX),
                trump_choice: i64::try_from(settings.bot_trump.as_micros()).unwrap_or(i64::MAX),
            },
            path_prefix: settings.path_prefix.clone(),
            notifications: Arc::new(notifications),
        };
        let scheduler = tokio::spawn(jobs::scheduler::run(app.clone()));
        tokio::spawn(jobs::outbox::run(app.clone()));
        tokio::spawn(jobs::evenings::run(app.clone()));
        tokio::spawn(jobs::cleanup::run(
            app.clone(),
            jobs::cleanup::Policy::new(settings.token_ttl),
        ));
        let state = AppState {
            app,
            sse_keep_alive: settings.sse_keep_alive,
            streams: Arc::default(),
        };
        // Shared by the workers' factories, which each make their own.
        let state = Arc::new(state);
        let metrics = settings
            .metrics_addr
            .map(|address| metrics_server(address, web::Data::from(Arc::clone(&state))))
            .transpose()?;
        let origins = settings.cors_allowed_origins.clone();
        let listener = TcpListener::bind((settings.host, settings.port)).map_err(|source| {
            StartError::Bind {
                address: std::net::SocketAddr::from((settings.host, settings.port)).to_string(),
                source,
            }
        })?;
        let port = listener.local_addr()?.port();
        let prefix = settings.path_prefix.clone();
        // The OpenAPI document is built and serialised once per process; the
        // workers share its bytes, where a document per worker would cost
        // each worker megabytes of memory it never needs.
        let api = http::openapi_served_at(&prefix);
        http::fallback::learn_routes(&api);
        let spec = web::Bytes::from(serde_json::to_vec(&api).map_err(std::io::Error::other)?);
        drop(api);
        let proxies = web::Data::new(TrustedProxies(settings.trusted_proxies.clone()));
        let body_timeout = web::Data::new(BodyTimeout(settings.request_body_timeout));
        let limiter = web::Data::new(Limiter::new(
            &settings.rate_limits,
            Arc::clone(&state.app.clock),
        ));
        let workers = settings.workers;
        let server = HttpServer::new(move || {
            // Called on each worker's thread: its own pool (Store::for_worker).
            let state = web::Data::new(state.for_worker(workers));
            let spec = spec.clone();
            let spec_url = format!("{prefix}/openapi.json");
            let docs_prefix = prefix.clone();
            let api = web::scope(&prefix)
                .configure(http::routes::serve_routes)
                .route(
                    "/openapi.json",
                    web::get().to(move || {
                        let spec = spec.clone();
                        async move {
                            HttpResponse::Ok()
                                .content_type(actix_web::http::header::ContentType::json())
                                .body(spec)
                        }
                    }),
                )
                .route(
                    "/docs",
                    web::get().to(move || {
                        let to = format!("{docs_prefix}/docs/");
                        async move {
                            HttpResponse::PermanentRedirect()
                                .insert_header((actix_web::http::header::LOCATION, to))
                                .finish()
                        }
                    }),
                )
                .service(SwaggerUi::new("/docs/{_:.*}").config(Config::new([spec_url])));
            App::new()
                .app_data(state.clone())
                .app_data(proxies.clone())
                .app_data(body_timeout.clone())
                .app_data(limiter.clone())
                .app_data(extract::json_config())
                .app_data(extract::path_config())
                .app_data(extract::query_config())
                .service(api)
                .wrap(from_fn(body_deadline))
                .wrap(from_fn(rate_limit))
                .wrap(Condition::new(!origins.is_empty(), cors(&origins)))
                .wrap(RequestMetrics(Arc::clone(&state.app.metrics)))
                .wrap(TracingLogger::<RequestSpan>::new())
                .default_service(web::to(http::fallback::no_route))
        })
        .workers(workers)
        .shutdown_timeout(settings.shutdown_timeout.as_secs())
        // Signals are ours (see `run`): streams must end before the server waits for them.
        .disable_signals()
        .listen(listener)?
        .run();
        Ok(Application {
            port,
            server,
            metrics,
            store,
            notifier,
            scheduler,
        })
    }

    /// What stops this application gracefully.
    pub fn stopper(&self) -> Stopper {
        Stopper {
            handle: self.server.handle(),
            metrics: self.metrics.as_ref().map(|(server, _)| server.handle()),
            notifier: Arc::clone(&self.notifier),
        }
    }

    /// The port the listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port `/metrics` is served on (`METRICS_ADDR`), if anywhere.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(|(_, port)| *port)
    }

    /// Runs until the server stops. SIGTERM or SIGINT stop it gracefully:
    /// no new connections, streams end, in-flight requests finish.
    pub async fn run(self) -> std::io::Result<()> {
        let stopper = self.stopper();
        if let Some((metrics, _)) = self.metrics {
            tokio::spawn(metrics);
        }
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutting down");
            stopper.stop().await;
        });
        let result = self.server.await;
        self.notifier.shut_down();
        if let Err(error) = self.scheduler.await {
            tracing::error!(%error, "the scheduler failed");
        }
        self.store.close().await;
        result
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
