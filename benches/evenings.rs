//! A club evening of 40 individual players (10 tables a round), through the
//! real app on an SQLite file, over HTTP: the start (the draw and round 1's
//! 10 tables, seats filled, in one transaction: the work of every round
//! change), and the standings read of an evening of 2 rounds played (20
//! tables read).
//!
//! Run: `cargo bench --bench evenings`.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use kaarttafel::config::{Database, RateLimits, Settings};
use kaarttafel::startup::Application;
use serde_json::{Value, json};

const PLAYERS: usize = 40;

struct Server {
    base: String,
    client: reqwest::Client,
    token: String,
}

impl Server {
    async fn post(&self, path: &str, body: Value) -> Value {
        let answer = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await
            .expect("request");
        assert!(answer.status().is_success(), "{path}: {}", answer.status());
        answer.json().await.expect("JSON")
    }

    async fn get(&self, path: &str) -> Value {
        let answer = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("request");
        assert!(answer.status().is_success(), "{path}: {}", answer.status());
        answer.json().await.expect("JSON")
    }

    /// An open individual evening of 40 computer players; returns its id.
    async fn full_evening(&self, rounds: u32, bot_delay_ms: u32) -> String {
        let event = self
            .post(
                "/v1/events",
                json!({"name": "Bench", "game": "klaverjassen", "format": "individual",
                       "rounds": rounds, "deals": 1, "options": {"bot_delay_ms": bot_delay_ms}}),
            )
            .await;
        let id = event["id"].as_str().expect("id").to_owned();
        self.post(
            &format!("/v1/events/{id}/bots"),
            json!({"count": PLAYERS, "level": "basic"}),
        )
        .await;
        id
    }
}

async fn start_server(dir: &std::path::Path) -> Server {
    let settings = Settings {
        host: [127, 0, 0, 1].into(),
        port: 0,
        metrics_addr: None,
        database: Database::Sqlite(dir.join("bench.db").display().to_string()),
        jwt_secret: None,
        token_ttl: Duration::from_secs(3600),
        external_identity: None,
        trusted_proxies: Vec::new(),
        path_prefix: String::new(),
        shutdown_timeout: Duration::from_secs(5),
        sse_keep_alive: Duration::from_secs(15),
        cors_allowed_origins: Vec::new(),
        workers: 2,
        db_acquire_timeout: Duration::from_secs(5),
        db_max_connections: kaarttafel::config::DEFAULT_DB_MAX_CONNECTIONS,
        request_body_timeout: Duration::from_secs(10),
        rate_limits: RateLimits::off(),
        bot_move: Duration::ZERO,
        bot_trump: Duration::ZERO,
        cpu_scheduling: kaarttafel::config::CpuScheduling::Normal,
        notifications: Default::default(),
    };
    let app = Application::build(&settings).await.expect("app starts");
    let base = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run());
    let client = reqwest::Client::new();
    let player: Value = client
        .post(format!("{base}/v1/players"))
        .json(&json!({"name": "Organizer"}))
        .send()
        .await
        .expect("player")
        .json()
        .await
        .expect("JSON");
    let token = player["token"].as_str().expect("token").to_owned();
    Server {
        base,
        client,
        token,
    }
}

fn evenings(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let server = runtime.block_on(start_server(dir.path()));
    let mut group = c.benchmark_group("club evening, 40 individual players");
    group.sample_size(10);
    group.bench_function("round change: the draw and 10 tables made", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    // Computer players wait their longest, so the tables
                    // made do not play during the next measurement.
                    let id = server.full_evening(1, 10_000).await;
                    let started = Instant::now();
                    let event = server
                        .post(&format!("/v1/events/{id}/start"), json!({}))
                        .await;
                    spent += started.elapsed();
                    assert_eq!(
                        event["schedule"][0]["tables"].as_array().map(Vec::len),
                        Some(10)
                    );
                }
                spent
            })
        });
    });
    let played = runtime.block_on(async {
        let id = server.full_evening(2, 0).await;
        server
            .post(&format!("/v1/events/{id}/start"), json!({}))
            .await;
        while server.get(&format!("/v1/events/{id}")).await["status"] != "finished" {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        id
    });
    group.bench_function("standings read: 2 rounds, 20 tables", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let lines = server.get(&format!("/v1/events/{played}/standings")).await;
                assert_eq!(lines.as_array().map(Vec::len), Some(PLAYERS));
            })
        });
    });
    group.finish();
}

criterion_group!(benches, evenings);
criterion_main!(benches);
