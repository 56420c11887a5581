//! What a run produced, in the shape the reports need. Plain data: the runner
//! fills it, the report crate renders it, nothing here does I/O.

use crate::{
    DepthDist, DiskUtil, HelperCpu, LatencyBuckets, LatencyHistogram, Notice, Summary, ThreadCpu,
};

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
    /// Where the process's CPU went.
    pub cpu: CpuAccounting,
    /// Why the run failed outside its jobs (the trigger's command could
    /// not run); the jobs are still reported.
    pub aborted: Option<String>,
    /// The workers (numjobs clones each) that ended with an error, those of
    /// `stats=0` jobs too: fio's exit status counts them.
    pub failed_workers: u32,
    /// The signal (SIGINT, SIGTERM) that stopped the run early; the jobs
    /// report what they did until then.
    pub interrupted: Option<i32>,
    /// What the user should know beside the numbers, in the order found.
    pub notices: Vec<Notice>,
    /// What each worker recorded for the logs its job asked for
    /// (`write_bw_log` and its family), to be written out.
    pub logs: Vec<crate::WorkerLogs>,
    /// fio's aggregate bandwidth log (`--bandwidth-log`), when asked for.
    pub agg_bw: Option<crate::AggBwLog>,
    /// `--idle-prof=system|percpu`: how idle the CPUs stayed.
    pub idleness: Option<crate::Idleness>,
    /// `--profile=act`: the latency slices of every worker, summed slice
    /// by slice, for the profile's table.
    pub act: Option<Vec<crate::ActSlice>>,
}

/// The process's CPU over the run, split into what the reports attribute
/// and what is left (the main thread, the status line, setup and layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuAccounting {
    /// getrusage(RUSAGE_SELF) over the run: every thread, helpers included.
    pub process: ThreadCpu,
    /// User plus system time of the worker threads.
    pub workers_ns: u64,
    /// io_uring helper threads (SQ polling, io-wq).
    pub helpers: HelperCpu,
}

impl CpuAccounting {
    /// Process CPU not charged to a worker or a helper.
    pub fn other_ns(&self) -> u64 {
        (self.process.user_ns + self.process.sys_ns)
            .saturating_sub(self.workers_ns + self.helpers.total_ns())
    }
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
    /// For `ioengine=xnvme`: the ioscope engine that ran the job, and the
    /// xNVMe interfaces that chose it.
    pub xnvme: Option<XnvmeRan>,
    /// The job's `latency_target`, `latency_window` and
    /// `latency_percentile`; None (a result not made from a job) reports
    /// fio's defaults (no target, the 100th percentile, the job's iodepth).
    pub latency_profile: Option<LatencyProfile>,
}

/// What fio's "latency" report line and JSON keys say of a job with a
/// `latency_target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyProfile {
    pub target_ns: u64,
    pub window_us: u64,
    pub percentile: f64,
    /// The queue depth the search ended at (fio's `latency_qd`).
    pub depth: u32,
}

/// What ran an `ioengine=xnvme` job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XnvmeRan {
    /// The ioengine name of the backend (`io_uring`).
    pub backend: String,
    /// The interfaces that named it (`xnvme_async=emu, xnvme_sync=psync`).
    pub interfaces: String,
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
    /// Completion latency (total latency with `lat_percentiles`) per I/O
    /// priority, when the job chose priorities per I/O (fio's clat_prio:
    /// cmdprio options); the job's own priority first. Empty otherwise.
    pub prios: Vec<PrioLat>,
}

/// The latencies of the I/Os sent at one priority.
#[derive(Clone, Debug, Default)]
pub struct PrioLat {
    /// class << 13 | hint << 3 | level, as ioprio_set takes it.
    pub ioprio: u16,
    pub lat: LatencyStat,
}

impl PrioLat {
    /// The priority class (fio's ioprio_class).
    pub fn class(&self) -> u16 {
        self.ioprio >> 13
    }

    /// The priority level, 0..=7 (fio's ioprio).
    pub fn level(&self) -> u16 {
        self.ioprio & 7
    }

    /// The priority hint, 0..=1023 (fio 3.36's ioprio_hint).
    pub fn hint(&self) -> u16 {
        (self.ioprio >> 3) & 0x3ff
    }
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
    /// continue_on_error was set: the report carries the next two.
    pub continue_on_error: bool,
    /// Errors the job went on after, and the errno of the first.
    pub total_err: u64,
    pub first_error: i32,
    /// A group's reported error, set as members merge (fio's `ts->error`:
    /// the first member's with one); None for a lone job, whose
    /// [`JobResult::reported_error`] follows from the fields above.
    pub group_error: Option<i32>,
    /// Blocks read back and checked, and how many were bad, when the job
    /// verifies.
    pub verify: Option<(u64, u64)>,
    /// Faults the `faulty` engine injected, when the job uses it.
    pub faults_injected: Option<u64>,
    /// Zones reset by `zonemode=zbd` (fio's `nr_zone_resets`).
    pub zone_resets: u64,
    /// Failed writes whose zone's write pointer recover_zbd_write_error
    /// could not move: the file's path and why, one each.
    pub zone_unrecovered: Vec<(String, String)>,
    /// Milliseconds from start to finish of the job, ramp time excluded.
    pub runtime_ms: u64,
    /// Milliseconds from start to finish, ramp time included.
    pub elapsed_ms: u64,
    /// When the measured period began, in ms since the Unix epoch (fio's
    /// job_start: CLOCK_REALTIME when the stats were last reset). A group
    /// keeps its first member's, as fio does.
    pub job_start_ms: u64,
    /// [read, write, trim].
    pub dirs: [DirResult; 3],
    pub sync: SyncResult,
    /// CPU of the worker threads over the measured period.
    pub cpu: ThreadCpu,
    /// CPU of the io_uring helper threads serving the workers' rings.
    pub helper_cpu: HelperCpu,
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
    /// The thread id of the job's (group's first) worker, which fio prints
    /// as `pid=`; 0 when unknown (then the process's).
    pub pid: i32,
    /// Steady-state detection's record, when the job looked for it.
    pub steadystate: Option<crate::SteadyStateResult>,
    /// fio's unified_rw_reporting: 0 each direction, 1 the directions
    /// folded into `dirs[0]` and reported as "mixed", 2 each direction and
    /// then their sum as "mixed".
    pub unified_rw: u8,
    /// `significant_figures` of the normal output; 0 for fio's 4.
    pub sig_figs: u8,
    /// `unit_base=1`: rates in bits per second rather than bytes.
    pub unit_bits: bool,
    /// `block_error_percentiles`' trims per block of the job's file.
    pub block_life: Option<crate::BlockLife>,
}

impl LatencyStat {
    /// Combines the same latency of two jobs (fio's sum_stat for the
    /// summary, bucket-wise addition for the histograms).
    pub fn merge(&mut self, other: &LatencyStat) {
        self.summary.merge(&other.summary);
        match (&mut self.histogram, &other.histogram) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.histogram = Some(theirs.clone()),
            (_, None) => {}
        }
    }
}

impl DirResult {
    /// Combines one direction of two jobs that ran side by side, as fio's
    /// sum_thread_stats does: counts add, latencies merge as samples,
    /// bandwidth and IOPS samples add up (the jobs' rates add), and the
    /// runtime is the longest.
    pub fn merge(&mut self, other: &DirResult) {
        self.io_bytes += other.io_bytes;
        self.total_ios += other.total_ios;
        self.short_ios += other.short_ios;
        self.drop_ios += other.drop_ios;
        self.runtime_ms = self.runtime_ms.max(other.runtime_ms);
        self.slat.merge(&other.slat);
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        self.bw.sum(&other.bw);
        self.iops.sum(&other.iops);
        // fio's sum_clat_prio_stats: the samples of one priority add up,
        // whichever member sent them. (A member without per-I/O
        // priorities adds none here, where fio would file all its samples
        // under its job priority: ioscope keeps no list for such a job.)
        for p in &other.prios {
            match self.prios.iter_mut().find(|m| m.ioprio == p.ioprio) {
                Some(mine) => mine.lat.merge(&p.lat),
                None => self.prios.push(p.clone()),
            }
        }
    }
}

impl JobResult {
    /// The directions summed into one, as fio's gen_mixed_ddir_stats_from_ts
    /// sums read, write and trim (in that order) into a fresh direction.
    pub fn mixed_dir(&self) -> DirResult {
        let mut mixed = DirResult::default();
        for d in &self.dirs {
            mixed.merge(d);
        }
        mixed
    }

    /// unified_rw_reporting=mixed: every direction's figures, issued
    /// counts included, move into the first (fio's sum_thread_stats into a
    /// UNIFIED_MIXED thread_stat).
    pub fn fold_directions(&mut self) {
        let mixed = self.mixed_dir();
        self.dirs = [mixed, DirResult::default(), DirResult::default()];
        for counts in [&mut self.issued, &mut self.short, &mut self.dropped] {
            *counts = [counts.iter().sum(), 0, 0];
        }
    }

    /// Folds another member of the same group into this one (numjobs
    /// clones under group_reporting), following fio's sum_thread_stats.
    ///
    /// `self` keeps its header (name, group, pid, units): start from the
    /// first member's result and merge the others into it, in job order.
    /// The job options and percentile settings are the last member's, as
    /// fio's `__show_run_stats` takes them from each member in turn.
    /// The error the reports give (fio's `ts->error`): the job's own, or,
    /// when continue_on_error carried it past every error, the first of
    /// them (fio's stat.c). Only the job's own fails the exit status, as
    /// in fio.
    pub fn reported_error(&self) -> i32 {
        match self.group_error {
            Some(e) => e,
            None if self.error == 0 && self.continue_on_error => self.first_error,
            None => self.error,
        }
    }

    /// As in fio, `runtime_ms` adds up (it is the CPU-percentage divisor for
    /// the summed CPU times) while each direction keeps its longest runtime.
    pub fn merge(&mut self, other: &JobResult) {
        self.total_err += other.total_err;
        // fio's group copies each member's block counts over the last.
        self.block_life = other.block_life.clone();
        // fio's group takes each member's record in turn: the last one
        // (which holds the group's samples) stays.
        if other.steadystate.is_some() {
            self.steadystate = other.steadystate.clone();
        }
        self.zone_resets += other.zone_resets;
        self.zone_unrecovered
            .extend(other.zone_unrecovered.iter().cloned());
        self.faults_injected = match (self.faults_injected, other.faults_injected) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.verify = match (self.verify, other.verify) {
            (Some(a), Some(b)) => Some((a.0 + b.0, a.1 + b.1)),
            (a, b) => a.or(b),
        };
        self.job_options.clone_from(&other.job_options);
        self.percentile_list.clone_from(&other.percentile_list);
        self.clat_percentiles = other.clat_percentiles;
        self.lat_percentiles = other.lat_percentiles;
        self.slat_percentiles = other.slat_percentiles;
        // fio's group reports the first member's error and the last
        // member's first_error and continue_on_error, even when those are
        // 0 or off; the members' own errors still decide the exit status.
        let reported = self.reported_error();
        self.group_error = Some(match reported {
            0 => other.reported_error(),
            e => e,
        });
        self.first_error = other.first_error;
        self.continue_on_error = other.continue_on_error;
        if self.error == 0 {
            self.error = other.error;
        }
        self.runtime_ms += other.runtime_ms;
        self.elapsed_ms = self.elapsed_ms.max(other.elapsed_ms);
        for (mine, theirs) in self.dirs.iter_mut().zip(other.dirs.iter()) {
            mine.merge(theirs);
        }
        self.sync.total_ios += other.sync.total_ios;
        self.sync.lat.merge(&other.sync.lat);
        // fio sums each member's CPU time in whole milliseconds; cutting
        // both sides keeps that true however many members were folded in.
        self.cpu = self.cpu.whole_ms();
        self.cpu.add(&other.cpu.whole_ms());
        self.helper_cpu.add(&other.helper_cpu);
        self.depth.merge(&other.depth);
        self.submit.merge(&other.submit);
        self.complete.merge(&other.complete);
        for k in 0..3 {
            self.issued[k] += other.issued[k];
            self.short[k] += other.short[k];
            self.dropped[k] += other.dropped[k];
        }
        self.lat_buckets.merge(&other.lat_buckets);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(lat_ns: &[u64], bw: u64, runtime_ms: u64) -> JobResult {
        let mut job = JobResult {
            runtime_ms,
            elapsed_ms: runtime_ms + 5,
            ..Default::default()
        };
        let read = &mut job.dirs[0];
        read.clat.histogram = Some(LatencyHistogram::new());
        for &ns in lat_ns {
            read.clat.summary.add(ns);
            read.clat.histogram.as_mut().unwrap().add(ns);
            job.lat_buckets.add(ns);
        }
        read.total_ios = lat_ns.len() as u64;
        read.io_bytes = 4096 * lat_ns.len() as u64;
        read.runtime_ms = runtime_ms;
        read.bw.add(bw);
        job.depth.add_depth(1, lat_ns.len() as u64);
        job.issued[0] = lat_ns.len() as u64;
        job.cpu.user_ns = 1_500_000;
        job.helper_cpu.sqpoll_ns = 7_000;
        job
    }

    #[test]
    fn merge_sums_counts_and_combines_latencies() {
        let mut a = member(&[100, 200, 300], 1000, 1000);
        a.header.name = "first".into();
        let mut b = member(&[400, 50_000], 3000, 1200);
        b.error = 5;
        b.header.name = "second".into();
        a.merge(&b);

        assert_eq!(a.header.name, "first");
        assert_eq!(a.error, 5);
        assert_eq!((a.runtime_ms, a.elapsed_ms), (2200, 1205));
        let read = &a.dirs[0];
        assert_eq!(
            (read.total_ios, read.io_bytes, read.runtime_ms),
            (5, 5 * 4096, 1200)
        );
        assert_eq!(
            (
                read.clat.summary.samples,
                read.clat.summary.min,
                read.clat.summary.max
            ),
            (5, 100, 50_000)
        );
        assert_eq!(read.clat.histogram.as_ref().unwrap().count(), 5);
        // Rates of side-by-side jobs add up.
        assert_eq!((read.bw.samples, read.bw.min, read.bw.max), (2, 4000, 4000));
        assert_eq!(a.depth.counts[0], 5);
        assert_eq!(a.issued[0], 5);
        assert_eq!(a.lat_buckets.total(), 5);
        // Helper threads of both members count (they were lost once).
        assert_eq!(a.helper_cpu.sqpoll_ns, 2 * 7_000);
        // Each member's 1.5 ms counts as fio's 1 ms.
        assert_eq!(a.cpu.user_ns, 2_000_000);
    }

    #[test]
    fn histogram_appears_when_only_the_other_side_has_one() {
        let mut a = JobResult::default();
        let b = member(&[7], 1, 1);
        a.merge(&b);
        assert_eq!(a.dirs[0].clat.histogram.as_ref().unwrap().count(), 1);
        assert!(a.dirs[1].clat.histogram.is_none());
    }
}
