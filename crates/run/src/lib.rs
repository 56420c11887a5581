//! The runner: jobs become workers, workers drive a queue, results come back.
//!
//! [`plan()`] works out what each parsed job needs and refuses, before any
//! file is opened, what cannot run (`--parse-only` stops there). [`run`]
//! takes the jobs and their plan, lays out their files group by group (a
//! `stonewall` starts a new serialised phase), starts one thread per worker,
//! and returns a [`RunResult`] for the reports. It writes nothing to stdout
//! except the optional progress line and fio's "Laying out" lines, both only
//! when asked. What the user should know beside the numbers (a fallback
//! taken, something not counted) comes back in [`RunResult::notices`] for
//! the reports to render; only the errors of a failed job go to stderr.

mod affinity;
mod agg_bw;
mod cgroup;
mod collect;
mod credentials;
mod disks;
pub mod doctor;
mod error;
mod exec_hooks;
mod file_lock;
mod file_setup;
mod file_tuning;
mod files;
mod fio_verify_state;
mod idle_prof;
mod io_loop;
mod job_control;
mod logs;
mod memory;
mod misc_checks;
mod net;
mod numa;
mod pacing;
mod phases;
mod plan;
mod priority;
mod progress;
mod ramp;
mod signal;
mod start_gate;
mod status;
mod steadystate;
mod trace;
mod trigger;
mod verify;
mod verify_async;
mod worker;
mod zones;

pub use affinity::pin_current_thread;
pub use collect::now_stamps;
pub use error::RunError;
pub use fio_verify_state::save_sent as save_sent_verify_state;
pub use idle_prof::{IdleProf, IdleProfiler};
pub use phases::headers;
pub use plan::{plan, JobPlan, Plan};
pub use progress::{EtaShow, EtaSink};
pub use trace::Trace;
pub use trigger::{Pull, Trigger};

use ioscope_job::Parsed;
use ioscope_stats::RunResult;
use std::time::Duration;

/// How a run reports while it runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Where the jobs' status goes while they run (fio's status line,
    /// a server's replies); None: it is not taken.
    pub eta: Option<EtaShow>,
    /// How often the status is taken (fio's `--eta-interval`).
    pub eta_interval: std::time::Duration,
    /// Where verify state and dump files go (fio's `--aux-path`); the
    /// current directory when None.
    pub aux_path: Option<std::path::PathBuf>,
    /// fio's local verification trigger.
    pub trigger: Trigger,
    /// Print fio's "Laying out IO file" lines (normal output only).
    pub layout_lines: bool,
    /// A report of the run so far every so often (fio's
    /// `--status-interval`).
    pub status_interval: Option<Duration>,
    /// fio's `--bandwidth-log[=NAME]`: the aggregate bandwidth log's
    /// prefix (`agg` by default).
    pub bandwidth_log: Option<String>,
    /// `--debug=file,io`: what is traced, and where the lines go.
    pub trace: Option<Trace>,
    /// fio's `--idle-prof`: measure how idle the CPUs stay.
    pub idle_prof: Option<IdleProf>,
}

/// Runs every job as `plan` (from [`plan()`] of the same jobs) says and
/// returns what was measured. `report` gets a report of the run so far
/// every `options.status_interval`, and whenever the process gets SIGUSR1
/// (fio's reports while it runs), from another thread.
pub fn run(
    parsed: &Parsed,
    plan: &Plan,
    options: &RunOptions,
    report: &mut (dyn FnMut(&RunResult) + Send),
) -> Result<RunResult, RunError> {
    phases::run_all(parsed, plan, options, report)
}

/// Writes an error of a failed job to stderr, as fio does (the notices go
/// into the result instead). `eprintln!` would panic when stderr
/// cannot take it (2>/dev/full); the run's exit status still tells then.
pub(crate) fn warn(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
