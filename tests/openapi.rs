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
    use kaarttafel::games::cards::{Card, Suit};
    use kaarttafel::games::{Seat, klaverjassen, potverteren};
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
        let table = serde_json::to_value(kaarttafel::game::TableOptions::default()).unwrap();
        options
            .as_object_mut()
            .unwrap()
            .extend(table.as_object().unwrap().clone());
        assert_eq!(keys(&schemas[name]["properties"]), keys(&options), "{name}");
    }
}
