//! Load generator: plays legal moves against a running server as fast as it can.
//!
//! Each of `--tables` concurrent drivers (one keep-alive connection each)
//! sets up its tables and players, then loops: `GET /v1/games/{id}` as the
//! seat that is awaited, pick one of that view's `legal_moves`, `POST
//! /v1/games/{id}/moves` with `expected_version`. One move is therefore one
//! GET view and one POST move, as a client would do it. A finished table is
//! replaced by a new one. With `--reads` the drivers only GET views (pure
//! reads).
//!
//! By default a driver plays one table and reads it as its awaited seat,
//! so the reads go to `--tables` games and tokens. With `--spread K` each
//! driver plays K tables of its own, each move or read on one of them
//! picked at random, and a read as a random seat of it: reads and moves
//! spread over K times as many games and four times as many players, as
//! many players at many tables make them. Drivers never share a table.
//!
//! Setting up (players, tables, seats) comes before the clock starts. With
//! `--tables-file PATH` the tables listed there (one a line: the game's id
//! and its seats' tokens, driver `d`'s `k`-th table on line `k * tables +
//! d`) are played instead of new ones where there are, and the tables
//! played are written back at the end, so several runs play the same games
//! (`tools/bench_service.py` runs pgbench on them).
//!
//! With `--acked-log PATH` every acknowledged move (a 2xx answer to its
//! `POST`) is written to PATH as it is answered, one line each: the Unix
//! time in milliseconds, the game's id, the version the move made (the
//! `seq` of its event), the seat and the move's type. A failover test
//! compares it with the database afterwards (`tests/failover/`).
//!
//! It reports moves/s, GET/s and p50/p99/p999 latency per endpoint, and with
//! `--json` one JSON line for scripts (`tools/bench_service.sh`). It is bounded
//! in time (`--seconds`, at most 600) and count (`--max-moves`), and talks to
//! loopback addresses only.
//!
//! ```sh
//! cargo run --release --example loadgen -- --url http://127.0.0.1:8080 --tables 16 --seconds 20
//! cargo run --release --example loadgen -- --tables 16 --spread 16 --reads
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What the command line asked for.
#[derive(Clone, Debug)]
struct Options {
    url: String,
    tables: usize,
    seconds: u64,
    max_moves: u64,
    game: String,
    deals: u64,
    reads: bool,
    json: bool,
    spread: usize,
    tables_file: Option<String>,
    acked_log: Option<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: loadgen [--url http://127.0.0.1:8080] [--tables 16] [--seconds 20] \
         [--max-moves N] [--game klaverjassen|potverteren] [--deals 16] [--reads] [--json] \
         [--spread K] [--tables-file PATH] [--acked-log PATH]"
    );
    std::process::exit(2)
}

fn parse_options() -> Options {
    let mut o = Options {
        url: "http://127.0.0.1:8080".into(),
        tables: 16,
        seconds: 20,
        max_moves: u64::MAX,
        game: "klaverjassen".into(),
        deals: 16,
        reads: false,
        json: false,
        spread: 1,
        tables_file: None,
        acked_log: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--url" => o.url = value().trim_end_matches('/').to_owned(),
            "--tables" => o.tables = value().parse().unwrap_or_else(|_| usage()),
            "--seconds" => o.seconds = value().parse().unwrap_or_else(|_| usage()),
            "--max-moves" => o.max_moves = value().parse().unwrap_or_else(|_| usage()),
            "--game" => o.game = value(),
            "--deals" => o.deals = value().parse().unwrap_or_else(|_| usage()),
            "--reads" => o.reads = true,
            "--json" => o.json = true,
            "--spread" => o.spread = value().parse().unwrap_or_else(|_| usage()),
            "--tables-file" => o.tables_file = Some(value()),
            "--acked-log" => o.acked_log = Some(value()),
            _ => usage(),
        }
    }
    let host = o
        .url
        .strip_prefix("http://")
        .unwrap_or_else(|| usage())
        .split(['/', ':'])
        .next()
        .unwrap_or("");
    let loopback =
        host == "localhost" || host.starts_with("127.") || o.url.starts_with("http://[::1]");
    if !loopback {
        eprintln!("loadgen: only loopback URLs (127.0.0.0/8, localhost, [::1])");
        std::process::exit(2)
    }
    if !(1..=1024).contains(&o.tables)
        || !(1..=600).contains(&o.seconds)
        || !(1..=4096).contains(&(o.tables * o.spread))
    {
        eprintln!("loadgen: --tables 1..1024, --seconds 1..600, --tables × --spread at most 4096");
        std::process::exit(2)
    }
    if !matches!(o.game.as_str(), "klaverjassen" | "potverteren") || !(1..=16).contains(&o.deals) {
        usage()
    }
    o
}

/// Latencies in microseconds per endpoint, and the count of non-2xx answers.
#[derive(Default)]
struct Samples {
    latencies: BTreeMap<&'static str, Vec<u32>>,
    errors: BTreeMap<&'static str, u64>,
}

impl Samples {
    fn merge(&mut self, other: Samples) {
        for (k, mut v) in other.latencies {
            self.latencies.entry(k).or_default().append(&mut v);
        }
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
    }
}

/// One driver's connection to the server and its own measurements.
/// The parts of an answer a driver uses. The rest (a view with its score
/// sheet is up to 24 KB) is skipped without being built into values: the
/// client shares the machine with the service, so it should cost little.
#[derive(Default, serde::Deserialize)]
struct Answer {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    version: Option<i64>,
    #[serde(default)]
    awaiting: Option<Awaiting>,
    #[serde(default)]
    legal_moves: Vec<Value>,
}

#[derive(Default, serde::Deserialize)]
struct Awaiting {
    #[serde(default)]
    seats: Vec<usize>,
}

struct Driver {
    http: Http,
    samples: Samples,
    rng: u64,
}

impl Driver {
    /// Sends one request, timing it under `endpoint`; None on a transport
    /// error or non-2xx. The answer is parsed only when `parse` asks for it
    /// (a pure read needs its status alone).
    async fn call(
        &mut self,
        endpoint: &'static str,
        request: Request<'_>,
        parse: bool,
    ) -> Option<Answer> {
        let started = Instant::now();
        let answer = match self.http.send(request).await {
            Ok((status, body)) if (200..300).contains(&status) => {
                if parse {
                    serde_json::from_slice(body).ok()
                } else {
                    Some(Answer::default())
                }
            }
            _ => None,
        };
        let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
        self.samples
            .latencies
            .entry(endpoint)
            .or_default()
            .push(micros);
        if answer.is_none() {
            *self.samples.errors.entry(endpoint).or_default() += 1;
        }
        answer
    }

    fn next_random(&mut self, below: usize) -> usize {
        // xorshift64: enough to spread the picks, no dependency needed.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % below.max(1) as u64) as usize
    }

    async fn new_player(&mut self, name: &str) -> Option<String> {
        let body = json!({ "name": name }).to_string();
        let request = Request::post("/v1/players", None, &body);
        let player = self.call("POST /v1/players", request, true).await?;
        player.token
    }

    /// Creates the players and a full table.
    async fn new_table(&mut self, o: &Options) -> Option<Table> {
        let seats = if o.game == "klaverjassen" { 4 } else { 5 };
        let mut tokens = Vec::with_capacity(seats);
        for seat in 0..seats {
            tokens.push(self.new_player(&format!("load{seat}")).await?);
        }
        let options = if o.game == "klaverjassen" {
            json!({ "deals": o.deals })
        } else {
            json!({ "seats": seats })
        };
        let body = json!({ "game": o.game, "options": options }).to_string();
        let request = Request::post("/v1/games", Some(&tokens[0]), &body);
        let created = self.call("POST /v1/games", request, true).await?;
        let mut view = created;
        let id = view.id.take()?;
        let seats_path = format!("/v1/games/{id}/seats");
        for token in &tokens[1..] {
            let request = Request::post(&seats_path, Some(token), "{}");
            view = self
                .call("POST /v1/games/{id}/seats", request, true)
                .await?;
        }
        Some(Table::new(id, tokens, &view))
    }

    /// A table of the tables file (its game id and its seats' tokens),
    /// with the seat it awaits, read as its first seat; `None` when it
    /// cannot be read or is finished.
    async fn listed_table(&mut self, line: &str) -> Option<Table> {
        let mut fields = line.split_whitespace().map(str::to_owned);
        let id = fields.next()?;
        let tokens: Vec<String> = fields.collect();
        let path = format!("/v1/games/{id}");
        let request = Request::get(&path, tokens.first()?);
        let view = self.call("GET /v1/games/{id}", request, true).await?;
        let table = Table::new(id, tokens, &view);
        table.awaited.is_some().then_some(table)
    }

    /// A table to play: `listed` when it is still playing, a new one
    /// otherwise (tried until one is made or the run stops).
    async fn table(&mut self, o: &Options, listed: Option<&str>, stop: &AtomicBool) -> Table {
        if let Some(line) = listed
            && let Some(table) = self.listed_table(line).await
        {
            return table;
        }
        loop {
            if let Some(table) = self.new_table(o).await {
                return table;
            }
            if stop.load(Ordering::Relaxed) {
                return Table::new(String::new(), Vec::new(), &Answer::default());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// One table a driver plays: its game, its seats' tokens and the seat
/// whose move it awaits (`None`: finished, to be replaced).
struct Table {
    id: String,
    tokens: Vec<String>,
    game_path: String,
    moves_path: String,
    awaited: Option<usize>,
}

impl Table {
    fn new(id: String, tokens: Vec<String>, view: &Answer) -> Table {
        Table {
            game_path: format!("/v1/games/{id}"),
            moves_path: format!("/v1/games/{id}/moves"),
            awaited: awaited(view),
            id,
            tokens,
        }
    }

    /// The line of the tables file that lists it.
    fn line(&self) -> String {
        std::iter::once(self.id.as_str())
            .chain(self.tokens.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The seat whose move is awaited, if any.
fn awaited(view: &Answer) -> Option<usize> {
    view.awaiting.as_ref()?.seats.first().copied()
}

/// How long setting the tables up may take before the run gives up.
const SETUP_TIMEOUT: Duration = Duration::from_secs(300);

/// What the drivers share: when to start (after every driver set its
/// tables up) and stop, and the moves made so far.
struct Run {
    ready: tokio::sync::Barrier,
    stop: AtomicBool,
    moves: AtomicU64,
    /// `--acked-log`: each acknowledged move, written as it is answered.
    acked: Option<std::sync::Mutex<std::fs::File>>,
}

impl Run {
    /// Writes an acknowledged move to the `--acked-log`, if any.
    fn acknowledge(&self, game: &str, version: i64, seat: usize, kind: &Value) {
        use std::io::Write as _;
        let Some(log) = &self.acked else {
            return;
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let kind = kind.as_str().unwrap_or("?");
        let line = format!("{now} {game} {version} {seat} {kind}\n");
        let mut file = log.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(error) = file.write_all(line.as_bytes()) {
            eprintln!("loadgen: --acked-log: {error}");
            std::process::exit(2)
        }
    }
}

/// One driver: sets up its `--spread` tables (driver `index`'s lines of
/// `listed`, new tables for the rest), waits for the others, then plays or
/// reads until the run stops. Returns its measurements and the tables it
/// played at the end.
async fn drive(
    o: Arc<Options>,
    index: usize,
    listed: Arc<Vec<String>>,
    run: Arc<Run>,
) -> (Samples, Vec<Table>) {
    let mut d = Driver {
        http: Http::new(&o.url),
        samples: Samples::default(),
        rng: 0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
    };
    let mut tables = Vec::with_capacity(o.spread);
    for k in 0..o.spread {
        let line = listed.get(k * o.tables + index).map(String::as_str);
        tables.push(d.table(&o, line, &run.stop).await);
    }
    run.ready.wait().await;
    // Only what the clock sees is measured.
    d.samples = Samples::default();
    while !run.stop.load(Ordering::Relaxed) {
        let at = d.next_random(tables.len());
        let Some(seat) = tables[at].awaited else {
            tables[at] = d.table(&o, None, &run.stop).await;
            continue;
        };
        let table = &tables[at];
        if o.reads {
            // Nothing moves, so the awaited seat stays the same; spread
            // over many players, a read is any seat's. The view is read
            // whole but not parsed.
            let seat = if o.spread > 1 {
                d.next_random(table.tokens.len())
            } else {
                seat
            };
            let token = &table.tokens[seat.min(table.tokens.len() - 1)];
            let request = Request::get(&table.game_path, token);
            if d.call("GET /v1/games/{id}", request, false).await.is_none() {
                tables[at].awaited = None;
            }
            continue;
        }
        let token = &table.tokens[seat.min(table.tokens.len() - 1)];
        let request = Request::get(&table.game_path, token);
        let Some(seen) = d.call("GET /v1/games/{id}", request, true).await else {
            tables[at].awaited = None;
            continue;
        };
        // Any legal move but ending a Potverteren table, so tables run long.
        let legal: Vec<&Value> = seen
            .legal_moves
            .iter()
            .filter(|m| m["type"] != "end_table")
            .collect();
        if legal.is_empty() {
            tables[at].awaited = None;
            continue;
        }
        let pick = legal[d.next_random(legal.len())];
        let body = json!({ "move": pick, "expected_version": seen.version }).to_string();
        let request = Request::post(&table.moves_path, Some(token), &body);
        let after = d.call("POST /v1/games/{id}/moves", request, true).await;
        if let (Some(_), Some(expected)) = (&after, seen.version) {
            // The move made the version after the one it expected (its
            // event's seq).
            run.acknowledge(&table.id, expected + 1, seat, &pick["type"]);
        }
        tables[at].awaited = after.as_ref().and_then(awaited);
        if run.moves.fetch_add(1, Ordering::Relaxed) + 1 >= o.max_moves {
            run.stop.store(true, Ordering::Relaxed);
        }
    }
    (d.samples, tables)
}

/// The lines of the tables file, none when there is none yet.
fn read_tables_file(path: Option<&str>) -> Vec<String> {
    let Some(path) = path else {
        return Vec::new();
    };
    match std::fs::read_to_string(path) {
        Ok(text) => text.lines().map(str::to_owned).collect(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => {
            eprintln!("loadgen: {path}: {error}");
            std::process::exit(2)
        }
    }
}

/// Writes the tables played, driver `d`'s `k`-th on line `k * drivers + d`.
fn write_tables_file(path: &str, played: &[Vec<Table>]) {
    let spread = played.iter().map(Vec::len).max().unwrap_or(0);
    let mut text = String::new();
    for k in 0..spread {
        for tables in played {
            // An empty line for a table not made (the run stopped while
            // making it) keeps the others at their lines.
            if let Some(table) = tables.get(k) {
                text.push_str(&table.line());
            }
            text.push('\n');
        }
    }
    let temporary = format!("{path}.new");
    if let Err(error) =
        std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path))
    {
        eprintln!("loadgen: {path}: {error}");
        std::process::exit(2)
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

#[tokio::main]
async fn main() {
    let o = Arc::new(parse_options());
    let listed = Arc::new(read_tables_file(o.tables_file.as_deref()));
    let acked = o.acked_log.as_deref().map(|path| {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|error| {
                eprintln!("loadgen: {path}: {error}");
                std::process::exit(2)
            });
        std::sync::Mutex::new(file)
    });
    let run = Arc::new(Run {
        ready: tokio::sync::Barrier::new(o.tables + 1),
        stop: AtomicBool::new(false),
        moves: AtomicU64::new(0),
        acked,
    });
    let tasks: Vec<_> = (0..o.tables)
        .map(|i| {
            tokio::spawn(drive(
                Arc::clone(&o),
                i,
                Arc::clone(&listed),
                Arc::clone(&run),
            ))
        })
        .collect();
    if tokio::time::timeout(SETUP_TIMEOUT, run.ready.wait())
        .await
        .is_err()
    {
        eprintln!("loadgen: the tables were not set up in {SETUP_TIMEOUT:?}");
        std::process::exit(1)
    }
    let started = Instant::now();
    let deadline = tokio::time::sleep(Duration::from_secs(o.seconds));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                if run.stop.load(Ordering::Relaxed) { break; }
            }
        }
    }
    run.stop.store(true, Ordering::Relaxed);
    let mut samples = Samples::default();
    let mut played = Vec::with_capacity(o.tables);
    for task in tasks {
        if let Ok((s, tables)) = task.await {
            samples.merge(s);
            played.push(tables);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    if let Some(path) = &o.tables_file {
        write_tables_file(path, &played);
    }
    let mut endpoints = serde_json::Map::new();
    for (endpoint, latencies) in &mut samples.latencies {
        latencies.sort_unstable();
        endpoints.insert(
            (*endpoint).to_owned(),
            json!({
                "count": latencies.len(),
                "errors": samples.errors.get(endpoint).copied().unwrap_or(0),
                "per_s": latencies.len() as f64 / elapsed,
                "p50_ms": percentile(latencies, 0.50),
                "p99_ms": percentile(latencies, 0.99),
                "p999_ms": percentile(latencies, 0.999),
            }),
        );
    }
    let count = |e: &str| samples.latencies.get(e).map_or(0, Vec::len) as f64;
    let report = json!({
        "tables": o.tables,
        "spread": o.spread,
        "game": o.game,
        "reads": o.reads,
        "seconds": elapsed,
        "moves_per_s": count("POST /v1/games/{id}/moves") / elapsed,
        "gets_per_s": count("GET /v1/games/{id}") / elapsed,
        "endpoints": endpoints,
    });
    if o.json {
        println!("{report}");
        return;
    }
    println!(
        "{} tables, {:.1} s: {:.0} moves/s, {:.0} GET views/s",
        o.tables,
        elapsed,
        report["moves_per_s"].as_f64().unwrap_or(0.0),
        report["gets_per_s"].as_f64().unwrap_or(0.0)
    );
    println!(
        "{:<28} {:>8} {:>7} {:>9} {:>8} {:>8} {:>8}",
        "endpoint", "count", "errors", "per s", "p50 ms", "p99 ms", "p999 ms"
    );
    for (endpoint, e) in &endpoints {
        println!(
            "{:<28} {:>8} {:>7} {:>9.1} {:>8.2} {:>8.2} {:>8.2}",
            endpoint,
            e["count"],
            e["errors"],
            e["per_s"].as_f64().unwrap_or(0.0),
            e["p50_ms"].as_f64().unwrap_or(0.0),
            e["p99_ms"].as_f64().unwrap_or(0.0),
            e["p999_ms"].as_f64().unwrap_or(0.0)
        );
    }
}

/// One request as [`Http::send`] writes it.
struct Request<'a> {
    method: &'static str,
    path: &'a str,
    token: Option<&'a str>,
    body: Option<&'a str>,
}

impl<'a> Request<'a> {
    fn get(path: &'a str, token: &'a str) -> Request<'a> {
        Request {
            method: "GET",
            path,
            token: Some(token),
            body: None,
        }
    }

    fn post(path: &'a str, token: Option<&'a str>, json: &'a str) -> Request<'a> {
        Request {
            method: "POST",
            path,
            token,
            body: Some(json),
        }
    }
}

/// A driver's one keep-alive HTTP/1.1 connection to the server, written by
/// hand: the client shares the two cores with the service and Postgres, and
/// a general client (reqwest over hyper, with its pool and header maps) cost
/// more per request than the service's own HTTP stack, leaving less of the
/// machine to what is measured. It sends one request at a time, reads the
/// answer's status and its body (`Content-Length` or chunked), and opens a
/// new connection after an error or a `Connection: close`. A request is not
/// retried: an error is counted as one.
struct Http {
    addr: String,
    host: String,
    stream: Option<tokio::net::TcpStream>,
    out: Vec<u8>,
    buf: Vec<u8>,
    body: Vec<u8>,
}

/// How long one exchange may take before it counts as an error.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

impl Http {
    /// For a `http://host:port` URL (checked to be loopback already).
    fn new(url: &str) -> Http {
        let host = url
            .strip_prefix("http://")
            .unwrap_or(url)
            .split('/')
            .next()
            .unwrap_or("")
            .to_owned();
        let has_port = match host.strip_prefix('[') {
            Some(v6) => v6.contains("]:"),
            None => host.contains(':'),
        };
        let addr = if has_port {
            host.clone()
        } else {
            format!("{host}:80")
        };
        Http {
            addr,
            host,
            stream: None,
            out: Vec::with_capacity(1024),
            buf: Vec::with_capacity(64 * 1024),
            body: Vec::with_capacity(64 * 1024),
        }
    }

    /// Sends `request` and returns the answer's status and body.
    async fn send(&mut self, request: Request<'_>) -> std::io::Result<(u16, &[u8])> {
        let exchanged = tokio::time::timeout(EXCHANGE_TIMEOUT, self.exchange(request)).await;
        match exchanged {
            Ok(Ok((status, keep))) => {
                if !keep {
                    self.stream = None;
                }
                Ok((status, &self.body))
            }
            Ok(Err(error)) => {
                self.stream = None;
                Err(error)
            }
            Err(_) => {
                self.stream = None;
                Err(std::io::ErrorKind::TimedOut.into())
            }
        }
    }

    /// One exchange: the status, whether the connection may be kept, and
    /// the body in `self.body`.
    async fn exchange(&mut self, request: Request<'_>) -> std::io::Result<(u16, bool)> {
        use std::io::Write as _;
        use tokio::io::AsyncWriteExt as _;

        self.out.clear();
        write!(
            self.out,
            "{} {} HTTP/1.1\r\nHost: {}\r\n",
            request.method, request.path, self.host
        )?;
        if let Some(token) = request.token {
            write!(self.out, "Authorization: Bearer {token}\r\n")?;
        }
        match request.body {
            Some(body) => write!(
                self.out,
                "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )?,
            None => self.out.extend_from_slice(b"\r\n"),
        }
        if self.stream.is_none() {
            let stream = tokio::net::TcpStream::connect(&self.addr).await?;
            stream.set_nodelay(true)?;
            self.stream = Some(stream);
            self.buf.clear();
        }
        let stream = self.stream.as_mut().expect("connected above");
        stream.write_all(&self.out).await?;

        // The head: up to the blank line.
        let head_end = loop {
            if let Some(at) = find(&self.buf, b"\r\n\r\n") {
                break at + 4;
            }
            read_more(stream, &mut self.buf).await?;
        };
        let head = std::str::from_utf8(&self.buf[..head_end]).map_err(invalid)?;
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| invalid("no status"))?;
        let mut length = None;
        let mut chunked = false;
        let mut keep = status_line.starts_with("HTTP/1.1");
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.parse::<usize>().map_err(invalid)?);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                keep = !value.eq_ignore_ascii_case("close");
            }
        }
        self.buf.drain(..head_end);
        self.body.clear();
        if chunked {
            loop {
                let line_end = loop {
                    if let Some(at) = find(&self.buf, b"\r\n") {
                        break at;
                    }
                    read_more(stream, &mut self.buf).await?;
                };
                let size_text = std::str::from_utf8(&self.buf[..line_end]).map_err(invalid)?;
                let size_text = size_text.split(';').next().unwrap_or("").trim();
                let size = usize::from_str_radix(size_text, 16).map_err(invalid)?;
                // The chunk and its CRLF (the last chunk: the CRLF that
                // ends the trailers, none sent here).
                while self.buf.len() < line_end + 2 + size + 2 {
                    read_more(stream, &mut self.buf).await?;
                }
                let start = line_end + 2;
                self.body.extend_from_slice(&self.buf[start..start + size]);
                self.buf.drain(..start + size + 2);
                if size == 0 {
                    break;
                }
            }
        } else {
            let Some(length) = length else {
                return Err(invalid("an answer without Content-Length or chunks"));
            };
            while self.buf.len() < length {
                read_more(stream, &mut self.buf).await?;
            }
            self.body.extend_from_slice(&self.buf[..length]);
            self.buf.drain(..length);
        }
        Ok((status, keep))
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads what the server sent next onto the end of `buf`; an error at the
/// end of the stream.
async fn read_more(stream: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> std::io::Result<()> {
    use tokio::io::AsyncReadExt as _;
    if buf.capacity() - buf.len() < 16 * 1024 {
        buf.reserve(64 * 1024);
    }
    if stream.read_buf(buf).await? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

fn invalid(error: impl ToString) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, error.to_string())
}
