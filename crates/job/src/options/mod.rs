//! The option table: every option ioscope understands, defined once. A
//! row holds the option's names, how its value is written, its default as
//! text, its help, its category, the engines that take it, and how a value
//! applies to the job. The same row drives parsing, the defaults (a job
//! starts as the default texts applied in table order, as fio's
//! `fill_default_options` does), engine checks, `--cmdhelp`, the docs page
//! and the JSON options echo (its canonical name).
//!
//! The rows live in one file per category, in the order `--cmdhelp=all`
//! lists them. Adding an option is one row plus the code that uses its
//! value.

mod block_size;
mod buffers;
mod cmdprio;
mod cpu;
#[cfg(test)]
mod default_tests;
mod deprecated;
mod depth;
mod engine;
mod engines_misc;
mod errors;
mod files;
mod io_type;
mod iolog;
mod logging;
mod memory;
mod misc_general;
mod net;
mod pacing;
mod placement;
mod process;
mod profiles;
mod random;
mod reporting;
mod syncs;
mod threads;
mod time;
mod verify;
mod zones;

use std::time::Duration;

use crate::fio_only::{fio_engines_of, FIO_ENGINE_OPTIONS, FIO_ONLY_OPTIONS, FIO_ONLY_REASONS};
use crate::settings::Settings;
use crate::values;
use ioscope_engine::Backend;

#[cfg(test)]
pub(crate) use block_size::bssplit;
pub(crate) use deprecated::notes as deprecated_notes;
#[cfg(test)]
pub(crate) use errors::errno_name;
#[cfg(test)]
pub(crate) use io_type::{rw_mode, seq_add};

/// How a value is written, as `--cmdhelp` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    /// Text that may be given bare (`write_bw_log`), which is empty then.
    OptionalText,
    Size,
    SizeOrPercent,
    Int,
    /// A time; a plain number is in seconds.
    Time,
    /// A time, or a range of times (`startdelay=5-10`).
    TimeRange,
    Bool,
    /// May be given bare (`time_based`) or as a boolean.
    Flag,
    Range,
    PerDirSize,
    PerDirRange,
    /// An integer, or one for reads and one for writes (`opt=10,20`).
    PerDirInt,
    Split,
    Choice(&'static [(&'static str, &'static str)]),
    /// An engine's name: the valid values are the engine registry's.
    Engine,
    FloatList,
    /// A decimal number that may have a fraction (opt=0.5).
    Float,
    CpuList,
}

impl Kind {
    /// The valid values of a choice, with their help: the table's, or for
    /// an engine the registry's.
    pub(crate) fn values(self) -> Vec<(&'static str, &'static str)> {
        match self {
            Kind::Choice(values) => values.to_vec(),
            Kind::Engine => Backend::ALL
                .iter()
                .map(|b| (b.name(), b.desc().help))
                .collect(),
            _ => Vec::new(),
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Text => "string (opt=bla)",
            Kind::OptionalText => "empty or string (opt[=bla])",
            Kind::Size => "size with k/m/g/t/p suffix (opt=4k)",
            Kind::SizeOrPercent => "size with k/m/g/t/p suffix, or a percentage (opt=4k, opt=50%)",
            Kind::Int => "integer value (opt=100)",
            Kind::Time => "time, seconds unless suffixed us/ms/s/m/h/d (opt=10s)",
            Kind::TimeRange => "time or time range, seconds unless suffixed (opt=10s, opt=5-10)",
            Kind::Bool => "boolean value (opt=1)",
            Kind::Flag => "empty or boolean value ([0|1])",
            Kind::Range => "size or size range (opt=1k-4k)",
            Kind::PerDirSize => "size per direction read,write,trim (opt=4k[,8k[,16k]])",
            Kind::PerDirRange => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
            Kind::PerDirInt => "integer value, or read,write values (opt=10[,20])",
            Kind::Split => "size/percent list per direction (opt=4k/50:64k/50[,...])",
            Kind::Choice(_) | Kind::Engine => "string, one of the valid values",
            Kind::FloatList => "list of floating point values separated by ':' (opt=5.9:7.8)",
            Kind::Float => "floating point value (opt=0.5)",
            Kind::CpuList => "list of CPUs and CPU ranges (opt=0-3,5)",
        }
    }
}

/// How an option's value changes the job: a plain function (most rows give
/// a non-capturing closure). The error says what was expected; the caller
/// adds the place, the option and the value.
pub(crate) type Apply = fn(&mut Settings, &Value) -> Result<(), String>;

/// One option: its names, how its value is written, its default, its help
/// and how it applies.
#[derive(Clone, Copy)]
pub(crate) struct OptionDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    /// The default as `--cmdhelp` shows it, applied to every job before its
    /// own options; empty for none (the field keeps its blank value, or
    /// the resolve step derives it, as the help then says).
    pub default: &'static str,
    pub help: &'static str,
    pub category: &'static str,
    pub apply: Apply,
}

impl std::fmt::Debug for OptionDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptionDef")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl OptionDef {
    /// The start of a row of `category`, for `..` in the category files;
    /// every row then names at least its name, kind, help and apply.
    pub(crate) const fn of(category: &'static str) -> OptionDef {
        OptionDef {
            name: "",
            aliases: &[],
            kind: Kind::Text,
            default: "",
            help: "",
            category,
            apply: |_, _| Err("this option has no effect".to_string()),
        }
    }

    /// For an engine option, the engines that take it (each engine's
    /// descriptor lists its options); empty for every other option.
    pub(crate) fn engines(&self) -> Vec<Backend> {
        Backend::ALL
            .iter()
            .copied()
            .filter(|b| b.desc().options.contains(&self.name))
            .collect()
    }

    pub(crate) fn is_engine_option(&self) -> bool {
        !self.engines().is_empty()
    }

    /// Whether the option may be given while `engine` is in effect; the
    /// error says why not. fio refuses an engine option of another engine
    /// as an unknown option, so a job that fio would refuse is refused.
    pub(crate) fn check_engine(&self, engine: Backend) -> Result<(), String> {
        let engines = self.engines();
        if engines.is_empty() || engines.contains(&engine) {
            return Ok(());
        }
        let with = engine_names(&engines);
        if engine == Backend::IoUringCmd && engines.contains(&Backend::IoUring) {
            // io_uring's options that io_uring_cmd lacks: fio's shared
            // table lets them through, and its uring_cmd prep writes them
            // into the SQE (nowait and uncached as flags, cmdprio as the
            // ioprio), where the kernel refuses them (seen on Linux 6.1).
            return Err(format!(
                "'{}' is an option of ioengine={with}, not io_uring_cmd: fio takes it there \
                 (its io_uring engines share their options) and puts it in each passthrough \
                 command's SQE, which the kernel refuses, so every command fails with EINVAL",
                self.name
            ));
        }
        Err(format!(
            "'{}' is an option of ioengine={with}, but ioengine={} is in effect here",
            self.name,
            engine.name()
        ))
    }
}

/// One value being applied: its text (trimmed; `1` for a bare flag), the
/// option it is for, and the `kb_base` in effect.
pub(crate) struct Value<'a> {
    pub text: &'a str,
    pub kb: u32,
    pub def: &'a OptionDef,
}

impl Value<'_> {
    /// fio's booleans take 0 or 1; its "empty or boolean" options (kind
    /// Flag) any number, 0 being off.
    pub(crate) fn bool(&self) -> Result<bool, String> {
        if self.def.kind == Kind::Flag {
            values::flag(self.text)
        } else {
            values::boolean(self.text)
        }
    }

    /// An integer of at least `min` (fio reads these like sizes).
    pub(crate) fn uint(&self, min: u32) -> Result<u32, String> {
        values::uint(self.text, self.kb, min)
    }

    pub(crate) fn size(&self) -> Result<u64, String> {
        values::size(self.text, self.kb)
    }

    /// A decimal number that may have a fraction (fio's float options).
    pub(crate) fn float(&self) -> Result<f64, String> {
        self.text
            .parse()
            .map_err(|_| format!("'{}' is not a number", self.text))
    }

    pub(crate) fn percent(&self) -> Result<u32, String> {
        percent(self.text, self.kb)
    }

    /// A time; a plain number is in seconds.
    pub(crate) fn seconds(&self) -> Result<Duration, String> {
        seconds(self.text)
    }

    /// The value named by the text in `table`, or the error listing the
    /// option's valid values.
    pub(crate) fn pick<T: Copy>(&self, table: &[(&str, T)]) -> Result<T, String> {
        table
            .iter()
            .find(|(name, _)| *name == self.text)
            .map(|&(_, v)| v)
            .ok_or_else(|| self.not_a_choice())
    }

    /// "expected one of: ..." with the option's valid values.
    pub(crate) fn not_a_choice(&self) -> String {
        let values = self.def.kind.values();
        if values.is_empty() {
            return "not a valid value".to_string();
        }
        let names: Vec<&str> = values.iter().map(|v| v.0).collect();
        format!("expected one of: {}", names.join(", "))
    }
}

pub(crate) fn percent(text: &str, kb: u32) -> Result<u32, String> {
    let v = values::uint(text, kb, 0)?;
    if v > 100 {
        return Err(format!("'{text}' is above 100 (a percentage)"));
    }
    Ok(v)
}

pub(crate) fn seconds(text: &str) -> Result<Duration, String> {
    values::time_us(text, 1_000_000).map(Duration::from_micros)
}

/// "io_uring", "pvsync2 or io_uring", "a, b or c".
pub(crate) fn engine_names(engines: &[Backend]) -> String {
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The table: the category files' rows, in the order `--cmdhelp=all`
/// lists them.
pub(crate) static OPTIONS: &[OptionDef] = &ALL;

const PARTS: &[&[OptionDef]] = &[
    files::OPTIONS,
    io_type::OPTIONS,
    block_size::OPTIONS,
    depth::OPTIONS,
    threads::OPTIONS,
    process::OPTIONS,
    time::OPTIONS,
    pacing::OPTIONS,
    random::OPTIONS,
    placement::OPTIONS,
    cpu::OPTIONS,
    engine::OPTIONS,
    cmdprio::OPTIONS,
    net::OPTIONS,
    engines_misc::OPTIONS,
    reporting::OPTIONS,
    logging::OPTIONS,
    buffers::OPTIONS,
    memory::OPTIONS,
    misc_general::OPTIONS,
    verify::OPTIONS,
    errors::OPTIONS,
    iolog::OPTIONS,
    syncs::OPTIONS,
    zones::OPTIONS,
    profiles::OPTIONS,
    deprecated::OPTIONS,
];

static ALL: [OptionDef; count(PARTS)] = concat(PARTS);

const fn count(parts: &[&[OptionDef]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

const fn concat<const N: usize>(parts: &[&[OptionDef]]) -> [OptionDef; N] {
    let mut out = [OptionDef::of(""); N];
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[n] = parts[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Applies the default of every option that has one, in table order: how
/// a blank job becomes fio's default job (fio's `fill_default_options`).
/// With `engine_only`, only the engine options' defaults: what a newly
/// chosen engine starts from, as fio loads a fresh engine option block.
pub(crate) fn apply_defaults(settings: &mut Settings, engine_only: bool) {
    let rows = OPTIONS
        .iter()
        .filter(|d| !d.default.is_empty() && (!engine_only || d.is_engine_option()));
    for def in rows {
        if let Err(e) = settings.apply_value(def, def.default) {
            panic!(
                "the default of {}, '{}', is refused: {e}",
                def.name, def.default
            );
        }
    }
}

/// The option with this name or alias.
pub(crate) fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS
        .iter()
        .find(|o| o.name == name || o.aliases.contains(&name))
}

/// Whether `name` is a job option: one ioscope has, or one of fio's that it
/// refuses as not supported yet (the binary uses this to tell job options
/// from mistyped program options).
pub fn is_job_option(name: &str) -> bool {
    job_option_names().any(|n| n == name)
}

/// Every name a job option goes by: ioscope's options and their aliases,
/// and the fio options it refuses, as fio's getopt knows them all.
pub fn job_option_names() -> impl Iterator<Item = &'static str> {
    OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .chain(FIO_ONLY_OPTIONS.iter().copied())
        .chain(
            FIO_ENGINE_OPTIONS
                .iter()
                .flat_map(|(_, names)| names.iter().copied()),
        )
}

/// Whether `--name` with no `=` takes the next argument as its value
/// (`--rw read`), as fio's getopt does for every job option but the
/// "empty or boolean" flags (fio's FIO_OPT_STR_SET, `--time_based`), whose
/// value can only follow an `=`.
pub fn takes_argument(name: &str) -> bool {
    is_job_option(name) && find(name).is_none_or(|d| d.kind != Kind::Flag)
}

/// Why `name` is not an option: fio has it but ioscope does not yet (for an
/// engine's option, naming the engine), or it is unknown (with the closest
/// option ioscope takes, when one is close).
pub(crate) fn not_an_option(name: &str) -> String {
    if let Some((_, why)) = FIO_ONLY_REASONS.iter().find(|(n, _)| *n == name) {
        return format!("fio option '{name}' is not supported by ioscope: {why}");
    }
    if FIO_ONLY_OPTIONS.contains(&name) {
        return format!("fio option '{name}' is not supported by ioscope yet");
    }
    if let Some(engines) = fio_engines_of(name) {
        let names: Vec<String> = engines.iter().map(|e| format!("ioengine={e}")).collect();
        // Engines that need what ioscope lacks say what that is.
        let needs: Vec<String> = engines.iter().filter_map(|e| Backend::needs(e)).collect();
        let why = if needs.is_empty() {
            String::new()
        } else {
            format!(": {}", needs.join("; "))
        };
        return format!(
            "'{name}' is an option of fio's {}, which ioscope does not support{why}",
            names.join(" and ")
        );
    }
    match closest(name) {
        Some(best) => format!("unknown option '{name}' (did you mean '{best}'?)"),
        None => format!("unknown option '{name}'"),
    }
}

/// The option ioscope takes whose name is nearest to `name`, if it is near
/// enough to be a likely typo. fio's options that ioscope refuses are no
/// candidates: following such a suggestion would only lead to a refusal.
fn closest(name: &str) -> Option<&'static str> {
    let candidates = OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()));
    let (best, distance) = candidates
        .map(|c| (c, strsim::levenshtein(name, c)))
        .min_by_key(|&(_, d)| d)?;
    let limit = (name.chars().count() / 3).max(2);
    (distance <= limit).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_defined_once() {
        let mut names: Vec<&str> = OPTIONS
            .iter()
            .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
            .collect();
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total);
        for name in names {
            assert!(
                !FIO_ONLY_OPTIONS.contains(&name),
                "{name} is both supported and listed as fio-only"
            );
        }
    }

    #[test]
    fn aliases_find_their_option() {
        let name = |alias| find(alias).map(|o| o.name);
        assert_eq!(name("readwrite"), Some("rw"));
        assert_eq!(name("io_limit"), Some("io_size"));
        assert_eq!(name("iodepth_batch_submit"), Some("iodepth_batch"));
        assert_eq!(name("wait_for_previous"), Some("stonewall"));
        assert_eq!(name("timeout"), Some("runtime"));
        assert!(find("fdp").is_none());
    }

    #[test]
    fn unknown_names_get_a_suggestion_or_a_fio_note() {
        assert!(not_an_option("fdp").starts_with("fio option 'fdp' is not supported by ioscope: "));
        assert_eq!(
            not_an_option("iodepht"),
            "unknown option 'iodepht' (did you mean 'iodepth'?)"
        );
        assert_eq!(not_an_option("zzzzzzzzzz"), "unknown option 'zzzzzzzzzz'");
    }

    #[test]
    fn suggestions_are_only_options_ioscope_takes() {
        // fio's iomem_align and port are refused by ioscope: suggesting them
        // would send the user from one refusal to another.
        for (typo, refused) in [("mem_align", "iomem_align"), ("pool", "port")] {
            let msg = not_an_option(typo);
            assert!(!msg.contains(&format!("'{refused}'")), "{msg}");
        }
        assert!(not_an_option("pool").contains("ioengine=rados"));
        assert!(
            not_an_option("rbdname").ends_with(
                "ioengine=rbd, which ioscope does not support: \
                 ioengine=rbd needs librbd (Ceph), which ioscope does not link"
            ),
            "{}",
            not_an_option("rbdname")
        );
        for def in OPTIONS {
            let typo = format!("{}x", def.name);
            if let Some(best) = closest(&typo) {
                assert!(find(best).is_some(), "{typo} -> {best}");
            }
        }
    }

    #[test]
    fn options_of_engines_ioscope_lacks_name_the_engine() {
        assert_eq!(
            not_an_option("nfs_url"),
            "'nfs_url' is an option of fio's ioengine=nfs, which ioscope does not support: \
             ioengine=nfs needs libnfs, which ioscope does not link"
        );
        assert!(not_an_option("sg_write_mode").contains("ioengine=sg"));
        assert!(is_job_option("program"));
        for (_, names) in crate::fio_only::FIO_ENGINE_OPTIONS {
            for name in *names {
                assert!(find(name).is_none(), "{name} is ioscope's");
                assert!(!FIO_ONLY_OPTIONS.contains(name), "{name} is listed twice");
            }
        }
    }
}
