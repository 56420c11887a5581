//! An exclusive flock on a file in /tmp: how tests of several crates,
//! run as separate processes in parallel, take turns at one machine-wide
//! thing (the zram device, the huge page count).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::thread;
use std::time::{Duration, Instant};

/// Holds the lock on `path` (created if need be) until the file drops;
/// waits up to 300 s for another holder.
pub(crate) fn take(path: &str) -> Result<File, String> {
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        // SAFETY: a valid open descriptor.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(lock);
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(format!("flock {path}: {e}"));
        }
        if Instant::now() > deadline {
            return Err(format!("{path} stayed locked by another user for 300 s"));
        }
        thread::sleep(Duration::from_millis(50));
    }
}
