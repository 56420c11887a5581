//! Every engine and every engine option, end to end on a temporary file:
//! size-bound jobs move exactly the bytes asked for (io_kbytes, total_ios)
//! with no errors, at iodepth 1 and at iodepth 32 with batching, buffered and
//! with direct=1 where the option allows it. Where an option has an effect
//! the outside can see (SQ polling, io-wq workers, RWF_NOWAIT, RWF_DONTCACHE,
//! batch sizes) the test looks for that effect. Options a target cannot
//! honour are refused before the run, by name.
//!
//! Jobs are a few MiB each so the whole file runs in seconds.

mod common;

use std::path::{Path, PathBuf};

use common::{extract_json, f, ioscope, job, tempdir, u};
use ioscope_testutil::{program, punt_counter, require, resident_pages, uncached_buffered_io};
use serde_json::Value;

const BS: u64 = 4096;
/// 515 blocks: not a multiple of any batch size used here, so the last,
/// partial batch is exercised too.
const ODD_SIZE: u64 = 515 * BS;

/// The engines that do real I/O on a file.
const FILE_ENGINES: &[&str] = &[
    "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "posixaio", "io_uring", "mmap",
];

/// Batching at iodepth 32, as fio users write it.
const BATCH8: &[&str] = &[
    "--iodepth=32",
    "--iodepth_batch_submit=8",
    "--iodepth_batch_complete_min=8",
];

fn base(name: &str, file: &Path, rw: &str, size: u64) -> Vec<String> {
    vec![
        "--output-format=json".into(),
        format!("--name={name}"),
        format!("--filename={}", file.display()),
        format!("--rw={rw}"),
        format!("--bs={BS}"),
        format!("--size={size}"),
    ]
}

fn with(mut a: Vec<String>, extra: &[&str]) -> Vec<String> {
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// The direction a job of this rw moves data in, as fio's JSON names it.
fn dir_of(rw: &str) -> &'static str {
    if rw.contains("write") {
        "write"
    } else {
        "read"
    }
}

/// error 0, exactly `bytes` moved in `total_ios` I/Os in the job's
/// direction, nothing in the other.
fn assert_moved(v: &Value, name: &str, rw: &str, bytes: u64, what: &str) {
    let j = job(v, name);
    assert_eq!(u(j, "error"), 0, "{what}: error is not 0: {j:#}");
    let d = dir_of(rw);
    let other = if d == "read" { "write" } else { "read" };
    assert_eq!(u(&j[d], "io_bytes"), bytes, "{what}: io_bytes");
    assert_eq!(u(&j[d], "io_kbytes"), bytes / 1024, "{what}: io_kbytes");
    assert_eq!(u(&j[d], "total_ios"), bytes / BS, "{what}: total_ios");
    assert_eq!(u(&j[d], "short_ios"), 0, "{what}: short_ios");
    assert_eq!(u(&j[other], "io_bytes"), 0, "{what}: {other} io_bytes");
    assert_eq!(u(&j[other], "total_ios"), 0, "{what}: {other} total_ios");
}

/// Runs one size-bound job and checks the bytes; returns the JSON.
fn run_moves(file: &Path, rw: &str, size: u64, extra: &[&str]) -> Value {
    let what = format!("rw={rw} {}", extra.join(" "));
    let v = ioscope(with(base("e", file, rw, size), extra))
        .run()
        .ok_json();
    assert_moved(&v, "e", rw, size, &what);
    v
}

/// A percentage bucket of an iodepth_* histogram.
fn bucket(j: &Value, hist: &str, key: &str) -> f64 {
    j[hist][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {hist}[{key:?}] in {j:#}"))
}

/// Every reap but the last took `each` I/Os (a bucket of fio's
/// iodepth_complete), and the last, the whole depth in flight once the
/// job has issued its last I/O, is in bucket `last`: one of `reaps`.
fn assert_one_final_drain(j: &Value, each: &str, last: &str, reaps: u32, what: &str) {
    let share = 100.0 / f64::from(reaps);
    let (most, end) = (
        bucket(j, "iodepth_complete", each),
        bucket(j, "iodepth_complete", last),
    );
    assert!(
        (end - share).abs() < 0.01 && (most + end - 100.0).abs() < 0.01,
        "{what}: {j:#}"
    );
}

fn data_file(dir: &Path) -> PathBuf {
    dir.join("data")
}

/// Writes `size` bytes with psync and fsyncs them: dirty pages would stay in
/// the page cache through a job's invalidate=1, and reads would hit them.
fn write_clean(file: &Path, size: u64) {
    run_moves(file, "write", size, &["--ioengine=psync"]);
    std::fs::File::open(file).unwrap().sync_all().unwrap();
}

// ------------------------------------------------------------ every engine

#[test]
fn every_engine_moves_the_expected_bytes_buffered_and_direct() {
    let d = tempdir();
    let file = data_file(d.path());
    for engine in FILE_ENGINES {
        let e = format!("--ioengine={engine}");
        for direct in ["--direct=0", "--direct=1"] {
            // writes first: the reads then find a file of the right size.
            for rw in ["randwrite", "randread", "write", "read"] {
                run_moves(&file, rw, ODD_SIZE, &[&e, direct, "--iodepth=1"]);
                run_moves(
                    &file,
                    rw,
                    ODD_SIZE,
                    &[&e, direct, BATCH8[0], BATCH8[1], BATCH8[2]],
                );
            }
        }
    }
}

#[test]
fn mixed_randrw_moves_the_whole_size_across_both_directions() {
    let d = tempdir();
    let file = data_file(d.path());
    for engine in ["libaio", "io_uring"] {
        let e = format!("--ioengine={engine}");
        let v = ioscope(with(
            base("m", &file, "randrw", ODD_SIZE),
            &[&e, "--direct=1", BATCH8[0], BATCH8[1], BATCH8[2]],
        ))
        .run()
        .ok_json();
        let j = job(&v, "m");
        assert_eq!(u(j, "error"), 0, "{engine}");
        let (r, w) = (&j["read"], &j["write"]);
        assert_eq!(u(r, "io_bytes") + u(w, "io_bytes"), ODD_SIZE, "{engine}");
        assert_eq!(
            u(r, "total_ios") + u(w, "total_ios"),
            ODD_SIZE / BS,
            "{engine}"
        );
        assert!(
            u(r, "total_ios") > 0 && u(w, "total_ios") > 0,
            "{engine}: {j:#}"
        );
    }
}

#[test]
fn nop_and_null_at_depth_128_batch_32_move_the_expected_ios() {
    // 64 MiB in 4 KiB blocks: 16384 I/Os, 512 batches of 32.
    let d = tempdir();
    for engine in ["nop", "null"] {
        for rw in ["randread", "write"] {
            let v = ioscope([
                "--output-format=json+".to_string(),
                "--name=n".into(),
                format!("--ioengine={engine}"),
                format!("--rw={rw}"),
                "--bs=4k".into(),
                "--size=64m".into(),
                "--iodepth=128".into(),
                "--iodepth_batch_submit=32".into(),
                "--iodepth_batch_complete_min=32".into(),
                "--lat_percentiles=1".into(),
                "--slat_percentiles=1".into(),
            ])
            .dir(d.path())
            .run()
            .ok_json();
            let what = format!("{engine} {rw}");
            assert_moved(&v, "n", rw, 64 << 20, &what);
            let j = job(&v, "n");
            assert_eq!(bucket(j, "iodepth_submit", "32"), 100.0, "{what}: {j:#}");
            if engine == "null" {
                // fio's null engine runs one batch at a time.
                assert_eq!(bucket(j, "iodepth_complete", "32"), 100.0, "{what}: {j:#}");
            } else {
                // Every reap takes 32 but the last, which, as fio's, waits
                // for the 128 in flight at once: one of 1 + (16384 - 128) / 32.
                assert_one_final_drain(j, "32", ">=64", 509, &what);
            }
            // A batch's equal latencies are added together: each I/O
            // still counts once in every latency and histogram.
            let dir = &j[dir_of(rw)];
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                let l = &dir[lat];
                assert_eq!(u(l, "N"), 16384, "{what}: {lat}: {l:#}");
                let bins = l["bins"].as_object().expect("json+ bins");
                let binned: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
                assert_eq!(binned, 16384, "{what}: {lat} bins: {l:#}");
                let (min, max) = (u(l, "min"), u(l, "max"));
                let mean = l["mean"].as_f64().unwrap();
                assert!(
                    min as f64 <= mean && mean <= max as f64,
                    "{what}: {lat}: {l:#}"
                );
            }
        }
        // nop and null need no file and make none.
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert!(left.is_empty(), "{engine} left files behind: {left:?}");
    }
}

#[test]
fn nop_at_depth_1_completes_every_request() {
    let d = tempdir();
    let v = ioscope([
        "--output-format=json",
        "--name=n",
        "--ioengine=nop",
        "--rw=randwrite",
        "--bs=4k",
        "--size=1m",
    ])
    .dir(d.path())
    .run()
    .ok_json();
    assert_moved(&v, "n", "randwrite", 1 << 20, "nop QD1");
}

// ------------------------------------------------------------ batching

/// A reaped batch's bandwidth and IOPS samples are taken once, at its
/// end, and must come out as one per I/O would: every interval sampled,
/// and the samples' mean the job's rate.
#[test]
fn batched_completions_are_sampled_as_one_by_one() {
    let d = tempdir();
    let v = ioscope([
        "--output-format=json",
        "--name=b",
        "--ioengine=nop",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--iodepth=32",
        "--iodepth_batch_submit=8",
        "--iodepth_batch_complete_min=8",
        "--time_based",
        "--runtime=2",
        "--bwavgtime=100",
        "--iopsavgtime=250",
    ])
    .dir(d.path())
    .run()
    .ok_json();
    let j = job(&v, "b");
    let r = &j["read"];
    // Nearly every reap took 8 completions: the batched path ran.
    assert!(f(&j["iodepth_complete"], "8") > 90.0, "{j:#}");
    // 2 s in 100 ms and 250 ms intervals (fio drops a last one cut short).
    let (bs, is) = (u(r, "bw_samples"), u(r, "iops_samples"));
    assert!(
        (17..=20).contains(&bs) && (7..=8).contains(&is),
        "{bs} {is}"
    );
    let near = |mean: f64, rate: f64| (mean - rate).abs() <= rate * 0.1;
    assert!(near(f(r, "bw_mean"), f(r, "bw")), "{r:#}");
    assert!(near(f(r, "iops_mean"), f(r, "iops")), "{r:#}");
}

/// At iodepth 1 the io_uring engines submit and wait in one call: an I/O
/// has no submission time of its own, so slat is not measured and clat
/// is lat (one clock read per I/O); above it, slat is measured.
#[test]
fn io_uring_at_qd1_has_no_slat_and_clat_is_lat() {
    let d = tempdir();
    for (engine, depth) in [("nop", 1), ("io_uring", 1), ("nop", 2), ("io_uring", 2)] {
        let v = ioscope([
            "--output-format=json",
            "--name=q",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            &format!("--ioengine={engine}"),
            &format!("--iodepth={depth}"),
        ])
        .dir(d.path())
        .run()
        .ok_json();
        let r = &job(&v, "q")["read"];
        let what = format!("{engine} iodepth={depth}");
        assert_eq!(u(r, "total_ios"), 256, "{what}");
        let n = |k: &str| u(&r[k], "N");
        assert_eq!(n("lat_ns"), 256, "{what}");
        assert_eq!(n("clat_ns"), 256, "{what}");
        if depth == 1 {
            assert_eq!(n("slat_ns"), 0, "{what}: {r:#}");
            for k in ["min", "max", "mean"] {
                assert_eq!(r["clat_ns"][k], r["lat_ns"][k], "{what}: {k}");
            }
        } else {
            assert_eq!(n("slat_ns"), 256, "{what}: {r:#}");
        }
    }
}

/// At QD1 the job submits each read and waits for it in one
/// io_uring_enter, as t/io_uring does (it made two calls per I/O, a
/// submit and a wait, before). O_DIRECT reads of a file complete
/// asynchronously, so there is a wait every time; the ring probes now
/// and then whether the wait can be skipped, which costs one call more
/// in 65.
#[test]
fn io_uring_at_qd1_submits_and_waits_in_one_call() {
    require!(program("strace"));
    let d = tempdir();
    let file = data_file(d.path());
    let size = 1024 * BS;
    write_clean(&file, size);
    let trace = d.path().join("strace.out");
    let mut args = vec![
        "-f".to_string(),
        "-e".into(),
        "trace=io_uring_enter".into(),
        "-o".into(),
        trace.display().to_string(),
        common::bin().display().to_string(),
    ];
    args.extend(base("e", &file, "randread", size));
    args.extend(["--ioengine=io_uring".into(), "--direct=1".into()]);
    let out = std::process::Command::new("strace")
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_moved(&v, "e", "randread", size, "io_uring QD1 direct");
    let text = std::fs::read_to_string(&trace).unwrap();
    let calls = text
        .lines()
        .filter(|l| l.contains("io_uring_enter("))
        .count();
    let ios = (size / BS) as usize;
    assert!(
        calls >= ios && calls <= ios + ios / 16,
        "{calls} io_uring_enter calls for {ios} reads at QD1"
    );
}

/// fio's iodepth_submit / iodepth_complete histograms count how many I/Os
/// went in per submit and came back per reap: with batches of 8 every
/// submit and every reap is in the 5-8 bucket; at QD1 all are in 1-4.
#[test]
fn batches_are_submitted_and_reaped_whole() {
    let d = tempdir();
    let file = data_file(d.path());
    // 1024 blocks: 128 whole batches of 8.
    let size = 1024 * BS;
    run_moves(&file, "write", size, &["--ioengine=psync"]);
    for engine in ["libaio", "io_uring"] {
        let e = format!("--ioengine={engine}");
        for direct in ["--direct=1", "--direct=0"] {
            let v = run_moves(
                &file,
                "randread",
                size,
                &[&e, direct, BATCH8[0], BATCH8[1], BATCH8[2]],
            );
            let j = job(&v, "e");
            let what = format!("{engine} {direct} QD32 batch 8");
            assert_eq!(bucket(j, "iodepth_submit", "8"), 100.0, "{what}: {j:#}");
            // Reaps of 8, and the 32 in flight at the end at once, as fio:
            // one reap of 1 + (1024 - 32) / 8.
            assert_one_final_drain(j, "8", "32", 125, &what);

            let v = run_moves(&file, "randread", size, &[&e, direct, "--iodepth=1"]);
            let j = job(&v, "e");
            let what = format!("{engine} {direct} QD1");
            assert_eq!(bucket(j, "iodepth_submit", "4"), 100.0, "{what}: {j:#}");
            assert_eq!(bucket(j, "iodepth_complete", "4"), 100.0, "{what}: {j:#}");
            assert_eq!(bucket(j, "iodepth_level", "1"), 100.0, "{what}: {j:#}");
        }
    }
}

#[test]
fn batch_complete_max_low_water_mark_and_userspace_reap_keep_the_byte_count() {
    let d = tempdir();
    let file = data_file(d.path());
    run_moves(&file, "write", ODD_SIZE, &["--ioengine=psync"]);
    let shapes: &[&[&str]] = &[
        &[
            "--iodepth=32",
            "--iodepth_batch_submit=4",
            "--iodepth_batch_complete_min=1",
            "--iodepth_batch_complete_max=16",
        ],
        &["--iodepth=32", "--iodepth_low=8"],
        &[
            "--iodepth=32",
            "--iodepth_low=8",
            "--iodepth_batch_submit=8",
            "--iodepth_batch_complete_min=0",
        ],
        &[
            "--iodepth=16",
            "--iodepth_batch_submit=16",
            "--iodepth_batch_complete_min=16",
        ],
        &[
            "--iodepth=32",
            "--iodepth_batch_submit=32",
            "--iodepth_batch_complete_min=1",
            "--iodepth_batch_complete_max=32",
        ],
    ];
    for engine in ["libaio", "io_uring"] {
        for shape in shapes {
            for rw in ["randread", "randwrite"] {
                let mut extra = vec![format!("--ioengine={engine}"), "--direct=1".into()];
                extra.extend(shape.iter().map(|s| s.to_string()));
                let extra: Vec<&str> = extra.iter().map(|s| s.as_str()).collect();
                run_moves(&file, rw, ODD_SIZE, &extra);
            }
        }
    }
}

/// fio marks a whole batch in iodepth_level at the depth reached when the
/// batch is committed (td_io_commit → io_u_mark_depth(td, io_u_queued)):
/// QD32 with batches of 8 in and 8 out (min = max = 8) keeps 32 in flight,
/// so fio 3.33 reports 0.78% at 8, 1.56% at 16 and 97.66% at 32 for 1024
/// I/Os, on any device. Marking each I/O at the depth it was queued at
/// spreads them over 25..32 and puts most in the 16 bucket instead.
#[test]
fn batched_submissions_count_in_iodepth_level_at_the_committed_depth_as_fio() {
    let d = tempdir();
    let file = data_file(d.path());
    let size = 1024 * BS;
    run_moves(&file, "write", size, &["--ioengine=psync"]);
    for engine in ["io_uring", "libaio"] {
        let e = format!("--ioengine={engine}");
        let v = run_moves(
            &file,
            "randread",
            size,
            &[
                &e,
                "--direct=1",
                BATCH8[0],
                BATCH8[1],
                BATCH8[2],
                "--iodepth_batch_complete_max=8",
            ],
        );
        let lvl = &job(&v, "e")["iodepth_level"];
        let at = |k: &str| lvl[k].as_f64().unwrap_or(-1.0);
        assert!(
            (at("32") - 97.65625).abs() < 0.01
                && (at("16") - 1.5625).abs() < 0.01
                && (at("8") - 0.78125).abs() < 0.01,
            "{engine}: iodepth_level is not fio's (8=0.78, 16=1.56, 32=97.66): {lvl}"
        );
    }
}

// ------------------------------------------------------------ io_uring options

const URING_OPTIONS: &[&[&str]] = &[
    &[],
    &["--sqthread_poll=1"],
    &["--sqthread_poll=1", "--sqthread_poll_cpu=0"],
    &["--fixedbufs=1"],
    &["--registerfiles=1"],
    &["--fixedbufs=1", "--registerfiles=1"],
    &["--nonvectored=0"],
    &["--nonvectored=1"],
    &["--fixedbufs=1", "--nonvectored=0"],
    &["--force_async=1"],
    &["--force_async=4"],
    &["--uncached=1"],
];

#[test]
fn every_io_uring_option_moves_the_expected_bytes() {
    let d = tempdir();
    let file = data_file(d.path());
    for opts in URING_OPTIONS {
        for direct in ["--direct=1", "--direct=0"] {
            for rw in ["randwrite", "randread"] {
                let mut extra = vec!["--ioengine=io_uring", direct];
                extra.extend_from_slice(opts);
                let mut qd1 = extra.clone();
                qd1.push("--iodepth=1");
                run_moves(&file, rw, ODD_SIZE, &qd1);
                extra.extend_from_slice(BATCH8);
                run_moves(&file, rw, ODD_SIZE, &extra);
            }
        }
    }
    // nowait needs the data where a non-blocking request can find it: with
    // O_DIRECT on a file system that allows it, every request succeeds.
    for rw in ["randwrite", "randread"] {
        run_moves(
            &file,
            rw,
            ODD_SIZE,
            &[
                "--ioengine=io_uring",
                "--direct=1",
                "--nowait=1",
                "--iodepth=1",
            ],
        );
        run_moves(
            &file,
            rw,
            ODD_SIZE,
            &[
                "--ioengine=io_uring",
                "--direct=1",
                "--nowait=1",
                BATCH8[0],
                BATCH8[1],
                BATCH8[2],
            ],
        );
    }
}

/// The ring of a running job, as the kernel describes it in
/// /proc/PID/fdinfo/FD: field name -> value (SqThread, SqThreadCpu,
/// UserFiles, UserBufs, ...), read once the ring has completed requests.
fn running_ring_fdinfo(extra: &[&str]) -> std::collections::HashMap<String, String> {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let d = tempdir();
    let file = data_file(d.path());
    write_clean(&file, 4 << 20);
    let mut a = base("ring", &file, "randread", 4 << 20);
    a.extend(
        [
            "--ioengine=io_uring",
            "--iodepth=8",
            "--time_based",
            "--runtime=1",
        ]
        .map(String::from),
    );
    a.extend(extra.iter().map(|s| s.to_string()));
    let mut child = Command::new(common::bin())
        .args(&a)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let start = Instant::now();
    let mut found = None;
    while found.is_none() && start.elapsed() < Duration::from_secs(5) {
        if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) {
            for fd in fds.flatten() {
                let Ok(text) = std::fs::read_to_string(fd.path()) else {
                    continue;
                };
                if !text.contains("SqMask:") {
                    continue;
                }
                let map: std::collections::HashMap<String, String> = text
                    .lines()
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .collect();
                let tail: u64 = map.get("CqTail").and_then(|v| v.parse().ok()).unwrap_or(0);
                if tail > 0 {
                    found = Some(map);
                    break;
                }
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "ioscope {} failed: {status}", a.join(" "));
    found.unwrap_or_else(|| {
        panic!("no io_uring ring with completions seen in /proc/{pid}/fdinfo for {extra:?}")
    })
}

/// fixedbufs, registerfiles, sqthread_poll and sqthread_poll_cpu as the
/// kernel sees the ring: registered buffers (one per iodepth slot) and files,
/// an SQ thread, and that thread's CPU.
#[test]
fn io_uring_options_reach_the_ring_as_the_kernel_reports_it() {
    let field = |m: &std::collections::HashMap<String, String>, k: &str| -> String {
        m.get(k)
            .cloned()
            .unwrap_or_else(|| panic!("no {k} in fdinfo: {m:?}"))
    };
    let plain = running_ring_fdinfo(&[]);
    assert_eq!(field(&plain, "UserFiles"), "0", "{plain:?}");
    assert_eq!(field(&plain, "UserBufs"), "0", "{plain:?}");
    assert_eq!(
        field(&plain, "SqThread"),
        "-1",
        "an SQ thread without sqthread_poll: {plain:?}"
    );

    let reg = running_ring_fdinfo(&["--fixedbufs=1", "--registerfiles=1"]);
    assert_eq!(field(&reg, "UserFiles"), "1", "registerfiles=1: {reg:?}");
    assert_eq!(
        field(&reg, "UserBufs"),
        "8",
        "fixedbufs=1 at iodepth=8: {reg:?}"
    );

    let sq = running_ring_fdinfo(&["--sqthread_poll=1", "--sqthread_poll_cpu=1"]);
    let tid: i64 = field(&sq, "SqThread").parse().unwrap();
    assert!(tid > 0, "sqthread_poll=1 but no SQ thread: {sq:?}");
    if std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        > 1
    {
        assert_eq!(
            field(&sq, "SqThreadCpu"),
            "1",
            "sqthread_poll_cpu=1: {sq:?}"
        );
    }
}

/// With sqthread_poll the kernel's SQ thread submits for us: its CPU is
/// charged to the job (iou_sqp_cpu) and shown on the `io_uring cpu :` line.
#[test]
fn sqthread_poll_is_charged_to_the_job() {
    let d = tempdir();
    let file = data_file(d.path());
    run_moves(&file, "write", 4 << 20, &["--ioengine=psync"]);
    let r = ioscope(with(
        base("sq", &file, "randread", 4 << 20),
        &[
            "--ioengine=io_uring",
            "--direct=1",
            "--iodepth=8",
            "--sqthread_poll=1",
            "--time_based",
            "--runtime=1",
            "--output-format=normal,json",
        ],
    ))
    .run();
    r.assert_ok();
    let (v, text) = extract_json(&r.stdout).unwrap_or_else(|| panic!("no JSON: {}", r.describe()));
    let j = job(&v, "sq");
    assert_eq!(u(j, "error"), 0);
    assert!(
        f(j, "iou_sqp_cpu") > 0.0,
        "iou_sqp_cpu is 0 with sqthread_poll=1: {j:#}"
    );
    assert!(
        u(&v["cpu_accounting"], "iou_sqp_ns") > 0,
        "{:#}",
        v["cpu_accounting"]
    );
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("io_uring cpu :") && l.contains("sqpoll=")),
        "no `io_uring cpu :` line in the text report:\n{text}"
    );
}

/// force_async sets IOSQE_ASYNC: the requests run in io-wq workers, which
/// the report counts and charges to the job.
#[test]
fn force_async_runs_requests_in_io_wq_workers() {
    let d = tempdir();
    let file = data_file(d.path());
    let size = 8 << 20;
    run_moves(&file, "write", size, &["--ioengine=psync"]);
    let v = run_moves(
        &file,
        "randread",
        size,
        &[
            "--ioengine=io_uring",
            "--direct=1",
            "--force_async=1",
            "--iodepth=16",
        ],
    );
    let j = job(&v, "e");
    assert!(
        u(j, "iou_wrk_threads") >= 1,
        "no io-wq workers with force_async=1: {j:#}"
    );
    assert!(
        u(&v["cpu_accounting"], "iou_wrk_ns") > 0,
        "{:#}",
        v["cpu_accounting"]
    );
}

/// count_punts=1 counts every request force_async sends to io-wq, exactly,
/// also when an SQ thread submits them; without it the count is -1 and the
/// text is as before.
#[test]
fn count_punts_counts_each_forced_request_once() {
    let d = tempdir();
    let file = data_file(d.path());
    let size = 4 << 20;
    write_clean(&file, size);
    let forced = ["--ioengine=io_uring", "--force_async=1", "--iodepth=8"];
    let v = run_moves(&file, "randread", size, &forced);
    assert_eq!(job(&v, "e")["iou_punts"], -1, "punts counted unasked");
    let c = &v["cpu_accounting"];
    assert!(
        c["iou_punts_uncounted"]
            .as_str()
            .is_some_and(|why| why.contains("count_punts=1")),
        "{c:#}"
    );

    require!(punt_counter());
    let blocks = size / 4096;
    for sq in [&[][..], &["--sqthread_poll=1"][..]] {
        let mut extra = forced.to_vec();
        extra.push("--count_punts=1");
        extra.extend_from_slice(sq);
        let what = extra.join(" ");
        let mut args = with(base("e", &file, "randread", size), &extra);
        args.push("--output-format=normal,json".into());
        let r = ioscope(args).run();
        r.assert_ok();
        let (v, text) = extract_json(&r.stdout).unwrap_or_else(|| panic!("{}", r.describe()));
        let j = job(&v, "e");
        assert_eq!(u(&j["read"], "total_ios"), blocks, "{what}");
        assert_eq!(u(j, "iou_punts"), blocks, "{what}: {j:#}");
        assert_eq!(u(&v["cpu_accounting"], "iou_punts"), blocks, "{what}");
        let share = format!("punted={blocks} (100.0% of I/Os)");
        assert!(text.contains(&share), "{what}: no `{share}` in\n{text}");
    }

    // libaio has no io-wq to punt to: the option belongs to the io_uring
    // engines and is refused elsewhere, before the run.
    let r = ioscope(with(
        base("e", &file, "randread", size),
        &["--ioengine=libaio", "--count_punts=1"],
    ))
    .run();
    assert!(r.assert_refused().contains("count_punts"));
}

/// uncached=1 (RWF_DONTCACHE, Linux 6.14): buffered reads leave the file's
/// pages out of the page cache; the same read without it fills the cache.
/// Both engines of fio's that have the option: io_uring and pvsync2.
#[test]
fn uncached_buffered_reads_leave_the_page_cache_empty() {
    let d = tempdir();
    require!(uncached_buffered_io(d.path()));
    let file = data_file(d.path());
    let size = 4 << 20;
    let pages = (size / 4096) as usize;
    write_clean(&file, size);
    for engine in ["--ioengine=io_uring", "--ioengine=pvsync2"] {
        // invalidate=1 (the default) drops the file's pages when the job starts.
        let r = ioscope(with(
            base("e", &file, "read", size),
            &[engine, "--uncached=1", "--iodepth=8"],
        ))
        .run();
        assert_moved(&r.ok_json(), "e", "read", size, "uncached read");
        let after_uncached = resident_pages(&file);
        run_moves(&file, "read", size, &[engine, "--iodepth=8"]);
        let after_cached = resident_pages(&file);
        assert!(
            after_cached > pages * 9 / 10,
            "{engine}: a plain buffered read left only {after_cached} of {pages} pages cached: the check itself is broken"
        );
        assert!(
            after_uncached < pages / 4,
            "{engine}: uncached=1 left {after_uncached} of {pages} pages in the page cache"
        );
    }
}

/// nowait=1 (RWF_NOWAIT) on a buffered read of pages not in the cache: the
/// kernel answers EAGAIN instead of waiting, and the job fails with that
/// error as fio 3.33 does (`io_u error ... Resource temporarily
/// unavailable`), with each engine that has the option in fio (pvsync2's
/// was refused as "not supported yet" until this test). On a cached file
/// (invalidate=0) every read succeeds.
#[test]
fn nowait_buffered_reads_fail_on_a_cache_miss_and_succeed_on_a_hit() {
    let d = tempdir();
    let file = data_file(d.path());
    let size = 1 << 20;
    write_clean(&file, size);
    for engine in ["io_uring", "libaio", "pvsync2"] {
        let e = format!("--ioengine={engine}");
        // invalidate=1 (default) drops the pages first: every read misses.
        let r = ioscope(with(
            base("nw", &file, "randread", size),
            &[&e, "--nowait=1", "--iodepth=4"],
        ))
        .run();
        let err = r.assert_refused();
        assert!(
            err.contains("Resource temporarily unavailable"),
            "{engine}: a cache miss with nowait=1 did not fail with EAGAIN: {}",
            r.describe()
        );
        let v = r.json();
        assert_eq!(
            u(job(&v, "nw"), "error"),
            libc::EAGAIN as u64,
            "{}",
            r.describe()
        );

        // read it into the cache, then nowait reads all hit.
        std::fs::read(&file).unwrap();
        run_moves(
            &file,
            "randread",
            size,
            &[&e, "--nowait=1", "--iodepth=4", "--invalidate=0"],
        );
    }
}

// ------------------------------------------------------------ libaio options

#[test]
fn every_libaio_option_moves_the_expected_bytes() {
    let d = tempdir();
    let file = data_file(d.path());
    let options: &[&[&str]] = &[
        &[],
        &["--userspace_reap=1"],
        &["--libaio_vectored=1"],
        &["--userspace_reap=1", "--libaio_vectored=1"],
    ];
    for opts in options {
        for direct in ["--direct=1", "--direct=0"] {
            for rw in ["randwrite", "randread"] {
                let mut extra = vec!["--ioengine=libaio", direct];
                extra.extend_from_slice(opts);
                let mut qd1 = extra.clone();
                qd1.push("--iodepth=1");
                run_moves(&file, rw, ODD_SIZE, &qd1);
                extra.extend_from_slice(BATCH8);
                run_moves(&file, rw, ODD_SIZE, &extra);
            }
        }
    }
    for rw in ["randwrite", "randread"] {
        run_moves(
            &file,
            rw,
            ODD_SIZE,
            &[
                "--ioengine=libaio",
                "--direct=1",
                "--nowait=1",
                BATCH8[0],
                BATCH8[1],
                BATCH8[2],
            ],
        );
    }
}

// ------------------------------------------------------------ posixaio

/// Requests written through glibc's helper threads at iodepth 8 read back
/// and check out with crc32c, buffered and with O_DIRECT, in several
/// files at once (one helper thread per file descriptor), and fsyncs go
/// through aio_fsync.
#[test]
fn posixaio_write_then_verify_crc32c_at_iodepth_8() {
    // A multiple of 4 blocks, so nrfiles=4 splits it evenly.
    const SIZE: u64 = 512 * BS;
    let d = tempdir();
    for extra in [
        &["--direct=0"][..],
        &["--direct=1"][..],
        &["--direct=0", "--nrfiles=4", "--fsync=16"][..],
    ] {
        let mut args = vec![
            "--output-format=json".to_string(),
            "--name=pv".into(),
            format!("--directory={}", d.path().display()),
            "--ioengine=posixaio".into(),
            "--rw=randwrite".into(),
            format!("--bs={BS}"),
            format!("--size={SIZE}"),
            "--iodepth=8".into(),
            "--verify=crc32c".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        // Its verify state file (local-pv-0-verify.state) goes there.
        let v = ioscope(&args).dir(d.path()).run().ok_json();
        let j = job(&v, "pv");
        let what = extra.join(" ");
        assert_eq!(u(j, "error"), 0, "{what}: {j:#}");
        assert_eq!(u(&j["write"], "io_bytes"), SIZE, "{what}");
        assert_eq!(u(&j["read"], "io_bytes"), SIZE, "{what}: read back");
        assert_eq!(u(j, "verify_checked"), SIZE / BS, "{what}");
        assert_eq!(u(j, "verify_bad"), 0, "{what}");
        assert!(bucket(j, "iodepth_level", "8") > 50.0, "{what}: {j:#}");
        if what.contains("fsync") {
            assert!(u(&j["sync"], "total_ios") > 0, "{what}: {j:#}");
        }
    }
}

#[test]
fn posixaio_trims_and_refuses_hipri() {
    let d = tempdir();
    let file = data_file(d.path());
    write_clean(&file, ODD_SIZE);
    let v = ioscope(with(
        base("t", &file, "randtrim", ODD_SIZE),
        &["--ioengine=posixaio", "--iodepth=8"],
    ))
    .run()
    .ok_json();
    let j = job(&v, "t");
    assert_eq!(u(j, "error"), 0, "{j:#}");
    assert_eq!(u(&j["trim"], "io_bytes"), ODD_SIZE);
    let r = ioscope(with(
        base("h", &file, "randread", 1 << 20),
        &["--ioengine=posixaio", "--hipri=1"],
    ))
    .run();
    assert_refused_naming(&r, "hipri");
}

// ------------------------------------------------------------ pvsync2 hipri

/// preadv2 with RWF_HIPRI on a device without poll queues completes by
/// interrupt: the job runs, says so in its notices (stderr stays clean),
/// and moves every byte.
#[test]
fn pvsync2_hipri_runs_and_warns_where_it_cannot_poll() {
    let d = tempdir();
    let file = data_file(d.path());
    run_moves(&file, "write", ODD_SIZE, &["--ioengine=psync"]);
    let polls = device_polls(&file);
    for direct in ["--direct=1", "--direct=0"] {
        for rw in ["randread", "randwrite"] {
            let r = ioscope(with(
                base("h", &file, rw, ODD_SIZE),
                &["--ioengine=pvsync2", "--hipri=1", direct],
            ))
            .run();
            assert!(r.status.success(), "{}", r.describe());
            assert_moved(
                &r.json(),
                "h",
                rw,
                ODD_SIZE,
                &format!("pvsync2 hipri {direct} {rw}"),
            );
            if polls == Some(false) {
                let notices = r.json()["notices"].clone();
                assert_eq!(
                    notices[0]["kind"],
                    "polled_without_poll_queues",
                    "no notice that hipri did not poll: {}",
                    r.describe()
                );
                assert_eq!(notices[0]["option"], "hipri", "{notices}");
                assert!(r.stderr.is_empty(), "{}", r.describe());
            }
        }
    }
}

// ------------------------------------------------------------ refusals

/// Whether the block device under `path` has poll queues (None: unknown).
fn device_polls(path: &Path) -> Option<bool> {
    let dev = common::block_device_of(path.parent().unwrap())?;
    let s = std::fs::read_to_string(format!("/sys/block/{dev}/queue/io_poll")).ok()?;
    Some(s.trim() == "1")
}

fn assert_refused_naming(r: &common::Run, option: &str) {
    let err = r.assert_refused();
    assert!(
        err.contains(option),
        "the refusal does not name {option}: {}",
        r.describe()
    );
    r.assert_nothing_done();
}

#[test]
fn io_uring_hipri_on_a_buffered_file_is_refused_before_the_run() {
    let d = tempdir();
    let file = data_file(d.path());
    run_moves(&file, "write", 1 << 20, &["--ioengine=psync"]);
    // buffered I/O cannot be polled on any device (EOPNOTSUPP from IOPOLL).
    let r = ioscope(with(
        base("h", &file, "randread", 1 << 20),
        &["--ioengine=io_uring", "--hipri=1"],
    ))
    .run();
    assert_refused_naming(&r, "hipri");
    // O_DIRECT on a device without poll queues cannot be polled either.
    if device_polls(&file) == Some(false) {
        for rw in ["randread", "randwrite"] {
            let r = ioscope(with(
                base("h", &file, rw, 1 << 20),
                &["--ioengine=io_uring", "--hipri=1", "--direct=1"],
            ))
            .run();
            assert_refused_naming(&r, "hipri");
            assert!(r.stderr.contains("poll"), "{}", r.describe());
        }
    }
}

#[test]
fn libaio_hipri_is_refused_by_the_parser() {
    let d = tempdir();
    let file = data_file(d.path());
    let r = ioscope(with(
        base("h", &file, "randread", 1 << 20),
        &["--ioengine=libaio", "--hipri=1", "--direct=1"],
    ))
    .run();
    assert_refused_naming(&r, "hipri");
    assert!(r.stderr.contains("libaio"), "{}", r.describe());
    assert!(
        !file.exists(),
        "the file was laid out for a job the parser refuses"
    );
    let r = ioscope(with(
        base("h", &file, "randread", 1 << 20),
        &["--parse-only", "--ioengine=libaio", "--hipri=1"],
    ))
    .run();
    assert_refused_naming(&r, "hipri");
}

#[test]
fn sqthread_poll_cpu_without_sqthread_poll_is_refused() {
    let d = tempdir();
    let file = data_file(d.path());
    for extra in [
        &["--sqthread_poll_cpu=0"][..],
        &["--sqthread_poll_cpu=0", "--sqthread_poll=0"][..],
    ] {
        let mut a = vec!["--ioengine=io_uring"];
        a.extend_from_slice(extra);
        let r = ioscope(with(base("s", &file, "randread", 1 << 20), &a)).run();
        assert_refused_naming(&r, "sqthread_poll_cpu");
        assert!(!file.exists(), "the file was laid out for a refused job");
        a.push("--parse-only");
        let r = ioscope(with(base("s", &file, "randread", 1 << 20), &a)).run();
        assert_refused_naming(&r, "sqthread_poll_cpu");
    }
}

#[test]
fn engine_options_for_another_engine_are_refused_by_name() {
    let d = tempdir();
    let file = data_file(d.path());
    let cases: &[(&str, &str)] = &[
        ("psync", "--sqthread_poll=1"),
        ("libaio", "--fixedbufs=1"),
        ("libaio", "--registerfiles=1"),
        ("io_uring", "--userspace_reap=1"),
        ("io_uring", "--libaio_vectored=1"),
        ("sync", "--nowait=1"),
        ("psync", "--hipri=1"),
    ];
    for (engine, opt) in cases {
        let name = opt.trim_start_matches("--").split('=').next().unwrap();
        let r = ioscope(with(
            base("x", &file, "randread", 1 << 20),
            &[&format!("--ioengine={engine}"), opt],
        ))
        .run();
        assert_refused_naming(&r, name);
    }
}

/// num_range: the engines that take a range list (null and nop here;
/// io_uring_cmd in tests/nvme_vm) send the workload's trims several to a
/// request, and count each request as one trim of the ranges' total, as fio
/// counts its multi-range io_u. A trimming job on an engine without a
/// range-list command, and a job that writes right after each trim, are
/// refused before the run.
#[test]
fn num_range_sends_several_trims_per_request() {
    let d = tempdir();
    // 1 MiB in 4 KiB trims: 256 ranges. Requests of 3 end with one of a
    // single range; 256 fit one request.
    for engine in ["null", "nop"] {
        for (ranges, requests) in [(1, 256), (3, 86), (8, 32), (256, 1)] {
            let v = ioscope([
                "--output-format=json".to_string(),
                "--name=t".into(),
                format!("--ioengine={engine}"),
                "--rw=randtrim".into(),
                "--bs=4k".into(),
                "--size=1m".into(),
                "--iodepth=4".into(),
                format!("--num_range={ranges}"),
            ])
            .dir(d.path())
            .run()
            .ok_json();
            let j = job(&v, "t");
            let what = format!("{engine} num_range={ranges}");
            assert_eq!(u(j, "error"), 0, "{what}: {j:#}");
            assert_eq!(u(&j["trim"], "io_bytes"), 1 << 20, "{what}");
            assert_eq!(u(&j["trim"], "total_ios"), requests, "{what}");
            assert_eq!(u(&j["trim"], "short_ios"), 0, "{what}");
        }
    }
    let file = data_file(d.path());
    write_clean(&file, 1 << 20);
    for engine in FILE_ENGINES {
        let r = ioscope(with(
            base("t", &file, "trim", 1 << 20),
            &[&format!("--ioengine={engine}"), "--num_range=4"],
        ))
        .run();
        assert_refused_naming(&r, "num_range=4");
        assert!(
            r.stderr.contains("ioengine=io_uring_cmd"),
            "{}",
            r.describe()
        );
    }
    let r = ioscope(with(
        base("t", &file, "trimwrite", 1 << 20),
        &["--ioengine=null", "--num_range=2"],
    ))
    .run();
    assert_refused_naming(&r, "right after trimming");
}

/// fio's xnvme engine runs on the ioscope engine its xNVMe interface maps
/// to; the sections of the xnvme post that a plain file can run (io_uring,
/// libaio, emu on psync) and the other file-backed interfaces move exactly
/// the bytes asked for, and the JSON says which engine ran.
#[test]
fn xnvme_runs_on_the_engine_its_interface_names() {
    let dir = tempdir();
    let file = data_file(dir.path());
    write_clean(&file, ODD_SIZE);
    for (extra, backend) in [
        (&["--xnvme_async=io_uring"][..], "io_uring"),
        (
            &["--xnvme_async=io_uring", "--sqthread_poll"][..],
            "io_uring",
        ),
        (&["--xnvme_async=libaio"][..], "libaio"),
        (&["--xnvme_async=emu", "--xnvme_sync=psync"][..], "psync"),
        (
            &["--xnvme_async=emu", "--xnvme_sync=block", "--xnvme_iovec"][..],
            "pvsync2",
        ),
        (
            &["--xnvme_async=thrpool", "--xnvme_sync=psync"][..],
            "io_uring",
        ),
        (&["--xnvme_async=posix"][..], "posixaio"),
    ] {
        for depth in ["--iodepth=1", "--iodepth=8"] {
            let args = with(vec!["--ioengine=xnvme".into(), depth.into()], extra);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let v = run_moves(&file, "randread", ODD_SIZE, &args);
            let j = job(&v, "e");
            assert_eq!(j["xnvme_backend"], backend, "{args:?}");
            if extra.contains(&"--xnvme_async=emu") {
                // emu issues one command at a time.
                assert_eq!(bucket(j, "iodepth_level", "1"), 100.0, "{args:?}");
            }
        }
    }
}

/// What the xnvme engine cannot map is refused before the run, saying why.
#[test]
fn xnvme_refuses_what_ioscope_has_no_path_for() {
    let dir = tempdir();
    let file = data_file(dir.path());
    write_clean(&file, ODD_SIZE);
    for (extra, why) in [
        (
            &["--xnvme_async=spdk"][..],
            "user-space NVMe driver (SPDK/vfio)",
        ),
        (
            &["--xnvme_async=vfio"][..],
            "user-space NVMe driver (SPDK/vfio)",
        ),
        (
            &["--xnvme_be=spdk"][..],
            "user-space NVMe driver (SPDK/vfio)",
        ),
        (&["--hipri"][..], "hipri with xnvme_async=emu"),
        (
            &["--xnvme_async=libaio", "--sqthread_poll"][..],
            "sqthread_poll with xnvme_async=libaio",
        ),
        (
            &["--xnvme_async=io_uring", "--rw=trim"][..],
            "ioengine=xnvme cannot",
        ),
        (&["--xnvme_sync=nvme"][..], "give xnvme_sync=psync"),
    ] {
        let mut args = with(
            base("e", &file, "randread", ODD_SIZE),
            &["--ioengine=xnvme"],
        );
        args.extend(extra.iter().map(|s| s.to_string()));
        let r = ioscope(args).run();
        let stderr = r.assert_refused();
        assert!(stderr.contains(why), "{extra:?}: {}", r.describe());
    }
    let r = ioscope([
        "--name=p",
        "--ioengine=xnvme",
        "--xnvme_async=io_uring",
        "--filename=0000\\:01\\:00.0",
        "--size=1m",
    ])
    .run();
    assert!(
        r.assert_refused()
            .contains("0000:01:00.0 is a PCIe address"),
        "{}",
        r.describe()
    );
}
