//! The HTTP layer: routes, extractors, errors and the OpenAPI document. The
//! only place that knows HTTP.

pub mod bots;
pub mod change;
pub mod cleanup;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod friends;
pub mod games;
pub mod health;
pub mod hints;
pub mod limits;
pub mod metrics;
pub mod players;
pub mod proxy;
pub mod scheduler;
pub mod stream;
pub mod timeout;

use actix_web::App;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::{AppExt, scope};

use crate::auth::Tokens;
use crate::store::Store;

/// What every handler shares. Each HTTP worker has its own, with its own
/// database pool ([`Store::for_worker`]); the rest is shared.
pub struct AppState {
    /// The database.
    pub store: Store,
    /// Issues and verifies bearer tokens.
    pub tokens: Tokens,
    /// Prometheus metrics, one set for every worker.
    pub metrics: std::sync::Arc<metrics::Metrics>,
    /// Wakes streams and long polls when a game changes.
    pub notifier: std::sync::Arc<crate::notify::Notifier>,
    /// How often an idle stream gets a keep-alive comment.
    pub sse_keep_alive: std::time::Duration,
    /// The path prefix everything is served under (`""` for none), for links.
    pub path_prefix: String,
    /// The time, for turn clocks and the scheduler (moved by hand in tests).
    pub clock: std::sync::Arc<dyn crate::clock::Clock>,
    /// The live streams each player holds on this instance.
    pub streams: std::sync::Arc<stream::OpenStreams>,
}

impl AppState {
    /// The state of one of `workers` HTTP workers, made on its thread: its
    /// own database pool, everything else shared.
    pub fn for_worker(&self, workers: usize) -> AppState {
        AppState {
            store: self.store.for_worker(workers),
            tokens: self.tokens.clone(),
            metrics: std::sync::Arc::clone(&self.metrics),
            notifier: std::sync::Arc::clone(&self.notifier),
            sse_keep_alive: self.sse_keep_alive,
            path_prefix: self.path_prefix.clone(),
            clock: std::sync::Arc::clone(&self.clock),
            streams: std::sync::Arc::clone(&self.streams),
        }
    }
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
        (name = "friends", description = "Private tables and invite codes, quick match and rematch"),
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

/// Every route, listed once: `$config` is either utoipa-actix-web's service
/// config (which also collects each route's OpenAPI path and schemas, for
/// the document) or actix-web's own (which does not, for serving), and
/// `$scope` the matching scope constructor.
macro_rules! register_routes {
    ($config:expr, $scope:path) => {
        $config
            .service(health::healthz)
            .service(health::readyz)
            .service(metrics::metrics)
            .service(
                // A request is matched against the routes in this order, the
                // ones with a `{..}` segment by a regex each: the two of every
                // move (a view, then the move) come first. No route after
                // them matches what they match.
                $scope("/v1")
                    .service(games::get_game)
                    .service(games::make_move)
                    .service(players::create_player)
                    .service(players::me)
                    .service(players::renew_token)
                    .service(players::sign_out)
                    .service(players::my_games)
                    .service(games::create_game)
                    .service(games::lobby)
                    .service(games::take_seat)
                    .service(games::leave_seat)
                    .service(games::deal)
                    .service(bots::add_bot)
                    .service(bots::remove_bot)
                    .service(bots::back)
                    .service(games::game_events)
                    .service(stream::game_stream)
                    .service(hints::get_hint)
                    .service(hints::get_deal_analysis)
                    .service(friends::show_invite)
                    .service(friends::accept_invite)
                    .service(friends::quick_match)
                    .service(friends::rematch)
                    .service(friends::rename)
                    .service(friends::player_profile),
            )
    };
}

/// Registers every route (under `/v1` for the API) and collects their
/// OpenAPI paths: what [`openapi`] builds the document from.
pub fn routes(config: &mut ServiceConfig) {
    register_routes!(config, scope::scope);
}

/// Registers the same routes as [`routes`] on a plain actix-web config,
/// without building any OpenAPI: what each HTTP worker runs at start (the
/// document is built once per process, see `startup`).
pub fn serve_routes(config: &mut actix_web::web::ServiceConfig) {
    register_routes!(config, actix_web::web::scope);
}

/// The OpenAPI document, generated from the routes (the committed one).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    describe_nullable_references(answers_every_route_can_give(api))
}

/// Moves the description of every nullable field of a named type up to the
/// field. utoipa writes an `Option<T>` field as a `oneOf` of a `$ref` to `T`
/// and `null`, and puts the field's doc comment beside the `$ref`, inside
/// the `oneOf`, where readers and client generators do not look for it.
fn describe_nullable_references(mut api: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::Schema;
    let Some(components) = api.components.as_mut() else {
        return api;
    };
    for schema in components.schemas.values_mut() {
        let RefOr::T(Schema::Object(object)) = schema else {
            continue;
        };
        for property in object.properties.values_mut() {
            let RefOr::T(Schema::OneOf(one_of)) = property else {
                continue;
            };
            if one_of.description.is_some() {
                continue;
            }
            for item in &mut one_of.items {
                if let RefOr::Ref(reference) = item
                    && !reference.description.is_empty()
                {
                    one_of.description = Some(std::mem::take(&mut reference.description));
                }
            }
        }
    }
    api
}

/// Adds what every route can answer but no handler states: 429 and 503 on
/// every `/v1` operation, 408 on those with a body, and the `If-Match`
/// header on every operation that can answer 412.
fn answers_every_route_can_give(api: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use serde_json::{Value, json};
    let Ok(mut doc) = serde_json::to_value(&api) else {
        return api;
    };
    let problem = |description: &str| {
        json!({"description": description, "content": {"application/problem+json":
            {"schema": {"$ref": "#/components/schemas/Problem"}}}})
    };
    let if_match = json!({"name": "If-Match", "in": "header", "required": false,
        "description": "The game's ETag; 412 if it changed", "schema": {"type": "string"}});
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for operation in item.values_mut() {
                let has_body = operation.get("requestBody").is_some();
                let Some(responses) = operation
                    .get_mut("responses")
                    .and_then(Value::as_object_mut)
                else {
                    continue;
                };
                let precondition = responses.contains_key("412");
                if path.starts_with("/v1/") {
                    responses.entry("429").or_insert_with(|| {
                        problem(
                            "`rate_limited`: too many requests; see `Retry-After` and `RateLimit`",
                        )
                    });
                    responses.entry("503").or_insert_with(|| {
                        problem("`database_unavailable`: retry after `Retry-After` seconds")
                    });
                    if has_body {
                        responses.entry("400").or_insert_with(|| {
                            problem("`malformed_json`, or a body that is not JSON")
                        });
                        responses.entry("408").or_insert_with(|| {
                            problem("`request_timeout`: the body did not arrive in time")
                        });
                        responses.entry("413").or_insert_with(|| {
                            problem("`payload_too_large`: the body is over 16 KiB")
                        });
                        responses.entry("415").or_insert_with(|| {
                            problem("`unsupported_media_type`: a body not sent as `Content-Type: application/json`")
                        });
                    }
                }
                if precondition {
                    let parameters = operation
                        .as_object_mut()
                        .map(|o| o.entry("parameters").or_insert_with(|| json!([])));
                    if let Some(Value::Array(parameters)) = parameters
                        && !parameters.iter().any(|p| p["name"] == "If-Match")
                    {
                        parameters.push(if_match.clone());
                    }
                }
            }
        }
    }
    serde_json::from_value(doc).unwrap_or(api)
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
