//! The database going away under a running app: a request waits at most the
//! configured time for a connection and then answers 503
//! `database_unavailable` with `Retry-After`, never a 500; `/readyz` turns red
//! within a second; when the database returns, the app recovers by itself.
//!
//! The app reaches Postgres through a TCP relay of the test's own, which
//! the test closes (a closed port) and opens again, so the shared server is
//! never touched.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::support::{Db, TestApp, fresh_database, settings};
use kaarttafel::config::{Database, Secret};

/// A relay from a local port to the Postgres server that can be closed
/// (listener gone, every relayed connection cut) and opened again.
struct Relay {
    port: u16,
    target: String,
    task: Mutex<Option<JoinHandle<()>>>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    async fn start(target: String) -> Arc<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = Arc::new(Relay {
            port: listener.local_addr().unwrap().port(),
            target,
            task: Mutex::new(None),
            connections: Arc::default(),
        });
        relay.serve(listener).await;
        relay
    }

    async fn serve(&self, listener: TcpListener) {
        let target = self.target.clone();
        let connections = Arc::clone(&self.connections);
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let target = target.clone();
                let relayed = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                connections.lock().await.push(relayed);
            }
        });
        *self.task.lock().await = Some(task);
    }

    /// Closes the port and cuts every relayed connection.
    async fn close(&self) {
        if let Some(task) = self.task.lock().await.take() {
            task.abort();
            let _ = task.await;
        }
        for connection in self.connections.lock().await.drain(..) {
            connection.abort();
        }
    }

    /// Opens the same port again.
    async fn open(&self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        self.serve(listener).await;
    }
}

/// A Postgres test app that reaches its database through a relay, waiting
/// at most 500 ms for a connection.
async fn app_behind_relay() -> Option<(TestApp, Arc<Relay>)> {
    crate::support::postgres_url().ok()?;
    let (Database::Postgres(url), scratch) = fresh_database(Db::Postgres).await else {
        unreachable!()
    };
    let url = url.expose().to_owned();
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let (host_port, database) = rest.split_once('/').unwrap();
    let relay = Relay::start(host_port.to_owned()).await;
    let relayed = format!("{scheme_user}@127.0.0.1:{}/{database}", relay.port);
    let mut settings = settings(Database::Postgres(Secret::new(relayed)));
    settings.db_acquire_timeout = Duration::from_millis(500);
    Some((TestApp::start(settings, scratch).await, relay))
}

async fn raw(app: &TestApp, method: Method, path: &str, token: &str) -> reqwest::Response {
    app.client
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(token)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_is_away_is_503_with_retry_after_and_the_app_recovers_by_itself() {
    let Some((app, relay)) = app_behind_relay().await else {
        return;
    };
    let host = app.player("Anne").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let guest = app.player("Bob").await;

    relay.close().await;
    for (method, path) in [
        (Method::GET, format!("/v1/games/{id}")),
        (Method::GET, "/v1/games".to_owned()),
        (Method::POST, format!("/v1/games/{id}/seats")),
    ] {
        let started = Instant::now();
        let answer = raw(&app, method.clone(), &path, &guest.token).await;
        let waited = started.elapsed();
        assert_eq!(
            answer.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "{method} {path}"
        );
        assert_eq!(answer.headers()["retry-after"], "1");
        let problem: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(problem["code"], "database_unavailable", "{problem}");
        // The wait is the configured 500 ms (and one retry of a broken
        // connection), not the ten seconds of old.
        assert!(
            waited < Duration::from_secs(3),
            "{method} {path}: {waited:?}"
        );
    }
    let started = Instant::now();
    let ready = app
        .client
        .get(format!("{}/readyz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    // Its own one-second bound, with room for a busy machine.
    assert!(started.elapsed() < Duration::from_secs(3));

    relay.open().await;
    let seated = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/seats"),
            Some(&guest.token),
            None,
        )
        .await;
    assert_eq!(seated.status, StatusCode::OK, "{}", seated.body);
    let ready = app.send(Method::GET, "/readyz", None, None).await;
    assert_eq!(ready.status, StatusCode::OK);
}
