//! The deployment files under deploy/ agree with the service: the image is
//! built the way CI builds, nginx refuses what the service refuses, and the
//! systemd unit stops the server gracefully. These read the files as text;
//! the YAML files (compose, Kubernetes) are checked by `deploy/check.py`.

use std::path::Path;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Lines without comments and surrounding blanks.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// The value of `key=value` lines in a systemd unit (the last one wins).
fn unit_value<'a>(unit: &'a str, key: &str) -> Option<&'a str> {
    lines(unit)
        .filter_map(|line| line.split_once('='))
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
        .last()
}

/// The service's default grace after SIGTERM (SHUTDOWN_TIMEOUT), seconds.
const SHUTDOWN_TIMEOUT: u64 = 30;

/// The release build: the image, CI's end-to-end checks and the benchmarks
/// all run the binary this one command makes.
const RELEASE_BUILD: &str = "cargo build --release --locked";

/// The end-to-end checks `.ci/run` runs (`tests/<name>/run.sh`), each of
/// which builds the release binary.
fn end_to_end_checks() -> Vec<String> {
    lines(&read(".ci/run"))
        .filter_map(|line| line.strip_prefix("tests/")?.strip_suffix("/run.sh"))
        .map(str::to_owned)
        .collect()
}

/// A script's text followed by the text of the helpers it sources
/// (`source tests/support/...`), where a shared build may live.
fn with_sourced(script: &str) -> String {
    let sourced: Vec<String> = lines(script)
        .filter_map(|line| line.strip_prefix("source "))
        .map(|path| read(path.trim()))
        .collect();
    std::iter::once(script.to_owned())
        .chain(sourced)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_image_is_built_exactly_as_ci_builds() {
    let dockerfile = read("deploy/Dockerfile");
    let builds: Vec<&str> = lines(&dockerfile)
        .filter(|line| line.contains("cargo build"))
        .collect();
    assert_eq!(builds, [format!("RUN {RELEASE_BUILD}")]);
    let checks = end_to_end_checks();
    // proxy, instances, faults, fuzz, fairness, client and browser when written.
    assert!(
        checks.len() >= 7,
        "end-to-end checks read from .ci/run: {checks:?}"
    );
    for check in checks {
        let script = with_sourced(&read(&format!("tests/{check}/run.sh")));
        let builds: Vec<&str> = lines(&script)
            .filter(|line| line.contains("cargo build"))
            .collect();
        assert!(
            !builds.is_empty() && builds.iter().all(|line| line.ends_with(RELEASE_BUILD)),
            "tests/{check}/run.sh must build the release binary as the image does: {builds:?}"
        );
    }
    let instructions: Vec<&str> = lines(&dockerfile).collect();
    for expected in ["EXPOSE 8080", "STOPSIGNAL SIGTERM"] {
        assert!(
            instructions.contains(&expected),
            "Dockerfile lacks {expected}"
        );
    }
    assert!(
        instructions
            .iter()
            .any(|l| l.starts_with("ENV HOST=0.0.0.0")),
        "the image must listen on 0.0.0.0"
    );
    assert!(
        instructions.iter().any(|l| l.starts_with("USER 10001")),
        "the image must run as a non-root user"
    );
    assert!(
        instructions.iter().any(|l| l.starts_with("HEALTHCHECK"))
            && dockerfile.contains("/healthz"),
        "the image needs a HEALTHCHECK on /healthz"
    );
    assert_eq!(
        instructions
            .iter()
            .filter(|l| l.starts_with("FROM "))
            .count(),
        2,
        "a build stage and a runtime stage"
    );
}

#[test]
fn the_release_build_is_plain_and_its_context_keeps_what_it_reads() {
    // No profile or other compiler flags applied behind the command's back:
    // the binary is what `cargo build --release` makes from a clean clone.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for config in [".cargo/config.toml", ".cargo/config"] {
        assert!(
            !root.join(config).exists(),
            "{config} would change what the release build makes"
        );
    }
    let manifest = read("Cargo.toml");
    assert!(
        !manifest.contains("profile-use") && !manifest.contains("rustflags"),
        "Cargo.toml applies compiler flags to the release build"
    );
    // The image's build context keeps what the build reads.
    let dockerignore = read("deploy/Dockerfile.dockerignore");
    let ignored: Vec<&str> = lines(&dockerignore).collect();
    for needed in ["src", "migrations", "benches", "Cargo.toml", "Cargo.lock"] {
        assert!(
            !ignored
                .iter()
                .any(|l| l.trim_end_matches('/') == needed || *l == "*"),
            "deploy/Dockerfile.dockerignore leaves out {needed}"
        );
    }
}

#[test]
fn nginx_refuses_the_bodies_the_service_refuses() {
    let conf = read("deploy/nginx.conf");
    let sizes: Vec<&str> = lines(&conf)
        .filter_map(|line| line.strip_prefix("client_max_body_size"))
        .map(|rest| rest.trim().trim_end_matches(';').trim())
        .collect();
    // 16k is 16384 bytes, the service's limit (413 payload_too_large).
    assert_eq!(sizes, ["16k"]);
    let read_timeouts: Vec<u64> = lines(&conf)
        .filter_map(|line| line.strip_prefix("proxy_read_timeout"))
        .map(|rest| {
            let value = rest.trim().trim_end_matches(';');
            match value.strip_suffix('h') {
                Some(hours) => hours.parse::<u64>().unwrap() * 3600,
                None => value.trim_end_matches('s').parse().unwrap(),
            }
        })
        .collect();
    assert!(!read_timeouts.is_empty());
    assert!(
        read_timeouts.iter().all(|&t| t > 60),
        "long polls wait up to 60 s: {read_timeouts:?}"
    );
    for directive in [
        "proxy_buffering off;",
        "proxy_http_version 1.1;",
        "proxy_set_header Connection \"\";",
        "location /cards/ {",
    ] {
        assert!(
            lines(&conf).any(|l| l == directive),
            "nginx.conf lacks {directive}"
        );
    }
}

#[test]
fn the_systemd_unit_stops_gracefully_and_is_hardened() {
    let unit = read("deploy/systemd/kaarttafel.service");
    let expect = |key: &str, value: &str| {
        assert_eq!(unit_value(&unit, key), Some(value), "{key}");
    };
    expect("KillSignal", "SIGTERM");
    expect("Restart", "on-failure");
    expect("NoNewPrivileges", "yes");
    expect("ProtectSystem", "strict");
    expect("StateDirectory", "kaarttafel");
    expect("WorkingDirectory", "/var/lib/kaarttafel");
    for key in ["EnvironmentFile", "User", "ExecStart"] {
        assert!(unit_value(&unit, key).is_some(), "{key} missing");
    }
    let stop: u64 = unit_value(&unit, "TimeoutStopSec")
        .expect("TimeoutStopSec")
        .trim_end_matches('s')
        .parse()
        .expect("TimeoutStopSec in seconds");
    assert!(stop > SHUTDOWN_TIMEOUT, "TimeoutStopSec={stop}");
}

/// The variables the service reads (`get("…")` in src/config.rs).
fn variables_read() -> Vec<String> {
    let config = read("src/config.rs");
    let mut names: Vec<String> = config
        .split("get(\"")
        .skip(1)
        .filter_map(|rest| rest.split_once("\")").map(|(name, _)| name.to_owned()))
        .filter(|name| name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_deploy_settings_table_and_env_example_list_every_variable_the_service_reads() {
    let readme = read("deploy/README.md");
    let example = read("deploy/kaarttafel.env.example");
    let names = variables_read();
    assert!(names.len() >= 13, "{names:?}");
    for name in names {
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "deploy/README.md's settings table lacks {name}"
        );
        assert!(
            example.contains(&format!("{name}=")),
            "deploy/kaarttafel.env.example lacks {name}"
        );
    }
}
