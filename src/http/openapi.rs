//! The OpenAPI document, generated from the routes: their own
//! annotations, plus what every route can answer ([`super::problems`]) and
//! the `If-Match` header of every change that can answer 412.

use actix_web::App;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::Parameter;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{IntoParams, IntoResponses, Modify, OpenApi};
use utoipa_actix_web::AppExt;

use super::problems::{BodyRefused, DatabaseUnavailable, RateLimited};
use super::request::IfMatch;
use super::routes::routes;

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
        (name = "events", description = "Club evenings: pairs and individual competitions, duplicate boards, standings"),
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
/// every `/v1` operation, what a body can be refused for on those with a
/// body ([`BodyRefused`]), and the `If-Match` header ([`IfMatch`]) on every
/// operation that can answer 412.
fn answers_every_route_can_give(mut api: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    for (path, item) in api.paths.paths.iter_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
            &mut item.query,
        ]
        .into_iter()
        .flatten()
        .chain(item.additional_operations.values_mut())
        {
            if path.starts_with("/v1/") {
                let mut shared = RateLimited::responses();
                shared.extend(DatabaseUnavailable::responses());
                if operation.request_body.is_some() {
                    shared.extend(BodyRefused::responses());
                }
                for (status, response) in shared {
                    operation
                        .responses
                        .responses
                        .entry(status)
                        .or_insert(response);
                }
            }
            if operation.responses.responses.contains_key("412") {
                let parameters = operation.parameters.get_or_insert_with(Vec::new);
                let listed = |parameter: &RefOr<Parameter>| matches!(parameter, RefOr::T(p) if p.name == "If-Match");
                if !parameters.iter().any(listed) {
                    parameters.extend(IfMatch::into_params(|| None).into_iter().map(RefOr::T));
                }
            }
        }
    }
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
