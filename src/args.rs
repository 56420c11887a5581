//! The command line, split as fio splits it: program options (`--output`,
//! `--output-format`, ...), job files (bare arguments), and job options
//! (every other `--key=value`, handed to the job parser in order).

use std::path::PathBuf;
use std::time::Duration;

use crate::client::JobFile;
use crate::status_line::Eta;
use anyhow::{bail, Context};
use ioscope_report::{Format, TerseVersion};

/// What the user asked for.
#[derive(Debug, PartialEq)]
pub enum Action {
    Run,
    Version,
    Help,
    /// `--cmdhelp[=NAME]`.
    CmdHelp(String),
    /// `--enghelp[=ENGINE[,OPTION]]` (empty: list the engines).
    EngHelp(String),
    /// `--debug=?`: list the debug categories.
    DebugHelp,
    /// `--doc=PAGE`: ioscope's own, not a fio option, and left out of
    /// `--help`: prints a page of docs/ generated from the binary's
    /// tables (`--doc=options` is docs/options.md).
    Doc(String),
    /// `--inflate-log=FILE`: print a compressed log (`.log.fz`) as text.
    InflateLog(PathBuf),
    /// `--crctest[=NAMES]`: time the verify checksums.
    CrcTest(Option<String>),
    /// `--cpuclock-test`: check that the CPUs' time-stamp counters agree.
    CpuClockTest,
    /// `--idle-prof=calibrate`: time the idle threads' unit of work.
    IdleCalibrate,
    /// `--server[=ARGS]`: serve fio clients (where to listen).
    Server(Option<String>),
    /// `--client=ARGS` (repeatable): run the jobs on fio servers.
    Client(Vec<crate::client::ClientSpec>),
}

#[derive(Debug)]
pub struct Args {
    pub action: Action,
    pub formats: Vec<Format>,
    pub output: Option<PathBuf>,
    pub eta: Eta,
    /// `--status-interval`: a full report this often while the run goes on.
    pub status_interval: Option<Duration>,
    /// `--bandwidth-log[=NAME]`: the aggregate bandwidth log's prefix.
    pub bandwidth_log: Option<String>,
    /// `--idle-prof=system|percpu`.
    pub idle_prof: Option<ioscope_run::IdleProf>,
    /// `--eta-interval`: how often the status line is redrawn.
    pub eta_interval: Duration,
    /// `--eta-newline`: start a new status line this often.
    pub eta_newline: Option<Duration>,
    /// `--showcmd`: print each job file as one command line, run nothing.
    pub show_cmd: bool,
    /// `--aux-path`: where verify state and dump files go.
    pub aux_path: Option<PathBuf>,
    /// `--trigger-file`, `--trigger-timeout`, `--trigger`.
    pub trigger: ioscope_run::Trigger,
    /// `--trigger-remote`: with `--client`, the command the servers run
    /// when the trigger fires.
    pub trigger_remote: Option<String>,
    /// `--debug=LIST`: what to trace.
    pub debug: crate::debug::Debug,
    pub parse_only: bool,
    /// `--merge-blktrace-only`: write the jobs' merge_blktrace_file traces,
    /// run nothing.
    pub merge_only: bool,
    /// `--readonly`: refuse every job that writes or trims.
    pub readonly: bool,
    /// `--daemonize=PIDFILE`: with `--server`, serve in the background and
    /// write the server's pid there (without `--server` fio ignores it).
    pub daemonize: Option<PathBuf>,
    /// `--warnings-fatal`: a run with any notice fails.
    pub warnings_fatal: bool,
    pub job_input: ioscope_job::ParseInput,
}

/// fio's shortest `--eta-interval` (its DISK_UTIL_MSEC).
const MIN_ETA_INTERVAL: Duration = Duration::from_millis(250);

pub const USAGE: &str = "\
usage: ioscope [options] [job files] [job options]

Runs fio job files and fio-style command-line jobs.

  --output=FILE          write the results to FILE instead of stdout
  --output-format=LIST   normal, terse, json, json+, html (comma-separated for
                         several; html with others needs --output=FILE and
                         goes to FILE.html)
  --minimal              terse output only (--output-format=terse)
  --append-terse         add terse output to the formats given so far
  --terse-version=N      the terse line's version: 2, 3 (default), 4 or 5
  --eta=WHEN             the live status line: auto (default), always, never
  --status-interval=T    a full report of the run so far every T (seconds,
                         or with a unit: 500ms, 2s, 1m); SIGUSR1 asks for one
  --eta-interval=TIME    redraw the status line every TIME (default 1s,
                         at least 250ms; a plain number is in seconds)
  --eta-newline=TIME     start a new status line every TIME instead of
                         redrawing one
  --parse-only           check the job files and options, run nothing
  --merge-blktrace-only  write each job's merge_blktrace_file, run nothing
  --readonly             refuse every job that writes or trims (a safety check)
  --warnings-fatal       fail (exit 1) when the run has any notice, and print
                         the notices on stderr as errors
  --section=NAME         run only job section NAME (may be repeated)
  --profile=NAME         add the jobs of fio's profile NAME (tiobench, act) after
                         the others
  --showcmd              print each job file as one fio command line, run
                         nothing
  --debug=LIST           fio's debug output; ioscope shows `file`, `io` and
                         `random` (`all` is those three); fio's other
                         categories are refused by name; --debug=? lists them
  --cmdhelp[=OPTION]     describe a job option, or all of them
  --inflate-log=FILE     print a compressed log (log_store_compressed) as text
  --server[=ARGS]        serve fio clients (fio --client=HOST job.fio), with
                         fio 3.33's protocol; ARGS as fio's: [ip:|ip6:]HOST[,PORT],
                         :PORT or sock:PATH (default: every address, port 8765)
  --daemonize=PIDFILE    with --server: serve in the background, its pid in
                         PIDFILE
  --client=ARGS          run the job files and job options on a fio server
                         (fio's or ioscope's), ARGS as --server's or a file
                         listing servers; repeat for more servers
  --remote-config=FILE   with --client: a job file on that server, which it
                         loads itself
  --crctest[=NAMES]      time the verify checksums (all, or NAMES, comma-separated)
  --cpuclock-test        check that the time-stamp counters of the CPUs agree
  --idle-prof=WHAT       how idle the CPUs stay during the run: system (their
                         mean) or percpu (each too); calibrate only times the
                         unit of work and runs nothing
  --bandwidth-log[=NAME] write the bandwidth of all jobs together, every
                         500ms, to NAME-read_bw.log, NAME-write_bw.log and
                         NAME-trim_bw.log (NAME: agg)
  --enghelp[=ENGINE[,OPTION]]
                         list the engines, an engine's options, or one of them
  --aux-path=DIR         write verify state files (verify_state_save) and
                         verify_dump files in DIR, and read state files there
  --trigger-file=FILE    when FILE appears (it is removed), stop every job,
                         saving its verify state, then run the --trigger
                         command
  --trigger-timeout=TIME the same once TIME has passed since the start
  --trigger=CMD          the command (run with sh -c) for the two above
  --trigger-remote=CMD   with --client: the two above stop the servers' jobs,
                         whose verify state comes back here, and CMD runs on
                         the servers
  --max-jobs=N           accepted and ignored, as fio ignores it
  --alloc-size=KIB       accepted and ignored: it sizes fio's shared memory
                         pool for job processes; ioscope's jobs are threads
  --version              print the version
  --help                 this text

Under the name fio (a link made by `ioscope install-fio-alias [--force]
[DIR]`), --version says fio-3.42 (ioscope-X.Y.Z).

`ioscope report FILE.json [--output=FILE.html]` renders a saved JSON document
(a run's json+, a compare or a sweep) as an HTML page.

Job options are fio's: options before the first --name are global, each
--name starts a job, e.g.
  ioscope --ioengine=psync --size=64m --name=seq --rw=read --name=rand --rw=randread
";

pub fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<Args> {
    let mut out = Args {
        action: Action::Run,
        formats: vec![Format::Normal],
        output: None,
        eta: Eta::Auto,
        status_interval: None,
        bandwidth_log: None,
        idle_prof: None,
        eta_interval: Duration::from_secs(1),
        eta_newline: None,
        show_cmd: false,
        aux_path: None,
        trigger: ioscope_run::Trigger::default(),
        trigger_remote: None,
        debug: crate::debug::Debug::default(),
        parse_only: false,
        merge_only: false,
        readonly: false,
        daemonize: None,
        warnings_fatal: false,
        job_input: ioscope_job::ParseInput::default(),
    };
    let mut terse_version = TerseVersion::default();
    // Job files right after a `--client` are that server's own, as in
    // fio; the others go to every server without files of its own.
    let mut own_files = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(opt) = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-').filter(|_| arg.len() > 1))
        else {
            match &mut out.action {
                Action::Client(servers) if own_files => {
                    if let Some(last) = servers.last_mut() {
                        last.job_files.push(JobFile::Here(PathBuf::from(arg)));
                    }
                }
                _ => out.job_input.job_files.push(PathBuf::from(arg)),
            }
            continue;
        };
        own_files = false;
        let (name, value) = match opt.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (opt, None),
        };
        let name = whole_name(name)?;
        // A program option's value may also be the next argument, as getopt allows.
        let mut value_of = |name: &str| -> anyhow::Result<String> {
            match &value {
                Some(v) => Ok(v.clone()),
                None => args
                    .next()
                    .with_context(|| format!("option --{name} needs a value")),
            }
        };
        match name {
            "output" => out.output = Some(PathBuf::from(value_of(name)?)),
            "output-format" => out.formats = parse_formats(&value_of(name)?)?,
            // As in fio: --minimal replaces the formats given so far,
            // --append-terse adds terse to them, and a later
            // --output-format replaces either.
            "minimal" => out.formats = vec![Format::Terse(terse_version)],
            "append-terse" => add_format(&mut out.formats, Format::Terse(terse_version)),
            "terse-version" => terse_version = parse_terse_version(&value_of(name)?)?,
            "eta" => out.eta = parse_eta(&value_of(name)?)?,
            "status-interval" => {
                out.status_interval = Some(parse_status_interval(&value_of(name)?)?)
            }
            "eta-interval" => {
                let t = parse_time(name, &value_of(name)?)?;
                if t < MIN_ETA_INTERVAL {
                    bail!("--eta-interval: {t:?} is too short (at least 250ms)");
                }
                out.eta_interval = t;
            }
            "eta-newline" => {
                let t = parse_time(name, &value_of(name)?)?;
                if t < Duration::from_millis(1) {
                    bail!("--eta-newline: {t:?} is too short (at least 1ms)");
                }
                out.eta_newline = Some(t);
            }
            "showcmd" => out.show_cmd = true,
            "debug" => match crate::debug::parse(&value_of(name)?)? {
                Some(d) => out.debug = d,
                None => out.action = Action::DebugHelp,
            },
            "enghelp" => out.action = Action::EngHelp(value.unwrap_or_default()),
            "aux-path" => out.aux_path = Some(PathBuf::from(value_of(name)?)),
            "trigger-file" => out.trigger.file = Some(PathBuf::from(value_of(name)?)),
            "trigger-timeout" => out.trigger.timeout = Some(parse_time(name, &value_of(name)?)?),
            "trigger" => out.trigger.command = Some(value_of(name)?),
            "trigger-remote" => out.trigger_remote = Some(value_of(name)?),
            // fio ignores --max-jobs ("we don't track/need this anymore").
            "max-jobs" => {
                value_of(name)?;
            }
            // fio's smalloc pool serves job processes; ioscope's jobs are
            // threads sharing its memory, so there is nothing to size.
            "alloc-size" => {
                let v = value_of(name)?;
                if v.trim().parse::<u64>().is_err() {
                    bail!("--alloc-size: expected a size in KiB, not '{v}'");
                }
            }
            "section" => out.job_input.sections.push(value_of(name)?),
            "profile" => out.job_input.profile = Some(value_of(name)?),
            "parse-only" => out.parse_only = true,
            "merge-blktrace-only" => out.merge_only = true,
            "readonly" => out.readonly = true,
            "warnings-fatal" => out.warnings_fatal = true,
            "cmdhelp" => out.action = Action::CmdHelp(value.unwrap_or_else(|| "all".into())),
            "doc" => out.action = Action::Doc(value_of(name)?),
            // fio 3.42's optional name (3.33 takes none), `agg` by default.
            "bandwidth-log" => {
                out.bandwidth_log = Some(value.clone().unwrap_or_else(|| "agg".into()))
            }
            "inflate-log" => out.action = Action::InflateLog(PathBuf::from(value_of(name)?)),
            // Its value is optional, as in fio: every checksum without one.
            "crctest" => out.action = Action::CrcTest(value.clone()),
            "cpuclock-test" => out.action = Action::CpuClockTest,
            "server" => {
                if matches!(out.action, Action::Client(_)) {
                    bail!("--server: can't be both client and server");
                }
                out.action = Action::Server(value.clone());
            }
            "daemonize" => out.daemonize = Some(PathBuf::from(value_of(name)?)),
            "client" => {
                if matches!(out.action, Action::Server(_)) {
                    bail!("--client: can't be both client and server");
                }
                let at = value_of(name)?;
                let (servers, listed) = crate::client::ClientSpec::from_arg(&at)?;
                own_files = !listed;
                match &mut out.action {
                    Action::Client(all) => all.extend(servers),
                    _ => out.action = Action::Client(servers),
                }
            }
            // fio's: a job file on the server, for the last --client.
            "remote-config" => {
                let file = value_of(name)?;
                match &mut out.action {
                    Action::Client(servers) if !servers.is_empty() => {
                        let last = servers.len() - 1;
                        servers[last].job_files.push(JobFile::There(file));
                    }
                    _ => bail!(
                        "--remote-config={file}: no --client before it (it names a job file \
                         on the server of the --client it follows)"
                    ),
                }
            }
            "idle-prof" => match value_of(name)?.as_str() {
                "calibrate" => out.action = Action::IdleCalibrate,
                "system" => out.idle_prof = Some(ioscope_run::IdleProf::System),
                "percpu" => out.idle_prof = Some(ioscope_run::IdleProf::PerCpu),
                v => bail!(
                    "--idle-prof: incorrect option '{v}' (expected calibrate, system or percpu)"
                ),
            },
            "version" | "v" => out.action = Action::Version,
            "help" | "h" => out.action = Action::Help,
            // fio refuses it the same way: its logs are job options now.
            "latency-log" => {
                bail!("--latency-log is deprecated: use the job option write_lat_log")
            }
            // A job option's value may be the next argument (`--rw read`),
            // and its name may follow one dash (`-rw=read`), as fio's
            // getopt_long_only reads them.
            n if ioscope_job::is_job_option(n) => {
                let option = if value.is_some() || ioscope_job::takes_argument(n) {
                    format!("--{n}={}", value_of(n)?)
                } else {
                    format!("--{n}")
                };
                out.job_input.cli_options.push(option);
            }
            // Job options are spelled with underscores; a dashed name can
            // only be a mistyped program option.
            n if n.contains('-') && !ioscope_job::is_job_option(n) => {
                bail!("{}", unknown_program_option(n))
            }
            _ if arg.starts_with("--") => out.job_input.cli_options.push(arg),
            _ => bail!("unknown option {arg}; run ioscope --help for the program options"),
        }
    }
    // fio's terse_version applies wherever it stands among the options.
    for f in &mut out.formats {
        if let Format::Terse(v) = f {
            *v = terse_version;
        }
    }
    Ok(out)
}

/// The text of `--doc=PAGE`.
pub fn doc(page: &str) -> anyhow::Result<String> {
    match page {
        "options" => Ok(ioscope_job::options_markdown(&format!(
            "ioscope-{}",
            env!("CARGO_PKG_VERSION")
        ))),
        "engines" => Ok(ioscope_job::engines_table()),
        other => bail!("--doc: unknown page '{other}' (expected options or engines)"),
    }
}

/// The program options ioscope knows, for suggestions (`--doc`, a
/// maintainer's option, is left out).
const PROGRAM_OPTIONS: &[&str] = &[
    "output",
    "output-format",
    "minimal",
    "append-terse",
    "terse-version",
    "eta",
    "status-interval",
    "eta-interval",
    "eta-newline",
    "showcmd",
    "debug",
    "enghelp",
    "aux-path",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "max-jobs",
    "alloc-size",
    "section",
    "parse-only",
    "merge-blktrace-only",
    "profile",
    "readonly",
    "warnings-fatal",
    "cmdhelp",
    "inflate-log",
    "bandwidth-log",
    "crctest",
    "server",
    "daemonize",
    "client",
    "remote-config",
    "cpuclock-test",
    "idle-prof",
    "version",
    "help",
];

/// The option `name` stands for: itself, or the one option whose name it
/// starts, as fio's getopt_long_only takes an unambiguous start of a name
/// (`--rwmixr=30`); refused when it starts several. One letter is left as
/// it is (`-v`, `-h`: getopt's short options).
fn whole_name(name: &str) -> anyhow::Result<&str> {
    let known = || {
        PROGRAM_OPTIONS
            .iter()
            .copied()
            .chain(ioscope_job::job_option_names())
    };
    if name.len() < 2 || known().any(|o| o == name) {
        return Ok(name);
    }
    let mut starting: Vec<&str> = known().filter(|o| o.starts_with(name)).collect();
    starting.sort_unstable();
    starting.dedup();
    match starting[..] {
        [] => Ok(name),
        [whole] => Ok(whole),
        _ => {
            let all: Vec<String> = starting.iter().map(|o| format!("'--{o}'")).collect();
            bail!(
                "option '--{name}' is ambiguous; possibilities: {}",
                all.join(" ")
            )
        }
    }
}

fn unknown_program_option(name: &str) -> String {
    let closest = PROGRAM_OPTIONS
        .iter()
        .map(|o| (strsim::levenshtein(name, o), *o))
        .min()
        .filter(|(d, _)| *d <= 3);
    match closest {
        Some((_, o)) => format!("unknown option --{name} (did you mean --{o}?)"),
        None => format!("unknown option --{name}; run ioscope --help for the program options"),
    }
}

fn parse_formats(list: &str) -> anyhow::Result<Vec<Format>> {
    let mut formats = Vec::new();
    for f in list.split(',') {
        let format = match f.trim() {
            "normal" => Format::Normal,
            "json" => Format::Json,
            "json+" => Format::JsonPlus,
            "html" => Format::Html,
            // fio's aliases for terse.
            "terse" | "minimal" | "csv" => Format::Terse(TerseVersion::default()),
            other => bail!(
                "--output-format: unknown format '{other}' (expected normal, terse, json, json+ or html)"
            ),
        };
        add_format(&mut formats, format);
    }
    Ok(formats)
}

/// fio's `--status-interval`: a time, in seconds without a unit, of at
/// least a millisecond (fio's "status interval too small" below that).
fn parse_status_interval(value: &str) -> anyhow::Result<Duration> {
    let t = parse_time("status-interval", value)?;
    if t < Duration::from_millis(1) {
        bail!("--status-interval: '{value}' is too short (at least 1ms)");
    }
    Ok(t)
}

fn add_format(formats: &mut Vec<Format>, format: Format) {
    if !formats.contains(&format) {
        formats.push(format);
    }
}

fn parse_terse_version(value: &str) -> anyhow::Result<TerseVersion> {
    value
        .parse()
        .ok()
        .and_then(TerseVersion::new)
        .with_context(|| {
            format!("--terse-version: '{value}' is not a terse version (expected 2, 3, 4 or 5)")
        })
}

/// A time as fio's program options take it: a plain number is in seconds.
fn parse_time(name: &str, value: &str) -> anyhow::Result<Duration> {
    ioscope_job::time_us(value, 1_000_000)
        .map(Duration::from_micros)
        .map_err(|e| anyhow::anyhow!("--{name}: {e}"))
}

fn parse_eta(value: &str) -> anyhow::Result<Eta> {
    match value {
        "never" => Ok(Eta::Never),
        "always" => Ok(Eta::Always),
        "auto" => Ok(Eta::Auto),
        other => bail!("--eta: unknown value '{other}' (expected auto, always or never)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> anyhow::Result<Args> {
        parse(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn program_options_job_files_and_job_options_are_told_apart() {
        let a = args(&[
            "--output-format=normal,json",
            "job.fio",
            "--output",
            "out.txt",
            "--name=a",
            "--rw=read",
            "--time_based",
        ])
        .unwrap();
        assert_eq!(a.formats, vec![Format::Normal, Format::Json]);
        assert_eq!(a.output, Some(PathBuf::from("out.txt")));
        assert_eq!(a.job_input.job_files, vec![PathBuf::from("job.fio")]);
        assert_eq!(
            a.job_input.cli_options,
            vec!["--name=a", "--rw=read", "--time_based"]
        );
    }

    #[test]
    fn warnings_fatal_is_a_program_option() {
        assert!(!args(&["--name=a"]).unwrap().warnings_fatal);
        let a = args(&["--warnings-fatal", "--name=a"]).unwrap();
        assert!(a.warnings_fatal);
        assert_eq!(a.job_input.cli_options, vec!["--name=a"]);
        let e = args(&["--warnings-fatl"]).unwrap_err().to_string();
        assert!(e.contains("did you mean --warnings-fatal"), "{e}");
    }

    #[test]
    fn an_unknown_output_format_is_refused_by_name() {
        let e = args(&["--output-format=xml"]).unwrap_err().to_string();
        assert!(e.contains("xml"), "{e}");
    }

    #[test]
    fn job_files_after_a_client_are_its_own_as_in_fio() {
        let a = args(&[
            "--client=a",
            "x.fio",
            "--client=b",
            "y.fio",
            "z.fio",
            "--rw=read",
            "all.fio",
        ])
        .unwrap();
        let Action::Client(servers) = &a.action else {
            panic!("{:?}", a.action);
        };
        let own: Vec<(&str, Vec<JobFile>)> = servers
            .iter()
            .map(|s| (s.at.as_str(), s.job_files.clone()))
            .collect();
        let here = |p: &str| JobFile::Here(PathBuf::from(p));
        assert_eq!(
            own,
            [
                ("a", vec![here("x.fio")]),
                ("b", vec![here("y.fio"), here("z.fio")]),
            ]
        );
        assert_eq!(a.job_input.job_files, vec![PathBuf::from("all.fio")]);
        assert_eq!(a.job_input.cli_options, vec!["--rw=read"]);
        let e = args(&["--server", "--client=a"]).unwrap_err().to_string();
        assert!(e.contains("can't be both client and server"), "{e}");
    }

    #[test]
    fn remote_config_names_a_file_on_the_last_clients_server() {
        let a = args(&["--client=a", "x.fio", "--remote-config=/srv/y.fio"]).unwrap();
        let Action::Client(servers) = &a.action else {
            panic!("{:?}", a.action);
        };
        assert_eq!(
            servers[0].job_files,
            [
                JobFile::Here(PathBuf::from("x.fio")),
                JobFile::There("/srv/y.fio".into())
            ]
        );
        let e = args(&["--remote-config=y.fio"]).unwrap_err().to_string();
        assert!(e.contains("no --client before it"), "{e}");
    }

    #[test]
    fn terse_formats_combine_as_in_fio() {
        let terse = |v| Format::Terse(TerseVersion::new(v).unwrap());
        assert_eq!(args(&["--minimal"]).unwrap().formats, vec![terse(3)]);
        assert_eq!(
            args(&["--append-terse", "--terse-version=5"])
                .unwrap()
                .formats,
            vec![Format::Normal, terse(5)]
        );
        assert_eq!(
            args(&["--output-format=json", "--append-terse"])
                .unwrap()
                .formats,
            vec![Format::Json, terse(3)]
        );
        // A later --output-format replaces what --minimal chose.
        assert_eq!(
            args(&[
                "--terse-version",
                "2",
                "--minimal",
                "--output-format=csv,normal"
            ])
            .unwrap()
            .formats,
            vec![terse(2), Format::Normal]
        );
        assert_eq!(
            args(&["--output-format=normal,minimal,terse"])
                .unwrap()
                .formats,
            vec![Format::Normal, terse(3)]
        );
        for bad in ["1", "6", "x", ""] {
            let e = args(&[&format!("--terse-version={bad}")])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("--terse-version") && e.contains("2, 3, 4 or 5"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_mistyped_program_option_gets_a_suggestion() {
        let e = args(&["--output-formta=json"]).unwrap_err().to_string();
        assert!(
            e.contains("--output-formta") && e.contains("did you mean --output-format"),
            "{e}"
        );
    }

    #[test]
    fn dashed_fio_job_options_reach_the_job_parser() {
        let a = args(&["--hugepage-size=2m", "--name=x"]).unwrap();
        assert_eq!(
            a.job_input.cli_options,
            vec!["--hugepage-size=2m", "--name=x"]
        );
    }

    #[test]
    fn a_job_options_value_may_be_the_next_argument_but_a_flags_may_not() {
        let a = args(&[
            "--name", "x", "-rw", "read", "--thread", "--bs", "8k", "-size=1m",
        ])
        .unwrap();
        assert_eq!(
            a.job_input.cli_options,
            vec!["--name=x", "--rw=read", "--thread", "--bs=8k", "--size=1m"]
        );
        assert!(a.job_input.job_files.is_empty());
        let a = args(&["--name=x", "--time_based", "1"]).unwrap();
        assert_eq!(a.job_input.job_files, vec![PathBuf::from("1")]);
        let e = args(&["--name=x", "--rw"]).unwrap_err().to_string();
        assert!(e.contains("--rw needs a value"), "{e}");
    }

    #[test]
    fn the_start_of_one_options_name_stands_for_it_as_in_fio() {
        let a = args(&[
            "--name=x",
            "--rwmixr=30",
            "--rwmixw",
            "60",
            "--output-form=json",
        ])
        .unwrap();
        assert_eq!(
            a.job_input.cli_options,
            vec!["--name=x", "--rwmixread=30", "--rwmixwrite=60"]
        );
        assert_eq!(a.formats, vec![Format::Json]);
        let e = args(&["--name=x", "--filen=f"]).unwrap_err().to_string();
        assert!(
            e.contains("'--filen' is ambiguous") && e.contains("'--filename' '--filename_format'"),
            "{e}"
        );
        // An option's whole name is never a prefix of another's.
        let a = args(&["--name=x", "--bs=8k", "-v"]).unwrap();
        assert_eq!(a.job_input.cli_options, vec!["--name=x", "--bs=8k"]);
        assert_eq!(a.action, Action::Version);
    }

    #[test]
    fn status_interval_takes_a_time_of_at_least_a_millisecond() {
        assert_eq!(args(&["--name=x"]).unwrap().status_interval, None);
        let interval = |v: &str| args(&[v, "--name=x"]).map(|a| a.status_interval);
        assert_eq!(
            interval("--status-interval=2").unwrap(),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            interval("--status-interval=500ms").unwrap(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            interval("--status-interval=1m").unwrap(),
            Some(Duration::from_secs(60))
        );
        let a = args(&["--status-interval", "3s", "--name=x"]).unwrap();
        assert_eq!(a.status_interval, Some(Duration::from_secs(3)));
        assert_eq!(a.job_input.cli_options, vec!["--name=x"]);
        for bad in ["--status-interval=0", "--status-interval=999us"] {
            let e = interval(bad).unwrap_err().to_string();
            assert!(e.contains("--status-interval") && e.contains("1ms"), "{e}");
        }
        let e = interval("--status-interval=soon").unwrap_err().to_string();
        assert!(e.contains("--status-interval") && e.contains("soon"), "{e}");
    }

    #[test]
    fn readonly_is_a_program_option() {
        let a = args(&["--readonly", "--name=x", "--rw=read"]).unwrap();
        assert!(a.readonly);
        assert_eq!(a.job_input.cli_options, vec!["--name=x", "--rw=read"]);
        assert!(!args(&["--name=x"]).unwrap().readonly);
    }

    #[test]
    fn doc_is_hidden_from_help() {
        assert_eq!(
            args(&["--doc=options"]).unwrap().action,
            Action::Doc("options".into())
        );
        assert!(!USAGE.contains("--doc"));
        assert!(doc("options").unwrap().starts_with("# Job options\n"));
        assert!(doc("engines").unwrap().starts_with("| engine |"));
        assert!(doc("no-such-page").is_err());
    }

    #[test]
    fn cmdhelp_without_a_name_means_all() {
        assert_eq!(
            args(&["--cmdhelp"]).unwrap().action,
            Action::CmdHelp("all".into())
        );
        assert_eq!(
            args(&["--cmdhelp=bs"]).unwrap().action,
            Action::CmdHelp("bs".into())
        );
    }
}
