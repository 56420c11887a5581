//! `/dev/zram0` for one test at a time.
//!
//! There is one zram device and tests in several crates (run as separate
//! processes, in parallel) want it, so every user takes an exclusive flock on
//! `/tmp/ioscope-zram.lock` for as long as it holds the device, sizes it, and
//! resets it on drop. A device left set up by a user that could not reset it
//! (the kernel refuses while a file on it is still open — io_uring can
//! release its references a little after the ring is gone) is reset by the
//! next user, under the lock.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

const SYS: &str = "/sys/block/zram0";
const LOCK: &str = "/tmp/ioscope-zram.lock";

/// `/dev/zram0`, sized for one test and reset when dropped.
pub struct Zram {
    dev: PathBuf,
    _lock: File,
}

impl Zram {
    /// Takes zram0 and sizes it to `bytes`, or says why it cannot (the
    /// caller prints the reason and skips).
    pub fn acquire(bytes: u64) -> Result<Zram, String> {
        if !Path::new(SYS).exists() {
            return Err(format!(
                "{SYS} does not exist (the zram module is not loaded)"
            ));
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root: setting up zram needs root".into());
        }
        let lock = crate::lock::take(LOCK)?;
        let size = fs::read_to_string(format!("{SYS}/disksize"))
            .map_err(|e| format!("reading {SYS}/disksize: {e}"))?;
        if size.trim() != "0" && !reset_with_retries() {
            return Err(format!(
                "zram0 is busy: set up (disksize {}) and cannot be reset",
                size.trim()
            ));
        }
        fs::write(format!("{SYS}/disksize"), bytes.to_string())
            .map_err(|e| format!("echo {bytes} > {SYS}/disksize: {e}"))?;
        let dev = PathBuf::from("/dev/zram0");
        let start = Instant::now();
        while !dev.exists() {
            if start.elapsed() > Duration::from_secs(5) {
                reset_with_retries();
                return Err("/dev/zram0 did not appear".into());
            }
            thread::sleep(Duration::from_millis(20));
        }
        Ok(Zram { dev, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        &self.dev
    }

    /// Sectors (512 bytes) read and written on the device so far.
    pub fn sectors(&self) -> (u64, u64) {
        let s = fs::read_to_string(format!("{SYS}/stat")).unwrap_or_default();
        let f: Vec<u64> = s
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        (
            f.get(2).copied().unwrap_or(0),
            f.get(6).copied().unwrap_or(0),
        )
    }
}

/// Resets zram0, retrying for up to 5 s while the device is still held open.
fn reset_with_retries() -> bool {
    for _ in 0..50 {
        if fs::write(format!("{SYS}/reset"), "1").is_ok() {
            return true;
        }
        thread::sleep(Duration::from_millis(100));
    }
    false
}

impl Drop for Zram {
    fn drop(&mut self) {
        if !reset_with_retries() {
            eprintln!("warning: could not reset zram0; the next user will retry");
        }
    }
}
