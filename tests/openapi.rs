//! The committed OpenAPI document is the generated one. Regenerate it with
//! `UPDATE_OPENAPI=1 cargo test --test openapi`.

#[test]
fn committed_openapi_document_matches_the_generated_one() {
    let generated = kaarttafel::http::openapi()
        .to_pretty_json()
        .expect("document serialises")
        + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    if std::env::var("UPDATE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(path, &generated).expect("openapi/openapi.json written");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo test --test openapi` and commit it"
    );
}

#[test]
fn the_document_is_openapi_3_1_with_every_route_and_the_bearer_scheme() {
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/v1/players",
        "/v1/players/me",
        "/v1/players/me/games",
        "/v1/games",
        "/v1/games/{id}",
        "/v1/games/{id}/seats",
        "/v1/games/{id}/seats/me",
        "/v1/games/{id}/deal",
        "/v1/games/{id}/moves",
        "/v1/games/{id}/events",
        "/healthz",
        "/readyz",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} missing");
    }
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
}

/// The named schemas that describe moves and options by hand must keep the
/// fields the real types serialise: every variant's JSON has exactly the
/// properties of the schema its `type` maps to.
#[test]
fn hand_written_move_and_option_schemas_match_the_json_the_service_sends() {
    use kaarttafel::rules::cards::{Card, Suit};
    use kaarttafel::rules::{Seat, klaverjassen, potverteren};
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let mapping = &schemas["MoveSchema"]["discriminator"]["mapping"];
    let card: Card = "10H".parse().unwrap();
    let moves = [
        serde_json::to_value(klaverjassen::Move::Deal).unwrap(),
        serde_json::to_value(klaverjassen::Move::ChooseTrump { suit: Suit::Hearts }).unwrap(),
        serde_json::to_value(klaverjassen::Move::Play { card }).unwrap(),
        serde_json::to_value(klaverjassen::Move::TakeBack).unwrap(),
        serde_json::to_value(klaverjassen::Move::ReportRevoke { seat: Seat(1) }).unwrap(),
        serde_json::to_value(klaverjassen::Move::EndReview).unwrap(),
        serde_json::to_value(potverteren::Move::Deal).unwrap(),
        serde_json::to_value(potverteren::Move::Bid { amount: 3 }).unwrap(),
        serde_json::to_value(potverteren::Move::Pass).unwrap(),
        serde_json::to_value(potverteren::Move::Hit).unwrap(),
        serde_json::to_value(potverteren::Move::Stand).unwrap(),
        serde_json::to_value(potverteren::Move::EndTable).unwrap(),
    ];
    let keys = |value: &serde_json::Value| {
        let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    for mv in &moves {
        let target = mapping[mv["type"].as_str().unwrap()]
            .as_str()
            .expect("the type is mapped");
        let name = target.rsplit('/').next().unwrap();
        assert_eq!(
            keys(&schemas[name]["properties"]),
            keys(mv),
            "{name} vs {mv}"
        );
    }
    for (name, options) in [
        (
            "KlaverjassenOptionsView",
            serde_json::to_value(klaverjassen::Options::default()).unwrap(),
        ),
        (
            "PotverterenOptionsView",
            serde_json::to_value(potverteren::Options::default()).unwrap(),
        ),
    ] {
        // A game shows its own options and the table options in one object.
        let mut options = options;
        let table = serde_json::to_value(kaarttafel::table::TableOptions::default()).unwrap();
        options
            .as_object_mut()
            .unwrap()
            .extend(table.as_object().unwrap().clone());
        assert_eq!(keys(&schemas[name]["properties"]), keys(&options), "{name}");
    }
}

#[test]
fn the_documents_limits_are_the_ones_the_server_enforces() {
    let doc = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let parameter = |path: &str, method: &str, name: &str| {
        doc["paths"][path][method]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{method} {path} lacks {name}"))["schema"]
            .clone()
    };
    for (path, method) in [
        ("/v1/games", "post"),
        ("/v1/games/{id}/seats", "post"),
        ("/v1/games/{id}/seats/me", "delete"),
        ("/v1/games/{id}/deal", "post"),
        ("/v1/games/{id}/moves", "post"),
    ] {
        let key = parameter(path, method, "Idempotency-Key");
        assert_eq!(
            key["maxLength"],
            kaarttafel::app::idempotency::KEY_MAX,
            "{path}"
        );
        assert_eq!(key["minLength"], 1);
    }
    let timeout = parameter("/v1/games/{id}", "get", "timeout_s");
    assert_eq!(
        timeout["maximum"],
        kaarttafel::app::read::LONG_POLL_MAX_SECONDS
    );
    assert_eq!(
        parameter("/v1/games/{id}", "get", "wait_for_version")["minimum"],
        0
    );
    assert_eq!(
        parameter("/v1/games/{id}/events", "get", "after")["minimum"],
        0
    );
    assert_eq!(
        parameter("/v1/games/{id}/stream", "get", "Last-Event-ID")["minimum"],
        0
    );
    let name = &doc["components"]["schemas"]["NewPlayer"]["properties"]["name"];
    assert_eq!(name["maxLength"], kaarttafel::app::players::NAME_MAX);
}

#[test]
fn every_api_operation_lists_the_rate_limit_and_database_answers() {
    let doc = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/v1/") {
            continue;
        }
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            for status in ["429", "503"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} lacks {status}"
                );
            }
            if responses.contains_key("412") {
                assert!(
                    operation["parameters"]
                        .as_array()
                        .is_some_and(|ps| ps.iter().any(|p| p["name"] == "If-Match")),
                    "{method} {path} answers 412 but takes no If-Match"
                );
            }
        }
    }
}

#[test]
fn a_new_tables_options_are_tied_to_its_game_by_one_of() {
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let body = &doc["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        ["$ref"];
    assert_eq!(body, "#/components/schemas/NewGame");
    let shapes = schemas["NewGame"]["oneOf"].as_array().expect("a oneOf");
    assert_eq!(schemas["NewGame"]["discriminator"]["propertyName"], "game");
    let mut games = Vec::new();
    for shape in shapes {
        let name = shape["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
        let shape = &schemas[name];
        let game = shape["properties"]["game"]["enum"]
            .as_array()
            .filter(|values| values.len() == 1)
            .and_then(|values| values[0].as_str())
            .unwrap_or_else(|| panic!("{name}: `game` must name one game"));
        let options = &shape["properties"]["options"]["oneOf"][0]["$ref"];
        let expected = match game {
            "klaverjassen" => "#/components/schemas/KlaverjassenOptions",
            "potverteren" => "#/components/schemas/PotverterenOptions",
            other => panic!("unknown game {other}"),
        };
        assert_eq!(options, expected, "{name}");
        assert_eq!(shape["additionalProperties"], false, "{name}");
        games.push(game.to_owned());
    }
    games.sort();
    assert_eq!(games, ["klaverjassen", "potverteren"]);
    // Each game's options refuse the other's: the branches cannot both match.
    for (name, foreign) in [
        ("KlaverjassenOptions", "starting_chips"),
        ("PotverterenOptions", "revoke_mode"),
    ] {
        assert_eq!(schemas[name]["additionalProperties"], false, "{name}");
        assert!(schemas[name]["properties"].get(foreign).is_none(), "{name}");
    }
}

/// A view or a listing shows the options of its own game: a `oneOf` told
/// apart by `game`, each branch with `game` fixed and that game's options,
/// so a client knows the options' shape from `game`.
#[test]
fn a_tables_options_are_tied_to_its_game_in_views_and_listings() {
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let named = |name: &str| serde_json::json!({ "$ref": format!("#/components/schemas/{name}") });
    for name in ["GameView", "GameSummary"] {
        assert_eq!(
            schemas[name]["discriminator"]["propertyName"], "game",
            "{name}"
        );
        let branches = schemas[name]["oneOf"].as_array().expect("a oneOf");
        let mapping = schemas[name]["discriminator"]["mapping"]
            .as_object()
            .unwrap();
        assert_eq!(branches.len(), mapping.len(), "{name}");
        for (game, options) in [
            ("klaverjassen", "KlaverjassenOptionsView"),
            ("potverteren", "PotverterenOptionsView"),
        ] {
            let branch = referenced(&doc, &serde_json::json!({ "$ref": mapping[game] }))
                .unwrap_or_else(|| panic!("{name}: no branch for {game}"));
            assert!(
                branches.contains(&serde_json::json!({ "$ref": mapping[game] })),
                "{name}"
            );
            let own = branch["allOf"]
                .as_array()
                .and_then(|parts| {
                    parts
                        .iter()
                        .find(|part| part["properties"]["game"].is_object())
                })
                .unwrap_or_else(|| panic!("{name}: the {game} branch fixes no game"));
            assert_eq!(
                own["properties"]["game"]["enum"],
                serde_json::json!([game]),
                "{name}"
            );
            assert_eq!(
                own["properties"]["options"]["$ref"],
                named(options)["$ref"],
                "{name}"
            );
        }
    }
    assert_eq!(
        schemas["Page_GameSummary"]["properties"]["items"]["items"],
        named("GameSummary")
    );
    // A Klaverjassen table fits with its own options, and with the other
    // game's it fits no branch at all.
    let summary = schemas["GameSummary"]["examples"][0].clone();
    assert_eq!(summary["game"], "klaverjassen");
    assert_eq!(
        misfits(&doc, &named("GameSummary"), &summary),
        Vec::<String>::new()
    );
    let mut wrong = summary;
    wrong["options"] = schemas["PotverterenOptionsView"]["example"].clone();
    assert!(!misfits(&doc, &named("GameSummary"), &wrong).is_empty());
}

/// The schema a `$ref` names, if it is one of ours.
fn referenced<'d>(
    doc: &'d serde_json::Value,
    schema: &serde_json::Value,
) -> Option<&'d serde_json::Value> {
    let name = schema["$ref"]
        .as_str()?
        .strip_prefix("#/components/schemas/")?;
    doc["components"]["schemas"].get(name)
}

/// Whether a reader of `schema` is shown an example value: its own
/// `example`/`examples`, an `enum` or `const`, or (for a reference, a
/// composition whose non-null branches all have one, or an array whose items
/// have one) the example of what it is made of.
fn shows_an_example(doc: &serde_json::Value, schema: &serde_json::Value, depth: usize) -> bool {
    // A schema that refers to itself shows no example of its own there.
    if depth > 16 {
        return false;
    }
    if ["example", "examples", "enum", "const"]
        .iter()
        .any(|key| schema.get(key).is_some())
    {
        return true;
    }
    if schema.get("$ref").is_some() {
        return referenced(doc, schema).is_some_and(|s| shows_an_example(doc, s, depth + 1));
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(branches) = schema[key].as_array() {
            let branches: Vec<_> = branches.iter().filter(|b| b["type"] != "null").collect();
            return !branches.is_empty()
                && branches.iter().all(|b| shows_an_example(doc, b, depth + 1));
        }
    }
    let types = match &schema["type"] {
        serde_json::Value::Array(types) => types.clone(),
        one => vec![one.clone()],
    };
    if types.iter().any(|t| t == "array") {
        return shows_an_example(doc, &schema["items"], depth + 1);
    }
    false
}

/// The contract: "every [field name of ours] is described in the generated
/// OpenAPI document with an example". A field has a description of its own
/// (or, for a bare `$ref`, its schema's), and an example of its own, of
/// what it is made of, or of the whole object around it.
#[test]
fn every_field_has_a_description_and_an_example() {
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let mut offenders = Vec::new();
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        let Some(properties) = schema["properties"].as_object() else {
            continue;
        };
        let whole_example = schema.get("example").is_some() || schema.get("examples").is_some();
        for (field, property) in properties {
            let described = property.get("description").is_some()
                || (property.get("$ref").is_some()
                    && referenced(&doc, property).is_some_and(|s| s.get("description").is_some()));
            if !described {
                offenders.push(format!("{name}.{field}: no description"));
            }
            if !whole_example && !shows_an_example(&doc, property, 0) {
                offenders.push(format!("{name}.{field}: no example"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "{} fields lack a description or an example:\n{}",
        offenders.len(),
        offenders.join("\n")
    );
}

/// What is wrong with `value` as an instance of `schema`, as far as the
/// keywords the document uses go (`pattern` aside).
fn misfits(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    value: &serde_json::Value,
) -> Vec<String> {
    use serde_json::Value;
    let mut wrong = Vec::new();
    if schema.get("$ref").is_some() {
        return match referenced(doc, schema) {
            Some(target) => misfits(doc, target, value),
            None => vec![format!("unknown {}", schema["$ref"])],
        };
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        wrong.push(format!("{value} is not one of {values:?}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        wrong.push(format!("{value} is not {constant}"));
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let is = |kind: &str| match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !types.is_empty() && !types.iter().any(|kind| is(kind)) {
        wrong.push(format!("{value} is not of type {types:?}"));
    }
    if let Some(n) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|min| n < min) {
            wrong.push(format!(
                "{value} is below the minimum {}",
                schema["minimum"]
            ));
        }
        if schema["maximum"].as_f64().is_some_and(|max| n > max) {
            wrong.push(format!(
                "{value} is above the maximum {}",
                schema["maximum"]
            ));
        }
    }
    if let Some(text) = value.as_str() {
        let chars = text.chars().count() as u64;
        if schema["minLength"].as_u64().is_some_and(|min| chars < min)
            || schema["maxLength"].as_u64().is_some_and(|max| chars > max)
        {
            wrong.push(format!("{value} has a length outside the schema's"));
        }
        let format_fits = match schema["format"].as_str() {
            Some("uuid") => uuid::Uuid::parse_str(text).is_ok(),
            Some("date-time") => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
            _ => true,
        };
        if !format_fits {
            wrong.push(format!("{value} is not a {}", schema["format"]));
        }
    }
    if let Some(items) = value.as_array() {
        let count = items.len() as u64;
        if schema["minItems"].as_u64().is_some_and(|min| count < min)
            || schema["maxItems"].as_u64().is_some_and(|max| count > max)
        {
            wrong.push(format!(
                "{value} has a number of items outside the schema's"
            ));
        }
        if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
            for item in items {
                wrong.extend(misfits(doc, item_schema, item));
            }
        }
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            if !object.contains_key(required.as_str().unwrap_or_default()) {
                wrong.push(format!("{value} lacks the required {required}"));
            }
        }
        for (key, field) in object {
            match schema["properties"].get(key) {
                Some(property) => wrong.extend(misfits(doc, property, field)),
                None if schema["additionalProperties"] == false => {
                    wrong.push(format!(
                        "{value} has {key}, which the schema does not allow"
                    ));
                }
                None => {}
            }
        }
    }
    for (key, fitting) in [("oneOf", 1..=1), ("anyOf", 1..=usize::MAX)] {
        if let Some(branches) = schema[key].as_array() {
            let fit = branches
                .iter()
                .filter(|branch| misfits(doc, branch, value).is_empty())
                .count();
            if !fitting.contains(&fit) {
                wrong.push(format!("{value} fits {fit} branches of a {key}"));
            }
        }
    }
    for branch in schema["allOf"].as_array().into_iter().flatten() {
        wrong.extend(misfits(doc, branch, value));
    }
    wrong
}

/// An example that its own schema refuses would teach a client the wrong
/// JSON: every `example` and `examples` entry fits where it stands.
#[test]
fn every_example_fits_its_schema() {
    fn walk(doc: &serde_json::Value, at: &str, node: &serde_json::Value, wrong: &mut Vec<String>) {
        match node {
            serde_json::Value::Object(map) => {
                // A parameter or a media type carries its example beside its
                // schema; a schema carries it in itself.
                let schema = map.get("schema").unwrap_or(node);
                let mut examples: Vec<&serde_json::Value> =
                    map.get("example").into_iter().collect();
                if let Some(serde_json::Value::Array(many)) = map.get("examples") {
                    examples.extend(many);
                }
                for example in examples {
                    for misfit in misfits(doc, schema, example) {
                        wrong.push(format!("{at}: {misfit}"));
                    }
                }
                for (key, child) in map {
                    if key != "example" && key != "examples" {
                        walk(doc, &format!("{at}/{key}"), child, wrong);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(doc, &format!("{at}/{i}"), child, wrong);
                }
            }
            _ => {}
        }
    }
    let doc: serde_json::Value = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let mut wrong = Vec::new();
    walk(&doc, "#", &doc, &mut wrong);
    assert!(
        wrong.is_empty(),
        "{} examples do not fit their schema:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // The check refuses a wrong value of each kind it looks at.
    let named = |name: &str| serde_json::json!({ "$ref": format!("#/components/schemas/{name}") });
    for (schema, value) in [
        (named("Seat"), serde_json::json!(-1)),
        (named("Seat"), serde_json::json!("0")),
        (named("Suit"), serde_json::json!("X")),
        (named("SeatView"), serde_json::json!({"seat": 0})),
        (
            named("MoveSchema"),
            serde_json::json!({"type": "play", "card": "10H", "seat": 1}),
        ),
        (
            doc["components"]["schemas"]["GameViewCommon"]["properties"]["id"].clone(),
            serde_json::json!("0b9c5c2e"),
        ),
        (
            doc["components"]["schemas"]["AwaitingView"]["properties"]["deadline"].clone(),
            serde_json::json!("5 December 2026"),
        ),
    ] {
        assert!(
            !misfits(&doc, &schema, &value).is_empty(),
            "{value} passed as {schema}"
        );
    }
}
