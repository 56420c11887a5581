//! What the run prints goes to the client, as a fio server sends its log
//! (log.c: log_info and log_err become FIO_NET_CMD_TEXT): while the jobs
//! run, this process's stdout and stderr are pipes whose lines are sent
//! as text, stdout's as information, stderr's as errors.

use std::io::BufRead;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::replies::{LOG_ERR, LOG_INFO};
use super::session::Link;

/// stdout and stderr redirected, and the threads that send their lines.
pub struct Forward {
    senders: Vec<JoinHandle<()>>,
}

impl Forward {
    /// Points stdout and stderr at pipes read by threads that send each
    /// line to the client.
    pub fn start(link: &Arc<Link>) -> std::io::Result<Forward> {
        let mut senders = Vec::new();
        for (fd, level) in [
            (libc::STDOUT_FILENO, LOG_INFO),
            (libc::STDERR_FILENO, LOG_ERR),
        ] {
            let (read, write) = pipe()?;
            // SAFETY: dup2 onto a standard descriptor this process owns.
            if unsafe { libc::dup2(write.as_raw_fd(), fd) } < 0 {
                return Err(std::io::Error::last_os_error());
            }
            drop(write);
            let link = Arc::clone(link);
            senders.push(std::thread::spawn(move || {
                let mut lines = std::io::BufReader::new(std::fs::File::from(read));
                let mut line = Vec::new();
                while matches!(lines.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                    let _ = link.text(level, &String::from_utf8_lossy(&line));
                    line.clear();
                }
            }));
        }
        Ok(Forward { senders })
    }

    /// Sends what is left and puts /dev/null where stdout and stderr
    /// were: once this returns, every line printed has gone out.
    pub fn finish(self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            for fd in [libc::STDOUT_FILENO, libc::STDERR_FILENO] {
                // SAFETY: dup2 onto a standard descriptor; the pipes'
                // last write ends close, and their readers see the end.
                unsafe { libc::dup2(null.as_raw_fd(), fd) };
            }
        }
        for sender in self.senders {
            let _ = sender.join();
        }
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors it is given room for.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are new descriptors owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
