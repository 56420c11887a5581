//! What is checked before a run: O_DIRECT and poll queues for IOPOLL,
//! and the poll queues warning.

use std::io;
use std::os::fd::RawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use crate::error::{EngineError, NoPolling};
use crate::queue::fd_name;

/// IOPOLL needs O_DIRECT (on a buffered file the kernel fails every request
/// with EOPNOTSUPP) and a device with poll queues (see
/// [`poll_queue_warning`]). Say so before the run.
pub(super) fn check_iopoll_files(fds: &[RawFd]) -> Result<(), EngineError> {
    for &fd in fds {
        // SAFETY: F_GETFL reads the descriptor's flags and touches no memory.
        let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if fl == -1 {
            return Err(EngineError::Setup(format!(
                "cannot read the flags of file descriptor {fd}: {}",
                io::Error::last_os_error()
            )));
        }
        if fl & libc::O_DIRECT == 0 {
            return Err(EngineError::PollNeedsDirect { path: fd_name(fd) });
        }
        // SAFETY: fstat fills the stat buffer it is given.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } == 0 {
            let is_block_device = st.st_mode & libc::S_IFMT == libc::S_IFBLK;
            if let PollSupport::No(why) = poll_support(is_block_device, st.st_dev, st.st_rdev) {
                return Err(EngineError::CannotPoll {
                    path: fd_name(fd),
                    why,
                });
            }
        }
    }
    Ok(())
}

/// Whether the device under a file can poll for completions.
pub(super) enum PollSupport {
    Yes,
    /// The device has no poll queues: Linux 6.18 fails every polled read
    /// with EOPNOTSUPP there.
    No(NoPolling),
    /// Not a block device sysfs knows: it depends on the filesystem.
    Unknown(NoPolling),
}

/// Looks up the poll queues of the device behind a file (`dev`) or a block
/// device (`rdev`) in sysfs.
pub(super) fn poll_support(is_block_device: bool, dev: u64, rdev: u64) -> PollSupport {
    let dev = if is_block_device { rdev } else { dev };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    if !sys.exists() {
        return PollSupport::Unknown(NoPolling::NotBlockDevice { major, minor });
    }
    // A partition has no queue of its own: its disk's is one level up.
    let queue = if sys.join("partition").exists() {
        sys.join("../queue")
    } else {
        sys.join("queue")
    };
    let disk = std::fs::canonicalize(queue.join(".."))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{major}:{minor}"));
    let why = match std::fs::read_to_string(queue.join("io_poll")) {
        Ok(v) if v.trim() == "1" => return PollSupport::Yes,
        Ok(_) => format!("/sys/block/{disk}/queue/io_poll is 0"),
        Err(_) => format!("/sys/block/{disk}/queue has no io_poll"),
    };
    PollSupport::No(NoPolling::NoPollQueues { disk, why })
}

/// What stands in the way of polled completions (hipri, IOPOLL) for `path`,
/// or `None` when its block device has poll queues (or `path` cannot be
/// read, which opening it will report).
///
/// Linux 6.18 accepts IORING_SETUP_IOPOLL whatever the device, but on one
/// without poll queues (`/sys/block/<dev>/queue/io_poll` is 0, as for
/// virtio-blk, zram, or NVMe loaded without `poll_queues`) the block layer
/// fails each polled bio with EOPNOTSUPP: reads fail, and only writes that
/// the filesystem does not poll (ext4 allocating ones) get through.
/// [`UringQueue::new`](crate::UringQueue::new) refuses hipri on such a device; for files on devices
/// sysfs does not know, this says that it depends on the filesystem.
pub fn poll_queue_warning(path: &Path) -> Option<String> {
    cannot_poll(path).map(|e| e.to_string())
}

/// [`poll_queue_warning`] as a typed refusal ([`EngineError::CannotPoll`]),
/// for a front end to word in its own terms or to tell the user how a
/// backend that does not refuse (pvsync2) completes instead.
pub fn cannot_poll(path: &Path) -> Option<EngineError> {
    let meta = std::fs::metadata(path).ok()?;
    match poll_support(meta.file_type().is_block_device(), meta.dev(), meta.rdev()) {
        PollSupport::Yes => None,
        PollSupport::No(why) | PollSupport::Unknown(why) => Some(EngineError::CannotPoll {
            path: path.display().to_string(),
            why,
        }),
    }
}
