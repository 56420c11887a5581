//! `ioscope compare`: several configurations of one workload, run
//! interleaved, judged against a baseline.

use anyhow::bail;
use ioscope_report::compare::{self, Comparison};

use super::cli::Args;
use super::configurations;
use super::runner::{run_rounds, Job};

/// Repeats when `--repeat` is not given: five runs each give Student's t
/// with 4 degrees of freedom per configuration (8 for Welch's difference
/// of two equal spreads, t = 2.31, within 18% of the normal's 1.96), the
/// least that makes an interval worth reading, while a comparison of
/// three 10-second jobs still takes under three minutes.
pub const DEFAULT_REPEAT: usize = 5;

pub fn run(args: &Args) -> anyhow::Result<Comparison> {
    if args.output_dir.is_some() || !args.sweeps.is_empty() {
        bail!("--sweep and --output-dir belong to ioscope sweep");
    }
    let repeats = args.repeat.unwrap_or(DEFAULT_REPEAT);
    if repeats < 2 {
        bail!("--repeat={repeats}: a comparison needs two or more runs of each configuration to give an interval");
    }
    let configurations = configurations::from_args(args)?;
    let baseline = match &args.baseline {
        None => 0,
        Some(name) => match configurations.iter().position(|c| &c.name == name) {
            Some(i) => i,
            None => bail!(
                "--baseline={name}: no such configuration; they are {}",
                configurations
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    let jobs = configurations
        .iter()
        .map(|c| Job::prepare(format!("configuration {}", c.name), &c.input))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut notices = Vec::new();
    let kept = run_rounds(&jobs, args.warmup, repeats, &mut notices)?;
    let configurations = configurations
        .into_iter()
        .zip(kept)
        .map(|(c, k)| compare::Configuration {
            name: c.name,
            // A section's own options come from its result.
            options: if c.options.is_empty() {
                k.job_options
            } else {
                c.options
            },
            runs: k.metrics,
            results: k.results,
        })
        .collect();
    Ok(Comparison {
        repeats,
        warmup: args.warmup,
        baseline,
        configurations,
        notices,
    })
}
