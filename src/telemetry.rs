//! Structured logs. `RUST_LOG` filters them (default `info`); `LOG_FORMAT=json`
//! writes one JSON object per line for log shippers.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber; call once, from `main`.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    if std::env::var("LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}
