//! The table in the browser: `/play` and its files are served with their
//! content types, at the root and under a path prefix, and the page names
//! every file by a relative URL, so the prefix needs nothing else.

use reqwest::StatusCode;

use crate::support::{Db, TestApp};

/// The page's files and their content types.
const FILES: [(&str, &str); 7] = [
    ("/play", "text/html; charset=utf-8"),
    ("/play/app.js", "text/javascript; charset=utf-8"),
    ("/play/api.js", "text/javascript; charset=utf-8"),
    ("/play/cards.js", "text/javascript; charset=utf-8"),
    ("/play/table.js", "text/javascript; charset=utf-8"),
    ("/play/i18n.js", "text/javascript; charset=utf-8"),
    ("/play/style.css", "text/css; charset=utf-8"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_play_page_and_its_files_are_served_at_the_root_and_under_a_prefix() {
    for prefix in ["", "/cards"] {
        let app = TestApp::spawn_under(Db::Sqlite, prefix).await;
        for (path, content_type) in FILES {
            let answer = app.get(&format!("{prefix}{path}")).await;
            assert_eq!(answer.status(), StatusCode::OK, "{prefix}{path}");
            assert_eq!(
                answer.headers()["content-type"],
                content_type,
                "{prefix}{path}"
            );
            assert_eq!(answer.headers()["x-content-type-options"], "nosniff");
            assert!(
                answer.headers()["content-security-policy"]
                    .to_str()
                    .unwrap()
                    .contains("script-src 'self'"),
                "{prefix}{path}"
            );
            assert!(!answer.text().await.unwrap().is_empty(), "{prefix}{path}");
        }
        app.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_names_its_files_and_the_api_by_relative_urls() {
    let app = TestApp::spawn(Db::Sqlite).await;
    let get = async |path: &str| app.get(path).await.text().await.unwrap();
    let page = get("/play").await;
    assert!(page.contains(r#"src="play/app.js""#), "{page}");
    assert!(page.contains(r#"href="play/style.css""#), "{page}");
    let api = get("/play/api.js").await;
    assert!(
        api.contains("new URL('../', import.meta.url)"),
        "the API is found next to the page, whatever the prefix"
    );
    for script in ["app.js", "api.js", "cards.js", "table.js", "i18n.js"] {
        let text = get(&format!("/play/{script}")).await;
        for line in text.lines().filter(|line| line.contains("fetch(")) {
            assert!(
                !line.contains("'/v1"),
                "{script}: absolute API path in {line}"
            );
        }
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_with_a_slash_redirects_to_the_page_and_unknown_files_are_404() {
    let app = TestApp::spawn_under(Db::Sqlite, "/cards").await;
    let answer = app.get_unfollowed("/cards/play/").await;
    assert_eq!(answer.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(answer.headers()["location"], "/cards/play");
    let missing = app.get("/cards/play/missing.js").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        missing.headers()["content-type"],
        "application/problem+json"
    );
    let body: serde_json::Value = missing.json().await.unwrap();
    assert_eq!(body["code"], "not_found");
    app.stop().await;
}
