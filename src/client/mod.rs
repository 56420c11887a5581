//! `--client=ARGS`: ioscope as fio's client. It sends the job files and
//! command-line jobs to fio servers (fio 3.33's, protocol version 97, or
//! `ioscope --server`), which run them together; it prints what each
//! server says as it says it, writes the logs they send, and prints the
//! results in the formats asked for, as fio's client does (client.c).

mod payloads;
mod session;

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::fio_protocol::address::Address;
use crate::fio_protocol::wire;
use session::{Event, Order, Served, StartGate};

/// One server of `--client`, and the job files for it alone.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientSpec {
    pub at: String,
    pub job_files: Vec<JobFile>,
}

/// A job file for a server: one here, whose text is sent, or one on the
/// server (`--remote-config`), whose name is.
#[derive(Clone, Debug, PartialEq)]
pub enum JobFile {
    Here(PathBuf),
    There(String),
}

impl ClientSpec {
    /// `--client=ARGS`: a server, or a readable file listing servers
    /// (whitespace apart), as fio takes it; true for a list, whose
    /// servers take no job files of their own.
    pub fn from_arg(arg: &str) -> anyhow::Result<(Vec<ClientSpec>, bool)> {
        let spec = |at: &str| ClientSpec {
            at: at.to_string(),
            job_files: Vec::new(),
        };
        if !std::path::Path::new(arg).is_file() {
            return Ok((vec![spec(arg)], false));
        }
        let list = std::fs::read_to_string(arg)
            .map_err(|e| anyhow::anyhow!("--client: the server list {arg}: {e}"))?;
        let servers: Vec<ClientSpec> = list.split_whitespace().map(spec).collect();
        if servers.is_empty() {
            anyhow::bail!("--client: the server list {arg} names no server");
        }
        Ok((servers, true))
    }
}

/// Runs the jobs of `args` on `servers` and prints the results.
pub fn main(servers: &[ClientSpec], args: &crate::args::Args) -> anyhow::Result<ExitCode> {
    // --trigger-timeout counts from here, as fio's from its start.
    let started = std::time::Instant::now();
    let shared: Vec<JobFile> = (args.job_input.job_files.iter().cloned())
        .map(JobFile::Here)
        .collect();
    let shared = &shared;
    let named: Vec<PathBuf> = (servers.iter().flat_map(|s| &s.job_files))
        .filter_map(|f| match f {
            JobFile::Here(path) => Some(path.clone()),
            JobFile::There(_) => None,
        })
        .chain(args.job_input.job_files.iter().cloned())
        .collect();
    let passed_on = passed_on(&named);
    // As fio's client, a server is sent job files: one left without any
    // (`--client=A --client=B job.fio` gives job.fio to B alone) is left
    // out.
    let servers: Vec<&ClientSpec> = (servers.iter())
        .filter(|s| !s.job_files.is_empty() || !shared.is_empty())
        .collect();
    if servers.is_empty() {
        anyhow::bail!(
            "--client: no job file to send (fio's client sends job files; \
             it runs command-line jobs without one where it is)"
        );
    }
    let mut sockets = Vec::new();
    for s in &servers {
        let address = Address::parse(&s.at).map_err(|e| anyhow::anyhow!("--client: {e}"))?;
        let socket: OwnedFd = match &address {
            Address::Tcp(a) => std::net::TcpStream::connect(a).map(OwnedFd::from),
            Address::Unix(p) => std::os::unix::net::UnixStream::connect(p).map(OwnedFd::from),
        }
        .map_err(|e| anyhow::anyhow!("--client: cannot connect to {address}: {e}"))?;
        sockets.push(std::fs::File::from(socket));
    }
    quit_on_ctrl_c(&sockets);
    // Each connection's writing end, shared by its session, the status
    // requests and the trigger.
    let writers: Vec<std::sync::Mutex<std::fs::File>> = (sockets.iter())
        .map(|s| s.try_clone().map(std::sync::Mutex::new))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("--client: {e}"))?;
    let writers = &writers;
    // Everything the client prints goes where --output says, as fio's
    // client's log does.
    let mut out = match &args.output {
        Some(path) => crate::output::Output::create(path)?,
        None => crate::output::Output::stdout(),
    };
    let normal = args.formats.contains(&ioscope_report::Format::Normal);
    let terse = (args.formats.iter()).any(|f| matches!(f, ioscope_report::Format::Terse(_)));
    // fio's client asks its servers how the jobs go unless --eta=never,
    // and draws their status on stdout unless its output is JSON, on a
    // terminal or not.
    let json = (args.formats.iter()).any(|f| {
        matches!(
            f,
            ioscope_report::Format::Json | ioscope_report::Format::JsonPlus
        )
    });
    let status = (args.eta != crate::status_line::Eta::Never && !json).then(|| Status {
        writers,
        interval: args.eta_interval,
        printer: crate::status_line::Printer::client(args.eta_newline),
    });

    // The servers' sessions are over: the trigger has nothing to stop.
    let over = std::sync::atomic::AtomicBool::new(false);

    let gate = StartGate::new(servers.len());
    let (events, heard) = std::sync::mpsc::channel();
    let outcomes: Vec<Result<Served, String>> = std::thread::scope(|scope| {
        let talks: Vec<_> = (servers.iter().zip(sockets).enumerate())
            .map(|(index, (s, socket))| {
                let events = events.clone();
                let (gate, passed_on) = (&gate, &passed_on);
                scope.spawn(move || {
                    let files = match s.job_files.is_empty() {
                        true => shared,
                        false => &s.job_files,
                    };
                    let order = Order {
                        index,
                        at: &s.at,
                        passed_on,
                        files,
                        aux_path: args.aux_path.as_deref(),
                        trigger: &args.trigger,
                        writer: &writers[index],
                    };
                    session::serve(&order, socket, gate, &events)
                })
            })
            .collect();
        drop(events);
        let over = &over;
        // --trigger-file or --trigger-timeout stop the servers' jobs
        // (--trigger-remote).
        let puller = (args.trigger.armed())
            .then(|| scope.spawn(move || pull_triggers(args, started, writers, over)));
        print_as_heard(heard, &mut out, normal, terse, status);
        over.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(p) = puller {
            let _ = p.join();
        }
        talks
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|_| Err("its thread failed".into())))
            .collect()
    });
    let mut failed = false;
    let mut served = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(s) => {
                failed |= s.error != 0;
                served.push(s);
            }
            Err(why) => {
                crate::output::warn(&format!("ioscope: --client: {why}"));
                failed = true;
            }
        }
    }
    let reports: u32 = served.iter().map(|s| s.reports).sum();
    let results: Vec<(&ioscope_stats::RunResult, (&str, u16))> = (served.iter())
        .map(|s| (&s.result, (s.host.as_str(), s.port)))
        .collect();
    let report = ioscope_report::render_client(
        &results,
        &args.formats,
        &ioscope_report::Options::default(),
        reports > 1,
    );
    out.write(&report)?;
    Ok(ExitCode::from(u8::from(failed)))
}

/// fio's check_trigger_file on a client: once the trigger file appears or
/// its time has passed, every server is told to stop its jobs, send their
/// verify state and run `command` (struct cmd_vtrigger_pdu).
fn pull_triggers(
    args: &crate::args::Args,
    started: std::time::Instant,
    servers: &[std::sync::Mutex<std::fs::File>],
    over: &std::sync::atomic::AtomicBool,
) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (fired, stop) = (AtomicBool::new(false), AtomicBool::new(false));
    args.trigger.watch(started, over, &stop, &fired);
    if !fired.load(Ordering::Relaxed) {
        return;
    }
    let command = args.trigger_remote.as_deref().unwrap_or("");
    let mut pdu = (command.len() as u16).to_le_bytes().to_vec();
    pdu.extend_from_slice(command.as_bytes());
    for server in servers {
        // A server that has gone has nothing left to stop.
        let _ = session::send_on(server, wire::Op::VTrigger, 0, &pdu);
    }
}

/// How the client asks its servers how the jobs go, and draws it.
struct Status<'a> {
    /// Each server's connection, to write the requests to.
    writers: &'a [std::sync::Mutex<std::fs::File>],
    interval: std::time::Duration,
    printer: crate::status_line::Printer,
}

/// One round of status requests (fio's struct client_eta): the servers
/// asked that have not answered, and the sum of those that have.
struct Round {
    tag: u64,
    waiting: usize,
    sum: ioscope_stats::JobsEta,
}

impl Status<'_> {
    /// Asks every running server; a round some server left unanswered is
    /// dropped, as fio's client drops one in flight.
    fn ask(&self, running: &[usize], tag: u64) -> Option<Round> {
        let mut waiting = 0;
        for &i in running {
            if session::send_on(&self.writers[i], wire::Op::SendEta, tag, &[]).is_ok() {
                waiting += 1;
            }
        }
        (waiting > 0).then(|| Round {
            tag,
            waiting,
            sum: ioscope_stats::JobsEta::default(),
        })
    }
}

/// Prints what the servers say as it comes: each probe's line (normal
/// output only), each server's text with `<NAME> ` at the start of its
/// lines (not in terse output), the client's own lines; and, with
/// `status`, the servers' status every interval, summed, as fio's client
/// draws it. A write that fails is told once; the servers' runs go on.
fn print_as_heard(
    heard: std::sync::mpsc::Receiver<Event>,
    out: &mut crate::output::Output,
    normal: bool,
    terse: bool,
    status: Option<Status<'_>>,
) {
    use ioscope_run::EtaSink;
    use std::sync::mpsc::RecvTimeoutError;
    let mut at_line_start: Vec<bool> = Vec::new();
    let mut failed = false;
    let mut running: Vec<usize> = Vec::new();
    let mut round: Option<Round> = None;
    let mut tags = 0u64;
    let mut asked = std::time::Instant::now();
    loop {
        let event = match status.as_ref().filter(|_| !running.is_empty()) {
            None => heard.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(s) => heard.recv_timeout(s.interval.saturating_sub(asked.elapsed())),
        };
        let event = match event {
            Ok(e) => e,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(s) = &status {
                    tags += 1;
                    round = s.ask(&running, tags);
                    asked = std::time::Instant::now();
                }
                continue;
            }
        };
        let text = match event {
            Event::Probe(line) if normal => format!("{line}\n"),
            Event::Probe(_) => continue,
            Event::Text { index, name, text } => {
                if at_line_start.len() <= index {
                    at_line_start.resize(index + 1, true);
                }
                let prefix = if at_line_start[index] && !terse {
                    format!("<{name}> ")
                } else {
                    String::new()
                };
                at_line_start[index] = text.ends_with('\n');
                format!("{prefix}{text}")
            }
            Event::Line(line) => line,
            Event::Running(index) => {
                if running.is_empty() {
                    asked = std::time::Instant::now();
                }
                running.push(index);
                continue;
            }
            Event::Finished(index) => {
                running.retain(|&i| i != index);
                continue;
            }
            Event::Eta { tag, eta } => {
                if let (Some(r), Some(s)) = (round.as_mut().filter(|r| r.tag == tag), &status) {
                    r.sum.add(&eta);
                    r.waiting -= 1;
                    if r.waiting == 0 {
                        s.printer.show(&r.sum);
                        round = None;
                    }
                }
                continue;
            }
        };
        if let Err(e) = out.write(&text) {
            if !failed {
                crate::output::warn(&format!("ioscope: --client: {e}"));
            }
            failed = true;
        }
    }
}

/// The command line fio's client passes on to its servers: every option
/// but `--client` and `--remote-config` (its job options, and its program
/// options, which the server takes as fio's does, its output format among
/// them), without the job files named, which go as their text.
fn passed_on(job_files: &[PathBuf]) -> Vec<String> {
    let mut files: Vec<&PathBuf> = job_files.iter().collect();
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let option = arg.trim_start_matches('-');
        if arg.starts_with('-') && ["client", "remote-config"].contains(&option) {
            args.next();
            continue;
        }
        if arg.starts_with('-')
            && (option.starts_with("client=") || option.starts_with("remote-config="))
        {
            continue;
        }
        if let Some(i) = files.iter().position(|f| f.as_os_str() == arg.as_str()) {
            files.remove(i);
            continue;
        }
        out.push(arg);
    }
    out
}

/// The servers' sockets, for the signal handler (at most this many are
/// told to quit).
static SERVERS: [AtomicI32; 64] = [const { AtomicI32::new(-1) }; 64];

extern "C" fn send_quit(_: libc::c_int) {
    for server in &SERVERS {
        let fd = server.load(Ordering::Relaxed);
        if fd >= 0 {
            // SAFETY: write is async-signal-safe; the command is a whole
            // static buffer.
            unsafe { libc::write(fd, wire::QUIT.as_ptr().cast(), wire::QUIT.len()) };
        }
    }
}

/// Ctrl-C (or SIGTERM) tells the servers to stop the jobs, as fio's
/// client does; the results of what ran still come and are printed.
fn quit_on_ctrl_c(sockets: &[std::fs::File]) {
    for (slot, socket) in SERVERS.iter().zip(sockets) {
        slot.store(socket.as_raw_fd(), Ordering::Relaxed);
    }
    // SAFETY: the handler only loads atomics and writes; SA_RESTART lets
    // the reading go on.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = send_quit as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESTART;
        for sig in [libc::SIGINT, libc::SIGTERM] {
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}
