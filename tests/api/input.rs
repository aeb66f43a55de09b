//! Bad input is a problem with a stable code, never a 500, and changes nothing.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_databases;
use crate::support::{Db, TestApp};

async fn bad_bodies_are_problems_and_change_nothing(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let before = app.view(&id, &players[0]).await;
    let moves = format!("/v1/games/{id}/moves");
    let client = &app.client;
    let raw = |body: &'static str| {
        client
            .post(format!("{}{moves}", app.base))
            .bearer_auth(&players[0].token)
            .header("content-type", "application/json")
            .body(body)
    };
    for (body, status, code) in [
        ("{not json", 400, "malformed_json"),
        (
            r#"{"move": {"type": "play", "card": "7C"}, "extra": 1}"#,
            422,
            "validation_failed",
        ),
        (
            r#"{"move": {"type": "play", "card": 7}}"#,
            422,
            "validation_failed",
        ),
        (r#"{"move": {"type": "fly"}}"#, 422, "validation_failed"),
        (
            r#"{"move": {"type": "play", "card": "1Z"}}"#,
            422,
            "validation_failed",
        ),
        (
            r#"{"move": {"type": "choose_trump", "suit": "X"}}"#,
            422,
            "validation_failed",
        ),
        (
            r#"{"move": {"type": "bid", "amount": 3}}"#,
            422,
            "validation_failed",
        ),
        (r#"{"expected_version": "one"}"#, 422, "validation_failed"),
    ] {
        let response = raw(body).send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{body}");
        assert_eq!(
            response.headers()["content-type"],
            "application/problem+json",
            "{body}"
        );
        let problem: serde_json::Value = response.json().await.unwrap();
        assert_eq!(problem["code"], code, "{body}: {problem}");
        assert_eq!(problem["status"], status);
        assert!(problem["type"].as_str().unwrap().ends_with(code));
    }
    let huge = format!(
        r#"{{"move": {{"type": "play", "card": "{}"}}}}"#,
        "A".repeat(100_000)
    );
    let response = client
        .post(format!("{}{moves}", app.base))
        .bearer_auth(&players[0].token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(app.view(&id, &players[0]).await, before, "nothing changed");
}

async fn a_move_with_a_field_it_does_not_have_is_422_and_changes_nothing(db: Db) {
    let app = TestApp::spawn(db).await;
    // A move without fields of its own, by the seat whose move it is.
    for (game, seats, seat, kind) in [
        ("klaverjassen", 4, 3, "deal"),
        ("potverteren", 5, 0, "pass"),
    ] {
        let (id, players) = app.full_table(game, json!({}), seats).await;
        let before = app.view(&id, &players[seat]).await;
        for (field, value) in [
            ("card", json!("7C")),
            ("seat", json!(1)),
            ("amount", json!(1)),
        ] {
            let mut mv = json!({"type": kind});
            mv[field] = value;
            let answer = app.play(&id, &players[seat], mv.clone()).await;
            assert_eq!(
                (answer.status, answer.code()),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
                "{game} {mv}: {}",
                answer.body
            );
        }
        assert_eq!(
            app.view(&id, &players[seat]).await,
            before,
            "{game}: nothing changed"
        );
        let answer = app.play(&id, &players[seat], json!({"type": kind})).await;
        assert_eq!(answer.status, StatusCode::OK, "{game}: {}", answer.body);
    }
}

async fn unknown_and_malformed_ids_are_404(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("P").await;
    for path in [
        "/v1/games/not-a-uuid",
        "/v1/games/00000000-0000-0000-0000-000000000000",
        "/v1/nothing",
    ] {
        let answer = app.send(Method::GET, path, Some(&player.token), None).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(answer.code(), "not_found");
    }
    let answer = app
        .send(
            Method::POST,
            "/v1/games/00000000-0000-0000-0000-000000000000/moves",
            Some(&player.token),
            Some(json!({"move": {"type": "deal"}})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

async fn options_out_of_range_are_422_naming_the_option(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("Host").await;
    for (game, options, option) in [
        ("klaverjassen", json!({"deals": 17}), "deals"),
        ("klaverjassen", json!({"deals": 0}), "deals"),
        ("klaverjassen", json!({"first_dealer": 4}), "first_dealer"),
        (
            "klaverjassen",
            json!({"revoke_mode": "lenient"}),
            "revoke_mode",
        ),
        ("klaverjassen", json!({"colour": "red"}), "colour"),
        ("potverteren", json!({"seats": 4}), "seats"),
        ("potverteren", json!({"seats": 11}), "seats"),
        ("potverteren", json!({"variant": "dice"}), "variant"),
        (
            "potverteren",
            json!({"starting_chips": -1}),
            "starting_chips",
        ),
        (
            "potverteren",
            json!({"starting_chips": 1_000_001}),
            "starting_chips",
        ),
    ] {
        let answer = app
            .send(
                Method::POST,
                "/v1/games",
                Some(&host.token),
                Some(json!({"game": game, "options": options})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{options}");
        assert_eq!(answer.code(), "validation_failed");
        assert!(
            answer.body["detail"].as_str().unwrap().contains(option),
            "{options}: {}",
            answer.body
        );
    }
    let answer = app
        .send(
            Method::POST,
            "/v1/games",
            Some(&host.token),
            Some(json!({"game": "poker"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let lobby = app
        .send(Method::GET, "/v1/games", Some(&host.token), None)
        .await;
    assert_eq!(lobby.body["items"], json!([]), "nothing was created");
}

async fn player_names_are_checked(db: Db) {
    let app = TestApp::spawn(db).await;
    for body in [
        json!({"name": ""}),
        json!({"name": "   "}),
        json!({"name": "x".repeat(41)}),
        json!({}),
    ] {
        let answer = app
            .send(Method::POST, "/v1/players", None, Some(body.clone()))
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
}

/// A name reads back in every view as it was given, whatever it holds:
/// commas, digits after them, quotes, characters of several bytes; beside
/// a computer player's seat.
async fn any_name_reads_back_in_the_seats_of_every_view(db: Db) {
    let app = TestApp::spawn(db).await;
    let names = ["a,b", ",3,x,", "\"Ée\" \\ 🂡", "Bob"];
    let mut players = Vec::new();
    for name in names {
        players.push(app.player(name).await);
    }
    let id = app
        .table(&players[0], "potverteren", json!({"seats": 5}))
        .await;
    app.seat_the_rest(&id, &players).await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/bots"),
            Some(&players[0].token),
            Some(json!({"seat": 4, "level": "basic"})),
        )
        .await;
    assert!(answer.status.is_success(), "{}", answer.body);
    for player in &players {
        let view = app.view(&id, player).await;
        let seats = view["seats"].as_array().unwrap();
        for (seat, name) in names.iter().enumerate() {
            assert_eq!(seats[seat]["player"]["name"], *name, "{view}");
            assert_eq!(seats[seat]["player"]["id"], players[seat].id.as_str());
            assert_eq!(seats[seat]["bot"], json!(null));
        }
        assert_eq!(seats[4]["bot"], "basic", "{view}");
    }
}

async fn the_lobby_lists_waiting_tables_newest_first_in_pages(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("Host").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let game = if i % 2 == 0 {
            "klaverjassen"
        } else {
            "potverteren"
        };
        ids.push(app.table(&host, game, json!({})).await);
    }
    ids.reverse();
    let first = app
        .send(Method::GET, "/v1/games?limit=2", Some(&host.token), None)
        .await;
    let page: Vec<&str> = first.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(page, ids[..2]);
    let cursor = first.body["next_cursor"].as_str().unwrap();
    let second = app
        .send(
            Method::GET,
            &format!("/v1/games?limit=10&cursor={cursor}"),
            Some(&host.token),
            None,
        )
        .await;
    let page: Vec<&str> = second.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(page, ids[2..]);
    assert_eq!(second.body["next_cursor"], serde_json::Value::Null);
    let only = app
        .send(
            Method::GET,
            "/v1/games?game=potverteren",
            Some(&host.token),
            None,
        )
        .await;
    assert_eq!(only.body["items"].as_array().unwrap().len(), 2);
    let mine = app
        .send(Method::GET, "/v1/players/me/games", Some(&host.token), None)
        .await;
    assert_eq!(mine.body["items"].as_array().unwrap().len(), 5);
    for bad in [
        "/v1/games?limit=0",
        "/v1/games?cursor=zzz",
        "/v1/games?game=poker",
        "/v1/games?colour=red",
    ] {
        let answer = app.send(Method::GET, bad, Some(&host.token), None).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
}

async fn a_seat_out_of_range_is_422_and_seats_nobody(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("Host").await;
    let guest = app.player("Guest").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let seats = format!("/v1/games/{id}/seats");
    for body in [
        json!({"seat": -1}),
        json!({"seat": 4}),
        json!({"seat": "one"}),
        json!({"chair": 1}),
    ] {
        let answer = app
            .send(Method::POST, &seats, Some(&guest.token), Some(body.clone()))
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(answer.code(), "validation_failed", "{body}");
    }
    let view = app.view(&id, &host).await;
    assert_eq!(view["version"], 1, "nobody was seated: {view}");
    // No body at all still means "the first free seat".
    let answer = app
        .send(Method::POST, &seats, Some(&guest.token), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // And so does a JSON null, as the nullable body schema allows.
    let third = app.player("Third").await;
    let answer = app
        .send(
            Method::POST,
            &seats,
            Some(&third.token),
            Some(serde_json::Value::Null),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
}

async fn a_known_path_with_another_method_is_405_with_allow(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("P").await;
    let game = "00000000-0000-0000-0000-000000000000";
    for (method, path, allow) in [
        (Method::PUT, "/v1/games".to_owned(), "GET, POST"),
        (Method::DELETE, "/v1/players".to_owned(), "POST"),
        (Method::GET, format!("/v1/games/{game}/moves"), "POST"),
        (Method::POST, format!("/v1/games/{game}/seats/me"), "DELETE"),
        (Method::PATCH, "/readyz".to_owned(), "GET"),
    ] {
        let answer = app
            .send(method.clone(), &path, Some(&player.token), None)
            .await;
        assert_eq!(
            answer.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(answer.code(), "method_not_allowed");
        assert_eq!(answer.headers["allow"], allow, "{method} {path}");
    }
}

/// A method nobody defined is answered like any other wrong method, and
/// `/metrics` counts it as `OTHER`: a client making up methods cannot add
/// label sets without end.
async fn a_made_up_method_is_405_and_counted_as_other(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("P").await;
    let brew = Method::from_bytes(b"BREW").unwrap();
    let answer = app.send(brew, "/v1/games", Some(&player.token), None).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.code(), "method_not_allowed");
    let metrics = app.metrics().await;
    let requests = |method: &str| {
        metrics
            .lines()
            .filter(|line| line.starts_with("kaarttafel_http_requests_total{"))
            .filter(|line| line.contains(&format!("method=\"{method}\"")))
            .count()
    };
    assert_eq!(requests("OTHER"), 1, "{metrics}");
    assert_eq!(requests("BREW"), 0, "{metrics}");
    assert!(requests("POST") >= 1, "signing up is counted: {metrics}");
}

async fn a_body_that_never_completes_is_408_and_the_connection_closed(db: Db) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.request_body_timeout = std::time::Duration::from_secs(1);
    let app = TestApp::start(settings, dir).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let mut socket = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /v1/players HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"name\": \"Sl"
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    // The server answers and closes; the guard only keeps a broken server
    // from hanging the test.
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        socket.read_to_end(&mut answer),
    )
    .await
    .expect("the server closes the connection")
    .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
}

/// `/metrics` answers on its own address (`METRICS_ADDR`), never on the
/// API's port, with or without a path prefix: only a scraper that can
/// reach that address reads it.
async fn metrics_are_served_on_their_own_address_not_on_the_api_port(db: Db) {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.path_prefix = "/cards".into();
    let app = TestApp::start(settings, dir).await;
    for path in ["/metrics", "/cards/metrics"] {
        let answer = app
            .client
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "{path}");
    }
    assert_ne!(app.metrics_base, app.base);
    let scraped = app
        .client
        .get(format!("{}/metrics", app.metrics_base))
        .send()
        .await
        .unwrap();
    assert_eq!(scraped.status(), StatusCode::OK);
    assert!(
        scraped.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = scraped.text().await.unwrap();
    assert!(text.contains("kaarttafel_http_requests_total{"), "{text}");
    assert!(text.ends_with("# EOF\n"), "{text}");
    // The document describes the API's port only.
    let spec = app
        .send(reqwest::Method::GET, "/cards/openapi.json", None, None)
        .await;
    assert!(spec.body["paths"].get("/cards/metrics").is_none());
    assert!(spec.body["paths"].get("/metrics").is_none());
}

on_both_databases!(
    metrics_are_served_on_their_own_address_not_on_the_api_port,
    a_body_that_never_completes_is_408_and_the_connection_closed,
    a_seat_out_of_range_is_422_and_seats_nobody,
    a_known_path_with_another_method_is_405_with_allow,
    a_made_up_method_is_405_and_counted_as_other,
    bad_bodies_are_problems_and_change_nothing,
    a_move_with_a_field_it_does_not_have_is_422_and_changes_nothing,
    unknown_and_malformed_ids_are_404,
    options_out_of_range_are_422_naming_the_option,
    player_names_are_checked,
    any_name_reads_back_in_the_seats_of_every_view,
    the_lobby_lists_waiting_tables_newest_first_in_pages,
);
