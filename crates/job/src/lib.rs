//! The fio job dialect.
//!
//! Job files (`[global]`, named sections, `include`, `${VAR}`, arithmetic in
//! numbers) and command-line jobs (`--name=a --rw=read ...`) are parsed into a
//! list of [`JobSpec`]s with fio's defaults applied. Every option is defined
//! once in the option table, which also drives `--cmdhelp`.

mod error;
mod spec;

pub use error::ParseError;
pub use spec::*;

use std::path::PathBuf;

/// What to parse: job files and command-line job options, in the order fio
/// would apply them.
#[derive(Clone, Debug, Default)]
pub struct ParseInput {
    /// Job files named on the command line, in order.
    pub job_files: Vec<PathBuf>,
    /// Job options from the command line (`--key=value` or `--flag`), in
    /// order, program options already removed.
    pub cli_options: Vec<String>,
    /// `--section=NAME` filters: when not empty, only these job sections run.
    pub sections: Vec<String>,
}

/// The parsed jobs and the global options as written (for the JSON echo).
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub jobs: Vec<JobSpec>,
    pub global_options: Vec<(String, String)>,
}

/// Parses job files and command-line jobs into job specifications.
pub fn parse(_input: &ParseInput) -> Result<Parsed, ParseError> {
    todo!()
}

/// The text of `--cmdhelp=NAME` (`all` lists every option).
pub fn cmdhelp(_name: &str) -> Result<String, ParseError> {
    todo!()
}
