//! ioscope: parse the job dialect, run the jobs, write the results.

mod alias;
mod args;
mod client;
mod compare;
mod cpuclock_test;
mod crctest;
mod debug;
mod doctor;
mod fio_protocol;
mod html;
mod info;
mod output;
mod peak;
mod report;
mod server;
mod status_line;

use std::process::ExitCode;

use ioscope_report::Format;

use output::Output;

/// fio's exit status when SIGINT or SIGTERM stopped the run (its
/// `exit_value = 128` in sig_int), so scripts that check for it still work.
const INTERRUPTED: u8 = 128;

fn main() -> ExitCode {
    // Under the name `fio` there are no subcommands: `fio info` runs the
    // job file `info`, as fio would.
    let first = std::env::args_os()
        .nth(1)
        .filter(|_| !alias::invoked_as_fio());
    let rest = || std::env::args_os().skip(2);
    match first.as_ref().and_then(|a| a.to_str()) {
        // A front end of its own, with its own options.
        Some("peak") => return peak::main(rest()),
        // Links `fio` to this binary.
        Some("install-fio-alias") => return alias::main(rest()),
        // Renders a saved document as HTML.
        Some("report") => return report::main(rest()),
        // Checks the machine before a latency run.
        Some("doctor") => return doctor::main(rest()),
        // Run jobs several times and print one table.
        Some("compare") => return compare::compare_main(rest()),
        Some("sweep") => return compare::sweep_main(rest()),
        // Describes a device.
        Some("info") => return info::main(rest()),
        _ => {}
    }
    match run() {
        Ok(code) => code,
        Err(e) => output::fail("ioscope", &e),
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let args = args::parse(std::env::args().skip(1))?;
    // Under the name `fio` the version says so, everywhere it is printed.
    let version = alias::version(alias::invoked_as_fio());
    match &args.action {
        args::Action::Version => {
            output::print(&format!("{version}\n"))?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::Help => {
            output::print(args::USAGE)?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::CmdHelp(name) => {
            output::print(&ioscope_job::cmdhelp(name)?)?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::EngHelp(engine) => {
            let (text, ok) = ioscope_job::enghelp(engine)?;
            output::print(&text)?;
            return Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        args::Action::DebugHelp => {
            output::print(&debug::categories())?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::Doc(page) => {
            output::print(&args::doc(page)?)?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::CrcTest(names) => return crctest::run(names.as_deref()),
        args::Action::CpuClockTest => return cpuclock_test::run(),
        args::Action::Client(at) => return client::main(at, &args),
        args::Action::Server(at) => return server::main(at.as_deref(), args.daemonize.as_deref()),
        args::Action::IdleCalibrate => {
            let profiler = ioscope_run::IdleProfiler::start(ioscope_run::IdleProf::System)
                .map_err(anyhow::Error::msg)?;
            let (mean, stddev) = profiler.unit();
            drop(profiler);
            output::print(&ioscope_report::idle_calibration(mean, stddev))?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::InflateLog(path) => {
            let data = std::fs::read(path).map_err(|e| {
                anyhow::anyhow!("--inflate-log: cannot read {}: {e}", path.display())
            })?;
            let text = ioscope_report::inflate_log(&data)
                .map_err(|e| anyhow::anyhow!("--inflate-log: {}: {e}", path.display()))?;
            output::print(&text)?;
            return Ok(ExitCode::SUCCESS);
        }
        args::Action::Run => {}
    }

    let mut parsed = ioscope_job::parse(&args.job_input)?;
    if args.show_cmd {
        output::print(&parsed.command_lines.concat())?;
        return Ok(ExitCode::SUCCESS);
    }
    let html_to = html::destination(&args.formats, args.output.as_deref())?;
    // The page's charts over time need samples; they cost nothing when no
    // page is asked for.
    let sampled_for_html = if html_to.is_some() {
        html::sample_in_memory(&mut parsed)
    } else {
        Vec::new()
    };
    // A run refuses before opening anything exactly what --parse-only does.
    // Planning merges the traces of merge_blktrace_file, as fio's job setup
    // does, so --merge-blktrace-only stops here too.
    let plan = ioscope_run::plan(&parsed, args.readonly)?;
    let mut out = match &args.output {
        Some(path) => Output::create(path)?,
        None => Output::stdout(),
    };
    // fio says so on its output as it parses a deprecated option, even
    // under --parse-only.
    for note in &parsed.deprecated {
        out.write(&format!("{note}\n"))?;
    }
    if args.parse_only || args.merge_only {
        return Ok(ExitCode::SUCCESS);
    }
    // fio's words and stream as it sets each job up (not under
    // --parse-only); --warnings-fatal makes them fatal, as in fio.
    for _ in parsed.jobs.iter().filter(|j| j.misc.time_based_dropped) {
        output::warn("fio: time_based requires a runtime/timeout setting");
        if args.warnings_fatal {
            return Ok(ExitCode::from(1));
        }
    }
    if parsed.jobs.is_empty() {
        anyhow::bail!("no jobs defined: give a job file or --name=JOB with job options");
    }

    // fio prints the seeds as it sets each job up, before the run.
    if args.debug.random {
        out.write(&debug::random_lines(&parsed))?;
    }
    // And, on its output too, what its fix-ups changed in a job, and its
    // warnings, which --warnings-fatal makes fatal.
    for note in parsed.jobs.iter().flat_map(|j| &j.misc.fixup_notes) {
        out.write(&format!("{note}\n"))?;
    }
    for warning in parsed.jobs.iter().flat_map(|j| &j.misc.setup_warnings) {
        out.write(&format!("{warning}\n"))?;
        if args.warnings_fatal {
            return Ok(ExitCode::from(1));
        }
    }
    let normal = args.formats.contains(&Format::Normal);
    if normal {
        let kb_base = parsed.jobs.first().map_or(1024, |j| j.kb_base);
        let headers = ioscope_run::headers(&parsed);
        let preamble =
            ioscope_report::preamble_with(&headers, kb_base, &version, parsed.profile_jobs);
        out.write(&preamble)?;
    }
    let options = ioscope_run::RunOptions {
        eta: status_line::for_run(args.eta, args.eta_newline, args.output.is_none() && !normal),
        eta_interval: args.eta_interval,
        aux_path: args.aux_path.clone(),
        trigger: args.trigger.clone(),
        layout_lines: normal && args.output.is_none(),
        status_interval: args.status_interval,
        bandwidth_log: args.bandwidth_log.clone(),
        idle_prof: args.idle_prof,
        trace: (args.debug.file || args.debug.io)
            .then(|| out.second_writer())
            .transpose()?
            .map(|to| ioscope_run::Trace::new(args.debug.file, args.debug.io, to)),
    };
    // Reports while the run goes on (--status-interval, SIGUSR1) go where
    // the final one goes; the first that cannot be written is the run's
    // write error, and no more are tried.
    let report_options = ioscope_report::Options {
        version,
        ..ioscope_report::Options::default()
    };
    let mut interim_failed = None;
    let mut interim = |so_far: &ioscope_stats::RunResult| {
        if interim_failed.is_none() {
            interim_failed = out
                .write(&ioscope_report::render_with(
                    so_far,
                    &args.formats,
                    &report_options,
                ))
                .err();
        }
    };
    let mut result = ioscope_run::run(&parsed, &plan, &options, &mut interim)?;
    // What ran is reported even when the run was cut short, its notices
    // with it. Why it was aborted goes to stderr even when the report could
    // not be written; the exit status then tells of the lost report, the
    // worse news. fio's act profile prints its table as the last job
    // ends, before the report, wherever that goes.
    let act = result.act.as_deref().map(ioscope_report::act_table);
    let written = match interim_failed {
        Some(e) => Err(e.into()),
        None => act
            .map_or(Ok(()), |table| out.write(&table))
            .and_then(|()| {
                out.write(&ioscope_report::render_with(
                    &result,
                    &args.formats,
                    &report_options,
                ))
            })
            .map_err(anyhow::Error::from),
    };
    let written = written.and_then(|()| match &html_to {
        None => Ok(()),
        Some(to) => {
            let page = html::page(&parsed, &result, &report_options)?;
            match to {
                html::Destination::Output => out.write(&page)?,
                html::Destination::File(path) => Output::create(path)?.write(&page)?,
            }
            Ok(())
        }
    });
    // The samples taken for the page alone are not written as logs.
    result.logs.retain(|w| {
        html::job_of(&parsed, w).is_none_or(|j| sampled_for_html.get(j) != Some(&true))
    });
    if let Some(why) = &result.aborted {
        output::warn(&format!("ioscope: {why}"));
    }
    // The notices travel in the report. They go to stderr as well when it
    // could not be written (an interrupted run must still say so), when no
    // format asked for has a place for them (terse only), and as errors
    // under --warnings-fatal.
    let reported = args.formats.iter().any(|f| f.carries_notices());
    if written.is_err() || !reported || args.warnings_fatal {
        let prefix = if args.warnings_fatal {
            "ioscope: error (--warnings-fatal): "
        } else {
            "ioscope: "
        };
        for notice in &result.notices {
            output::warn(&format!("{prefix}{notice}"));
        }
    }
    // What each worker recorded is written even when the run was cut short,
    // and even when the report could not be.
    let logged = ioscope_report::write_logs(&result.logs).and_then(|()| {
        result
            .agg_bw
            .as_ref()
            .map_or(Ok(()), ioscope_report::write_agg_bw)
    });
    written?;
    logged?;
    if let Some(e) = options.trace.as_ref().and_then(ioscope_run::Trace::error) {
        anyhow::bail!("--debug: cannot write its lines to {}: {e}", out.name());
    }
    let fatal = args.warnings_fatal && !result.notices.is_empty();
    // fio's status for a signal outranks the notices: scripts check for it.
    if result.interrupted.is_some() {
        return Ok(ExitCode::from(INTERRUPTED));
    }
    // fio's status counts the workers that failed (and wraps past 255,
    // which would read as success: it stops at 255 here).
    let failed = result.failed_workers.min(255) as u8;
    Ok(if failed > 0 {
        ExitCode::from(failed)
    } else if fatal || result.aborted.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
