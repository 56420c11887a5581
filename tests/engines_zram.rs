//! The asynchronous engines and their options on a real block device,
//! /dev/zram0 (borrowed through the shared zram guard, one test at a time),
//! with direct=1 and buffered; and the CPU the kernel's io_uring helper
//! threads spend for a job: the SQ-poll thread (sqthread_poll) and io-wq
//! workers (zram completes io_uring reads through io-wq, as it cannot take
//! them without blocking), charged to the job and reconciled with the
//! process total. Skipped (`SKIP <test>: <reason>`) where zram0 is missing or
//! the tests are not root.
//! Timed runs are 1 s each.

mod common;

use common::{extract_json, f, ioscope, job, u, Zram};
use ioscope_testutil::{part, punt_counter, require};
use serde_json::Value;

const BS: u64 = 4096;
/// 4 MiB and 12 KiB: 1027 blocks, not a multiple of any batch size used.
const SIZE: u64 = 1027 * BS;

const BATCH8: &[&str] = &[
    "--iodepth=32",
    "--iodepth_batch_submit=8",
    "--iodepth_batch_complete_min=8",
];

fn args(z: &Zram, name: &str, rw: &str, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--output-format=json".to_string(),
        format!("--name={name}"),
        format!("--filename={}", z.path()),
        format!("--rw={rw}"),
        format!("--bs={BS}"),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// A size-bound job moves exactly SIZE bytes with no error.
fn run_moves(z: &Zram, rw: &str, extra: &[&str]) -> Value {
    let mut e = vec!["--size=4108k"];
    e.extend_from_slice(extra);
    let what = format!("rw={rw} {}", extra.join(" "));
    let v = ioscope(args(z, "z", rw, &e)).run().ok_json();
    let j = job(&v, "z");
    let d = if rw.contains("write") {
        "write"
    } else {
        "read"
    };
    assert_eq!(u(j, "error"), 0, "{what}: {j:#}");
    assert_eq!(u(&j[d], "io_bytes"), SIZE, "{what}");
    assert_eq!(u(&j[d], "io_kbytes"), SIZE / 1024, "{what}");
    assert_eq!(u(&j[d], "total_ios"), SIZE / BS, "{what}");
    v
}

/// cpu_accounting's parts never add up to more than the process used:
/// other_ns = process - workers - helpers, never negative.
fn check_cpu_accounting(v: &Value) {
    let c = &v["cpu_accounting"];
    let process = u(c, "process_usr_ns") + u(c, "process_sys_ns");
    let parts = u(c, "workers_ns") + u(c, "iou_sqp_ns") + u(c, "iou_wrk_ns");
    let other = c["other_ns"]
        .as_u64()
        .unwrap_or_else(|| panic!("other_ns is not a non-negative integer: {c:#}"));
    assert!(
        parts <= process,
        "workers + helpers ({parts} ns) exceed the process total ({process} ns): {c:#}"
    );
    assert_eq!(
        other,
        process - parts,
        "other_ns is not process - workers - helpers: {c:#}"
    );
    assert!(u(c, "workers_ns") > 0, "no worker CPU at all: {c:#}");
}

/// The `io_uring cpu :` line of the normal text, if any.
fn io_uring_cpu_line(text: &str) -> Option<&str> {
    text.lines()
        .find(|l| l.trim_start().starts_with("io_uring cpu :"))
}

#[test]
fn async_engines_and_their_options_move_the_expected_bytes_on_zram() {
    let z = require!(Zram::acquire());
    let uring: &[&[&str]] = &[
        &[],
        &["--sqthread_poll=1"],
        &["--sqthread_poll=1", "--sqthread_poll_cpu=1"],
        &["--fixedbufs=1", "--registerfiles=1"],
        &["--fixedbufs=1"],
        &["--registerfiles=1"],
        &["--nonvectored=0"],
        &["--nonvectored=1"],
        &["--force_async=2"],
    ];
    let libaio: &[&[&str]] = &[&[], &["--userspace_reap=1"], &["--libaio_vectored=1"]];
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for o in uring {
        cases.push([&["--ioengine=io_uring"][..], o].concat());
    }
    for o in libaio {
        cases.push([&["--ioengine=libaio"][..], o].concat());
    }
    cases.push(vec!["--ioengine=mmap"]);
    for case in &cases {
        for direct in ["--direct=1", "--direct=0"] {
            let (r0, w0) = z.sectors();
            for (rw, depth) in [
                ("randwrite", BATCH8),
                ("randread", BATCH8),
                ("read", &["--iodepth=1"][..]),
            ] {
                let extra = [&case[..], &[direct], depth].concat();
                run_moves(&z, rw, &extra);
            }
            if direct == "--direct=1" && case[0] != "--ioengine=mmap" {
                let (r1, w1) = z.sectors();
                assert!(
                    (w1 - w0) * 512 >= SIZE && (r1 - r0) * 512 >= 2 * SIZE,
                    "{case:?} direct=1: the I/O did not reach zram0 (read {} written {} bytes there)",
                    (r1 - r0) * 512,
                    (w1 - w0) * 512
                );
            }
        }
    }
}

#[test]
fn sqthread_poll_cpu_is_charged_to_the_job_and_shown() {
    let z = require!(Zram::acquire());
    for direct in ["--direct=1", "--direct=0"] {
        let r = ioscope(args(
            &z,
            "sq",
            "randread",
            &[
                "--ioengine=io_uring",
                direct,
                "--iodepth=16",
                "--sqthread_poll=1",
                "--time_based",
                "--runtime=1",
                "--output-format=normal,json",
            ],
        ))
        .run();
        r.assert_ok();
        let (v, text) =
            extract_json(&r.stdout).unwrap_or_else(|| panic!("no JSON: {}", r.describe()));
        let j = job(&v, "sq");
        assert_eq!(u(j, "error"), 0);
        assert!(u(&j["read"], "total_ios") > 0);
        assert!(
            f(j, "iou_sqp_cpu") > 0.0,
            "{direct}: iou_sqp_cpu is 0 with sqthread_poll=1: {j:#}"
        );
        assert!(u(&v["cpu_accounting"], "iou_sqp_ns") > 0);
        let line = io_uring_cpu_line(&text)
            .unwrap_or_else(|| panic!("{direct}: no `io_uring cpu :` line:\n{text}"));
        assert!(line.contains("sqpoll="), "{line}");
        check_cpu_accounting(&v);
    }
}

/// zram cannot take an io_uring read without blocking, so io_uring hands
/// each one to an io-wq worker: their CPU is the job's, and shown.
#[test]
fn buffered_io_uring_randread_on_zram_is_served_by_io_wq_workers() {
    let z = require!(Zram::acquire());
    // Something to read: 16 MiB written first.
    let v = ioscope(args(
        &z,
        "w",
        "write",
        &["--bs=1m", "--size=16m", "--direct=1"],
    ))
    .run()
    .ok_json();
    assert_eq!(u(&job(&v, "w")["write"], "io_bytes"), 16 << 20);
    let r = ioscope(args(
        &z,
        "wq",
        "randread",
        &[
            "--ioengine=io_uring",
            "--size=16m",
            "--iodepth=32",
            "--time_based",
            "--runtime=1",
            "--count_punts=1",
            "--output-format=normal,json",
        ],
    ))
    .run();
    r.assert_ok();
    let (v, text) = extract_json(&r.stdout).unwrap_or_else(|| panic!("no JSON: {}", r.describe()));
    let j = job(&v, "wq");
    if part!("the punt count", punt_counter()).is_some() {
        let punts = u(j, "iou_punts");
        assert!(punts > 0, "no request counted as punted: {j:#}");
        assert!(punts <= u(&j["read"], "total_ios") + 32, "{j:#}");
    }
    assert_eq!(u(j, "error"), 0);
    assert!(f(j, "iou_wrk_cpu") > 0.0, "iou_wrk_cpu is 0: {j:#}");
    assert!(
        u(j, "iou_wrk_threads") >= 1,
        "no io-wq worker counted: {j:#}"
    );
    assert_eq!(
        f(j, "iou_sqp_cpu"),
        0.0,
        "an SQ thread without sqthread_poll: {j:#}"
    );
    assert!(u(&v["cpu_accounting"], "iou_wrk_ns") > 0);
    assert!(f(j, "cpu_ns_per_io") > 0.0, "{j:#}");
    let line =
        io_uring_cpu_line(&text).unwrap_or_else(|| panic!("no `io_uring cpu :` line:\n{text}"));
    assert!(line.contains("io-wq="), "{line}");
    check_cpu_accounting(&v);
}

/// Without helper threads the process total is the workers plus the rest
/// (main thread, setup), and still never less than its parts.
#[test]
fn cpu_accounting_adds_up_for_libaio_and_psync_on_zram() {
    let z = require!(Zram::acquire());
    for engine in ["--ioengine=libaio", "--ioengine=psync"] {
        let v = ioscope(args(
            &z,
            "c",
            "randread",
            &[
                engine,
                "--direct=1",
                "--size=16m",
                "--iodepth=8",
                "--time_based",
                "--runtime=1",
            ],
        ))
        .run()
        .ok_json();
        let c = &v["cpu_accounting"];
        assert_eq!(u(c, "iou_sqp_ns"), 0, "{engine}: {c:#}");
        assert_eq!(u(c, "iou_wrk_ns"), 0, "{engine}: {c:#}");
        assert_eq!(f(job(&v, "c"), "iou_wrk_cpu"), 0.0);
        check_cpu_accounting(&v);
    }
}

#[test]
fn options_zram_cannot_honour_are_refused_or_fail_as_fio() {
    let z = require!(Zram::acquire());
    let before = z.sectors();
    // No poll queues on zram: polled io_uring I/O is refused before any
    // I/O (the job is reported with its error and nothing done).
    for direct in ["--direct=1", "--direct=0"] {
        for rw in ["randread", "randwrite"] {
            let r = ioscope(args(
                &z,
                "h",
                rw,
                &["--ioengine=io_uring", "--hipri=1", "--size=1m", direct],
            ))
            .run();
            let err = r.assert_refused();
            assert!(err.contains("hipri"), "{}", r.describe());
            r.assert_nothing_done();
        }
    }
    // RWF_DONTCACHE is for file systems only: refused by name when the
    // queue is set up, before any I/O.
    for direct in ["--direct=1", "--direct=0"] {
        let r = ioscope(args(
            &z,
            "u",
            "randread",
            &["--ioengine=io_uring", "--uncached=1", "--size=1m", direct],
        ))
        .run();
        let err = r.assert_refused();
        assert!(err.contains("uncached"), "{}", r.describe());
        r.assert_nothing_done();
    }
    assert_eq!(z.sectors(), before, "I/O reached zram0 before a refusal");

    // pvsync2 with hipri runs, completing by interrupt, and says so.
    let r = ioscope(args(
        &z,
        "p",
        "randread",
        &["--ioengine=pvsync2", "--hipri=1", "--size=1m", "--direct=1"],
    ))
    .run();
    assert!(r.status.success(), "{}", r.describe());
    assert_eq!(
        r.json()["notices"][0]["kind"],
        "polled_without_poll_queues",
        "no notice that hipri did not poll: {}",
        r.describe()
    );
    assert_eq!(u(&job(&r.json(), "p")["read"], "io_bytes"), 1 << 20);

    // zram does not take RWF_NOWAIT: either refused up front by name, or
    // (as fio 3.33 does) the first I/O fails with EOPNOTSUPP.
    for engine in ["--ioengine=io_uring", "--ioengine=libaio"] {
        let r = ioscope(args(
            &z,
            "n",
            "randread",
            &[engine, "--nowait=1", "--size=1m", "--direct=1"],
        ))
        .run();
        let err = r.assert_refused();
        if !err.contains("nowait") {
            assert!(err.contains("Operation not supported"), "{}", r.describe());
            assert_eq!(u(job(&r.json(), "n"), "error"), libc::EOPNOTSUPP as u64);
        }
    }
}
