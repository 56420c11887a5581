//! The logs a job asked for (`write_bw_log` and its family): what its
//! workers record, the checks that need no target, and, once a worker is
//! done, what it recorded with what its files are called.

use ioscope_job::{JobSpec, LogSpec, LogWindowValue};
use ioscope_stats::{Clock, LatLogs, LogFiles, LogPlan, WindowLine, WorkerLogs};

use crate::io_loop::LoopStats;

/// fio's bandwidth and IOPS sampling interval (bw_avg_time,
/// iops_avg_time), unless an averaged log sets it.
pub(crate) const SAMPLE_MS: u64 = 500;

/// The latency logs the job writes: `write_lat_log` minus the latencies
/// it does not measure (fio writes no file for those).
fn lat_logs(spec: &JobSpec) -> LatLogs {
    let on = spec.logs.lat.is_some();
    LatLogs {
        slat: on && !spec.disable_slat,
        clat: on && !spec.disable_clat,
        lat: on && !spec.disable_lat,
    }
}

/// What a worker of `spec` records for its logs.
pub(crate) fn plan(spec: &JobSpec) -> LogPlan {
    let l = &spec.logs;
    LogPlan {
        lat: lat_logs(spec),
        rate_per_io: l.avg_msec == 0 && (l.bw.is_some() || l.iops.is_some()),
        avg_msec: l.avg_msec,
        hist_msec: if l.hist.is_some() && !spec.disable_clat {
            l.hist_msec
        } else {
            0
        },
        entries: l.entries,
    }
}

/// The bandwidth and IOPS sampling intervals (fio's bw_avg_time and
/// iops_avg_time): `bwavgtime`/`iopsavgtime` or 500 ms; an averaged log of
/// either samples at its log_avg_msec, or at the smaller of the two when
/// both are given (fio's init.c).
pub(crate) fn rate_intervals(spec: &JobSpec) -> (u64, u64) {
    let l = &spec.logs;
    let interval = |logged: bool, given: Option<u64>| match (logged && l.avg_msec > 0, given) {
        (true, Some(ms)) => ms.min(l.avg_msec),
        (true, None) => l.avg_msec,
        (false, given) => given.unwrap_or(SAMPLE_MS),
    };
    (
        interval(l.bw.is_some(), spec.misc.bw_avg_ms),
        interval(l.iops.is_some(), spec.misc.iops_avg_ms),
    )
}

/// Whether the rate sampler keeps its samples, for averaged bandwidth or
/// IOPS logs.
pub(crate) fn keeps_rate_samples(l: &LogSpec) -> bool {
    l.avg_msec > 0 && (l.bw.is_some() || l.iops.is_some())
}

/// What fio refuses of the log options before a job starts.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let l = &spec.logs;
    if l.issue_time && (l.lat.is_none() || !l.offset) {
        return Err("log_issue_time option requires write_lat_log and log_offset options".into());
    }
    if l.store_compressed {
        // fio 3.33's stored samples have room for none of these.
        let what = if l.hist.is_some() {
            Some("write_hist_log")
        } else if l.issue_time {
            Some("log_issue_time")
        } else if l.window_value == LogWindowValue::Both && l.avg_msec > 0 {
            Some("log_window_value=both")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(format!(
                "log_store_compressed with {what}: fio 3.33's compressed log format cannot hold it \
                 (write the log uncompressed)"
            ));
        }
    }
    if l.alternate_epoch && epoch_ms(l.alternate_epoch_clock_id).is_none() {
        return Err(format!(
            "log_alternate_epoch_clock_id={}: clock_gettime refuses this clock",
            l.alternate_epoch_clock_id
        ));
    }
    Ok(())
}

/// Milliseconds since the epoch of clock `id`, None when there is no such
/// clock.
fn epoch_ms(id: i32) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write to.
    if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
        return None;
    }
    Some(ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
}

/// Takes what worker `number` (from 0, across the run) of `spec` recorded
/// for its logs out of `stats`; None when the job writes no log.
pub(crate) fn take(
    spec: &JobSpec,
    number: u32,
    stats: &mut LoopStats,
    clock: &Clock,
) -> Option<WorkerLogs> {
    let l = &spec.logs;
    if !l.any() {
        return None;
    }
    // Averaged bandwidth and IOPS logs alone record nothing per I/O: the
    // rate sampler kept their lines.
    let recorder = stats.logs.take().unwrap_or_else(|| {
        ioscope_stats::LogRecorder::new(&LogPlan::default(), *clock, stats.measure_start)
    });
    // fio reads the alternate clock when the job starts; reading it now
    // and going back by the job's age gives the same time.
    let time_offset_ms = if l.alternate_epoch {
        let age = clock.to_ns(clock.now().saturating_sub(recorder.epoch)) / 1_000_000;
        epoch_ms(l.alternate_epoch_clock_id)
            .unwrap_or(0)
            .saturating_sub(age)
    } else {
        0
    };
    let name = |prefix: &Option<String>| {
        prefix.as_ref().map(|p| {
            if p.is_empty() {
                spec.name.clone()
            } else {
                p.clone()
            }
        })
    };
    let files = LogFiles {
        bw: name(&l.bw),
        iops: name(&l.iops),
        lat: name(&l.lat),
        hist: name(&l.hist),
        lat_logs: lat_logs(spec),
        number: number + 1,
        per_job: l.per_job,
        offset: l.offset,
        prio: l.prio,
        issue_time: l.issue_time,
        averaged: l.avg_msec > 0,
        window_value: match l.window_value {
            LogWindowValue::Avg => 0,
            LogWindowValue::Max => 1,
            LogWindowValue::Both => 2,
        },
        hist_coarseness: l.hist_coarseness,
        time_offset_ms,
        compressed_chunk: l.store_compressed.then_some(l.compression as usize),
        bw_unsampled: spec.misc.disable_bw,
        iops_unsampled: crate::misc_checks::gtod_reduced(spec),
        owner: crate::credentials::Credentials::of(spec).ids(),
    };
    let epoch = recorder.epoch;
    let lines = |kept: fn(&ioscope_stats::RateSampler) -> &[(u64, u64)]| {
        let mut lines: Vec<WindowLine> = Vec::new();
        for (d, dir) in stats.dirs.iter().enumerate() {
            lines.extend(kept(&dir.rate).iter().map(|&(end, value)| WindowLine {
                // Rounded: an interval's end in ticks is a whole number of
                // ms only up to the conversion's last nanosecond.
                time_ms: (clock.to_ns(end.saturating_sub(epoch)) + 500_000) / 1_000_000,
                avg: value,
                max: value,
                dir: d as u8,
            }));
        }
        // fio's helper thread samples every direction at once, in order.
        lines.sort_by_key(|w| (w.time_ms, w.dir));
        lines
    };
    Some(WorkerLogs {
        bw: lines(|r| r.bw_log()),
        iops: lines(|r| r.iops_log()),
        files,
        clock: *clock,
        recorder,
    })
}
