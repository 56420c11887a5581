//! One client's connection, as fio's server serves it (server.c
//! handle_connection and the backend it forks): the client probes, sends
//! job files or command-line jobs and says run; the jobs run here while
//! the client asks how they go; then the results, in fio's structs, and
//! stop and quit. The client prints them as it prints a fio server's.

use std::fs::File;
use std::sync::{Arc, Mutex};

use ioscope_job::{ParseInput, Parsed};
use ioscope_report::fio_net::{self, Message};

use super::forward::Forward;
use super::replies::{self, LOG_ERR, LOG_INFO};
use crate::fio_protocol::wire::{self, Command, Op, RecvError};

/// The connection, written to by the command loop (replies) and by the
/// run (its output and results), one whole command at a time.
pub struct Link {
    socket: File,
    sending: Mutex<()>,
}

impl Link {
    fn send(&self, op: Op, tag: u64, payload: &[u8]) -> std::io::Result<()> {
        let _one_at_a_time = self.sending.lock().unwrap_or_else(|e| e.into_inner());
        wire::send(&mut &self.socket, op, tag, payload)
    }

    pub fn text(&self, level: u32, line: &str) -> std::io::Result<()> {
        self.send(Op::Text, 0, &replies::text(level, line))
    }
}

/// The jobs' latest status, for the client's ETA requests: the run
/// takes it every second (fio's server takes it as asked; the figures
/// are at most a second older).
#[derive(Default)]
struct Board(Mutex<Option<ioscope_stats::JobsEta>>);

impl ioscope_run::EtaSink for Board {
    fn show(&self, eta: &ioscope_stats::JobsEta) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(eta.clone());
    }

    fn end(&self) {}
}

impl Board {
    /// The ETA reply: the latest status, or nothing running before the
    /// run has one.
    fn reply(&self) -> Vec<u8> {
        match &*self.0.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(eta) => fio_net::eta::write(eta),
            None => replies::eta(),
        }
    }
}

/// The jobs the client has sent so far, parsed and planned.
struct Jobs {
    parsed: Parsed,
    /// The client prints the normal output.
    normal: bool,
    plan: ioscope_run::Plan,
}

/// Serves one client until it goes away; returns what went wrong, if
/// anything did. `local` is the address a TCP connection came in on.
pub fn serve(socket: File, local: Option<String>) -> Result<(), String> {
    let link = Arc::new(Link {
        socket,
        sending: Mutex::new(()),
    });
    let board = Arc::new(Board::default());
    // The run's trigger, which a client's --trigger-remote pulls.
    let pull = Arc::new(ioscope_run::Pull::default());
    let mut input = ParseInput::default();
    let mut jobs: Option<Jobs> = None;
    let mut running: Option<std::thread::JoinHandle<()>> = None;
    // Why the jobs were refused: the client has been told and sent quit,
    // and is let close the connection itself, as fio's server does (it
    // may still be sending).
    let mut refused: Option<String> = None;
    // Whether the client prints the normal output (the job lines,
    // "Starting", layout lines).
    let mut normal = true;
    loop {
        let command = match wire::recv(&mut &link.socket) {
            Ok(c) => c,
            Err(RecvError::Closed) => break,
            Err(e) => {
                // fio's server logs it and drops the connection.
                let _ = link.text(LOG_ERR, &format!("ioscope: server: {e}\n"));
                return Err(e.to_string());
            }
        };
        let sent = match command.op {
            Op::Probe => link.send(Op::Probe, command.tag, &probe_reply()),
            Op::SendEta => link.send(Op::Eta, command.tag, &board.reply()),
            _ if refused.is_some() => Ok(()),
            Op::Job | Op::JobLine | Op::LoadFile => {
                match add_jobs(&mut input, &mut normal, &command) {
                    Err(why) => refuse(&link, why, &mut refused),
                    Ok(()) => match parse(&input, &local, normal) {
                        // Options alone (the client's command line comes
                        // before its job files) make no job yet.
                        Err(_) if input.job_texts.is_empty() && input.job_files.is_empty() => {
                            link.send(Op::Start, 0, &replies::start(0, 0))
                        }
                        Ok(now) => {
                            let before = jobs.as_ref().map_or(0, |j| j.parsed.jobs.len());
                            let sent = announce(&link, &now, before);
                            jobs = Some(now);
                            sent
                        }
                        Err(why) => refuse(&link, why, &mut refused),
                    },
                }
            }
            Op::Run if running.is_none() => match jobs.take() {
                Some(j) if !j.parsed.jobs.is_empty() => {
                    let link = Arc::clone(&link);
                    let eta = ioscope_run::EtaShow(board.clone());
                    let pull = pull.clone();
                    running = Some(std::thread::spawn(move || run(&link, j, eta, pull)));
                    Ok(())
                }
                _ => refuse(
                    &link,
                    "no jobs defined: the client sent no job file or job options".into(),
                    &mut refused,
                ),
            },
            Op::VTrigger => {
                // fio's handle_trigger_cmd: the verify state goes back
                // first (ioscope's is saved here, as a local trigger saves
                // it: none is sent), then the jobs stop and the command
                // runs, the run's trigger doing both.
                let sent = link.send(Op::VTrigger, 0, &0u64.to_le_bytes());
                let command = trigger_command(&command.payload);
                if running.as_ref().is_some_and(|r| !r.is_finished()) {
                    pull.pull(command);
                } else {
                    let idle = ioscope_run::Trigger {
                        command: Some(command),
                        ..ioscope_run::Trigger::default()
                    };
                    if let Err(e) = idle.run_command() {
                        let _ = link.text(LOG_ERR, &format!("ioscope: {e}\n"));
                    }
                }
                sent
            }
            Op::Quit | Op::Exit => {
                // The client stops the run (fio_terminate_threads): the
                // workers end as on Ctrl-C and the results still go out.
                // (Once the run is over, nothing handles the signal.)
                if running.as_ref().is_some_and(|r| !r.is_finished()) {
                    // SAFETY: kill on this process with a signal the run
                    // handles.
                    unsafe { libc::kill(libc::getpid(), libc::SIGINT) };
                }
                if command.op == Op::Exit {
                    break;
                }
                Ok(())
            }
            op => link.text(
                LOG_ERR,
                &format!("ioscope: server: {op:?} is not supported (ignored)\n"),
            ),
        };
        if let Err(e) = sent {
            return Err(format!("cannot write to the client: {e}"));
        }
    }
    if let Some(run) = running {
        let _ = run.join();
    }
    refused.map_or(Ok(()), Err)
}

/// struct cmd_vtrigger_pdu: the command's length, then the command.
fn trigger_command(p: &[u8]) -> String {
    let len = p
        .get(..2)
        .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let cmd = p.get(2..2 + len).unwrap_or(&[]);
    String::from_utf8_lossy(cmd).into_owned()
}

fn probe_reply() -> Vec<u8> {
    let hostname = hostname();
    // SAFETY: sysconf has no preconditions.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as u32;
    replies::probe(&hostname, &ioscope_report::version(), cpus)
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if ok {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "localhost".into()
    }
}

/// Adds what the command carries to the jobs: a job file's text (struct
/// cmd_job_pdu), the client's command line (cmd_line_pdu) or the name of
/// a job file on this machine (cmd_load_file_pdu).
fn add_jobs(input: &mut ParseInput, normal: &mut bool, command: &Command) -> Result<(), String> {
    let p = &command.payload;
    let short = || format!("a {:?} command too short ({} bytes)", command.op, p.len());
    let u16_at = |at: usize| p.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u32_at = |at: usize| {
        p.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    match command.op {
        Op::Job => {
            let len = u32_at(0).ok_or_else(short)? as usize;
            let text = p.get(8..).ok_or_else(short)?;
            let text = &text[..len.min(text.len())];
            // fio's client reads the file into a larger buffer and ends
            // the text with a NUL.
            let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            let name = format!("<job file {}>", input.job_texts.len() + 1);
            input.job_texts.push((name, text[..end].to_vec()));
        }
        Op::JobLine => {
            let lines = u16_at(0).ok_or_else(short)?;
            let mut at = 4;
            let mut argv = Vec::new();
            for _ in 0..lines {
                let len = usize::from(u16_at(at).ok_or_else(short)?);
                let bytes = p.get(at + 2..at + 2 + len).ok_or_else(short)?;
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                argv.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
                at += 2 + len;
            }
            // argv[0] is the client's program name; the rest are the
            // options fio's client passes on: its job options and
            // sections, and its output format, which decides, as in fio's
            // server, whether the lines of the normal output are sent.
            let args = crate::args::parse(argv.into_iter().skip(1)).map_err(|e| e.to_string())?;
            input.cli_options.extend(args.job_input.cli_options);
            input.job_files.extend(args.job_input.job_files);
            input.sections.extend(args.job_input.sections);
            *normal = args.formats.contains(&ioscope_report::Format::Normal);
        }
        _ => {
            let len = usize::from(u16_at(0).ok_or_else(short)?);
            let name = p.get(4..4 + len).ok_or_else(short)?;
            input
                .job_files
                .push(String::from_utf8_lossy(name).into_owned().into());
        }
    }
    Ok(())
}

/// Parses and plans the jobs sent so far; their files are named after
/// the address a TCP client came in on, as fio's server names them.
fn parse(input: &ParseInput, local: &Option<String>, normal: bool) -> Result<Jobs, String> {
    let mut parsed = ioscope_job::parse(input).map_err(|e| e.to_string())?;
    for job in &mut parsed.jobs {
        job.file_handling.client_uid.clone_from(local);
    }
    let plan = ioscope_run::plan(&parsed, false).map_err(|e| e.to_string())?;
    Ok(Jobs {
        parsed,
        normal,
        plan,
    })
}

/// What fio's server sends as it parses jobs: each new job's line, then
/// how many workers and reports to expect.
fn announce(link: &Link, jobs: &Jobs, before: usize) -> std::io::Result<()> {
    let p = &jobs.parsed;
    let kb_base = p.jobs.first().map_or(1024, |j| j.kb_base);
    let headers = ioscope_run::headers(p);
    let (lines, _) =
        ioscope_report::server_preamble(&headers[before.min(headers.len())..], kb_base);
    for line in lines.split_inclusive('\n').filter(|_| jobs.normal) {
        link.text(LOG_INFO, line)?;
    }
    let workers: u32 = p.jobs.iter().map(|j| j.numjobs.max(1)).sum();
    // fio counts a report per worker, or one for all of a job's clones
    // under group_reporting.
    let reports: u32 = p
        .jobs
        .iter()
        .map(|j| {
            if j.group_reporting {
                1
            } else {
                j.numjobs.max(1)
            }
        })
        .sum();
    link.send(Op::Start, 0, &replies::start(workers, reports))
}

/// fio's answer to a job it cannot take: the reason, then quit.
fn refuse(link: &Link, why: String, refused: &mut Option<String>) -> std::io::Result<()> {
    link.text(LOG_ERR, &format!("ioscope: {why}\n"))?;
    *refused = Some(why);
    link.send(Op::Quit, 0, &[])
}

/// Runs the jobs and sends what fio's backend sends: the starting line,
/// that it started, the results, and how it ended.
fn run(link: &Arc<Link>, jobs: Jobs, eta: ioscope_run::EtaShow, pull: Arc<ioscope_run::Pull>) {
    let headers = ioscope_run::headers(&jobs.parsed);
    let kb_base = jobs.parsed.jobs.first().map_or(1024, |j| j.kb_base);
    let (_, starting) = ioscope_report::server_preamble(&headers, kb_base);
    if jobs.normal {
        let _ = link.text(LOG_INFO, &starting);
    }
    let _ = link.send(Op::ServerStart, 0, &[]);
    let options = ioscope_run::RunOptions {
        eta: Some(eta),
        eta_interval: std::time::Duration::from_secs(1),
        aux_path: None,
        trigger: ioscope_run::Trigger {
            remote: Some(pull),
            ..ioscope_run::Trigger::default()
        },
        layout_lines: jobs.normal,
        status_interval: None,
        bandwidth_log: None,
        idle_prof: None,
        trace: None,
    };
    let forward = Forward::start(link);
    let ran = ioscope_run::run(&jobs.parsed, &jobs.plan, &options, &mut |_| {});
    if let Ok(f) = forward {
        f.finish();
    }
    let (error, signal) = match ran {
        Ok(result) => {
            let logged = send_logs(link, &result.logs);
            if let Err(e) = &logged {
                let _ = link.text(LOG_ERR, &format!("ioscope: {e}\n"));
            }
            let _ = send_results(link, &result, jobs.normal);
            let failed = result.failed_workers.min(255);
            let error = if failed > 0 {
                failed
            } else {
                u32::from(result.aborted.is_some() || logged.is_err())
            };
            (error, result.interrupted.unwrap_or(0) as u32)
        }
        Err(e) => {
            let _ = link.text(LOG_ERR, &format!("ioscope: {e}\n"));
            (1, 0)
        }
    };
    let _ = link.send(Op::Stop, 0, &replies::stop(error, signal));
    let _ = link.send(Op::Quit, 0, &[]);
}

/// The workers' logs, as fio's server sends them for its client to write
/// (`NAME.HOST` there).
fn send_logs(link: &Link, logs: &[ioscope_stats::WorkerLogs]) -> std::io::Result<()> {
    for w in logs {
        for p in fio_net::io_logs(w)? {
            link.send(Op::IoLog, 0, &p)?;
        }
    }
    Ok(())
}

/// The results as fio's show_run_stats sends them from a server, then
/// the line its normal output would have begun with, then ioscope's
/// notices, which fio's structs have no room for.
fn send_results(
    link: &Link,
    result: &ioscope_stats::RunResult,
    normal: bool,
) -> std::io::Result<()> {
    for message in fio_net::end_of_run(result, std::process::id()) {
        let (op, payload) = match message {
            Message::JobOption(p) => (Op::JobOpt, p),
            Message::JobStats(p) => (Op::Ts, p),
            Message::GroupStats(p) => (Op::Gs, p),
            Message::DiskUtil(p) => (Op::Du, p),
        };
        link.send(op, 0, &payload)?;
    }
    if normal {
        link.text(LOG_INFO, "\n")?;
    }
    // A line each, as the client prefixes each text with the host.
    for line in ioscope_report::notices_text(&result.notices).split_inclusive('\n') {
        link.text(LOG_INFO, line)?;
    }
    if let Some(why) = &result.aborted {
        link.text(LOG_ERR, &format!("ioscope: {why}\n"))?;
    }
    Ok(())
}
