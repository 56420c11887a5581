//! The live status line (fio's `--eta`): shown when asked, never mixed into
//! JSON, and absent by default when stdout is not a terminal.

mod common;

use common::{ioscope, tempdir};

fn job(eta: &str, format: &str) -> common::Run {
    job_for(eta, format, "--runtime=3")
}

fn job_for(eta: &str, format: &str, runtime: &str) -> common::Run {
    let dir = tempdir();
    ioscope([
        "--name=p",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        runtime,
        eta,
        format,
    ])
    .dir(dir.path())
    .run()
}

#[test]
fn eta_always_prints_fios_status_line_with_a_right_eta() {
    let r = job_for("--eta=always", "--output-format=normal", "--runtime=6");
    r.assert_ok();
    // As fio's: each status ends with a carriage return; the first three
    // seconds have no estimate, so they show the counts alone.
    let status = &r.stdout[r.stdout.find("Jobs: ").expect("a status line")..];
    let lines: Vec<&str> = status.split_terminator('\r').collect();
    assert_eq!(lines[0], "Jobs: 1 (f=1)", "{}", r.describe());
    let estimated: Vec<&str> = (lines.iter().copied())
        .filter(|l| l.starts_with("Jobs: 1 (f=1): [R(1)]["))
        .collect();
    assert!(!estimated.is_empty(), "no estimate: {}", r.describe());
    // A 6 s time-based job: from the third second on at most 3 s remain,
    // and the share done and the time left add up to the whole.
    let first = estimated[0];
    let eta: u64 = first[first.find("[eta 00m:").unwrap() + 9..][..2]
        .parse()
        .unwrap();
    assert!(eta <= 3, "{first}");
    let perc: f64 = first["Jobs: 1 (f=1): [R(1)][".len()..]
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((50.0..100.0).contains(&perc), "{first}");
    assert!(
        first.contains("][r=") && first.contains("iB/s][r=") && first.contains(" IOPS][eta "),
        "{first}"
    );
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
