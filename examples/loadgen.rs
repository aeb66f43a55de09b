//! Load generator: plays legal moves against a running server as fast as it can.
//!
//! Each of `--tables` concurrent drivers creates its players and a table, then
//! loops: `GET /v1/games/{id}` as the seat that is awaited, pick one of that
//! view's `legal_moves`, `POST /v1/games/{id}/moves` with `expected_version`.
//! One move is therefore one GET view and one POST move, as a client would do
//! it. A finished table is replaced by a new one. With `--reads` the drivers
//! only GET views of their table (pure reads).
//!
//! It reports moves/s, GET/s and p50/p99/p999 latency per endpoint, and with
//! `--json` one JSON line for scripts (`tools/bench_service.sh`). It is bounded
//! in time (`--seconds`, at most 600) and count (`--max-moves`), and talks to
//! loopback addresses only.
//!
//! ```sh
//! cargo run --release --example loadgen -- --url http://127.0.0.1:8080 --tables 16 --seconds 20
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
}

fn usage() -> ! {
    eprintln!(
        "usage: loadgen [--url http://127.0.0.1:8080] [--tables 16] [--seconds 20] \
         [--max-moves N] [--game klaverjassen|potverteren] [--deals 16] [--reads] [--json]"
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
    if !(1..=1024).contains(&o.tables) || !(1..=600).contains(&o.seconds) {
        eprintln!("loadgen: --tables 1..1024, --seconds 1..600");
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

    /// Creates the players and a full table; returns the game id, tokens by seat
    /// and the last view (which names the awaited seat).
    async fn new_table(&mut self, o: &Options) -> Option<(String, Vec<String>, Answer)> {
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
        Some((id, tokens, view))
    }
}

/// The seat whose move is awaited, if any.
fn awaited(view: &Answer) -> Option<usize> {
    view.awaiting.as_ref()?.seats.first().copied()
}

async fn drive(
    o: Arc<Options>,
    index: usize,
    stop: Arc<AtomicBool>,
    moves: Arc<AtomicU64>,
) -> Samples {
    let mut d = Driver {
        http: Http::new(&o.url),
        samples: Samples::default(),
        rng: 0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
    };
    'tables: while !stop.load(Ordering::Relaxed) {
        let Some((id, tokens, mut view)) = d.new_table(&o).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let game_path = format!("/v1/games/{id}");
        let moves_path = format!("/v1/games/{id}/moves");
        while !stop.load(Ordering::Relaxed) {
            let Some(seat) = awaited(&view) else {
                continue 'tables; // finished
            };
            let token = &tokens[seat.min(tokens.len() - 1)];
            let request = Request::get(&game_path, token);
            if o.reads {
                // Nothing moves, so the awaited seat stays the same: the
                // view is read whole but not parsed.
                if d.call("GET /v1/games/{id}", request, false).await.is_none() {
                    continue 'tables;
                }
                continue;
            }
            let Some(seen) = d.call("GET /v1/games/{id}", request, true).await else {
                continue 'tables;
            };
            // Any legal move but ending a Potverteren table, so tables run long.
            let legal: Vec<&Value> = seen
                .legal_moves
                .iter()
                .filter(|m| m["type"] != "end_table")
                .collect();
            if legal.is_empty() {
                continue 'tables;
            }
            let pick = legal[d.next_random(legal.len())];
            let body = json!({ "move": pick, "expected_version": seen.version }).to_string();
            let request = Request::post(&moves_path, Some(token), &body);
            let Some(after) = d.call("POST /v1/games/{id}/moves", request, true).await else {
                continue 'tables;
            };
            view = after;
            if moves.fetch_add(1, Ordering::Relaxed) + 1 >= o.max_moves {
                stop.store(true, Ordering::Relaxed);
            }
        }
    }
    d.samples
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
    let stop = Arc::new(AtomicBool::new(false));
    let moves = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..o.tables)
        .map(|i| {
            tokio::spawn(drive(
                Arc::clone(&o),
                i,
                Arc::clone(&stop),
                Arc::clone(&moves),
            ))
        })
        .collect();
    let deadline = tokio::time::sleep(Duration::from_secs(o.seconds));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                if stop.load(Ordering::Relaxed) { break; }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let mut samples = Samples::default();
    for task in tasks {
        if let Ok(s) = task.await {
            samples.merge(s);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
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
