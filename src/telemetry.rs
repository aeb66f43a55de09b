//! Structured logs. `RUST_LOG` filters them (default `info`); `LOG_FORMAT=json`
//! writes one JSON object per line for log shippers.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber; call once, from `main`.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let colour = coloured(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(colour);
    if std::env::var("LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}

/// Whether the text logs are coloured: only on a terminal, and not when
/// `NO_COLOR` is set to anything but the empty string (no-color.org). A
/// log written to a file or a pipe, as a service's is, gets no escape
/// codes for a log shipper to show as noise.
fn coloured(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_are_coloured_only_on_a_terminal_without_no_color() {
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(coloured(true, None));
        assert!(coloured(true, empty), "an empty NO_COLOR is not set");
        assert!(!coloured(true, set));
        assert!(!coloured(false, None), "a file or a pipe");
        assert!(!coloured(false, set));
    }
}
