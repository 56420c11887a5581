//! The JSON report speaks fio's schema: every key a fio user's scripts read
//! is there, with the type fio gives it, and the figures agree with each
//! other.

mod common;

use common::{f, ioscope, job, tempdir, u};
use serde_json::Value;

fn obj<'a>(v: &'a Value, key: &str, at: &str) -> &'a serde_json::Map<String, Value> {
    v.get(key)
        .unwrap_or_else(|| panic!("{at}: no key {key:?} in {v:#}"))
        .as_object()
        .unwrap_or_else(|| panic!("{at}: {key:?} is not an object: {}", v[key]))
}

fn int(v: &Value, key: &str, at: &str) -> u64 {
    let x = v
        .get(key)
        .unwrap_or_else(|| panic!("{at}: no key {key:?} in {v:#}"));
    x.as_u64()
        .unwrap_or_else(|| panic!("{at}: {key:?} should be an unsigned integer, is {x}"))
}

fn num(v: &Value, key: &str, at: &str) -> f64 {
    let x = v
        .get(key)
        .unwrap_or_else(|| panic!("{at}: no key {key:?} in {v:#}"));
    x.as_f64()
        .unwrap_or_else(|| panic!("{at}: {key:?} should be a number, is {x}"))
}

fn string<'a>(v: &'a Value, key: &str, at: &str) -> &'a str {
    let x = v
        .get(key)
        .unwrap_or_else(|| panic!("{at}: no key {key:?} in {v:#}"));
    x.as_str()
        .unwrap_or_else(|| panic!("{at}: {key:?} should be a string, is {x}"))
}

/// min/max/mean/stddev/N, as fio writes slat_ns, clat_ns, lat_ns.
fn check_lat(v: &Value, key: &str, at: &str) -> u64 {
    let at = format!("{at}.{key}");
    obj(v, key, &at);
    let l = &v[key];
    let min = int(l, "min", &at);
    let max = int(l, "max", &at);
    let mean = num(l, "mean", &at);
    num(l, "stddev", &at);
    let n = int(l, "N", &at);
    if n > 0 {
        assert!(min > 0, "{at}: min is 0 with {n} samples");
        assert!(
            min as f64 <= mean + 1.0 && mean <= max as f64 + 1.0,
            "{at}: mean {mean} not within [{min}, {max}]"
        );
    }
    n
}

/// The fio-style percentile table: keys like "99.000000", values rising.
fn check_percentiles(clat: &Value, at: &str) {
    let p = obj(clat, "percentile", at);
    for k in p.keys() {
        let (whole, frac) = k
            .split_once('.')
            .unwrap_or_else(|| panic!("{at}: percentile key {k:?} is not like \"99.000000\""));
        assert!(
            !whole.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && frac.len() == 6
                && frac.bytes().all(|b| b.is_ascii_digit()),
            "{at}: percentile key {k:?} is not like \"99.000000\""
        );
    }
    for k in [
        "1.000000",
        "5.000000",
        "10.000000",
        "20.000000",
        "30.000000",
        "40.000000",
        "50.000000",
        "60.000000",
        "70.000000",
        "80.000000",
        "90.000000",
        "95.000000",
        "99.000000",
        "99.500000",
        "99.900000",
        "99.950000",
        "99.990000",
    ] {
        assert!(
            p.contains_key(k),
            "{at}: fio's default percentile {k} is missing: {p:?}"
        );
    }
    let mut pairs: Vec<(f64, u64)> = p
        .iter()
        .map(|(k, v)| {
            (
                k.parse().unwrap(),
                v.as_u64()
                    .unwrap_or_else(|| panic!("{at}: percentile {k} is not an integer: {v}")),
            )
        })
        .collect();
    pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    for w in pairs.windows(2) {
        assert!(
            w[0].1 <= w[1].1,
            "{at}: percentiles fall: {} → {}, {} → {}",
            w[0].0,
            w[0].1,
            w[1].0,
            w[1].1
        );
    }
    assert!(pairs[0].1 > 0, "{at}: percentile 1 is 0");
}

/// One of "read", "write", "trim".
fn check_direction(j: &Value, d: &str, at: &str) {
    let at = format!("{at}.{d}");
    obj(j, d, &at);
    let v = &j[d];
    let io_bytes = int(v, "io_bytes", &at);
    assert_eq!(int(v, "io_kbytes", &at), io_bytes / 1024, "{at}: io_kbytes");
    int(v, "bw_bytes", &at);
    int(v, "bw", &at);
    num(v, "iops", &at);
    int(v, "runtime", &at);
    let total = int(v, "total_ios", &at);
    int(v, "short_ios", &at);
    int(v, "drop_ios", &at);
    check_lat(v, "slat_ns", &at);
    let clat_n = check_lat(v, "clat_ns", &at);
    let lat_n = check_lat(v, "lat_ns", &at);
    assert_eq!(clat_n, total, "{at}: clat_ns.N is not total_ios");
    assert_eq!(lat_n, total, "{at}: lat_ns.N is not total_ios");
    if total > 0 {
        check_percentiles(&v["clat_ns"], &format!("{at}.clat_ns"));
    }
    for k in [
        "bw_min",
        "bw_max",
        "bw_samples",
        "iops_min",
        "iops_max",
        "iops_samples",
    ] {
        int(v, k, &at);
    }
    for k in ["bw_agg", "bw_mean", "bw_dev", "iops_mean", "iops_stddev"] {
        num(v, k, &at);
    }
}

fn check_buckets(j: &Value, key: &str, keys: &[&str], at: &str) -> f64 {
    let m = obj(j, key, at);
    let mut total = 0.0;
    for k in keys {
        let x = m
            .get(*k)
            .unwrap_or_else(|| panic!("{at}.{key}: no bucket {k:?}: {m:?}"));
        let p = x
            .as_f64()
            .unwrap_or_else(|| panic!("{at}.{key}.{k} is not a number: {x}"));
        assert!(
            (0.0..=100.0 + 1e-6).contains(&p),
            "{at}.{key}.{k} = {p} is not a percentage"
        );
        total += p;
    }
    total
}

fn run_json(args: &[String]) -> Value {
    ioscope(args).run().ok_json()
}

fn randrw_args(dir: &std::path::Path, format: &str) -> Vec<String> {
    vec![
        format!("--output-format={format}"),
        "--ioengine=psync".into(),
        "--name=fields".into(),
        "--rw=randrw".into(),
        "--bs=4k".into(),
        "--size=2m".into(),
        format!("--filename={}", dir.join("data").display()),
    ]
}

#[test]
fn every_fio_key_is_there_with_fios_type() {
    let d = tempdir();
    let v = run_json(&randrw_args(d.path(), "json"));
    let at = "top";
    string(&v, "fio version", at);
    let ts = int(&v, "timestamp", at);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(ts.abs_diff(now) < 3600, "timestamp {ts} is not now ({now})");
    assert!(!string(&v, "time", at).is_empty());
    assert_eq!(
        obj(&v, "global options", at)
            .get("ioengine")
            .and_then(Value::as_str),
        Some("psync"),
        "--ioengine before --name belongs in \"global options\""
    );
    let jobs = v["jobs"].as_array().expect("\"jobs\" is not an array");
    assert_eq!(jobs.len(), 1);
    // ioscope's own: what the run tells beside its numbers, an array that
    // is empty when there is nothing to say (here at most the clock's
    // fallback, where this machine's TSC cannot be used).
    let notices = v["notices"]
        .as_array()
        .expect("\"notices\" is not an array");
    for (i, n) in notices.iter().enumerate() {
        let at = format!("notices[{i}]");
        assert_eq!(string(n, "kind", &at), "clock_fallback", "{n}");
        assert!(!string(n, "message", &at).is_empty());
        assert!(n["option"].is_string() || n["option"].is_null(), "{n}");
    }
    let j = job(&v, "fields");
    let at = "jobs[0]";
    assert_eq!(string(j, "jobname", at), "fields");
    assert_eq!(int(j, "groupid", at), 0);
    assert_eq!(int(j, "error", at), 0);
    let opts = obj(j, "job options", at);
    assert_eq!(opts.get("rw").and_then(Value::as_str), Some("randrw"));
    assert_eq!(opts.get("bs").and_then(Value::as_str), Some("4k"));
    assert_eq!(opts.get("size").and_then(Value::as_str), Some("2m"));
    for dir in ["read", "write", "trim"] {
        check_direction(j, dir, at);
    }
    let reads = u(&j["read"], "total_ios");
    let writes = u(&j["write"], "total_ios");
    assert_eq!(reads + writes, 512, "2 MiB in 4 KiB blocks");
    assert!(reads > 0 && writes > 0, "randrw did only one direction");
    assert_eq!(u(&j["trim"], "total_ios"), 0);

    obj(j, "sync", at);
    int(&j["sync"], "total_ios", "jobs[0].sync");
    check_lat(&j["sync"], "lat_ns", "jobs[0].sync");

    let usr = num(j, "usr_cpu", at);
    let sys = num(j, "sys_cpu", at);
    assert!(
        (0.0..=100.0 * 1024.0).contains(&usr) && sys >= 0.0,
        "cpu {usr}/{sys}"
    );
    int(j, "ctx", at);
    int(j, "majf", at);
    int(j, "minf", at);

    let levels = check_buckets(
        j,
        "iodepth_level",
        &["1", "2", "4", "8", "16", "32", ">=64"],
        at,
    );
    assert!(
        (levels - 100.0).abs() < 0.5,
        "iodepth_level sums to {levels}"
    );
    assert!(
        f(&j["iodepth_level"], "1") > 99.0,
        "psync runs at depth 1: {}",
        j["iodepth_level"]
    );
    let depth_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    check_buckets(j, "iodepth_submit", &depth_keys, at);
    check_buckets(j, "iodepth_complete", &depth_keys, at);

    let small = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    let ms = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let lat_total = check_buckets(j, "latency_ns", &small, at)
        + check_buckets(j, "latency_us", &small, at)
        + check_buckets(j, "latency_ms", &ms, at);
    assert!(
        (lat_total - 100.0).abs() < 1.0,
        "latency_ns/us/ms together cover {lat_total}% of I/Os, not 100%"
    );

    let du = v
        .get("disk_util")
        .unwrap_or_else(|| panic!("no \"disk_util\" in {v:#}"))
        .as_array()
        .expect("\"disk_util\" is not an array");
    for (i, e) in du.iter().enumerate() {
        let at = format!("disk_util[{i}]");
        string(e, "name", &at);
        for k in [
            "read_ios",
            "write_ios",
            "read_sectors",
            "write_sectors",
            "read_merges",
            "write_merges",
            "read_ticks",
            "write_ticks",
            "in_queue",
        ] {
            int(e, k, &at);
        }
        num(e, "util", &at);
    }
    match common::block_device_of(d.path()) {
        Some(disk) => assert!(
            du.iter().any(|e| e["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&disk) || disk.starts_with(n))),
            "the file lives on {disk}, but disk_util does not name it: {du:?}"
        ),
        None => eprintln!(
            "note: {} is not on a block device, so disk_util may be empty",
            d.path().display()
        ),
    }
}

/// Keys fio 3.42 writes that 3.33 did not: when the job started, the
/// latency target's fields under their unit-named keys, and options given
/// without a value echoed with an empty one.
#[test]
fn fio_3_42_keys_are_there() {
    let d = tempdir();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut args = randrw_args(d.path(), "json");
    args.insert(1, "--thread".into());
    args.push("--norandommap".into());
    let v = run_json(&args);
    let after = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let j = job(&v, "fields");
    let start = int(j, "job_start", "jobs[0]");
    assert!(
        (before..=after).contains(&start),
        "job_start {start} is not between {before} and {after} (ms since the epoch)"
    );
    assert_eq!(int(j, "latency_target_ns", "jobs[0]"), 0);
    assert_eq!(int(j, "latency_window_us", "jobs[0]"), 0);
    assert_eq!(v["global options"]["thread"], "", "{v:#}");
    assert_eq!(j["job options"]["norandommap"], "", "{j:#}");
}

#[test]
fn json_plus_has_latency_bins() {
    let d = tempdir();
    let v = run_json(&randrw_args(d.path(), "json+"));
    let j = job(&v, "fields");
    for dir in ["read", "write"] {
        let clat = &j[dir]["clat_ns"];
        let at = format!("{dir}.clat_ns");
        check_percentiles(clat, &at);
        let bins = obj(clat, "bins", &at);
        assert!(!bins.is_empty(), "{at}: empty bins");
        let mut n = 0;
        for (k, c) in bins {
            let ns: u64 = k
                .parse()
                .unwrap_or_else(|_| panic!("{at}: bin key {k:?} is not a latency in ns"));
            assert!(ns > 0, "{at}: bin at 0 ns");
            n += c
                .as_u64()
                .unwrap_or_else(|| panic!("{at}: bin {k} count is not an integer: {c}"));
        }
        assert_eq!(
            n,
            u(&j[dir], "total_ios"),
            "{at}: bins do not add up to total_ios"
        );
    }
}

#[test]
fn plain_json_has_no_bins() {
    let d = tempdir();
    let v = run_json(&randrw_args(d.path(), "json"));
    let clat = &job(&v, "fields")["read"]["clat_ns"];
    assert!(
        clat.get("bins").is_none(),
        "bins belong to json+ only: {clat:#}"
    );
}

#[test]
fn time_based_runtime_is_honoured() {
    let d = tempdir();
    let start = std::time::Instant::now();
    let v = run_json(&[
        "--output-format=json".into(),
        "--name=timed".into(),
        "--ioengine=psync".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=1m".into(),
        "--time_based".into(),
        "--runtime=2".into(),
        format!("--filename={}", d.path().join("data").display()),
    ]);
    let wall = start.elapsed().as_secs_f64();
    assert!(
        (1.9..10.0).contains(&wall),
        "a 2 s job took {wall:.2} s of wall time"
    );
    let r = &job(&v, "timed")["read"];
    let runtime = u(r, "runtime");
    assert!(
        (1900..=2300).contains(&runtime),
        "read.runtime is {runtime} ms for --runtime=2"
    );
    let bytes = u(r, "io_bytes");
    let ios = u(r, "total_ios");
    assert!(
        ios > 256,
        "time_based stopped after one pass over the file ({ios} I/Os)"
    );
    assert_eq!(bytes, ios * 4096);
    let bw_bytes = u(r, "bw_bytes") as f64;
    let expect_bw = bytes as f64 * 1000.0 / runtime as f64;
    assert!(
        (bw_bytes - expect_bw).abs() <= expect_bw * 0.01 + 1.0,
        "bw_bytes {bw_bytes} is not io_bytes/runtime = {expect_bw}"
    );
    assert!(
        (u(r, "bw") as f64 - bw_bytes / 1024.0).abs() <= 1.0,
        "bw is not bw_bytes in KiB/s"
    );
    let iops = f(r, "iops");
    let expect_iops = ios as f64 * 1000.0 / runtime as f64;
    assert!(
        (iops - expect_iops).abs() <= expect_iops * 0.01 + 1.0,
        "iops {iops} is not total_ios/runtime = {expect_iops}"
    );
    // Bandwidth and IOPS are sampled every 500 ms (fio's bwavgtime/iopsavgtime).
    assert!(u(r, "bw_samples") >= 2, "bw_samples {}", r["bw_samples"]);
    assert!(
        u(r, "iops_samples") >= 2,
        "iops_samples {}",
        r["iops_samples"]
    );
    assert!(u(r, "bw_min") as f64 <= f(r, "bw_mean") && f(r, "bw_mean") <= u(r, "bw_max") as f64);
    assert!(
        u(r, "iops_min") as f64 <= f(r, "iops_mean")
            && f(r, "iops_mean") <= u(r, "iops_max") as f64
    );
}

#[test]
fn a_job_shorter_than_a_millisecond_still_has_a_runtime() {
    // fio rounds each direction's elapsed time up to whole milliseconds
    // (update_runtime: (us + 999) / 1000), so a job that did I/O never
    // reports runtime 0 with IOPS and bandwidth 0. ioscope did, for a 1 MiB
    // null job.
    let v = run_json(&[
        "--output-format=json".into(),
        "--name=quick".into(),
        "--ioengine=null".into(),
        "--rw=read".into(),
        "--size=1m".into(),
    ]);
    let r = &job(&v, "quick")["read"];
    assert_eq!(u(r, "total_ios"), 256);
    let runtime = u(r, "runtime");
    assert!(
        runtime >= 1,
        "runtime {runtime} ms for a job that did 256 I/Os"
    );
    assert!(f(r, "iops") > 0.0, "iops is 0: {r:#}");
    assert!(u(r, "bw_bytes") > 0, "bw_bytes is 0: {r:#}");
    let expect_iops = 256.0 * 1000.0 / runtime as f64;
    assert!(
        (f(r, "iops") - expect_iops).abs() <= expect_iops * 0.01 + 1.0,
        "iops {} is not total_ios/runtime = {expect_iops}",
        f(r, "iops")
    );
}
