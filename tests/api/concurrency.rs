//! Versions, ETags, idempotent retries and parallel moves.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_databases;
use crate::support::{Answer, Db, Player, TestApp, fresh_database, postgres_url, settings};

/// A full Klaverjassen table, and the answers to sixteen parallel
/// `choose_trump` moves of the seat that names trump (with the version
/// they saw as `expected_version`, or none): the table's id, its players
/// and the version before the moves.
async fn sixteen_parallel_trump_choices(
    app: &TestApp,
    expected: bool,
) -> (String, Vec<Player>, i64, Vec<Answer>) {
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let view = app.view(&id, &players[0]).await;
    let version = view["version"].as_i64().unwrap();
    let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    let suits = ["C", "D", "H", "S"];
    let requests = (0..16).map(|i| {
        let token = players[chooser].token.clone();
        let path = format!("/v1/games/{id}/moves");
        async move {
            let mut body = json!({"move": {"type": "choose_trump", "suit": suits[i % 4]}});
            if expected {
                body["expected_version"] = json!(version);
            }
            app.send(Method::POST, &path, Some(&token), Some(body))
                .await
        }
    });
    let answers = futures_util::future::join_all(requests).await;
    (id, players, version, answers)
}

async fn sixteen_parallel_moves_on_one_version_apply_exactly_once(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players, version, answers) = sixteen_parallel_trump_choices(&app, true).await;
    let accepted = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .count();
    assert_eq!(
        accepted,
        1,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    for answer in answers.iter().filter(|a| a.status != StatusCode::OK) {
        assert_eq!(answer.status, StatusCode::CONFLICT);
        assert_eq!(answer.code(), "version_conflict");
    }
    assert_eq!(app.view(&id, &players[0]).await["version"], version + 1);
    let events = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events"),
            Some(&players[0].token),
            None,
        )
        .await;
    assert_eq!(
        events.body["events"].as_array().unwrap().len() as i64,
        version + 1
    );
}

/// Without `expected_version` the parallel choices race on unlocked reads
/// (src/app/change.rs): the one written first is accepted, and every
/// other is made again on the game as it is then, where choosing trump is
/// no longer a legal move.
async fn sixteen_parallel_moves_without_an_expected_version_apply_exactly_once(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players, version, answers) = sixteen_parallel_trump_choices(&app, false).await;
    let accepted: Vec<_> = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .collect();
    assert_eq!(
        accepted.len(),
        1,
        "{:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    for answer in answers.iter().filter(|a| a.status != StatusCode::OK) {
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            answer.body
        );
    }
    let now = app.view(&id, &players[0]).await;
    assert_eq!(now["version"], version + 1);
    let trump = &now["klaverjassen"]["trump"];
    assert!(trump.is_string(), "{now}");
    assert_eq!(*trump, accepted[0].body["klaverjassen"]["trump"]);
    let logged = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?after={version}"),
            Some(&players[0].token),
            None,
        )
        .await;
    let logged = logged.body["events"].as_array().unwrap().clone();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["data"]["suit"], *trump, "{logged:?}");
}

async fn a_stale_expected_version_is_409_and_a_stale_if_match_is_412(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"first_dealer": 3}), 4)
        .await;
    let view = app.view(&id, &players[3]).await;
    let version = view["version"].as_i64().unwrap();
    let path = format!("/v1/games/{id}/moves");
    let stale = json!({"move": {"type": "deal"}, "expected_version": version - 1});
    let answer = app
        .send(Method::POST, &path, Some(&players[3].token), Some(stale))
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.code(), "version_conflict");
    let deal = json!({"move": {"type": "deal"}});
    let old_tag = format!("\"{}\"", version - 1);
    let answer = app
        .send_with(
            Method::POST,
            &path,
            Some(&players[3].token),
            Some(deal.clone()),
            &[("If-Match", &old_tag)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::PRECONDITION_FAILED);
    let tag = format!("\"{version}\"");
    let answer = app
        .send_with(
            Method::POST,
            &path,
            Some(&players[3].token),
            Some(deal),
            &[("If-Match", &tag)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(
        answer.headers["etag"].to_str().unwrap(),
        format!("\"{}\"", version + 1)
    );
}

async fn get_honours_if_none_match_with_304(db: Db) {
    let app = TestApp::spawn(db).await;
    let player = app.player("P").await;
    let id = app.table(&player, "potverteren", json!({})).await;
    let answer = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&player.token),
            None,
        )
        .await;
    let tag = answer.headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(tag, "\"1\"");
    let answer = app
        .send_with(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&player.token),
            None,
            &[("If-None-Match", &tag)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    let answer = app
        .send_with(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&player.token),
            None,
            &[("If-None-Match", "\"0\"")],
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
}

async fn an_idempotent_retry_returns_the_first_answer_and_changes_nothing(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"first_dealer": 3}), 4)
        .await;
    let path = format!("/v1/games/{id}/moves");
    let deal = json!({"move": {"type": "deal"}});
    let key = [("Idempotency-Key", "deal-1")];
    let first = app
        .send_with(
            Method::POST,
            &path,
            Some(&players[3].token),
            Some(deal.clone()),
            &key,
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let again = app
        .send_with(
            Method::POST,
            &path,
            Some(&players[3].token),
            Some(deal.clone()),
            &key,
        )
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body, first.body, "the first answer, replayed");
    assert_eq!(again.headers["etag"], first.headers["etag"]);
    assert_eq!(
        app.view(&id, &players[3]).await["version"],
        first.body["version"],
        "nothing changed"
    );
    let other = json!({"move": {"type": "deal"}, "expected_version": 1});
    let mismatch = app
        .send_with(
            Method::POST,
            &path,
            Some(&players[3].token),
            Some(other),
            &key,
        )
        .await;
    assert_eq!(mismatch.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(mismatch.code(), "idempotency_mismatch");
    let create = json!({"game": "potverteren"});
    let key = [("Idempotency-Key", "table-1")];
    let a = app
        .send_with(
            Method::POST,
            "/v1/games",
            Some(&players[0].token),
            Some(create.clone()),
            &key,
        )
        .await;
    let b = app
        .send_with(
            Method::POST,
            "/v1/games",
            Some(&players[0].token),
            Some(create),
            &key,
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED);
    assert_eq!(b.status, StatusCode::CREATED);
    assert_eq!(a.body["id"], b.body["id"], "one table, not two");
    assert_eq!(a.headers["location"], b.headers["location"]);
}

/// The key is tied to the request the router reads: `%76` is `v`, so a
/// retry spelt with percent escapes is the same request, replayed.
async fn a_retry_spelt_with_percent_escapes_is_the_same_request(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let key = [("Idempotency-Key", "table-1")];
    let create = json!({"game": "klaverjassen"});
    let first = app
        .send_with(
            Method::POST,
            "/v1/games",
            Some(&anne.token),
            Some(create.clone()),
            &key,
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = app
        .send_with(
            Method::POST,
            "/%761/g%61mes",
            Some(&anne.token),
            Some(create),
            &key,
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.body["id"], first.body["id"], "one table, not two");
}

/// Sends `body` to `path` eight times at once with one `Idempotency-Key`.
async fn eight_at_once(
    app: &TestApp,
    player: &Player,
    path: &str,
    body: serde_json::Value,
    key: &str,
) -> Vec<Answer> {
    let requests = (0..8).map(|_| async {
        app.send_with(
            Method::POST,
            path,
            Some(&player.token),
            Some(body.clone()),
            &[("Idempotency-Key", key)],
        )
        .await
    });
    futures_util::future::join_all(requests).await
}

async fn parallel_retries_with_one_key_make_one_change_and_never_fail(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    // A new table, asked for eight times at once: one table.
    let created = eight_at_once(
        &app,
        &anne,
        "/v1/games",
        json!({"game": "klaverjassen"}),
        "table-1",
    )
    .await;
    for answer in &created {
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        assert_eq!(answer.body["id"], created[0].body["id"]);
    }
    let lobby = app
        .send(Method::GET, "/v1/games", Some(&bram.token), None)
        .await;
    assert_eq!(
        lobby.body["items"].as_array().unwrap().len(),
        1,
        "one table"
    );
    // A quick match, asked for eight times at once: one seat.
    let matched = eight_at_once(
        &app,
        &bram,
        "/v1/matchmaking",
        json!({"game": "klaverjassen"}),
        "match-1",
    )
    .await;
    for answer in &matched {
        assert!(answer.status.is_success(), "{}", answer.body);
        assert_eq!(answer.body["id"], created[0].body["id"]);
    }
    let view = app
        .send(
            Method::GET,
            &format!("/v1/games/{}", created[0].body["id"].as_str().unwrap()),
            Some(&anne.token),
            None,
        )
        .await;
    let taken = view.body["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|seat| !seat["player"].is_null())
        .count();
    assert_eq!(taken, 2, "Anne and Bram: {}", view.body);
    // One key sent to two tables at once: one change, the other refused as
    // another request with the key, never a server error.
    for round in 0..4 {
        let tables = [
            app.table(&anne, "potverteren", json!({})).await,
            app.table(&anne, "potverteren", json!({})).await,
        ];
        let key = format!("bot-{round}");
        let asks = tables.iter().map(|id| {
            let (app, anne, key) = (&app, &anne, &key);
            async move {
                app.send_with(
                    Method::POST,
                    &format!("/v1/games/{id}/bots"),
                    Some(&anne.token),
                    Some(json!({"level": "basic"})),
                    &[("Idempotency-Key", key)],
                )
                .await
            }
        });
        let answers = futures_util::future::join_all(asks).await;
        let mut statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [201, 422],
            "{:?}",
            answers.iter().map(|a| &a.body).collect::<Vec<_>>()
        );
        let refused = answers.iter().find(|a| a.status.as_u16() == 422).unwrap();
        assert_eq!(refused.code(), "idempotency_mismatch");
    }
}

on_both_databases!(
    sixteen_parallel_moves_on_one_version_apply_exactly_once,
    sixteen_parallel_moves_without_an_expected_version_apply_exactly_once,
    a_stale_expected_version_is_409_and_a_stale_if_match_is_412,
    get_honours_if_none_match_with_304,
    an_idempotent_retry_returns_the_first_answer_and_changes_nothing,
    a_retry_spelt_with_percent_escapes_is_the_same_request,
    parallel_retries_with_one_key_make_one_change_and_never_fail,
);

/// `DB_MAX_CONNECTIONS` bounds the Postgres connections an instance's HTTP
/// workers open, however many requests come at once: each of two workers
/// gets 2 here, and the scheduler and clean-up 4 of their own. (SQLite
/// keeps its own reader pool and one writer.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_workers_open_at_most_db_max_connections() {
    if postgres_url().is_err() {
        return;
    }
    let (database, scratch) = fresh_database(Db::Postgres).await;
    let mut settings = settings(database);
    settings.workers = 2;
    settings.db_max_connections = 4;
    let app = TestApp::start(settings, scratch).await;
    let anne = app.player("Anne").await;
    let id = app.table(&anne, "klaverjassen", json!({})).await;
    let path = format!("/v1/games/{id}");
    for _ in 0..5 {
        let reads = (0..32).map(|_| app.send(Method::GET, &path, Some(&anne.token), None));
        for answer in futures_util::future::join_all(reads).await {
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        }
    }
    // At least the jobs' own connections are open: 0 would be no gauge.
    let open = app.metric("kaarttafel_db_pool_connections ").await;
    assert!((1.0..=8.0).contains(&open), "{open} connections open");
}
