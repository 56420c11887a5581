//! The live status line (fio's `--eta`): shown when asked, never mixed into
//! JSON, and absent by default when stdout is not a terminal.

mod common;

use common::{ioscope, tempdir};

fn job(eta: &str, format: &str) -> common::Run {
    let dir = tempdir();
    ioscope([
        "--name=p",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=3",
        eta,
        format,
    ])
    .dir(dir.path())
    .run()
}

#[test]
fn eta_always_prints_fios_status_line_with_a_right_eta() {
    let r = job("--eta=always", "--output-format=normal");
    r.assert_ok();
    let lines: Vec<&str> = r
        .stdout
        .split(['\r', '\n'])
        .filter(|l| l.starts_with("Jobs: 1 (f=1): [R(1)]["))
        .collect();
    assert!(!lines.is_empty(), "no status line: {}", r.describe());
    // A 3 s time-based job: after the first second about 2 s remain.
    let first = lines[0];
    assert!(
        first.contains("[eta 00m:02s]") || first.contains("[eta 00m:01s]"),
        "{first}"
    );
    assert!(first.contains("IOPS]"), "{first}");
}

#[test]
fn no_status_line_when_stdout_is_not_a_terminal() {
    let r = job("--eta=auto", "--output-format=normal");
    r.assert_ok();
    assert!(!r.stdout.contains("Jobs: "), "{}", r.describe());
}

#[test]
fn with_json_on_stdout_the_status_line_goes_to_stderr() {
    let r = job("--eta=always", "--output-format=json");
    assert!(r.status.success(), "{}", r.describe());
    serde_json::from_str::<serde_json::Value>(&r.stdout).expect("stdout is one JSON document");
    assert!(r.stderr.contains("Jobs: 1 (f=1)"), "{}", r.describe());
}

#[test]
fn eta_never_keeps_stdout_clean() {
    let r = job("--eta=never", "--output-format=json");
    r.assert_ok();
    serde_json::from_str::<serde_json::Value>(&r.stdout).expect("stdout is one JSON document");
}
