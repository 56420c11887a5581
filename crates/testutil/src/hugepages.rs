//! Huge pages reserved for one test at a time.
//!
//! A job with `mem=mmaphuge`, `shmhuge` or `xnvme_mem=hugepage` needs the
//! system to have huge pages reserved, which a fresh machine has not
//! (`HugePages_Total: 0`). [`HugePages::reserve`] raises
//! `/proc/sys/vm/nr_hugepages` under an exclusive flock on
//! `/tmp/ioscope-hugepages.lock` (tests of several crates run in parallel)
//! and puts the old count back on drop.

use std::fs::{self, File};

const NR: &str = "/proc/sys/vm/nr_hugepages";
const LOCK: &str = "/tmp/ioscope-hugepages.lock";

/// At least `pages` huge pages reserved while this lives.
pub struct HugePages {
    before: u64,
    _lock: File,
}

impl HugePages {
    /// Reserves `pages` huge pages of the default size, or says why it
    /// cannot (not root; the kernel found too little contiguous memory).
    pub fn reserve(pages: u64) -> Result<HugePages, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root: reserving huge pages needs root".into());
        }
        let lock = crate::lock::take(LOCK)?;
        let before = count()?;
        let guard = HugePages {
            before,
            _lock: lock,
        };
        if before < pages {
            fs::write(NR, pages.to_string()).map_err(|e| format!("echo {pages} > {NR}: {e}"))?;
            let got = count()?;
            if got < pages {
                return Err(format!(
                    "the kernel reserved {got} of {pages} huge pages (too little contiguous memory)"
                ));
            }
        }
        Ok(guard)
    }

    /// HugePages_Free in /proc/meminfo now.
    pub fn free() -> u64 {
        meminfo_field("HugePages_Free:")
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        // Pages still mapped stay until unmapped; the count is what the
        // next user finds.
        let _ = fs::write(NR, self.before.to_string());
    }
}

fn count() -> Result<u64, String> {
    fs::read_to_string(NR)
        .map_err(|e| format!("reading {NR}: {e}"))?
        .trim()
        .parse()
        .map_err(|e| format!("{NR}: {e}"))
}

fn meminfo_field(name: &str) -> u64 {
    fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}
