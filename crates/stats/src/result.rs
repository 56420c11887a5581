//! What a run produced, in the shape the reports need. Plain data: the runner
//! fills it, the report crate renders it, nothing here does I/O.

use crate::{DepthDist, DiskUtil, LatencyBuckets, LatencyHistogram, Summary, ThreadCpu};

/// Everything one invocation measured.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Seconds since the epoch when the run ended.
    pub timestamp: i64,
    pub timestamp_ms: i64,
    /// ctime-style local time when the run ended, as fio prints it.
    pub time: String,
    /// Options of `[global]` sections and command-line globals, as written.
    pub global_options: Vec<(String, String)>,
    /// One entry per reported job (numjobs clones merged when
    /// `group_reporting` is set), in job order.
    pub jobs: Vec<JobResult>,
    /// Block devices the jobs used.
    pub disks: Vec<DiskUtil>,
    /// Kibibyte base used for unit printing (1024, or 1000 with kb_base=1000).
    pub kb_base: u32,
}

/// The static description of a job, for the header lines.
#[derive(Clone, Debug, Default)]
pub struct JobHeader {
    pub name: String,
    pub description: Option<String>,
    pub groupid: u32,
    /// fio's rw name: "read", "randrw", ...
    pub rw: String,
    /// (min, max) block size per direction: read, write, trim.
    pub bs: [(u64, u64); 3],
    pub ioengine: String,
    pub iodepth: u32,
    /// Worker processes/threads this result stands for.
    pub numjobs: u32,
    pub thread: bool,
}

/// Latency of one kind (slat, clat or lat) for one direction, in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct LatencyStat {
    pub summary: Summary,
    /// Present when percentiles are reported for this kind.
    pub histogram: Option<LatencyHistogram>,
}

/// One direction (read, write or trim) of one job.
#[derive(Clone, Debug, Default)]
pub struct DirResult {
    pub io_bytes: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// Milliseconds this direction was active (the job's runtime when it did any I/O).
    pub runtime_ms: u64,
    pub slat: LatencyStat,
    pub clat: LatencyStat,
    pub lat: LatencyStat,
    /// Bandwidth samples in KiB/s, one per sampling interval.
    pub bw: Summary,
    /// IOPS samples, one per sampling interval.
    pub iops: Summary,
}

/// fsync calls of one job (fio's "sync" object).
#[derive(Clone, Debug, Default)]
pub struct SyncResult {
    pub total_ios: u64,
    pub lat: LatencyStat,
}

/// One reported job.
#[derive(Clone, Debug, Default)]
pub struct JobResult {
    pub header: JobHeader,
    /// Options set in the job's own section, as written.
    pub job_options: Vec<(String, String)>,
    /// First error seen (errno), 0 when none.
    pub error: i32,
    /// Milliseconds from start to finish of the job, ramp time excluded.
    pub runtime_ms: u64,
    /// Milliseconds from start to finish, ramp time included.
    pub elapsed_ms: u64,
    /// [read, write, trim].
    pub dirs: [DirResult; 3],
    pub sync: SyncResult,
    /// CPU of the worker threads over the measured period.
    pub cpu: ThreadCpu,
    /// Requests in flight when each request was issued.
    pub depth: DepthDist,
    /// Requests sent per submit call.
    pub submit: DepthDist,
    /// Requests reaped per reap call.
    pub complete: DepthDist,
    /// Issued requests per direction: [read, write, trim].
    pub issued: [u64; 3],
    pub short: [u64; 3],
    pub dropped: [u64; 3],
    /// Coarse latency buckets over all directions (fio's lat (usec): lines).
    pub lat_buckets: LatencyBuckets,
    /// Percentiles to print, in percent (fio's percentile_list).
    pub percentile_list: Vec<f64>,
    /// Which latencies carry percentiles.
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
}
