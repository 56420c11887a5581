//! Worker outcomes into the reported jobs: per-worker results, merged per
//! reporting group where `group_reporting` asks for it, as fio merges them.

use ioscope_engine::Backend;
use ioscope_job::{Parsed, UnifiedRw};
use ioscope_stats::{
    ActSlice, Clock, CpuAccounting, DirResult, DiskUtil, HelperCpu, JobResult, LatencyStat,
    RunResult, SyncResult, ThreadCpu,
};

use crate::io_loop::{DirStats, LoopStats};
use crate::phases::header;
use crate::worker::WorkerOutcome;

/// One worker, finished.
pub(crate) struct Finished {
    pub job: usize,
    pub groupid: u32,
    pub outcome: WorkerOutcome,
    /// io_uring helper threads the worker's ring used.
    pub helper_cpu: HelperCpu,
    /// Wall time of the phase the worker ran in.
    pub elapsed_ms: u64,
    /// Steady-state detection's record, for the worker that holds it.
    pub steadystate: Option<ioscope_stats::SteadyStateResult>,
}

/// The report of the `finished` workers (the final one, or one while the
/// run goes on from the workers' snapshots).
pub(crate) fn build<'a>(
    parsed: &Parsed,
    finished: impl IntoIterator<Item = &'a Finished>,
    disks: Vec<DiskUtil>,
    clock: &Clock,
    process: ThreadCpu,
) -> RunResult {
    let mut jobs: Vec<JobResult> = Vec::new();
    let mut cpu = CpuAccounting {
        process,
        ..CpuAccounting::default()
    };
    // Whether the last reported job merges later workers of its group.
    let mut last_merges = false;
    let mut failed_workers = 0;
    let now = Now::read(clock);
    // act's table has a line per slice whichever workers ran.
    let mut act = parsed.act.map(|a| vec![ActSlice::default(); a.slices]);
    for f in finished {
        let slices = f.outcome.stats.as_ref().and_then(|s| s.act.as_ref());
        if let (Some(total), Some(slices)) = (&mut act, slices) {
            slices.merge_into(total);
        }
        let spec = &parsed.jobs[f.job];
        failed_workers += u32::from(f.outcome.errno != 0);
        // stats=0: fio leaves the job out of every report.
        if !spec.misc.stats {
            continue;
        }
        let mut result = worker_result(parsed, f, clock, &now);
        cpu.workers_ns += result.cpu.user_ns + result.cpu.sys_ns;
        cpu.helpers.add(&result.helper_cpu);
        let merge = spec.group_reporting
            && last_merges
            && jobs.last().is_some_and(|j| j.header.groupid == f.groupid);
        // fio folds a worker's directions (unified_rw_reporting=mixed) as
        // it sums the worker into its entry, by the entry's setting: the
        // first member's, whatever the worker's own (stat.c).
        let entry = match jobs.last() {
            Some(last) if merge => last.unified_rw,
            _ => result.unified_rw,
        };
        if entry == UnifiedRw::Mixed.code() && f.outcome.stats.is_some() {
            result.fold_directions();
        }
        if merge {
            let last = jobs.last_mut().expect("checked above");
            last.merge(&result);
            last.header.numjobs += 1;
            // fio's group reports the last job's latency_target depth.
            last.header.latency_profile = result.header.latency_profile;
        } else {
            jobs.push(result);
            last_merges = spec.group_reporting;
        }
    }
    let (timestamp, timestamp_ms, time) = now_stamps();
    RunResult {
        timestamp,
        timestamp_ms,
        time,
        global_options: parsed.global_options.clone(),
        jobs,
        disks,
        kb_base: parsed.jobs.first().map_or(1024, |j| j.kb_base),
        cpu,
        aborted: None,
        failed_workers,
        interrupted: None,
        notices: Vec::new(),
        logs: Vec::new(),
        agg_bw: None,
        act,
        idleness: None,
    }
}

/// One reading of the run's clock and of the wall clock, to turn the
/// former's ticks into times of day.
struct Now {
    ticks: u64,
    unix_ms: u64,
}

impl Now {
    fn read(clock: &Clock) -> Now {
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64;
        Now {
            ticks: clock.now(),
            unix_ms,
        }
    }

    /// The time of day, in ms since the Unix epoch, of an earlier tick.
    fn unix_ms_of(&self, clock: &Clock, ticks: u64) -> u64 {
        let ago_ms = clock.to_ns(self.ticks.saturating_sub(ticks)) / 1_000_000;
        self.unix_ms.saturating_sub(ago_ms)
    }
}

fn worker_result(parsed: &Parsed, f: &Finished, clock: &Clock, now: &Now) -> JobResult {
    let spec = &parsed.jobs[f.job];
    let mut header = header(spec, f.groupid);
    header.numjobs = 1;
    let mut result = JobResult {
        header,
        job_options: spec.options.clone(),
        error: f.outcome.errno,
        continue_on_error: spec.errors.any(),
        helper_cpu: f.helper_cpu,
        elapsed_ms: f.elapsed_ms,
        percentile_list: spec.percentile_list.clone(),
        clat_percentiles: spec.clat_percentiles,
        lat_percentiles: spec.lat_percentiles,
        slat_percentiles: spec.slat_percentiles,
        steadystate: f.steadystate.clone(),
        pid: f.outcome.tid,
        unified_rw: spec.misc.unified_rw.code(),
        sig_figs: spec.misc.sig_figs,
        unit_bits: spec.misc.unit_bits,
        ..JobResult::default()
    };
    if let Some(stats) = &f.outcome.stats {
        result.job_start_ms = match spec.misc.job_start_clock_id {
            0 => now.unix_ms_of(clock, stats.measure_start),
            id => crate::misc_checks::clock_ms_of(id, clock, stats.measure_start),
        };
        fill_from_loop(&mut result, stats, clock);
        result.zone_resets = stats.zone_resets;
        result.zone_unrecovered = stats.zone_unrecovered.clone();
        result.block_life = stats.block_life.clone();
        // fio reports the depth latency_target's search ended at.
        if let (Some(lp), Some(d)) = (&mut result.header.latency_profile, stats.latency_depth) {
            lp.depth = d;
        }
        if spec.ioengine == Backend::Faulty {
            result.faults_injected = Some(stats.faults_injected);
        }
    }
    result
}

fn fill_from_loop(result: &mut JobResult, stats: &LoopStats, clock: &Clock) {
    // fio rounds runtimes up to whole milliseconds.
    let runtime_us = clock.to_ns(stats.end.saturating_sub(stats.measure_start)) / 1_000;
    let runtime_ms = runtime_us.div_ceil(1000);
    result.runtime_ms = runtime_ms;
    for (d, dir) in stats.dirs.iter().enumerate() {
        result.dirs[d] = dir_result(dir, dir_runtime_ms(stats, d, clock, runtime_us));
        result.short[d] = dir.short;
        if let Some(p) = &stats.prio {
            result.dirs[d].prios = p.results(d);
        }
    }
    result.sync = SyncResult {
        total_ios: stats.sync_ios,
        lat: LatencyStat {
            summary: stats.sync_lat.summary(),
            histogram: stats.sync_hist.clone(),
        },
    };
    result.cpu = stats.cpu;
    result.depth = stats.depth;
    result.submit = stats.submit;
    result.complete = stats.complete;
    result.issued = stats.issued;
    result.lat_buckets = stats.lat_buckets;
    result.total_err = stats.errors.total;
    result.first_error = stats.errors.first;
    result.verify = stats.verify.as_ref().map(|v| (v.checked, v.bad));
}

/// A direction's runtime as fio keeps it: the time of each write phase
/// for the directions the workload used in it, plus each verify phase's
/// for those the verify used (its reads, trim_percentage's trims). Without
/// a verify phase, the job's runtime.
fn dir_runtime_ms(stats: &LoopStats, d: usize, clock: &Clock, runtime_us: u64) -> u64 {
    if stats.phase_switches.is_empty() {
        return runtime_us.div_ceil(1000);
    }
    let start = (stats.measure_start, [0; 3]);
    let end = (stats.end, stats.dirs.each_ref().map(|dir| dir.ios));
    let marks: Vec<(u64, [u64; 3])> = std::iter::once(start)
        .chain(
            stats
                .phase_switches
                .iter()
                .map(|&(t, ios)| (t.max(stats.measure_start), ios)),
        )
        .chain(std::iter::once(end))
        .collect();
    let us: u64 = marks
        .windows(2)
        .filter(|w| w[1].1[d] > w[0].1[d])
        .map(|w| clock.to_ns(w[1].0.saturating_sub(w[0].0)) / 1_000)
        .sum();
    us.div_ceil(1000)
}

fn dir_result(dir: &DirStats, runtime_ms: u64) -> DirResult {
    let stat = |summary: &ioscope_stats::Summary,
                hist: &Option<ioscope_stats::LatencyHistogram>| {
        LatencyStat {
            summary: *summary,
            histogram: hist.clone(),
        }
    };
    DirResult {
        io_bytes: dir.bytes,
        total_ios: dir.ios,
        short_ios: dir.short,
        drop_ios: 0,
        // fio counts a direction's runtime only when it moved bytes
        // (backend.c), so cpuio's and exec's I/Os of no bytes have none.
        runtime_ms: if dir.bytes > 0 { runtime_ms } else { 0 },
        slat: stat(&dir.slat.summary(), &dir.slat_hist),
        clat: stat(&dir.clat.summary(), &dir.clat_hist),
        lat: stat(&dir.lat.summary(), &dir.lat_hist),
        bw: dir.rate.bw,
        iops: dir.rate.iops,
        prios: Vec::new(),
    }
}

/// Seconds and milliseconds since the epoch, and fio's ctime-style time.
pub fn now_stamps() -> (i64, i64, String) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs() as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into the 64-byte buffer.
    let text = unsafe {
        let p = libc::ctime_r(&secs, buf.as_mut_ptr());
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p)
                .to_string_lossy()
                .trim_end()
                .to_string()
        }
    };
    (now.as_secs() as i64, now.as_millis() as i64, text)
}
