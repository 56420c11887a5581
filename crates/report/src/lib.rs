//! Turning a [`RunResult`] into bytes: fio's normal text, terse lines, JSON
//! and JSON+, and ioscope's HTML report.
//! Adding a format never touches the runner.
//!
//! The layout follows fio 3.33 line by line (stat.c, json.c, lib/num2str.c),
//! so that tools that parse fio's output keep working.

mod act;
mod block_life;
mod cfmt;
pub mod compare;
mod disk;
mod dist;
mod eta_line;
mod fio_formatter;
pub mod fio_net;
mod group;
mod helpers;
mod html;
mod idleness;
mod json;
mod lat_line;
mod log_fz;
mod log_lines;
mod logs;
mod normal;
mod notices;
mod num2str;
mod percentiles;
mod preamble;
mod stat;
mod steadystate;
mod terse;

pub use act::act_table;
pub use eta_line::EtaLine;
use ioscope_stats::{JobHeader, RunResult};
pub use terse::TerseVersion;

pub use html::{compare_page, document_page, run_page, sweep_page, DocError};
pub use idleness::calibration as idle_calibration;
pub use log_fz::inflate_log;
pub use logs::{write_agg_bw, write_logs};

/// fio's `--output-format` values that ioscope writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    /// fio's `terse` (also `--minimal`), in the given terse version.
    Terse(TerseVersion),
    Json,
    JsonPlus,
    /// ioscope's HTML report: a page of its own, never mixed into the
    /// text stream of the others ([`render_with`] leaves it out).
    Html,
}

impl Format {
    /// Whether the format has a place for the run's notices: terse lines
    /// have none (a field more would break the scripts that read them).
    pub fn carries_notices(self) -> bool {
        !matches!(self, Format::Terse(_))
    }
}

/// What the output needs that the results do not carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Printed as `pid=` on each job's first line.
    pub pid: u32,
    /// Printed where fio prints "fio-3.33".
    pub version: String,
}

impl Default for Options {
    /// This process's id and `ioscope-<version>`.
    fn default() -> Options {
        Options {
            pid: std::process::id(),
            version: version(),
        }
    }
}

/// `ioscope-<crate version>`, where fio prints `fio-3.33`.
pub fn version() -> String {
    format!("ioscope-{}", env!("CARGO_PKG_VERSION"))
}

/// The lines fio prints before a normal-format run: one per job
/// (`name: (g=0): rw=..., bs=(R) ..., ioengine=..., iodepth=N`), the version
/// line and `Starting N processes`.
///
/// One header per job section, with `numjobs` its clone count (fio prints
/// `...` once under a job that has clones). Block sizes are printed with
/// units of fio's kb_base (1024: IEC, 1000: SI), and the version line
/// says `version` (see [`version`]).
///
/// The last `profile_jobs` are a profile's (`--profile`), which fio adds
/// as the run starts: their lines come after the version line, which fio
/// leaves out when they are the only jobs.
pub fn preamble_with(
    headers: &[JobHeader],
    kb_base: u32,
    version: &str,
    profile_jobs: usize,
) -> String {
    let before = headers.len().saturating_sub(profile_jobs);
    let line = (before > 0 || profile_jobs == 0).then_some((version, before));
    preamble::render(headers, kb_base, line)
}

/// What a fio server sends its client before a run, in two parts: the
/// job lines, as it parses the jobs, and `Starting N processes`, as they
/// start. A server has no version line.
pub fn server_preamble(headers: &[JobHeader], kb_base: u32) -> (String, String) {
    let starting = preamble::starting_line(headers);
    let mut lines = preamble::render(headers, kb_base, None);
    lines.truncate(lines.len() - starting.len());
    (lines, starting)
}

/// The run's notices as the normal output ends with them; empty when
/// there are none.
pub fn notices_text(notices: &[ioscope_stats::Notice]) -> String {
    notices::block(notices)
}

/// The results of fio servers' runs as fio's client prints them: each
/// server's as [`render_with`] would, but the JSON document lists the
/// jobs as `client_stats`, each job and disk with its server's `hostname`
/// and `port`, and has none of the local process's keys.
///
/// With `summed` (the servers said they would send more than one report
/// in all), fio's "All clients" sum follows: the last job of the JSON's
/// `client_stats`, a terse line, and a block at the end of the normal
/// output.
pub fn render_client(
    results: &[(&RunResult, (&str, u16))],
    formats: &[Format],
    opts: &Options,
    summed: bool,
) -> String {
    let all = if summed {
        fio_net::all_clients(results)
    } else {
        None
    };
    let mut out = String::new();
    for f in formats {
        if let Format::Terse(version) = f {
            for (result, _) in results {
                out.push_str(&terse::render(result, *version, opts));
            }
            if let (Some((job, _)), Some((first, _))) = (&all, results.first()) {
                let sum = RunResult {
                    jobs: vec![job.clone()],
                    disks: Vec::new(),
                    ..(*first).clone()
                };
                out.push_str(&terse::render(&sum, *version, opts));
            }
        }
    }
    let plus = formats.contains(&Format::JsonPlus);
    if plus || formats.contains(&Format::Json) {
        let doc = json::client_document(results, plus, opts, all.as_ref());
        out.push_str(&fio_formatter::to_string(&doc));
        out.push('\n');
    }
    if formats.contains(&Format::Normal) {
        for (result, _) in results {
            // The server's text ended with the line a local run's output
            // begins with.
            let normal = normal::render(result, opts);
            out.push_str(normal.strip_prefix('\n').unwrap_or(&normal));
        }
        if let (Some((job, group)), Some((first, _))) = (&all, results.first()) {
            out.push_str(&normal::job_block(job, group, first, opts));
        }
    }
    out
}

/// The results in each format asked for, in fio's order.
pub fn render(result: &RunResult, formats: &[Format]) -> String {
    render_with(result, formats, &Options::default())
}

/// [`render`] with the pid and version given, so that the output can be
/// reproduced (snapshot tests) or say what the caller wants.
///
/// fio's order (its output buffers, flushed by index): the terse lines
/// first, then the JSON document (one document, with bins when JSON+ is
/// among the formats), then the normal output.
pub fn render_with(result: &RunResult, formats: &[Format], opts: &Options) -> String {
    let mut out = String::new();
    for f in formats {
        if let Format::Terse(version) = f {
            out.push_str(&terse::render(result, *version, opts));
        }
    }
    let plus = formats.contains(&Format::JsonPlus);
    if plus || formats.contains(&Format::Json) {
        out.push_str(&json::render(result, plus, opts));
    }
    if formats.contains(&Format::Normal) {
        out.push_str(&normal::render(result, opts));
    }
    out
}
