//! Small things a new user meets in the first hour: the Swagger UI path
//! without its slash, a taken port, a malformed id, a body without its
//! content type.

use kaarttafel::config::Database;
use kaarttafel::startup::Application;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Db, TestApp, settings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_without_the_slash_redirects_to_swagger_ui() {
    let app = TestApp::spawn(Db::Sqlite).await;
    let answer = app.get_unfollowed("/docs").await;
    assert_eq!(answer.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(answer.headers()["location"], "/docs/");
    let followed = app.get("/docs").await;
    assert_eq!(followed.status(), StatusCode::OK);
    assert!(followed.text().await.unwrap().contains("swagger"));
}

/// The workers serve the document the process serialised once at start: it
/// must be, byte for byte, the generated one (the committed
/// `openapi/openapi.json`, compact), as JSON, at the root and under a path
/// prefix (where its `servers` entry names the prefix), and Swagger UI must
/// be pointed at it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_openapi_document_is_the_generated_one_and_swagger_ui_loads_it() {
    for prefix in ["", "/cards"] {
        let app = TestApp::spawn_under(Db::Sqlite, prefix).await;
        let mut expected = kaarttafel::http::openapi();
        if !prefix.is_empty() {
            expected.servers = Some(vec![utoipa::openapi::Server::new(prefix)]);
        }
        let expected = serde_json::to_string(&expected).unwrap();
        for _ in 0..3 {
            let answer = app.get(&format!("{prefix}/openapi.json")).await;
            assert_eq!(answer.status(), StatusCode::OK, "{prefix}");
            assert_eq!(answer.headers()["content-type"], "application/json");
            assert!(answer.text().await.unwrap() == expected, "{prefix}");
        }
        let page = app.get(&format!("{prefix}/docs/")).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert!(
            page.text()
                .await
                .unwrap()
                .contains("swagger-initializer.js")
        );
        let initializer = app
            .get(&format!("{prefix}/docs/swagger-initializer.js"))
            .await
            .text()
            .await
            .unwrap();
        assert!(
            initializer.contains(&format!("\"url\": \"{prefix}/openapi.json\"")),
            "{initializer}"
        );
        app.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_already_in_use_is_named_in_the_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(Database::Sqlite(
        dir.path().join("t.db").display().to_string(),
    ));
    settings.port = port;
    let error = Application::build(&settings)
        .await
        .err()
        .expect("the port is taken")
        .to_string();
    assert!(
        error.starts_with(&format!("cannot listen on 127.0.0.1:{port}: ")),
        "{error}"
    );
    assert!(error.contains("in use"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_id_is_a_404_that_names_the_id_not_the_parser() {
    let app = TestApp::spawn(Db::Sqlite).await;
    let player = app.player("P").await;
    let answer = app
        .send(
            reqwest::Method::GET,
            "/v1/games/not-a-uuid",
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.code(), "not_found");
    assert_eq!(
        answer.body["detail"],
        "no game \"not-a-uuid\": not a valid id"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_body_without_a_json_content_type_is_415() {
    let app = TestApp::spawn(Db::Sqlite).await;
    let body = json!({"name": "Anne"}).to_string();
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let mut request = app
            .client
            .post(format!("{}/v1/players", app.base))
            .body(body.clone());
        if let Some(value) = content_type {
            request = request.header("content-type", value);
        }
        let answer = request.send().await.unwrap();
        assert_eq!(
            answer.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{content_type:?}"
        );
        assert_eq!(answer.headers()["content-type"], "application/problem+json");
        let problem: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(problem["code"], "unsupported_media_type");
        assert_eq!(problem["status"], 415);
    }
}
