//! The fio job dialect.
//!
//! Job files (`[global]`, named sections, `include`, `${VAR}`, arithmetic in
//! numbers) and command-line jobs (`--name=a --rw=read ...`) are parsed into a
//! list of [`JobSpec`]s with fio's defaults applied. Every option is defined
//! once in the option table, which also drives `--cmdhelp`.
//!
//! The meaning of every option is fio's (3.33's `parse.c`, `options.c` and
//! `init.c`). Where fio would silently read a value as something else, the
//! parser refuses it instead:
//!
//! - `1.5k`, `4 k`, `4x` (fio: 1, 4, 4 bytes), `runtime=10sec` (fio: 10µs),
//!   `bs=4k-8k` (fio: reads 4k, writes 8k), `iodepth=4,8` (fio: 4) and
//!   `percentile_list=99,99.9` (fio: 99 only) are errors.
//! - `time_based` without a runtime is an error (fio drops `time_based`).
//! - `nrfiles=0` and `numjobs=0` are errors (fio does no I/O, or fails later).
//! - Arithmetic in parentheses is always available (fio needs a build with
//!   it); `$keyword` arithmetic is evaluated here instead of by `bc`.
//! - `--section` filters every job file (fio forgets it after the first).
//! - A section skipped by `--section` on the command line takes the options
//!   after its `--name` with it (fio applies them to the global defaults).
//! - A job that sets `verify_backlog`, `verify_only`, `trim_percentage` or
//!   the like without `verify` is an error (fio checks nothing then), and
//!   so is `verify` on a job that writes nothing without `verify_only`.
//! - `sqthread_poll_cpu` without `sqthread_poll` is an error (fio ignores
//!   it), and `nonvectored` below -1 is an error (fio reads it as 1).
//! - An unset `${VAR}` in `filename` or `directory` is an error (fio
//!   substitutes nothing: `${DIR}/f` becomes `/f`); elsewhere it is one
//!   where it leaves the value empty, as in fio.
//! - A region ending past 2^63-1 bytes (`offset` + `size`, with each
//!   clone's `offset_increment`) is an error rather than wrapping around.
//! - `filename=-` (fio: standard input or output) is an error.
//! - A job file or include above 16 MiB, and an include that is not a
//!   regular file, are errors.
//!
//! Engines: `sync`, `psync`, `pvsync2`, `null`, `libaio`, `io_uring`,
//! `io_uring_cmd` and `mmap` are fio's; `nop` (io_uring NOP requests, no
//! I/O) and `faulty` (another engine with faults injected, for testing
//! verify) are ioscope's own.
//! Engine options follow fio's rules: in a job file they apply after the
//! rest of their section, once its `ioengine` is known; an option of another
//! engine than the one in effect is an error, as in fio; a new engine starts
//! from its options' defaults. Where fio refuses an engine option only for
//! its place (before `--ioengine` on the command line, or in a global
//! section whose engine does not take it), ioscope waits for the job's
//! engine and checks it then. An option of an engine ioscope lacks
//! (`program` of `exec`) is refused naming that engine. They land in [`JobSpec::hipri`] and
//! [`JobSpec::engine_options`]:
//!
//! - pvsync2: `hipri`.
//! - io_uring: `hipri`, `sqthread_poll`, `sqthread_poll_cpu`, `fixedbufs`,
//!   `registerfiles`, `nonvectored`, `force_async`, `nowait`, `uncached`,
//!   and ioscope's `count_punts`.
//! - libaio: `userspace_reap`, `nowait`, and `libaio_vectored` (a newer
//!   fio's option; fio 3.33 lacks it). libaio takes no `hipri`, as in fio.
//!
//! fio's other engine options (`cmdprio*`, `cmd_type`, `hipri_percentage`,
//! `thp`, and `nowait`/`uncached` with pvsync2) are refused as not supported
//! yet.

mod arith;
mod cmdhelp;
mod cmdline;
mod cmdprio;
mod docs;
mod enghelp;
mod engines_misc;
mod error;
mod expand;
mod file_handling;
mod fio_only;
mod ini;
mod jobs;
mod log_spec;
mod misc_spec;
mod net;
mod options;
mod pacing;
mod pattern;
mod placement;
mod process;
mod profile;
mod settings;
mod spec;
mod values;
mod zones;

pub use cmdprio::*;
pub use engines_misc::EnginesMisc;
pub use error::ParseError;
pub use file_handling::*;
pub use log_spec::*;
pub use misc_spec::*;
pub use net::NetSpec;
pub use options::{is_job_option, job_option_names, takes_argument};
pub use pacing::*;
pub use placement::*;
pub use process::*;
pub use profile::ActProfile;
pub use spec::*;
pub use zones::*;

use std::path::PathBuf;

/// What to parse: job files and command-line job options, in the order fio
/// would apply them.
#[derive(Clone, Debug, Default)]
pub struct ParseInput {
    /// Job files named on the command line, in order.
    pub job_files: Vec<PathBuf>,
    /// Job files' contents from elsewhere (what a fio client sends a
    /// server), read after `job_files`: a name to show in errors, and the
    /// text.
    pub job_texts: Vec<(String, Vec<u8>)>,
    /// Job options from the command line (`--key=value` or `--flag`), in
    /// order, program options already removed.
    pub cli_options: Vec<String>,
    /// `--section=NAME` filters: when not empty, only these job sections run.
    pub sections: Vec<String>,
    /// `--profile=NAME`: a built-in profile's jobs, added after the others.
    pub profile: Option<String>,
}

/// The parsed jobs and the global options as written (for the JSON echo).
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub jobs: Vec<JobSpec>,
    pub global_options: Vec<(String, String)>,
    /// fio's `--showcmd`: each job file as one `fio --opt=value ...` line
    /// (newline included), in the order the files were given.
    pub command_lines: Vec<String>,
    /// How many of the jobs, at the end, `--profile` added.
    pub profile_jobs: usize,
    /// `--profile=act`: what each job counts for act's table.
    pub act: Option<ActProfile>,
    /// fio's "Option X is deprecated" lines, which it prints on its
    /// output as it parses (see options/deprecated.rs).
    pub deprecated: Vec<String>,
}

impl JobSpec {
    /// A job named `name` with every option at fio's default, derived
    /// defaults resolved: what a section holding only `name` would give.
    /// For programs that build jobs without a job file.
    pub fn fio_defaults(name: &str) -> JobSpec {
        let mut settings = settings::Settings::defaults();
        settings.spec.name = name.to_string();
        settings
            .resolve()
            .expect("fio's defaults are consistent with each other")
    }

    /// The bytes one loop moves over files whose I/O extents are `lens`
    /// bytes long: `io_size`; `io_size=N%` of each file, rounded down file
    /// by file as fio's setup_files does; or all of them.
    pub fn loop_bytes(&self, lens: impl Iterator<Item = u64>) -> u64 {
        match (self.io_size, self.io_size_percent) {
            (Some(bytes), _) => bytes,
            (None, Some(p)) => lens
                .map(|len| (u128::from(len) * u128::from(p) / 100) as u64)
                .sum(),
            (None, None) => lens.sum(),
        }
    }
}

/// Parses job files and command-line jobs into job specifications.
pub fn parse(input: &ParseInput) -> Result<Parsed, ParseError> {
    let env = |name: &str| std::env::var(name).ok();
    let keywords = expand::Keywords::of_this_machine();
    let subs = ini::Substitutions {
        env: &env,
        keywords,
    };
    let mut builder = jobs::Builder::new(&input.sections);
    let mut read = vec![cmdline::sections(&input.cli_options)?];
    builder.add_sections(&read[0], true, false)?;
    let files = input.job_files.iter().map(|path| ini::read(path, &subs));
    let texts = (input.job_texts.iter()).map(|(name, text)| ini::read_text(name, text, &subs));
    for (i, sections) in files.chain(texts).enumerate() {
        if i > 0 {
            builder.reset_defaults();
        }
        read.push(sections?);
        builder.add_sections(&read[i + 1], false, i > 0)?;
    }
    let mut act = None;
    let mut before = None;
    if let Some(name) = &input.profile {
        before = Some(builder.job_count());
        let sections: Vec<&ini::Section> = read.iter().flatten().collect();
        let p = profile::options(name, keywords.mb_memory, &sections)?;
        builder.add_sections(&cmdline::sections(&p.options)?, true, false)?;
        act = p.act;
    }
    let mut parsed = builder.finish()?;
    parsed.deprecated = options::deprecated_notes(read.iter().flatten());
    parsed.act = act;
    parsed.profile_jobs = before.map_or(0, |n| parsed.jobs.len().saturating_sub(n));
    Ok(parsed)
}

/// `docs/options.md`: every option from the option table, and the fio
/// options refused as not supported yet. `version` is what `--version`
/// prints.
pub fn options_markdown(version: &str) -> String {
    docs::options_markdown(version)
}

/// The engine table of `docs/engines.md`, from the engine registry.
pub fn engines_table() -> String {
    docs::engines_table()
}

/// A time as fio's program options take it (`--status-interval`,
/// `--eta-newline`): fio's
/// units, a plain number in `default_us` microseconds. In microseconds.
pub fn time_us(text: &str, default_us: u64) -> Result<u64, String> {
    values::time_us(text, default_us)
}

/// The text of `--cmdhelp=NAME` (`all` lists every option).
pub fn cmdhelp(name: &str) -> Result<String, ParseError> {
    cmdhelp::cmdhelp(name)
}

/// The text of `--enghelp[=ENGINE[,OPTION]]` (empty: the engines), and
/// whether to exit 0 after it: fio exits 1 for an engine without options.
pub fn enghelp(arg: &str) -> Result<(String, bool), ParseError> {
    enghelp::enghelp(arg)
}

#[cfg(test)]
mod tests;
