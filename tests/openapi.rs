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
