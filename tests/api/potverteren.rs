//! Potverteren over HTTP: tables of 5 and of 10 seats, both variants, several
//! rounds, every answer checked for hidden cards and conserved chips.

use rand::{RngExt, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp, cards_outside};

/// No body in `bodies[seat]` shows another seat's blind card or total.
fn assert_nothing_hidden_shows(views: &[Value], bodies: &[Value]) {
    for (seat, body) in bodies.iter().enumerate() {
        let seen = cards_outside(body, &["/potverteren/last_round"]);
        for (other, view) in views.iter().enumerate() {
            if other == seat {
                continue;
            }
            if let Some(blind) = view["potverteren"]["hands"][other]["blind_card"].as_str() {
                assert!(
                    !seen.contains(blind),
                    "seat {seat} sees the blind card of seat {other}: {body}"
                );
            }
            let total = &body["potverteren"]["hands"][other]["total"];
            assert!(
                total.is_null(),
                "seat {seat} sees the total of seat {other}: {body}"
            );
        }
    }
}

/// Plays `rounds` rounds at a table of `seats` in `variant`, then the host
/// ends the table. Returns the final views.
async fn play_rounds(
    app: &TestApp,
    seats: usize,
    variant: &str,
    rounds: u64,
    seed: u64,
) -> Vec<Value> {
    let (id, players) = app
        .full_table(
            "potverteren",
            json!({"seats": seats, "variant": variant, "starting_chips": 50}),
            seats,
        )
        .await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    loop {
        let views = all_views(app, &id, &players).await;
        assert_nothing_hidden_shows(&views, &views);
        let table = &views[0]["potverteren"];
        let chips: i64 = table["balances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_i64().unwrap())
            .sum();
        assert_eq!(
            chips + table["pot"].as_i64().unwrap(),
            50 * seats as i64,
            "chips are conserved"
        );
        if views[0]["status"] == "finished" {
            return views;
        }
        let settled = table["last_round"]["round"].as_u64().unwrap_or(0);
        let host_moves = views[0]["legal_moves"].as_array().unwrap();
        if settled >= rounds && host_moves.contains(&json!({"type": "end_table"})) {
            let answer = app
                .play(&id, &players[0], json!({"type": "end_table"}))
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            continue;
        }
        let seat = views[0]["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let moves: Vec<&Value> = views[seat]["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["type"] != "end_table")
            .collect();
        assert!(
            !moves.is_empty(),
            "seat {seat} has no move: {}",
            views[seat]
        );
        // Pass more often than bid, and hit below 12, so rounds end and vary.
        let total = views[seat]["potverteren"]["hands"][seat]["total"]
            .as_u64()
            .unwrap_or(0);
        let mv = match moves.iter().find(|m| m["type"] == "pass") {
            Some(pass) if rng.random_bool(0.6) => (*pass).clone(),
            _ => match moves.iter().find(|m| m["type"] == "hit") {
                Some(hit) if total < 12 => (*hit).clone(),
                _ => moves[rng.random_range(0..moves.len())].clone(),
            },
        };
        let version = views[0]["version"].as_i64().unwrap();
        let answer = app.play(&id, &players[seat], mv.clone()).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{mv} refused: {}",
            answer.body
        );
        assert_eq!(answer.body["version"], version + 1);
        let after = all_views(app, &id, &players).await;
        let mut bodies = after.clone();
        bodies[seat] = answer.body;
        assert_nothing_hidden_shows(&after, &bodies);
    }
}

async fn all_views(app: &TestApp, id: &str, players: &[Player]) -> Vec<Value> {
    let mut views = Vec::new();
    for player in players {
        views.push(app.view(id, player).await);
    }
    views
}

async fn a_table_of_five_plays_several_auction_rounds(db: Db) {
    let app = TestApp::spawn(db).await;
    let views = play_rounds(&app, 5, "auction", 4, 5).await;
    assert_eq!(views[0]["potverteren"]["phase"], "finished");
    assert_eq!(views[0]["potverteren"]["last_round"]["round"], 4);
}

async fn a_table_of_ten_plays_several_auction_rounds(db: Db) {
    let app = TestApp::spawn(db).await;
    let views = play_rounds(&app, 10, "auction", 3, 10).await;
    assert_eq!(views[0]["potverteren"]["last_round"]["round"], 3);
}

async fn a_table_of_five_plays_several_lot_rounds(db: Db) {
    let app = TestApp::spawn(db).await;
    let views = play_rounds(&app, 5, "lot", 4, 55).await;
    assert_eq!(views[0]["potverteren"]["last_round"]["round"], 4);
}

async fn a_table_of_ten_plays_several_lot_rounds(db: Db) {
    let app = TestApp::spawn(db).await;
    let views = play_rounds(&app, 10, "lot", 3, 1010).await;
    assert_eq!(views[0]["potverteren"]["last_round"]["round"], 3);
}

/// A move and a view read only a table's newest finished records
/// (`RECENT_RECORDS`, 16); the table plays on past them, and the event log
/// still shows every settled round's blind cards and seeds, the oldest
/// included.
async fn a_long_table_shows_every_settled_rounds_cards_in_its_event_log(db: Db) {
    let app = TestApp::spawn(db).await;
    let rounds = 20;
    let views = play_rounds(&app, 5, "lot", rounds, 2020).await;
    let settled = views[0]["potverteren"]["last_round"]["round"]
        .as_u64()
        .unwrap();
    assert!(settled >= rounds, "{settled} rounds");
    let id = views[0]["id"].as_str().unwrap();
    let reader = app.player("Reader").await;
    let mut after = 0;
    let mut dealt = Vec::new();
    loop {
        let page = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events?after={after}&limit=50"),
                Some(&reader.token),
                None,
            )
            .await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let events = page.body["events"].as_array().unwrap().clone();
        if events.is_empty() {
            break;
        }
        for event in events.iter().filter(|e| e["data"]["type"] == "deal") {
            let data = &event["data"];
            let blind = data["blind_cards"]
                .as_array()
                .unwrap_or_else(|| panic!("round {} shows no blind cards: {event}", data["round"]));
            assert!(!blind.is_empty(), "{event}");
            assert!(blind.iter().all(|b| b["blind_card"].is_string()), "{event}");
            assert!(data["server_seed"].is_string(), "{event}");
            dealt.push(data["round"].as_u64().unwrap());
        }
        after = page.body["next_after"].as_i64().unwrap();
    }
    assert_eq!(
        dealt,
        (1..=settled).collect::<Vec<_>>(),
        "every round's deal"
    );
}

async fn only_the_host_may_end_the_table(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app.full_table("potverteren", json!({}), 5).await;
    let answer = app
        .play(&id, &players[1], json!({"type": "end_table"}))
        .await;
    assert_eq!(
        (answer.status, answer.code()),
        (StatusCode::FORBIDDEN, "forbidden"),
        "{}",
        answer.body
    );
    assert_eq!(answer.body.get("legal_moves"), None, "a 403 lists no moves");
    let answer = app
        .play(&id, &players[0], json!({"type": "end_table"}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["status"], "finished");
    let events = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events"),
            Some(&players[2].token),
            None,
        )
        .await;
    let kinds: Vec<&str> = events.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["created", "joined", "joined", "joined", "joined", "move"]
    );
}

on_both_databases!(
    a_table_of_five_plays_several_auction_rounds,
    a_table_of_ten_plays_several_auction_rounds,
    a_table_of_five_plays_several_lot_rounds,
    a_table_of_ten_plays_several_lot_rounds,
    a_long_table_shows_every_settled_rounds_cards_in_its_event_log,
    only_the_host_may_end_the_table,
);
