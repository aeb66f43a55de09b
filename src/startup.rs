//! Builds the application and binds its listener. Tests call [`Application::build`]
//! with port 0 and read the real port back.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};
use tracing_actix_web::TracingLogger;
use utoipa_actix_web::{AppExt, scope};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::auth::{Tokens, generate_secret};
use crate::config::Settings;
use crate::http::error::ApiError;
use crate::http::metrics::{Metrics, RequestMetrics};
use crate::http::proxy::{RequestSpan, TrustedProxies};
use crate::http::{self, AppState, extract};
use crate::store::{Store, settings};

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The database could not be reached or migrated.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// The listener could not be bound.
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
    /// The token keys could not be built.
    #[error("token keys: {0}")]
    Keys(#[from] jsonwebtoken::errors::Error),
}

/// A bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    store: Store,
}

impl Application {
    /// Connects the database, applies migrations and binds the listener.
    pub async fn build(settings: &Settings) -> Result<Application, StartError> {
        let store = Store::connect(&settings.database).await?;
        let secret = match &settings.jwt_secret {
            Some(secret) => secret.clone(),
            None => {
                let mut conn = store.pool().acquire().await?;
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
        let state = web::Data::new(AppState {
            store: store.clone(),
            tokens,
            metrics: Metrics::default(),
        });
        let listener = TcpListener::bind((settings.host, settings.port))?;
        let port = listener.local_addr()?.port();
        let prefix = settings.path_prefix.clone();
        let spec = http::openapi_served_at(&prefix);
        let proxies = web::Data::new(TrustedProxies(settings.trusted_proxies.clone()));
        let server = HttpServer::new(move || {
            let spec = spec.clone();
            let spec_url = format!("{prefix}/openapi.json");
            let api = scope::scope(actix_web::web::scope(&prefix))
                .configure(http::routes)
                .map(|scope| {
                    scope
                        .route(
                            "/openapi.json",
                            web::get().to(move || {
                                let spec = spec.clone();
                                async move { HttpResponse::Ok().json(spec) }
                            }),
                        )
                        .service(SwaggerUi::new("/docs/{_:.*}").config(Config::new([spec_url])))
                });
            let (app, _) = App::new()
                .into_utoipa_app()
                .app_data(state.clone())
                .app_data(proxies.clone())
                .app_data(extract::json_config())
                .app_data(extract::path_config())
                .app_data(extract::query_config())
                .service(api)
                .split_for_parts();
            app.wrap(RequestMetrics)
                .wrap(TracingLogger::<RequestSpan>::new())
                .default_service(web::to(|| async {
                    Err::<HttpResponse, _>(ApiError::NotFound("no such route".into()))
                }))
        })
        .shutdown_timeout(settings.shutdown_timeout.as_secs())
        .listen(listener)?
        .run();
        Ok(Application {
            port,
            server,
            store,
        })
    }

    /// A handle that stops the server (gracefully with `stop(true)`).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// The port the listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server stops (SIGTERM or SIGINT stop it gracefully).
    pub async fn run(self) -> std::io::Result<()> {
        let result = self.server.await;
        self.store.close().await;
        result
    }
}
