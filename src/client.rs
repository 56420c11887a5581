//! `--client=ARGS`: ioscope as fio's client. It sends the job files and
//! command-line jobs to a fio server (fio 3.33's, protocol version 97, or
//! `ioscope --server`), which runs them; it prints what the server says
//! as it says it, writes the logs the server sends, and prints the results
//! in the formats asked for, as fio's client does (client.c).

use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::fio_protocol::address::Address;
use crate::fio_protocol::wire::{self, Op};

/// What fio's client says it is in its probe (FIO_PROBE_FLAG_ZLIB
/// unset: it takes no compressed logs).
const PROBE_FLAGS: u64 = 0;

/// Runs the jobs of `args` on the server at `at` and prints the results.
pub fn main(at: &str, args: &crate::args::Args) -> anyhow::Result<ExitCode> {
    let address = Address::parse(at).map_err(|e| anyhow::anyhow!("--client: {e}"))?;
    let socket: OwnedFd = match &address {
        Address::Tcp(a) => std::net::TcpStream::connect(a).map(OwnedFd::from),
        Address::Unix(p) => std::os::unix::net::UnixStream::connect(p).map(OwnedFd::from),
    }
    .map_err(|e| anyhow::anyhow!("--client: cannot connect to {address}: {e}"))?;
    let mut socket = std::fs::File::from(socket);
    quit_on_ctrl_c(&socket);
    let normal = args.formats.contains(&ioscope_report::Format::Normal);
    let terse = (args.formats.iter()).any(|f| matches!(f, ioscope_report::Format::Terse(_)));
    let mut out = std::io::stdout().lock();

    wire::send(&mut socket, Op::Probe, 1, &probe(at))?;
    let mut commands = 0;
    let input = &args.job_input;
    let passed_on = passed_on(&input.job_files);
    if !passed_on.is_empty() {
        wire::send(&mut socket, Op::JobLine, 0, &job_line(&passed_on))?;
        commands += 1;
    }
    for path in &input.job_files {
        let text = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("job file '{}': {e}", path.display()))?;
        wire::send(&mut socket, Op::Job, 0, &job_file(&text))?;
        commands += 1;
    }
    if commands == 0 {
        anyhow::bail!("--client: no jobs: give a job file or --name=NAME with job options");
    }

    // The server's host as given, which fio's client names it by, and its
    // host name as it says in its probe, which its lines are shown with.
    let host = host_of(at);
    let mut name = host.clone();
    let mut starts = 0;
    let mut reports = 0;
    let mut at_line_start = true;
    let mut result = ioscope_stats::RunResult::default();
    let mut options: Vec<(u32, String, String)> = Vec::new();
    let mut error = 0;
    loop {
        let command = match wire::recv(&mut socket) {
            Ok(c) => c,
            Err(wire::RecvError::Closed) => break,
            Err(e) => anyhow::bail!("--client: {address}: {e}"),
        };
        let p = &command.payload;
        match command.op {
            Op::Probe => {
                let hostname = c_text(p.get(..64).unwrap_or(&[]));
                if normal {
                    writeln!(out, "{}", probe_line(p))?;
                }
                name = hostname;
            }
            Op::Text => {
                // struct cmd_text_pdu: level, length, time, then the text.
                let len = le_u32(p, 4) as usize;
                let text = String::from_utf8_lossy(p.get(24..24 + len).unwrap_or(&[]));
                if at_line_start && !terse {
                    write!(out, "<{name}> ")?;
                }
                write!(out, "{text}")?;
                at_line_start = text.ends_with('\n');
            }
            Op::Start => {
                // struct cmd_start_pdu: workers, and reports to come (the
                // jobs so far).
                reports = le_u32(p, 4);
                starts += 1;
                if starts == commands {
                    wire::send(&mut socket, Op::Run, 0, &[])?;
                }
            }
            Op::JobOpt => {
                // struct cmd_job_option: global, truncated, the job's
                // index, name[64], value[128].
                let global = le_u16(p, 0) != 0;
                let index = if global { u32::MAX } else { le_u32(p, 4) };
                let key = c_text(p.get(8..72).unwrap_or(&[]));
                let value = c_text(p.get(72..200).unwrap_or(&[]));
                options.push((index, key, value));
            }
            Op::Ts => {
                let (job, kb_base) = ioscope_report::fio_net::read_job_stats(p)
                    .map_err(|e| anyhow::anyhow!("--client: {address}: {e}"))?;
                result.kb_base = kb_base;
                result.jobs.push(job);
            }
            Op::Du => result.disks.push(
                ioscope_report::fio_net::read_disk_util(p)
                    .map_err(|e| anyhow::anyhow!("--client: {address}: {e}"))?,
            ),
            Op::IoLog => write_log(p, &host)?,
            Op::Stop => {
                error = le_u32(p, 0);
                if error != 0 {
                    writeln!(out, "client <{host}>: exited with error {error}")?;
                }
            }
            Op::Quit => break,
            // The group figures follow from the jobs'; the rest says how
            // the server goes.
            _ => {}
        }
    }
    out.flush()?;
    for (index, key, value) in options {
        let pair = (key, value);
        match result.jobs.get_mut(index as usize) {
            Some(job) => job.job_options.push(pair),
            None => result.global_options.push(pair),
        }
    }
    (result.timestamp, result.timestamp_ms, result.time) = ioscope_run::now_stamps();
    // A socket's path has fio's port, as fio's client parses it.
    let port = match &address {
        Address::Tcp(a) => a.port(),
        Address::Unix(_) => wire::DEFAULT_PORT,
    };
    let report = ioscope_report::render_client(
        &result,
        &args.formats,
        &ioscope_report::Options::default(),
        (&host, port),
        reports > 1,
    );
    crate::output::print(&report)?;
    Ok(ExitCode::from(u8::from(error != 0)))
}

/// The server's socket, for the signal handler.
static SERVER: AtomicI32 = AtomicI32::new(-1);

extern "C" fn send_quit(_: libc::c_int) {
    let fd = SERVER.load(Ordering::Relaxed);
    // SAFETY: write is async-signal-safe; the command is a whole static
    // buffer.
    unsafe { libc::write(fd, wire::QUIT.as_ptr().cast(), wire::QUIT.len()) };
}

/// Ctrl-C (or SIGTERM) tells the server to stop the jobs, as fio's client
/// does; the results of what ran still come and are printed.
fn quit_on_ctrl_c(socket: &std::fs::File) {
    SERVER.store(socket.as_raw_fd(), Ordering::Relaxed);
    // SAFETY: the handler only loads an atomic and writes; SA_RESTART
    // lets the reading go on.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = send_quit as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESTART;
        for sig in [libc::SIGINT, libc::SIGTERM] {
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// struct cmd_client_probe_pdu: its flags, and the server as named.
fn probe(server: &str) -> Vec<u8> {
    let mut p = PROBE_FLAGS.to_le_bytes().to_vec();
    let name = &server.as_bytes()[..server.len().min(127)];
    p.extend_from_slice(name);
    p.resize(8 + 128, 0);
    p
}

/// fio's line for a server's probe reply (struct cmd_probe_reply_pdu).
fn probe_line(p: &[u8]) -> String {
    let os = match p.get(97) {
        Some(1) => "Linux",
        _ => "unknown",
    };
    const ARCHES: [&str; 14] = [
        "", "x86-64", "x86", "ppc", "ia64", "s390", "alpha", "sparc", "sparc64", "arm", "sh",
        "hppa", "mips", "aarch64",
    ];
    let arch = p
        .get(98)
        .and_then(|&a| ARCHES.get(usize::from(a)))
        .filter(|a| !a.is_empty())
        .unwrap_or(&"generic");
    format!(
        "hostname={}, be={}, {}-bit, os={os}, arch={arch}, fio={}, flags={:x}",
        c_text(p.get(..64).unwrap_or(&[])),
        p.get(64).copied().unwrap_or(0),
        u32::from(p.get(99).copied().unwrap_or(8)) * 8,
        c_text(p.get(65..97).unwrap_or(&[])),
        p.get(104..112)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap())),
    )
}

/// The command line fio's client passes on to its server: every option
/// but `--client` (its job options, and its program options, which the
/// server takes as fio's does, its output format among them), without
/// the job files, which go as their text.
fn passed_on(job_files: &[std::path::PathBuf]) -> Vec<String> {
    let mut files: Vec<&std::path::PathBuf> = job_files.iter().collect();
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--client" || arg == "-client" {
            args.next();
            continue;
        }
        if arg.starts_with("--client=") || arg.starts_with("-client=") {
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

/// struct cmd_line_pdu: the options as the server's command line, after
/// the program's name as fio's client puts it first.
fn job_line(options: &[String]) -> Vec<u8> {
    let argv: Vec<&str> = std::iter::once("fio")
        .chain(options.iter().map(String::as_str))
        .collect();
    let mut p = (argv.len() as u16).to_le_bytes().to_vec();
    p.extend_from_slice(&0u16.to_le_bytes());
    for arg in argv {
        p.extend_from_slice(&(arg.len() as u16 + 1).to_le_bytes());
        p.extend_from_slice(arg.as_bytes());
        p.push(0);
    }
    p
}

/// struct cmd_job_pdu: a job file's text, ended with a NUL.
fn job_file(text: &[u8]) -> Vec<u8> {
    let mut p = (text.len() as u32 + 1).to_le_bytes().to_vec();
    p.extend_from_slice(&0u32.to_le_bytes());
    p.extend_from_slice(text);
    p.push(0);
    p
}

/// The server as given, without its kind and port: what fio's client
/// calls it by (its JSON's hostname, its logs' names).
fn host_of(at: &str) -> String {
    if let Some(path) = at.strip_prefix("sock:") {
        return path.to_string();
    }
    let host = at.rsplit_once(',').map_or(at, |(h, _)| h);
    host.trim_start_matches("ip6:")
        .trim_start_matches("ip4:")
        .trim_start_matches("ip:")
        .to_string()
}

/// Writes a log a server sent (struct cmd_iolog_pdu, then its samples)
/// to `NAME.HOST`, as fio's client does.
fn write_log(p: &[u8], host: &str) -> anyhow::Result<()> {
    let name = c_text(p.get(32..288).unwrap_or(&[]));
    let path = format!("{name}.{host}");
    let bytes = ioscope_report::fio_net::log_file(p)
        .map_err(|e| anyhow::anyhow!("--client: the log {name}: {e}"))?;
    std::fs::write(&path, bytes).map_err(|e| anyhow::anyhow!("--client: cannot write {path}: {e}"))
}

fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn le_u16(p: &[u8], at: usize) -> u16 {
    p.get(at..at + 2)
        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
}

fn le_u32(p: &[u8], at: usize) -> u32 {
    p.get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap()))
}
