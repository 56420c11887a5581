//! The HTML report: one self-contained page (inline SVG, inline style, no
//! script, nothing fetched) for a run, a compare document or a sweep
//! document.

mod axis;
mod compare;
mod over_time;
mod page;
mod run;
mod svg;
mod sweep;

use std::fmt;

use ioscope_stats::{RunResult, WorkerLogs};
use serde_json::Value;

/// A document the pages cannot show, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocError(String);

impl DocError {
    fn new(why: impl Into<String>) -> DocError {
        DocError(why.into())
    }
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DocError {}

/// The page of an `ioscope compare` JSON document (its `ioscope_compare`
/// schema).
pub fn compare_page(doc: &Value) -> Result<String, DocError> {
    compare::page(doc)
}

/// The page of an `ioscope sweep` JSON document (its `ioscope_sweep`
/// schema).
pub fn sweep_page(doc: &Value) -> Result<String, DocError> {
    sweep::page(doc)
}

/// The page of a saved document of any kind: compare, sweep or a fio
/// JSON/JSON+ run (the histogram needs JSON+'s bins; a saved document has
/// no samples over time).
pub fn document_page(doc: &Value) -> Result<String, DocError> {
    if doc.get("ioscope_compare").is_some() {
        compare_page(doc)
    } else if doc.get("ioscope_sweep").is_some() {
        sweep_page(doc)
    } else if doc.get("jobs").is_some() {
        run::page(doc, &|_| None)
    } else {
        Err(DocError::new(
            "not a document ioscope renders: expected an ioscope compare document \
             (\"ioscope_compare\"), a sweep document (\"ioscope_sweep\") or a fio JSON run (\"jobs\")",
        ))
    }
}

/// The page of a finished run. `job_of` names the job of a worker's
/// logs (by the worker's number, from 1), for the charts over time.
pub fn run_page(
    result: &RunResult,
    opts: &crate::Options,
    job_of: &dyn Fn(&WorkerLogs) -> Option<String>,
) -> Result<String, DocError> {
    let doc = crate::json::document(result, true, opts);
    let over_time = |job: &str| {
        let mine = result
            .logs
            .iter()
            .filter(|w| job_of(w).as_deref() == Some(job));
        Some(over_time::combine(mine))
    };
    run::page(&doc, &over_time)
}
