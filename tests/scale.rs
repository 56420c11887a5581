//! Many workers are cheap to start, stop and merge: a run of hundreds of
//! jobs takes about its runtime, not a multiple of it.

mod common;

use std::time::Duration;

use common::{ioscope, u};

const WORKERS: usize = 200;

/// Far above what the run needs (a little over 1 s), so a loaded 2-CPU CI
/// machine never trips it. Before the workers of a phase started together,
/// a worker with a 1 s runtime ran for as long as the others took to start,
/// and 1000 workers took 16 to 24 s on 2 CPUs.
const BOUND: Duration = Duration::from_secs(20);

fn null_workers(extra: &[&str]) -> common::Run {
    let numjobs = format!("--numjobs={WORKERS}");
    let mut args = vec![
        "--name=many",
        "--ioengine=null",
        numjobs.as_str(),
        "--runtime=1",
        "--time_based=1",
        "--size=1g",
        "--output-format=json",
    ];
    args.extend_from_slice(extra);
    let run = ioscope(args).run();
    run.assert_ok();
    assert!(
        run.elapsed < BOUND,
        "{WORKERS} workers took {:?}",
        run.elapsed
    );
    run
}

#[test]
fn two_hundred_workers_are_each_measured_within_the_bound() {
    let v = null_workers(&[]).json();
    let jobs = v["jobs"].as_array().expect("a jobs array");
    assert_eq!(jobs.len(), WORKERS);
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(job["jobname"], "many", "job {i}");
        assert!(u(&job["read"], "total_ios") > 0, "job {i} did no I/O");
        assert!(u(job, "job_runtime") >= 1000, "job {i} ran short");
    }
}

#[test]
fn two_hundred_workers_merge_into_one_group() {
    let v = null_workers(&["--group_reporting=1"]).json();
    let jobs = v["jobs"].as_array().expect("a jobs array");
    assert_eq!(jobs.len(), 1, "{v:#}");
    assert!(u(&jobs[0]["read"], "total_ios") >= WORKERS as u64);
}
