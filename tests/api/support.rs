//! Test support: the real app on port 0 against a fresh database per test,
//! and a small client that plays like a mobile app would.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use kaarttafel::config::{Database, Secret, Settings};
use kaarttafel::startup::Application;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Which database a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// Generates one `#[tokio::test]` per backend for each listed test function.
/// Without Postgres the Postgres tests return at once; the one test
/// `available::postgres_is_available` then fails, or is
/// the only one to say so when the run chose `SKIP_POSTGRES=1`.
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name($crate::support::Db::Sqlite).await }
            )*
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                if $crate::support::postgres_url().is_err() { return; }
                super::$name($crate::support::Db::Postgres).await
            })*
        }
    };
}

/// The Postgres server for tests: `TEST_DATABASE_URL` if set, else a
/// throwaway cluster of this test run when Postgres binaries are on the
/// machine, else why there is none.
pub fn postgres_url() -> Result<String, String> {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    URL.get_or_init(|| {
        match std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())
        {
            Some(url) => Ok(url),
            None => local_cluster(),
        }
    })
    .clone()
}

/// The Postgres binaries' folder, `/usr/lib/postgresql/<newest>/bin`.
fn postgres_bin() -> Result<PathBuf, String> {
    std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| {
            "no /usr/lib/postgresql (install Postgres or set TEST_DATABASE_URL)".to_owned()
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .max()
        .ok_or_else(|| "no initdb under /usr/lib/postgresql".to_owned())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n")
}

/// A free TCP port on 127.0.0.1, as the kernel hands them out.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| e.to_string())
}

/// Starts a cluster for this test run under the target folder
/// (`target/tmp/postgres-<pid>`), on a free port, trusting local
/// connections; as root it runs as the `postgres` user, as Postgres
/// requires. A watcher process outside the test binary stops it and removes
/// its folder once this process has exited, however the run ends.
fn local_cluster() -> Result<String, String> {
    let bin = postgres_bin()?;
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("postgres-{}", std::process::id()));
    let data = dir.join("data");
    let root = is_root();
    let as_owner = |program: &str| {
        let program = bin.join(program);
        if root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    };
    let run = |program: &str, args: &[&str]| {
        let output = as_owner(program)
            .args(args)
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{program}: {}",
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    };
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let pg_ctl = bin.join("pg_ctl").display().to_string();
    let stop = format!(
        "{}'{pg_ctl}' -D '{}' -m immediate stop",
        if root { "runuser -u postgres -- " } else { "" },
        data.display()
    );
    // Watches this process from outside it (its own process group, so a
    // Ctrl-C of the run does not end the watcher first).
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{dir}'",
            pid = std::process::id(),
            dir = dir.display()
        ))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("watcher: {e}"))?;
    if root {
        Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&dir)
            .status()
            .map_err(|e| e.to_string())?;
    }
    let data = data.display().to_string();
    run(
        "initdb",
        &["-D", &data, "-A", "trust", "-U", "postgres", "--no-sync"],
    )?;
    let port = free_port()?;
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
        dir.display()
    );
    let log = dir.join("log").display().to_string();
    run(
        "pg_ctl",
        &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
    )?;
    Ok(format!("postgres://postgres@127.0.0.1:{port}/postgres"))
}

/// What a test's database leaves behind; removed when the test ends, also
/// when it fails (dropping it runs during the unwinding of a panic).
pub enum Scratch {
    /// The temporary folder of a SQLite file.
    Sqlite {
        /// Removed with its contents when dropped.
        _dir: tempfile::TempDir,
    },
    /// A database created on the Postgres server.
    Postgres {
        /// The server URL it was created from.
        admin: String,
        /// Its name.
        name: String,
    },
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Scratch::Postgres { admin, name } = self else {
            return;
        };
        let (admin, name) = (admin.clone(), name.clone());
        // Drop runs inside the test's runtime: drop the database from a
        // thread of its own with a runtime of its own. FORCE ends the app's
        // pooled connections.
        let dropped = std::thread::spawn(move || {
            use sqlx::Connection;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let mut conn = sqlx::PgConnection::connect(&admin)
                    .await
                    .map_err(|e| e.to_string())?;
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut conn)
                .await
                .map(|_| ())
                .map_err(|e| format!("{name}: {e}"))
            })
        })
        .join();
        if let Ok(Err(why)) = dropped {
            eprintln!("could not drop the test database: {why}");
        }
    }
}

/// A fresh, empty database of `db`, and what removes it again.
pub async fn fresh_database(db: Db) -> (Database, Option<Scratch>) {
    match db {
        Db::Sqlite => {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("test.db");
            (
                Database::Sqlite(path.display().to_string()),
                Some(Scratch::Sqlite { _dir: dir }),
            )
        }
        Db::Postgres => {
            use sqlx::Connection;
            let admin = postgres_url().expect("Postgres URL");
            let name = format!("kt_test_{}", uuid::Uuid::new_v4().simple());
            let mut conn = sqlx::PgConnection::connect(&admin)
                .await
                .expect("connect to TEST_DATABASE_URL");
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut conn)
                .await
                .expect("create test database");
            let (base, _) = admin.rsplit_once('/').expect("URL with a database name");
            (
                Database::Postgres(Secret::new(format!("{base}/{name}"))),
                Some(Scratch::Postgres { admin, name }),
            )
        }
    }
}

/// Settings for a test app on `database`, port 0.
pub fn settings(database: Database) -> Settings {
    Settings {
        host: IpAddr::from([127, 0, 0, 1]),
        port: 0,
        metrics_addr: Some(std::net::SocketAddr::from(([127, 0, 0, 1], 0))),
        database,
        jwt_secret: None,
        token_ttl: Duration::from_secs(3600),
        external_identity: None,
        trusted_proxies: Vec::new(),
        path_prefix: String::new(),
        shutdown_timeout: Duration::from_secs(5),
        sse_keep_alive: Duration::from_secs(1),
        cors_allowed_origins: vec!["https://app.example".into()],
        workers: 2,
        db_acquire_timeout: Duration::from_secs(2),
        db_max_connections: kaarttafel::config::DEFAULT_DB_MAX_CONNECTIONS,
        request_body_timeout: Duration::from_secs(10),
        // The suites make many requests from one address; the limits have
        // tests of their own (tests/api/limits.rs).
        rate_limits: kaarttafel::config::RateLimits::off(),
        // Computer players move as soon as they have decided, so that the
        // suites play whole matches quickly and a hand-moved clock need not
        // be moved for them; their time for a move has tests of its own
        // (tests/api/bots.rs).
        bot_move: Duration::ZERO,
        // A `your_turn` is held briefly, and the notification tests'
        // receivers listen on the loopback interface
        // (tests/api/notifications.rs).
        notifications: kaarttafel::config::notifications::NotificationSettings {
            delay: Duration::from_millis(300),
            allow_private: true,
            ..Default::default()
        },
        bot_trump: Duration::ZERO,
        // Applied by the binary's `main` to the whole process, not by an
        // app started in a test (tests/api/scheduling.rs).
        cpu_scheduling: kaarttafel::config::CpuScheduling::Normal,
    }
}

/// A running app and a client for it.
pub struct TestApp {
    pub base: String,
    /// Where `/metrics` is served (its own port).
    pub metrics_base: String,
    pub client: reqwest::Client,
    pub settings: Settings,
    stopper: kaarttafel::startup::Stopper,
    _scratch: Option<Scratch>,
}

/// An answer: status, headers and JSON body (Null when empty).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The problem `code` of an error answer.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

/// A player of the test: id and token.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: String,
    pub token: String,
}

impl TestApp {
    /// Starts the app on a fresh database of `db`.
    pub async fn spawn(db: Db) -> TestApp {
        let (database, dir) = fresh_database(db).await;
        TestApp::start(settings(database), dir).await
    }

    /// Starts the app with `settings`.
    pub async fn start(settings: Settings, scratch: Option<Scratch>) -> TestApp {
        let app = Application::build(&settings).await.expect("app starts");
        let base = format!("http://127.0.0.1:{}", app.port());
        let metrics_base = format!("http://127.0.0.1:{}", app.metrics_port().unwrap_or(0));
        let stopper = app.stopper();
        tokio::spawn(app.run());
        TestApp {
            base,
            metrics_base,
            client: client(),
            settings,
            stopper,
            _scratch: scratch,
        }
    }

    /// Starts the app on a fresh database of `db`, served under the path
    /// `prefix`.
    pub async fn spawn_under(db: Db, prefix: &str) -> TestApp {
        let (database, scratch) = fresh_database(db).await;
        let mut settings = settings(database);
        settings.path_prefix = prefix.to_owned();
        TestApp::start(settings, scratch).await
    }

    /// Starts the app on a fresh database of `db` with time from `clock`,
    /// which the test moves by hand, and tokens valid for 30 days.
    pub async fn spawn_with_clock(
        db: Db,
        clock: std::sync::Arc<kaarttafel::clock::ManualClock>,
    ) -> TestApp {
        let (database, dir) = fresh_database(db).await;
        let mut settings = settings(database);
        // These tests move the clock by days; their players' tokens live
        // as long as the service's default, so that they stay valid.
        settings.token_ttl = Duration::from_secs(30 * 24 * 3600);
        TestApp::start_with_clock(settings, dir, clock).await
    }

    /// Starts the app with `settings` and time from `clock`, which the test
    /// moves by hand.
    pub async fn start_with_clock(
        settings: Settings,
        scratch: Option<Scratch>,
        clock: std::sync::Arc<kaarttafel::clock::ManualClock>,
    ) -> TestApp {
        let app = Application::build_with_clock(&settings, clock)
            .await
            .expect("app starts");
        let base = format!("http://127.0.0.1:{}", app.port());
        let metrics_base = format!("http://127.0.0.1:{}", app.metrics_port().unwrap_or(0));
        let stopper = app.stopper();
        tokio::spawn(app.run());
        TestApp {
            base,
            metrics_base,
            client: client(),
            settings,
            stopper,
            _scratch: scratch,
        }
    }

    /// The game as `player` sees it once its version is past `version`
    /// (a long poll; the scheduler's moves arrive this way).
    pub async fn view_after(&self, id: &str, player: &Player, version: i64) -> Value {
        let answer = self
            .send(
                Method::GET,
                &format!("/v1/games/{id}?wait_for_version={version}&timeout_s=20"),
                Some(&player.token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        answer.body
    }

    /// A second instance of the app on the same database.
    pub async fn second_instance(&self) -> TestApp {
        TestApp::start(self.settings.clone(), None).await
    }

    /// Stops the app gracefully (its database stays).
    pub async fn stop(&self) {
        self.stopper.stop().await;
    }

    /// Stops the app gracefully and starts it again on the same database.
    pub async fn restart(self) -> TestApp {
        self.stopper.stop().await;
        TestApp::start(self.settings.clone(), self._scratch).await
    }

    /// The instance's `/metrics` (on its own address), as text.
    pub async fn metrics(&self) -> String {
        self.client
            .get(format!("{}/metrics", self.metrics_base))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("metrics body")
    }

    /// The value of the metric line that starts with `series`, 0 when absent.
    pub async fn metric(&self, series: &str) -> f64 {
        self.metrics()
            .await
            .lines()
            .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
            .unwrap_or(0.0)
    }

    /// GETs `path` (a redirect followed): the whole response.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request sent")
    }

    /// GETs `path` as it is answered, a redirect not followed.
    pub async fn get_unfollowed(&self, path: &str) -> reqwest::Response {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client")
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request sent")
    }

    /// Sends a request; `body` None sends no body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        self.send_with(method, path, token, body, &[]).await
    }

    /// Sends a request with extra headers.
    pub async fn send_with(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body read");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)
                .unwrap_or_else(|_| panic!("{path} answered non-JSON: {text}"))
        };
        if status.is_server_error() {
            panic!("{path} answered {status}: {body}");
        }
        Answer {
            status,
            headers,
            body,
        }
    }

    /// Creates a player.
    pub async fn player(&self, name: &str) -> Player {
        let answer = self
            .send(
                Method::POST,
                "/v1/players",
                None,
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        Player {
            id: answer.body["id"].as_str().unwrap().to_owned(),
            token: answer.body["token"].as_str().unwrap().to_owned(),
        }
    }

    /// Creates a table of `game` with `options` hosted by `host`; returns its id.
    pub async fn table(&self, host: &Player, game: &str, options: Value) -> String {
        let answer = self
            .send(
                Method::POST,
                "/v1/games",
                Some(&host.token),
                Some(json!({"game": game, "options": options})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.body["id"].as_str().unwrap().to_owned()
    }

    /// A full table of `seats` players (the first is the host, in seat 0).
    pub async fn full_table(
        &self,
        game: &str,
        options: Value,
        seats: usize,
    ) -> (String, Vec<Player>) {
        let mut players = Vec::new();
        for i in 0..seats {
            players.push(self.player(&format!("player {i}")).await);
        }
        let id = self.table(&players[0], game, options).await;
        self.seat_the_rest(&id, &players).await;
        (id, players)
    }

    /// Seats every player but the first (the host) at table `id`, each in
    /// the seat of its place in `players`.
    pub async fn seat_the_rest(&self, id: &str, players: &[Player]) {
        for (i, player) in players.iter().enumerate().skip(1) {
            let answer = self
                .send(
                    Method::POST,
                    &format!("/v1/games/{id}/seats"),
                    Some(&player.token),
                    Some(json!({"seat": i})),
                )
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        }
    }

    /// The game as `player` sees it.
    pub async fn view(&self, id: &str, player: &Player) -> Value {
        let answer = self
            .send(
                Method::GET,
                &format!("/v1/games/{id}"),
                Some(&player.token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        answer.body
    }

    /// Sends `mv` for `player`.
    pub async fn play(&self, id: &str, player: &Player, mv: Value) -> Answer {
        self.send(
            Method::POST,
            &format!("/v1/games/{id}/moves"),
            Some(&player.token),
            Some(json!({"move": mv})),
        )
        .await
    }
}

/// Every card code that appears as a JSON string anywhere in `value`.
pub fn cards_in(value: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect_cards(value, &mut found);
    found
}

fn collect_cards(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::String(s) if is_card(s) => {
            found.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| collect_cards(v, found)),
        Value::Object(map) => map.values().for_each(|v| collect_cards(v, found)),
        _ => {}
    }
}

fn is_card(s: &str) -> bool {
    let Some(suit) = s.chars().last() else {
        return false;
    };
    let rank = &s[..s.len() - suit.len_utf8()];
    "CDHS".contains(suit)
        && [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ]
        .contains(&rank)
}

/// Every card in the string values of `value`'s fields, `skip` removed first
/// (JSON pointers to public history that may repeat card codes of earlier deals).
pub fn cards_outside(value: &Value, skip: &[&str]) -> BTreeSet<String> {
    let mut value = value.clone();
    for pointer in skip {
        if let Some(v) = value.pointer_mut(pointer) {
            *v = Value::Null;
        }
    }
    cards_in(&value)
}

/// The tests' HTTP client. It drops a pooled connection after 2 s idle:
/// the server closes an idle keep-alive connection after 5 s (actix-web's
/// default), and a client that reuses one at that instant gets
/// `IncompleteMessage` for a request the server never read (seen once, in a
/// bots test that waited on the stream between two moves). Clients of the
/// service should do the same (docs/api.md, "Connections").
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

/// The legal moves of `view` but revoke reports and take-backs (which end
/// or undo deals in club mode): what a test playing on at random picks from.
pub fn moves_but_reports(view: &Value) -> Vec<&Value> {
    view["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| !matches!(m["type"].as_str(), Some("report_revoke" | "take_back")))
        .collect()
}

/// Every view `player`'s event stream (`GET /v1/games/{id}/stream`) sends,
/// collected in the background from the moment it opens, so a test can scan
/// every stream event as well as every answer.
pub struct StreamViews {
    pub views: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
    pub reader: tokio::task::JoinHandle<()>,
}

impl StreamViews {
    pub async fn open(app: &TestApp, id: &str, player: &Player) -> StreamViews {
        let response = app
            .client
            .get(format!("{}/v1/games/{id}/stream", app.base))
            .bearer_auth(&player.token)
            .send()
            .await
            .expect("stream opens");
        assert_eq!(response.status(), StatusCode::OK);
        let views = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&views);
        let reader = tokio::spawn(async move {
            let mut body = futures_util::StreamExt::boxed(response.bytes_stream());
            let mut buffer = String::new();
            while let Some(Ok(chunk)) = futures_util::StreamExt::next(&mut body).await {
                buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
                while let Some(end) = buffer.find("\n\n") {
                    let block: String = buffer.drain(..end + 2).collect();
                    if !block.lines().any(|l| l == "event: view") {
                        continue;
                    }
                    let data: String = block
                        .lines()
                        .filter_map(|l| l.strip_prefix("data: "))
                        .collect();
                    let view: Value = serde_json::from_str(&data).expect("a JSON view");
                    sink.lock().unwrap().push(view);
                }
            }
        });
        StreamViews { views, reader }
    }
}
