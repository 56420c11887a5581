//! Measurement: the clock, latency histograms with fio's bucket scheme,
//! running summaries, interval sampling of bandwidth and IOPS, per-thread CPU,
//! io_uring's helper threads and punts, disk statistics, and the result types
//! the reports render, notices included.

mod act;
mod agg_bw;
mod block_life;
mod clock;
mod cpu;
mod depth;
mod diskstats;
mod helpers;
mod hist_log;
mod histogram;
mod idleness;
mod io_log;
mod jobs_eta;
mod lat_buckets;
mod log_window;
mod moments;
mod notice;
mod percentile;
mod punts;
mod rate;
mod result;
mod steady_state;
mod summary;

pub use act::{ActSlice, ActSlices, ACT_CRITERIA, ACT_SLICE_NS};
pub use agg_bw::{AggBwLog, AggBwSample, AggBwSampler};
pub use block_life::{BlockLife, STATE_NAMES as BLOCK_STATE_NAMES};
pub use clock::{tsc_reader, Clock, ClockSource};
pub use cpu::ThreadCpu;
pub use depth::DepthDist;
pub use diskstats::{DiskSnapshot, DiskUtil};
pub use helpers::{
    current_tid, parse_helper_name, process_cpu, HelperCpu, HelperKind, HelperTracker,
};
pub use hist_log::{HistLine, HistLog};
pub use histogram::{bucket_index, bucket_value, LatencyHistogram, PLAT_NR};
pub use idleness::Idleness;
pub use io_log::{Chunked, IoRecord, LatLogs, LogFiles, LogPlan, LogRecorder, WorkerLogs};
pub use jobs_eta::{condensed, JobsEta, ETA_UNKNOWN, UNIT_BITS, UNIT_BYTES};
pub use lat_buckets::LatencyBuckets;
pub use log_window::{LogWindows, WindowLine};
pub use moments::Moments;
pub use notice::Notice;
pub use punts::{PuntCounter, PuntTally, Punts, PuntsUncounted};
pub use rate::RateSampler;
pub use result::{
    CpuAccounting, DirResult, JobHeader, JobResult, LatencyProfile, LatencyStat, PrioLat,
    RunResult, SyncResult, XnvmeRan,
};
pub use steady_state::SteadyStateResult;
pub use summary::Summary;
