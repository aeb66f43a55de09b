//! Settings read once from the environment at start, into typed values.
//!
//! An invalid value is an error that names the variable; `main` prints it and
//! exits. Secrets are wrapped in [`Secret`] so they never reach a log line.

pub mod notifications;
pub mod postgres;

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

/// A value that must not be printed: `Debug` and `Display` show `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where the games are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// A Postgres server, or several of which the one that takes writes is
    /// used (`DATABASE_URL=postgres://…`, hosts listed as libpq lists them;
    /// see [`postgres::PostgresUrl`]).
    Postgres(Secret),
    /// An embedded SQLite file, created on first start.
    Sqlite(String),
}

/// Tokens of an external identity provider, accepted beside our own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The provider's public key, PEM (RSA or EC).
    pub public_key_pem: String,
    /// The `iss` every token must carry.
    pub issuer: String,
    /// The `aud` every token must carry.
    pub audience: String,
}

/// Everything the service is configured with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Address to listen on (`HOST`, default 127.0.0.1).
    pub host: IpAddr,
    /// Port to listen on (`PORT`, default 8080; 0 picks a free one).
    pub port: u16,
    /// Where `/metrics` is served, apart from the API (`METRICS_ADDR`,
    /// default 127.0.0.1:9464; `off`: nowhere).
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// The database (`DATABASE_URL`; unset means the embedded SQLite file).
    pub database: Database,
    /// The HS256 signing secret (`JWT_SECRET`); `None` means one kept in the database.
    pub jwt_secret: Option<Secret>,
    /// How long an issued token is valid (`TOKEN_TTL`, seconds, default 30 days).
    pub token_ttl: Duration,
    /// Optional external identity provider (`AUTH_EXTERNAL_*`).
    pub external_identity: Option<ExternalIdentity>,
    /// Proxies whose `X-Forwarded-*` headers are believed (`TRUSTED_PROXIES`).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// A path prefix everything is served under, such as `/cards` (`PATH_PREFIX`).
    pub path_prefix: String,
    /// How long in-flight requests may take after SIGTERM (`SHUTDOWN_TIMEOUT`, seconds).
    pub shutdown_timeout: Duration,
    /// How often an idle event stream gets a keep-alive comment (`SSE_KEEP_ALIVE`, seconds).
    pub sse_keep_alive: Duration,
    /// Browser origins allowed by CORS (`CORS_ALLOWED_ORIGINS`); none by default.
    pub cors_allowed_origins: Vec<String>,
    /// HTTP worker threads (`WORKERS`, default the available parallelism).
    pub workers: usize,
    /// How long a request waits for a database connection, opening one
    /// included, before it answers 503 (`DB_ACQUIRE_TIMEOUT_MS`, default 2 s).
    pub db_acquire_timeout: Duration,
    /// Postgres connections an instance's HTTP workers share out between
    /// them (`DB_MAX_CONNECTIONS`, default 16, 2 to 1000); each worker has
    /// at least 2, and the scheduler and clean-up 4 of their own.
    pub db_max_connections: u32,
    /// How long a request body may take to arrive after its headers
    /// (`REQUEST_BODY_TIMEOUT`, seconds, default 10); then 408.
    pub request_body_timeout: Duration,
    /// Rate limits of this instance (`RATE_LIMIT_*`, `RATE_LIMITS=off`).
    pub rate_limits: RateLimits,
    /// The time a computer player has for a move (`BOT_MOVE_MS`, default
    /// 400 ms): its move is made that long after it starts deciding,
    /// however long it took (undecided by then, the `basic` player's), so
    /// that its timing does not tell how much it had to choose from
    /// (docs/bots.md, "Pacing"). 0: as soon as decided.
    pub bot_move: Duration,
    /// Notifications: how long a `your_turn` is held, the VAPID key, the
    /// webhook guard, the retries (`NOTIFY_*`, `VAPID_*`,
    /// `WEBHOOK_ALLOW_PRIVATE`; see [`notifications`]).
    pub notifications: notifications::NotificationSettings,
    /// The time a computer player has to name trump or pass
    /// (`BOT_TRUMP_MS`, default 1500 ms), in the same way: the strong
    /// player values every suit and the pass there, which takes longer
    /// than a card (docs/bots.md, "Pacing"). 0: as soon as decided.
    pub bot_trump: Duration,
    /// How the kernel schedules the service's threads (`CPU_SCHEDULING`,
    /// `batch` by default on Linux, or `normal`).
    pub cpu_scheduling: CpuScheduling,
}

/// How the kernel schedules the service's threads (Linux; elsewhere the
/// system's default is kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuScheduling {
    /// `SCHED_BATCH`: a thread of the service that a database answer or a
    /// request wakes waits for the running task's turn to end rather than
    /// interrupting it. Where Postgres shares the machine, its backend then
    /// finishes its answer and goes back to waiting before the service
    /// reads it, instead of being interrupted mid-answer (docs/performance.md).
    Batch,
    /// The kernel's default (`SCHED_OTHER`): a woken thread may interrupt
    /// the one running, for the lowest latency beside other busy programs.
    Normal,
}

/// A rate limit: `requests` per `per`, refilled evenly (GCRA), the whole
/// allowance usable at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// Requests per window.
    pub requests: std::num::NonZeroU32,
    /// The window.
    pub per: Duration,
}

/// The rate limits of one instance; `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateLimits {
    /// `POST /v1/players` per client address (`RATE_LIMIT_SIGNUPS`, default 60/600).
    pub signups: Option<Limit>,
    /// 401 answers per client address (`RATE_LIMIT_AUTH_FAILURES`, default 30/60).
    pub auth_failures: Option<Limit>,
    /// 404 answers under `/v1` per client address (`RATE_LIMIT_NOT_FOUND`, default 60/60).
    pub not_found: Option<Limit>,
    /// `GET`s under `/v1` per player, or per address without a valid
    /// token; a stream or long poll counts once (`RATE_LIMIT_READS`, default 600/60).
    pub reads: Option<Limit>,
    /// Other methods under `/v1` per player (`RATE_LIMIT_WRITES`, default 120/60).
    pub writes: Option<Limit>,
    /// Hints and deal analyses, which run the solver, per player, on top of
    /// `reads` (`RATE_LIMIT_SOLVER`, default 30/60).
    pub solver: Option<Limit>,
    /// Invite look-ups (`/v1/invites/…`, right code or wrong) per client
    /// address, taken before the code is looked up; past it, that
    /// address's invite requests are refused until the allowance refills
    /// (`RATE_LIMIT_INVITE_GUESSES`, default 20/60).
    pub invite_guesses: Option<Limit>,
}

impl RateLimits {
    /// No limits at all.
    pub fn off() -> RateLimits {
        RateLimits::default()
    }

    /// The limits when none is configured (README, configuration). Sign-ups
    /// come in bursts of up to 60 and then one every 10 s: a club's guests
    /// on one Wi-Fi, or the README's walkthrough run again and again, get
    /// through, while a script creating thousands of players meets 429s.
    pub fn defaults() -> RateLimits {
        RateLimits {
            signups: limit(60, 600),
            auth_failures: limit(30, 60),
            not_found: limit(60, 60),
            reads: limit(600, 60),
            writes: limit(120, 60),
            solver: limit(30, 60),
            invite_guesses: limit(20, 60),
        }
    }
}

fn limit(requests: u32, seconds: u64) -> Option<Limit> {
    Some(Limit {
        requests: std::num::NonZeroU32::new(requests)?,
        per: Duration::from_secs(seconds),
    })
}

/// `N/SECONDS` or `off`.
fn parse_limit(value: &str) -> Option<Option<Limit>> {
    let value = value.trim();
    if value == "off" {
        return Some(None);
    }
    let (requests, seconds) = value.split_once('/')?;
    let requests: u32 = requests.trim().parse().ok()?;
    let seconds: u64 = seconds.trim().parse().ok()?;
    if !(1..=86_400).contains(&seconds) || !(1..=1_000_000).contains(&requests) {
        return None;
    }
    Some(limit(requests, seconds))
}

/// The default embedded database file.
pub const DEFAULT_SQLITE_PATH: &str = "kaarttafel.db";
/// The default time in-flight requests get after SIGTERM.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
/// The default interval of keep-alive comments on an idle event stream.
pub const DEFAULT_SSE_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The default wait for a database connection before a 503.
pub const DEFAULT_DB_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);
/// The default count of Postgres connections the HTTP workers share.
pub const DEFAULT_DB_MAX_CONNECTIONS: u32 = 16;
/// The default time a request body may take to arrive.
pub const DEFAULT_REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time a computer player has for a move: above the strong
/// player's bound of a quarter of a second (docs/solver.md, "Budget").
pub const DEFAULT_BOT_MOVE: Duration = Duration::from_millis(400);
/// The default time a computer player has to name trump or pass: above
/// the strong player's valuation of every suit and the pass, which takes
/// 0.7 s median and 1.2 s at the 90th percentile on a busy 2-core machine
/// (docs/solver.md, "The trump choice"); it stops thinking at that time
/// anyway.
pub const DEFAULT_BOT_TRUMP: Duration = Duration::from_millis(1500);
/// The default token lifetime: 30 days.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// A variable with a value the service cannot use.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid {variable}: {reason}")]
pub struct ConfigError {
    /// The environment variable.
    pub variable: &'static str,
    /// Why its value was refused.
    pub reason: String,
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Settings, ConfigError> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests need not touch the environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let invalid = |variable: &'static str, reason: String| ConfigError { variable, reason };

        let host = match get("HOST") {
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid("HOST", format!("`{v}` is not an IP address")))?,
            None => IpAddr::from([127, 0, 0, 1]),
        };
        let port = match get("PORT") {
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid("PORT", format!("`{v}` is not a port (0..65535)")))?,
            None => 8080,
        };
        let metrics_addr = match get("METRICS_ADDR") {
            Some(v) if v.trim() == "off" => None,
            Some(v) => Some(v.trim().parse().map_err(|_| {
                invalid(
                    "METRICS_ADDR",
                    format!("`{v}` is not `IP:PORT` (such as 127.0.0.1:9464) or `off`"),
                )
            })?),
            None => Some(DEFAULT_METRICS_ADDR),
        };
        let database = match get("DATABASE_URL") {
            None => Database::Sqlite(DEFAULT_SQLITE_PATH.to_owned()),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                postgres::PostgresUrl::parse(&url)
                    .map_err(|reason| invalid("DATABASE_URL", reason))?;
                Database::Postgres(Secret::new(url))
            }
            Some(url) if url.starts_with("sqlite:") => {
                let path = url
                    .trim_start_matches("sqlite://")
                    .trim_start_matches("sqlite:");
                Database::Sqlite(path.to_owned())
            }
            Some(_) => {
                return Err(invalid(
                    "DATABASE_URL",
                    "expected postgres://… or sqlite:PATH (leave it unset for the embedded default)".into(),
                ));
            }
        };
        let jwt_secret = match get("JWT_SECRET") {
            Some(v) if v.len() < 32 => {
                return Err(invalid(
                    "JWT_SECRET",
                    "must be at least 32 characters".into(),
                ));
            }
            Some(v) => Some(Secret::new(v)),
            None => None,
        };
        let token_ttl = match get("TOKEN_TTL") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(secs) if (60..=31_536_000).contains(&secs) => Duration::from_secs(secs),
                _ => {
                    return Err(invalid(
                        "TOKEN_TTL",
                        format!("`{v}` is not a number of seconds between 60 and 31536000"),
                    ));
                }
            },
            None => DEFAULT_TOKEN_TTL,
        };
        let external = (
            get("AUTH_EXTERNAL_PUBLIC_KEY"),
            get("AUTH_EXTERNAL_ISSUER"),
            get("AUTH_EXTERNAL_AUDIENCE"),
        );
        let external_identity = match external {
            (None, None, None) => None,
            (Some(public_key_pem), Some(issuer), Some(audience)) => Some(ExternalIdentity {
                public_key_pem,
                issuer,
                audience,
            }),
            _ => {
                return Err(invalid(
                    "AUTH_EXTERNAL_PUBLIC_KEY",
                    "set AUTH_EXTERNAL_PUBLIC_KEY, AUTH_EXTERNAL_ISSUER and AUTH_EXTERNAL_AUDIENCE together".into(),
                ));
            }
        };
        let trusted_proxies = match get("TRUSTED_PROXIES") {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(|item| {
                    item.parse::<ipnet::IpNet>()
                        .or_else(|_| item.parse::<IpAddr>().map(ipnet::IpNet::from))
                        .map_err(|_| {
                            invalid(
                                "TRUSTED_PROXIES",
                                format!("`{item}` is not an IP address or CIDR"),
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        let path_prefix = match get("PATH_PREFIX") {
            None => String::new(),
            Some(prefix) => {
                let prefix = prefix.trim().trim_end_matches('/').to_owned();
                let valid = prefix.starts_with('/')
                    && prefix[1..].split('/').all(|part| {
                        !part.is_empty()
                            && part
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c))
                    });
                if !valid {
                    return Err(invalid(
                        "PATH_PREFIX",
                        format!("`{prefix}` is not a path prefix such as /cards"),
                    ));
                }
                prefix
            }
        };
        let shutdown_timeout = number(get, "SHUTDOWN_TIMEOUT", 0..=3600, "seconds")?
            .map_or(DEFAULT_SHUTDOWN_TIMEOUT, Duration::from_secs);
        let sse_keep_alive = number(get, "SSE_KEEP_ALIVE", 1..=300, "seconds")?
            .map_or(DEFAULT_SSE_KEEP_ALIVE, Duration::from_secs);
        let cors_allowed_origins = match get("CORS_ALLOWED_ORIGINS") {
            None => Vec::new(),
            Some(list) => list
                .split(',')
                .map(|origin| origin.trim().trim_end_matches('/').to_owned())
                .filter(|origin| !origin.is_empty())
                .map(|origin| {
                    let valid = (origin.starts_with("http://") || origin.starts_with("https://"))
                        && !origin["https://".len().min(origin.len())..].contains('/');
                    if valid {
                        Ok(origin)
                    } else {
                        Err(invalid(
                            "CORS_ALLOWED_ORIGINS",
                            format!("`{origin}` is not an origin such as https://app.example"),
                        ))
                    }
                })
                .collect::<Result<_, _>>()?,
        };
        let workers =
            number(get, "WORKERS", 1..=1024, "worker threads")?.unwrap_or_else(default_workers);
        let db_acquire_timeout =
            number(get, "DB_ACQUIRE_TIMEOUT_MS", 100..=60_000, "milliseconds")?
                .map_or(DEFAULT_DB_ACQUIRE_TIMEOUT, Duration::from_millis);
        let db_max_connections = number(get, "DB_MAX_CONNECTIONS", 2..=1000, "connections")?
            .unwrap_or(DEFAULT_DB_MAX_CONNECTIONS);
        let request_body_timeout = number(get, "REQUEST_BODY_TIMEOUT", 1..=300, "seconds")?
            .map_or(DEFAULT_REQUEST_BODY_TIMEOUT, Duration::from_secs);
        let bot_time = |variable: &'static str, default: Duration| {
            Ok(number(get, variable, 0..=10_000, "milliseconds")?
                .map_or(default, Duration::from_millis))
        };
        let bot_move = bot_time("BOT_MOVE_MS", DEFAULT_BOT_MOVE)?;
        let bot_trump = bot_time("BOT_TRUMP_MS", DEFAULT_BOT_TRUMP)?;
        let rate_limits = if get("RATE_LIMITS").is_some_and(|v| v.trim() == "off") {
            RateLimits::off()
        } else {
            let read = |variable: &'static str, default: Option<Limit>| match get(variable) {
                None => Ok(default),
                Some(v) => parse_limit(&v).ok_or_else(|| {
                    invalid(
                        variable,
                        format!("`{v}` is not `REQUESTS/SECONDS` (such as 60/60) or `off`"),
                    )
                }),
            };
            let defaults = RateLimits::defaults();
            RateLimits {
                signups: read("RATE_LIMIT_SIGNUPS", defaults.signups)?,
                auth_failures: read("RATE_LIMIT_AUTH_FAILURES", defaults.auth_failures)?,
                not_found: read("RATE_LIMIT_NOT_FOUND", defaults.not_found)?,
                reads: read("RATE_LIMIT_READS", defaults.reads)?,
                writes: read("RATE_LIMIT_WRITES", defaults.writes)?,
                solver: read("RATE_LIMIT_SOLVER", defaults.solver)?,
                invite_guesses: read("RATE_LIMIT_INVITE_GUESSES", defaults.invite_guesses)?,
            }
        };
        let notifications = notifications::read(&get)?;
        let cpu_scheduling = match get("CPU_SCHEDULING").as_deref().map(str::trim) {
            None | Some("batch") => CpuScheduling::Batch,
            Some("normal") => CpuScheduling::Normal,
            Some(v) => {
                return Err(invalid(
                    "CPU_SCHEDULING",
                    format!("`{v}` is neither `batch` nor `normal`"),
                ));
            }
        };
        Ok(Settings {
            host,
            port,
            metrics_addr,
            database,
            jwt_secret,
            token_ttl,
            external_identity,
            trusted_proxies,
            path_prefix,
            shutdown_timeout,
            sse_keep_alive,
            cors_allowed_origins,
            workers,
            db_acquire_timeout,
            db_max_connections,
            request_body_timeout,
            rate_limits,
            bot_move,
            notifications,
            bot_trump,
            cpu_scheduling,
        })
    }
}

/// Where `/metrics` is served by default: the loopback interface, the
/// port of the Prometheus exporters' registry for this service's kind
/// (only a scraper on the same host, or given its own address, reaches it).
pub const DEFAULT_METRICS_ADDR: std::net::SocketAddr =
    std::net::SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 9464);

/// `variable` read through `get` as a whole number in `range` (`unit` says
/// what it counts, in the error naming the variable); `None` when unset.
fn number<T>(
    get: impl Fn(&str) -> Option<String>,
    variable: &'static str,
    range: std::ops::RangeInclusive<T>,
    unit: &str,
) -> Result<Option<T>, ConfigError>
where
    T: std::str::FromStr + PartialOrd + fmt::Display,
{
    let Some(v) = get(variable) else {
        return Ok(None);
    };
    match v.trim().parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(ConfigError {
            variable,
            reason: format!(
                "`{v}` is not a number of {unit} between {} and {}",
                range.start(),
                range.end()
            ),
        }),
    }
}

/// The default worker count: one per core the process may use.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests;
