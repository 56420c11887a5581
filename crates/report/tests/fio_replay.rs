//! Replays a real fio 3.33 run through ioscope's renderer: the run's
//! figures are read back from fio's own JSON+ output (printed together with
//! its normal output by `--output-format=normal,json+`), put in a
//! RunResult, rendered, and compared with what fio printed.
//!
//! A Summary can only be built from samples, so the avg/stdev figures of
//! the slat/clat/lat lines cannot be replayed; those lines and JSON values
//! are left out of the comparison. Everything else must match byte for byte.

use ioscope_report::{render_with, Format, Options, TerseVersion};
use ioscope_stats::{
    DirResult, DiskUtil, JobHeader, JobResult, LatencyHistogram, LatencyStat, RunResult, Summary,
};
use serde_json::Value;

const RANDRW: &str = include_str!("data/fio-3.33-randrw-normal-jsonplus.txt");

/// (preamble, JSON document, normal output) of a `normal,json+` run.
fn split(text: &str) -> (&str, &str, &str) {
    let start = text.find("\n{\n").unwrap() + 1;
    let end = text.find("\n}\n").unwrap() + 3;
    (&text[..start], &text[start..end], &text[end..])
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// A summary with fio's N, min and max (mean and stddev only close).
fn summary(n: u64, min: u64, max: u64, mean: f64) -> Summary {
    let mut s = Summary::default();
    if n == 0 {
        return s;
    }
    s.add(min);
    if n == 1 {
        return s;
    }
    s.add(max);
    if n > 2 {
        let rest = ((mean * n as f64 - min as f64 - max as f64) / (n - 2) as f64)
            .round()
            .clamp(min as f64, max as f64) as u64;
        for _ in 2..n {
            s.add(rest);
        }
    }
    s
}

fn lat_stat(v: &Value) -> LatencyStat {
    let summary = summary(
        u(&v["N"]),
        u(&v["min"]),
        u(&v["max"]),
        v["mean"].as_f64().unwrap(),
    );
    let histogram = v.get("bins").map(|bins| {
        let mut h = LatencyHistogram::new();
        for (value, count) in bins.as_object().unwrap() {
            let value: u64 = value.parse().unwrap();
            for _ in 0..u(count) {
                h.add(value);
            }
        }
        h
    });
    LatencyStat { summary, histogram }
}

fn dir(v: &Value) -> DirResult {
    DirResult {
        io_bytes: u(&v["io_bytes"]),
        total_ios: u(&v["total_ios"]),
        short_ios: u(&v["short_ios"]),
        drop_ios: u(&v["drop_ios"]),
        runtime_ms: u(&v["runtime"]),
        slat: lat_stat(&v["slat_ns"]),
        clat: lat_stat(&v["clat_ns"]),
        lat: lat_stat(&v["lat_ns"]),
        prios: Vec::new(),
        bw: summary(
            u(&v["bw_samples"]),
            u(&v["bw_min"]),
            u(&v["bw_max"]),
            v["bw_mean"].as_f64().unwrap(),
        ),
        iops: summary(
            u(&v["iops_samples"]),
            u(&v["iops_min"]),
            u(&v["iops_max"]),
            v["iops_mean"].as_f64().unwrap(),
        ),
    }
}

fn options(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Counts that give back fio's shares of `total`.
fn counts<const N: usize>(shares: &Value, keys: &[&str], total: u64) -> [u64; N] {
    let mut out = [0u64; N];
    for (o, k) in out.iter_mut().zip(keys) {
        let share = shares[*k].as_f64().unwrap();
        // fio shows any share under 0.01% as 0.01%: one I/O gives that back.
        *o = if share == 0.01 {
            1
        } else {
            (share / 100.0 * total as f64).round() as u64
        };
    }
    out
}

/// The percentile list behind a "percentile" object's keys.
fn percentile_list(lat: &Value) -> Option<Vec<f64>> {
    lat.get("percentile")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(|k| k.parse().unwrap()).collect())
}

/// One job of fio's JSON+ document as a JobResult.
fn replay_job(j: &Value, header: JobHeader) -> JobResult {
    let dirs = [dir(&j["read"]), dir(&j["write"]), dir(&j["trim"])];
    let issued = [dirs[0].total_ios, dirs[1].total_ios, dirs[2].total_ios];
    let total: u64 = issued.iter().sum();
    let runtime = u(&j["job_runtime"]);
    let cpu_ns = |pct: &Value| -> u64 {
        ((pct.as_f64().unwrap() * runtime as f64 / 100.0).round() as u64) * 1_000_000
    };
    let lat_keys = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let has = |kind: &str| {
        ["read", "write", "trim"]
            .iter()
            .any(|d| j[*d][kind].get("percentile").is_some())
    };
    let list = ["read", "write", "trim"]
        .iter()
        .flat_map(|d| ["clat_ns", "lat_ns", "slat_ns"].map(|k| &j[*d][k]))
        .chain([&j["sync"]["lat_ns"]])
        .find_map(percentile_list)
        .unwrap_or_default();
    let mut job = JobResult {
        header,
        job_options: options(j.get("job options")),
        error: j["error"].as_i64().unwrap() as i32,
        runtime_ms: runtime,
        elapsed_ms: u(&j["elapsed"]) * 1000,
        dirs,
        issued,
        percentile_list: list,
        clat_percentiles: has("clat_ns"),
        lat_percentiles: has("lat_ns"),
        slat_percentiles: has("slat_ns"),
        ..JobResult::default()
    };
    job.sync.total_ios = u(&j["sync"]["total_ios"]);
    job.sync.lat = lat_stat(&j["sync"]["lat_ns"]);
    job.cpu.user_ns = cpu_ns(&j["usr_cpu"]);
    job.cpu.sys_ns = cpu_ns(&j["sys_cpu"]);
    job.cpu.ctx = u(&j["ctx"]);
    job.cpu.majf = u(&j["majf"]);
    job.cpu.minf = u(&j["minf"]);
    job.depth.counts = counts(
        &j["iodepth_level"],
        &["1", "2", "4", "8", "16", "32", ">=64"],
        total,
    );
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    job.submit.counts = counts(&j["iodepth_submit"], &batch_keys, total);
    job.complete.counts = counts(&j["iodepth_complete"], &batch_keys, total);
    job.lat_buckets.nsec = counts(&j["latency_ns"], &lat_keys, total);
    job.lat_buckets.usec = counts(&j["latency_us"], &lat_keys, total);
    job.lat_buckets.msec = counts(&j["latency_ms"], &lat_keys, total);
    job
}

/// The RunResult behind fio's JSON+ document; `headers` are the jobs'
/// static descriptions (in the normal output's preamble, not in the JSON).
fn replay(doc: &Value, headers: Vec<JobHeader>, kb_base: u32) -> RunResult {
    let groups = 1 + headers.iter().map(|h| h.groupid).max().unwrap_or(0) as u64;
    let jobs = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(headers)
        .map(|(j, h)| {
            let mut job = replay_job(j, h);
            // fio's "elapsed" is since the start of the whole run; the
            // renderer adds up the groups' elapsed times to make it.
            job.elapsed_ms = u(&j["elapsed"]) * 1000 / groups;
            job
        })
        .collect();
    let disks = doc
        .get("disk_util")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| DiskUtil {
                    name: d["name"].as_str().unwrap().into(),
                    read_ios: u(&d["read_ios"]),
                    write_ios: u(&d["write_ios"]),
                    read_merges: u(&d["read_merges"]),
                    write_merges: u(&d["write_merges"]),
                    read_ticks: u(&d["read_ticks"]),
                    write_ticks: u(&d["write_ticks"]),
                    in_queue: u(&d["in_queue"]),
                    util: d["util"].as_f64().unwrap(),
                    ..DiskUtil::default()
                })
                .collect()
        })
        .unwrap_or_default();

    RunResult {
        timestamp: doc["timestamp"].as_i64().unwrap(),
        timestamp_ms: doc["timestamp_ms"].as_i64().unwrap(),
        time: doc["time"].as_str().unwrap().into(),
        global_options: options(doc.get("global options")),
        jobs,
        disks,
        kb_base,
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

/// Lines whose figures come from a summary's mean and stddev.
fn from_mean(line: &str) -> bool {
    let t = line.trim_start();
    ["slat (", "clat (", "lat (", "sync ("]
        .iter()
        .any(|p| t.starts_with(p))
        && t.contains("min=")
}

fn without_means(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !from_mean(l))
        .map(|l| match l.find(" pid=") {
            // fio prints each process's own pid; ioscope's jobs share one.
            Some(at) => {
                let end = at + l[at..].find(": ").unwrap();
                format!("{} pid=N{}", &l[..at], &l[end..])
            }
            None => l.to_string(),
        })
        .collect()
}

/// Line-by-line comparison that names the first lines that differ.
fn assert_same_lines(ours: &str, fio: &str) {
    let (a, b) = (without_means(ours), without_means(fio));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "line {i} differs:\nours: {x}\nfio:  {y}");
    }
    assert_eq!(a.len(), b.len(), "ours:\n{ours}\nfio:\n{fio}");
}

/// Values that depend on a summary's mean/stddev.
const MEAN_KEYS: [&str; 7] = [
    "mean",
    "stddev",
    "bw_mean",
    "bw_dev",
    "iops_mean",
    "iops_stddev",
    "bw_agg",
];

/// Keys ioscope adds beside fio's (helper-thread CPU, punts, CPU per I/O,
/// the run's notices).
const IOSCOPE_KEYS: [&str; 7] = [
    "iou_sqp_cpu",
    "iou_wrk_cpu",
    "iou_wrk_threads",
    "iou_punts",
    "cpu_ns_per_io",
    "cpu_accounting",
    "notices",
];

/// Keys fio 3.42 writes that the fio 3.33 documents replayed here lack
/// (tests/json_fields.rs checks them against a live run).
const FIO_3_42_KEYS: [&str; 5] = [
    "job_start",
    "latency_target_ns",
    "latency_window_us",
    "read_sectors",
    "write_sectors",
];

/// Same keys in the same order, same number types (int or float), same
/// values except those derived from means.
fn same_shape(ours: &Value, fio: &Value, path: &str, diffs: &mut Vec<String>) {
    match (ours, fio) {
        (Value::Object(a), Value::Object(b)) => {
            // ioscope's own keys come after fio's and are the only extras,
            // beside those fio added after 3.33.
            let ka: Vec<_> = a
                .keys()
                .filter(|k| {
                    !IOSCOPE_KEYS.contains(&k.as_str())
                        && (b.contains_key(*k) || !FIO_3_42_KEYS.contains(&k.as_str()))
                })
                .collect();
            let kb: Vec<_> = b.keys().collect();
            if ka != kb {
                diffs.push(format!("{path}: keys {ka:?} != fio's {kb:?}"));
                return;
            }
            for k in ka {
                same_shape(&a[k], &b[k], &format!("{path}/{k}"), diffs);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                diffs.push(format!("{path}: {} items != fio's {}", a.len(), b.len()));
                return;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_shape(x, y, &format!("{path}[{i}]"), diffs);
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() != y.is_f64() {
                diffs.push(format!("{path}: {x} and fio's {y} differ in type"));
            }
            let key = path.rsplit('/').next().unwrap();
            if !MEAN_KEYS.contains(&key) && x != y {
                diffs.push(format!("{path}: {x} != fio's {y}"));
            }
        }
        (a, b) => {
            if a != b {
                diffs.push(format!("{path}: {a} != fio's {b}"));
            }
        }
    }
}

fn randrw_header() -> JobHeader {
    JobHeader {
        name: "t".into(),
        description: None,
        groupid: 0,
        rw: "randrw".into(),
        bs: [(4096, 4096); 3],
        ioengine: "psync".into(),
        iodepth: 1,
        numjobs: 1,
        thread: false,
        xnvme: None,
        latency_profile: None,
    }
}

fn fio_pid(normal: &str) -> u32 {
    let at = normal.find(" pid=").unwrap() + 5;
    normal[at..].split(':').next().unwrap().parse().unwrap()
}

#[test]
fn randrw_psync_normal_output_matches_fio() {
    let (preamble, json, normal) = split(RANDRW);
    let doc: Value = serde_json::from_str(json).unwrap();
    let result = replay(&doc, vec![randrw_header()], 1024);
    let opts = Options {
        pid: fio_pid(normal),
        version: "fio-3.33".into(),
    };

    assert_eq!(
        ioscope_report::preamble_with(&[randrw_header()], 1024, "fio-3.33", 0),
        preamble
    );
    let ours = render_with(&result, &[Format::Normal], &opts);
    assert_same_lines(&ours, normal);
}

#[test]
fn randrw_psync_json_plus_matches_fio() {
    let (_, json, _) = split(RANDRW);
    let fio: Value = serde_json::from_str(json).unwrap();
    let result = replay(&fio, vec![randrw_header()], 1024);
    let opts = Options {
        pid: 1,
        version: "fio-3.33".into(),
    };
    let text = render_with(&result, &[Format::JsonPlus], &opts);
    let ours: Value = serde_json::from_str(&text).unwrap();
    let mut diffs = Vec::new();
    same_shape(&ours, &fio, "", &mut diffs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn normal_and_json_come_in_fios_order() {
    let (_, json, normal) = split(RANDRW);
    let fio: Value = serde_json::from_str(json).unwrap();
    let result = replay(&fio, vec![randrw_header()], 1024);
    let opts = Options {
        pid: fio_pid(normal),
        version: "fio-3.33".into(),
    };
    let both = render_with(&result, &[Format::Normal, Format::JsonPlus], &opts);
    let both = format!("x\n{both}");
    let (_, j, n) = split(&both);
    assert!(j.starts_with("{\n  \"fio version\" : \"fio-3.33\",\n"));
    assert!(n.starts_with("\nt: (groupid=0, jobs=1): err= 0: pid="));
    assert_same_lines(n, normal);
}

const GROUPS: &str = include_str!("data/fio-3.33-groups-kb1000-sync-normal-jsonplus.txt");

/// The jobs of data/fio-3.33-groups-kb1000-sync.fio, as the runner would
/// describe them: `a` (two readers, group_reporting) and `b` (stonewall).
fn groups_headers() -> Vec<JobHeader> {
    let h = |name: &str, groupid, rw: &str, numjobs, description: Option<&str>| JobHeader {
        name: name.into(),
        description: description.map(Into::into),
        groupid,
        rw: rw.into(),
        bs: [(4000, 4000); 3],
        ioengine: "psync".into(),
        iodepth: 1,
        numjobs,
        thread: false,
        xnvme: None,
        latency_profile: None,
    };
    vec![
        h("a", 0, "randread", 2, Some("readers, grouped")),
        h("b", 1, "write", 1, None),
    ]
}

#[test]
fn groups_kb_base_1000_and_fsync_normal_output_matches_fio() {
    let (preamble, json, normal) = split(GROUPS);
    let doc: Value = serde_json::from_str(json).unwrap();
    let result = replay(&doc, groups_headers(), 1000);
    let opts = Options {
        pid: fio_pid(normal),
        version: "fio-3.33".into(),
    };
    // fio lays out the files between the preamble and the results.
    let preamble = &preamble[..preamble.find("Starting").unwrap()];
    let ours = ioscope_report::preamble_with(&groups_headers(), 1000, "fio-3.33", 0);
    assert!(ours.starts_with(preamble), "{ours}");
    assert!(ours.ends_with("Starting 3 processes\n"), "{ours}");

    let ours = render_with(&result, &[Format::Normal], &opts);
    assert_same_lines(&ours, normal);
}

#[test]
fn groups_kb_base_1000_and_fsync_json_plus_matches_fio() {
    let (_, json, _) = split(GROUPS);
    let fio: Value = serde_json::from_str(json).unwrap();
    let result = replay(&fio, groups_headers(), 1000);
    let opts = Options {
        pid: 1,
        version: "fio-3.33".into(),
    };
    let text = render_with(&result, &[Format::JsonPlus], &opts);
    let ours: Value = serde_json::from_str(&text).unwrap();
    let mut diffs = Vec::new();
    same_shape(&ours, &fio, "", &mut diffs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

const NULL: &str = include_str!("data/fio-3.33-null-thread-normal-jsonplus.txt");
const GTOD: &str = include_str!("data/fio-3.33-gtod-reduce-numjobs3-normal-jsonplus.txt");

fn simple_header(name: &str, rw: &str, ioengine: &str, numjobs: u32, thread: bool) -> JobHeader {
    JobHeader {
        name: name.into(),
        description: None,
        groupid: 0,
        rw: rw.into(),
        bs: [(4096, 4096); 3],
        ioengine: ioengine.into(),
        iodepth: 1,
        numjobs,
        thread,
        xnvme: None,
        latency_profile: None,
    }
}

/// Checks preamble, normal output and JSON+ of one recorded fio run.
fn check_run(text: &str, preamble_headers: &[JobHeader], job_headers: Vec<JobHeader>, kb: u32) {
    let (preamble, json, normal) = split(text);
    let fio: Value = serde_json::from_str(json).unwrap();
    assert_eq!(
        ioscope_report::preamble_with(preamble_headers, kb, "fio-3.33", 0),
        preamble
    );
    let result = replay(&fio, job_headers, kb);
    let opts = Options {
        pid: 1,
        version: "fio-3.33".into(),
    };
    assert_same_lines(&render_with(&result, &[Format::Normal], &opts), normal);
    let ours: Value =
        serde_json::from_str(&render_with(&result, &[Format::JsonPlus], &opts)).unwrap();
    let mut diffs = Vec::new();
    same_shape(&ours, &fio, "", &mut diffs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn null_engine_thread_nsec_figures_match_fio() {
    let h = simple_header("n", "read", "null", 1, true);
    check_run(NULL, std::slice::from_ref(&h), vec![h.clone()], 1024);
}

#[test]
fn gtod_reduce_three_clones_without_group_reporting_match_fio() {
    let h = simple_header("w", "write", "psync", 1, false);
    check_run(
        GTOD,
        &[simple_header("w", "write", "psync", 3, false)],
        vec![h.clone(), h.clone(), h],
        1024,
    );
}

const GROUPS_TERSE: &str = include_str!("data/fio-3.33-groups-kb1000-sync-terse5-jsonplus.txt");

/// Fields of a version-5 terse line that come from a mean or a standard
/// deviation, per direction: slat, clat and lat mean and stddev, the bw
/// share of the group, mean and stddev, the iops mean and stddev.
const TERSE5_MEAN_FIELDS: [usize; 11] = [6, 7, 10, 11, 34, 35, 38, 39, 40, 44, 45];

/// The same job file as the groups run, printed by fio as
/// `--output-format=terse,json+ --terse-version=5`: the terse lines come
/// first, and must match field for field (what depends on a mean aside).
#[test]
fn groups_kb_base_1000_and_fsync_terse_v5_matches_fio() {
    let (terse, json, rest) = split(GROUPS_TERSE);
    assert_eq!(rest, "", "fio writes the terse lines before the JSON");
    let fio: Value = serde_json::from_str(json).unwrap();
    let result = replay(&fio, groups_headers(), 1000);
    let opts = Options {
        pid: 1,
        version: "fio-3.33".into(),
    };
    let v5 = Format::Terse(TerseVersion::new(5).unwrap());
    let ours = render_with(&result, &[v5], &opts);
    assert_eq!(ours.lines().count(), terse.lines().count(), "{ours}");
    for (o, t) in ours.lines().zip(terse.lines()) {
        let (a, b): (Vec<&str>, Vec<&str>) = (o.split(';').collect(), t.split(';').collect());
        assert_eq!(a.len(), b.len(), "ours: {o}\nfio:  {t}");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            // 5 leading fields, then 47 per direction for read, write, trim.
            let in_dir = (5..5 + 3 * 47)
                .contains(&i)
                .then(|| (i - 5) % 47)
                .filter(|k| TERSE5_MEAN_FIELDS.contains(k));
            if in_dir.is_none() {
                assert_eq!(x, y, "field {i} differs:\nours: {o}\nfio:  {t}");
            }
        }
    }
}
