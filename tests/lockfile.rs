//! `lockfile` end to end, against fio 3.33 on the same jobs. Two jobs
//! share one file with a synchronous engine, so each I/O holds the lock
//! for its whole duration: where the lock makes them take turns, the
//! completion latencies of both jobs together fit in the run's time (as
//! fio's do on an idle machine); the I/O counts are fio's.

mod common;

use std::fs::File;
use std::path::Path;

use common::{fio, ioscope, tempdir, write_file};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// Two jobs `a` and `b` (directions `dirs`) on one 32 MiB file, 8 MiB
/// per I/O, four loops each.
fn lock_job(dir: &Path, mode: &str, dirs: [&str; 2]) -> std::path::PathBuf {
    File::create(dir.join("data"))
        .and_then(|f| f.set_len(32 << 20))
        .unwrap();
    write_file(
        dir,
        "lock.fio",
        &format!(
            "[global]\nfilename=data\nsize=32m\nbs=8m\nioengine=psync\nloops=4\n\
             lockfile={mode}\n[a]\nrw={}\n[b]\nrw={}\n",
            dirs[0], dirs[1]
        ),
    )
}

/// Each job's I/O count, the sum of every I/O's completion latency over
/// both jobs (ms), and the longer job's runtime (ms).
fn summary(out: &Value) -> (Vec<u64>, f64, f64) {
    let jobs = out["jobs"].as_array().expect("jobs");
    let mut ios = Vec::new();
    let mut busy = 0.0;
    for j in jobs {
        for dir in ["read", "write"] {
            let n = j[dir]["total_ios"].as_u64().unwrap_or(0);
            ios.push(n);
            busy += j[dir]["clat_ns"]["mean"].as_f64().unwrap_or(0.0) * n as f64 / 1e6;
        }
    }
    // From the first job's start to the last one's end where the JSON
    // says when each started (ioscope's job_start, in ms; fio 3.33 has
    // none), else the longer job's runtime.
    let end = |j: &Value| {
        j["job_start"].as_f64().unwrap_or(0.0) + j["job_runtime"].as_f64().unwrap_or(0.0)
    };
    let first = jobs
        .iter()
        .map(|j| j["job_start"].as_f64().unwrap_or(0.0))
        .fold(f64::INFINITY, f64::min);
    let runtime = jobs.iter().map(end).fold(0.0, f64::max) - first;
    (ios, busy, runtime)
}

/// The jobs took turns: their I/Os, end to end, fit in the run (with a
/// tenth and 3 ms for the ms rounding). Without the lock two jobs on two
/// CPUs keep about twice that busy. Checked on ioscope only: fio reads a
/// synchronous I/O's completion time after it lets the lock go, so on a
/// busy machine its clat can take in the other job's I/O (its sums were
/// up to 18% over the run under load, within 1% when idle).
fn took_turns((_, busy, runtime): &(Vec<u64>, f64, f64)) -> bool {
    *busy <= runtime * 1.1 + 3.0
}

fn run_both(dir: &Path, job: &Path) -> [Value; 2] {
    [fio, ioscope].map(|tool| {
        tool([job.as_os_str(), "--output-format=json".as_ref()])
            .dir(dir)
            .run()
            .ok_json()
    })
}

#[test]
fn exclusive_lets_one_io_at_a_time_on_the_file() {
    require!(fio_installed());
    let d = tempdir();
    let job = lock_job(d.path(), "exclusive", ["read", "read"]);
    let [theirs, ours] = run_both(d.path(), &job).map(|v| summary(&v));
    assert_eq!(ours.0, theirs.0, "I/O counts, ioscope vs fio");
    assert!(took_turns(&ours), "ioscope: {ours:?}");
}

#[test]
fn readwrite_keeps_a_writer_alone_and_lets_readers_share() {
    require!(fio_installed());
    let d = tempdir();
    // A writer and a reader take turns, as under exclusive.
    let job = lock_job(d.path(), "readwrite", ["read", "write"]);
    let [theirs, ours] = run_both(d.path(), &job).map(|v| summary(&v));
    assert_eq!(ours.0, theirs.0, "I/O counts, ioscope vs fio");
    assert!(took_turns(&ours), "ioscope: {ours:?}");
    // Two readers may overlap: how much depends on the CPUs free, so only
    // the counts are compared (the lock's own tests show the sharing).
    let job = lock_job(d.path(), "readwrite", ["read", "read"]);
    let [theirs, ours] = run_both(d.path(), &job).map(|v| summary(&v));
    assert_eq!(ours.0, theirs.0, "I/O counts, ioscope vs fio");
}

#[test]
fn lockfile_takes_fios_values_only() {
    let r = ioscope([
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--lockfile=shared",
        "--parse-only",
    ])
    .run();
    assert!(r.assert_refused().contains("lockfile"), "{}", r.describe());
}
