//! The README's curl walkthrough, taken from README.md as it stands and run
//! with bash against a started server, so the walkthrough cannot rot.

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walkthrough_plays_the_first_trick_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let script = shell_blocks_of_section(
        &readme,
        "## Play the start of a Klaverjassen deal with curl",
    );
    assert!(script.contains("legal_moves"), "{script}");
    let app = TestApp::spawn(Db::Sqlite).await;
    let api = app.base.clone();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .env("API", api)
            .output()
            .expect("bash runs (the walkthrough needs bash, curl and python3)")
    })
    .await
    .unwrap();
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
