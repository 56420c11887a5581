//! Reports while the run goes on (fio's `--status-interval`, and SIGUSR1):
//! full reports of the run so far, in every output format, before the
//! final one, where the final one goes.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{fio, ioscope, tempdir};
use ioscope_testutil::require;
use serde_json::Value;

/// A 3 s time-based job that needs no file.
const JOB: [&str; 5] = [
    "--name=p",
    "--ioengine=null",
    "--size=1g",
    "--time_based",
    "--runtime=3",
];

/// Every JSON document in `text`, one after another, as fio writes them.
fn documents(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .map(|v| v.unwrap_or_else(|e| panic!("not a sequence of JSON documents ({e}):\n{text}")))
        .collect()
}

fn read_bytes(doc: &Value) -> u64 {
    doc["jobs"][0]["read"]["io_bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no jobs[0].read.io_bytes in {doc:#}"))
}

/// The keys of an object, recursively (`a.b.c`), to compare shapes.
fn shape(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    if let Value::Object(map) = v {
        for (k, v) in map {
            let path = format!("{at}.{k}");
            shape(v, &path, out);
            out.insert(path);
        }
    }
}

fn shape_of(v: &Value) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    shape(v, "", &mut keys);
    keys
}

/// The reports of a 3 s job with `--status-interval=1`: interim ones at
/// about 1 s and 2 s, one near 3 s unless the end comes first, then the
/// final one, whose read bytes are the largest.
fn check_sequence(docs: &[Value], what: &str) {
    assert!(
        (3..=4).contains(&docs.len()),
        "{what}: expected 2 or 3 interim reports and the final one, got {} documents",
        docs.len()
    );
    let bytes: Vec<u64> = docs.iter().map(read_bytes).collect();
    assert!(bytes[0] > 0, "{what}: the first report shows no I/O");
    assert!(
        bytes.windows(2).all(|w| w[0] <= w[1]),
        "{what}: io_bytes must grow from report to report: {bytes:?}"
    );
    let runtimes: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["runtime"].as_u64().unwrap())
        .collect();
    assert!(
        runtimes.windows(2).all(|w| w[0] < w[1]),
        "{what}: each report's runtime is the time so far: {runtimes:?}"
    );
    let last = runtimes[runtimes.len() - 1];
    assert!(
        (2990..3100).contains(&last),
        "{what}: the final report covers the whole 3 s: {runtimes:?}"
    );
}

#[test]
fn json_reports_are_whole_documents_one_after_another() {
    let dir = tempdir();
    let r = ioscope(JOB)
        .args(["--status-interval=1", "--output-format=json"])
        .dir(dir.path())
        .run();
    r.assert_ok();
    let docs = documents(&r.stdout);
    check_sequence(&docs, "ioscope");
    // The interim reports are the final report's shape: the same fields,
    // the figures so far.
    let last = docs.last().unwrap();
    for d in &docs[..docs.len() - 1] {
        assert_eq!(shape_of(d), shape_of(last), "an interim report's fields");
    }
    // Written as fio writes them: each document closes on a line of its
    // own and the next opens right after.
    assert!(r.stdout.starts_with("{\n"), "{}", r.describe());
    assert_eq!(r.stdout.matches("}\n{\n").count(), docs.len() - 1);
}

#[test]
fn normal_output_repeats_the_whole_report() {
    let dir = tempdir();
    let r = ioscope(JOB)
        .args(["--status-interval=1"])
        .dir(dir.path())
        .run();
    r.assert_ok();
    let blocks = r.stdout.matches("\np: (groupid=0, jobs=1)").count();
    assert!(
        (3..=4).contains(&blocks),
        "expected 2 or 3 interim reports and the final one: {}",
        r.describe()
    );
    assert_eq!(
        r.stdout.matches("Run status group 0 (all jobs):").count(),
        blocks,
        "each report has its group summary: {}",
        r.describe()
    );
    // The preamble is printed once, before the first report.
    assert_eq!(r.stdout.matches("Starting 1 process").count(), 1);
}

#[test]
fn with_output_every_report_goes_to_the_file() {
    let dir = tempdir();
    let out = dir.path().join("out.json");
    let r = ioscope(JOB)
        .args(["--status-interval=1s", "--output-format=json", "--output"])
        .arg(&out)
        .dir(dir.path())
        .run();
    r.assert_ok();
    assert!(r.stdout.is_empty(), "{}", r.describe());
    let text = std::fs::read_to_string(&out).unwrap();
    check_sequence(&documents(&text), "--output");
}

#[test]
fn the_reports_match_fios_in_number_and_shape() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let run = |tool: common::Cmd| {
        let r = tool
            .args(["--status-interval=1", "--output-format=json"])
            .dir(dir.path())
            .run();
        r.assert_ok();
        documents(&r.stdout)
    };
    let ours = run(ioscope(JOB));
    let theirs = run(fio(JOB));
    check_sequence(&ours, "ioscope");
    check_sequence(&theirs, "fio");
    // Both take their reports on the same schedule: they may differ by
    // one only where a report falls near the end of the run.
    assert!(
        ours.len().abs_diff(theirs.len()) <= 1,
        "ioscope wrote {} reports, fio {}",
        ours.len(),
        theirs.len()
    );
    // Every field fio writes in its reports is in ours (ioscope adds some).
    for (o, t) in ours.iter().zip(&theirs) {
        let missing: Vec<_> = shape_of(t).difference(&shape_of(o)).cloned().collect();
        assert!(
            missing.is_empty(),
            "fields fio has and ioscope lacks: {missing:?}"
        );
    }
}

#[test]
fn sigusr1_asks_for_a_report() {
    let dir = tempdir();
    let child = Command::new(common::bin())
        .args(JOB)
        .arg("--output-format=json")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioscope");
    std::thread::sleep(Duration::from_secs(1));
    // SAFETY: kill only sends a signal to the child started above.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGUSR1) };
    assert_eq!(sent, 0, "cannot signal the child");
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
    let docs = documents(&stdout);
    assert_eq!(
        docs.len(),
        2,
        "one report for the signal, then the final one"
    );
    assert!(0 < read_bytes(&docs[0]) && read_bytes(&docs[0]) < read_bytes(&docs[1]));
}

#[test]
fn fios_status_file_asks_for_a_report_and_is_removed() {
    // fio prints a report when $TMPDIR/fio-dump-status appears, and
    // removes it; a TMPDIR of the test's own keeps other runs out of it.
    let dir = tempdir();
    let child = Command::new(common::bin())
        .args(JOB)
        .arg("--output-format=json")
        .env("TMPDIR", dir.path())
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioscope");
    std::thread::sleep(Duration::from_secs(1));
    let file = dir.path().join("fio-dump-status");
    std::fs::write(&file, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(
        documents(&stdout).len(),
        2,
        "one report for the file, then the final one"
    );
    assert!(!file.exists(), "the status file was left in place");
}

#[test]
fn an_interval_below_a_millisecond_is_refused() {
    let r = ioscope(["--status-interval=500us", "--name=p", "--ioengine=null"]).run();
    let err = r.assert_refused();
    assert!(
        err.contains("--status-interval") && err.contains("at least 1ms"),
        "{err}"
    );
}

#[test]
fn reports_while_running_leave_a_per_io_log_whole() {
    // Each interim report copies the workers' stats; the records kept for
    // a per-I/O log are not copied, and the log still has one line per I/O.
    let dir = tempdir();
    // psync on a cached file: a few hundred thousand lines, not the
    // millions the null engine would log.
    let r = ioscope([
        "--name=p",
        "--ioengine=psync",
        "--filename=f",
        "--size=1m",
        "--time_based",
        "--runtime=1",
        "--write_iops_log=p",
        "--status-interval=200ms",
        "--output-format=json",
    ])
    .dir(dir.path())
    .run();
    let docs = documents(&r.stdout);
    assert!(docs.len() >= 4, "{} documents", docs.len());
    let ios = docs[docs.len() - 1]["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap();
    let log = std::fs::read_to_string(dir.path().join("p_iops.1.log")).unwrap();
    assert_eq!(log.lines().count() as u64, ios);
}
