//! How a job paces its I/O: rate caps and floors, think time, a count of
//! I/Os, flows shared between jobs, and latency limits (fio's "Rate",
//! "Thinktime", "I/O flow" and "Latency" options; each field's doc names
//! the fio option).

use std::time::Duration;

use crate::spec::PerDir;

/// fio's `rate_process`: how the issue times of a rated job are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateProcess {
    /// Evenly: I/O number n is due when n blocks' worth of the rate has
    /// passed.
    #[default]
    Linear,
    /// Exponentially distributed gaps, averaging the rate (fio's
    /// `poisson`).
    Poisson,
}

/// fio's `thinktime_blocks_type`: what `thinktime_blocks` counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThinkBlocks {
    /// Completed I/Os (fio's default).
    #[default]
    Complete,
    /// Issued I/Os.
    Issue,
}

/// fio's `io_submit_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SubmitMode {
    #[default]
    Inline,
    /// fio hands submission to a pool of threads so that a rated job
    /// issues on time whatever its completions do. ioscope issues from the
    /// worker, but a rated job no longer waits for its in-flight I/O to
    /// complete before sleeping until its next I/O is due: the same
    /// schedule, without the threads (see docs/pacing.md).
    Offload,
}

/// The pacing options. All off by default, as in fio.
#[derive(Clone, Debug, PartialEq)]
pub struct PacingSpec {
    /// `rate`: bytes per second per direction; 0 for no cap.
    pub rate: PerDir<u64>,
    /// `rate_iops`: I/Os per second per direction (of the smallest block
    /// size, as fio); 0 for no cap. `rate` wins where both are set.
    pub rate_iops: PerDir<u64>,
    /// `rate_min` (alias `ratemin`): bytes per second a direction must
    /// reach, checked every `rate_cycle`; 0 for no floor.
    pub rate_min: PerDir<u64>,
    /// `rate_iops_min`: the same in I/Os per second.
    pub rate_iops_min: PerDir<u64>,
    /// `rate_cycle` (alias `ratecycle`): the window of the floor check,
    /// default 1000 ms.
    pub rate_cycle_ms: u64,
    /// `rate_process`, default linear.
    pub rate_process: RateProcess,
    /// `rate_ignore_thinktime`: the time spent thinking counts as issued
    /// at the rate, so the job does not catch up after a think.
    pub rate_ignore_thinktime: bool,
    /// `thinktime`: a stall after every `thinktime_blocks` I/Os.
    pub thinktime: Duration,
    /// `thinkcycles` (fio 3.37): busy-wait instructions (x86 `pause`,
    /// fio's `nop`) after every read, write or trim, before any
    /// `thinktime`.
    pub thinkcycles: u32,
    /// `thinktime_spin`: the first part of the stall, spent spinning.
    pub thinktime_spin: Duration,
    /// `thinktime_blocks`; None when not written, which counts as 1 but
    /// also tells `thinktime_iotime` to stall on time only (as fio).
    pub thinktime_blocks: Option<u64>,
    /// `thinktime_blocks_type`, default complete.
    pub thinktime_blocks_type: ThinkBlocks,
    /// `thinktime_iotime`: stall after this much time of I/O instead.
    pub thinktime_iotime: Duration,
    /// `number_ios`: stop after this many I/Os (per loop); 0 for no limit.
    pub number_ios: u64,
    /// `io_submit_mode`, default inline.
    pub submit_mode: SubmitMode,
    /// `flow`: this job's weight among the jobs of its `flow_id`; 0 for no
    /// flow control.
    pub flow: u32,
    /// `flow_id`, default 0.
    pub flow_id: u32,
    /// `flow_sleep`: how long a job ahead of its share sleeps.
    pub flow_sleep: Duration,
    /// `max_latency` per direction: a longer I/O fails the job
    /// (ETIMEDOUT); zero for no limit.
    pub max_latency: PerDir<Duration>,
    /// `latency_target`: the queue depth is searched for the deepest that
    /// keeps `latency_percentile` of I/Os under this; zero for none.
    pub latency_target: Duration,
    /// `latency_window`: how long each depth is tried.
    pub latency_window: Duration,
    /// `latency_percentile`, default 100.
    pub latency_percentile: f64,
    /// `latency_run`: keep searching for the whole run instead of settling.
    pub latency_run: bool,
}

impl PacingSpec {
    /// Nothing set: what a blank job starts from before the defaults.
    pub fn blank() -> PacingSpec {
        PacingSpec {
            rate: PerDir::all(0),
            rate_iops: PerDir::all(0),
            rate_min: PerDir::all(0),
            rate_iops_min: PerDir::all(0),
            rate_cycle_ms: 0,
            rate_process: RateProcess::Linear,
            rate_ignore_thinktime: false,
            thinktime: Duration::ZERO,
            thinkcycles: 0,
            thinktime_spin: Duration::ZERO,
            thinktime_blocks: None,
            thinktime_blocks_type: ThinkBlocks::Complete,
            thinktime_iotime: Duration::ZERO,
            number_ios: 0,
            submit_mode: SubmitMode::Inline,
            flow: 0,
            flow_id: 0,
            flow_sleep: Duration::ZERO,
            max_latency: PerDir::all(Duration::ZERO),
            latency_target: Duration::ZERO,
            latency_window: Duration::ZERO,
            latency_percentile: 0.0,
            latency_run: false,
        }
    }

    /// Whether any direction is rate-capped.
    pub fn rated(&self) -> bool {
        [&self.rate, &self.rate_iops]
            .iter()
            .any(|r| r.read + r.write + r.trim > 0)
    }
}
