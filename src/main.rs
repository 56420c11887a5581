//! ioscope: parse the job dialect, run the jobs, write the results.

mod args;
mod info;
mod peak;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use ioscope_report::Format;

fn main() -> ExitCode {
    // `ioscope peak` is a front end of its own, with its own options.
    if std::env::args_os().nth(1).is_some_and(|a| a == "peak") {
        return peak::main(std::env::args_os().skip(2));
    }
    // `ioscope info DEVICE` describes a device.
    if std::env::args_os().nth(1).is_some_and(|a| a == "info") {
        return info::main(std::env::args_os().skip(2));
    }
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ioscope: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let args = args::parse(std::env::args().skip(1))?;
    match &args.action {
        args::Action::Version => {
            println!("ioscope-{}", env!("CARGO_PKG_VERSION"));
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::Help => {
            print!("{}", args::USAGE);
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::CmdHelp(name) => {
            print!("{}", ioscope_job::cmdhelp(name)?);
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::Run => {}
    }

    let parsed = ioscope_job::parse(&args.job_input)?;
    if args.parse_only {
        return Ok(ExitCode::SUCCESS);
    }
    if parsed.jobs.is_empty() {
        anyhow::bail!("no jobs defined: give a job file or --name=JOB with job options");
    }

    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("--output: cannot create {}", path.display()))?,
        ),
        None => Box::new(std::io::stdout()),
    };
    let normal = args.formats.contains(&Format::Normal);
    if normal {
        let kb_base = parsed.jobs.first().map_or(1024, |j| j.kb_base);
        let preamble = ioscope_report::preamble_with(
            &ioscope_run::headers(&parsed),
            kb_base,
            &ioscope_report::version(),
        );
        out.write_all(preamble.as_bytes())?;
        out.flush()?;
    }
    let options = ioscope_run::RunOptions {
        eta: args.eta,
        notices: normal && args.output.is_none(),
        stdout_is_data: args.output.is_none() && !normal,
        readonly: args.readonly,
    };
    let result = ioscope_run::run(&parsed, &options)?;
    out.write_all(ioscope_report::render(&result, &args.formats).as_bytes())?;
    out.flush()?;

    if let Some(why) = &result.aborted {
        eprintln!("ioscope: {why}");
    }
    let failed = result.aborted.is_some() || result.jobs.iter().any(|j| j.error != 0);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
