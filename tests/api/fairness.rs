//! Fair deals over HTTP (docs/fairness.md): the commitment from creation on,
//! seat seeds mixed into the next deal, and no server seed anywhere before
//! its deal is over: not in a view, an event, a stream message or an error.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use kaarttafel::rules::fairness::{DealInputs, SeatSeed, hash_steps, seed_from_hex, to_hex};
use kaarttafel::rules::klaverjassen::{canonical_deck, deal_from_deck};
use kaarttafel::rules::potverteren::deck::full_deck;
use kaarttafel::rules::{Seat, cards::Card};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp};

/// Everything a client was shown, each with the game version it was shown at.
#[derive(Default, Clone)]
struct Seen(Arc<Mutex<Vec<(i64, String)>>>);

impl Seen {
    fn add(&self, version: i64, text: String) {
        self.0.lock().unwrap().push((version, text));
    }

    /// Fails if `secret` was shown at any version before `until`.
    fn assert_absent_before(&self, secret: &str, until: i64) {
        for (version, text) in self.0.lock().unwrap().iter() {
            assert!(
                *version >= until || !text.contains(secret),
                "a server seed showed at version {version}, before its deal ended at {until}: {text}"
            );
        }
    }

    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// Reads `player`'s event stream into `seen`, each message at its `id`.
async fn watch_stream(app: &TestApp, id: &str, player: &Player, seen: Seen) {
    let response = app
        .client
        .get(format!("{}/v1/games/{id}/stream", app.base))
        .bearer_auth(&player.token)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.bytes_stream();
    tokio::spawn(async move {
        let mut buffer = String::new();
        while let Some(Ok(chunk)) = body.next().await {
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                let version = block
                    .lines()
                    .find_map(|l| l.strip_prefix("id: "))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(i64::MAX);
                seen.add(version, block);
            }
        }
    });
}

/// Every view (each seat's and a spectator's), the whole event log as each
/// sees it, and an error answer, recorded at the game's current version.
async fn look_everywhere(
    app: &TestApp,
    id: &str,
    players: &[Player],
    spectator: &Player,
    seen: &Seen,
) -> Vec<Value> {
    let mut views = Vec::new();
    for player in players.iter().chain([spectator]) {
        let view = app.view(id, player).await;
        let version = view["version"].as_i64().unwrap();
        seen.add(version, view.to_string());
        let events = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events?limit=500"),
                Some(&player.token),
                None,
            )
            .await;
        seen.add(version, events.body.to_string());
        views.push(view);
    }
    // A refused move: its problem body and legal_moves.
    let refused = app.play(id, spectator, json!({"type": "deal"})).await;
    seen.add(
        views[0]["version"].as_i64().unwrap(),
        refused.body.to_string(),
    );
    let awaited = views[0]["awaiting"]["seats"][0].as_u64().unwrap_or(0) as usize;
    let other = (awaited + 1) % players.len();
    let refused = app.play(id, &players[other], json!({"type": "deal"})).await;
    assert!(refused.status.is_client_error());
    seen.add(
        views[0]["version"].as_i64().unwrap(),
        refused.body.to_string(),
    );
    views
}

fn seat_seeds(value: &Value) -> Vec<Option<SeatSeed>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().map(|s| SeatSeed::parse(s).unwrap()))
        .collect()
}

/// The version at which each deal's seeds were revealed, from the event log.
async fn reveal_versions(app: &TestApp, id: &str, player: &Player) -> Vec<(u64, i64, Value)> {
    let events = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?limit=500"),
            Some(&player.token),
            None,
        )
        .await;
    events.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|event| {
            let seq = event["seq"].as_i64().unwrap();
            event["data"]["revealed"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |r| (r["deal"].as_u64().unwrap(), seq, r))
        })
        .collect()
}

async fn klaverjassen_seeds_show_only_once_their_deal_is_over(db: Db) {
    let app = TestApp::spawn(db).await;
    let mut players = Vec::new();
    for i in 0..4 {
        players.push(app.player(&format!("p{i}")).await);
    }
    let spectator = app.player("spectator").await;
    let id = app
        .table(&players[0], "klaverjassen", json!({"deals": 2}))
        .await;
    let created = app.view(&id, &players[0]).await;
    let commitment = created["fairness"]["commitment"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(commitment.len(), 64);
    assert_eq!(created["fairness"]["chain_length"], 2);
    assert_eq!(
        created["fairness"]["seat_seeds"],
        json!([null, null, null, null])
    );
    assert_eq!(
        app.view(&id, &spectator).await["fairness"]["commitment"],
        commitment
    );

    // The host's seed before the start is in force for deal 1.
    let answer = app
        .play(&id, &players[0], json!({"type": "seed", "value": "AA01"}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["version"], 2);
    assert_eq!(answer.body["fairness"]["seat_seeds"][0], "aa01");
    app.seat_the_rest(&id, &players).await;
    let answer = app
        .play(
            &id,
            &players[1],
            json!({"type": "seed", "value": "0123456789abcdef"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        !answer.body["legal_moves"].to_string().contains("seed"),
        "never a legal move"
    );

    let seen = Seen::default();
    for player in players.iter().chain([&spectator]) {
        watch_stream(&app, &id, player, seen.clone()).await;
    }
    let mut seat_2_sent = false;
    loop {
        let views = look_everywhere(&app, &id, &players, &spectator, &seen).await;
        let view = &views[0];
        if view["status"] == "finished" {
            break;
        }
        // Seat 2 sends its seed in the middle of deal 1: it counts from deal 2.
        if !seat_2_sent && view["klaverjassen"]["phase"] == "playing" {
            let answer = app
                .play(&id, &players[2], json!({"type": "seed", "value": "c0ffee"}))
                .await;
            assert_eq!(answer.status, StatusCode::OK);
            seat_2_sent = true;
            continue;
        }
        let seat = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let mv = views[seat]["legal_moves"][0].clone();
        let answer = app.play(&id, &players[seat], mv).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        seen.add(
            answer.body["version"].as_i64().unwrap(),
            answer.body.to_string(),
        );
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(seen.len() > 100);

    let last = app.view(&id, &players[0]).await;
    let rows = last["klaverjassen"]["deals"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let reveals = reveal_versions(&app, &id, &players[0]).await;
    assert_eq!(reveals.len(), 2);
    let expected_seeds = [
        json!(["aa01", "0123456789abcdef", null, null]),
        json!(["aa01", "0123456789abcdef", "c0ffee", null]),
    ];
    for (row, (deal, revealed_at, revealed)) in rows.iter().zip(&reveals) {
        let k = row["number"].as_u64().unwrap();
        assert_eq!(k, *deal);
        let server_seed = row["server_seed"].as_str().unwrap();
        assert_eq!(revealed["server_seed"], server_seed);
        assert_eq!(
            row["seat_seeds"],
            expected_seeds[k as usize - 1],
            "deal {k}"
        );
        let seed = seed_from_hex(server_seed).unwrap();
        assert_eq!(
            to_hex(&hash_steps(&seed, k as u32)),
            commitment,
            "deal {k} hashes to the commitment"
        );
        seen.assert_absent_before(server_seed, *revealed_at);
        // The hands as dealt follow from the published values.
        let mut deck = canonical_deck();
        DealInputs {
            server_seed: &seed,
            game_id: *uuid::Uuid::parse_str(&id).unwrap().as_bytes(),
            deal: k as u32,
            seat_seeds: &seat_seeds(&row["seat_seeds"]),
        }
        .deck(&mut deck);
        let dealer = Seat(row["dealer"].as_u64().unwrap() as u8);
        let hands = serde_json::to_value(deal_from_deck(&deck, dealer)).unwrap();
        assert_eq!(
            row["hands"], hands,
            "deal {k}'s hands follow from its seeds"
        );
    }
    // The deal event shows the seeds once the deal is over.
    let events = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?limit=500"),
            Some(&spectator.token),
            None,
        )
        .await;
    let deal_event = events.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "deal")
        .unwrap();
    assert_eq!(deal_event["data"]["server_seed"], rows[0]["server_seed"]);
    let created_event = &events.body["events"][0];
    assert_eq!(created_event["data"]["fairness"]["commitment"], commitment);
}

async fn potverteren_rounds_reveal_their_seeds_and_lot_after_settlement(db: Db) {
    for variant in ["auction", "lot"] {
        let app = TestApp::spawn(db).await;
        let (id, players) = app
            .full_table("potverteren", json!({"seats": 5, "variant": variant}), 5)
            .await;
        let spectator = app.player("spectator").await;
        let commitment = app.view(&id, &spectator).await["fairness"]["commitment"]
            .as_str()
            .unwrap()
            .to_owned();
        for seat in [1, 4] {
            let answer = app
                .play(
                    &id,
                    &players[seat],
                    json!({"type": "seed", "value": format!("{seat}f")}),
                )
                .await;
            assert_eq!(answer.status, StatusCode::OK);
        }
        let seen = Seen::default();
        watch_stream(&app, &id, &spectator, seen.clone()).await;
        loop {
            let views = look_everywhere(&app, &id, &players, &spectator, &seen).await;
            let table = &views[0]["potverteren"];
            if table["last_round"]["round"].as_u64().unwrap_or(0) >= 3 {
                break;
            }
            let seat = views[0]["awaiting"]["seats"][0].as_u64().unwrap() as usize;
            let moves = views[seat]["legal_moves"].as_array().unwrap();
            // Bid once, then pass; ask one card, then stand.
            let mv = if moves.contains(&json!({"type": "hit"}))
                && table["hands"][seat]["open_cards"]
                    .as_array()
                    .unwrap()
                    .is_empty()
            {
                json!({"type": "hit"})
            } else if moves.iter().any(|m| m["type"] == "bid")
                && table["auction"]["high_bid"].is_null()
            {
                moves[0].clone()
            } else {
                moves
                    .iter()
                    .find(|m| matches!(m["type"].as_str(), Some("pass" | "stand" | "deal")))
                    .unwrap()
                    .clone()
            };
            let answer = app.play(&id, &players[seat], mv).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            seen.add(
                answer.body["version"].as_i64().unwrap(),
                answer.body.to_string(),
            );
        }
        let reveals = reveal_versions(&app, &id, &spectator).await;
        assert_eq!(reveals.len(), 3, "{variant}");
        let game_id = *uuid::Uuid::parse_str(&id).unwrap().as_bytes();
        for (round, revealed_at, r) in &reveals {
            let server_seed = r["server_seed"].as_str().unwrap();
            let seed = seed_from_hex(server_seed).unwrap();
            assert_eq!(to_hex(&hash_steps(&seed, *round as u32)), commitment);
            // In the lot variant round 1 is drawn the moment the table
            // fills, before anyone could send a seed after the last join.
            let expected = if variant == "lot" && *round == 1 {
                json!([null, null, null, null, null])
            } else {
                json!([null, "1f", null, null, "4f"])
            };
            assert_eq!(r["seat_seeds"], expected, "{variant} round {round}");
            seen.assert_absent_before(server_seed, *revealed_at);
            let seeds = seat_seeds(&r["seat_seeds"]);
            let inputs = DealInputs {
                server_seed: &seed,
                game_id,
                deal: *round as u32,
                seat_seeds: &seeds,
            };
            let pothouder = r["pothouder"].as_u64().unwrap() as u8;
            if variant == "lot" {
                assert_eq!(r["by_lot"], true);
                assert_eq!(inputs.lot(5), pothouder, "the lot is the committed draw");
            }
            let mut deck = full_deck();
            inputs.deck(&mut deck);
            let codes = |v: &Value| v.as_str().unwrap().parse::<Card>().unwrap();
            let mut bottom = deck.len();
            let seats = if variant == "lot" { 5 } else { 4 };
            for (top, step) in (1..=seats).enumerate() {
                let seat = (pothouder + step) % 5;
                let hand = r["hands"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|h| h["seat"] == seat)
                    .unwrap();
                let cards: Vec<Card> = hand["cards"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(codes)
                    .collect();
                assert_eq!(cards[0], deck[top], "the blind cards come from the top");
                for card in &cards[1..] {
                    bottom -= 1;
                    assert_eq!(*card, deck[bottom], "asked cards come from the bottom");
                }
            }
        }
        let last = app.view(&id, &spectator).await;
        let last_round = &last["potverteren"]["last_round"];
        assert_eq!(last_round["server_seed"], reveals[2].2["server_seed"]);
        assert_eq!(
            last_round["seat_seeds"],
            json!([null, "1f", null, null, "4f"])
        );
    }
}

async fn a_seed_is_hex_from_a_seated_player(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app.full_table("klaverjassen", json!({}), 4).await;
    let stranger = app.player("stranger").await;
    for value in ["", "xyz", &"a".repeat(65)] {
        let answer = app
            .play(&id, &players[0], json!({"type": "seed", "value": value}))
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{value}");
        assert_eq!(answer.code(), "validation_failed");
    }
    let answer = app
        .play(
            &id,
            &players[0],
            json!({"type": "seed", "value": "ab", "extra": 1}),
        )
        .await;
    assert_eq!(answer.code(), "validation_failed");
    let answer = app
        .play(&id, &stranger, json!({"type": "seed", "value": "ab"}))
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.code(), "not_seated");
    let answer = app
        .play(
            &id,
            &players[3],
            json!({"type": "seed", "value": "a".repeat(64)}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["fairness"]["seat_seeds"][3], "a".repeat(64));
}

async fn a_seat_seed_goes_with_its_player_when_it_leaves_before_the_start(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let guest = app.player("guest").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    app.send(
        Method::POST,
        &format!("/v1/games/{id}/seats"),
        Some(&guest.token),
        None,
    )
    .await;
    let answer = app
        .play(&id, &guest, json!({"type": "seed", "value": "12"}))
        .await;
    assert_eq!(answer.body["fairness"]["seat_seeds"][1], "12");
    let answer = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{id}/seats/me"),
            Some(&guest.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["fairness"]["seat_seeds"][1], Value::Null);
}

on_both_databases!(
    klaverjassen_seeds_show_only_once_their_deal_is_over,
    potverteren_rounds_reveal_their_seeds_and_lot_after_settlement,
    a_seed_is_hex_from_a_seated_player,
    a_seat_seed_goes_with_its_player_when_it_leaves_before_the_start,
);
