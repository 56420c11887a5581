//! The fio job dialect.
//!
//! Job files (`[global]`, named sections, `include`, `${VAR}`, arithmetic in
//! numbers) and command-line jobs (`--name=a --rw=read ...`) are parsed into a
//! list of [`JobSpec`]s with fio's defaults applied. Every option is defined
//! once in the option table, which also drives `--cmdhelp`.

mod arith;
mod cmdhelp;
mod cmdline;
mod error;
mod expand;
mod fio_only;
mod ini;
mod jobs;
mod options;
mod settings;
mod spec;
mod values;

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
pub fn parse(input: &ParseInput) -> Result<Parsed, ParseError> {
    let env = |name: &str| std::env::var(name).ok();
    let subs = ini::Substitutions {
        env: &env,
        keywords: expand::Keywords::of_this_machine(),
    };
    let mut builder = jobs::Builder::new(&input.sections);
    builder.add_sections(&cmdline::sections(&input.cli_options)?, true, false)?;
    for (i, path) in input.job_files.iter().enumerate() {
        if i > 0 {
            builder.reset_defaults();
        }
        builder.add_sections(&ini::read(path, &subs)?, false, i > 0)?;
    }
    builder.finish()
}

/// The text of `--cmdhelp=NAME` (`all` lists every option).
pub fn cmdhelp(name: &str) -> Result<String, ParseError> {
    cmdhelp::cmdhelp(name)
}
