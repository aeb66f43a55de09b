//! Bounded storage: idempotency answers expire, idle guests with no game
//! are removed, waiting tables are closed, by a job that runs on one
//! instance at a time and is counted in `/metrics`. Time is a hand-moved
//! clock.

use std::sync::Arc;
use std::time::Duration;

use kaarttafel::clock::{Clock, ManualClock};
use kaarttafel::jobs::cleanup::{Policy, run_if_free};
use kaarttafel::store::games::RecordJson;
use kaarttafel::store::idempotency::{self, Recorded, StoredResponse, TTL_MICROS};
use kaarttafel::store::notifications::{self, Notification, SubscriptionRow};
use kaarttafel::store::{Store, cleanup, events, games, players};
use reqwest::{Method, StatusCode};
use serde_json::json;
use uuid::Uuid;

use crate::on_both_databases;
use crate::support::{Db, TestApp, fresh_database};

const HOUR: f64 = 3600.0;

/// A second connection to the app's database, for what no endpoint shows.
async fn store_of(app: &TestApp) -> Store {
    Store::connect(&app.settings.database, Duration::from_secs(2))
        .await
        .expect("connect to the app's database")
}

/// Waits until this instance has run the cleanup job `runs` times.
async fn runs_reach(app: &TestApp, runs: f64) {
    for _ in 0..600 {
        if app.metric("kaarttafel_cleanup_runs_total ").await >= runs {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the cleanup job did not run {runs} times");
}

fn answer(hash: &str) -> StoredResponse {
    StoredResponse {
        request_hash: hash.into(),
        status: 201,
        headers: "[]".into(),
        body: format!("{{\"hash\":\"{hash}\"}}"),
    }
}

async fn an_idempotency_answer_is_never_replayed_after_24_hours_even_before_cleanup(db: Db) {
    let (database, _scratch) = fresh_database(db).await;
    let store = Store::connect(&database, Duration::from_secs(2))
        .await
        .unwrap();
    let mut conn = store.acquire().await.unwrap();
    let player = Uuid::new_v4();
    players::insert(&mut conn, player, "Sanne").await.unwrap();
    let t0 = 1_000_000_000_000_000;
    assert_eq!(
        idempotency::insert(&mut conn, player, "k", &answer("first"), t0)
            .await
            .unwrap(),
        Recorded::Yes
    );
    assert_eq!(
        idempotency::insert(&mut conn, player, "k", &answer("other"), t0 + 1)
            .await
            .unwrap(),
        Recorded::Taken,
        "a live key keeps its first answer"
    );
    let just_before = t0 + TTL_MICROS - 1;
    assert_eq!(
        idempotency::find(&mut conn, player, "k", just_before)
            .await
            .unwrap(),
        Some(answer("first"))
    );
    assert_eq!(
        idempotency::find(&mut conn, player, "k", t0 + TTL_MICROS)
            .await
            .unwrap(),
        None,
        "expired although the row is still there"
    );
    // The key is free again: a new first answer takes the old one's place.
    let later = t0 + TTL_MICROS + 1;
    assert_eq!(
        idempotency::insert(&mut conn, player, "k", &answer("second"), later)
            .await
            .unwrap(),
        Recorded::Yes
    );
    assert_eq!(
        idempotency::find(&mut conn, player, "k", later)
            .await
            .unwrap(),
        Some(answer("second"))
    );
    // Cleanup removes only what expired.
    assert_eq!(
        idempotency::insert(&mut conn, player, "old", &answer("old"), t0)
            .await
            .unwrap(),
        Recorded::Yes
    );
    let removed = cleanup::remove_idempotency_answers(&mut conn, later - TTL_MICROS + 1)
        .await
        .unwrap();
    assert_eq!(removed, 1);
    assert!(
        idempotency::find(&mut conn, player, "k", later)
            .await
            .unwrap()
            .is_some()
    );
}

async fn an_idempotency_key_names_a_new_request_after_24_hours(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let create = || {
        app.send_with(
            Method::POST,
            "/v1/games",
            Some(&anne.token),
            Some(json!({"game": "klaverjassen", "options": {}})),
            &[("Idempotency-Key", "table-1")],
        )
    };
    let first = create().await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    clock.advance(23.0 * HOUR);
    let replayed = create().await;
    assert_eq!(replayed.body["id"], first.body["id"]);
    assert_eq!(replayed.headers["idempotent-replayed"], "true");
    clock.advance(HOUR);
    let fresh = create().await;
    assert_eq!(fresh.status, StatusCode::CREATED, "{}", fresh.body);
    assert_ne!(fresh.body["id"], first.body["id"]);
    assert!(!fresh.headers.contains_key("idempotent-replayed"));
}

async fn a_guest_with_no_game_is_removed_once_every_token_it_held_expired(db: Db) {
    // The test settings' tokens live an hour: an idle guest is kept an hour
    // plus a day after its last use.
    let clock = Arc::new(ManualClock::new());
    let (database, dir) = crate::support::fresh_database(db).await;
    let settings = crate::support::settings(database);
    assert_eq!(settings.token_ttl, std::time::Duration::from_secs(3600));
    let app = TestApp::start_with_clock(settings, dir, Arc::clone(&clock)).await;
    runs_reach(&app, 1.0).await;
    let idle = app.player("Idle").await;
    let active = app.player("Active").await;
    let (game, seated) = app.full_table("klaverjassen", json!({}), 2).await;
    let passer_by = app.player("Passer-by").await;
    let joined = app
        .send(
            Method::POST,
            &format!("/v1/games/{game}/seats"),
            Some(&passer_by.token),
            Some(json!({"seat": 2})),
        )
        .await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.body);
    let left = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{game}/seats/me"),
            Some(&passer_by.token),
            None,
        )
        .await;
    assert_eq!(left.status, StatusCode::OK, "{}", left.body);
    clock.advance(12.0 * HOUR);
    runs_reach(&app, 2.0).await;
    let me = app
        .send(Method::GET, "/v1/players/me", Some(&active.token), None)
        .await;
    assert_eq!(me.status, StatusCode::OK);
    let removed_before = app
        .metric("kaarttafel_cleanup_rows_total{kind=\"guest_players\"}")
        .await;
    assert_eq!(removed_before, 0.0, "nobody is idle long enough yet");
    clock.advance(14.0 * HOUR);
    runs_reach(&app, 3.0).await;
    assert_eq!(
        app.metric("kaarttafel_cleanup_rows_total{kind=\"guest_players\"}")
            .await,
        1.0
    );
    crate::auth::assert_401_everywhere(&app, &idle.token, &game).await;
    for (who, player) in [
        ("used 14 hours ago", &active),
        ("hosts a table", &seated[0]),
        ("sits at a table", &seated[1]),
        ("is in a table's event log", &passer_by),
    ] {
        let me = app
            .send(Method::GET, "/v1/players/me", Some(&player.token), None)
            .await;
        assert_eq!(me.status, StatusCode::OK, "the guest who {who} was removed");
    }
}

async fn a_waiting_table_stored_without_a_due_time_is_closed_as_abandoned(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    let anne = app.player("Anne").await;
    let id = app.table(&anne, "potverteren", json!({})).await;
    let version = app.view(&id, &anne).await["version"].as_i64().unwrap();
    // As a table stored before tables were closed automatically.
    let store = store_of(&app).await;
    sqlx::query("UPDATE games SET due_at = NULL WHERE id = $1")
        .bind(&id)
        .execute(store.pool())
        .await
        .unwrap();
    clock.advance(25.0 * HOUR);
    let view = app.view_after(&id, &anne, version).await;
    assert_eq!(view["status"], "abandoned");
    assert_eq!(
        app.metric("kaarttafel_cleanup_rows_total{kind=\"waiting_tables\"}")
            .await,
        1.0
    );
    assert_eq!(app.metric("kaarttafel_tables_abandoned_total ").await, 1.0);
}

async fn the_cleanup_job_runs_on_one_instance_at_a_time(db: Db) {
    let (database, _scratch) = fresh_database(db).await;
    let store = Store::connect(&database, Duration::from_secs(2))
        .await
        .unwrap();
    let policy = Policy::new(Duration::from_secs(3600));
    let hour = 3_600_000_000;
    let now = ManualClock::new().now_micros();
    let (a, b) = (
        run_if_free(&store, "a", now, &policy),
        run_if_free(&store, "b", now, &policy),
    );
    let (a, b) = tokio::join!(a, b);
    let ran = [a.unwrap().is_some(), b.unwrap().is_some()];
    assert_eq!(ran.iter().filter(|r| **r).count(), 1, "{ran:?}");
    for (holder, at) in [("a", now + hour - 1), ("b", now + hour / 2)] {
        assert!(
            run_if_free(&store, holder, at, &policy)
                .await
                .unwrap()
                .is_none(),
            "{holder} ran within the hour"
        );
    }
    assert!(
        run_if_free(&store, "b", now + hour, &policy)
            .await
            .unwrap()
            .is_some()
    );
}

/// A read without the row lock takes the seats in the same statement as the
/// game (one snapshot); a read under the lock takes them after the lock.
/// Both give the same seats: people and computer players, in seat order,
/// names with characters JSON must escape.
async fn a_read_with_and_without_the_lock_gives_the_same_seats(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("O'Brien, \"Bob\" \\ é").await;
    let created = app
        .send(
            Method::POST,
            "/v1/games",
            Some(&host.token),
            Some(json!({"game": "klaverjassen",
                        "bots": [{"seat": 3, "level": "strong"}, {"seat": 1, "level": "basic"}]})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let id: Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    let store = store_of(&app).await;
    let mut conn = store.acquire().await.unwrap();
    let unlocked = games::load(&mut conn, store.backend(), id, false)
        .await
        .unwrap()
        .expect("the game");
    let locked = games::load(&mut conn, store.backend(), id, true)
        .await
        .unwrap()
        .expect("the game");
    assert_eq!(unlocked, locked);
    let seats: Vec<(u8, &str, Option<&str>)> = unlocked
        .seats
        .iter()
        .map(|s| {
            (
                s.seat,
                s.player.name.as_str(),
                s.player.bot_level.as_deref(),
            )
        })
        .collect();
    assert_eq!(seats.len(), 3, "{seats:?}");
    assert_eq!(seats[0], (0, "O'Brien, \"Bob\" \\ é", None));
    assert_eq!((seats[1].0, seats[1].2), (1, Some("basic")));
    assert_eq!((seats[2].0, seats[2].2), (3, Some("strong")));
}

/// A locked read that waited while the holder of the lock finished a deal
/// and seated a player still gets every finished record and the new seat
/// (they come in the row's own statement, whose subqueries would see them
/// as they were before the wait).
async fn a_locked_read_that_waited_for_a_finished_deal_gets_every_record(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let store = store_of(&app).await;
    let host_id: Uuid = host.id.parse().unwrap();
    let state = |a: u8| format!(r#"{{"klaverjassen":{{"a":{a}}}}}"#);
    let records = |n: u8| {
        (1..=n)
            .map(|n| RecordJson::from_string(format!(r#"{{"n":{n}}}"#)).unwrap())
            .collect::<Vec<_>>()
    };
    let row = games::GameRow {
        id: Uuid::new_v4(),
        kind: "klaverjassen".into(),
        status: "playing".into(),
        version: 1,
        host_id,
        options: "{}".into(),
        state: Some(state(1)),
        records: records(1),
        fairness: None,
        created_at: 1,
        seats: Vec::new(),
        automation: None,
        due_at: None,
        deals_stored: None,
    };
    let mut conn = store.acquire().await.unwrap();
    games::insert(&mut conn, &row).await.unwrap();
    drop(conn);
    let mut holder = store.begin_write().await.unwrap();
    let mut held = games::load(&mut holder, store.backend(), row.id, true)
        .await
        .unwrap()
        .expect("the game");
    assert_eq!(held.state.as_deref(), Some(state(1).as_str()));
    assert_eq!(held.records, records(1));
    let waiter = {
        let store = store.clone();
        tokio::spawn(async move {
            let mut tx = store.begin_write().await.unwrap();
            games::load(&mut tx, store.backend(), row.id, true)
                .await
                .unwrap()
                .expect("the game")
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    held.version = 2;
    held.state = Some(state(2));
    held.records = records(2);
    games::update(&mut holder, &held).await.unwrap();
    games::add_seat(&mut holder, row.id, 2, host_id)
        .await
        .unwrap();
    holder.commit().await.unwrap();
    let read = waiter.await.unwrap();
    assert_eq!(read.version, 2);
    assert_eq!(read.deals_stored, Some(2));
    assert_eq!(read.state.as_deref(), Some(state(2).as_str()));
    assert_eq!(read.records, records(2));
    let seats: Vec<(u8, &str)> = read
        .seats
        .iter()
        .map(|s| (s.seat, s.player.name.as_str()))
        .collect();
    assert_eq!(seats, [(2, "host")]);
}

/// A rules state for the storage tests: the store reads it as text only.
fn test_state(a: u8) -> String {
    format!(r#"{{"klaverjassen":{{"a":{a}}}}}"#)
}

/// A game row stored for `host` at version 1 with no finished records, as
/// read back.
async fn stored_test_game(store: &Store, host: &str) -> games::GameRow {
    let mut conn = store.acquire().await.unwrap();
    let id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO games (id, kind, status, version, host_id, options, state, created_at, updated_at, deals_stored) \
         VALUES ($1, 'klaverjassen', 'playing', 1, $2, '{}', $3, 1, 1, 0)",
    )
    .bind(id.to_string())
    .bind(host)
    .bind(test_state(1))
    .execute(&mut *conn)
    .await
    .unwrap();
    games::load(&mut conn, store.backend(), id, false)
        .await
        .unwrap()
        .expect("the game")
}

/// `read` changed to state `a` at the next version, and the change's event.
fn test_change(read: &games::GameRow, a: u8) -> (games::GameRow, events::EventRow) {
    let mut next = read.clone();
    next.version += 1;
    next.state = Some(test_state(a));
    let event = events::EventRow {
        seq: next.version,
        player_id: None,
        seat: Some(0),
        kind: "move".into(),
        payload: format!(r#"{{"a":{a}}}"#),
        created_at: 0,
        actor: None,
    };
    (next, event)
}

/// Game `id`'s version, state and logged event payloads, as stored.
async fn stored_change(store: &Store, id: Uuid) -> (i64, Option<String>, Vec<String>) {
    let mut conn = store.acquire().await.unwrap();
    let stored = games::load(&mut conn, store.backend(), id, false)
        .await
        .unwrap()
        .expect("the game");
    let logged = events::list(&mut conn, id, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.payload)
        .collect();
    (stored.version, stored.state, logged)
}

/// A change made on an unlocked read is written only while the game is
/// still at the version it read (src/app/change.rs): written over a
/// change that came first, it would lose that change. The write that
/// finds another version writes neither the row nor the event, in a
/// transaction with the game's other writes or alone (SQLite: one message).
async fn a_change_made_on_a_version_another_change_passed_writes_nothing(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let store = store_of(&app).await;
    for alone in [false, true] {
        let read = stored_test_game(&store, &host.id).await;
        let write = async |row: &games::GameRow, event: &events::EventRow| {
            if alone {
                return games::write_change_alone(
                    &store,
                    row.clone(),
                    event.clone(),
                    None,
                    Vec::new(),
                )
                .await
                .unwrap();
            }
            let mut tx = store.begin_write().await.unwrap();
            let written = games::write_change(&mut tx, store.backend(), row, event, None)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            written
        };
        let (first, first_event) = test_change(&read, 2);
        assert!(write(&first, &first_event).await);
        let (late, late_event) = test_change(&read, 3);
        assert!(
            !write(&late, &late_event).await,
            "written over the change that came first"
        );
        let (version, state, logged) = stored_change(&store, read.id).await;
        assert_eq!(version, 2);
        assert_eq!(state, first.state);
        assert_eq!(logged, [r#"{"a":2}"#]);
    }
}

/// A change written alone (a move without an `Idempotency-Key`) puts the
/// notifications it causes in the outbox in its own statement: a row for
/// each subscription of the player told, none for a player without one,
/// and none at all when another change came first and nothing is written.
async fn a_change_written_alone_writes_its_notifications_only_with_the_change(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let bob = app.player("bob").await;
    let store = store_of(&app).await;
    let host_id: Uuid = host.id.parse().unwrap();
    let mut conn = store.acquire().await.unwrap();
    for url in ["https://push.example/a", "https://push.example/b"] {
        let subscription = SubscriptionRow {
            id: Uuid::new_v4(),
            player: host_id,
            kind: "webhook".into(),
            url: url.into(),
            p256dh: None,
            auth: None,
            secret: Some("whsec_x".into()),
            created_at: 1,
        };
        notifications::upsert_subscription(&mut conn, &subscription)
            .await
            .unwrap();
    }
    drop(conn);
    let read = stored_test_game(&store, &host.id).await;
    // First tried long after the test ends, so that the app's delivery job
    // leaves the rows as they were written.
    let later = 4_000_000_000_000_000;
    let told = |player: &str, version: i64| Notification {
        id: Uuid::new_v4(),
        player: player.parse().unwrap(),
        game: Some(read.id),
        kind: "your_turn".into(),
        version: Some(version),
        payload: format!(r#"{{"version":{version}}}"#),
        created_at: 5,
        expires_at: later + 1,
    };
    let (first, first_event) = test_change(&read, 2);
    let caused = vec![(told(&host.id, 2), later), (told(&bob.id, 2), later)];
    let written = games::write_change_alone(&store, first, first_event, None, caused.clone()).await;
    assert!(written.unwrap());
    let (late, late_event) = test_change(&read, 3);
    let overtaken = vec![(told(&host.id, 2), later)];
    let written = games::write_change_alone(&store, late, late_event, None, overtaken).await;
    assert!(!written.unwrap(), "written over the change that came first");
    let mut conn = store.acquire().await.unwrap();
    let rows: Vec<(String, String, String, String, i64)> = sqlx::query_as(
        "SELECT notification_id, player_id, kind, payload, next_at FROM notification_outbox \
         WHERE game_id = $1 ORDER BY subscription_id",
    )
    .bind(read.id.to_string())
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let expected = (
        caused[0].0.id.to_string(),
        host.id.clone(),
        "your_turn".to_owned(),
        r#"{"version":2}"#.to_owned(),
        later,
    );
    assert_eq!(rows, [expected.clone(), expected]);
}

/// A change written alone whose event cannot be written (its number is
/// taken) writes nothing, not even the row it wrote before the event, and
/// the next change is written: on SQLite the writer's transaction is one
/// message, and a failure part-way must not leave it open.
async fn a_change_written_alone_whose_event_fails_writes_nothing(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let store = store_of(&app).await;
    let read = stored_test_game(&store, &host.id).await;
    let (first, first_event) = test_change(&read, 2);
    let write = |row: &games::GameRow, event: &events::EventRow| {
        games::write_change_alone(&store, row.clone(), event.clone(), None, Vec::new())
    };
    assert!(write(&first, &first_event).await.unwrap());
    let (second, mut second_event) = test_change(&first, 3);
    second_event.seq = first_event.seq;
    assert!(write(&second, &second_event).await.is_err());
    assert_eq!(
        stored_change(&store, read.id).await,
        (2, first.state.clone(), vec![r#"{"a":2}"#.to_owned()])
    );
    let (third, third_event) = test_change(&first, 4);
    assert!(write(&third, &third_event).await.unwrap());
    let (version, state, logged) = stored_change(&store, read.id).await;
    assert_eq!((version, &state), (3, &third.state));
    assert_eq!(logged, [r#"{"a":2}"#, r#"{"a":4}"#]);
    // A change that adds a finished record is refused: it needs the
    // transaction that adds the record.
    let (mut fourth, fourth_event) = test_change(&third, 5);
    fourth
        .records
        .push(RecordJson::from_string("{}".into()).unwrap());
    assert!(write(&fourth, &fourth_event).await.is_err());
    assert_eq!(stored_change(&store, read.id).await.0, 3);
}

/// A worker's idle connections wait on its shelf between requests, checked
/// out of the pool: readiness must take one from there, not wait for the
/// pool, all of whose connections may be on the shelf (CI found an instance
/// not ready after a load run).
async fn a_worker_whose_connections_are_all_shelved_is_still_ready(db: Db) {
    let app = TestApp::spawn(db).await;
    // Eight workers share 16 connections: two each.
    let store = store_of(&app).await.for_worker(8);
    let first = store.acquire().await.unwrap();
    let second = store.acquire().await.unwrap();
    drop((first, second));
    tokio::time::timeout(Duration::from_secs(1), store.ready())
        .await
        .expect("ready without waiting for the pool")
        .expect("ready");
}

async fn a_computer_player_removed_before_the_start_is_removed_after_a_day(db: Db) {
    let clock = Arc::new(ManualClock::new());
    let app = TestApp::spawn_with_clock(db, Arc::clone(&clock)).await;
    runs_reach(&app, 1.0).await;
    let host = app.player("Host").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let mut bots = Vec::new();
    for seat in [1, 2] {
        let added = app
            .send(
                Method::POST,
                &format!("/v1/games/{id}/bots"),
                Some(&host.token),
                Some(json!({"seat": seat, "level": "basic"})),
            )
            .await;
        assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
        bots.push(
            added.body["seats"][seat]["player"]["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let removed = app
        .send(
            Method::DELETE,
            &format!("/v1/games/{id}/bots/1"),
            Some(&host.token),
            None,
        )
        .await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.body);
    let profile = |bot: &str| {
        let path = format!("/v1/players/{bot}");
        let (app, token) = (&app, host.token.clone());
        async move { app.send(Method::GET, &path, Some(&token), None).await }
    };
    assert_eq!(
        profile(&bots[0]).await.status,
        StatusCode::OK,
        "kept for a day"
    );
    clock.advance(25.0 * HOUR);
    runs_reach(&app, 2.0).await;
    assert_eq!(
        app.metric("kaarttafel_cleanup_rows_total{kind=\"bot_players\"}")
            .await,
        1.0
    );
    assert_eq!(
        profile(&bots[0]).await.status,
        StatusCode::NOT_FOUND,
        "never played"
    );
    assert_eq!(
        profile(&bots[1]).await.status,
        StatusCode::OK,
        "still seated"
    );
}

on_both_databases!(
    a_change_made_on_a_version_another_change_passed_writes_nothing,
    a_change_written_alone_whose_event_fails_writes_nothing,
    a_change_written_alone_writes_its_notifications_only_with_the_change,
    a_worker_whose_connections_are_all_shelved_is_still_ready,
    a_locked_read_that_waited_for_a_finished_deal_gets_every_record,
    a_read_with_and_without_the_lock_gives_the_same_seats,
    an_idempotency_answer_is_never_replayed_after_24_hours_even_before_cleanup,
    an_idempotency_key_names_a_new_request_after_24_hours,
    a_guest_with_no_game_is_removed_once_every_token_it_held_expired,
    a_computer_player_removed_before_the_start_is_removed_after_a_day,
    a_waiting_table_stored_without_a_due_time_is_closed_as_abandoned,
    the_cleanup_job_runs_on_one_instance_at_a_time,
);
