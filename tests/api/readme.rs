//! The README's curl walkthrough, taken from README.md as it stands and run
//! with bash against a started server, so the walkthrough cannot rot.

use std::num::NonZeroU32;
use std::time::Duration;

use kaarttafel::config::{Limit, RateLimits};

use crate::support::{Db, TestApp};

/// The `sh` blocks of the README section that starts with `heading`.
fn shell_blocks_of_section(readme: &str, heading: &str) -> String {
    let start = readme.find(heading).expect("the walkthrough's heading");
    let rest = &readme[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut script = String::new();
    for block in section.split("```sh\n").skip(1) {
        let end = block.find("```").expect("a closed code block");
        script.push_str(&block[..end]);
    }
    script
}

/// The walkthrough as README.md has it.
fn walkthrough() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let script = shell_blocks_of_section(
        &readme,
        "## Play the start of a Klaverjassen deal with curl",
    );
    assert!(script.contains("legal_moves"), "{script}");
    script
}

/// Runs the walkthrough with bash (`-euo pipefail`) against `app`.
async fn run(app: &TestApp) -> std::process::Output {
    let script = walkthrough();
    let api = app.base.clone();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .env("API", api)
            .output()
            .expect("bash runs (the walkthrough needs bash, curl and python3)")
    })
    .await
    .unwrap()
}

/// Checks that a run of the walkthrough played the first trick.
fn assert_played(output: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the walkthrough failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 8, "{stdout}");
    assert!(lines[0].starts_with("game "), "{stdout}");
    assert!(lines[1].starts_with("Anne holds "), "{stdout}");
    assert_eq!(lines[2], "hearts are trump; version 6", "{stdout}");
    assert!(lines[3].starts_with("seat 0 played "), "{stdout}");
    assert!(lines[7].starts_with("trick 1 went to seat "), "{stdout}");
}

/// An app on SQLite with `limits`, as `cargo run` starts it.
async fn app_with(limits: RateLimits) -> TestApp {
    let (database, dir) = crate::support::fresh_database(Db::Sqlite).await;
    let mut settings = crate::support::settings(database);
    settings.rate_limits = limits;
    TestApp::start(settings, dir).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walkthrough_plays_the_first_trick_as_written() {
    let app = TestApp::spawn(Db::Sqlite).await;
    assert_played(&run(&app).await);
}

/// A new user tries the walkthrough again and again against one server
/// with the default limits, as `cargo run` has them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walkthrough_passes_ten_times_in_a_row_under_the_default_limits() {
    let app = app_with(RateLimits::defaults()).await;
    for _ in 0..10 {
        assert_played(&run(&app).await);
    }
}

/// A call the server refuses stops the walkthrough with the problem's
/// status, code and detail, not a JSON parser's complaint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walkthrough_prints_the_problem_detail_when_a_call_fails() {
    let app = app_with(RateLimits {
        signups: Some(Limit {
            requests: NonZeroU32::new(2).unwrap(),
            per: Duration::from_secs(3600),
        }),
        ..RateLimits::off()
    })
    .await;
    let output = run(&app).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.starts_with(
            "POST /v1/players: 429 rate_limited: too many requests (signups: 2 per 3600 s)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("JSONDecodeError"), "{stderr}");
}
