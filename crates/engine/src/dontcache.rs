//! RWF_DONTCACHE, fio's `uncached` (io_uring and pvsync2): the flag, and
//! the check that the kernel and the filesystem have it.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileTypeExt;

use crate::error::EngineError;
use crate::queue::fd_name;

/// RWF_DONTCACHE from include/uapi/linux/fs.h (Linux 6.14). Older kernels
/// and filesystems without FOP_DONTCACHE fail it with EOPNOTSUPP. (fio 3.33's
/// RWF_UNCACHED was 0x40, from a patch set that never went upstream; on
/// Linux 6.9 and later 0x40 is RWF_NOAPPEND, so it must not be used.)
pub(crate) const RWF_DONTCACHE: i32 = 0x80;

/// RWF_DONTCACHE depends on the kernel (6.14) and on the filesystem, and an
/// unsupported one fails each transfer with EOPNOTSUPP. A one-byte buffered
/// read with the flag, through a second read-only descriptor of the same
/// file (the first may be write-only or O_DIRECT), finds out before the run.
pub(crate) fn check_uncached(fds: &[RawFd]) -> Result<(), EngineError> {
    for &fd in fds {
        let name = fd_name(fd);
        let probe = std::fs::File::open(format!("/proc/self/fd/{fd}")).map_err(|e| {
            EngineError::Setup(format!(
                "uncached: cannot reopen {name} to check RWF_DONTCACHE: {e}"
            ))
        })?;
        let mut byte = 0u8;
        let iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        // SAFETY: the iovec names one byte on this stack frame.
        let r = unsafe { libc::preadv2(probe.as_raw_fd(), &iov, 1, 0, RWF_DONTCACHE) };
        if r < 0 {
            let e = io::Error::last_os_error();
            let why = if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
                let block_device = probe
                    .metadata()
                    .is_ok_and(|m| m.file_type().is_block_device());
                if block_device {
                    "block devices do not support RWF_DONTCACHE (Linux 6.18 has it for \
                     some filesystems only)"
                        .to_string()
                } else {
                    "the kernel (before 6.14) or the filesystem does not support RWF_DONTCACHE"
                        .to_string()
                }
            } else {
                format!("the check read failed: {e}")
            };
            return Err(EngineError::Setup(format!(
                "uncached cannot work on {name}: {why}; drop uncached"
            )));
        }
    }
    Ok(())
}
