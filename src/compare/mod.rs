//! `ioscope compare` and `ioscope sweep`: front ends that run jobs in this
//! process several times ([`runner`]) and print one table of the results
//! (the statistic and the renderers are the report crate's
//! `ioscope_report::compare`).

mod cli;
mod comparison;
mod configurations;
mod runner;
mod sweep;

use std::ffi::OsString;
use std::process::ExitCode;

use ioscope_report::compare::{compare_json, compare_table, sweep_json, sweep_table, Style};

use crate::output::{self, Output};
use cli::{Format, Kind};

const COMPARE_USAGE: &str = "\
Usage: ioscope compare [OPTIONS] JOBFILE
       ioscope compare [OPTIONS] --JOBOPTION=VALUE... --vs OPTION=VALUE[,...] --vs ...

Runs each configuration --repeat times, interleaved (A B C A B C ...), and
prints one table: each configuration's figures with their 95% confidence
intervals, and each one's difference from the baseline, with a verdict.

Configurations are a job file's sections ([global] shared), or the job
options on the command line plus each --vs list (name=NAME names it; a
comma inside a value is written \\,).

Options:
  --vs OPTION=VALUE[,...]   a configuration: the shared job options plus these
  --section NAME            compare only these sections of the job file (repeatable)
  --baseline NAME           the configuration the others are judged against (default: the first)
  --repeat N                kept runs of each configuration (default: 5, at least 2)
  --warmup N                runs of each configuration discarded first (default: 0)
  --output-format FORMAT    normal, json or markdown (default: normal)
  --output FILE             write the table to FILE instead of stdout
  -h, --help                print this help

See docs/compare.md.
";

const SWEEP_USAGE: &str = "\
Usage: ioscope sweep [OPTIONS] --sweep OPTION=V1,V2,... [JOBFILE | --JOBOPTION=VALUE...]

Runs one job at every point of the grid of swept values (the first --sweep
outermost), writes each point's fio JSON document into the output
directory, and prints one table.

Options:
  --sweep OPTION=V1,V2,...  an axis (repeatable); a comma inside a value is written \\,
  --output-dir DIR          where the points' JSON files go (default: sweep-YYYYmmdd-HHMMSS, UTC)
  --repeat N                runs of each point (default: 1; 2 or more give intervals)
  --warmup N                runs of each point discarded first (default: 0)
  --output-format FORMAT    normal, json or markdown (default: normal)
  --output FILE             write the table to FILE instead of stdout
  -h, --help                print this help

See docs/compare.md.
";

/// Runs `ioscope compare` with the arguments after `compare`.
pub fn compare_main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    main(Kind::Compare, args)
}

/// Runs `ioscope sweep` with the arguments after `sweep`.
pub fn sweep_main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    main(Kind::Sweep, args)
}

fn main(kind: Kind, args: impl IntoIterator<Item = OsString>) -> ExitCode {
    match run(kind, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output::fail(kind.program(), &e),
    }
}

fn run(kind: Kind, args: impl IntoIterator<Item = OsString>) -> anyhow::Result<()> {
    let args = cli::parse(kind, args)?;
    if args.help {
        output::print(match kind {
            Kind::Compare => COMPARE_USAGE,
            Kind::Sweep => SWEEP_USAGE,
        })?;
        return Ok(());
    }
    let format = args.format.unwrap_or(Format::Normal);
    // The output file is created before any run: a path that cannot be
    // written is refused before the time is spent.
    let mut out = match &args.output {
        Some(path) => Output::create(path)?,
        None => Output::stdout(),
    };
    let text = match kind {
        Kind::Compare => {
            let c = comparison::run(&args)?;
            match format {
                Format::Normal => compare_table(&c, Style::Normal),
                Format::Markdown => compare_table(&c, Style::Markdown),
                Format::Json => json_text(&compare_json(&c))?,
                Format::Html => ioscope_report::compare_page(&compare_json(&c))?,
            }
        }
        Kind::Sweep => {
            let s = sweep::run(&args)?;
            match format {
                Format::Normal => sweep_table(&s, Style::Normal),
                Format::Markdown => sweep_table(&s, Style::Markdown),
                Format::Json => json_text(&sweep_json(&s))?,
                Format::Html => ioscope_report::sweep_page(&sweep_json(&s))?,
            }
        }
    };
    out.write(&text)?;
    Ok(())
}

fn json_text(doc: &serde_json::Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(doc)? + "\n")
}
