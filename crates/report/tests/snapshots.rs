//! Snapshots of the normal, JSON and JSON+ renderings of a fixed result
//! built by hand: fixed times, pid and version, latency histograms filled
//! with known samples, reads and writes, one disk.

use ioscope_report::{preamble_with, render_with, Format, Options, TerseVersion};
use ioscope_stats::{
    DirResult, DiskUtil, JobHeader, JobResult, LatencyBuckets, LatencyHistogram, LatencyStat,
    Notice, RunResult, Summary,
};
use serde_json::Value;

fn opts() -> Options {
    Options {
        pid: 4242,
        version: "ioscope-test".into(),
    }
}

/// A latency kind filled with `samples`, with a histogram when asked.
fn lat(samples: &[u64], histogram: bool) -> LatencyStat {
    let mut summary = Summary::default();
    let mut hist = LatencyHistogram::new();
    for &s in samples {
        summary.add(s);
        hist.add(s);
    }
    LatencyStat {
        summary,
        histogram: histogram.then_some(hist),
    }
}

fn summary(samples: &[u64]) -> Summary {
    let mut s = Summary::default();
    for &v in samples {
        s.add(v);
    }
    s
}

/// Reads near 30-70 us with a few 2 ms outliers; writes near 1.5-10.5 us.
fn read_clat() -> Vec<u64> {
    (0..2000u64)
        .map(|i| 30_000 + (i * 7919) % 40_000 + if i % 500 == 7 { 2_000_000 } else { 0 })
        .collect()
}

fn write_clat() -> Vec<u64> {
    (0..2100u64)
        .map(|i| 1_500 + (i * 104_729) % 9_000)
        .collect()
}

fn header(name: &str, groupid: u32, rw: &str) -> JobHeader {
    JobHeader {
        name: name.into(),
        description: None,
        groupid,
        rw: rw.into(),
        bs: [(4096, 4096); 3],
        ioengine: "psync".into(),
        iodepth: 1,
        numjobs: 1,
        thread: false,
        xnvme: None,
        latency_profile: None,
    }
}

fn randrw_job(lat_percentiles: bool) -> JobResult {
    let rc = read_clat();
    let wc = write_clat();
    let rl: Vec<u64> = rc.iter().map(|v| v + 120).collect();
    let ws: Vec<u64> = (0..2100u64).map(|i| 80 + i % 40).collect();
    let wl: Vec<u64> = wc.iter().zip(&ws).map(|(c, s)| c + s).collect();
    let mut buckets = LatencyBuckets::default();
    for &v in rl.iter().chain(&wl) {
        buckets.add(v);
    }
    let read = DirResult {
        io_bytes: 2000 * 4096,
        total_ios: 2000,
        runtime_ms: 1001,
        clat: lat(&rc, true),
        lat: lat(&rl, lat_percentiles),
        bw: summary(&[7900, 8100, 8000, 7950]),
        iops: summary(&[1975, 2025, 2000, 1987]),
        ..DirResult::default()
    };
    let write = DirResult {
        io_bytes: 2100 * 4096,
        total_ios: 2100,
        runtime_ms: 1001,
        slat: lat(&ws, false),
        clat: lat(&wc, true),
        lat: lat(&wl, lat_percentiles),
        bw: summary(&[8300, 8500, 8400, 8350]),
        iops: summary(&[2075, 2125, 2100, 2087]),
        ..DirResult::default()
    };
    let mut job = JobResult {
        header: header("randrw", 0, "randrw"),
        job_options: vec![
            ("name".into(), "randrw".into()),
            ("filename".into(), "/tmp/ioscope-test".into()),
            ("rw".into(), "randrw".into()),
            ("bs".into(), "4k".into()),
            ("time_based".into(), String::new()),
        ],
        runtime_ms: 1001,
        elapsed_ms: 1200,
        job_start_ms: 1_795_310_568_142,
        dirs: [read, write, DirResult::default()],
        issued: [2000, 2100, 0],
        lat_buckets: buckets,
        percentile_list: vec![
            1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
            99.95, 99.99,
        ],
        clat_percentiles: true,
        lat_percentiles,
        ..JobResult::default()
    };
    job.cpu.user_ns = 21_000_000;
    job.cpu.sys_ns = 260_000_000;
    job.cpu.ctx = 13_753;
    job.cpu.minf = 13;
    job.depth.counts = [4100, 0, 0, 0, 0, 0, 0];
    job.submit.counts = [0, 4100, 0, 0, 0, 0, 0];
    job.complete.counts = [0, 4100, 0, 0, 0, 0, 0];
    job
}

fn disk() -> DiskUtil {
    DiskUtil {
        name: "zram0".into(),
        read_ios: 1990,
        write_ios: 2095,
        read_sectors: 15920,
        write_sectors: 16808,
        read_merges: 0,
        write_merges: 3,
        read_ticks: 467,
        write_ticks: 3230,
        in_queue: 3700,
        util: 43.681318,
        ..DiskUtil::default()
    }
}

fn randrw_result() -> RunResult {
    RunResult {
        timestamp: 1_795_310_569,
        timestamp_ms: 1_795_310_569_123,
        time: "Sun Nov 22 01:22:49 2026".into(),
        global_options: vec![
            ("ioengine".into(), "psync".into()),
            ("size".into(), "16m".into()),
        ],
        jobs: vec![randrw_job(false)],
        disks: vec![disk()],
        kb_base: 1024,
        cpu: Default::default(),
        aborted: None,
        failed_workers: 0,
        interrupted: None,
        notices: Vec::new(),
        logs: Vec::new(),
        agg_bw: None,
        act: None,
        idleness: None,
    }
}

/// Two groups: group_reporting readers with lat percentiles and a
/// description, then a writer that fsyncs and failed; kb_base=1000.
fn groups_result() -> RunResult {
    let mut a = randrw_job(true);
    a.header = JobHeader {
        description: Some("readers and writers".into()),
        numjobs: 2,
        ..header("grouped", 0, "randrw")
    };
    let mut b = JobResult {
        header: header("syncer", 1, "write"),
        error: 5,
        runtime_ms: 500,
        elapsed_ms: 2600,
        issued: [0, 400, 0],
        percentile_list: vec![50.0, 99.0, 99.9],
        clat_percentiles: true,
        ..JobResult::default()
    };
    let wc: Vec<u64> = (0..400u64).map(|i| 900 + (i * 31) % 5_000).collect();
    b.dirs[1] = DirResult {
        io_bytes: 400 * 4096,
        total_ios: 400,
        runtime_ms: 500,
        clat: lat(&wc, true),
        lat: lat(&wc.iter().map(|v| v + 50).collect::<Vec<_>>(), false),
        ..DirResult::default()
    };
    for &v in &wc {
        b.lat_buckets.add(v + 50);
    }
    b.sync.total_ios = 50;
    b.sync.lat = lat(
        &(0..50u64).map(|i| 250_000 + i * 40_000).collect::<Vec<_>>(),
        true,
    );
    b.depth.counts = [450, 0, 0, 0, 0, 0, 0];
    b.submit.counts = [0, 450, 0, 0, 0, 0, 0];
    b.complete.counts = [0, 450, 0, 0, 0, 0, 0];
    b.cpu.sys_ns = 18_000_000;
    b.cpu.ctx = 460;
    RunResult {
        kb_base: 1000,
        cpu: Default::default(),
        aborted: None,
        failed_workers: 0,
        interrupted: None,
        // One notice, so that both renderings show where notices go.
        notices: vec![Notice::ClockFallback {
            asked: "cpu",
            reason: "the CPU does not promise an invariant TSC".into(),
        }],
        jobs: vec![a, b],
        global_options: vec![],
        ..randrw_result()
    }
}

#[test]
fn preamble_snapshot() {
    let mut a = header("grouped", 0, "randrw");
    a.numjobs = 2;
    let mut b = header("syncer", 1, "write");
    b.thread = true;
    b.bs = [(512, 131072); 3];
    insta::assert_snapshot!(preamble_with(&[a, b], 1024, "ioscope-test", 0));
}

#[test]
fn randrw_normal() {
    insta::assert_snapshot!(render_with(&randrw_result(), &[Format::Normal], &opts()));
}

#[test]
fn randrw_json() {
    insta::assert_snapshot!(render_with(&randrw_result(), &[Format::Json], &opts()));
}

#[test]
fn randrw_json_plus() {
    insta::assert_snapshot!(render_with(&randrw_result(), &[Format::JsonPlus], &opts()));
}

#[test]
fn randrw_terse_v5() {
    let v5 = Format::Terse(TerseVersion::new(5).unwrap());
    insta::assert_snapshot!(render_with(&randrw_result(), &[v5], &opts()));
}

/// Terse lines (version 2: no disks, no version string) come before the
/// normal output, as fio writes them.
#[test]
fn groups_terse_v2_and_normal() {
    let v2 = Format::Terse(TerseVersion::new(2).unwrap());
    insta::assert_snapshot!(render_with(
        &groups_result(),
        &[Format::Normal, v2],
        &opts()
    ));
}

#[test]
fn groups_normal() {
    insta::assert_snapshot!(render_with(&groups_result(), &[Format::Normal], &opts()));
}

#[test]
fn groups_normal_and_json() {
    insta::assert_snapshot!(render_with(
        &groups_result(),
        &[Format::Normal, Format::Json],
        &opts()
    ));
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn json_parses_and_has_fios_keys_in_fios_order() {
    let text = render_with(&randrw_result(), &[Format::Json], &opts());
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        keys(&doc),
        [
            "fio version",
            "timestamp",
            "timestamp_ms",
            "time",
            "global options",
            "jobs",
            "disk_util",
            "cpu_accounting",
            "notices"
        ]
    );
    let job = &doc["jobs"][0];
    assert_eq!(
        keys(job),
        [
            "jobname",
            "groupid",
            "job_start",
            "error",
            "eta",
            "elapsed",
            "job options",
            "read",
            "write",
            "trim",
            "sync",
            "job_runtime",
            "usr_cpu",
            "sys_cpu",
            "ctx",
            "majf",
            "minf",
            "iodepth_level",
            "iodepth_submit",
            "iodepth_complete",
            "latency_ns",
            "latency_us",
            "latency_ms",
            "latency_depth",
            "latency_target",
            "latency_target_ns",
            "latency_percentile",
            "latency_window",
            "latency_window_us",
            "iou_sqp_cpu",
            "iou_wrk_cpu",
            "iou_wrk_threads",
            "iou_punts",
            "cpu_ns_per_io"
        ]
    );
    assert_eq!(
        keys(&job["read"]),
        [
            "io_bytes",
            "io_kbytes",
            "bw_bytes",
            "bw",
            "iops",
            "runtime",
            "total_ios",
            "short_ios",
            "drop_ios",
            "slat_ns",
            "clat_ns",
            "lat_ns",
            "bw_min",
            "bw_max",
            "bw_agg",
            "bw_mean",
            "bw_dev",
            "bw_samples",
            "iops_min",
            "iops_max",
            "iops_mean",
            "iops_stddev",
            "iops_samples"
        ]
    );
    assert_eq!(
        keys(&job["read"]["clat_ns"]),
        ["min", "max", "mean", "stddev", "N", "percentile"]
    );
    assert_eq!(
        keys(&job["read"]["lat_ns"]),
        ["min", "max", "mean", "stddev", "N"]
    );
    assert!(job["read"]["clat_ns"]["percentile"]["99.000000"].is_u64());
    assert!(job["read"]["iops"].is_f64());
    assert!(job["read"]["bw"].is_u64());
    assert_eq!(
        keys(&doc["disk_util"][0]),
        [
            "name",
            "read_ios",
            "write_ios",
            "read_sectors",
            "write_sectors",
            "read_merges",
            "write_merges",
            "read_ticks",
            "write_ticks",
            "in_queue",
            "util"
        ]
    );
    // JSON+ adds the histogram bins after the percentiles.
    let plus = render_with(&randrw_result(), &[Format::JsonPlus], &opts());
    let plus: Value = serde_json::from_str(&plus).unwrap();
    assert_eq!(
        keys(&plus["jobs"][0]["read"]["clat_ns"]),
        ["min", "max", "mean", "stddev", "N", "percentile", "bins"]
    );
}
