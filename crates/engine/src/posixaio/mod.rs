//! POSIX asynchronous I/O (fio `posixaio`): aio_read, aio_write and
//! aio_fsync hand each request to the C library, aio_suspend waits and
//! aio_error/aio_return collect the results.
//!
//! glibc implements POSIX AIO in user space with helper threads of its own
//! (since glibc 2.34 in libc itself, so nothing beyond libc is linked), and
//! this backend relies on what it does:
//! - Requests for one file descriptor run one after another, in order, on
//!   one helper thread; only requests on different descriptors run side by
//!   side (at most 20 helper threads per process by default). A deep queue
//!   on one file therefore keeps one thread busy rather than the device.
//! - aio_read and aio_write fail with EAGAIN only when no helper thread runs
//!   and none can be started, or memory runs out: nothing in flight could
//!   free what is missing, so that is a queue error, not a result. fio's
//!   engine answers "busy" and retries after a reap.
//! - aio_fsync(O_SYNC) queues an fsync(2) behind the requests already on the
//!   descriptor, so it covers the writes submitted before it, as fio's
//!   engine issues it.
//! - The helper threads are the process's, not a worker's: their CPU time is
//!   not in the worker thread's rusage.
//!
//! fio's `posixaio` engine is the model: each request goes to the C
//! library as soon as it is submitted (fio's `->queue`), nothing is left
//! for commit, a reap scans the requests in flight and waits with
//! aio_suspend until at least `min` have finished, and a trim runs
//! synchronously inside `submit` (a hole punched in a file, a discard on a
//! block device). fio's engine has no options and never polls for
//! completions; asking this queue for polled completions is refused.

#[cfg(test)]
mod tests;

use std::io;
use std::os::fd::RawFd;
use std::ptr::NonNull;
use std::sync::atomic::{fence, Ordering};

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::error::{Advice, EngineError, Knob};
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Completion, Op, Request};
use crate::trim::{trim, TrimMethod};

pub(crate) static POSIXAIO: EngineDesc = EngineDesc {
    name: "posixaio",
    aliases: &[],
    help: "POSIX asynchronous I/O (aio_read/aio_write)",
    kind: EngineKind::Queued,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &[],
    check: any_shape,
};

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<PosixAioQueue, EngineError> {
    PosixAioQueue::new(config, fds)
}

/// fio's `posixaio` engine: [`Queue::submit`] hands each request to the C
/// library with aio_read, aio_write or aio_fsync, [`Queue::commit`] has
/// nothing left to send, and [`Queue::reap`] collects finished requests with
/// aio_error and aio_return, waiting in aio_suspend for at least `min`.
///
/// A request the C library refuses at once (EINVAL, EBADF) completes inside
/// `submit` with the negative errno, as any per-I/O failure does.
pub struct PosixAioQueue {
    fds: Box<[RawFd]>,
    /// One per descriptor.
    trims: Box<[TrimMethod]>,
    buffers: SlotBuffers,
    depth: u32,
    /// One control block per slot, allocated once and freed by `Drop` after
    /// every request is back. The C library's helper threads write into a
    /// block while its request is in flight, so the queue reaches the
    /// blocks through this pointer only and never holds a reference to one.
    aiocbs: NonNull<libc::aiocb>,
    /// Slots in flight, in no order: the first `flying` entries.
    flight: Box<[u32]>,
    flying: u32,
    /// Whether each slot is in flight.
    busy: Box<[bool]>,
    /// Requests handed over since the last commit.
    since_commit: u32,
    /// The list aio_suspend waits on, rebuilt for each wait.
    waiting: Box<[*const libc::aiocb]>,
}

// SAFETY: the raw pointers address memory the queue owns (its control
// blocks and buffers, which do not move when the queue does). glibc's AIO
// is process-wide: any thread may call aio_error, aio_return and
// aio_suspend on a request another thread submitted. The queue is used
// through `&mut self` only.
unsafe impl Send for PosixAioQueue {}

impl PosixAioQueue {
    /// A queue of `config.depth` requests over `fds` (indexed by
    /// [`Request::file`]), which must stay open as long as the queue is used.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<PosixAioQueue, EngineError> {
        crate::queue::check_fds("posixaio", fds)?;
        if config.hipri {
            return Err(EngineError::Refused {
                what: format!(
                    "{} with posixaio: POSIX AIO runs each request with a plain read or write \
                     on a C library thread and never polls for its completion",
                    Knob::Polled
                ),
                fix: vec![
                    Advice::Use(Knob::Engine, "io_uring"),
                    Advice::Use(Knob::Engine, "pvsync2"),
                    Advice::Drop(Knob::Polled),
                ],
            });
        }
        let trims = TrimMethod::for_fds(fds)?;
        let buffers = SlotBuffers::new(config)?;
        let slots = config.depth as usize;
        // SAFETY: an all-zero aiocb is a valid one (null buffer, no
        // signal: SIGEV_SIGNAL is 0 but is rewritten before each use).
        let blocks: Box<[libc::aiocb]> =
            (0..slots).map(|_| unsafe { std::mem::zeroed() }).collect();
        let aiocbs = NonNull::from(Box::leak(blocks)).cast::<libc::aiocb>();
        Ok(PosixAioQueue {
            fds: fds.into(),
            trims,
            buffers,
            depth: config.depth,
            aiocbs,
            flight: vec![0; slots].into_boxed_slice(),
            flying: 0,
            busy: vec![false; slots].into_boxed_slice(),
            since_commit: 0,
            waiting: vec![std::ptr::null(); slots].into_boxed_slice(),
        })
    }

    /// The control block of `slot` (below the depth).
    #[inline]
    fn aiocb(&self, slot: u32) -> *mut libc::aiocb {
        // SAFETY: `slot` < depth, the number of blocks allocated.
        unsafe { self.aiocbs.as_ptr().add(slot as usize) }
    }

    /// The result of a finished request, taken from the C library (once:
    /// aio_return frees what it kept for the request).
    #[inline]
    fn result_of(&self, slot: u32, err: i32) -> i64 {
        // Acquire: the helper thread wrote the data and the result before
        // the status aio_error read.
        fence(Ordering::Acquire);
        // SAFETY: the request is finished; its block is ours again.
        let ret = unsafe { libc::aio_return(self.aiocb(slot)) };
        if err == 0 {
            ret as i64
        } else {
            -i64::from(err)
        }
    }

    /// Waits in aio_suspend until one of the requests still in flight
    /// finishes (at once when one already has).
    fn suspend(&mut self) -> io::Result<()> {
        let n = self.flying as usize;
        for i in 0..n {
            self.waiting[i] = self.aiocb(self.flight[i]);
        }
        // SAFETY: the first `n` entries address blocks of requests in
        // flight; a null timeout waits as long as it takes.
        let r = unsafe { libc::aio_suspend(self.waiting.as_ptr(), n as i32, std::ptr::null()) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => Ok(()),
            _ => Err(io::Error::new(
                e.kind(),
                format!("aio_suspend on {n} requests failed: {e}"),
            )),
        }
    }
}

impl Queue for PosixAioQueue {
    const COMPLETES_IN_SUBMIT: bool = false;

    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let Some(&fd) = self.fds.get(req.file as usize) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        if req.slot >= self.depth {
            return Err(bad_request(req, "names a slot beyond the queue depth"));
        }
        if self.busy[req.slot as usize] {
            return Err(bad_request(req, "names a slot whose request is in flight"));
        }
        let (ptr, len) = match req.op {
            Op::Read | Op::Write => match self.buffers.io_ptr(req.slot, req.len) {
                Some(ptr) => (ptr, req.len as usize),
                None => return Err(bad_request(req, "is longer than the queue's buffers")),
            },
            // fio's posixaio sends any sync but fdatasync as
            // aio_fsync(O_SYNC): sync_file_range too.
            Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. } => (std::ptr::null_mut(), 0),
            // POSIX AIO has no trim: run it here and complete it at once,
            // as fio's engine does.
            Op::Trim => {
                let method = self.trims[req.file as usize];
                return Ok(Submitted::Completed(trim(fd, method, req.offset, req.len)));
            }
            Op::WriteZeroes { .. }
            | Op::WriteUncorrectable
            | Op::DeviceVerify
            | Op::TrimRanges { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
        };
        let cb = self.aiocb(req.slot);
        // SAFETY: the slot is not in flight, so no helper thread uses its
        // block; the buffer stays valid and unused by the queue until the
        // request is reaped (or the queue is dropped, which waits for it).
        let r = unsafe {
            // Fresh each time: glibc keeps its own state in the block.
            cb.write(std::mem::zeroed());
            (*cb).aio_fildes = fd;
            (*cb).aio_buf = ptr.cast();
            (*cb).aio_nbytes = len;
            (*cb).aio_offset = req.offset as libc::off_t;
            (*cb).aio_sigevent.sigev_notify = libc::SIGEV_NONE;
            match req.op {
                Op::Read => libc::aio_read(cb),
                Op::Write => libc::aio_write(cb),
                Op::Fdatasync => libc::aio_fsync(libc::O_DSYNC, cb),
                _ => libc::aio_fsync(libc::O_SYNC, cb),
            }
        };
        if r != 0 {
            let e = crate::syscall::errno();
            if e == libc::EAGAIN {
                return Err(no_resources(self.flying));
            }
            return Ok(Submitted::Completed(-i64::from(e)));
        }
        self.busy[req.slot as usize] = true;
        self.flight[self.flying as usize] = req.slot;
        self.flying += 1;
        self.since_commit += 1;
        Ok(Submitted::Queued)
    }

    /// Every request went to the C library in `submit`; returns how many
    /// did since the last commit, so a caller counts its batches as it
    /// does for the engines that send in commit.
    #[inline]
    fn commit(&mut self) -> io::Result<u32> {
        Ok(std::mem::take(&mut self.since_commit))
    }

    /// Scans the requests in flight and takes the finished ones, up to
    /// `max`; while fewer than `min` (or than what is in flight) are taken,
    /// waits in aio_suspend and scans again.
    #[inline]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let min = min.min(max).min(self.flying);
        let mut got = 0;
        loop {
            let mut i = 0;
            while i < self.flying && got < max {
                let slot = self.flight[i as usize];
                // SAFETY: the block belongs to a request in flight; aio_error
                // reads its status, which the helper thread sets under
                // glibc's lock.
                let err = unsafe { libc::aio_error(self.aiocb(slot)) };
                if err == libc::EINPROGRESS {
                    i += 1;
                    continue;
                }
                let result = self.result_of(slot, err);
                self.flying -= 1;
                self.flight[i as usize] = self.flight[self.flying as usize];
                self.busy[slot as usize] = false;
                got += 1;
                on_complete(Completion { slot, result });
            }
            if got >= min {
                return Ok(got);
            }
            self.suspend()?;
        }
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.flying
    }
}

impl Drop for PosixAioQueue {
    /// Waits for every request in flight before the blocks and buffers
    /// they use are freed.
    fn drop(&mut self) {
        while self.flying > 0 {
            let _ = self.reap(self.flying, self.flying, |_| {});
        }
        let blocks = std::ptr::slice_from_raw_parts_mut(self.aiocbs.as_ptr(), self.depth as usize);
        // SAFETY: allocated as a boxed slice of `depth` blocks in `new`,
        // and no request uses one any more.
        drop(unsafe { Box::from_raw(blocks) });
    }
}

#[cold]
fn no_resources(in_flight: u32) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!(
            "the C library refused an asynchronous request with EAGAIN ({in_flight} in \
             flight): it could not start a helper thread or allocate the request; raise \
             the thread limit (ulimit -u) or free memory"
        ),
    )
}
