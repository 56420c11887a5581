//! Notices end to end: what a run tells the user beside its numbers comes
//! in one block at the end of the normal output and in the JSON `notices`
//! array, never on stderr (unless only terse lines, which have no place
//! for them, are written); `--warnings-fatal` turns them into errors.
//!
//! The notice used is pvsync2's hipri on a device without poll queues
//! (preadv2 completes RWF_HIPRI I/O by interrupt): the test files live on a
//! real file system, whose device usually has none.

mod common;

use std::path::Path;

use common::{ioscope, tempdir};
use ioscope_testutil::{require, Missing};
use serde_json::Value;

/// Whether the device under `dir` cannot poll.
fn no_poll_queues(dir: &Path) -> Result<(), Missing> {
    let dev = common::block_device_of(dir)
        .ok_or_else(|| Missing::soft("the test directory is not on a block device"))?;
    let io_poll = std::fs::read_to_string(format!("/sys/block/{dev}/queue/io_poll"))
        .map_err(|e| Missing::soft(format!("cannot read {dev}'s io_poll: {e}")))?;
    match io_poll.trim() {
        "0" => Ok(()),
        _ => Err(Missing::soft(format!(
            "{dev} has poll queues: pvsync2's hipri polls there"
        ))),
    }
}

fn polled_job(dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--name=polled".to_string(),
        format!("--filename={}", dir.join("data").display()),
        "--ioengine=pvsync2".into(),
        "--hipri=1".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=256k".into(),
        "--eta=never".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

#[test]
fn a_notice_is_reported_with_the_results_and_fatal_when_asked() {
    let d = tempdir();
    require!(no_poll_queues(d.path()));

    // Normal output: the block comes last, stderr stays clean, exit 0.
    let r = ioscope(polled_job(d.path(), &[])).run();
    r.assert_ok();
    let block = r
        .stdout
        .rfind("\nNotices:\n")
        .map(|at| &r.stdout[at..])
        .unwrap_or_else(|| panic!("no notices block: {}", r.describe()));
    assert!(
        block.contains("job 'polled': hipri=1 did not poll"),
        "{block}"
    );
    assert!(block.contains("by interrupt"), "{block}");
    assert!(
        r.stdout.find("Run status group") < r.stdout.find("\nNotices:"),
        "the block follows the report: {}",
        r.stdout
    );

    // JSON: the same notice, as {kind, message, option}.
    let v = ioscope(polled_job(d.path(), &["--output-format=json"]))
        .run()
        .ok_json();
    let notices = v["notices"].as_array().expect("notices is an array");
    let polled: Vec<&Value> = notices
        .iter()
        .filter(|n| n["kind"] == "polled_without_poll_queues")
        .collect();
    assert_eq!(polled.len(), 1, "{notices:?}");
    assert_eq!(polled[0]["option"], "hipri");
    assert!(polled[0]["message"]
        .as_str()
        .is_some_and(|m| m.contains("hipri=1 did not poll")));

    // --warnings-fatal: the same run fails, the notice on stderr as an
    // error; the report is still written, its block included.
    let r = ioscope(polled_job(d.path(), &["--warnings-fatal"])).run();
    assert_eq!(r.status.code(), Some(1), "{}", r.describe());
    assert!(
        r.stderr
            .contains("ioscope: error (--warnings-fatal): job 'polled': hipri=1 did not poll"),
        "{}",
        r.describe()
    );
    assert!(r.stdout.contains("\nNotices:\n"), "{}", r.describe());
}

#[test]
fn a_clean_run_has_no_block_and_warnings_fatal_changes_nothing() {
    let d = tempdir();
    let job = [
        "--name=clean".to_string(),
        format!("--filename={}", d.path().join("data").display()),
        "--ioengine=psync".into(),
        "--rw=read".into(),
        "--bs=4k".into(),
        "--size=64k".into(),
        // The TSC may be unusable on this machine: a clock notice would be
        // right, and is not what this test is about.
        "--clocksource=clock_gettime".into(),
        "--eta=never".into(),
        "--warnings-fatal".into(),
    ];
    let r = ioscope(&job).run();
    r.assert_ok();
    assert!(!r.stdout.contains("Notices:"), "{}", r.describe());
    let v = ioscope(job.iter().chain(&["--output-format=json".to_string()]))
        .run()
        .ok_json();
    assert_eq!(v["notices"], Value::Array(vec![]));
}

#[test]
fn a_fallen_back_clock_is_a_notice() {
    let d = tempdir();
    // gettimeofday is always served by CLOCK_MONOTONIC (wall-clock time can
    // step backwards), so asking for it always gives this notice.
    let v = ioscope([
        "--output-format=json".to_string(),
        "--name=clock".into(),
        format!("--filename={}", d.path().join("data").display()),
        "--ioengine=null".into(),
        "--size=64k".into(),
        "--clocksource=gettimeofday".into(),
    ])
    .run()
    .ok_json();
    let n = &v["notices"][0];
    assert_eq!(n["kind"], "clock_fallback", "{v:#}");
    assert_eq!(n["option"], "clocksource");
    assert!(n["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("clocksource=gettimeofday was not used")));
}

#[test]
fn a_terse_only_run_writes_its_notices_to_stderr() {
    let d = tempdir();
    let r = ioscope([
        "--minimal".to_string(),
        "--name=clock".into(),
        format!("--filename={}", d.path().join("data").display()),
        "--ioengine=null".into(),
        "--size=64k".into(),
        "--clocksource=gettimeofday".into(),
    ])
    .run();
    assert!(r.status.success(), "{}", r.describe());
    // The terse line stays one line of fields; the notice is not lost.
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.describe());
    assert!(r.stdout.starts_with("3;ioscope-"), "{}", r.describe());
    assert!(
        r.stderr
            .starts_with("ioscope: clocksource=gettimeofday was not used"),
        "{}",
        r.describe()
    );
}
