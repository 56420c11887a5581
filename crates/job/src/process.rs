//! Job control and the worker's process settings: when a job starts and
//! stops beside the others (`wait_for`, `exit_what`, `exitall_on_error`,
//! steady state), the commands run around it (`exec_prerun`,
//! `exec_postrun`) and the CPU and I/O priority its worker runs at
//! (`nice`, `prio`, `prioclass`).

use std::time::Duration;

/// fio's `exit_what`: which jobs a finishing job stops when `exitall` (of
/// any job: fio's flag is global) or `exitall_on_error` applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitWhat {
    /// `group` (fio's default): the jobs of the finishing job's reporting
    /// group, those still to start included.
    Group,
    /// `stonewall`: the jobs running now; the next stonewall's start.
    Stonewall,
    /// `all`: every job, those still to come included.
    All,
}

/// What steady state is judged on (fio's `ss=` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteadyMetric {
    Iops,
    Bw,
    /// fio 3.42's `lat`: the mean completion latency of each interval's
    /// I/Os, in ns.
    Lat,
}

impl SteadyMetric {
    /// The name in fio's `ss=` values, its JSON and its normal line.
    pub fn name(self) -> &'static str {
        match self {
            SteadyMetric::Iops => "iops",
            SteadyMetric::Bw => "bw",
            SteadyMetric::Lat => "lat",
        }
    }
}

/// `steadystate` (alias `ss`), `ss_dur`, `ss_ramp`, `ss_interval`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyStateSpec {
    pub metric: SteadyMetric,
    /// `_slope`: the slope of the samples is judged, not their deviation
    /// from their mean.
    pub slope: bool,
    /// The limit, as written after `:`.
    pub limit: f64,
    /// The limit is a percentage of the mean (`:N%`).
    pub percent: bool,
    /// `ss_dur`, in whole seconds as fio keeps it (it divides the time by
    /// one second): the number of 1 s samples judged. 0 turns detection off.
    pub duration_s: u64,
    /// `ss_ramp`: no samples are taken until this long (plus one
    /// interval, as fio does) after the worker started.
    pub ramp: Duration,
    /// `ss_interval` (fio 3.34's `steadystate_check_interval`), in ms,
    /// default 1000: a sample is taken this often, and `ss_dur` holds
    /// `duration_s` / its whole seconds of them.
    pub interval_ms: u64,
}

impl SteadyStateSpec {
    /// Whether the job looks for steady state at all (fio: `ss_dur` > 0).
    pub fn enabled(&self) -> bool {
        self.duration_s > 0
    }

    /// The samples judged: fio's `intervals`, ss_dur over the interval's
    /// whole seconds (at least 1 when the spec passed its checks).
    pub fn intervals(&self) -> u64 {
        self.duration_s
            .checked_div(self.interval_ms / 1000)
            .unwrap_or(0)
    }

    /// fio's `ss` string in its JSON: `iops_slope:0.010000%`.
    pub fn describe(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            self.metric.name(),
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.percent { "%" } else { "" }
        )
    }
}

/// A NUMA node set as libnuma's numa_parse_nodestring reads it (the
/// forms ioscope takes: `all`, or numbers and ranges: `0-1,3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumaNodes {
    /// Every node (with memory, for a memory policy).
    All,
    List(Vec<u32>),
}

/// `numa_mem_policy`: the memory policy of the worker's thread
/// (set_mempolicy), as fio's modes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemPolicy {
    Default,
    /// `prefer:N`: one node.
    Prefer(u32),
    Bind(NumaNodes),
    /// `interleave[:nodes]`: every node with memory when none are given.
    Interleave(NumaNodes),
    Local,
}

/// The job-control and process options (fio's names in each field's doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessSpec {
    /// `wait_for`: the job starts once every worker of the named job (an
    /// earlier one) has finished.
    pub wait_for: Option<String>,
    /// `exitall_on_error`: a worker that ends with an error stops the jobs
    /// `exit_what` names.
    pub exitall_on_error: bool,
    /// `exit_what`, default group.
    pub exit_what: ExitWhat,
    /// `steadystate` and its duration and ramp.
    pub steadystate: SteadyStateSpec,
    /// `comm` (fio 3.42): the worker thread's name (prctl PR_SET_NAME),
    /// which ps and top show; the kernel keeps its first 15 bytes.
    pub comm: Option<String>,
    /// `exec_prerun`: a shell command run by the worker before its I/O,
    /// its output in `<job>.prerun.txt`.
    pub exec_prerun: Option<String>,
    /// `exec_postrun`: the same after its I/O, output in `<job>.postrun.txt`.
    pub exec_postrun: Option<String>,
    /// `nice`, -20..=19, default 0.
    pub nice: i32,
    /// `prio`: the I/O priority level 0..=7; None when not set.
    pub prio: Option<u32>,
    /// `prioclass`: the I/O priority class 0..=3; None when not set.
    pub prioclass: Option<u32>,
    /// `priohint` (fio 3.36): the I/O priority hint 0..=1023; None when
    /// not set.
    pub priohint: Option<u32>,
    /// `numa_cpu_nodes`: the worker runs on these nodes' CPUs (replacing
    /// `cpus_allowed`, as libnuma's numa_run_on_node_mask does in fio).
    pub numa_cpu_nodes: Option<NumaNodes>,
    /// `numa_mem_policy`; None when not set.
    pub numa_mem_policy: Option<MemPolicy>,
    /// `uid` and `gid`: the user and group the job runs as; None when not
    /// set (fio's -1).
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// `cgroup`: the group (under the blkio v1 or the cgroup2 hierarchy)
    /// the job runs in, created if missing; None when not set.
    pub cgroup: Option<String>,
    /// `cgroup_weight`, 100..=1000: the group's blkio.weight; None when
    /// not set (fio's 0).
    pub cgroup_weight: Option<u32>,
    /// `cgroup_nodelete`: a group this job created is left after the run.
    pub cgroup_nodelete: bool,
}

impl ProcessSpec {
    /// Every field zero or off, before the option table's defaults apply.
    pub(crate) fn blank() -> ProcessSpec {
        ProcessSpec {
            wait_for: None,
            exitall_on_error: false,
            exit_what: ExitWhat::Group,
            steadystate: SteadyStateSpec {
                metric: SteadyMetric::Iops,
                slope: false,
                limit: 0.0,
                percent: false,
                duration_s: 0,
                ramp: Duration::ZERO,
                interval_ms: 1000,
            },
            comm: None,
            exec_prerun: None,
            exec_postrun: None,
            nice: 0,
            prio: None,
            prioclass: None,
            priohint: None,
            numa_cpu_nodes: None,
            numa_mem_policy: None,
            uid: None,
            gid: None,
            cgroup: None,
            cgroup_weight: None,
            cgroup_nodelete: false,
        }
    }
}
