//! The server binary schedules every one of its threads as `CPU_SCHEDULING`
//! says: `SCHED_BATCH` unless told `normal` (docs/performance.md, "Where
//! Postgres shares the machine"). Read from Linux's `/proc`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// `SCHED_OTHER` and `SCHED_BATCH`, as `/proc/<pid>/task/<tid>/stat` shows them.
const SCHED_OTHER: u32 = 0;
const SCHED_BATCH: u32 = 3;

/// The scheduling policy of every thread of the server started with `env`,
/// once it listens.
fn thread_policies(env: &[(&str, &str)]) -> Vec<u32> {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_kaarttafel"))
        .current_dir(dir.path())
        .env_clear()
        .envs([
            ("PORT", "0"),
            ("METRICS_ADDR", "off"),
            ("WORKERS", "2"),
            ("RUST_LOG", "info"),
            ("NO_COLOR", "1"),
        ])
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    // Kept open until the server is killed: a closed pipe would make its
    // next log line fail and print an error of its own.
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let mut listening = false;
    for line in lines.by_ref() {
        if line.unwrap().contains("listening") {
            listening = true;
            break;
        }
    }
    let tasks = std::fs::read_dir(format!("/proc/{}/task", server.id())).unwrap();
    let policies = tasks
        .map(|task| {
            let stat = std::fs::read_to_string(task.unwrap().path().join("stat")).unwrap();
            // Fields after the command's closing parenthesis start at the
            // third; the policy is the 41st (proc(5)).
            let (_, after_name) = stat.rsplit_once(')').unwrap();
            after_name
                .split_whitespace()
                .nth(41 - 3)
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    server.kill().unwrap();
    server.wait().unwrap();
    drop(lines);
    assert!(listening, "the server did not start");
    policies
}

#[test]
fn every_thread_of_the_server_is_scheduled_as_batch_unless_set_to_normal() {
    let batch = thread_policies(&[]);
    // The main thread, the runtime's and two HTTP workers at least.
    assert!(batch.len() >= 4, "{batch:?}");
    assert!(batch.iter().all(|&p| p == SCHED_BATCH), "{batch:?}");
    let normal = thread_policies(&[("CPU_SCHEDULING", "normal")]);
    assert!(normal.len() >= 4, "{normal:?}");
    assert!(normal.iter().all(|&p| p == SCHED_OTHER), "{normal:?}");
}
