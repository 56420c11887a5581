//! The runner: jobs become workers, workers drive a queue, results come back.
//!
//! [`run`] takes parsed jobs, lays out their files group by group (a
//! `stonewall` starts a new serialised phase), starts one thread per worker,
//! and returns a [`RunResult`] for the reports. It writes nothing to stdout
//! except the optional progress line and fio's "Laying out" notices, both only
//! when asked.

mod affinity;
mod collect;
mod disks;
mod error;
mod files;
mod io_loop;
mod phases;
mod progress;
mod signal;
mod start_gate;
mod verify;
mod verify_async;
mod worker;

pub use error::RunError;
pub use phases::headers;
pub use progress::Eta;

use ioscope_job::Parsed;
use ioscope_stats::RunResult;

/// How a run reports while it runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The live status line (fio's `--eta`).
    pub eta: Eta,
    /// Print fio's "Laying out IO file" notices (normal output only).
    pub notices: bool,
    /// stdout carries a machine-read format (JSON): the status line, when
    /// asked for, goes to stderr, and `Eta::Auto` shows none.
    pub stdout_is_data: bool,
    /// fio's `--readonly`: every job that writes or trims is refused before
    /// any file is opened or laid out.
    pub readonly: bool,
}

/// Runs every job and returns what was measured.
pub fn run(parsed: &Parsed, options: &RunOptions) -> Result<RunResult, RunError> {
    if options.readonly {
        refuse_changes(parsed)?;
    }
    phases::run_all(parsed, options)
}

/// Writes a line about a job to stderr. `eprintln!` would panic when stderr
/// cannot take it (2>/dev/full); the run's exit status still tells then.
pub(crate) fn warn(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Under `--readonly`, the first job that would change a target, named with
/// what it does, as fio refuses it.
fn refuse_changes(parsed: &Parsed) -> Result<(), RunError> {
    for spec in &parsed.jobs {
        let kind = spec.rw.kind;
        if !files::changes_target(spec) {
            continue;
        }
        let does = match (kind.writes() && !spec.verify.only, kind.trims()) {
            // trim_percentage of a verify job.
            (false, false) => "trims",
            (true, false) => "writes",
            (false, true) => "trims",
            (true, true) => "trims and writes",
        };
        return Err(RunError::job(
            &spec.name,
            format!(
                "{does} (rw={}), but ioscope runs with --readonly",
                kind.name()
            ),
        ));
    }
    Ok(())
}
