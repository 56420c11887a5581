//! `--server[=ARGS]`: fio's backend server, for fio's own clients (`fio
//! --client=HOST job.fio`), speaking fio 3.33's protocol (version 97).
//! As fio does, it listens on TCP port 8765 of every address unless told
//! otherwise, and serves each connection in a process of its own.

mod address;
mod forward;
mod replies;
mod session;
mod wire;

use std::os::fd::OwnedFd;
use std::process::ExitCode;

use address::Address;

/// Listens and serves until killed.
pub fn main(arg: Option<&str>) -> anyhow::Result<ExitCode> {
    let address = Address::parse(arg.unwrap_or(""))?;
    let listener = address.listen()?;
    // A child per connection, reaped by the kernel: no zombies.
    // SAFETY: setting a signal's disposition to SIG_IGN.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    loop {
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
                // the exec engine): their exit statuses must be there.
                // SAFETY: restoring a signal's default disposition.
                unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
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
}

/// What accepts connections: a TCP or a Unix-domain socket.
enum Listener {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener),
}

impl Listener {
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
