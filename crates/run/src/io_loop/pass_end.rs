//! The end of a pass's I/O (fio's `do_io` end): once nothing is in flight,
//! a job that writes syncs its files for `end_fsync`, `fsync_on_close`
//! or `end_syncfs`, unless its last request was a sync (fio's
//! `should_fsync`). fio does it after every pass (each of `loops`, before
//! the pass's verify phase) and counts its time in the job's runtime, as
//! the point of `end_fsync` is that a write's bandwidth includes getting
//! the data to the device; the syncs themselves are in no statistics
//! (fio is then TD_FSYNCING, which accounts nothing).

use std::io;

use ioscope_engine::{Op, Queue, Request, Submitted, TargetKind};

use super::iolog::IologWriter;
use super::results::IoFailure;
use crate::files::WorkerFile;

/// How a pass ends, for a job that writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EndSync {
    /// `end_fsync` or `fsync_on_close`: an fsync of each file, sent as a
    /// request where the engine carries one (as fio sends it through its
    /// engine: IORING_OP_FSYNC, an NVMe Flush), else fsync(2).
    Fsync { queued: bool },
    /// `end_syncfs`: syncfs(2) of each file's filesystem.
    Syncfs,
}

/// Syncs each of `files` as `how` says, with slot `slot` free for a
/// queued one, each fsync logged to `log` as fio logs it. Nothing may be
/// in flight. Returns the first failure.
pub(super) fn sync_files<Q: Queue>(
    q: &mut Q,
    how: EndSync,
    files: &[WorkerFile],
    slot: Option<u32>,
    mut log: Option<&mut IologWriter>,
) -> Result<(), IoFailure> {
    let targets = files.iter().filter_map(|f| f.target.as_ref());
    for (file, t) in (0u32..).zip(targets) {
        if let (Some(log), EndSync::Fsync { .. }) = (log.as_deref_mut(), how) {
            log.log_pass_sync(file);
        }
        let result = match (how, slot) {
            (EndSync::Fsync { queued: true }, Some(slot)) => queued_fsync(q, file, slot),
            (EndSync::Syncfs, _) => {
                // SAFETY: the fd stays open for the life of `files`.
                syscall(unsafe { libc::syncfs(t.fd()) })
            }
            // SAFETY: as above.
            (EndSync::Fsync { .. }, _) => syscall(unsafe { libc::fsync(t.fd()) }),
        };
        if let Err(error) = result {
            let what = if how == EndSync::Syncfs {
                "end_syncfs"
            } else {
                "end_fsync"
            };
            let errno = i32::try_from(error).ok().filter(|&e| e < 4096);
            return Err(IoFailure {
                errno: errno.unwrap_or(libc::EIO),
                op: Op::Fsync,
                file,
                offset: 0,
                len: 0,
                // fio's words ("fio: end_fsync failed for file %s").
                detail: Some(format!(
                    "{what} failed for file {}: {}",
                    t.path().display(),
                    ioscope_engine::describe_error(error)
                )),
            });
        }
    }
    Ok(())
}

/// `fsync_on_close`: fsync(2) of each of the `closed` files (an index
/// into `files` each time one was found done), as fio's `put_file` syncs
/// a file it closes, directly and unlogged, before the pass's end sync
/// (which, for a file already closed, fio makes by opening it again).
/// fio makes it as the file's last I/O completes; here it waits for the
/// pass's end, when nothing is in flight. A character device (an NVMe
/// generic one), which fsync(2) does not take, gets the end sync alone.
/// Returns the first failure, which fails the job, as fio's "file close"
/// error does.
pub(super) fn close_fsyncs(files: &[WorkerFile], closed: &[u32]) -> Result<(), IoFailure> {
    for &file in closed {
        let Some(t) = files.get(file as usize).and_then(|f| f.target.as_ref()) else {
            continue;
        };
        if t.kind() == TargetKind::CharDevice {
            continue;
        }
        // SAFETY: the fd stays open for the life of `files`.
        if let Err(error) = syscall(unsafe { libc::fsync(t.fd()) }) {
            return Err(IoFailure {
                errno: i32::try_from(error).unwrap_or(libc::EIO),
                op: Op::Fsync,
                file,
                offset: 0,
                len: 0,
                detail: Some(format!(
                    "fsync_on_close failed for file {}: {}",
                    t.path().display(),
                    ioscope_engine::describe_error(error)
                )),
            });
        }
    }
    Ok(())
}

/// An fsync of `file` through the queue, in `slot`, waited for: its
/// error as a completion gives it (see [`ioscope_engine::describe_error`]).
fn queued_fsync<Q: Queue>(q: &mut Q, file: u32, slot: u32) -> Result<(), i64> {
    let req = Request {
        op: Op::Fsync,
        file,
        offset: 0,
        len: 0,
        slot,
    };
    let errno = |e: io::Error| i64::from(e.raw_os_error().unwrap_or(libc::EIO));
    let mut result = match q.submit(&req).map_err(errno)? {
        Submitted::Completed(r) => Some(r),
        Submitted::Queued => {
            q.commit().map_err(errno)?;
            None
        }
    };
    while result.is_none() {
        q.reap(1, 1, |c| result = Some(c.result)).map_err(errno)?;
    }
    match result {
        Some(r) if r < 0 => Err(-r),
        _ => Ok(()),
    }
}

/// A system call's return as [`queued_fsync`]'s.
fn syscall(rc: libc::c_int) -> Result<(), i64> {
    if rc == 0 {
        Ok(())
    } else {
        Err(i64::from(
            io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        ))
    }
}
