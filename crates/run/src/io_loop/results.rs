//! What the loop measures: per-direction counters and latencies, errors,
//! and the totals one worker hands back.

use ioscope_engine::Op;
use ioscope_stats::{
    ActSlices, BlockLife, Clock, DepthDist, HelperCpu, LatencyBuckets, LatencyHistogram,
    LogRecorder, Moments, Punts, RateSampler, ThreadCpu,
};

use super::config::*;
use crate::verify::VerifyOutcome;

/// One direction's measurements.
#[derive(Clone, Debug)]
pub(crate) struct DirStats {
    pub bytes: u64,
    pub ios: u64,
    pub short: u64,
    pub slat: Moments,
    pub clat: Moments,
    pub lat: Moments,
    pub slat_hist: Option<LatencyHistogram>,
    pub clat_hist: Option<LatencyHistogram>,
    pub lat_hist: Option<LatencyHistogram>,
    pub rate: RateSampler,
}

impl DirStats {
    pub(super) fn new(config: &LoopConfig, clock: &Clock, start: u64) -> DirStats {
        let tracking = &config.tracking;
        let hist = |on: bool| on.then(LatencyHistogram::new);
        let (bw_ms, iops_ms) = config.sample_ms;
        let mut rate = RateSampler::with_intervals(clock, bw_ms, iops_ms, start);
        if config.keep_rate_samples {
            rate.keep_log();
        }
        DirStats {
            bytes: 0,
            ios: 0,
            short: 0,
            slat: Moments::default(),
            clat: Moments::default(),
            lat: Moments::default(),
            slat_hist: hist(tracking.slat && tracking.slat_hist),
            clat_hist: hist(tracking.clat && tracking.clat_hist),
            lat_hist: hist(tracking.lat && tracking.lat_hist),
            rate,
        }
    }
}

/// An I/O error of a worker, with what fio prints about it.
#[derive(Clone, Debug)]
pub(crate) struct IoFailure {
    pub errno: i32,
    pub op: Op,
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    /// What a failed verify found, which says more than the errno.
    pub detail: Option<String>,
}

impl IoFailure {
    /// fio's line for a failed I/O (io_u.c's `__io_u_log_error`) on
    /// `path`, without its "fio: " prefix: the error as strerror says it,
    /// the direction, offset and length.
    pub(crate) fn line(&self, path: &std::path::Path) -> String {
        let err = ioscope_engine::describe_error(i64::from(self.errno));
        // io::Error's text ends in " (os error N)", which strerror's has not.
        let err = match err.rfind(" (os error ") {
            Some(at) if err.ends_with(')') => &err[..at],
            _ => &err,
        };
        format!(
            "io_u error on file {}: {err}: {} offset={}, buflen={}",
            path.display(),
            self.op.name(),
            self.offset,
            self.len
        )
    }
}

/// Errors the job went on after (continue_on_error).
#[derive(Clone, Debug, Default)]
pub(crate) struct ErrorCount {
    pub total: u64,
    /// errno of the first, 0 when none.
    pub first: i32,
    /// `error_dump`: the first [`DUMPS_KEPT`] I/O errors let pass, each
    /// printed after the run as fio prints it when it happens.
    pub dumped: Vec<IoFailure>,
    /// Those dumped beyond [`DUMPS_KEPT`], counted only.
    pub dumped_more: u64,
}

/// How many of the errors a job goes on after are kept to be printed: a
/// job failing every I/O would otherwise keep one record per I/O.
pub(crate) const DUMPS_KEPT: usize = 1024;

impl ErrorCount {
    pub(super) fn add(&mut self, errno: i32) {
        self.total += 1;
        if self.first == 0 {
            self.first = errno;
        }
    }

    /// Keeps `failure` for error_dump's line.
    pub(super) fn dump(&mut self, failure: IoFailure) {
        if self.dumped.len() < DUMPS_KEPT {
            self.dumped.push(failure);
        } else {
            self.dumped_more += 1;
        }
    }
}

/// Everything one worker measured.
#[derive(Clone, Debug)]
pub(crate) struct LoopStats {
    /// [read, write, trim].
    pub dirs: [DirStats; 3],
    pub sync_ios: u64,
    pub sync_lat: Moments,
    pub sync_hist: Option<LatencyHistogram>,
    pub depth: DepthDist,
    pub submit: DepthDist,
    pub complete: DepthDist,
    /// Requests issued: [read, write, trim].
    pub issued: [u64; 3],
    pub lat_buckets: LatencyBuckets,
    pub failure: Option<IoFailure>,
    pub errors: ErrorCount,
    /// What verify found, when the job verifies.
    pub verify: Option<VerifyOutcome>,
    /// When each verify phase began, and each write phase after one (a
    /// job of several `loops` verifies after each), with the I/Os of each
    /// direction by then: fio charges each phase's time to the directions
    /// it uses.
    pub phase_switches: Vec<(u64, [u64; 3])>,
    /// Faults the faulty engine injected.
    pub faults_injected: u64,
    /// Zones reset by `zonemode=zbd`.
    pub zone_resets: u64,
    /// Failed writes whose zone's write pointer recover_zbd_write_error
    /// could not move: the file's path and why.
    pub zone_unrecovered: Vec<(String, String)>,
    /// Ticks when measuring began (after the ramp) and when the loop ended.
    pub measure_start: u64,
    pub end: u64,
    pub loop_start: u64,
    /// CPU of this thread over the measured period.
    pub cpu: ThreadCpu,
    /// The helper threads' CPU when measuring began (after the ramp).
    pub helpers_at_start: HelperCpu,
    /// Requests punted to io-wq while measuring.
    pub punts: Punts,
    /// Optional io_uring setup flags the kernel refused, by name.
    pub refused_setup_flags: Option<String>,
    /// What the job's logs need, when it writes any.
    pub logs: Option<LogRecorder>,
    /// The depth `latency_target`'s search ended at; None without one.
    pub latency_depth: Option<u32>,
    /// Latencies per I/O priority, with per-I/O priorities (cmdprio).
    pub prio: Option<super::cmdprio::PrioTally>,
    /// `block_error_percentiles`' trims per block; kept across the ramp's
    /// end, as fio keeps them.
    pub block_life: Option<BlockLife>,
    /// `--profile=act`'s latency slices, from the end of the ramp.
    pub act: Option<ActSlices>,
}

impl LoopStats {
    /// Measurements from `now`, which the logs' times count from too (fio
    /// restarts its log clock when the ramp ends).
    pub(super) fn new(config: &LoopConfig, clock: &Clock, now: u64) -> LoopStats {
        let t = &config.tracking;
        LoopStats {
            dirs: [
                DirStats::new(config, clock, now),
                DirStats::new(config, clock, now),
                DirStats::new(config, clock, now),
            ],
            sync_ios: 0,
            sync_lat: Moments::default(),
            sync_hist: (t.lat && t.clat_hist).then(LatencyHistogram::new),
            depth: DepthDist::default(),
            submit: DepthDist::default(),
            complete: DepthDist::default(),
            issued: [0; 3],
            lat_buckets: LatencyBuckets::default(),
            failure: None,
            errors: ErrorCount::default(),
            verify: None,
            phase_switches: Vec::new(),
            faults_injected: 0,
            zone_resets: 0,
            zone_unrecovered: Vec::new(),
            measure_start: now,
            end: now,
            loop_start: now,
            cpu: ThreadCpu::default(),
            helpers_at_start: HelperCpu::default(),
            punts: Punts::default(),
            refused_setup_flags: None,
            logs: config
                .logs
                .any()
                .then(|| LogRecorder::new(&config.logs, *clock, now)),
            latency_depth: None,
            prio: None,
            block_life: config.block_life.clone(),
            act: config.act.map(|a| {
                let slice = clock.ticks_for_ns(ioscope_stats::ACT_SLICE_NS);
                ActSlices::new(a.slices, now, slice, !a.prep)
            }),
        }
    }
}
