//! `ioscope compare` and `ioscope sweep`: the statistic over repeated runs
//! and its renderings (the JSON documents, a text table, a markdown table).
//! Everything here is a pure function of plain data: the caller runs the
//! jobs and hands over each run's [`RunMetrics`] and fio JSON document.

mod document;
mod metrics;
mod stat;
mod student_t;
mod summary;
mod table;

pub use metrics::{Metric, RunMetrics};
pub use stat::{Better, Diff, Stat, Verdict};
pub use summary::Summary;

use ioscope_stats::Notice;
use serde_json::Value;

/// One configuration of a comparison and what its kept runs gave.
#[derive(Clone, Debug)]
pub struct Configuration {
    pub name: String,
    /// What it sets beyond the shared options, as written.
    pub options: Vec<(String, String)>,
    /// Each kept run's figures, in run order.
    pub runs: Vec<RunMetrics>,
    /// Each kept run's complete fio-schema JSON document, in run order.
    pub results: Vec<Value>,
}

/// A finished comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub repeats: usize,
    pub warmup: usize,
    /// Index of the baseline in `configurations`.
    pub baseline: usize,
    pub configurations: Vec<Configuration>,
    /// Every run's notices, each said once.
    pub notices: Vec<Notice>,
}

/// One swept option and its values, in the order given.
#[derive(Clone, Debug)]
pub struct Axis {
    pub option: String,
    pub values: Vec<String>,
}

/// One point of a sweep.
#[derive(Clone, Debug)]
pub struct Point {
    /// This point's value on every axis, in axis order.
    pub options: Vec<(String, String)>,
    /// Where its fio JSON document was written.
    pub file: String,
    pub runs: Vec<RunMetrics>,
    /// The fio JSON document written to `file` (the last run's).
    pub result: Value,
}

/// A finished sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub axes: Vec<Axis>,
    pub points: Vec<Point>,
    pub notices: Vec<Notice>,
}

/// The text formats of the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Aligned columns for a terminal.
    Normal,
    /// GitHub-flavoured markdown tables, to paste into a report.
    Markdown,
}

pub use document::{compare_json, sweep_json};
pub use table::{compare_table, sweep_table};

impl Comparison {
    /// Configuration `index`'s differences from the baseline in each
    /// judged metric; None for the baseline itself (and for runs too few
    /// to judge).
    pub fn vs_baseline(&self, index: usize) -> Option<Vec<(Metric, Diff)>> {
        if index == self.baseline {
            return None;
        }
        let base = &self.configurations[self.baseline].runs;
        let other = &self.configurations[index].runs;
        Metric::JUDGED
            .iter()
            .map(|&m| {
                let diff = Diff::between(
                    &summary::samples(base, m),
                    &summary::samples(other, m),
                    m.better(),
                )?;
                Some((m, diff))
            })
            .collect()
    }

    /// The plain verdict on configuration `index`: faster or slower is
    /// throughput's (IOPS: the I/Os done per second, which a QD1 latency
    /// run and a thinktime or rate limit all move), or no difference.
    pub fn verdict(&self, index: usize) -> Option<Verdict> {
        let diffs = self.vs_baseline(index)?;
        let (_, iops) = diffs.iter().find(|(m, _)| *m == Metric::Iops)?;
        Some(match iops.verdict {
            Verdict::Higher => Verdict::Faster,
            Verdict::Lower => Verdict::Slower,
            other => other,
        })
    }
}
