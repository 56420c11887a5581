//! The command lines of `ioscope compare` and `ioscope sweep`: their own
//! flags, job files (bare arguments) and job options (every other
//! `--key=value`, handed to the job parser as they are, so that it is the
//! one to say what an option means or that it does not exist).

use std::path::PathBuf;

use anyhow::{bail, Context};

/// Which front end is reading its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Compare,
    Sweep,
}

impl Kind {
    pub fn program(self) -> &'static str {
        match self {
            Kind::Compare => "ioscope compare",
            Kind::Sweep => "ioscope sweep",
        }
    }
}

/// How the table is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
    Markdown,
    /// The JSON document's page (crates/report/src/html).
    Html,
}

/// What the command line asked for.
#[derive(Debug, Default)]
pub struct Args {
    pub help: bool,
    pub job_files: Vec<PathBuf>,
    /// Job options, as written (`--rw=randread`).
    pub job_options: Vec<String>,
    pub repeat: Option<usize>,
    pub warmup: usize,
    pub format: Option<Format>,
    pub output: Option<PathBuf>,
    /// compare: `--vs` lists, `--section` names, `--baseline`.
    pub vs: Vec<String>,
    pub sections: Vec<String>,
    pub baseline: Option<String>,
    /// sweep: `--sweep` axes, `--output-dir`.
    pub sweeps: Vec<String>,
    pub output_dir: Option<PathBuf>,
}

/// The flags of each front end that take a value.
const COMPARE_FLAGS: &[&str] = &[
    "repeat",
    "warmup",
    "output-format",
    "output",
    "vs",
    "section",
    "baseline",
];
const SWEEP_FLAGS: &[&str] = &[
    "repeat",
    "warmup",
    "output-format",
    "output",
    "sweep",
    "output-dir",
];

pub fn parse(
    kind: Kind,
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> anyhow::Result<Args> {
    let flags = match kind {
        Kind::Compare => COMPARE_FLAGS,
        Kind::Sweep => SWEEP_FLAGS,
    };
    let mut out = Args::default();
    let mut args = args.into_iter().map(|a| {
        a.into_string()
            .map_err(|a| anyhow::anyhow!("{} is not UTF-8", a.to_string_lossy()))
    });
    while let Some(arg) = args.next() {
        let arg = arg?;
        if arg == "--help" || arg == "-h" {
            out.help = true;
            continue;
        }
        let Some(option) = arg.strip_prefix("--") else {
            if arg.starts_with('-') && arg.len() > 1 {
                bail!("unknown option {arg}; see --help");
            }
            out.job_files.push(PathBuf::from(arg));
            continue;
        };
        let (name, inline) = match option.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (option, None),
        };
        if !flags.contains(&name) {
            // A job option: the job parser reads it; its value may be the
            // next argument, as in a run (`--rw read`).
            if inline.is_none() && ioscope_job::takes_argument(name) {
                let value = args
                    .next()
                    .transpose()?
                    .with_context(|| format!("--{name} needs a value"))?;
                out.job_options.push(format!("--{name}={value}"));
            } else {
                out.job_options.push(arg);
            }
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => args
                .next()
                .transpose()?
                .with_context(|| format!("--{name} needs a value"))?,
        };
        match name {
            "repeat" => out.repeat = Some(count(name, &value)?),
            "warmup" => out.warmup = count(name, &value)?,
            "output-format" => out.format = Some(format(&value)?),
            "output" => out.output = Some(PathBuf::from(value)),
            "vs" => out.vs.push(value),
            "section" => out.sections.push(value),
            "baseline" => out.baseline = Some(value),
            "sweep" => out.sweeps.push(value),
            "output-dir" => out.output_dir = Some(PathBuf::from(value)),
            _ => unreachable!("every name in the flag lists is matched"),
        }
    }
    Ok(out)
}

fn count(name: &str, value: &str) -> anyhow::Result<usize> {
    value
        .parse()
        .map_err(|_| anyhow::anyhow!("--{name}={value}: not a whole number"))
}

fn format(value: &str) -> anyhow::Result<Format> {
    Ok(match value {
        "normal" => Format::Normal,
        "json" => Format::Json,
        "markdown" => Format::Markdown,
        "html" => Format::Html,
        _ => bail!("--output-format={value}: choose normal, json, markdown or html"),
    })
}

/// Splits a comma-separated list; `\,` is a comma inside an item (`bs=4k\,8k`).
pub fn split_commas(list: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                chars.next();
                items.last_mut().expect("never empty").push(',');
            }
            ',' => items.push(String::new()),
            c => items.last_mut().expect("never empty").push(c),
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(kind: Kind, list: &[&str]) -> anyhow::Result<Args> {
        parse(kind, list.iter().map(|s| s.into()))
    }

    #[test]
    fn flags_job_options_and_files_are_told_apart() {
        let a = args(
            Kind::Compare,
            &[
                "--rw=read",
                "--vs",
                "ioengine=null",
                "--repeat=3",
                "job.fio",
                "--baseline",
                "x",
            ],
        )
        .unwrap();
        assert_eq!(a.job_options, ["--rw=read"]);
        assert_eq!(a.vs, ["ioengine=null"]);
        assert_eq!(a.repeat, Some(3));
        assert_eq!(a.job_files, [PathBuf::from("job.fio")]);
        assert_eq!(a.baseline.as_deref(), Some("x"));
    }

    #[test]
    fn a_job_options_value_may_be_the_next_argument() {
        let a = args(Kind::Sweep, &["--rw", "read", "--time_based", "job.fio"]).unwrap();
        assert_eq!(a.job_options, ["--rw=read", "--time_based"]);
        assert_eq!(a.job_files, [PathBuf::from("job.fio")]);
    }

    #[test]
    fn a_flag_of_the_other_front_end_is_a_job_option() {
        let a = args(Kind::Sweep, &["--vs=ioengine=null"]).unwrap();
        assert_eq!(a.job_options, ["--vs=ioengine=null"]);
    }

    #[test]
    fn bad_values_are_refused() {
        let e = args(Kind::Compare, &["--repeat=x"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--repeat=x"), "{e}");
        let e = args(Kind::Sweep, &["--output-format=xml"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("choose normal, json, markdown or html"), "{e}");
        let e = args(Kind::Compare, &["--vs"]).unwrap_err().to_string();
        assert!(e.contains("--vs needs a value"), "{e}");
    }

    #[test]
    fn an_escaped_comma_stays_in_its_item() {
        assert_eq!(split_commas(r"bs=4k\,8k,hipri=1"), ["bs=4k,8k", "hipri=1"]);
        assert_eq!(split_commas("1,2,4"), ["1", "2", "4"]);
        assert_eq!(split_commas(""), [""]);
    }
}
