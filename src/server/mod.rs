//! `--server[=ARGS]`: fio's backend server, for fio's own clients (`fio
//! --client=HOST job.fio`), speaking fio 3.33's protocol (version 97).
//! As fio does, it listens on TCP port 8765 of every address unless told
//! otherwise, serves each connection in a process of its own, and with
//! `--daemonize=PIDFILE` goes to the background.

mod forward;
mod replies;
mod session;

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fio_protocol::address::Address;

/// Set by SIGINT or SIGTERM: the server stops accepting and exits.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Listens and serves until stopped (SIGINT, SIGTERM); with `pidfile`,
/// in the background (fio's `--daemonize`), its pid written there.
pub fn main(arg: Option<&str>, pidfile: Option<&Path>) -> anyhow::Result<ExitCode> {
    let address =
        Address::parse(arg.unwrap_or("")).map_err(|e| anyhow::anyhow!("--server: {e}"))?;
    if let Some(p) = pidfile {
        refuse_live_pidfile(p)?;
    }
    // Listening first, so that a port in use is told here, before the
    // server goes to the background.
    let listener = listen(&address)?;
    if let Some(p) = pidfile {
        daemonize(p)?;
    }
    // A child per connection, reaped by the kernel: no zombies.
    // SAFETY: setting signal dispositions; the handler only stores to an
    // atomic. Without SA_RESTART, accept returns EINTR to see the stop.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = stop as extern "C" fn(libc::c_int) as usize;
        for sig in [libc::SIGINT, libc::SIGTERM] {
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
    while !STOP.load(Ordering::Relaxed) {
        // std's accept goes on after a signal: waiting here is what sees
        // the stop.
        if !listener.wait() {
            continue;
        }
        let (socket, local) = match listener.accept() {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => anyhow::bail!("--server: accept on {address}: {e}"),
        };
        // SAFETY: this process has one thread (nothing here starts
        // another before the fork), so the child may run on.
        match unsafe { libc::fork() } {
            -1 => {
                let e = std::io::Error::last_os_error();
                crate::output::warn(&format!("ioscope: --server: fork: {e}"));
            }
            0 => {
                drop(listener);
                // The run waits for the programs it starts (exec_prerun,
                // the exec engine), and stops on Ctrl-C its own way.
                // SAFETY: restoring signals' default dispositions.
                unsafe {
                    for sig in [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM] {
                        libc::signal(sig, libc::SIG_DFL);
                    }
                }
                let code = match session::serve(std::fs::File::from(socket), local) {
                    Ok(()) => 0,
                    Err(why) => {
                        crate::output::warn(&format!("ioscope: --server: {why}"));
                        1
                    }
                };
                std::process::exit(code);
            }
            _ => drop(socket),
        }
    }
    if let Address::Unix(path) = &address {
        let _ = std::fs::remove_file(path);
    }
    if let Some(p) = pidfile {
        let _ = std::fs::remove_file(p);
    }
    Ok(ExitCode::SUCCESS)
}

/// fio refuses to start over a pid file whose process is alive.
fn refuse_live_pidfile(path: &Path) -> anyhow::Result<()> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(());
    };
    let pid: i32 = text.trim().parse().unwrap_or(0);
    // SAFETY: kill with SIGCONT only asks whether the process is there.
    let alive = pid > 0 && unsafe { libc::kill(pid, libc::SIGCONT) } == 0;
    if alive {
        anyhow::bail!(
            "--daemonize: pidfile {} exists and server appears alive",
            path.display()
        );
    }
    Ok(())
}

/// fio's daemonizing: the parent writes the child's pid and exits; the
/// child leaves the terminal's session, its standard streams /dev/null.
fn daemonize(pidfile: &Path) -> anyhow::Result<()> {
    // SAFETY: one thread, as in main's loop.
    match unsafe { libc::fork() } {
        -1 => anyhow::bail!("--daemonize: fork: {}", std::io::Error::last_os_error()),
        0 => {}
        child => {
            let written = std::fs::write(pidfile, format!("{child}\n"));
            if let Err(e) = &written {
                crate::output::warn(&format!(
                    "ioscope: --daemonize: cannot write {}: {e}",
                    pidfile.display()
                ));
                // SAFETY: stops the child this process just made.
                unsafe { libc::kill(child, libc::SIGTERM) };
            }
            std::process::exit(i32::from(written.is_err()));
        }
    }
    // SAFETY: setsid and dup2 on this process's own descriptors.
    unsafe {
        libc::setsid();
        let null = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")?;
        for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
            libc::dup2(null.as_raw_fd(), fd);
        }
    }
    Ok(())
}

fn listen(address: &Address) -> anyhow::Result<Listener> {
    let listening = match address {
        Address::Tcp(a) => std::net::TcpListener::bind(a).map(Listener::Tcp),
        Address::Unix(path) => {
            // fio removes a socket file left by an earlier server.
            let _ = std::fs::remove_file(path);
            std::os::unix::net::UnixListener::bind(path).map(Listener::Unix)
        }
    };
    listening.map_err(|e| anyhow::anyhow!("--server: cannot listen on {address}: {e}"))
}

/// What accepts connections: a TCP or a Unix-domain socket.
enum Listener {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener),
}

impl Listener {
    /// Waits for a connection; false when a signal came first.
    fn wait(&self) -> bool {
        let fd = match self {
            Listener::Tcp(l) => l.as_raw_fd(),
            Listener::Unix(l) => l.as_raw_fd(),
        };
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, of a descriptor this listener owns.
        unsafe { libc::poll(&mut pfd, 1, -1) > 0 }
    }

    /// A connection, and for TCP the address it came in on (fio names a
    /// client's files after it: session's client_uid).
    fn accept(&self) -> std::io::Result<(OwnedFd, Option<String>)> {
        Ok(match self {
            Listener::Tcp(l) => {
                let (s, _) = l.accept()?;
                // Replies are small and the client waits for them.
                s.set_nodelay(true)?;
                let local = s.local_addr()?.ip().to_string();
                (s.into(), Some(local))
            }
            Listener::Unix(l) => (l.accept()?.0.into(), None),
        })
    }
}
