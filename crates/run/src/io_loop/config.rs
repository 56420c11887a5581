//! What the loop is told: the knobs resolved from the job, and which
//! latencies it measures.

use ioscope_engine::Op;
use ioscope_job::ErrorPolicy;
use ioscope_stats::{BlockLife, LogPlan};

/// Which latencies to measure and which get histograms.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tracking {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub slat_hist: bool,
    pub clat_hist: bool,
    pub lat_hist: bool,
}

impl Tracking {
    #[inline]
    pub(super) fn any(&self) -> bool {
        self.slat || self.clat || self.lat
    }
}

/// The knobs of the loop, resolved from the job.
#[derive(Clone, Debug)]
pub(crate) struct LoopConfig {
    pub depth: u32,
    pub batch_submit: u32,
    pub complete_min: u32,
    pub complete_max: u32,
    pub depth_low: u32,
    /// fsync= and fdatasync=: the syncs after so many writes.
    pub syncs: super::syncs::SyncEvery,
    /// What a write becomes: Write, or a command without data (NVMe Write
    /// Zeroes with io_uring_cmd's write_mode=zeroes).
    pub write_op: Op,
    /// `num_range`: above 1, a trim goes out with the workload's next
    /// trims as one request of up to this many ranges ([`Op::TrimRanges`]).
    pub trim_ranges: u16,
    /// Some request moves data, so the buffers are filled once at the
    /// start. A job whose commands carry no data leaves them untouched.
    pub data_buffers: bool,
    pub tracking: Tracking,
    /// Ramp and run durations in clock ticks; `runtime` None means size-bound.
    pub ramp_ticks: u64,
    pub runtime_ticks: Option<u64>,
    /// Intervals of the bandwidth and IOPS samples, in ms.
    pub sample_ms: (u64, u64),
    /// What the job's logs need recorded.
    pub logs: LogPlan,
    /// The rate samples are kept, for averaged bandwidth or IOPS logs.
    pub keep_rate_samples: bool,
    /// Which errors the job counts and goes on after.
    pub errors: ErrorPolicy,
    /// `error_dump`: the errors the job goes on after are kept to be
    /// printed.
    pub error_dump: bool,
    /// verify_async: threads that check blocks read back; 0 checks them
    /// in the worker.
    pub verify_async: u32,
    /// verify_async_cpus: the checkers' CPUs; empty for the worker's.
    pub verify_async_cpus: Vec<u32>,
    /// serialize_overlap: an I/O waits for the in-flight ones it overlaps.
    pub serialize_overlap: bool,
    /// A replay that follows its log's times (read_iolog without
    /// replay_no_stall).
    pub replay_paced: bool,
    /// `max_latency` per direction in ns; 0 for no limit.
    pub max_latency_ns: [u64; 3],
    /// `latency_target`'s queue-depth search; None without a target.
    pub latency_target: Option<super::latency_target::Params>,
    /// The engine times an operation of its own, not the requests (fio's
    /// file engines); None for every other engine.
    pub engine_timed: Option<super::engine_timed::EngineTimed>,
    /// `block_error_percentiles`: the job's file in trim blocks, none
    /// trimmed yet; each run of the loop counts into a copy.
    pub block_life: Option<BlockLife>,
    /// How each pass's I/O ends (`end_fsync`, `fsync_on_close`,
    /// `end_syncfs` of a job that writes); None for no sync.
    pub end_sync: Option<super::EndSync>,
    /// `fsync_on_close` of a job that writes: a file the workload finds
    /// done is fsynced as it closes (fio's `put_file`), besides the
    /// pass's end sync.
    pub close_fsync: bool,
    /// `--profile=act`: the latencies are counted into act's slices too.
    pub act: Option<ioscope_job::ActProfile>,
    /// Steady state judges latency (`ss=lat`): the completion latencies
    /// are summed and counted where its sampler reads them
    /// ([`crate::progress::WorkerProgress::clat`]).
    pub clat_sums: bool,
}
