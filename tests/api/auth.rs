//! Every way a token can fail, and who may do what.

use base64::Engine;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_databases;
use crate::support::{Db, TestApp};

fn b64(data: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(data)
}

async fn expect_401(app: &TestApp, token: Option<&str>, why: &str) {
    let answer = app.send(Method::GET, "/v1/players/me", token, None).await;
    assert_eq!(
        answer.status,
        StatusCode::UNAUTHORIZED,
        "{why}: {}",
        answer.body
    );
    assert_eq!(answer.code(), "invalid_token", "{why}");
    assert!(
        answer.headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"),
        "{why}"
    );
}

async fn every_bad_token_is_a_401_with_a_bearer_challenge(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("Piet").await;
    expect_401(&app, None, "missing").await;
    expect_401(&app, Some("not-a-jwt"), "malformed").await;
    let (head, rest) = player.token.split_once('.').unwrap();
    let (claims, _) = rest.split_once('.').unwrap();
    expect_401(
        &app,
        Some(&format!("{head}.{claims}.{}", b64("forged"))),
        "bad signature",
    )
    .await;
    let unsigned = format!("{}.{claims}.", b64(r#"{"alg":"none","typ":"JWT"}"#));
    expect_401(&app, Some(&unsigned), "alg none").await;
    let expired_claims = b64(&format!(
        r#"{{"sub":"{}","iat":1,"exp":2,"iss":"kaarttafel"}}"#,
        player.id
    ));
    expect_401(
        &app,
        Some(&format!(
            "{head}.{expired_claims}.{}",
            rest.split_once('.').unwrap().1
        )),
        "tampered exp",
    )
    .await;
    let answer = app
        .send(Method::GET, "/v1/players/me", Some(&player.token), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, json!({"id": player.id, "name": "Piet"}));
}

async fn an_expired_token_is_refused(db: Db) {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.jwt_secret = Some(kaarttafel::config::Secret::new("x".repeat(40)));
    let app = TestApp::start(settings.clone(), dir).await;
    let player = app.player("Kees").await;
    let tokens = kaarttafel::auth::Tokens::new(
        settings.jwt_secret.as_ref().unwrap(),
        settings.token_ttl,
        None,
    )
    .unwrap();
    let (expired, _) = tokens.issue(
        player.id.parse().unwrap(),
        0,
        chrono::Utc::now() - chrono::Duration::hours(2),
    );
    let answer = app
        .send(Method::GET, "/v1/players/me", Some(&expired), None)
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(answer.body["detail"].as_str().unwrap().contains("expired"));
}

async fn another_seats_token_cannot_move_for_it(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"first_dealer": 3}), 4)
        .await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/deal"),
            Some(&players[0].token),
            None,
        )
        .await;
    assert_eq!(
        answer.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        answer.body
    );
    assert_eq!(answer.code(), "not_your_turn");
    let stranger = app.player("Stranger").await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/deal"),
            Some(&stranger.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.code(), "not_seated");
    let view = app.view(&id, &stranger).await;
    assert_eq!(
        view["you"],
        serde_json::Value::Null,
        "a player without a seat gets the spectator view"
    );
    assert_eq!(view["legal_moves"], json!([]));
}

async fn the_host_cannot_leave_and_others_cannot_leave_a_started_game(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("Host").await;
    let guest = app.player("Guest").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let answer = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{id}/seats/me"),
            Some(&host.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats"),
            Some(&guest.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["you"], 1, "the first free seat");
    let answer = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{id}/seats/me"),
            Some(&guest.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["you"], serde_json::Value::Null);
    assert_eq!(answer.body["version"], 3);
    let (full, players) = app.full_table("klaverjassen", json!({}), 4).await;
    let answer = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{full}/seats/me"),
            Some(&players[2].token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.code(), "game_started");
}

async fn seats_are_refused_when_taken_or_full(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, _) = app.full_table("klaverjassen", json!({}), 4).await;
    let late = app.player("Late").await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats"),
            Some(&late.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.code(), "game_started");
    let host = app.player("Host").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats"),
            Some(&late.token),
            Some(json!({"seat": 0})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.code(), "seat_taken");
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats"),
            Some(&late.token),
            Some(json!({"seat": 4})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn tokens_and_games_survive_a_restart(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let before = app.view(&id, &players[1]).await;
    let app = app.restart().await;
    let after = app.view(&id, &players[1]).await;
    assert_eq!(after, before, "the same game, seen with the same token");
    let chooser = after["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    let answer = app
        .play(
            &id,
            &players[chooser],
            json!({"type": "choose_trump", "suit": "S"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
}

async fn an_external_identity_providers_token_maps_to_one_player(db: Db) {
    use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.external_identity = Some(kaarttafel::config::ExternalIdentity {
        public_key_pem: include_str!("../data/idp-test-key.pub.pem").to_owned(),
        issuer: "https://idp.example".into(),
        audience: "kaarttafel".into(),
    });
    let app = TestApp::start(settings, dir).await;
    let key = EncodingKey::from_ec_pem(include_bytes!("../data/idp-test-key.pem")).unwrap();
    let token = |aud: &str, exp: i64| {
        let claims = json!({"sub": "ext-123", "name": "Extern", "iss": "https://idp.example", "aud": aud,
                            "iat": 0, "exp": exp});
        encode(&Header::new(Algorithm::ES256), &claims, &key).unwrap()
    };
    let later = chrono::Utc::now().timestamp() + 600;
    let first = app
        .send(
            Method::GET,
            "/v1/players/me",
            Some(&token("kaarttafel", later)),
            None,
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.body["name"], "Extern");
    let again = app
        .send(
            Method::GET,
            "/v1/players/me",
            Some(&token("kaarttafel", later)),
            None,
        )
        .await;
    assert_eq!(
        again.body["id"], first.body["id"],
        "the same sub is the same player"
    );
    expect_401(&app, Some(&token("someone-else", later)), "wrong audience").await;
    expect_401(&app, Some(&token("kaarttafel", 1)), "expired").await;
}

async fn an_external_token_without_its_audience_or_issuer_is_refused(db: Db) {
    use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.external_identity = Some(kaarttafel::config::ExternalIdentity {
        public_key_pem: include_str!("../data/idp-test-key.pub.pem").to_owned(),
        issuer: "https://idp.example".into(),
        audience: "kaarttafel".into(),
    });
    let app = TestApp::start(settings, dir).await;
    let key = EncodingKey::from_ec_pem(include_bytes!("../data/idp-test-key.pem")).unwrap();
    let later = chrono::Utc::now().timestamp() + 600;
    let full = json!({"sub": "ext-9", "name": "Extern", "iss": "https://idp.example",
                      "aud": "kaarttafel", "iat": 0, "exp": later});
    let without = |claim: &str| {
        let mut claims = full.clone();
        claims.as_object_mut().unwrap().remove(claim);
        encode(&Header::new(Algorithm::ES256), &claims, &key).unwrap()
    };
    let complete = encode(&Header::new(Algorithm::ES256), &full, &key).unwrap();
    let answer = app
        .send(Method::GET, "/v1/players/me", Some(&complete), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    expect_401(&app, Some(&without("aud")), "no audience").await;
    expect_401(&app, Some(&without("iss")), "no issuer").await;
    expect_401(&app, Some(&without("exp")), "no expiry").await;
    expect_401(&app, Some(&without("sub")), "no subject").await;
}

async fn me_with(app: &TestApp, token: &str) -> crate::support::Answer {
    app.send(Method::GET, "/v1/players/me", Some(token), None)
        .await
}

async fn a_renewed_token_speaks_for_the_same_player_and_the_old_one_still_works(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("Truus").await;
    let host_game = app
        .table(&player, "klaverjassen", json!({"deals": 1}))
        .await;
    let answer = app
        .send(
            Method::POST,
            "/v1/players/me/token",
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["id"], player.id.as_str());
    let fresh = answer.body["token"].as_str().unwrap().to_owned();
    let expires_at: chrono::DateTime<chrono::Utc> =
        answer.body["expires_at"].as_str().unwrap().parse().unwrap();
    let lifetime = expires_at - chrono::Utc::now();
    let ttl = chrono::Duration::from_std(app.settings.token_ttl).unwrap();
    assert!(
        lifetime > ttl - chrono::Duration::minutes(1) && lifetime <= ttl,
        "a renewed token gets the full lifetime: {lifetime}"
    );
    let me = me_with(&app, &fresh).await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.body, json!({"id": player.id, "name": "Truus"}));
    let games = app
        .send(Method::GET, "/v1/players/me/games", Some(&fresh), None)
        .await;
    assert_eq!(
        games.body["items"][0]["id"],
        host_game.as_str(),
        "{}",
        games.body
    );
    assert_eq!(me_with(&app, &player.token).await.status, StatusCode::OK);
}

async fn an_expired_token_cannot_be_renewed(db: Db) {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.jwt_secret = Some(kaarttafel::config::Secret::new("y".repeat(40)));
    let app = TestApp::start(settings.clone(), dir).await;
    let player = app.player("Joop").await;
    let tokens = kaarttafel::auth::Tokens::new(
        settings.jwt_secret.as_ref().unwrap(),
        settings.token_ttl,
        None,
    )
    .unwrap();
    let (expired, _) = tokens.issue(
        player.id.parse().unwrap(),
        0,
        chrono::Utc::now() - chrono::Duration::hours(2),
    );
    let answer = app
        .send(Method::POST, "/v1/players/me/token", Some(&expired), None)
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    assert_eq!(answer.code(), "invalid_token");
    assert!(answer.body["detail"].as_str().unwrap().contains("expired"));
}

async fn signing_out_refuses_every_earlier_token_of_the_player_and_only_those(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("Bep").await;
    let other = app.player("Gerrit").await;
    let renewed = app
        .send(
            Method::POST,
            "/v1/players/me/token",
            Some(&player.token),
            None,
        )
        .await;
    let renewed = renewed.body["token"].as_str().unwrap().to_owned();
    let answer = app
        .send(
            Method::POST,
            "/v1/players/me/sign_out",
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["id"], player.id.as_str());
    let after = answer.body["token"].as_str().unwrap().to_owned();
    for (token, which) in [(&player.token, "the first"), (&renewed, "a renewed")] {
        let refused = me_with(&app, token).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{which} token");
        assert_eq!(refused.code(), "invalid_token");
        assert!(
            refused.body["detail"]
                .as_str()
                .unwrap()
                .contains("signed out"),
            "{}",
            refused.body
        );
        assert!(refused.headers.contains_key("www-authenticate"));
        let renew = app
            .send(Method::POST, "/v1/players/me/token", Some(token), None)
            .await;
        assert_eq!(
            renew.status,
            StatusCode::UNAUTHORIZED,
            "{which} token renews nothing"
        );
    }
    let me = me_with(&app, &after).await;
    assert_eq!(me.body, json!({"id": player.id, "name": "Bep"}));
    assert_eq!(
        me_with(&app, &other.token).await.status,
        StatusCode::OK,
        "another player's tokens are untouched"
    );
    let again = app
        .send(Method::POST, "/v1/players/me/sign_out", Some(&after), None)
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(me_with(&app, &after).await.status, StatusCode::UNAUTHORIZED);
}

/// Every operation of the document that names the bearer scheme, with the
/// path's ids filled in from `game` and a valid body for those that take one
/// (so no body or path check can answer first); long polls and the event
/// log's paging as well. An operation with a body and no sample here fails
/// the test, so a new endpoint cannot be left out.
pub(crate) fn every_authenticated_request(
    game: &str,
) -> Vec<(Method, String, Option<serde_json::Value>)> {
    let doc = serde_json::to_value(kaarttafel::http::openapi()).unwrap();
    let mut requests = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            if operation.get("security").is_none() {
                continue;
            }
            let body =
                operation
                    .get("requestBody")
                    .map(|_| match (method.as_str(), path.as_str()) {
                        ("POST", "/v1/games") => json!({"game": "klaverjassen", "options": {}}),
                        ("POST", "/v1/games/{id}/seats") => json!({"seat": 1}),
                        ("POST", "/v1/games/{id}/bots") => json!({"seat": 1, "level": "basic"}),
                        ("POST", "/v1/games/{id}/moves") => json!({"move": {"type": "pass"}}),
                        ("POST", "/v1/invites/{code}") => json!({"seat": 1}),
                        ("POST", "/v1/matchmaking") => json!({"game": "klaverjassen"}),
                        ("PATCH", "/v1/players/me") => json!({"name": "Anne"}),
                        ("POST", "/v1/players/me/subscriptions") => {
                            json!({"kind": "webhook", "url": "https://hooks.example/k"})
                        }
                        ("POST", "/v1/events") => json!({"name": "Avond", "game": "klaverjassen", "format": "pairs", "rounds": 1}),
                        ("POST", "/v1/events/{id}/entries") => json!({}),
                        ("POST", "/v1/events/{id}/bots") => json!({"count": 1, "level": "basic"}),
                        ("POST", "/v1/events/{id}/seeds") => json!({"value": "ab"}),
                        other => panic!("no sample body for {other:?}: add one"),
                    });
            let path = path
                .replace("{id}", game)
                .replace("{seat}", "1")
                .replace("{n}", "1")
                .replace("{entry}", game)
                .replace("{round}", "1")
                .replace("{deal}", "1")
                .replace("{code}", "ABCDEFGHJK");
            requests.push((method, path, body));
        }
    }
    for query in [
        format!("/v1/games/{game}?wait_for_version=1&timeout_s=1"),
        format!("/v1/games/{game}/events?after=0"),
        "/v1/games?game=klaverjassen&limit=5".to_owned(),
    ] {
        requests.push((Method::GET, query, None));
    }
    requests
}

/// Sends every authenticated request with `token`; each must be a 401
/// `invalid_token` with a Bearer challenge.
pub(crate) async fn assert_401_everywhere(app: &TestApp, token: &str, game: &str) {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .unwrap();
    let requests = every_authenticated_request(game);
    assert!(requests.len() >= 18, "{} requests", requests.len());
    for (method, path, body) in requests {
        let mut request = client
            .request(method.clone(), format!("{}{path}", app.base))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request.send().await.expect("request sent");
        assert_eq!(
            answer.status(),
            StatusCode::UNAUTHORIZED,
            "{method} {path} took the token of a player that does not exist"
        );
        assert!(
            answer.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .starts_with("Bearer"),
            "{method} {path}"
        );
        let problem: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(problem["code"], "invalid_token", "{method} {path}");
    }
}

async fn a_validly_signed_token_of_a_player_that_does_not_exist_is_401_everywhere(db: Db) {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.jwt_secret = Some(kaarttafel::config::Secret::new("y".repeat(40)));
    let app = TestApp::start(settings.clone(), dir).await;
    let host = app.player("Host").await;
    let game = app.table(&host, "klaverjassen", json!({})).await;
    let tokens = kaarttafel::auth::Tokens::new(
        settings.jwt_secret.as_ref().unwrap(),
        settings.token_ttl,
        None,
    )
    .unwrap();
    let (nobody, _) = tokens.issue(uuid::Uuid::new_v4(), 0, chrono::Utc::now());
    // The same signature check passes for a player who does exist.
    let (somebody, _) = tokens.issue(host.id.parse().unwrap(), 0, chrono::Utc::now());
    assert_eq!(me_with(&app, &somebody).await.status, StatusCode::OK);
    let before = app.view(&game, &host).await;
    assert_401_everywhere(&app, &nobody, &game).await;
    // Nothing was created or changed for the unknown player.
    assert_eq!(app.view(&game, &host).await, before);
    let mine = app
        .send(Method::GET, "/v1/players/me/games", Some(&host.token), None)
        .await;
    assert_eq!(
        mine.body["items"].as_array().map(Vec::len),
        Some(1),
        "{}",
        mine.body
    );
}

on_both_databases!(
    a_validly_signed_token_of_a_player_that_does_not_exist_is_401_everywhere,
    a_renewed_token_speaks_for_the_same_player_and_the_old_one_still_works,
    an_expired_token_cannot_be_renewed,
    signing_out_refuses_every_earlier_token_of_the_player_and_only_those,
    an_external_identity_providers_token_maps_to_one_player,
    an_external_token_without_its_audience_or_issuer_is_refused,
    every_bad_token_is_a_401_with_a_bearer_challenge,
    an_expired_token_is_refused,
    another_seats_token_cannot_move_for_it,
    the_host_cannot_leave_and_others_cannot_leave_a_started_game,
    seats_are_refused_when_taken_or_full,
    tokens_and_games_survive_a_restart,
);
