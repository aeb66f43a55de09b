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
        (name = "notifications", description = "Web Push and webhook subscriptions: told of a turn while the app is closed"),
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
    options_tied_to_game(describe_nullable_references(answers_every_route_can_give(
        api,
    )))
}

/// The games whose tables a view can show: `game`'s value, and the prefix
/// of the schema names of that game's options.
const GAMES: [(&str, &str); 2] = [
    ("klaverjassen", "Klaverjassen"),
    ("potverteren", "Potverteren"),
];

/// Ties a table's `options` to its `game`. Each schema of a table with both
/// (`GameView`, `GameSummary`) becomes a `oneOf` of one schema per game,
/// told apart by `game` (a discriminator): the fields both games share
/// (`<Name>Common`) with `game` fixed to that game's name and that game's
/// options (`allOf`). A client generated from the document then knows a
/// table's options once it has tested `game`, instead of being handed either
/// game's options to tell apart itself (the `OptionsSchema` the types
/// declare, which this replaces). A listing's items refer to the new schema.
fn options_tied_to_game(mut api: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa::openapi::schema::{
        AllOfBuilder, ArrayItems, Discriminator, ObjectBuilder, OneOfBuilder, Schema, Type,
    };
    use utoipa::openapi::{Ref, RefOr};
    let Some(components) = api.components.as_mut() else {
        return api;
    };
    let described = |property: Option<RefOr<Schema>>| match property {
        Some(RefOr::Ref(reference)) => Some(reference.description),
        Some(RefOr::T(Schema::Object(object))) => object.description,
        _ => None,
    };
    for name in ["GameView", "GameSummary"] {
        let Some(RefOr::T(Schema::Object(whole))) = components.schemas.remove(name) else {
            panic!("{name}: no object schema to tie its options to its game");
        };
        let mut common = whole.clone();
        let game_description = described(common.properties.remove("game"));
        let options_description = described(common.properties.remove("options"));
        common
            .required
            .retain(|field| field != "game" && field != "options");
        common.description = Some(format!(
            "The fields of a `{name}` that do not depend on the game."
        ));
        common.example = None;
        let common_name = format!("{name}Common");
        let mut one_of = OneOfBuilder::new()
            .description(whole.description.clone())
            .examples(whole.example.clone());
        let mut mapping = Vec::new();
        for (game, prefix) in GAMES {
            let branch_name = format!("{prefix}{name}");
            let mut options = Ref::from_schema_name(format!("{prefix}OptionsView"));
            options.description = options_description.clone().unwrap_or_default();
            let own = ObjectBuilder::new()
                .property(
                    "game",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some([game]))
                        .description(game_description.clone()),
                )
                .required("game")
                .property("options", options)
                .required("options");
            let branch = AllOfBuilder::new()
                .item(Ref::from_schema_name(&common_name))
                .item(own)
                .description(Some(format!("A {prefix} table's `{name}`.")));
            components
                .schemas
                .insert(branch_name.clone(), branch.into());
            one_of = one_of.item(Ref::from_schema_name(&branch_name));
            mapping.push((game, format!("#/components/schemas/{branch_name}")));
        }
        let one_of = one_of.discriminator(Some(Discriminator::with_mapping("game", mapping)));
        components
            .schemas
            .insert(common_name, RefOr::T(Schema::Object(common)));
        components.schemas.insert(name.into(), one_of.into());
    }
    if let Some(RefOr::T(Schema::Object(page))) = components.schemas.get_mut("Page_GameSummary")
        && let Some(RefOr::T(Schema::Array(items))) = page.properties.get_mut("items")
    {
        items.items =
            ArrayItems::RefOrSchema(Box::new(Ref::from_schema_name("GameSummary").into()));
    }
    components.schemas.remove("OptionsSchema");
    api
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
