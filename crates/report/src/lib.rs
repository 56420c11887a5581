//! Turning a [`RunResult`] into bytes: fio's normal text, JSON and JSON+.
//! Adding a format never touches the runner.

use ioscope_stats::{JobHeader, RunResult};

/// fio's `--output-format` values that ioscope writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
    JsonPlus,
}

/// The lines fio prints before a normal-format run: one per job
/// (`name: (g=0): rw=..., bs=(R) ..., ioengine=..., iodepth=N`), the version
/// line and `Starting N processes`.
pub fn preamble(_headers: &[JobHeader]) -> String {
    todo!()
}

/// The results in each format asked for, in fio's order.
pub fn render(_result: &RunResult, _formats: &[Format]) -> String {
    todo!()
}
