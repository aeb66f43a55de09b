//! Live updates: event streams, long polls, CORS.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp};

/// An open event stream, parsed into events.
struct Events {
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

/// One server-sent event: its id, name and data, or a comment.
#[derive(Debug)]
struct Event {
    id: Option<i64>,
    name: Option<String>,
    data: String,
    comment: bool,
}

impl Events {
    async fn open(app: &TestApp, id: &str, player: &Player, last_event_id: Option<i64>) -> Events {
        let mut request = app
            .client
            .get(format!("{}/v1/games/{id}/stream", app.base))
            .bearer_auth(&player.token);
        if let Some(last) = last_event_id {
            request = request.header("Last-Event-ID", last.to_string());
        }
        let response = request.send().await.expect("stream opens");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }

    /// The next event (or comment), within 10 s; None when the stream ended.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Event {
                    id: None,
                    name: None,
                    data: String::new(),
                    comment: false,
                };
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        event.id = v.parse().ok();
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        event.name = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        event.data.push_str(v);
                    } else if line.starts_with(':') {
                        event.comment = true;
                    }
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.body.next())
                .await
                .expect("an event within 10 s")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.expect("chunk")).expect("UTF-8"));
        }
    }

    /// The next view event, skipping keep-alive comments.
    async fn next_view(&mut self) -> (i64, Value) {
        loop {
            let event = self.next().await.expect("stream still open");
            if event.comment {
                continue;
            }
            assert_eq!(event.name.as_deref(), Some("view"));
            return (
                event.id.expect("an id"),
                serde_json::from_str(&event.data).expect("JSON view"),
            );
        }
    }
}

/// Plays a whole deal with `mover` taking the moves while every seat follows
/// its stream; each stream must see every version in order, with its own view.
async fn follow_a_deal(mover: &TestApp, watchers: &[&TestApp], id: &str, players: &[Player]) {
    let mut streams = Vec::new();
    for (seat, player) in players.iter().enumerate() {
        let app = watchers[seat % watchers.len()];
        streams.push(Events::open(app, id, player, None).await);
    }
    let mut version = mover.view(id, &players[0]).await["version"]
        .as_i64()
        .unwrap();
    for (seat, stream) in streams.iter_mut().enumerate() {
        let (first, view) = stream.next_view().await;
        assert_eq!(first, version, "the first event is the current view");
        assert_eq!(view["you"], seat);
    }
    loop {
        let view = mover.view(id, &players[0]).await;
        if !view["klaverjassen"]["deals"].as_array().unwrap().is_empty() {
            break;
        }
        let seat = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let own = mover.view(id, &players[seat]).await;
        let mv = own["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| matches!(m["type"].as_str(), Some("choose_trump" | "play" | "deal")))
            .unwrap()
            .clone();
        assert_eq!(
            mover.play(id, &players[seat], mv).await.status,
            StatusCode::OK
        );
        version += 1;
        for (watcher, stream) in streams.iter_mut().enumerate() {
            let (seen, view) = stream.next_view().await;
            assert_eq!(seen, version, "seat {watcher} sees every version in order");
            assert_eq!(view["version"], version);
            assert_eq!(
                view["you"], watcher,
                "each stream carries its own seat's view"
            );
            let own = mover.view(id, &players[watcher]).await;
            assert_eq!(view["klaverjassen"]["hand"], own["klaverjassen"]["hand"]);
        }
    }
}

async fn four_stream_clients_follow_a_whole_deal(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    follow_a_deal(&app, &[&app], &id, &players).await;
}

async fn a_resumed_stream_gets_the_current_view_at_once(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let view = app.view(&id, &players[0]).await;
    let version = view["version"].as_i64().unwrap();
    let mut stream = Events::open(&app, &id, &players[1], Some(version - 3)).await;
    let (seen, _) = stream.next_view().await;
    assert_eq!(seen, version, "missed versions: the current view, at once");
    let mut stream = Events::open(&app, &id, &players[1], Some(version)).await;
    let event = stream
        .next()
        .await
        .expect("a keep-alive comment while nothing changes");
    assert!(event.comment, "{event:?}");
    let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    app.play(
        &id,
        &players[chooser],
        json!({"type": "choose_trump", "suit": "C"}),
    )
    .await;
    let (seen, _) = stream.next_view().await;
    assert_eq!(seen, version + 1);
}

async fn streams_end_cleanly_on_shutdown(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app.full_table("potverteren", json!({}), 5).await;
    let mut stream = Events::open(&app, &id, &players[2], None).await;
    stream.next_view().await;
    let app = app.restart().await;
    let mut saw_shutdown = false;
    while let Some(event) = stream.next().await {
        saw_shutdown |= event.name.as_deref() == Some("shutdown");
    }
    assert!(saw_shutdown, "a shutdown event, then the end of the stream");
    assert_eq!(app.view(&id, &players[2]).await["status"], "playing");
}

async fn a_long_poll_answers_when_the_version_passes(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let view = app.view(&id, &players[0]).await;
    let version = view["version"].as_i64().unwrap();
    let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    let path = format!("/v1/games/{id}?wait_for_version={version}&timeout_s=30");
    let poll = app.send(Method::GET, &path, Some(&players[2].token), None);
    let mover = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        app.play(
            &id,
            &players[chooser],
            json!({"type": "choose_trump", "suit": "D"}),
        )
        .await
    };
    let (answer, moved) = tokio::join!(poll, mover);
    assert_eq!(moved.status, StatusCode::OK);
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["version"], version + 1);
    assert_eq!(answer.body["you"], 2);
    let timed_out = app
        .send(
            Method::GET,
            &format!(
                "/v1/games/{id}?wait_for_version={}&timeout_s=1",
                version + 1
            ),
            Some(&players[2].token),
            None,
        )
        .await;
    assert_eq!(timed_out.status, StatusCode::OK);
    assert_eq!(
        timed_out.body["version"],
        version + 1,
        "on timeout: the current view"
    );
    for bad in [
        "wait_for_version=1&timeout_s=61",
        "wait_for_version=-1",
        "timeout_s=5",
    ] {
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}?{bad}"),
                Some(&players[2].token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
}

async fn cors_allows_only_the_configured_origins(db: Db) {
    let app = TestApp::spawn(db).await;
    let preflight = |origin: &'static str| {
        app.client
            .request(Method::OPTIONS, format!("{}/v1/players", app.base))
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type")
            .send()
    };
    let allowed = preflight("https://app.example").await.unwrap();
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    let refused = preflight("https://evil.example").await.unwrap();
    assert!(
        refused
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}

async fn a_player_holds_at_most_sixteen_live_streams_on_an_instance(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let stream = |player: &Player| {
        app.client
            .get(format!("{}/v1/games/{id}/stream", app.base))
            .bearer_auth(&player.token)
            .send()
    };
    let mut open = Vec::new();
    for _ in 0..kaarttafel::http::open_streams::STREAMS_PER_PLAYER {
        open.push(Events::open(&app, &id, &players[0], None).await);
    }
    let refused = stream(&players[0]).await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let problem: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(problem["code"], "too_many_streams", "{problem}");
    // Another player is not held back; a stream closed frees its place.
    Events::open(&app, &id, &players[1], None).await;
    drop(open.pop());
    let mut reopened = None;
    for _ in 0..100 {
        let answer = stream(&players[0]).await.unwrap();
        if answer.status() == StatusCode::OK {
            reopened = Some(answer);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(reopened.is_some(), "a closed stream's place is free again");
}

/// Reads `stream` up to its `signed_out` event, which must come before any
/// view and within two keep-alive comments (the tests' keep-alive is 1 s),
/// checks that it carries the 401's problem and that the stream ends after
/// it.
async fn assert_signed_out(stream: &mut Events) {
    let mut comments = 0;
    let event = loop {
        let event = stream.next().await.expect("a signed_out event");
        if !event.comment {
            break event;
        }
        comments += 1;
        assert!(
            comments <= 2,
            "no signed_out event after {comments} keep-alives"
        );
    };
    assert_eq!(event.name.as_deref(), Some("signed_out"), "{event:?}");
    let problem: Value = serde_json::from_str(&event.data).expect("JSON problem");
    assert_eq!(
        (problem["status"].as_u64(), problem["code"].as_str()),
        (Some(401), Some("invalid_token"))
    );
    assert!(stream.next().await.is_none(), "the stream ends after it");
}

/// A stolen token that holds a stream or a long poll stops receiving the
/// player's view the moment its player signs out everywhere: the sign-out
/// wakes them, each checks its token, the stream ends with `signed_out`
/// and the long poll answers 401. On Postgres the same holds for a stream
/// held on another instance.
async fn a_stream_and_a_long_poll_of_a_signed_out_player_end_at_once(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let victim = &players[1];
    let version = app.view(&id, victim).await["version"].as_i64().unwrap();
    // The second instance starts before the first stream opens, so its
    // start does not count against the stream's keep-alives.
    let other = match db {
        Db::Postgres => Some(app.second_instance().await),
        Db::Sqlite => None,
    };
    let mut streams = vec![Events::open(&app, &id, victim, None).await];
    if let Some(other) = &other {
        streams.push(Events::open(other, &id, victim, None).await);
    }
    for stream in &mut streams {
        assert_eq!(stream.next_view().await.0, version);
    }
    let poll = format!("/v1/games/{id}?wait_for_version={version}&timeout_s=30");
    let polling = app.send(Method::GET, &poll, Some(&victim.token), None);
    let signing_out = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        app.send(
            Method::POST,
            "/v1/players/me/sign_out",
            Some(&victim.token),
            None,
        )
        .await
    };
    let (polled, signed_out) = tokio::join!(polling, signing_out);
    assert_eq!(signed_out.status, StatusCode::OK, "{}", signed_out.body);
    assert_eq!(polled.status, StatusCode::UNAUTHORIZED, "{}", polled.body);
    assert_eq!(polled.code(), "invalid_token");
    for stream in &mut streams {
        assert_signed_out(stream).await;
    }
    // The token issued by the sign-out streams on.
    let renewed = Player {
        id: victim.id.clone(),
        token: signed_out.body["token"].as_str().unwrap().to_owned(),
    };
    let mut stream = Events::open(&app, &id, &renewed, None).await;
    assert_eq!(stream.next_view().await.0, version);
}

/// A stream and a long poll end when their token expires: the stream at
/// its next keep-alive with `signed_out`, the long poll with 401 before it
/// answers. Time is the hand-moved clock (a token lives an hour in tests).
async fn a_stream_and_a_long_poll_end_when_their_token_expires(db: Db) {
    let clock = std::sync::Arc::new(kaarttafel::clock::ManualClock::new());
    let app = TestApp::spawn_with_clock(db, std::sync::Arc::clone(&clock)).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let view = app.view(&id, &players[0]).await;
    let version = view["version"].as_i64().unwrap();
    let mut stream = Events::open(&app, &id, &players[1], None).await;
    assert_eq!(stream.next_view().await.0, version);
    let poll = format!("/v1/games/{id}?wait_for_version={version}&timeout_s=30");
    let polling = app.send(Method::GET, &poll, Some(&players[2].token), None);
    let expiring = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        clock.advance(app.settings.token_ttl.as_secs_f64() + 10.0);
        assert_signed_out(&mut stream).await;
        // A change wakes the long poll, which checks its token first.
        let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        app.play(
            &id,
            &players[chooser],
            json!({"type": "choose_trump", "suit": "C"}),
        )
        .await
    };
    let (polled, moved) = tokio::join!(polling, expiring);
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
    assert_eq!(polled.status, StatusCode::UNAUTHORIZED, "{}", polled.body);
    assert_eq!(polled.code(), "invalid_token");
    assert!(
        polled.body["detail"].as_str().unwrap().contains("expired"),
        "{}",
        polled.body
    );
}

on_both_databases!(
    four_stream_clients_follow_a_whole_deal,
    a_stream_and_a_long_poll_of_a_signed_out_player_end_at_once,
    a_stream_and_a_long_poll_end_when_their_token_expires,
    a_resumed_stream_gets_the_current_view_at_once,
    a_player_holds_at_most_sixteen_live_streams_on_an_instance,
    streams_end_cleanly_on_shutdown,
    a_long_poll_answers_when_the_version_passes,
    cors_allows_only_the_configured_origins,
);

/// Postgres only: moves taken by one instance reach streams held by another,
/// also after the other's LISTEN connection was dropped.
mod two_instances {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn streams_on_another_instance_follow_a_whole_deal() {
        if crate::support::postgres_url().is_err() {
            return;
        }
        let (first, second, id, players) = two_instances_and_a_table().await;
        follow_a_deal(&first, &[&first, &second], &id, &players).await;
    }

    /// Two instances on one Postgres database, and a full Klaverjassen
    /// table (dealt at once) made on the first.
    async fn two_instances_and_a_table() -> (TestApp, TestApp, String, Vec<Player>) {
        let first = TestApp::spawn(Db::Postgres).await;
        let second = TestApp::start(first.settings.clone(), None).await;
        let (id, players) = first
            .full_table("klaverjassen", json!({"auto_deal": true}), 4)
            .await;
        (first, second, id, players)
    }

    /// A connection of its own to `app`'s Postgres database.
    async fn admin_connection(app: &TestApp) -> sqlx::PgConnection {
        let kaarttafel::config::Database::Postgres(url) = &app.settings.database else {
            unreachable!()
        };
        use sqlx::Connection;
        sqlx::PgConnection::connect(url.expose()).await.unwrap()
    }

    /// The seat `view` awaits chooses spades as trump, on `app`.
    async fn choose_spades(app: &TestApp, id: &str, players: &[Player], view: &Value) {
        let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let answer = app
            .play(
                id,
                &players[chooser],
                json!({"type": "choose_trump", "suit": "S"}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK);
    }

    /// The backends of `app`'s database that are in `LISTEN`.
    async fn listening_backends(app: &TestApp) -> i64 {
        let mut admin = admin_connection(app).await;
        sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
        )
        .fetch_one(&mut admin)
        .await
        .unwrap()
    }

    /// An instance that nobody waits on is sent no announcements: it opens
    /// its `LISTEN` connection for its first stream, whose first view comes
    /// once it listens, and hears the other instance's moves on it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_instance_listens_only_once_someone_waits_on_it() {
        if crate::support::postgres_url().is_err() {
            return;
        }
        let (first, second, id, players) = two_instances_and_a_table().await;
        let view = second.view(&id, &players[0]).await;
        assert_eq!(listening_backends(&first).await, 0, "nobody waits yet");
        let version = view["version"].as_i64().unwrap();
        let mut stream = Events::open(&second, &id, &players[1], Some(version)).await;
        // A stream waits a bounded time for its instance to listen, then
        // goes on: on a busy machine the LISTEN may come a moment later.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut listening = listening_backends(&first).await;
        while listening == 0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            listening = listening_backends(&first).await;
        }
        assert_eq!(
            listening, 1,
            "the stream's instance listens, the other does not"
        );
        choose_spades(&first, &id, &players, &view).await;
        let (seen, _) = stream.next_view().await;
        assert_eq!(seen, version + 1, "the other instance's move is heard");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_listen_connection_does_not_stop_updates() {
        if crate::support::postgres_url().is_err() {
            return;
        }
        let (first, second, id, players) = two_instances_and_a_table().await;
        let view = first.view(&id, &players[0]).await;
        let version = view["version"].as_i64().unwrap();
        let mut stream = Events::open(&second, &id, &players[1], Some(version)).await;
        let mut admin = admin_connection(&first).await;
        let dropped: Vec<(bool,)> = sqlx::query_as(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
        )
        .fetch_all(&mut admin)
        .await
        .unwrap();
        assert!(
            !dropped.is_empty(),
            "the listeners' connections were found and dropped"
        );
        choose_spades(&first, &id, &players, &view).await;
        let (seen, _) = stream.next_view().await;
        assert_eq!(
            seen,
            version + 1,
            "the update arrives on the other instance all the same"
        );
    }
}
