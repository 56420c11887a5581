//! latency_target's queue-depth search end to end, beside fio 3.33 on the
//! same jobs. The device decides where a search between the extremes
//! settles, so these jobs are the ones whose outcome fio's arithmetic
//! fixes on any machine: a target every depth meets (the search doubles
//! to iodepth, settles, runs one last window and ends the job), and a
//! target no I/O meets (at percentile 100 the first late I/O at depth 1
//! fails the job; below 100 the search stays at depth 1 for the whole
//! run). The bisection between is the unit tests' (io_loop/latency_target.rs).

mod common;

use std::fs;
use std::time::Instant;

use common::{extract_json, fio, ioscope, tempdir, u};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// Runs `args` with fio and with ioscope in `dir`: their JSON results
/// (fio's first) and ioscope's wall time in ms. A job that fails has
/// fio's error line before the JSON.
fn both(dir: &std::path::Path, args: &[&str]) -> (Value, Value, u128) {
    let args = || args.iter().copied().chain(["--output-format=json"]);
    let json = |run: &common::Run| {
        extract_json(&run.stdout)
            .unwrap_or_else(|| panic!("no JSON: {}", run.describe()))
            .0
    };
    let theirs = json(&fio(args()).dir(dir).run());
    let t0 = Instant::now();
    let ours = ioscope(args()).dir(dir).run();
    let wall = t0.elapsed().as_millis();
    (theirs, json(&ours), wall)
}

#[test]
fn a_target_every_depth_meets_doubles_to_iodepth_settles_and_ends_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    let window_ms = 150;
    let window = format!("--latency_window={window_ms}ms");
    let (theirs, ours, wall) = both(
        d.path(),
        &[
            "--name=t",
            "--ioengine=null",
            "--size=1g",
            "--rw=randread",
            "--iodepth=16",
            "--latency_target=10s",
            &window,
            "--runtime=20",
            "--time_based",
        ],
    );
    for doc in [&theirs, &ours] {
        let j = &doc["jobs"][0];
        assert_eq!(u(j, "error"), 0, "{j}");
        assert_eq!(u(j, "latency_depth"), 16, "{j}");
        assert_eq!(u(j, "latency_target"), 10_000_000_000);
        assert_eq!(u(j, "latency_window"), window_ms * 1000);
        // The measurements restart for the last window at the settled
        // depth, which ends the job long before its runtime.
        let runtime = u(j, "job_runtime");
        assert!(
            (window_ms..window_ms + 100).contains(&runtime),
            "{runtime} ms measured: {j}"
        );
    }
    // Windows at 1, 2, 4, 8 and 16, a success at 16 that settles, and the
    // last window: six in all.
    let least = 6 * u128::from(window_ms);
    assert!(
        (least..least + 1500).contains(&wall),
        "{wall} ms for six windows of {window_ms} ms"
    );
}

/// A file on the test directory's real file system, read with O_DIRECT
/// and libaio: no 4 KiB read from a disk completes within a microsecond.
fn direct_args(percentile: &str) -> Vec<String> {
    [
        "--name=t",
        "--filename=f",
        "--size=4m",
        "--rw=randread",
        "--direct=1",
        "--ioengine=libaio",
        "--iodepth=8",
        "--latency_target=1",
        "--latency_window=100ms",
        "--runtime=1",
        "--time_based",
    ]
    .into_iter()
    .map(String::from)
    .chain([format!("--latency_percentile={percentile}")])
    .collect()
}

#[test]
fn at_percentile_100_a_late_io_at_depth_1_fails_the_job_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    fs::write(d.path().join("f"), vec![0x5a; 4 << 20]).unwrap();
    let args = direct_args("100");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (theirs, ours, _) = both(d.path(), &args);
    for doc in [&theirs, &ours] {
        let j = &doc["jobs"][0];
        // fio's lat_fatal: ETIMEDOUT on the first completion.
        assert_eq!(u(j, "error"), libc::ETIMEDOUT as u64, "{j}");
        assert_eq!(u(j, "latency_depth"), 1, "{j}");
        assert!(u(&j["read"], "total_ios") <= 1, "{j}");
    }
}

#[test]
fn below_percentile_100_a_target_never_met_keeps_depth_1_for_the_run_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    fs::write(d.path().join("f"), vec![0x5a; 4 << 20]).unwrap();
    let args = direct_args("90");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (theirs, ours, _) = both(d.path(), &args);
    for doc in [&theirs, &ours] {
        let j = &doc["jobs"][0];
        assert_eq!(u(j, "error"), 0, "{j}");
        assert_eq!(u(j, "latency_depth"), 1, "{j}");
        // Never settled, so never restarted: the whole second is measured,
        // at depth 1 throughout.
        let runtime = u(j, "job_runtime");
        assert!((990..1100).contains(&runtime), "{runtime} ms: {j}");
        let levels = &j["iodepth_level"];
        assert!(levels["1"].as_f64().unwrap() > 99.0, "{j}");
    }
}

#[test]
fn fios_latency_profile_example_runs() {
    require!(fio_installed());
    let d = tempdir();
    fs::write(d.path().join("f"), vec![0x5a; 4 << 20]).unwrap();
    let example = require!(common::fio_example("latency-profile.fio"));
    let text = fs::read_to_string(example)
        .unwrap()
        .replace("filename=/dev/sda", "filename=f\nsize=4m\nruntime=1");
    let job = common::write_file(d.path(), "lp.fio", &text);
    let doc = ioscope([job.to_str().unwrap(), "--output-format=json"])
        .dir(d.path())
        .run()
        .ok_json();
    let j = &doc["jobs"][0];
    // A 5 s window is never judged within a 1 s run: depth 1 throughout.
    assert_eq!(u(j, "latency_depth"), 1, "{j}");
    assert_eq!(u(j, "latency_target"), 500_000_000);
    assert_eq!(u(j, "latency_window"), 5_000_000);
}
