//! Running jobs in this process, one after another, for compare and
//! sweep alike: every job is parsed and planned before the first runs (so
//! a mistake in the last configuration is refused before any time is
//! spent), then they run in interleaved rounds (A B C A B C ...) so that
//! a drift in the machine spreads over all of them alike.

use std::io::{IsTerminal, Write};

use anyhow::{bail, Context};
use ioscope_job::{ParseInput, Parsed};
use ioscope_report::compare::RunMetrics;
use ioscope_report::Format;
use ioscope_run::{Plan, RunOptions};
use ioscope_stats::Notice;
use serde_json::Value;

/// A parsed and planned job, ready to run as often as asked.
pub struct Job {
    /// What the progress line and errors call it.
    pub label: String,
    parsed: Parsed,
    plan: Plan,
}

impl Job {
    /// Parses and plans `input`, refusing what a run would refuse
    /// before I/O.
    pub fn prepare(label: String, input: &ParseInput) -> anyhow::Result<Job> {
        let parsed = ioscope_job::parse(input).with_context(|| label.clone())?;
        if parsed.jobs.is_empty() {
            bail!("{label}: no jobs defined");
        }
        let plan = ioscope_run::plan(&parsed, false).with_context(|| label.clone())?;
        Ok(Job {
            label,
            parsed,
            plan,
        })
    }

    pub fn parsed(&self) -> &Parsed {
        &self.parsed
    }
}

/// What the kept runs of one job gave.
#[derive(Default)]
pub struct Kept {
    pub metrics: Vec<RunMetrics>,
    /// Each run's fio JSON document.
    pub results: Vec<Value>,
    /// The options of the job's own section, as written, from its first
    /// run's result.
    pub job_options: Vec<(String, String)>,
}

/// Runs `warmup` discarded rounds and then `repeat` kept ones over all
/// `jobs`; each notice of any run is kept once, in the order found.
pub fn run_rounds(
    jobs: &[Job],
    warmup: usize,
    repeat: usize,
    notices: &mut Vec<Notice>,
) -> anyhow::Result<Vec<Kept>> {
    let mut kept: Vec<Kept> = jobs.iter().map(|_| Kept::default()).collect();
    let total = (warmup + repeat) * jobs.len();
    let progress = std::io::stderr().is_terminal();
    let mut done = 0;
    for round in 0..warmup + repeat {
        for (job, kept) in jobs.iter().zip(&mut kept) {
            done += 1;
            if progress {
                // Only where someone watches; the line is erased at the end.
                let warm = if round < warmup { ", warm-up" } else { "" };
                let _ = write!(
                    std::io::stderr(),
                    "\r\x1b[Krun {done}/{total}: {}{warm}",
                    job.label
                );
            }
            let (metrics, result, found) = run_once(job)?;
            for n in found {
                if !notices.contains(&n) {
                    notices.push(n);
                }
            }
            if round >= warmup {
                if kept.results.is_empty() {
                    kept.job_options = result_job_options(&result);
                }
                kept.metrics.push(metrics);
                kept.results.push(result);
            }
        }
    }
    if progress {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
    Ok(kept)
}

/// The first job's options as written, from the fio JSON's job_options.
fn result_job_options(result: &Value) -> Vec<(String, String)> {
    result["jobs"][0]["job options"]
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| *k != "name")
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// One run: its figures, its fio JSON document, its notices.
fn run_once(job: &Job) -> anyhow::Result<(RunMetrics, Value, Vec<Notice>)> {
    let options = RunOptions {
        eta: None,
        eta_interval: std::time::Duration::from_secs(1),
        aux_path: None,
        trigger: ioscope_run::Trigger::default(),
        layout_lines: false,
        status_interval: None,
        bandwidth_log: None,
        idle_prof: None,
        trace: None,
    };
    let result = ioscope_run::run(&job.parsed, &job.plan, &options, &mut |_| {})
        .with_context(|| job.label.clone())?;
    if let Some(signal) = result.interrupted {
        bail!("{}: interrupted by signal {signal}", job.label);
    }
    if let Some(why) = &result.aborted {
        bail!("{}: {why}", job.label);
    }
    if let Some(failed) = result.jobs.iter().find(|j| j.error != 0) {
        bail!(
            "{}: job {} failed: {}",
            job.label,
            failed.header.name,
            std::io::Error::from_raw_os_error(failed.error)
        );
    }
    let text = ioscope_report::render(&result, &[Format::Json]);
    let json: Value =
        serde_json::from_str(&text).context("the run's own JSON document did not parse")?;
    Ok((RunMetrics::of(&result), json, result.notices))
}
