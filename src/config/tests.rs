use super::*;

fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    Settings::from_lookup(|name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    })
}

#[test]
fn defaults_run_on_the_embedded_database() {
    let s = settings(&[]).unwrap();
    assert_eq!(s.host, IpAddr::from([127, 0, 0, 1]));
    assert_eq!(s.port, 8080);
    assert_eq!(s.metrics_addr, Some("127.0.0.1:9464".parse().unwrap()));
    assert_eq!(s.database, Database::Sqlite(DEFAULT_SQLITE_PATH.into()));
    assert_eq!(s.jwt_secret, None);
    assert_eq!(s.token_ttl, DEFAULT_TOKEN_TTL);
    assert_eq!(s.db_acquire_timeout, Duration::from_secs(2));
    assert_eq!(s.db_max_connections, 16);
    assert_eq!(s.bot_move, Duration::from_millis(400));
    assert_eq!(s.bot_trump, Duration::from_millis(1500));
}

#[test]
fn the_postgres_connections_of_the_http_workers_are_read_and_refused_out_of_range() {
    let s = settings(&[("DB_MAX_CONNECTIONS", "40")]).unwrap();
    assert_eq!(s.db_max_connections, 40);
    for bad in ["0", "1", "1001", "many"] {
        let error = settings(&[("DB_MAX_CONNECTIONS", bad)]).unwrap_err();
        assert_eq!(error.variable, "DB_MAX_CONNECTIONS", "{bad}");
        assert!(error.to_string().contains("between 2 and 1000"), "{error}");
    }
}

#[test]
fn a_computer_players_time_for_a_move_is_read_in_milliseconds() {
    let s = settings(&[("BOT_MOVE_MS", "250")]).unwrap();
    assert_eq!(s.bot_move, Duration::from_millis(250));
    assert_eq!(
        settings(&[("BOT_MOVE_MS", "0")]).unwrap().bot_move,
        Duration::ZERO
    );
}

#[test]
fn a_computer_players_time_for_the_trump_choice_is_read_in_milliseconds() {
    let s = settings(&[("BOT_TRUMP_MS", "2500")]).unwrap();
    assert_eq!(s.bot_trump, Duration::from_millis(2500));
    assert_eq!(s.bot_move, DEFAULT_BOT_MOVE);
    assert_eq!(
        settings(&[("BOT_TRUMP_MS", "0")]).unwrap().bot_trump,
        Duration::ZERO
    );
}

#[test]
fn metrics_are_served_where_told_or_nowhere() {
    let s = settings(&[("METRICS_ADDR", "0.0.0.0:9100")]).unwrap();
    assert_eq!(s.metrics_addr, Some("0.0.0.0:9100".parse().unwrap()));
    assert_eq!(
        settings(&[("METRICS_ADDR", "off")]).unwrap().metrics_addr,
        None
    );
}

#[test]
fn workers_follow_the_machine_unless_set() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(settings(&[]).unwrap().workers, cores);
    assert_eq!(settings(&[("WORKERS", "3")]).unwrap().workers, 3);
    for bad in ["0", "many", "1025"] {
        let error = settings(&[("WORKERS", bad)]).unwrap_err();
        assert_eq!(error.variable, "WORKERS");
    }
}

#[test]
fn threads_are_scheduled_as_batch_unless_set_to_normal() {
    assert_eq!(settings(&[]).unwrap().cpu_scheduling, CpuScheduling::Batch);
    assert_eq!(
        settings(&[("CPU_SCHEDULING", "normal")])
            .unwrap()
            .cpu_scheduling,
        CpuScheduling::Normal
    );
    let error = settings(&[("CPU_SCHEDULING", "fifo")]).unwrap_err();
    assert_eq!(error.variable, "CPU_SCHEDULING");
}

#[test]
fn invalid_values_name_their_variable() {
    for (var, value) in [
        ("HOST", "localhost:80"),
        ("PORT", "70000"),
        ("METRICS_ADDR", "9464"),
        ("DATABASE_URL", "mysql://x"),
        ("JWT_SECRET", "short"),
        ("TOKEN_TTL", "forever"),
        ("TOKEN_TTL", "5"),
        ("TRUSTED_PROXIES", "10.0.0.1, nginx"),
        ("PATH_PREFIX", "cards"),
        ("PATH_PREFIX", "/ca rds"),
        ("SHUTDOWN_TIMEOUT", "-1"),
        ("SSE_KEEP_ALIVE", "0"),
        ("DB_ACQUIRE_TIMEOUT_MS", "50"),
        ("DB_ACQUIRE_TIMEOUT_MS", "2s"),
        ("REQUEST_BODY_TIMEOUT", "0"),
        ("BOT_MOVE_MS", "10001"),
        ("BOT_MOVE_MS", "0.3s"),
        ("BOT_TRUMP_MS", "10001"),
        ("BOT_TRUMP_MS", "1.5s"),
        ("RATE_LIMIT_SIGNUPS", "10"),
        ("RATE_LIMIT_READS", "0/60"),
        ("RATE_LIMIT_WRITES", "10/0"),
        ("CORS_ALLOWED_ORIGINS", "app.example"),
        ("CORS_ALLOWED_ORIGINS", "https://app.example/path"),
    ] {
        assert_eq!(
            settings(&[(var, value)]).unwrap_err().variable,
            var,
            "{var}={value}"
        );
    }
    assert_eq!(
        settings(&[("AUTH_EXTERNAL_ISSUER", "x")])
            .unwrap_err()
            .variable,
        "AUTH_EXTERNAL_PUBLIC_KEY"
    );
}

#[test]
fn a_postgres_host_list_is_taken_and_a_bad_one_refused_at_start() {
    let url = "postgres://u:secret@db1:5432,db2:5433/kt?target_session_attrs=read-write";
    let s = settings(&[("DATABASE_URL", url)]).unwrap();
    assert_eq!(s.database, Database::Postgres(Secret::new(url)));
    let error = settings(&[("DATABASE_URL", "postgres://u:secret@db1,db2:x/kt")]).unwrap_err();
    assert_eq!(error.variable, "DATABASE_URL");
    let shown = error.to_string();
    assert!(
        shown.contains("`db2:x`: the port is not a number"),
        "{shown}"
    );
    assert!(!shown.contains("secret"), "{shown}");
}

#[test]
fn proxies_and_prefix_are_read() {
    let s = settings(&[
        ("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8,::1"),
        ("PATH_PREFIX", "/cards/"),
        ("SHUTDOWN_TIMEOUT", "5"),
    ])
    .unwrap();
    let proxies: Vec<String> = s.trusted_proxies.iter().map(ToString::to_string).collect();
    assert_eq!(proxies, ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]);
    assert_eq!(s.path_prefix, "/cards");
    assert_eq!(s.shutdown_timeout, Duration::from_secs(5));
}

#[test]
fn rate_limits_are_read_as_requests_per_seconds_or_off() {
    let s = settings(&[("RATE_LIMIT_SIGNUPS", "5/60"), ("RATE_LIMIT_READS", "off")]).unwrap();
    assert_eq!(s.rate_limits.signups, limit(5, 60));
    assert_eq!(s.rate_limits.reads, None);
    assert_eq!(s.rate_limits.writes, limit(120, 60));
    let off = settings(&[("RATE_LIMITS", "off")]).unwrap();
    assert_eq!(off.rate_limits, RateLimits::off());
}

#[test]
fn secrets_never_print() {
    let s = settings(&[
        ("DATABASE_URL", "postgres://user:hunter2@db/x"),
        ("JWT_SECRET", "0123456789abcdef0123456789abcdef-secret"),
    ])
    .unwrap();
    let printed = format!("{s:?}");
    assert!(
        !printed.contains("hunter2") && !printed.contains("-secret"),
        "{printed}"
    );
}
