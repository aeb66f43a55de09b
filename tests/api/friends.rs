//! Tables among friends: private tables and invite codes, quick match,
//! rematch, profiles with statistics and ratings.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use kaarttafel::clock::ManualClock;
use kaarttafel::config::{Limit, RateLimits};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use skillratings::weng_lin::{
    WengLinConfig, WengLinRating, weng_lin_multi_team, weng_lin_two_teams,
};
use skillratings::{MultiTeamOutcome, Outcomes};

use crate::on_both_databases;
use crate::support::{Answer, Db, Player, TestApp};

const UNAMBIGUOUS: &str = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

async fn private_table(app: &TestApp, host: &Player) -> (String, String) {
    let id = app
        .table(host, "klaverjassen", json!({"private": true, "deals": 1}))
        .await;
    let code = app.view(&id, host).await["invite_code"]
        .as_str()
        .expect("the host sees the code")
        .to_owned();
    (id, code)
}

async fn lobby_ids(app: &TestApp, player: &Player) -> BTreeSet<String> {
    let answer = app
        .send(
            Method::GET,
            "/v1/games?limit=100",
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    ids_of(&answer.body)
}

fn ids_of(page: &Value) -> BTreeSet<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn private_tables_are_absent_from_the_lobby_and_from_other_players_listings(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let stranger = app.player("Stranger").await;
    let (private, code) = private_table(&app, &anne).await;
    let public = app.table(&anne, "klaverjassen", json!({})).await;
    assert_eq!(code.len(), 10);
    assert!(code.chars().all(|c| UNAMBIGUOUS.contains(c)), "{code}");
    let lobby = lobby_ids(&app, &stranger).await;
    assert!(lobby.contains(&public));
    assert!(!lobby.contains(&private));
    assert!(!lobby_ids(&app, &anne).await.contains(&private));
    let theirs = app
        .send(
            Method::GET,
            "/v1/players/me/games",
            Some(&stranger.token),
            None,
        )
        .await;
    assert!(ids_of(&theirs.body).is_empty());
    let own = app
        .send(Method::GET, "/v1/players/me/games", Some(&anne.token), None)
        .await;
    assert!(ids_of(&own.body).contains(&private));
    // Someone not seated never sees the code, not even with the table's id.
    let seen = app.view(&private, &stranger).await;
    assert_eq!(seen["invite_code"], Value::Null);
    assert!(!seen.to_string().contains(&code));
    assert_eq!(app.view(&public, &anne).await["invite_code"], Value::Null);
    assert_eq!(app.view(&private, &anne).await["options"]["private"], true);
}

async fn an_invite_code_seats_three_friends_and_starts_the_game(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let (id, code) = private_table(&app, &anne).await;
    let friends = [
        app.player("Bram").await,
        app.player("Cor").await,
        app.player("Dirk").await,
    ];
    let shown = app
        .send(
            Method::GET,
            &format!("/v1/invites/{code}"),
            Some(&friends[0].token),
            None,
        )
        .await;
    assert_eq!(shown.status, StatusCode::OK, "{}", shown.body);
    assert_eq!(shown.body["host_name"], "Anne");
    assert_eq!(shown.body["table"]["id"], id.as_str());
    assert_eq!(shown.body["table"]["game"], "klaverjassen");
    assert_eq!(shown.body["free_seats"], json!([1, 2, 3]));
    assert_eq!(shown.body["table"]["seats"][0]["player"]["name"], "Anne");
    // Codes are typed on phones: case and dashes do not matter.
    let typed = [
        code.clone(),
        code.to_lowercase(),
        format!("{}-{}", &code[..5], &code[5..]),
    ];
    for (friend, typed) in friends.iter().zip(&typed) {
        let answer = app
            .send(
                Method::POST,
                &format!("/v1/invites/{typed}"),
                Some(&friend.token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.body["id"], id.as_str());
        assert_eq!(answer.body["invite_code"], code.as_str());
    }
    let view = app.view(&id, &anne).await;
    assert_eq!(view["status"], "playing");
    // Taking a seat again by the code is harmless: the same view.
    let again = app
        .send(
            Method::POST,
            &format!("/v1/invites/{code}"),
            Some(&friends[0].token),
            None,
        )
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["version"], view["version"]);
}

async fn wrong_and_expired_invite_codes_are_a_plain_404(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    let (id, code) = private_table(&app, &anne).await;
    let first = if code.starts_with('2') { '3' } else { '2' };
    let wrong = format!("{first}{}", &code[1..]);
    for path in [
        format!("/v1/invites/{wrong}"),
        "/v1/invites/0O1IL0O1IL".to_owned(),
        "/v1/invites/x".to_owned(),
    ] {
        for method in [Method::GET, Method::POST] {
            let answer = app.send(method, &path, Some(&bram.token), None).await;
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(answer.code(), "not_found");
            assert!(!answer.body.to_string().contains(&id));
        }
    }
    // A table left waiting is abandoned after a day: its code stops working.
    let version = app.view(&id, &anne).await["version"].as_i64().unwrap();
    clock.advance(24.0 * 3600.0 + 1.0);
    let view = app.view_after(&id, &anne, version).await;
    assert_eq!(view["status"], "abandoned");
    for method in [Method::GET, Method::POST] {
        let answer = app
            .send(
                method,
                &format!("/v1/invites/{code}"),
                Some(&bram.token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND);
        assert_eq!(answer.code(), "not_found");
    }
}

/// An app whose only limit is `RATE_LIMIT_INVITE_GUESSES` at `requests` an
/// hour (nothing refills during a test), believing `X-Forwarded-For` from
/// the tests' own address.
async fn app_counting_invites(db: Db, requests: u32) -> TestApp {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    settings.rate_limits = RateLimits {
        invite_guesses: Some(Limit {
            requests: NonZeroU32::new(requests).unwrap(),
            per: Duration::from_secs(3600),
        }),
        ..RateLimits::off()
    };
    TestApp::start(settings, dir).await
}

/// A wrong code made of unambiguous letters, the `i`th of many.
fn wrong_code(i: usize) -> String {
    let letters = UNAMBIGUOUS.as_bytes();
    (0..10)
        .map(|k| letters[(i / letters.len().pow(k)) % letters.len()] as char)
        .collect()
}

/// Looks invite code `code` up as the client at `address`.
async fn look_up(app: &TestApp, player: &Player, code: &str, address: &str) -> Answer {
    app.send_with(
        Method::GET,
        &format!("/v1/invites/{code}"),
        Some(&player.token),
        None,
        &[("X-Forwarded-For", address)],
    )
    .await
}

async fn wrong_invite_guesses_are_slowed_per_client(db: Db) {
    let app = app_counting_invites(db, 3).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    let (_, code) = private_table(&app, &anne).await;
    for i in 0..3 {
        let answer = look_up(&app, &bram, &wrong_code(i), "192.0.2.7").await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "guess {i}");
    }
    // The allowance is used up: this client's invite requests wait now,
    // even with the right code and another token.
    let refused = look_up(&app, &anne, &code, "192.0.2.7").await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.code(), "rate_limited");
    assert_eq!(
        refused.headers["ratelimit-policy"],
        "\"invite_guesses\";q=3;w=3600"
    );
    // Everything else still answers, and another client is not held back.
    let lobby = app
        .send(Method::GET, "/v1/games", Some(&bram.token), None)
        .await;
    assert_eq!(lobby.status, StatusCode::OK);
    let other = look_up(&app, &anne, &code, "192.0.2.8").await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.body);
}

/// Guesses sent all at once each take their allowance before their code is
/// looked up: however many are sent, no more get an answer than allowed.
async fn parallel_wrong_invite_codes_never_get_more_answers_than_allowed(db: Db) {
    let app = app_counting_invites(db, 10).await;
    let bram = app.player("Bram").await;
    let codes: Vec<String> = (0..60).map(wrong_code).collect();
    let guesses = futures_util::future::join_all(
        codes
            .iter()
            .map(|code| look_up(&app, &bram, code, "198.51.100.9")),
    )
    .await;
    let answered = guesses
        .iter()
        .filter(|a| a.status == StatusCode::NOT_FOUND)
        .count();
    let refused = guesses
        .iter()
        .filter(|a| a.status == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((answered, refused), (10, 50));
}

/// Two IPv6 addresses of one /64 are one client for the limit; another /64
/// is another client.
async fn ipv6_clients_of_one_64_share_the_invite_allowance(db: Db) {
    let app = app_counting_invites(db, 2).await;
    let bram = app.player("Bram").await;
    let first = look_up(&app, &bram, &wrong_code(0), "2001:db8:1:2::a").await;
    let second = look_up(&app, &bram, &wrong_code(1), "2001:db8:1:2:ffff::b").await;
    assert_eq!(
        (first.status, second.status),
        (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND)
    );
    let third = look_up(&app, &bram, &wrong_code(2), "2001:db8:1:2::c").await;
    assert_eq!(third.status, StatusCode::TOO_MANY_REQUESTS);
    let neighbour = look_up(&app, &bram, &wrong_code(3), "2001:db8:1:3::a").await;
    assert_eq!(neighbour.status, StatusCode::NOT_FOUND);
}

async fn quick_match(app: &TestApp, player: &Player, body: Value) -> Answer {
    app.send(
        Method::POST,
        "/v1/matchmaking",
        Some(&player.token),
        Some(body),
    )
    .await
}

async fn sixteen_parallel_quick_matches_on_two_instances_fill_exactly_four_tables(db: Db) {
    let first = TestApp::spawn(db).await;
    let second = first.second_instance().await;
    let mut players = Vec::new();
    for i in 0..16 {
        players.push(first.player(&format!("player {i}")).await);
    }
    let requests = players.iter().enumerate().map(|(i, player)| {
        let app = if i % 2 == 0 { &first } else { &second };
        quick_match(app, player, json!({"game": "klaverjassen"}))
    });
    let answers = futures_util::future::join_all(requests).await;
    let created = answers
        .iter()
        .filter(|a| a.status == StatusCode::CREATED)
        .count();
    let joined = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .count();
    assert_eq!((created, joined), (4, 12), "{answers:?}");
    let tables: BTreeSet<String> = answers
        .iter()
        .map(|a| a.body["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tables.len(), 4);
    let mut seated = BTreeSet::new();
    for id in &tables {
        let view = first.view(id, &players[0]).await;
        assert_eq!(view["status"], "playing", "{view}");
        for seat in view["seats"].as_array().unwrap() {
            let player = seat["player"]["id"].as_str().unwrap().to_owned();
            assert!(seated.insert(player), "a player sits twice");
        }
    }
    assert_eq!(seated.len(), 16);
    let all: BTreeSet<String> = players.iter().map(|p| p.id.clone()).collect();
    assert_eq!(seated, all);
    // No half-empty extra table is left waiting.
    assert!(lobby_ids(&first, &players[0]).await.is_empty());
    second.stop().await;
}

async fn quick_match_takes_the_oldest_matching_public_table_and_never_a_private_one(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    let cor = app.player("Cor").await;
    let dirk = app.player("Dirk").await;
    let (private, _) = private_table(&app, &anne).await;
    let short = app.table(&anne, "klaverjassen", json!({"deals": 4})).await;
    let club = app
        .table(&bram, "klaverjassen", json!({"revoke_mode": "club"}))
        .await;
    // Options given must match; the private table never does.
    let answer = quick_match(
        &app,
        &cor,
        json!({"game": "klaverjassen", "options": {"revoke_mode": "club"}}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["id"], club.as_str());
    // Nothing asked: the oldest public table.
    let answer = quick_match(&app, &dirk, json!({"game": "klaverjassen"})).await;
    assert_eq!(answer.body["id"], short.as_str());
    // Pressing again returns the table the caller already waits at.
    let again = quick_match(&app, &dirk, json!({"game": "klaverjassen"})).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["id"], short.as_str());
    // No public table with these options: a new one, the caller its host.
    let answer = quick_match(
        &app,
        &dirk,
        json!({"game": "klaverjassen", "options": {"deals": 2}}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    assert_eq!(answer.body["host"], dirk.id.as_str());
    assert_eq!(answer.body["options"]["deals"], 2);
    assert!(
        answer.headers["location"]
            .to_str()
            .unwrap()
            .ends_with(answer.body["id"].as_str().unwrap())
    );
    assert_ne!(answer.body["id"], private.as_str());
    let view = app.view(&private, &anne).await;
    assert_eq!(view["seats"][1]["player"], Value::Null);
    // Potverteren finds no Klaverjassen table.
    let pot = quick_match(&app, &cor, json!({"game": "potverteren"})).await;
    assert_eq!(pot.status, StatusCode::CREATED);
    assert_eq!(pot.body["game"], "potverteren");
    let refused = quick_match(
        &app,
        &cor,
        json!({"game": "klaverjassen", "options": {"private": true}}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let refused = quick_match(
        &app,
        &cor,
        json!({"game": "klaverjassen", "options": {"deals": 99}}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// Plays `id` to its end with the first legal move of whoever may move;
/// returns the final view.
async fn play_to_the_end(app: &TestApp, id: &str, players: &[Player]) -> Value {
    for _ in 0..2000 {
        let mut moved = false;
        for player in players {
            let view = app.view(id, player).await;
            if view["status"] == "finished" {
                return view;
            }
            if let Some(mv) = view["legal_moves"].as_array().and_then(|m| m.first()) {
                let answer = app.play(id, player, mv.clone()).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                moved = true;
                break;
            }
        }
        assert!(moved, "nobody could move");
    }
    panic!("the game did not end");
}

async fn finished_match(app: &TestApp) -> (String, Vec<Player>, Value) {
    let (id, players) = app
        .full_table("klaverjassen", json!({"deals": 1, "private": true}), 4)
        .await;
    let view = play_to_the_end(app, &id, &players).await;
    (id, players, view)
}

async fn rematch(app: &TestApp, id: &str, player: &Player) -> Answer {
    app.send(
        Method::POST,
        &format!("/v1/games/{id}/rematch"),
        Some(&player.token),
        None,
    )
    .await
}

async fn a_rematch_is_created_once_when_four_players_ask_at_once(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players, finished) = finished_match(&app).await;
    assert_eq!(finished["rematch"], Value::Null);
    let version = finished["version"].as_i64().unwrap();
    // A listener waiting on the finished game hears of the rematch.
    let poll = format!("/v1/games/{id}?wait_for_version={version}&timeout_s=20");
    let listener = app.send(Method::GET, &poll, Some(&players[0].token), None);
    let asks = futures_util::future::join_all(players.iter().map(|p| rematch(&app, &id, p)));
    let (heard, answers) = futures_util::join!(listener, asks);
    let created: Vec<usize> = (0..4)
        .filter(|&i| answers[i].status == StatusCode::CREATED)
        .collect();
    assert_eq!(created.len(), 1, "{answers:?}");
    let creator = &players[created[0]];
    let next: BTreeSet<&str> = answers
        .iter()
        .map(|a| {
            assert!(a.status.is_success(), "{}", a.body);
            a.body["id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(next.len(), 1);
    let next = next.into_iter().next().unwrap().to_owned();
    assert_eq!(heard.body["rematch"], next.as_str());
    assert_eq!(heard.body["version"], version + 1);
    let view = app.view(&id, &players[2]).await;
    assert_eq!(view["rematch"], next.as_str());
    assert_eq!(view["version"], version + 1);
    // Asked again later: the same table, nothing changes.
    let again = rematch(&app, &id, &players[3]).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["id"], next.as_str());
    assert_eq!(app.view(&id, &players[2]).await["version"], version + 1);
    // The same options, a fresh code; a stranger may not ask.
    let table = app.view(&next, creator).await;
    assert!(table["invite_code"].is_string());
    assert_eq!(table["options"], finished["options"]);
    assert_ne!(table["invite_code"], finished["invite_code"]);
    let stranger = app.player("Stranger").await;
    let refused = rematch(&app, &id, &stranger).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.code(), "not_seated");
    let unfinished = rematch(&app, &next, &players[0]).await;
    assert!(
        unfinished.status == StatusCode::CONFLICT || unfinished.status == StatusCode::FORBIDDEN
    );
}

async fn a_rematch_or_an_invite_with_an_idempotency_key_replays_its_first_answer(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players, _) = finished_match(&app).await;
    let path = format!("/v1/games/{id}/rematch");
    let ask = |player: &Player, key: &'static str| {
        let token = player.token.clone();
        let path = path.clone();
        let app = &app;
        async move {
            app.send_with(
                Method::POST,
                &path,
                Some(&token),
                None,
                &[("Idempotency-Key", key)],
            )
            .await
        }
    };
    let first = ask(&players[0], "rematch-1").await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = ask(&players[0], "rematch-1").await;
    assert_eq!(
        again.status,
        StatusCode::CREATED,
        "the first answer, replayed"
    );
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.body, first.body);
    assert_eq!(again.headers["location"], first.headers["location"]);
    // Another player's key is its own: the rematch exists, so 200.
    let other = ask(&players[1], "rematch-1").await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.body);
    assert_eq!(other.body["id"], first.body["id"]);
    assert!(other.headers.get("idempotent-replayed").is_none());
    let replayed = ask(&players[1], "rematch-1").await;
    assert_eq!(replayed.status, StatusCode::OK);
    assert_eq!(replayed.headers["idempotent-replayed"], "true");
    // The same key with another request is refused.
    let mismatch = app
        .send_with(
            Method::POST,
            "/v1/games",
            Some(&players[0].token),
            Some(json!({"game": "potverteren"})),
            &[("Idempotency-Key", "rematch-1")],
        )
        .await;
    assert_eq!(
        (mismatch.status, mismatch.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_mismatch")
    );

    // An invite taken with a key: the retry replays, another seat with the
    // same key is refused, and the caller stays where it sat.
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    let (table, code) = private_table(&app, &anne).await;
    let take = |seat: u8| {
        let token = bram.token.clone();
        let app = &app;
        let code = code.clone();
        async move {
            app.send_with(
                Method::POST,
                &format!("/v1/invites/{code}"),
                Some(&token),
                Some(json!({"seat": seat})),
                &[("Idempotency-Key", "invite-1")],
            )
            .await
        }
    };
    let seated = take(1).await;
    assert_eq!(seated.status, StatusCode::OK, "{}", seated.body);
    let again = take(1).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.body, seated.body);
    let mismatch = take(2).await;
    assert_eq!(
        (mismatch.status, mismatch.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_mismatch"),
        "{}",
        mismatch.body
    );
    assert_eq!(app.view(&table, &bram).await["you"], 1);
    // Without a key, a seated caller gets its view, as before.
    let plain = app
        .send(
            Method::POST,
            &format!("/v1/invites/{code}"),
            Some(&bram.token),
            Some(json!({"seat": 2})),
        )
        .await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.body["you"], 1);
}

async fn quick_match_finds_a_matching_table_behind_many_that_do_not_match(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    // More waiting tables than one page of matchmaking's reads, none of
    // them with the options asked for, and then one that has them (hosts
    // wait at 20 tables at most).
    for host in 0..8 {
        let host = app.player(&format!("Host {host}")).await;
        for _ in 0..15 {
            app.table(&host, "klaverjassen", json!({"deals": 1})).await;
        }
    }
    let wanted = app.table(&anne, "klaverjassen", json!({"deals": 2})).await;
    let answer = quick_match(
        &app,
        &bram,
        json!({"game": "klaverjassen", "options": {"deals": 2}}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["id"], wanted.as_str());
}

async fn a_player_waiting_at_twenty_tables_makes_no_more(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bram = app.player("Bram").await;
    for _ in 0..kaarttafel::app::new_table::WAITING_TABLES_PER_PLAYER {
        app.table(&anne, "potverteren", json!({})).await;
    }
    let refused = app
        .send(
            Method::POST,
            "/v1/games",
            Some(&anne.token),
            Some(json!({"game": "klaverjassen"})),
        )
        .await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::CONFLICT, "too_many_tables"),
        "{}",
        refused.body
    );
    // A quick match that would make a table is refused too; one that
    // seats her at another's table is not.
    let alone = quick_match(&app, &anne, json!({"game": "klaverjassen"})).await;
    assert_eq!(
        (alone.status, alone.code()),
        (StatusCode::CONFLICT, "too_many_tables")
    );
    let theirs = app.table(&bram, "klaverjassen", json!({})).await;
    let joined = quick_match(&app, &anne, json!({"game": "klaverjassen"})).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.body);
    assert_eq!(joined.body["id"], theirs.as_str());
    // Others are not held back.
    let other = app.table(&bram, "klaverjassen", json!({})).await;
    assert!(!other.is_empty());
}

async fn rematch_seats_are_reserved_for_their_players_then_free_after_five_minutes(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let (id, players, _) = finished_match(&app).await;
    let answer = rematch(&app, &id, &players[1]).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let next = answer.body["id"].as_str().unwrap().to_owned();
    assert_eq!(answer.body["you"], 1);
    assert_eq!(answer.body["host"], players[1].id.as_str());
    let reserved: BTreeMap<u64, String> = answer.body["reserved_seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["seat"].as_u64().unwrap(),
                r["player"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: BTreeMap<u64, String> = [0, 2, 3]
        .into_iter()
        .map(|s| (s, players[s as usize].id.clone()))
        .collect();
    assert_eq!(reserved, expected);
    let stranger = app.player("Stranger").await;
    let seats = format!("/v1/games/{next}/seats");
    let taken = app
        .send(
            Method::POST,
            &seats,
            Some(&stranger.token),
            Some(json!({"seat": 2})),
        )
        .await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    assert_eq!(taken.code(), "seat_reserved");
    let any = app
        .send(Method::POST, &seats, Some(&stranger.token), None)
        .await;
    assert_eq!(any.status, StatusCode::CONFLICT);
    assert_eq!(any.code(), "game_full");
    // Its own player gets the held seat without naming it.
    let back = app
        .send(Method::POST, &seats, Some(&players[0].token), None)
        .await;
    assert_eq!(back.status, StatusCode::OK, "{}", back.body);
    assert_eq!(back.body["you"], 0);
    clock.advance(4.0 * 60.0);
    let still = app
        .send(
            Method::POST,
            &seats,
            Some(&stranger.token),
            Some(json!({"seat": 3})),
        )
        .await;
    assert_eq!(still.code(), "seat_reserved");
    clock.advance(61.0);
    let free = app
        .send(
            Method::POST,
            &seats,
            Some(&stranger.token),
            Some(json!({"seat": 3})),
        )
        .await;
    assert_eq!(free.status, StatusCode::OK, "{}", free.body);
    assert_eq!(free.body["you"], 3);
}

async fn profile(app: &TestApp, asker: &Player, id: &str) -> Value {
    let answer = app
        .send(
            Method::GET,
            &format!("/v1/players/{id}"),
            Some(&asker.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body
}

fn close(a: &Value, b: f64) {
    let a = a.as_f64().unwrap();
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

async fn statistics_and_ratings_follow_the_score_sheets(db: Db) {
    let app = TestApp::spawn(db).await;
    let mut players = Vec::new();
    for name in ["Anne", "Bram", "Cor", "Dirk"] {
        players.push(app.player(name).await);
    }
    let fresh = WengLinRating::new();
    let config = WengLinConfig::new();
    let mut ratings: BTreeMap<String, WengLinRating> =
        players.iter().map(|p| (p.id.clone(), fresh)).collect();
    // (played, won, drawn, points, deals) per player, from the score sheets.
    let mut stats: BTreeMap<String, (i64, i64, i64, i64, i64)> = BTreeMap::new();
    for round in 0..3 {
        // Seats rotate, so partners change from match to match.
        let seated: Vec<Player> = (0..4).map(|s| players[(s + round) % 4].clone()).collect();
        let id = app
            .table(&seated[0], "klaverjassen", json!({"deals": 1}))
            .await;
        app.seat_the_rest(&id, &seated).await;
        let view = play_to_the_end(&app, &id, &seated).await;
        let sheet = view["klaverjassen"]["deals"].as_array().unwrap();
        let sum = |team: &str| -> i64 {
            sheet
                .iter()
                .map(|row| row["score"][team].as_i64().unwrap())
                .sum()
        };
        let (a, b) = (sum("A"), sum("B"));
        for (seat, player) in seated.iter().enumerate() {
            let (own, other) = if seat % 2 == 0 { (a, b) } else { (b, a) };
            let entry = stats.entry(player.id.clone()).or_default();
            entry.0 += 1;
            entry.1 += i64::from(own > other);
            entry.2 += i64::from(own == other);
            entry.3 += own;
            entry.4 += sheet.len() as i64;
        }
        let outcome = match a.cmp(&b) {
            std::cmp::Ordering::Greater => Outcomes::WIN,
            std::cmp::Ordering::Less => Outcomes::LOSS,
            std::cmp::Ordering::Equal => Outcomes::DRAW,
        };
        let r = |s: usize| ratings[&seated[s].id];
        let (new_a, new_b) = weng_lin_two_teams(&[r(0), r(2)], &[r(1), r(3)], &outcome, &config);
        for (seat, new) in [(0, new_a[0]), (2, new_a[1]), (1, new_b[0]), (3, new_b[1])] {
            ratings.insert(seated[seat].id.clone(), new);
        }
    }
    for player in &players {
        let shown = profile(&app, &players[0], &player.id).await;
        let (played, won, drawn, points, deals) = stats[&player.id];
        let k = &shown["stats"]["klaverjassen"];
        assert_eq!(k["played"], played);
        assert_eq!(k["won"], won);
        assert_eq!(k["drawn"], drawn);
        assert_eq!(k["lost"], played - won - drawn);
        close(&k["average_points_per_deal"], points as f64 / deals as f64);
        close(
            &shown["rating"]["klaverjassen"]["rating"],
            ratings[&player.id].rating,
        );
        close(
            &shown["rating"]["klaverjassen"]["uncertainty"],
            ratings[&player.id].uncertainty,
        );
        assert_eq!(shown["stats"]["potverteren"]["played"], 0);
        close(&shown["rating"]["potverteren"]["rating"], fresh.rating);
    }
}

async fn computer_players_have_ratings_and_potverteren_counts_net_chips(db: Db) {
    // The clock stands still, so the computer players wait while the host
    // ends the table before the first bid: every balance stays level.
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let answer = app
        .send(
            Method::POST,
            "/v1/games",
            Some(&anne.token),
            Some(json!({"game": "potverteren", "bots": [
                {"level": "basic"}, {"level": "basic"}, {"level": "strong"}, {"level": "basic"}
            ]})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let id = answer.body["id"].as_str().unwrap().to_owned();
    let bots: Vec<String> = answer.body["seats"].as_array().unwrap()[1..]
        .iter()
        .map(|s| s["player"]["id"].as_str().unwrap().to_owned())
        .collect();
    let ended = app.play(&id, &anne, json!({"type": "end_table"})).await;
    assert_eq!(ended.status, StatusCode::OK, "{}", ended.body);
    assert_eq!(ended.body["status"], "finished");
    let balances = ended.body["potverteren"]["balances"]
        .as_array()
        .unwrap()
        .clone();
    let start = ended.body["options"]["starting_chips"].as_i64().unwrap();
    let best = balances.iter().map(|b| b.as_i64().unwrap()).max().unwrap();
    let fresh = WengLinRating::new();
    let teams: Vec<[WengLinRating; 1]> = balances.iter().map(|_| [fresh]).collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(&balances)
        .map(|(team, balance)| {
            let above = balances
                .iter()
                .filter(|b| b.as_i64() > balance.as_i64())
                .count();
            (&team[..], MultiTeamOutcome::new(1 + above))
        })
        .collect();
    let expected = weng_lin_multi_team(&ranked, &WengLinConfig::new());
    let everyone: Vec<String> = std::iter::once(anne.id.clone()).chain(bots).collect();
    for (seat, id) in everyone.iter().enumerate() {
        let shown = profile(&app, &anne, id).await;
        let p = &shown["stats"]["potverteren"];
        let balance = balances[seat].as_i64().unwrap();
        let alone = balances.iter().filter(|b| b.as_i64() == Some(best)).count() == 1;
        assert_eq!(p["played"], 1);
        assert_eq!(p["won"], i64::from(balance == best && alone));
        assert_eq!(p["drawn"], i64::from(balance == best && !alone));
        assert_eq!(p["net_chips"], balance - start);
        close(
            &shown["rating"]["potverteren"]["rating"],
            expected[seat][0].rating,
        );
        close(
            &shown["rating"]["potverteren"]["uncertainty"],
            expected[seat][0].uncertainty,
        );
        assert_eq!(shown["bot"].is_null(), seat == 0);
    }
    let unknown = app
        .send(
            Method::GET,
            &format!("/v1/players/{}", uuid_like()),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

fn uuid_like() -> &'static str {
    "00000000-0000-4000-8000-000000000000"
}

async fn renaming_trims_the_name_and_refuses_blank_long_or_control_names(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let id = app.table(&anne, "klaverjassen", json!({})).await;
    let rename = |name: Value| {
        app.send(
            Method::PATCH,
            "/v1/players/me",
            Some(&anne.token),
            Some(json!({"name": name})),
        )
    };
    let answer = rename(json!("  Anneke de Vries  ")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["name"], "Anneke de Vries");
    assert_eq!(
        app.view(&id, &anne).await["seats"][0]["player"]["name"],
        "Anneke de Vries"
    );
    assert_eq!(rename(json!("x".repeat(40))).await.status, StatusCode::OK);
    for bad in [
        json!("   "),
        json!(""),
        json!("x".repeat(41)),
        json!("An\u{7}ne"),
        json!("An\nne"),
    ] {
        let answer = rename(bad.clone()).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert_eq!(answer.code(), "validation_failed");
    }
    let me = profile(&app, &anne, &anne.id).await;
    assert_eq!(me["name"], "x".repeat(40));
}

/// A private table's next table is named only to the players who sat at it:
/// a spectator's view, long poll and event log never show its id, and the
/// new table's invite code is shown to its seated players only.
async fn a_spectator_of_a_private_table_never_sees_its_rematch(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players, finished) = finished_match(&app).await;
    let spectator = app.player("Spectator").await;
    let version = finished["version"].as_i64().unwrap();
    let poll = format!("/v1/games/{id}?wait_for_version={version}&timeout_s=20");
    let watching = app.send(Method::GET, &poll, Some(&spectator.token), None);
    let (heard, made) = futures_util::join!(watching, rematch(&app, &id, &players[1]));
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let next = made.body["id"].as_str().unwrap().to_owned();
    assert_eq!(heard.body["version"], version + 1);
    assert_eq!(heard.body["rematch"], Value::Null);
    let seen = app.view(&id, &spectator).await;
    assert_eq!(seen["you"], Value::Null);
    assert_eq!(seen["rematch"], Value::Null);
    let log = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events"),
            Some(&spectator.token),
            None,
        )
        .await;
    assert_eq!(log.status, StatusCode::OK);
    let last = log.body["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (&last["kind"], &last["data"]["type"]),
        (&json!("rematch"), &json!("rematch"))
    );
    for answer in [&heard.body, &seen, &log.body] {
        assert!(!answer.to_string().contains(&next), "{answer}");
    }
    // Every player who sat there sees it, in the view and in the log.
    for player in &players {
        assert_eq!(app.view(&id, player).await["rematch"], next.as_str());
        let log = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events"),
                Some(&player.token),
                None,
            )
            .await;
        let last = log.body["events"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["data"]["game"], next.as_str());
    }
    // The new table has a code of its own, for its seated players only.
    let host_view = app.view(&next, &players[1]).await;
    let code = host_view["invite_code"]
        .as_str()
        .expect("the host sees the new code");
    assert_ne!(Some(code), finished["invite_code"].as_str());
    let held = app.view(&next, &players[2]).await;
    assert_eq!(held["invite_code"], Value::Null, "not seated yet");
    let seated = app
        .send(
            Method::POST,
            &format!("/v1/games/{next}/seats"),
            Some(&players[2].token),
            None,
        )
        .await;
    assert_eq!(seated.status, StatusCode::OK, "{}", seated.body);
    assert_eq!(seated.body["invite_code"], code);
    assert_eq!(
        app.view(&next, &spectator).await["invite_code"],
        Value::Null
    );
}

on_both_databases!(
    private_tables_are_absent_from_the_lobby_and_from_other_players_listings,
    an_invite_code_seats_three_friends_and_starts_the_game,
    wrong_and_expired_invite_codes_are_a_plain_404,
    wrong_invite_guesses_are_slowed_per_client,
    parallel_wrong_invite_codes_never_get_more_answers_than_allowed,
    ipv6_clients_of_one_64_share_the_invite_allowance,
    sixteen_parallel_quick_matches_on_two_instances_fill_exactly_four_tables,
    quick_match_takes_the_oldest_matching_public_table_and_never_a_private_one,
    a_rematch_is_created_once_when_four_players_ask_at_once,
    a_rematch_or_an_invite_with_an_idempotency_key_replays_its_first_answer,
    quick_match_finds_a_matching_table_behind_many_that_do_not_match,
    a_player_waiting_at_twenty_tables_makes_no_more,
    rematch_seats_are_reserved_for_their_players_then_free_after_five_minutes,
    a_spectator_of_a_private_table_never_sees_its_rematch,
    statistics_and_ratings_follow_the_score_sheets,
    computer_players_have_ratings_and_potverteren_counts_net_chips,
    renaming_trims_the_name_and_refuses_blank_long_or_control_names,
);
