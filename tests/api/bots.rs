//! Computer players and turn clocks (API.md "Computer players and clocks"):
//! a person plays whole games against `basic` players, never sees a hidden
//! card, and a clock running out makes the seat's move and marks it away.

use std::sync::Arc;

use kaarttafel::clock::ManualClock;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, StreamViews, TestApp, cards_outside};

/// The move a simple person makes: the first turn move (never a club-mode
/// report or take-back, never ending a Potverteren table); a Potverteren
/// person passes in auctions and stands.
fn person_move(view: &Value) -> Option<Value> {
    let moves = view["legal_moves"].as_array()?;
    let pick = |t: &str| moves.iter().find(|m| m["type"] == t).cloned();
    pick("deal")
        .or_else(|| pick("choose_trump"))
        .or_else(|| pick("play"))
        .or_else(|| pick("end_review"))
        .or_else(|| pick("pass"))
        .or_else(|| pick("stand"))
}

/// Fails when the person's Klaverjassen view holds a card outside its own
/// hand, the tricks on the table, the score sheet's public history and its
/// legal moves.
fn assert_no_hidden_klaverjassen_card(view: &Value) {
    let leaked = cards_outside(
        view,
        &[
            "/klaverjassen/hand",
            "/klaverjassen/trick",
            "/klaverjassen/previous_trick",
            "/klaverjassen/review_tricks",
            "/klaverjassen/deals",
            "/legal_moves",
        ],
    );
    assert!(leaked.is_empty(), "hidden cards {leaked:?} in {view}");
}

/// Fails when the person's Potverteren view shows another seat's blind card
/// or total.
fn assert_no_hidden_potverteren_card(view: &Value, me: usize) {
    for hand in view["potverteren"]["hands"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if hand["seat"] != json!(me) {
            assert_eq!(hand["blind_card"], Value::Null, "{view}");
            assert_eq!(hand["total"], Value::Null, "{view}");
        }
    }
}

impl StreamViews {
    /// Every view sent up to and including `version` (waiting for it while
    /// the stream keeps sending: it gives up after 30 s without a new view,
    /// so a slow machine does not fail a stream that is still catching up),
    /// then the stream is closed.
    async fn until(self, version: i64) -> Vec<Value> {
        let (mut received, mut idle) = (0, 0);
        while idle < 600 {
            let (count, seen) = {
                let views = self.views.lock().unwrap();
                (
                    views.len(),
                    views.last().and_then(|v| v["version"].as_i64()),
                )
            };
            if seen.is_some_and(|v| v >= version) {
                break;
            }
            if count > received {
                (received, idle) = (count, 0);
            } else {
                idle += 1;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        self.reader.abort();
        let views = std::mem::take(&mut *self.views.lock().unwrap());
        let last = views.last().and_then(|v| v["version"].as_i64());
        assert!(
            last.is_some_and(|v| v >= version),
            "the stream reached version {last:?}, not {version}"
        );
        views
    }
}

async fn create(app: &TestApp, host: &Player, body: Value) -> Value {
    let answer = app
        .send(Method::POST, "/v1/games", Some(&host.token), Some(body))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.body
}

/// Game `id`'s whole event log as `player` reads it, oldest first.
async fn event_log(app: &TestApp, id: &str, player: &Player) -> Vec<Value> {
    let mut after = 0;
    let mut log = Vec::new();
    loop {
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events?after={after}&limit=500"),
                Some(&player.token),
                None,
            )
            .await;
        let events = answer.body["events"].as_array().unwrap().clone();
        if events.is_empty() {
            return log;
        }
        log.extend(events);
        after = answer.body["next_after"].as_i64().unwrap();
    }
}

/// The event log is complete: seq 1..=version with no gap, and every entry
/// names who made it.
async fn assert_event_log_complete(app: &TestApp, id: &str, player: &Player, version: i64) {
    let mut seqs = Vec::new();
    let mut by_bot = 0;
    for event in event_log(app, id, player).await {
        seqs.push(event["seq"].as_i64().unwrap());
        assert!(
            ["player", "bot", "clock"].contains(&event["by"].as_str().unwrap()),
            "{event}"
        );
        by_bot += usize::from(event["by"] == "bot");
    }
    // The computer players may have moved on since `version`.
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    assert!(seqs.len() as i64 >= version);
    assert!(by_bot > 0, "no move by a computer player");
}

async fn plays_a_whole_match_against_three_basic_players(db: Db, revoke_mode: &str) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let created = create(
        &app,
        &anne,
        json!({"game": "klaverjassen",
               "options": {"revoke_mode": revoke_mode, "bot_delay_ms": 0},
               "bots": [{"seat": 1, "level": "basic"}, {"seat": 2, "level": "strong"},
                        {"seat": 3, "level": "basic"}]}),
    )
    .await;
    assert_eq!(created["status"], "playing");
    assert_eq!(created["seats"][1]["bot"], "basic");
    assert_eq!(created["seats"][2]["bot"], "strong");
    assert_eq!(created["seats"][0]["bot"], Value::Null);
    assert_eq!(created["seats"][0]["away"], false);
    let id = created["id"].as_str().unwrap().to_owned();
    let stream = StreamViews::open(&app, &id, &anne).await;
    let mut view = created;
    while view["status"] == "playing" {
        assert_no_hidden_klaverjassen_card(&view);
        view = match person_move(&view) {
            Some(mv) => {
                let answer = app.play(&id, &anne, mv).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                answer.body
            }
            None => {
                let version = view["version"].as_i64().unwrap();
                app.view_after(&id, &anne, version).await
            }
        };
    }
    assert_eq!(view["status"], "finished");
    assert_eq!(view["klaverjassen"]["deals"].as_array().unwrap().len(), 16);
    assert_no_hidden_klaverjassen_card(&view);
    let version = view["version"].as_i64().unwrap();
    let streamed = stream.until(version).await;
    assert!(streamed.len() > 16, "{} stream events", streamed.len());
    for streamed in &streamed {
        assert_eq!(streamed["you"], 0, "{streamed}");
        assert_no_hidden_klaverjassen_card(streamed);
    }
    assert_event_log_complete(&app, &id, &anne, version).await;
}

async fn a_person_plays_a_whole_enforced_match_against_three_basic_players(db: Db) {
    plays_a_whole_match_against_three_basic_players(db, "enforced").await;
}

async fn a_person_plays_a_whole_club_match_against_three_basic_players(db: Db) {
    plays_a_whole_match_against_three_basic_players(db, "club").await;
}

async fn plays_twenty_potverteren_rounds_with_six_basic_players(db: Db, variant: &str) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bots: Vec<Value> = (1..7)
        .map(|seat| json!({"seat": seat, "level": "basic"}))
        .collect();
    let created = create(
        &app,
        &anne,
        json!({"game": "potverteren",
               "options": {"seats": 7, "variant": variant, "bot_delay_ms": 0},
               "bots": bots}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let stream = StreamViews::open(&app, &id, &anne).await;
    let mut view = created;
    while view["potverteren"]["last_round"]["round"]
        .as_u64()
        .unwrap_or(0)
        < 20
    {
        assert_eq!(view["status"], "playing", "{view}");
        assert_no_hidden_potverteren_card(&view, 0);
        view = match person_move(&view) {
            Some(mv) => {
                let answer = app.play(&id, &anne, mv).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                answer.body
            }
            None => {
                let version = view["version"].as_i64().unwrap();
                app.view_after(&id, &anne, version).await
            }
        };
    }
    let balances: i64 = view["potverteren"]["balances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_i64().unwrap())
        .sum();
    let pot = view["potverteren"]["pot"].as_i64().unwrap();
    assert_eq!(balances + pot, 700, "chips are conserved");
    assert_no_hidden_potverteren_card(&view, 0);
    let version = view["version"].as_i64().unwrap();
    let streamed = stream.until(version).await;
    assert!(streamed.len() > 20, "{} stream events", streamed.len());
    for streamed in &streamed {
        assert_eq!(streamed["you"], 0, "{streamed}");
        assert_no_hidden_potverteren_card(streamed, 0);
    }
    assert_event_log_complete(&app, &id, &anne, version).await;
}

async fn a_person_plays_twenty_auction_rounds_with_six_basic_players(db: Db) {
    plays_twenty_potverteren_rounds_with_six_basic_players(db, "auction").await;
}

async fn a_person_plays_twenty_lot_rounds_with_six_basic_players(db: Db) {
    plays_twenty_potverteren_rounds_with_six_basic_players(db, "lot").await;
}

/// A new table's request names all its seats: one asked for twice is a bad
/// request (422), and no table is made.
async fn a_new_table_asking_a_seat_for_the_host_and_a_bot_is_refused(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    for body in [
        json!({"game": "klaverjassen", "seat": 0, "bots": [{"seat": 0, "level": "basic"}]}),
        json!({"game": "klaverjassen", "bots": [{"seat": 2, "level": "basic"}, {"seat": 2, "level": "basic"}]}),
    ] {
        let refused = app
            .send(Method::POST, "/v1/games", Some(&anne.token), Some(body))
            .await;
        assert_eq!(
            (refused.status, refused.code()),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            "{}",
            refused.body
        );
    }
    let mine = app
        .send(Method::GET, "/v1/players/me/games", Some(&anne.token), None)
        .await;
    assert_eq!(mine.body["items"], json!([]), "{}", mine.body);
}

async fn only_the_host_seats_and_removes_computer_players_before_the_start(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let bob = app.player("Bob").await;
    let id = app
        .table(&anne, "klaverjassen", json!({"bot_delay_ms": 0}))
        .await;
    let path = format!("/v1/games/{id}/bots");
    let body = json!({"seat": 1, "level": "basic"});
    let refused = app
        .send(Method::POST, &path, Some(&bob.token), Some(body.clone()))
        .await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::FORBIDDEN, "forbidden")
    );
    let seated = app
        .send(Method::POST, &path, Some(&anne.token), Some(body.clone()))
        .await;
    assert_eq!(seated.status, StatusCode::CREATED, "{}", seated.body);
    assert_eq!(seated.body["seats"][1]["bot"], "basic");
    let taken = app
        .send(Method::POST, &path, Some(&anne.token), Some(body))
        .await;
    assert_eq!(
        (taken.status, taken.code()),
        (StatusCode::CONFLICT, "seat_taken")
    );
    let unknown = app
        .send(
            Method::POST,
            &path,
            Some(&anne.token),
            Some(json!({"level": "grandmaster"})),
        )
        .await;
    assert_eq!(
        (unknown.status, unknown.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed")
    );
    let removed = app
        .send(
            Method::DELETE,
            &format!("{path}/1"),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.body);
    assert_eq!(removed.body["seats"][1]["player"], Value::Null);
    for seat in 1..4 {
        let answer = app
            .send(
                Method::POST,
                &path,
                Some(&anne.token),
                Some(json!({"level": "basic"})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        assert_eq!(answer.body["seats"][seat]["bot"], "basic");
    }
    let started = app
        .send(
            Method::DELETE,
            &format!("{path}/1"),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(
        (started.status, started.code()),
        (StatusCode::CONFLICT, "game_started")
    );
}

/// A retry of `POST …/bots` with the same Idempotency-Key answers exactly
/// as the first time, 201 included, and seats no second computer player.
async fn a_replayed_request_for_a_computer_player_answers_201_like_the_first(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let id = app.table(&anne, "klaverjassen", json!({})).await;
    let path = format!("/v1/games/{id}/bots");
    let body = json!({"level": "basic"});
    let key = [("Idempotency-Key", "bot-1")];
    let first = app
        .send_with(
            Method::POST,
            &path,
            Some(&anne.token),
            Some(body.clone()),
            &key,
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = app
        .send_with(Method::POST, &path, Some(&anne.token), Some(body), &key)
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body, first.body);
    assert_eq!(again.headers["etag"], first.headers["etag"]);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let view = app.view(&id, &anne).await;
    assert_eq!(view["version"], first.body["version"]);
    let bots = view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["bot"] == "basic")
        .count();
    assert_eq!(bots, 1);
}

async fn table_options_out_of_range_are_refused(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    for options in [
        json!({"turn_seconds": 4}),
        json!({"turn_seconds": 3601}),
        json!({"bot_delay_ms": 10001}),
        json!({"hints": "yes"}),
    ] {
        let answer = app
            .send(
                Method::POST,
                "/v1/games",
                Some(&anne.token),
                Some(json!({"game": "potverteren", "options": options})),
            )
            .await;
        assert_eq!(
            (answer.status, answer.code()),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            "{options}"
        );
    }
    let answer = create(
        &app,
        &anne,
        json!({"game": "potverteren", "options": {"turn_seconds": 30}}),
    )
    .await;
    assert_eq!(answer["options"]["turn_seconds"], 30);
    assert_eq!(answer["options"]["bot_delay_ms"], 800);
    assert_eq!(answer["options"]["hints"], false);
}

/// Moves the clock past the deadline and returns the view once the clock's
/// move is made.
async fn run_out_the_clock(
    app: &TestApp,
    clock: &ManualClock,
    id: &str,
    viewer: &Player,
    view: &Value,
) -> Value {
    assert!(view["awaiting"]["deadline"].is_string(), "{view}");
    let version = view["version"].as_i64().unwrap();
    clock.advance(31.0);
    app.view_after(id, viewer, version).await
}

/// Every away seat's player says it is back; returns the fresh view.
async fn all_back(app: &TestApp, id: &str, players: &[Player]) -> Value {
    let view = app.view(id, &players[0]).await;
    for (seat, player) in players.iter().enumerate() {
        if view["seats"][seat]["away"] == true {
            let answer = app
                .send(
                    Method::POST,
                    &format!("/v1/games/{id}/seats/me/back"),
                    Some(&player.token),
                    None,
                )
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        }
    }
    app.view(id, &players[0]).await
}

async fn last_event(app: &TestApp, id: &str, player: &Player, version: i64) -> Value {
    let answer = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?after={}", version - 1),
            Some(&player.token),
            None,
        )
        .await;
    answer.body["events"][0].clone()
}

/// Lets the clock run out at every turn a person is awaited until `playing`
/// says the game is past what the test needs: each time, the clock's move is
/// one event made `by: clock` for an awaited seat, and that seat is away.
/// Every seat is back before each turn, and an away seat's move (made at
/// once) is waited for. Returns the last view and the actions timed out.
async fn run_out_every_clock(
    app: &TestApp,
    clock: &ManualClock,
    id: &str,
    players: &[Player],
    playing: impl Fn(&Value) -> bool,
) -> (Value, std::collections::BTreeSet<String>) {
    let watcher = &players[0];
    let mut view = app.view(id, watcher).await;
    let mut kinds = std::collections::BTreeSet::new();
    while playing(&view) {
        view = all_back(app, id, players).await;
        if !playing(&view) {
            break;
        }
        let action = view["awaiting"]["action"].as_str().unwrap().to_owned();
        let awaited = view["awaiting"]["seats"].clone();
        let first = awaited[0].as_u64().unwrap() as usize;
        if view["seats"][first]["away"] == true {
            // An away seat's move is made at once.
            let version = view["version"].as_i64().unwrap();
            view = app.view_after(id, watcher, version).await;
            continue;
        }
        view = run_out_the_clock(app, clock, id, watcher, &view).await;
        let version = view["version"].as_i64().unwrap();
        let event = last_event(app, id, watcher, version).await;
        assert_eq!(event["by"], "clock", "{event}");
        assert!(
            awaited.as_array().unwrap().contains(&event["seat"]),
            "{event} {awaited}"
        );
        let seat = event["seat"].as_u64().unwrap() as usize;
        assert_eq!(view["seats"][seat]["away"], true, "{view}");
        kinds.insert(action);
    }
    (view, kinds)
}

async fn a_clock_running_out_moves_for_the_seat_at_each_klaverjassen_turn(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"revoke_mode": "club", "deals": 1, "turn_seconds": 30, "bot_delay_ms": 0}),
            4,
        )
        .await;
    let (view, kinds) = run_out_every_clock(&app, &clock, &id, &players, |view| {
        view["status"] == "playing"
    })
    .await;
    assert_eq!(view["status"], "finished");
    assert!(
        ["deal", "choose_trump", "play", "end_review"]
            .iter()
            .all(|k| kinds.contains(*k)),
        "{kinds:?}"
    );
}

async fn a_clock_running_out_moves_for_the_seat_at_each_potverteren_turn(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let (id, players) = app
        .full_table(
            "potverteren",
            json!({"turn_seconds": 30, "bot_delay_ms": 0}),
            5,
        )
        .await;
    let (_, kinds) = run_out_every_clock(&app, &clock, &id, &players, |view| {
        view["potverteren"]["last_round"].is_null()
    })
    .await;
    assert!(
        ["bid", "deal", "hit_or_stand"]
            .iter()
            .all(|k| kinds.contains(*k)),
        "{kinds:?}"
    );
}

async fn an_away_player_is_back_after_a_move_or_saying_so(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let created = create(
        &app,
        &anne,
        json!({"game": "klaverjassen",
               "options": {"turn_seconds": 30, "bot_delay_ms": 0, "first_dealer": 0},
               "bots": [{"seat": 1, "level": "basic"}, {"seat": 2, "level": "basic"},
                        {"seat": 3, "level": "basic"}]}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    // Anne deals; her clock runs out.
    assert_eq!(created["awaiting"]["action"], "deal");
    let view = run_out_the_clock(&app, &clock, &id, &anne, &created).await;
    assert_eq!(view["seats"][0]["away"], true);
    let back = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats/me/back"),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(back.status, StatusCode::OK, "{}", back.body);
    assert_eq!(back.body["seats"][0]["away"], false);
    // Back again, not away: the view as it is, no new version or event.
    let again = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats/me/back"),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    // (The computer players may have moved meanwhile: no `back` event is
    // what says that nothing was changed by it.)
    let since = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?after={}", back.body["version"]),
            Some(&anne.token),
            None,
        )
        .await;
    let kinds: Vec<&Value> = since.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| &event["kind"])
        .collect();
    assert!(!kinds.contains(&&json!("back")), "{kinds:?}");
    let stranger = app.player("Stranger").await;
    let refused = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats/me/back"),
            Some(&stranger.token),
            None,
        )
        .await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::FORBIDDEN, "not_seated")
    );
}

async fn a_seed_or_a_back_does_not_restart_the_clock_but_a_move_does(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"turn_seconds": 30, "first_dealer": 3}),
            4,
        )
        .await;
    let view = app.view(&id, &players[0]).await;
    assert_eq!(view["awaiting"]["seats"], json!([3]));
    let deadline = view["awaiting"]["deadline"].clone();
    assert!(deadline.is_string(), "{view}");
    clock.advance(20.0);
    // The awaited dealer sends seeds, another seat says it is back: the
    // game stays where it was, and so does the dealer's deadline.
    for value in ["c0ffee", "c0ffe1", "c0ffe2"] {
        let answer = app
            .play(&id, &players[3], json!({"type": "seed", "value": value}))
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.body["awaiting"]["deadline"], deadline);
    }
    let back = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats/me/back"),
            Some(&players[1].token),
            None,
        )
        .await;
    assert_eq!(back.status, StatusCode::OK, "{}", back.body);
    assert_eq!(back.body["awaiting"]["deadline"], deadline);
    // The 30 seconds run out from the dealer's turn, not from the seeds.
    let version = back.body["version"].as_i64().unwrap();
    clock.advance(11.0);
    let view = app.view_after(&id, &players[0], version).await;
    let event = last_event(&app, &id, &players[0], view["version"].as_i64().unwrap()).await;
    assert_eq!((&event["by"], &event["seat"]), (&json!("clock"), &json!(3)));
    assert_eq!(view["seats"][3]["away"], true);
    // A move sets a new deadline for the next awaited seat.
    let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    let before = view["awaiting"]["deadline"].clone();
    clock.advance(5.0);
    let answer = app
        .play(
            &id,
            &players[chooser],
            json!({"type": "choose_trump", "suit": "H"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_ne!(answer.body["awaiting"]["deadline"], before);
}

async fn a_potverteren_table_everyone_left_ends_when_the_next_round_may_begin(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let bots: Vec<Value> = (1..5)
        .map(|seat| json!({"seat": seat, "level": "basic"}))
        .collect();
    let created = create(
        &app,
        &anne,
        json!({"game": "potverteren",
               "options": {"variant": "lot", "auto_deal": true, "turn_seconds": 30,
                           "bot_delay_ms": 0},
               "bots": bots}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    // The computer players play until Anne is awaited; her clock runs out.
    let mut view = created;
    while !view["awaiting"]["seats"]
        .as_array()
        .is_some_and(|seats| seats.contains(&json!(0)))
    {
        let version = view["version"].as_i64().unwrap();
        view = app.view_after(&id, &anne, version).await;
    }
    view = run_out_the_clock(&app, &clock, &id, &anne, &view).await;
    assert_eq!(view["seats"][0]["away"], true);
    // Nobody is at the table any more: the round is played out, and when
    // the next one may begin the table ends, as its host would end it.
    for _ in 0..200 {
        if view["status"] == "finished" {
            break;
        }
        let version = view["version"].as_i64().unwrap();
        view = app.view_after(&id, &anne, version).await;
    }
    assert_eq!(view["status"], "finished", "{view}");
    assert_eq!(view["potverteren"]["last_round"]["round"], 1, "{view}");
    let event = last_event(&app, &id, &anne, view["version"].as_i64().unwrap()).await;
    assert_eq!(
        (&event["by"], &event["seat"], &event["data"]["type"]),
        (&json!("clock"), &json!(0), &json!("end_table")),
        "{event}"
    );
}

async fn a_table_left_waiting_a_day_is_abandoned(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let id = app.table(&anne, "potverteren", json!({})).await;
    let view = app.view(&id, &anne).await;
    assert_eq!(view["status"], "waiting");
    clock.advance(23.0 * 3600.0);
    let lobby = app
        .send(Method::GET, "/v1/games", Some(&anne.token), None)
        .await;
    assert_eq!(lobby.body["items"].as_array().unwrap().len(), 1);
    clock.advance(3600.0);
    let view = app.view_after(&id, &anne, 1).await;
    assert_eq!(view["status"], "abandoned");
    assert_eq!(view["awaiting"], Value::Null);
    let event = last_event(&app, &id, &anne, 2).await;
    assert_eq!(
        (event["kind"].clone(), event["by"].clone()),
        (json!("abandoned"), json!("clock"))
    );
    let lobby = app
        .send(Method::GET, "/v1/games", Some(&anne.token), None)
        .await;
    assert_eq!(lobby.body["items"].as_array().unwrap().len(), 0);
}

/// Plays a one-deal match of a person against three computer players,
/// sending the person's moves to `apps` in turn; returns the final version.
async fn play_against_bots_on(apps: &[&TestApp], id: &str, anne: &Player) -> i64 {
    let mut turn = 0;
    let mut view = apps[0].view(id, anne).await;
    while view["status"] == "playing" {
        let app = apps[turn % apps.len()];
        turn += 1;
        view = match person_move(&view) {
            Some(mv) => {
                let answer = app.play(id, anne, mv).await;
                match answer.status {
                    StatusCode::OK => answer.body,
                    // A computer player moved first: read again.
                    _ => app.view(id, anne).await,
                }
            }
            None => {
                let version = view["version"].as_i64().unwrap();
                app.view_after(id, anne, version).await
            }
        };
    }
    view["version"].as_i64().unwrap()
}

/// Every automatic move is applied exactly once when two instances share
/// one database: every table finishes, and its event log has no gap and no
/// duplicate (sequence numbers are the versions; a duplicate move would be
/// refused by the rules or show as a second event for one turn).
async fn two_instances_make_every_automatic_move_exactly_once(db: Db) {
    if db == Db::Sqlite {
        return; // One process per SQLite file.
    }
    let first = TestApp::spawn(db).await;
    let second = first.second_instance().await;
    let mut tables = Vec::new();
    for n in 0..40 {
        let anne = first.player(&format!("Anne {n}")).await;
        let created = create(
            &first,
            &anne,
            json!({"game": "klaverjassen",
                   "options": {"deals": 1, "bot_delay_ms": 0},
                   "bots": [{"level": "basic"}, {"level": "basic"}, {"level": "basic"}]}),
        )
        .await;
        tables.push((created["id"].as_str().unwrap().to_owned(), anne));
    }
    let plays = tables.iter().enumerate().map(|(n, (id, anne))| {
        let (first, second) = (&first, &second);
        async move {
            let apps: [&TestApp; 2] = if n % 2 == 0 {
                [first, second]
            } else {
                [second, first]
            };
            play_against_bots_on(&apps, id, anne).await
        }
    });
    let versions = futures_util::future::join_all(plays).await;
    for ((id, anne), version) in tables.iter().zip(versions) {
        let view = first.view(id, anne).await;
        assert_eq!(view["status"], "finished");
        assert_eq!(view["klaverjassen"]["deals"].as_array().unwrap().len(), 1);
        assert_event_log_complete(&first, id, anne, version).await;
    }
    // One instance stops mid-game: the other finishes every table.
    let mut tables = Vec::new();
    for n in 0..10 {
        let anne = first.player(&format!("Bea {n}")).await;
        let created = create(
            &second,
            &anne,
            json!({"game": "klaverjassen",
                   "options": {"deals": 1, "bot_delay_ms": 0},
                   "bots": [{"level": "basic"}, {"level": "basic"}, {"level": "basic"}]}),
        )
        .await;
        tables.push((created["id"].as_str().unwrap().to_owned(), anne));
    }
    second.stop().await;
    for (id, anne) in &tables {
        let version = play_against_bots_on(&[&first], id, anne).await;
        assert_event_log_complete(&first, id, anne, version).await;
    }
}

/// An event's time, Unix microseconds.
fn event_time(event: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(event["at"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{event}: {e}"))
        .timestamp_micros()
}

/// A computer player's move is made its time for a move (`BOT_MOVE_MS`)
/// after it falls due, however long it thought (docs/bots.md, "Pacing"):
/// over more than 100 moves of strong players, the time from due (the
/// change before, as the tables' `bot_delay_ms` is 0) to move in the event
/// log is the same, within 10 ms, when the card was forced (the last
/// trick's, one card in hand) as when the player chose (a lead from a hand
/// of several cards, any of which may be led). Every event's time is a
/// whole millisecond.
async fn a_strong_players_decision_time_does_not_show_in_its_events(db: Db) {
    // The default. Five strong players think at once here, in a debug
    // build: many a decision does not end in time, and its move is the
    // basic player's, made at the same time.
    const BOT_MOVE_MS: u64 = 400;
    let (database, scratch) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.bot_move = std::time::Duration::from_millis(BOT_MOVE_MS);
    // The trump choice at its own default time too, so that no decision
    // here is made as soon as it is decided.
    settings.bot_trump = kaarttafel::config::DEFAULT_BOT_TRUMP;
    let app = TestApp::start(settings, scratch).await;
    // Five one-deal tables at once: 120 moves of computer players. The
    // person deals first and lets the clock run out: then the scheduler
    // makes every move (hers at once, as she is away), so that no move
    // falls due while a request is still being written.
    let plays = (0..5).map(|n| {
        let app = &app;
        async move {
            let anne = app.player(&format!("Anne {n}")).await;
            let created = create(
                app,
                &anne,
                json!({"game": "klaverjassen",
                       "options": {"deals": 1, "revoke_mode": "enforced", "bot_delay_ms": 0,
                                   "turn_seconds": 5, "first_dealer": 0},
                       "bots": [{"level": "strong"}, {"level": "strong"}, {"level": "strong"}]}),
            )
            .await;
            let id = created["id"].as_str().unwrap().to_owned();
            let mut view = created;
            while view["status"] == "playing" {
                let version = view["version"].as_i64().unwrap();
                view = app.view_after(&id, &anne, version).await;
            }
            assert_eq!(view["status"], "finished", "{view}");
            event_log(app, &id, &anne).await
        }
    });
    let (mut forced, mut chosen, mut every) = (Vec::new(), Vec::new(), Vec::new());
    for log in futures_util::future::join_all(plays).await {
        let mut played = 0;
        for pair in log.windows(2) {
            let (before, event) = (&pair[0], &pair[1]);
            if event["kind"] == "deal" {
                played = 0;
            }
            let play = event["data"]["type"] == "play";
            if event["by"] == "bot" {
                let due_to_move = event_time(event) - event_time(before);
                every.push(due_to_move);
                let trick = played / 4;
                if play && trick == 7 {
                    forced.push(due_to_move);
                } else if play && played % 4 == 0 {
                    chosen.push(due_to_move);
                }
            }
            played += usize::from(play);
        }
        for event in &log {
            assert_eq!(
                event_time(event) % 1000,
                0,
                "not a whole millisecond: {event}"
            );
        }
    }
    assert!(
        every.len() >= 100,
        "{} moves of computer players",
        every.len()
    );
    assert!(
        !forced.is_empty() && !chosen.is_empty(),
        "{forced:?} {chosen:?}"
    );
    // Medians, not means: one move the busy test machine picked up late
    // would move a mean of a few samples, never what a decision costs.
    let median = |times: &mut Vec<i64>| {
        times.sort_unstable();
        times[times.len() / 2]
    };
    assert_eq!(
        median(&mut forced),
        median(&mut chosen),
        "from due to move (µs), forced: {forced:?}; chosen: {chosen:?}"
    );
    // Most moves come exactly their time after they fell due (a few later,
    // when the busy test machine picked them up late).
    every.sort_unstable();
    assert_eq!(
        every[every.len() / 2],
        BOT_MOVE_MS as i64 * 1000,
        "{every:?}"
    );
}

/// `kaarttafel_bot_moves_over_budget_total` of an instance.
async fn moves_over_budget(app: &TestApp) -> u64 {
    let metrics = app.metrics().await;
    let line = metrics
        .lines()
        .find(|line| line.starts_with("kaarttafel_bot_moves_over_budget_total "))
        .unwrap_or_else(|| panic!("no over-budget counter in {metrics}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// At the trump choice a computer player has the trump choice's time
/// (`BOT_TRUMP_MS`), not a card's (`BOT_MOVE_MS`), and the strong player
/// names trump or passes by its own valuation of every suit and the pass
/// (docs/bots.md, "Pacing"): under `pass_round`, each strong player's trump
/// decision is made exactly its trump time after it fell due, and not one
/// is the `basic` player's made for want of time (which the over-budget
/// counter counts, as it counts the strong player falling back on `basic`
/// when it solved no sampled deal in time). The strong player's valuation
/// takes seconds in a debug build, far longer than the 400 ms a card has:
/// given only that, it would fall back at every trump choice.
async fn a_strong_player_names_trump_or_passes_by_its_own_valuation_in_its_trump_time(db: Db) {
    // The default in a release build; the debug build's solver is about
    // twenty times slower, so it gets a time that fits its valuation.
    let bot_trump = if cfg!(debug_assertions) {
        std::time::Duration::from_secs(8)
    } else {
        kaarttafel::config::DEFAULT_BOT_TRUMP
    };
    let (database, scratch) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.bot_move = kaarttafel::config::DEFAULT_BOT_MOVE;
    settings.bot_trump = bot_trump;
    let app = TestApp::start(settings, scratch).await;
    let anne = app.player("Anne").await;
    // Anne is the voorhand: she decides first and leads the first trick,
    // so the table waits for her once trump is named, and no card of a
    // computer player is decided while the counter is read.
    let created = create(
        &app,
        &anne,
        json!({"game": "klaverjassen",
               "options": {"deals": 1, "trump_choice": "pass_round", "auto_deal": true,
                           "first_dealer": 3, "bot_delay_ms": 0},
               "bots": [{"level": "strong"}, {"level": "strong"}, {"level": "strong"}]}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let mut view = created;
    while view["klaverjassen"]["phase"] == "choosing_trump" {
        if view["awaiting"]["seats"] == json!([0]) {
            // She passes, so that every computer player decides; when all
            // passed she must name trump.
            let moves = view["legal_moves"].as_array().unwrap();
            let mv = moves
                .iter()
                .find(|m| m["type"] == "pass")
                .or_else(|| moves.iter().find(|m| m["type"] == "choose_trump"))
                .unwrap()
                .clone();
            let answer = app.play(&id, &anne, mv).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            view = answer.body;
        } else {
            let version = view["version"].as_i64().unwrap();
            view = app.view_after(&id, &anne, version).await;
        }
    }
    assert_eq!(view["klaverjassen"]["phase"], "playing", "{view}");
    assert_eq!(view["awaiting"]["seats"], json!([0]), "{view}");
    let log = event_log(&app, &id, &anne).await;
    let decisions: Vec<i64> = log
        .windows(2)
        .filter(|pair| {
            let kind = &pair[1]["data"]["type"];
            pair[1]["by"] == "bot" && (kind == "pass" || kind == "choose_trump")
        })
        .map(|pair| event_time(&pair[1]) - event_time(&pair[0]))
        .collect();
    assert!(!decisions.is_empty(), "{log:?}");
    let trump_time = i64::try_from(bot_trump.as_micros()).unwrap();
    assert!(
        decisions.iter().all(|after| *after == trump_time),
        "from due to trump decision (µs): {decisions:?}"
    );
    assert_eq!(moves_over_budget(&app).await, 0, "{decisions:?}");
}

on_both_databases!(
    a_person_plays_a_whole_enforced_match_against_three_basic_players,
    a_person_plays_a_whole_club_match_against_three_basic_players,
    a_person_plays_twenty_auction_rounds_with_six_basic_players,
    a_person_plays_twenty_lot_rounds_with_six_basic_players,
    a_new_table_asking_a_seat_for_the_host_and_a_bot_is_refused,
    only_the_host_seats_and_removes_computer_players_before_the_start,
    table_options_out_of_range_are_refused,
    a_replayed_request_for_a_computer_player_answers_201_like_the_first,
    a_clock_running_out_moves_for_the_seat_at_each_klaverjassen_turn,
    a_clock_running_out_moves_for_the_seat_at_each_potverteren_turn,
    an_away_player_is_back_after_a_move_or_saying_so,
    a_seed_or_a_back_does_not_restart_the_clock_but_a_move_does,
    a_potverteren_table_everyone_left_ends_when_the_next_round_may_begin,
    a_table_left_waiting_a_day_is_abandoned,
    two_instances_make_every_automatic_move_exactly_once,
    a_strong_players_decision_time_does_not_show_in_its_events,
    a_strong_player_names_trump_or_passes_by_its_own_valuation_in_its_trump_time,
);
