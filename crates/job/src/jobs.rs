//! Turning sections into jobs in fio's order, with fio's inheritance:
//!
//! - The command line is read first. Its global options set the defaults,
//!   its `--name` jobs come first in the job list.
//! - The first job file starts from those defaults; every later job file
//!   starts from fio's plain defaults again (fio resets its default job
//!   between files), and its first job gets a stonewall, as fio separates
//!   job files.
//! - A `[global]` section changes the defaults for the jobs after it only.
//! - Within a job-file section the options fio gives priority (`kb_base`,
//!   `unit_base`, ...) are applied first, so sizes in the same section use
//!   them, `filename` after the rest (after `directory`), and engine
//!   options last, once the section's engine is known. Command-line options apply
//!   in order, as fio's getopt loop takes them, except that an engine
//!   option that the engine in effect does not take waits for the end of
//!   its section (fio refuses `--sqthread_poll` before `--ioengine=io_uring`
//!   as unrecognized; the order carries no meaning, so ioscope takes it).
//! - An engine option in a global section that the global's engine does not
//!   take waits for the jobs: each job applies it after its own section,
//!   checked against the job's engine (fio refuses it in the global), unless
//!   the job sets the same option itself.

use crate::error::{ParseError, Place};
use crate::ini::{Entry, Section};
use crate::options::{self, OptionDef};
use crate::settings::Settings;
use crate::spec::{JobSpec, Origin};
use crate::Parsed;

pub(crate) struct Builder<'a> {
    defaults: Settings,
    /// Engine options of global sections waiting for a job's engine.
    pending: Vec<(Entry, &'static OptionDef)>,
    /// The global options as written, for fio's "global options" echo.
    global_echo: Vec<(String, String)>,
    /// fio's `--showcmd` line of each job file read.
    command_lines: Vec<String>,
    jobs: Vec<JobSpec>,
    filter: &'a [String],
}

impl<'a> Builder<'a> {
    pub(crate) fn new(filter: &'a [String]) -> Builder<'a> {
        Builder {
            defaults: Settings::defaults(),
            pending: Vec::new(),
            global_echo: Vec::new(),
            command_lines: Vec::new(),
            jobs: Vec::new(),
            filter,
        }
    }

    /// Back to fio's defaults, as before every job file after the first.
    pub(crate) fn reset_defaults(&mut self) {
        self.defaults = Settings::defaults();
        self.pending.clear();
        self.global_echo.clear();
    }

    /// Adds the jobs of one group of sections; `stonewall_first` marks the
    /// first job of it.
    pub(crate) fn add_sections(
        &mut self,
        sections: &[Section],
        from_command_line: bool,
        mut stonewall_first: bool,
    ) -> Result<(), ParseError> {
        // fio's --showcmd turns job files, not the command line, into one.
        let mut line = (!from_command_line).then(|| String::from("fio "));
        for section in sections {
            // fio takes any section whose name starts with "global" as global.
            let global = section.name.starts_with("global");
            // On the command line the `--name=X` that opened the section is
            // its first entry; it names the job but is no global option.
            let entries = if from_command_line
                && global
                && section.entries.first().is_some_and(|e| e.key == "name")
            {
                &section.entries[1..]
            } else {
                &section.entries[..]
            };
            if global {
                let mut echo = Vec::new();
                let waiting =
                    apply_section(&mut self.defaults, entries, from_command_line, &mut echo)?;
                self.pending.extend(waiting);
                if let Some(line) = &mut line {
                    push_options(line, &echo);
                }
                for (name, value) in echo {
                    echo_option(&mut self.global_echo, name, value);
                }
                continue;
            }
            if !self.filter.is_empty() && !self.filter.contains(&section.name) {
                continue;
            }
            let mut settings = self.defaults.clone();
            // fio's get_new_job sets uid and gid back to -1 for each job:
            // a global section's uid or gid reaches none of them.
            settings.spec.process.uid = None;
            settings.spec.process.gid = None;
            if stonewall_first {
                settings.spec.stonewall = true;
                stonewall_first = false;
            }
            let mut echo = Vec::new();
            let waiting = apply_section(&mut settings, entries, from_command_line, &mut echo)?;
            // The global's waiting engine options first, then the job's own;
            // an option the job sets itself overrides the global's.
            let inherited = self.pending.iter().filter(|(_, def)| {
                !entries
                    .iter()
                    .any(|e| options::find(&e.key).is_some_and(|d| d.name == def.name))
            });
            for (entry, def) in inherited.chain(waiting.iter()) {
                def.check_engine(settings.spec.ioengine)
                    .map_err(|e| ParseError::at(&entry.place, e))?;
                apply_entry(&mut settings, entry, def)?;
            }
            let mut spec = settings.resolve().map_err(|e| {
                ParseError::at(&section.place, format!("job '{}': {e}", section.name))
            })?;
            // A `name=` option (here or inherited) renames the job, as in fio.
            if spec.name.is_empty() {
                spec.name = section.name.clone();
            }
            spec.origin = match &section.place {
                Place::File { path, line } => Origin::File {
                    path: path.clone(),
                    line: *line,
                },
                Place::CommandLine => Origin::CommandLine,
            };
            if let Some(line) = &mut line {
                line.push_str(&format!("--name={} ", section.name));
                push_options(line, &echo);
            }
            spec.options = echo;
            self.jobs.push(spec);
        }
        if let Some(mut line) = line {
            line.push('\n');
            self.command_lines.push(line);
        }
        Ok(())
    }

    /// The jobs added so far.
    pub(crate) fn job_count(&self) -> usize {
        self.jobs.len()
    }

    pub(crate) fn finish(self) -> Result<Parsed, ParseError> {
        if self.jobs.is_empty() {
            let hint = if self.filter.is_empty() {
                "give a job file or --name=NAME with job options".to_string()
            } else {
                format!("no job section is named {}", self.filter.join(" or "))
            };
            return Err(ParseError::new(format!("no jobs defined: {hint}")));
        }
        Ok(Parsed {
            jobs: self.jobs,
            global_options: self.global_echo,
            command_lines: self.command_lines,
            profile_jobs: 0,
            act: None,
            deprecated: Vec::new(),
        })
    }
}

/// Applies a section's entries to `settings` and records the options it set
/// in `echo` (canonical names, a repeated option keeping its first place and
/// its last value, as fio's JSON does). Returns the engine options that the
/// section's engine does not take, for the caller to apply once the job's
/// engine is known.
fn apply_section(
    settings: &mut Settings,
    entries: &[Entry],
    in_order: bool,
    echo: &mut Vec<(String, String)>,
) -> Result<Vec<(Entry, &'static OptionDef)>, ParseError> {
    let mut resolved: Vec<(&Entry, &'static OptionDef)> = Vec::with_capacity(entries.len());
    for entry in entries {
        let def = options::find(&entry.key)
            .ok_or_else(|| ParseError::at(&entry.place, options::not_an_option(&entry.key)))?;
        check_unset_vars(entry, def)?;
        resolved.push((entry, def));
    }
    // fio's option priorities (options.c's .prio), engine options being
    // parsed once the section's engine is loaded.
    let rank = |def: &OptionDef| match def.name {
        "kb_base" | "unit_base" | "lockfile" | "cpus_allowed_policy" => 0,
        _ if def.is_engine_option() => 3,
        "filename" | "filename_format" => 2,
        _ => 1,
    };
    if !in_order {
        // A stable sort keeps the written order within each rank.
        resolved.sort_by_key(|(_, def)| rank(def));
    }
    let mut waiting = Vec::new();
    for (entry, def) in resolved {
        // fio echoes every option given, engine options included (after
        // the others in a job file, as they are parsed last); a bare flag
        // (`time_based`) with an empty value, as fio 3.42 does.
        echo_option(
            echo,
            def.name.to_string(),
            entry.value.clone().unwrap_or_default(),
        );
        if def.check_engine(settings.spec.ioengine).is_err() {
            waiting.push((entry.clone(), def));
            continue;
        }
        apply_entry(settings, entry, def)?;
    }
    // On the command line an engine option may come before its --ioengine;
    // the section's engine is known now.
    let mut later = Vec::new();
    for (entry, def) in waiting {
        if def.check_engine(settings.spec.ioengine).is_ok() {
            apply_entry(settings, &entry, def)?;
        } else {
            later.push((entry, def));
        }
    }
    Ok(later)
}

fn apply_entry(
    settings: &mut Settings,
    entry: &Entry,
    def: &'static OptionDef,
) -> Result<(), ParseError> {
    settings
        .apply(def, entry.value.as_deref())
        .map_err(|e| match &entry.value {
            Some(v) => ParseError::at(&entry.place, format!("{}={v}: {e}", entry.key)),
            None => ParseError::at(&entry.place, format!("{}: {e}", entry.key)),
        })
}

/// fio replaces an unset `${VAR}` with nothing. In a file or directory
/// name that silently names another target (`filename=${DEV}` becomes the
/// job's default file, `${DIR}/f` becomes `/f`), so it is an error there;
/// elsewhere it is an error where the value is left empty, as in fio.
fn check_unset_vars(entry: &Entry, def: &OptionDef) -> Result<(), ParseError> {
    let Some(var) = entry.unset_vars.first() else {
        return Ok(());
    };
    let value = entry.value.as_deref().unwrap_or("");
    let names_a_target = matches!(def.name, "filename" | "directory");
    if !names_a_target && !value.is_empty() {
        return Ok(());
    }
    let got = if value.is_empty() {
        "no value".to_string()
    } else {
        format!("'{value}'")
    };
    Err(ParseError::at(
        &entry.place,
        format!(
            "{}: the environment variable {var} is not set, which leaves {got} \
             (set it, or write the value itself)",
            entry.key
        ),
    ))
}

/// Records an option in an echo: a repeated option keeps its first place
/// and takes its last value.
fn echo_option(echo: &mut Vec<(String, String)>, name: String, value: String) {
    match echo.iter_mut().find(|(n, _)| *n == name) {
        Some(slot) => slot.1 = value,
        None => echo.push((name, value)),
    }
}

/// fio's dump_print_option() for each option: `--name=value ` (a
/// description in double quotes), `--name ` for a bare flag.
fn push_options(line: &mut String, echo: &[(String, String)]) {
    for (name, value) in echo {
        if value.is_empty() {
            line.push_str(&format!("--{name} "));
        } else if name == "description" {
            line.push_str(&format!("--{name}=\"{value}\" "));
        } else {
            line.push_str(&format!("--{name}={value} "));
        }
    }
}
