//! One server's conversation (client.c fio_handle_client): probe, the
//! command line and the job files, run when every server is ready, then
//! what the server says until it quits.

use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex};

use crate::fio_protocol::address::Address;
use crate::fio_protocol::wire::{self, Op};

use super::payloads::{self, c_text, le_u16, le_u32};
use super::JobFile;

/// What a server's conversation tells the printing thread as it goes.
pub enum Event {
    /// Its probe reply's line (`hostname=..., fio=...`).
    Probe(String),
    /// A piece of the text it sends, from server `index` named `name`.
    Text {
        index: usize,
        name: String,
        text: String,
    },
    /// A line of the client's own about it.
    Line(String),
    /// Server `index` has been told to run: it is asked how it goes.
    Running(usize),
    /// Server `index`'s conversation is over: it is asked no more.
    Finished(usize),
    /// Its reply to the status request tagged `tag`.
    Eta {
        tag: u64,
        eta: ioscope_stats::JobsEta,
    },
}

/// What one server ran.
pub struct Served {
    pub host: String,
    pub port: u16,
    pub result: ioscope_stats::RunResult,
    /// The reports it said it would send.
    pub reports: u32,
    /// The error its run ended with.
    pub error: u32,
}

/// fio's client starts the servers' jobs together, once every server has
/// taken its jobs (fio_start_all_clients); a server that failed before
/// leaves the count.
pub struct StartGate {
    waiting: Mutex<(usize, usize)>,
    all_in: Condvar,
}

impl StartGate {
    pub fn new(servers: usize) -> StartGate {
        StartGate {
            waiting: Mutex::new((servers, 0)),
            all_in: Condvar::new(),
        }
    }

    fn arrive(&self) {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.1 += 1;
        self.all_in.notify_all();
        while w.1 < w.0 {
            w = self.all_in.wait(w).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn leave(&self) {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.0 -= 1;
        self.all_in.notify_all();
    }
}

/// What one server is asked: the server as given (`--client=`), its
/// place among them, the command line passed on and its job files.
pub struct Order<'a> {
    pub index: usize,
    pub at: &'a str,
    pub passed_on: &'a [String],
    pub files: &'a [JobFile],
    /// Where a triggered server's verify state goes (`--aux-path`), and
    /// the local `--trigger` command, run as each server answers.
    pub aux_path: Option<&'a std::path::Path>,
    pub trigger: &'a ioscope_run::Trigger,
    /// Its connection's writing end, which the status requests and the
    /// trigger share, a whole command at a time.
    pub writer: &'a Mutex<std::fs::File>,
}

/// Sends one whole command on a connection others write to too.
pub fn send_on(
    writer: &Mutex<std::fs::File>,
    op: Op,
    tag: u64,
    payload: &[u8],
) -> std::io::Result<()> {
    let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
    wire::send(&mut *w, op, tag, payload)
}

/// Runs `order`'s jobs on the server connected by `socket`.
pub fn serve(
    order: &Order,
    socket: std::fs::File,
    gate: &StartGate,
    events: &Sender<Event>,
) -> Result<Served, String> {
    let mut arrived = false;
    let served = talk(order, socket, gate, events, &mut arrived);
    if !arrived {
        gate.leave();
    }
    let _ = events.send(Event::Finished(order.index));
    served
}

/// What fio's client calls a server in its probe, and the verify state
/// files it saves for it: its address, `sock` for a Unix socket (fio's
/// server_name). The server names the state it asks for after it.
fn server_name(at: &str) -> String {
    match Address::parse(at) {
        Ok(Address::Tcp(a)) => a.ip().to_string(),
        _ => "sock".to_string(),
    }
}

/// fio's client's prefix for a server's verify state, under `--aux-path`
/// when given.
fn trigger_prefix(at: &str, aux_path: Option<&std::path::Path>) -> String {
    let name = server_name(at);
    match aux_path {
        Some(dir) => dir.join(name).display().to_string(),
        None => name,
    }
}

fn talk(
    order: &Order,
    mut socket: std::fs::File,
    gate: &StartGate,
    events: &Sender<Event>,
    arrived: &mut bool,
) -> Result<Served, String> {
    let (index, at, passed_on, files) = (order.index, order.at, order.passed_on, order.files);
    let io = |e: std::io::Error| format!("{at}: {e}");
    let send = |op, tag, payload: &[u8]| send_on(order.writer, op, tag, payload).map_err(io);
    send(Op::Probe, 1, &payloads::probe(&server_name(at)))?;
    let mut commands = 0;
    if !passed_on.is_empty() {
        send(Op::JobLine, 0, &payloads::job_line(passed_on))?;
        commands += 1;
    }
    for file in files {
        let (op, payload) = match file {
            JobFile::Here(path) => {
                let text = std::fs::read(path)
                    .map_err(|e| format!("job file '{}': {e}", path.display()))?;
                (Op::Job, payloads::job_file(&text))
            }
            JobFile::There(name) => (Op::LoadFile, payloads::load_file(name)),
        };
        send(op, 0, &payload)?;
        commands += 1;
    }
    // The server's host as given, which fio's client names it by, and its
    // host name as its probe says, which its lines are shown with.
    let host = payloads::host_of(at);
    let mut name = host.clone();
    let mut starts = 0;
    let mut reports = 0;
    let mut result = ioscope_stats::RunResult::default();
    let mut options: Vec<(u32, String, String)> = Vec::new();
    let mut error = 0;
    // The server said how its run ended; one that quits without has run
    // nothing (it refused the jobs, and said why).
    let mut stopped = false;
    let say = |e: Event| {
        let _ = events.send(e);
    };
    loop {
        let command = match wire::recv(&mut socket) {
            Ok(c) => c,
            Err(wire::RecvError::Closed) => break,
            Err(e) => return Err(format!("{at}: {e}")),
        };
        let p = &command.payload;
        match command.op {
            Op::Probe => {
                say(Event::Probe(payloads::probe_line(p)));
                name = c_text(p.get(..64).unwrap_or(&[]));
            }
            Op::Text => {
                // struct cmd_text_pdu: level, length, time, then the text.
                let len = le_u32(p, 4) as usize;
                let text = String::from_utf8_lossy(p.get(24..24 + len).unwrap_or(&[]));
                say(Event::Text {
                    index,
                    name: name.clone(),
                    text: text.into_owned(),
                });
            }
            Op::Start => {
                // struct cmd_start_pdu: workers, and reports to come (the
                // jobs so far).
                reports = le_u32(p, 4);
                starts += 1;
                if starts == commands {
                    *arrived = true;
                    gate.arrive();
                    send(Op::Run, 0, &[])?;
                    say(Event::Running(index));
                }
            }
            Op::JobOpt => {
                // struct cmd_job_option: global, truncated, the job's
                // index, name[64], value[128].
                let global = le_u16(p, 0) != 0;
                let job = if global { u32::MAX } else { le_u32(p, 4) };
                let key = c_text(p.get(8..72).unwrap_or(&[]));
                let value = c_text(p.get(72..200).unwrap_or(&[]));
                options.push((job, key, value));
            }
            Op::Ts => {
                let (job, kb_base) =
                    ioscope_report::fio_net::read_job_stats(p).map_err(|e| format!("{at}: {e}"))?;
                result.kb_base = kb_base;
                result.jobs.push(job);
            }
            Op::Du => result.disks.push(
                ioscope_report::fio_net::read_disk_util(p).map_err(|e| format!("{at}: {e}"))?,
            ),
            Op::IoLog => payloads::write_log(p, &host).map_err(|e| e.to_string())?,
            Op::Stop => {
                stopped = true;
                error = le_u32(p, 0);
                if error != 0 {
                    say(Event::Line(format!(
                        "client <{host}>: exited with error {error}\n"
                    )));
                }
            }
            Op::VTrigger => {
                // The server stopped its jobs (--trigger-remote) and sent
                // their verify state: saved as fio's client saves it,
                // named after the server, then the local command runs.
                let prefix = trigger_prefix(at, order.aux_path);
                if let Err(e) = ioscope_run::save_sent_verify_state(p, &prefix) {
                    say(Event::Line(format!("client <{host}>: verify state: {e}\n")));
                }
                if let Err(e) = order.trigger.run_command() {
                    say(Event::Line(format!("{e}\n")));
                }
            }
            Op::SendFile => {
                // A job of the server's loads its verify state from here
                // (a trigger saved it): the file the server names, or why
                // it cannot be read (struct cmd_sendfile_reply).
                let path = c_text(p.get(..256).unwrap_or(&[]));
                let reply = payloads::file_reply(std::fs::read(&path));
                send(Op::SendFile, command.tag, &reply)?;
            }
            Op::Eta => {
                if let Some(eta) = ioscope_report::fio_net::eta::read(p) {
                    say(Event::Eta {
                        tag: command.tag,
                        eta,
                    });
                }
            }
            Op::Quit => break,
            // The group figures follow from the jobs'; the rest says how
            // the server goes.
            _ => {}
        }
    }
    if !stopped {
        // fio's client exits 0 here; a run that did not happen must not
        // look like one that did.
        return Err(format!("{at}: the server ran no job (its reason is above)"));
    }
    for (job, key, value) in options {
        let pair = (key, value);
        match result.jobs.get_mut(job as usize) {
            Some(j) => j.job_options.push(pair),
            None => result.global_options.push(pair),
        }
    }
    (result.timestamp, result.timestamp_ms, result.time) = ioscope_run::now_stamps();
    // A socket's path has fio's port, as fio's client parses it.
    let port = match Address::parse(at) {
        Ok(Address::Tcp(a)) => a.port(),
        _ => wire::DEFAULT_PORT,
    };
    Ok(Served {
        host,
        port,
        result,
        reports,
        error,
    })
}
