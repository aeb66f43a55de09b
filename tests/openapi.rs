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
            kaarttafel::http::change::IDEMPOTENCY_KEY_MAX,
            "{path}"
        );
        assert_eq!(key["minLength"], 1);
    }
    let timeout = parameter("/v1/games/{id}", "get", "timeout_s");
    assert_eq!(
        timeout["maximum"],
        kaarttafel::http::games::LONG_POLL_MAX_SECONDS
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
    assert_eq!(name["maxLength"], kaarttafel::http::players::NAME_MAX);
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
