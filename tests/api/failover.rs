//! `DATABASE_URL` with several servers, as libpq lists them: the app writes
//! to the one that takes writes, and after a failover finds the new one by
//! itself; meanwhile requests are answered 503 `database_unavailable` with
//! `Retry-After`, never 500.
//!
//! Each "server" is a TCP relay of the test's own to the shared Postgres
//! server. A relay in read-only mode adds `default_transaction_read_only=on`
//! to each session's startup message, so its sessions behave as a standby's
//! do (reads answered, writes refused with SQLSTATE 25006); switching a
//! relay's mode cuts its connections, as a server's restart does. The
//! shared server itself is never reconfigured.

use std::sync::{Arc, Mutex};

use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::support::{Db, TestApp, fresh_database, settings};
use kaarttafel::config::{Database, Secret};

/// What a relayed server is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Takes writes: a primary.
    Writes,
    /// Read-only sessions: a standby.
    ReadOnly,
    /// Accepts connections and closes them at once: a server that is down.
    Down,
}

/// One relayed "server".
struct Server {
    port: u16,
    mode: Mutex<Mode>,
    connections: Mutex<Vec<JoinHandle<()>>>,
}

impl Server {
    async fn start(target: String, mode: Mode) -> Arc<Server> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = Arc::new(Server {
            port: listener.local_addr().unwrap().port(),
            mode: Mutex::new(mode),
            connections: Mutex::default(),
        });
        let serving = Arc::clone(&server);
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let mode = *serving.mode.lock().unwrap();
                if mode == Mode::Down {
                    continue;
                }
                let relayed = tokio::spawn(relay(inbound, target.clone(), mode));
                serving.connections.lock().unwrap().push(relayed);
            }
        });
        server
    }

    /// Becomes `mode`, its open connections cut as a restart cuts them.
    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

/// Relays one connection; read-only, its startup message gets
/// `options=-c default_transaction_read_only=on`.
async fn relay(mut inbound: TcpStream, target: String, mode: Mode) {
    let Ok(mut outbound) = TcpStream::connect(&target).await else {
        return;
    };
    if mode == Mode::ReadOnly {
        // The URL says sslmode=disable: the first message is the startup
        // message, its length first, then key\0value\0 pairs and a \0.
        let mut length = [0u8; 4];
        if inbound.read_exact(&mut length).await.is_err() {
            return;
        }
        let length = u32::from_be_bytes(length) as usize;
        let mut rest = vec![0u8; length - 4];
        if inbound.read_exact(&mut rest).await.is_err() {
            return;
        }
        rest.pop();
        rest.extend_from_slice(b"options\0-c default_transaction_read_only=on\0\0");
        let mut startup = ((rest.len() + 4) as u32).to_be_bytes().to_vec();
        startup.extend_from_slice(&rest);
        if outbound.write_all(&startup).await.is_err() {
            return;
        }
    }
    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
}

/// A Postgres test app whose `DATABASE_URL` lists two relayed servers of
/// the given modes, in that order.
async fn app_on_two_servers(first: Mode, second: Mode) -> Option<(TestApp, [Arc<Server>; 2])> {
    crate::support::postgres_url().ok()?;
    let (Database::Postgres(url), scratch) = fresh_database(Db::Postgres).await else {
        unreachable!()
    };
    let url = url.expose().to_owned();
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let (host_port, database) = rest.split_once('/').unwrap();
    let servers = [
        Server::start(host_port.to_owned(), first).await,
        Server::start(host_port.to_owned(), second).await,
    ];
    let listed = format!(
        "{scheme_user}@127.0.0.1:{},127.0.0.1:{}/{database}?sslmode=disable&target_session_attrs=read-write",
        servers[0].port, servers[1].port
    );
    let mut settings = settings(Database::Postgres(Secret::new(listed)));
    settings.db_acquire_timeout = std::time::Duration::from_millis(500);
    Some((TestApp::start(settings, scratch).await, servers))
}

/// Signs a player up: the status, the problem code and `Retry-After`.
async fn sign_up(app: &TestApp) -> (StatusCode, String, Option<String>) {
    let answer = app
        .client
        .post(format!("{}/v1/players", app.base))
        .json(&json!({"name": "Failover"}))
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let retry_after = answer
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    let body: serde_json::Value = answer.json().await.unwrap();
    let code = body["code"].as_str().unwrap_or("").to_owned();
    (status, code, retry_after)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_writes_to_the_listed_server_that_takes_writes() {
    let Some((app, _servers)) = app_on_two_servers(Mode::ReadOnly, Mode::Writes).await else {
        return;
    };
    let host = app.player("Anne").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;
    let guest = app.player("Bob").await;
    app.seat_the_rest(&id, &[host, guest]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_failover_the_app_writes_to_the_new_primary_without_a_restart() {
    let Some((app, servers)) = app_on_two_servers(Mode::Writes, Mode::ReadOnly).await else {
        return;
    };
    let host = app.player("Anne").await;
    let id = app.table(&host, "klaverjassen", json!({})).await;

    // The primary goes down, the standby is not promoted yet: no server
    // takes writes, and requests are answered 503, never 500.
    servers[0].set(Mode::Down);
    servers[1].set(Mode::ReadOnly);
    for _ in 0..3 {
        let (status, code, retry_after) = sign_up(&app).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{code}");
        assert_eq!(code, "database_unavailable");
        assert_eq!(retry_after.as_deref(), Some("1"));
    }

    // The standby is promoted and the old primary comes back as a
    // standby: the app finds the new primary by itself.
    servers[0].set(Mode::ReadOnly);
    servers[1].set(Mode::Writes);
    let mut answers = Vec::new();
    loop {
        let (status, code, _) = sign_up(&app).await;
        answers.push((status, code.clone()));
        if status == StatusCode::CREATED {
            break;
        }
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, "database_unavailable"),
            "answers so far: {answers:?}"
        );
        assert!(answers.len() < 50, "never wrote again: {answers:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let guest = app.player("Bob").await;
    app.seat_the_rest(&id, &[host, guest]).await;
    let ready = app.send(Method::GET, "/readyz", None, None).await;
    assert_eq!(ready.status, StatusCode::OK);
}
