//! fio's JSON and JSON+ documents (show_thread_status_json and friends),
//! built as ordered serde_json values with fio 3.33's keys, order and
//! number types and the keys fio 3.42 added (job_start, latency_target_ns,
//! latency_window_us, the disks' sectors, valueless options echoed as ""),
//! printed by [`crate::fio_formatter`].

use crate::dist::{depth_shares, issued_rw, lat_shares, LAT_RANGES};
use crate::group::GroupStats;
use crate::normal::cpu_percent;
use crate::stat::Stat;
use crate::{disk, fio_formatter, percentiles, Options};
use ioscope_stats::{DirResult, JobResult, LatencyStat, RunResult};
use serde_json::{Map, Value};

/// fio's eta while under 3 s since the start (it has no estimate yet).
const ETA_UNKNOWN: i64 = i32::MAX as i64;

/// fio's "elapsed": whole seconds (rounded up) since the run started, the
/// same for every job. RunResult has no run-wide figure, so it is made of
/// the jobs' own: groups run one after the other, the jobs of a group side
/// by side.
fn run_elapsed_sec(result: &RunResult, groups: &[GroupStats]) -> u64 {
    let ms: u64 = groups
        .iter()
        .map(|g| {
            result
                .jobs
                .iter()
                .filter(|j| j.header.groupid == g.groupid)
                .map(|j| j.elapsed_ms)
                .max()
                .unwrap_or(0)
        })
        .sum();
    ms.div_ceil(1000)
}

/// fio's "eta" once the run is over: INT_MAX before 3 s have passed
/// (calc_thread_status has no estimate yet), 0 after.
fn eta(elapsed_sec: u64) -> i64 {
    if elapsed_sec >= 3 {
        0
    } else {
        ETA_UNKNOWN
    }
}

/// The whole document, as fio prints it (ending in a newline).
pub fn render(result: &RunResult, plus: bool, opts: &Options) -> String {
    let mut s = fio_formatter::to_string(&document(result, plus, opts));
    s.push('\n');
    s
}

/// The document as a value, keys in fio's order.
pub fn document(result: &RunResult, plus: bool, opts: &Options) -> Value {
    let groups = GroupStats::all(result);
    let mut root = Map::new();
    root.insert("fio version".into(), Value::from(opts.version.clone()));
    root.insert("timestamp".into(), Value::from(result.timestamp));
    root.insert("timestamp_ms".into(), Value::from(result.timestamp_ms));
    root.insert("time".into(), Value::from(result.time.clone()));
    if let Some(o) = options(&result.global_options) {
        root.insert("global options".into(), o);
    }
    let elapsed = run_elapsed_sec(result, &groups);
    let jobs = result
        .jobs
        .iter()
        .map(|j| job(j, &groups[j.header.groupid as usize], Some(elapsed), plus))
        .collect();
    root.insert("jobs".into(), Value::Array(jobs));
    if !result.disks.is_empty() {
        root.insert(
            "disk_util".into(),
            Value::Array(result.disks.iter().map(disk::json).collect()),
        );
    }
    if let Some(idle) = &result.idleness {
        root.insert("cpu_idleness".into(), crate::idleness::json(idle));
    }
    root.insert(
        "cpu_accounting".into(),
        crate::helpers::run_json(&result.cpu),
    );
    root.insert("notices".into(), crate::notices::json(&result.notices));
    Value::Object(root)
}

/// fio's client's document (client.c fio_client_json_init, handle_ts,
/// handle_du): the version, the time, the global options, the jobs of
/// every server as `client_stats` (with `all`, fio's "All clients" sum,
/// last) and the disks, each job and disk with its server's `hostname`
/// and `port`.
pub fn client_document(
    results: &[(&RunResult, (&str, u16))],
    plus: bool,
    opts: &Options,
    all: Option<&(JobResult, GroupStats)>,
) -> Value {
    let with_server = |mut v: Value, (host, port): (&str, u16)| {
        if let Value::Object(o) = &mut v {
            o.insert("hostname".into(), Value::from(host));
            o.insert("port".into(), Value::from(port));
        }
        v
    };
    let mut root = Map::new();
    root.insert("fio version".into(), Value::from(opts.version.clone()));
    let (timestamp, time) = results
        .last()
        .map_or((0, String::new()), |(r, _)| (r.timestamp, r.time.clone()));
    root.insert("timestamp".into(), Value::from(timestamp));
    root.insert("time".into(), Value::from(time));
    // fio's client keeps one object of global options, each server's
    // written over the last's.
    let mut global: Vec<(String, String)> = Vec::new();
    for (r, _) in results {
        for (k, v) in &r.global_options {
            match global.iter_mut().find(|(name, _)| name == k) {
                Some(slot) => slot.1.clone_from(v),
                None => global.push((k.clone(), v.clone())),
            }
        }
    }
    if let Some(o) = options(&global) {
        root.insert("global options".into(), o);
    }
    let mut jobs = Vec::new();
    let mut disks = Vec::new();
    for (r, server) in results {
        let groups = GroupStats::all(r);
        for j in &r.jobs {
            let g = &groups[j.header.groupid as usize];
            jobs.push(with_server(job(j, g, None, plus), *server));
        }
        disks.extend(r.disks.iter().map(|d| with_server(disk::json(d), *server)));
    }
    if let (Some((j, g)), Some((_, server))) = (all, results.last()) {
        jobs.push(with_server(job(j, g, None, plus), *server));
    }
    root.insert("client_stats".into(), Value::Array(jobs));
    root.insert("disk_util".into(), Value::Array(disks));
    Value::Object(root)
}

/// fio's json_add_job_opts(): absent when empty. An option given without a
/// value (`time_based`, `--thread`) is echoed with an empty string, as fio
/// 3.42 does (3.33 dropped it).
fn options(list: &[(String, String)]) -> Option<Value> {
    if list.is_empty() {
        return None;
    }
    let mut o = Map::new();
    for (k, v) in list {
        o.insert(k.clone(), Value::from(v.clone()));
    }
    Some(Value::Object(o))
}

fn float(v: f64) -> Value {
    // serde_json cannot hold NaN or infinity; fio would print nan/inf.
    Value::from(if v.is_finite() { v } else { 0.0 })
}

/// A job's object; `elapsed` is None for a job a server ran, which fio's
/// client prints without the run's eta and elapsed time, the keys fio
/// 3.42 added to its protocol's figures, and ioscope's own keys.
fn job(job: &JobResult, group: &GroupStats, elapsed: Option<u64>, plus: bool) -> Value {
    let h = &job.header;
    let list = percentiles::sorted_list(&job.percentile_list);
    let mut o = Map::new();
    o.insert("jobname".into(), Value::from(h.name.clone()));
    o.insert("groupid".into(), Value::from(h.groupid));
    if elapsed.is_some() {
        o.insert("job_start".into(), Value::from(job.job_start_ms));
    }
    o.insert("error".into(), Value::from(job.reported_error()));
    if let Some(elapsed) = elapsed {
        o.insert("eta".into(), Value::from(eta(elapsed)));
        o.insert("elapsed".into(), Value::from(elapsed));
    }
    if let Some(opts) = options(&job.job_options) {
        o.insert("job options".into(), opts);
    }
    // unified_rw_reporting=mixed: the folded directions as "mixed", and
    // neither write, trim nor sync (fio's add_ddir_status_json returns
    // early for them).
    let mixed_only = job.unified_rw == 1;
    for (i, name) in ["read", "write", "trim"].iter().enumerate() {
        if mixed_only && i > 0 {
            continue;
        }
        let name = if mixed_only { "mixed" } else { *name };
        o.insert(name.into(), dir(job, i, &job.dirs[i], group, &list, plus));
    }
    let mut sync = Map::new();
    sync.insert("total_ios".into(), Value::from(job.sync.total_ios));
    sync.insert(
        "lat_ns".into(),
        lat(
            &job.sync.lat,
            job.lat_percentiles || job.clat_percentiles,
            &list,
            plus,
        ),
    );
    if !mixed_only {
        o.insert("sync".into(), Value::Object(sync));
    }
    if job.unified_rw == 2 {
        let mixed = job.mixed_dir();
        o.insert("mixed".into(), dir(job, 0, &mixed, group, &list, plus));
    }

    let (usr, sys) = cpu_percent(job);
    o.insert("job_runtime".into(), Value::from(job.runtime_ms));
    o.insert("usr_cpu".into(), float(usr));
    o.insert("sys_cpu".into(), float(sys));
    o.insert("ctx".into(), Value::from(job.cpu.ctx));
    o.insert("majf".into(), Value::from(job.cpu.majf));
    o.insert("minf".into(), Value::from(job.cpu.minf));

    let level = depth_shares(&job.depth.counts, issued_rw(job));
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    o.insert("iodepth_level".into(), shares(&keys, &level));
    let keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    for (name, d) in [
        ("iodepth_submit", &job.submit),
        ("iodepth_complete", &job.complete),
    ] {
        let s = depth_shares(&d.counts, d.counts.iter().sum());
        o.insert(name.into(), shares(&keys, &s));
    }

    let total = issued_rw(job);
    let b = &job.lat_buckets;
    o.insert(
        "latency_ns".into(),
        shares(&LAT_RANGES[..10], &lat_shares(&b.nsec, total)),
    );
    o.insert(
        "latency_us".into(),
        shares(&LAT_RANGES[..10], &lat_shares(&b.usec, total)),
    );
    o.insert(
        "latency_ms".into(),
        shares(&LAT_RANGES, &lat_shares(&b.msec, total)),
    );
    if job.continue_on_error {
        o.insert("total_err".into(), Value::from(job.total_err));
        o.insert("first_error".into(), Value::from(job.first_error));
    }
    // Without a latency_target, fio's defaults: no target, no window, the
    // 100th percentile, the job's iodepth.
    let lp = h.latency_profile.unwrap_or(ioscope_stats::LatencyProfile {
        target_ns: 0,
        window_us: 0,
        percentile: 100.0,
        depth: h.iodepth,
    });
    if lp.depth != 0 {
        o.insert("latency_depth".into(), Value::from(lp.depth));
        o.insert("latency_target".into(), Value::from(lp.target_ns));
        if elapsed.is_some() {
            o.insert("latency_target_ns".into(), Value::from(lp.target_ns));
        }
        o.insert("latency_percentile".into(), float(lp.percentile));
        o.insert("latency_window".into(), Value::from(lp.window_us));
        if elapsed.is_some() {
            o.insert("latency_window_us".into(), Value::from(lp.window_us));
        }
    }
    if let Some(desc) = h.description.as_deref().filter(|d| !d.is_empty()) {
        o.insert("desc".into(), Value::from(desc.to_string()));
    }
    if let Some(block) = crate::block_life::json(job) {
        o.insert("block".into(), block);
    }
    if let Some(ss) = &job.steadystate {
        o.insert("steadystate".into(), crate::steadystate::object(ss));
    }
    // ioscope's own keys go after all of fio's.
    if elapsed.is_some() {
        crate::helpers::job_json(job, &mut o);
    }
    Value::Object(o)
}

fn shares(keys: &[&str], values: &[f64]) -> Value {
    let mut o = Map::new();
    for (k, v) in keys.iter().zip(values) {
        o.insert((*k).into(), float(*v));
    }
    Value::Object(o)
}

/// fio's add_ddir_lat_json(): min/max/mean/stddev/N, then "percentile"
/// when asked for and there are samples, then "bins" in JSON+.
fn lat(l: &LatencyStat, percentiles_on: bool, list: &[f64], plus: bool) -> Value {
    let s = Stat::of_or_zero(&l.summary);
    let mut o = Map::new();
    o.insert("min".into(), Value::from(s.min));
    o.insert("max".into(), Value::from(s.max));
    o.insert("mean".into(), float(s.mean));
    o.insert("stddev".into(), float(s.dev));
    o.insert("N".into(), Value::from(l.summary.samples));
    if percentiles_on && l.summary.samples != 0 {
        if let Some(hist) = &l.histogram {
            let values = percentiles::values(hist, list);
            let mut p = Map::new();
            for (pct, v) in list.iter().zip(&values) {
                p.insert(percentiles::json_key(*pct), Value::from(*v));
            }
            o.insert("percentile".into(), Value::Object(p));
            if plus {
                let mut bins = Map::new();
                for (value, count) in hist.nonzero_bins() {
                    bins.insert(value.to_string(), Value::from(count));
                }
                o.insert("bins".into(), Value::Object(bins));
            }
        }
    }
    Value::Object(o)
}

/// fio's per-priority latencies ("prios"): only when at least two
/// priorities have samples, each as its class, level and `clat_ns` (or
/// `lat_ns` with lat_percentiles).
fn prios(job: &JobResult, d: &DirResult, list: &[f64], plus: bool) -> Option<Value> {
    let used: Vec<_> = d
        .prios
        .iter()
        .filter(|p| p.lat.summary.samples > 0)
        .collect();
    if used.len() < 2 {
        return None;
    }
    let name = if job.lat_percentiles {
        "lat_ns"
    } else {
        "clat_ns"
    };
    let on = job.clat_percentiles || job.lat_percentiles;
    let array = used
        .iter()
        .map(|p| {
            let mut o = Map::new();
            o.insert("prioclass".into(), Value::from(p.class()));
            o.insert("prio".into(), Value::from(p.level()));
            o.insert("priohint".into(), Value::from(p.hint()));
            o.insert(name.into(), lat(&p.lat, on, list, plus));
            Value::Object(o)
        })
        .collect();
    Some(Value::Array(array))
}

/// fio's add_ddir_status_json() for read, write or trim.
fn dir(
    job: &JobResult,
    ddir: usize,
    d: &DirResult,
    group: &GroupStats,
    list: &[f64],
    plus: bool,
) -> Value {
    let bw_bytes = (1000 * d.io_bytes).checked_div(d.runtime_ms).unwrap_or(0);
    let iops = if d.runtime_ms == 0 {
        0.0
    } else {
        1000.0 * d.total_ios as f64 / d.runtime_ms as f64
    };
    let mut o = Map::new();
    o.insert("io_bytes".into(), Value::from(d.io_bytes));
    o.insert("io_kbytes".into(), Value::from(d.io_bytes >> 10));
    o.insert("bw_bytes".into(), Value::from(bw_bytes));
    o.insert("bw".into(), Value::from(bw_bytes / 1024));
    o.insert("iops".into(), float(iops));
    o.insert("runtime".into(), Value::from(d.runtime_ms));
    o.insert("total_ios".into(), Value::from(d.total_ios));
    o.insert("short_ios".into(), Value::from(d.short_ios));
    o.insert("drop_ios".into(), Value::from(d.drop_ios));
    o.insert(
        "slat_ns".into(),
        lat(&d.slat, job.slat_percentiles, list, plus),
    );
    o.insert(
        "clat_ns".into(),
        lat(&d.clat, job.clat_percentiles, list, plus),
    );
    o.insert(
        "lat_ns".into(),
        lat(&d.lat, job.lat_percentiles, list, plus),
    );
    if let Some(p) = prios(job, d, list, plus) {
        o.insert("prios".into(), p);
    }

    let (bw, per) = match Stat::of(&d.bw) {
        Some(s) => (s, group.percent_of_agg(ddir, s.mean)),
        None => (Stat::zero(), 0.0),
    };
    o.insert("bw_min".into(), Value::from(bw.min));
    o.insert("bw_max".into(), Value::from(bw.max));
    o.insert("bw_agg".into(), float(per));
    o.insert("bw_mean".into(), float(bw.mean));
    o.insert("bw_dev".into(), float(bw.dev));
    o.insert("bw_samples".into(), Value::from(d.bw.samples));
    let iops_s = Stat::of_or_zero(&d.iops);
    o.insert("iops_min".into(), Value::from(iops_s.min));
    o.insert("iops_max".into(), Value::from(iops_s.max));
    o.insert("iops_mean".into(), float(iops_s.mean));
    o.insert("iops_stddev".into(), float(iops_s.dev));
    o.insert("iops_samples".into(), Value::from(d.iops.samples));
    Value::Object(o)
}
