//! What a job does to its files between I/Os, where fio does it: dropping
//! their cached pages (`invalidate`) and, before a new loop, unlinking them
//! (`unlink_each_loop`).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;

use ioscope_engine::{Completion, Op, Queue, TargetKind};
use ioscope_workload::CacheDrop;

use super::fill::{commit, Slot};
use super::ledger::Ledger;
use super::results::IoFailure;
use crate::files::WorkerFile;
use crate::trace::IoTrace;

/// Drops the cached pages of the files `drop` names, as fio's `invalidate`
/// does when a pass reopens them and where a time-based pass starts a
/// file over (fio's loop_cache_invalidate), with fio's `--debug=io` line.
/// A failure is let pass, as fio lets it pass there.
#[cold]
#[inline(never)]
pub(super) fn drop_caches(files: &[WorkerFile], drop: CacheDrop, mut trace: Option<&mut IoTrace>) {
    for (i, f) in files.iter().enumerate() {
        if drop != CacheDrop::All && drop != CacheDrop::File(i as u32) {
            continue;
        }
        let Some(target) = &f.target else { continue };
        let (offset, len) = (f.extent.offset, f.extent.len);
        let Some(line) = crate::trace::cache_drop_line(target.kind(), &f.path, offset, len) else {
            continue;
        };
        if let Some(t) = trace.as_deref_mut() {
            t.line(format_args!("{line}"));
        }
        let _ = target.invalidate_cache(offset, len);
    }
}

/// The loop's request bookkeeping, for a drain.
pub(super) struct Batches<'b> {
    pub pending: &'b mut Vec<u32>,
    pub slots: &'b mut [Slot],
    pub free: &'b mut Vec<u32>,
    pub reaped: &'b mut Vec<Completion>,
}

/// `unlink_each_loop` at a new loop: what is pending is sent and every I/O
/// of the last loop completes (fio's do_io ends so before its next loop),
/// then the files are unlinked and opened again. Returns false when the
/// job must stop: an I/O's error, or the files' (then the job's failure).
#[cold]
#[inline(never)]
pub(super) fn new_loop<Q: Queue>(
    q: &mut Q,
    ledger: &mut Ledger,
    b: Batches,
    files: &[WorkerFile],
    timing: bool,
) -> io::Result<bool> {
    if !b.pending.is_empty() {
        commit(
            q,
            b.pending,
            b.slots,
            &mut ledger.stats,
            &ledger.clock,
            timing,
        )?;
    }
    let depth = b.slots.len() as u32;
    while q.in_flight() > 0 {
        let (_, ok, _) = ledger.reap(q, 1, depth, b.reaped, b.slots, b.free)?;
        if !ok {
            return Ok(false);
        }
    }
    if let Err(failure) = unlink_and_reopen(files) {
        ledger.stats.failure.get_or_insert(failure);
        return Ok(false);
    }
    Ok(true)
}

/// Once every I/O of the last loop has
/// completed: each regular file is unlinked, as fio's unlink_all_files
/// does, and opened again as fio's next open does (its flags, with
/// O_CREAT and mode 0600 where it is open for writing), the new file
/// taking the old one's descriptor so that the queue goes on with it. A
/// file open only for reading is gone: the open fails with ENOENT, and so
/// does the job, as fio's.
fn unlink_and_reopen(files: &[WorkerFile]) -> Result<(), IoFailure> {
    for (i, f) in files.iter().enumerate() {
        let Some(target) = f
            .target
            .as_ref()
            .filter(|t| t.kind() == TargetKind::RegularFile)
        else {
            continue;
        };
        let failure = |call: &str, e: io::Error| IoFailure {
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            op: Op::Read,
            file: i as u32,
            offset: 0,
            len: 0,
            detail: Some(format!("{call}({}): {e}", f.path.display())),
        };
        std::fs::remove_file(&f.path).map_err(|e| failure("unlink_all_files: unlink", e))?;
        let fd = target.fd();
        // SAFETY: F_GETFL reads the flags of a descriptor the target owns.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags == -1 {
            return Err(failure("fcntl", io::Error::last_os_error()));
        }
        let create = match flags & libc::O_ACCMODE {
            libc::O_RDONLY => 0,
            _ => libc::O_CREAT,
        };
        let path = CString::new(f.path.as_os_str().as_bytes())
            .map_err(|_| failure("open", io::Error::from_raw_os_error(libc::EINVAL)))?;
        // SAFETY: a NUL-terminated path and integer flags; the descriptor
        // returned is closed below.
        let new = unsafe { libc::open(path.as_ptr(), flags | create | libc::O_CLOEXEC, 0o600) };
        if new == -1 {
            return Err(failure("open", io::Error::last_os_error()));
        }
        // SAFETY: both descriptors are open; dup3 makes `fd` the new file
        // and closes the old one, and `new` is closed after it.
        let moved = unsafe { libc::dup3(new, fd, libc::O_CLOEXEC) };
        let error = io::Error::last_os_error();
        // SAFETY: `new` was opened above and is not used again.
        unsafe { libc::close(new) };
        if moved == -1 {
            return Err(failure("dup3", error));
        }
    }
    Ok(())
}
