//! `--output-format=html` on a run: where the page goes, the samples over
//! time its charts need, and the page itself.
//!
//! The page is a document of its own: alone, it goes where the output goes
//! (stdout or `--output`); with other formats it goes to `--output`'s
//! name with `.html` added, and without `--output` the mix is refused (an
//! HTML page inside a text or JSON stream is of no use to anyone).

use std::path::{Path, PathBuf};

use ioscope_job::Parsed;
use ioscope_report::Format;
use ioscope_stats::{RunResult, WorkerLogs};

/// fio's bandwidth sampling interval (bw_avg_time) when the job sets none.
const SAMPLE_MS: u64 = 500;

/// Where the HTML page goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Destination {
    /// Where the output goes: HTML is the only format.
    Output,
    /// A file of its own, beside `--output`'s.
    File(PathBuf),
}

/// Where the page of a run with `formats` goes; None without html; an
/// error for html mixed with other formats into one stream.
pub fn destination(
    formats: &[Format],
    output: Option<&Path>,
) -> anyhow::Result<Option<Destination>> {
    if !formats.contains(&Format::Html) {
        return Ok(None);
    }
    if formats.len() == 1 {
        return Ok(Some(Destination::Output));
    }
    match output {
        Some(path) => {
            let mut name = path.as_os_str().to_owned();
            name.push(".html");
            Ok(Some(Destination::File(name.into())))
        }
        None => anyhow::bail!(
            "--output-format: html with other formats needs --output=FILE (the page then goes to \
             FILE.html, the others to FILE); an HTML page in the same stream as text or JSON \
             could be read as neither"
        ),
    }
}

/// Which jobs record samples for the page only: those that asked for no
/// log of their own get averaged bandwidth, IOPS and latency logs, kept in
/// memory (never written), at the job's bandwidth sampling interval so
/// that the figures the run reports do not change.
pub fn sample_in_memory(parsed: &mut Parsed) -> Vec<bool> {
    parsed
        .jobs
        .iter_mut()
        .map(|spec| {
            if spec.logs.any() {
                return false;
            }
            let every = spec.misc.bw_avg_ms.unwrap_or(SAMPLE_MS).max(1);
            let l = &mut spec.logs;
            l.avg_msec = every;
            l.bw = Some(String::new());
            l.lat = Some(String::new());
            // An IOPS log at another interval than the job's IOPS sampling
            // would change the IOPS figures: then the page goes without.
            if spec.misc.iops_avg_ms.unwrap_or(SAMPLE_MS) == every {
                l.iops = Some(String::new());
            }
            true
        })
        .collect()
}

/// The job (its index in `parsed.jobs`) a worker's logs belong to: workers
/// are numbered from 1 across the run, each job's clones one after another.
pub fn job_of(parsed: &Parsed, w: &WorkerLogs) -> Option<usize> {
    let mut first = 1;
    for (i, j) in parsed.jobs.iter().enumerate() {
        let next = first + j.numjobs.max(1);
        if (first..next).contains(&w.files.number) {
            return Some(i);
        }
        first = next;
    }
    None
}

/// The run's page.
pub fn page(
    parsed: &Parsed,
    result: &RunResult,
    opts: &ioscope_report::Options,
) -> anyhow::Result<String> {
    let name = |w: &WorkerLogs| job_of(parsed, w).map(|i| parsed.jobs[i].name.clone());
    Ok(ioscope_report::run_page(result, opts, &name)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_alone_goes_to_the_output_and_mixed_beside_it() {
        let none = destination(&[Format::Json], None).unwrap();
        assert_eq!(none, None);
        let alone = destination(&[Format::Html], None).unwrap();
        assert_eq!(alone, Some(Destination::Output));
        let beside = destination(&[Format::Json, Format::Html], Some(Path::new("r.json"))).unwrap();
        assert_eq!(beside, Some(Destination::File("r.json.html".into())));
        let e = destination(&[Format::Json, Format::Html], None).unwrap_err();
        assert!(e.to_string().contains("needs --output=FILE"), "{e}");
    }
}
