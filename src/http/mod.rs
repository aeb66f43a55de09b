//! The HTTP layer: routes, extractors, errors and the OpenAPI document. The
//! only place that knows HTTP.

pub mod change;
pub mod error;
pub mod extract;
pub mod games;
pub mod health;
pub mod metrics;
pub mod players;
pub mod proxy;
pub mod record;
pub mod stream;

use actix_web::App;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::{AppExt, scope};

use crate::auth::Tokens;
use crate::store::Store;

/// What every handler shares.
pub struct AppState {
    /// The database.
    pub store: Store,
    /// Issues and verifies bearer tokens.
    pub tokens: Tokens,
    /// Prometheus metrics.
    pub metrics: metrics::Metrics,
    /// Wakes streams and long polls when a game changes.
    pub notifier: std::sync::Arc<crate::notify::Notifier>,
    /// How often an idle stream gets a keep-alive comment.
    pub sse_keep_alive: std::time::Duration,
    /// The path prefix everything is served under (`""` for none), for links.
    pub path_prefix: String,
}

/// The document's fixed parts; paths and schemas are collected from the
/// registered services.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kaarttafel",
        description = "Klaverjassen (Rotterdam rules) and Potverteren, played over HTTP. \
            Every error is `application/problem+json` with a stable `code` \
            (the codes are listed in docs/api.md); a request body not sent as \
            `application/json` is 415 `unsupported_media_type`.",
        license(name = "MIT"),
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Guest identities and their tokens"),
        (name = "games", description = "Tables, seats, deals, moves and the event log"),
        (name = "health", description = "Probes"),
    ),
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.bearer_format = Some("JWT".into());
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// Registers every route (under `/v1` for the API).
pub fn routes(config: &mut ServiceConfig) {
    config
        .service(health::healthz)
        .service(health::readyz)
        .service(metrics::metrics)
        .service(
            scope::scope("/v1")
                .service(players::create_player)
                .service(players::me)
                .service(players::renew_token)
                .service(players::sign_out)
                .service(players::my_games)
                .service(games::create_game)
                .service(games::lobby)
                .service(games::get_game)
                .service(games::take_seat)
                .service(games::leave_seat)
                .service(games::deal)
                .service(games::make_move)
                .service(games::game_events)
                .service(stream::game_stream),
        );
}

/// The OpenAPI document, generated from the routes (the committed one).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    api
}

/// The document as served under `prefix`: its `servers` entry names the
/// prefix, so Swagger UI and generated clients call the right paths.
pub fn openapi_served_at(prefix: &str) -> utoipa::openapi::OpenApi {
    let mut api = openapi();
    if !prefix.is_empty() {
        api.servers = Some(vec![utoipa::openapi::Server::new(prefix)]);
    }
    api
}
