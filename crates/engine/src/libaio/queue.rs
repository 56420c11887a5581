//! The libaio queue: iocbs prepared per slot, sent with io_submit, and
//! collected with io_getevents or from the mapped completion ring.

use std::io;
use std::os::fd::RawFd;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

use super::abi::{
    user_ring, AioContext, AioRing, IoEvent, Iocb, IOCB_CMD_FDSYNC, IOCB_CMD_FSYNC, IOCB_CMD_PREAD,
    IOCB_CMD_PREADV, IOCB_CMD_PWRITE, IOCB_CMD_PWRITEV, IOCB_FLAG_IOPRIO,
};
use crate::buffer::SlotBuffers;
use crate::error::{Advice, EngineError, Knob};
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Completion, Op, Request};
use crate::syscall::syscall6;
use crate::trim::{trim, TrimMethod};

/// fio's `libaio` engine: requests are prepared by [`Queue::submit`], sent
/// in one io_submit per [`Queue::commit`] and collected by [`Queue::reap`]
/// with io_getevents, or from the mapped completion ring with
/// [`AioOptions::userspace_reap`](crate::AioOptions::userspace_reap).
///
/// A request the kernel refuses at io_submit (a bad descriptor, flags the
/// file does not support) completes with the negative errno from the next
/// reap, as any per-I/O failure does. Should io_submit run out of kernel
/// resources while requests are in flight, the rest stay queued and are
/// sent again by the next reap.
pub struct LibaioQueue {
    // Declared first so it is dropped first: io_destroy waits for the
    // requests in flight before the buffers they write into are freed.
    ctx: AioContext,
    fds: Box<[RawFd]>,
    /// One per descriptor.
    trims: Box<[TrimMethod]>,
    buffers: SlotBuffers,
    depth: u32,
    /// One per slot; a request's iocb is its slot's.
    iocbs: Box<[Iocb]>,
    /// One per slot when vectored, else empty.
    iovecs: Box<[libc::iovec]>,
    /// Slots prepared and not yet sent, in submission order; the first
    /// `deferred` of them were refused for want of kernel resources.
    pending: Box<[u32]>,
    queued: u32,
    deferred: u32,
    /// The iocb pointers io_submit reads, rebuilt from `pending` at each
    /// commit so they are fresh when the kernel sees them.
    iocb_ptrs: Box<[*mut Iocb]>,
    /// Requests the kernel accepted and has not handed back.
    pub(super) in_kernel: u32,
    events: Box<[IoEvent]>,
    /// Requests refused at io_submit, handed back by the next reap.
    refused: Box<[Completion]>,
    pub(super) refused_len: u32,
    pub(super) rw_flags: i32,
    /// The ioprio the next reads and writes carry (`set_ioprio`).
    ioprio: u16,
    vectored: bool,
    /// The mapped completion ring, when reaping from user space.
    pub(super) ring: Option<NonNull<AioRing>>,
    /// io_submit and io_getevents calls so far: plain counters, read by
    /// [`Queue::calls`].
    submit_calls: u64,
    reap_calls: u64,
}

// SAFETY: the raw pointers point into memory the queue owns (its iocbs,
// iovecs and buffers, which do not move when the queue does) or into the
// AIO context's ring, which belongs to the process, not to a thread. The
// queue is used through `&mut self` only.
unsafe impl Send for LibaioQueue {}

impl LibaioQueue {
    /// A queue of `config.depth` requests over `fds` (indexed by
    /// [`Request::file`]), which must stay open as long as the queue is
    /// used, with the options in [`QueueConfig::aio`].
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<LibaioQueue, EngineError> {
        let options = &config.aio;
        crate::queue::check_fds("libaio", fds)?;
        if config.hipri {
            return Err(EngineError::Refused {
                what: format!(
                    "{} with libaio: Linux AIO never polls for completions (fs/aio.c clears the \
                     HIPRI flag on every request), so the job would measure interrupt \
                     completions while claiming polled ones",
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
        let depth = config.depth;
        let ctx = AioContext::new(depth)?;
        let ring = if options.userspace_reap {
            Some(user_ring(&ctx)?)
        } else {
            None
        };
        let slots = depth as usize;
        let iovecs = if options.vectored {
            vec![
                libc::iovec {
                    iov_base: std::ptr::null_mut(),
                    iov_len: 0,
                };
                slots
            ]
        } else {
            Vec::new()
        };
        Ok(LibaioQueue {
            ctx,
            fds: fds.into(),
            trims,
            buffers,
            depth,
            iocbs: vec![Iocb::default(); slots].into_boxed_slice(),
            iovecs: iovecs.into_boxed_slice(),
            pending: vec![0; slots].into_boxed_slice(),
            queued: 0,
            deferred: 0,
            iocb_ptrs: vec![std::ptr::null_mut(); slots].into_boxed_slice(),
            in_kernel: 0,
            events: vec![IoEvent::default(); slots].into_boxed_slice(),
            refused: vec![Completion { slot: 0, result: 0 }; slots].into_boxed_slice(),
            refused_len: 0,
            rw_flags: if options.nowait { libc::RWF_NOWAIT } else { 0 },
            ioprio: 0,
            vectored: options.vectored,
            ring,
            submit_calls: 0,
            reap_calls: 0,
        })
    }

    /// Sends the first `count` pending requests with io_submit, as many
    /// calls as it takes. Returns how many left the queue (accepted, or
    /// refused and turned into a result).
    #[inline(always)]
    fn send(&mut self, count: u32) -> io::Result<u32> {
        let count = count as usize;
        let base = self.iocbs.as_mut_ptr();
        for (ptr, &slot) in self.iocb_ptrs.iter_mut().zip(&self.pending[..count]) {
            *ptr = base.wrapping_add(slot as usize);
        }
        let mut done = 0;
        let mut failure = None;
        while done < count {
            // SAFETY: the pointers from `done` on address this queue's
            // iocbs, filled by `submit`; the kernel copies them (and the
            // iovecs they name) before io_submit returns.
            self.submit_calls += 1;
            let r = unsafe {
                syscall6(
                    libc::SYS_io_submit,
                    [
                        self.ctx.0 as libc::c_long,
                        (count - done) as libc::c_long,
                        self.iocb_ptrs.as_mut_ptr().add(done) as libc::c_long,
                        0,
                        0,
                        0,
                    ],
                )
            };
            if r > 0 {
                done += r as usize;
                self.in_kernel += r as u32;
                continue;
            }
            // io_submit fails only for the first request it was given;
            // it never returns 0 for a non-empty batch.
            let e = if r < 0 { -r as i32 } else { libc::EAGAIN };
            match e {
                libc::EINTR => {}
                // Out of kernel resources: completions free them, so with
                // requests in flight the rest waits for the next reap;
                // with none, nothing will.
                libc::EAGAIN | libc::ENOMEM => {
                    if self.in_kernel == 0 {
                        failure = Some(no_resources(e));
                    }
                    break;
                }
                _ => {
                    let slot = self.pending[done];
                    let result = self.refused_result(slot, e);
                    self.refused[self.refused_len as usize] = Completion { slot, result };
                    self.refused_len += 1;
                    done += 1;
                }
            }
        }
        self.pending.copy_within(done..self.queued as usize, 0);
        self.queued -= done as u32;
        self.deferred = (count - done) as u32;
        match failure {
            Some(e) => Err(e),
            None => Ok(done as u32),
        }
    }

    /// The result of a request io_submit refused with `errno`.
    #[cold]
    fn refused_result(&self, slot: u32, errno: i32) -> i64 {
        let iocb = &self.iocbs[slot as usize];
        if iocb.aio_lio_opcode == IOCB_CMD_FSYNC && errno == libc::EINVAL {
            // Kernels before 4.18 have no AIO fsync and refuse it with
            // EINVAL: run it synchronously, as fio's libaio engine did.
            let fd = iocb.aio_fildes as RawFd;
            // SAFETY: fsync touches no memory.
            return crate::syscall::io_result(|| unsafe { libc::fsync(fd) } as isize);
        }
        -i64::from(errno)
    }

    /// Takes up to `max` events from the mapped ring without a system call.
    fn reap_ring(&mut self, ring: NonNull<AioRing>, max: usize) -> usize {
        let ring = ring.as_ptr();
        // SAFETY: `ring` is the mapped ring header, checked at creation,
        // valid while the context lives; `nr` events follow the header.
        unsafe {
            let nr = (*ring).nr;
            let mut head = (*ring).head.load(Ordering::Relaxed) % nr;
            // Acquire: the kernel stores the events before the tail.
            let tail = (*ring).tail.load(Ordering::Acquire) % nr;
            let first = ring.add(1).cast::<IoEvent>();
            let mut got = 0;
            while got < max && head != tail {
                self.events[got] = first.add(head as usize).read();
                head = (head + 1) % nr;
                got += 1;
            }
            if got > 0 {
                // Release: the events are read before the kernel may reuse
                // their places.
                (*ring).head.store(head, Ordering::Release);
            }
            got
        }
    }

    /// io_getevents for at least `min` and at most `max` events.
    #[inline(always)]
    fn getevents(&mut self, min: usize, max: usize) -> io::Result<usize> {
        loop {
            // SAFETY: the events array holds `depth` >= `max` entries; a
            // null timeout waits for `min` events.
            self.reap_calls += 1;
            let r = unsafe {
                syscall6(
                    libc::SYS_io_getevents,
                    [
                        self.ctx.0 as libc::c_long,
                        min as libc::c_long,
                        max as libc::c_long,
                        self.events.as_mut_ptr() as libc::c_long,
                        0,
                        0,
                    ],
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = io::Error::from_raw_os_error(-r as i32);
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(io::Error::new(
                    e.kind(),
                    format!("io_getevents({min}, {max}) failed: {e}"),
                ));
            }
        }
    }
}

#[cold]
pub(super) fn no_resources(errno: i32) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!(
            "io_submit failed with nothing in flight: {}; the kernel is short of AIO \
             resources or memory; lower iodepth or free memory",
            io::Error::from_raw_os_error(errno)
        ),
    )
}

impl Queue for LibaioQueue {
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
        if self.in_flight() >= self.depth {
            return Err(queue_full(self.depth));
        }
        let slot = req.slot as usize;
        let iocb = match req.op {
            // aio_fsync refuses any buffer, offset, length or flags.
            Op::Fsync => Iocb {
                aio_data: u64::from(req.slot),
                aio_lio_opcode: IOCB_CMD_FSYNC,
                aio_fildes: fd as u32,
                ..Iocb::default()
            },
            Op::Fdatasync => Iocb {
                aio_data: u64::from(req.slot),
                aio_lio_opcode: IOCB_CMD_FDSYNC,
                aio_fildes: fd as u32,
                ..Iocb::default()
            },
            // No AIO command trims: run it here and complete it at once,
            // as fio's libaio engine does.
            // Linux AIO has no sync_file_range: run it here and complete
            // it at once, as fio's libaio engine runs every sync.
            Op::SyncFileRange { flags } => {
                return Ok(Submitted::Completed(crate::syscall::sync_file_range(
                    fd, req.offset, req.len, flags,
                )));
            }
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
            Op::Read | Op::Write => {
                let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
                    return Err(bad_request(req, "is longer than the queue's buffers"));
                };
                let write = req.op == Op::Write;
                let (opcode, buf, nbytes) = if self.vectored {
                    let iov = &mut self.iovecs[slot];
                    iov.iov_base = ptr.cast();
                    iov.iov_len = req.len as usize;
                    let op = if write {
                        IOCB_CMD_PWRITEV
                    } else {
                        IOCB_CMD_PREADV
                    };
                    (op, iov as *mut libc::iovec as u64, 1)
                } else {
                    let op = if write {
                        IOCB_CMD_PWRITE
                    } else {
                        IOCB_CMD_PREAD
                    };
                    (op, ptr as u64, u64::from(req.len))
                };
                Iocb {
                    aio_data: u64::from(req.slot),
                    aio_rw_flags: self.rw_flags,
                    // The kernel reads aio_reqprio only with
                    // IOCB_FLAG_IOPRIO; 0 leaves the thread's priority.
                    aio_reqprio: self.ioprio as i16,
                    aio_flags: if self.ioprio != 0 {
                        IOCB_FLAG_IOPRIO
                    } else {
                        0
                    },
                    aio_lio_opcode: opcode,
                    aio_fildes: fd as u32,
                    aio_buf: buf,
                    aio_nbytes: nbytes,
                    aio_offset: req.offset as i64,
                    ..Iocb::default()
                }
            }
        };
        self.iocbs[slot] = iocb;
        self.pending[self.queued as usize] = req.slot;
        self.queued += 1;
        Ok(Submitted::Queued)
    }

    #[inline]
    fn set_ioprio(&mut self, ioprio: u16) {
        self.ioprio = ioprio;
    }

    #[inline(always)]
    fn commit(&mut self) -> io::Result<u32> {
        if self.queued == 0 {
            return Ok(0);
        }
        self.send(self.queued)
    }

    /// Hands back refused requests first, then kernel completions. `min`
    /// counts only requests that can complete (those sent), so a reap never
    /// waits for a request that was not committed.
    #[inline(always)]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        if self.deferred > 0 {
            self.send(self.deferred)?;
        }
        let mut n = 0;
        if self.refused_len > 0 {
            n = self.refused_len.min(max);
            for &c in &self.refused[..n as usize] {
                on_complete(c);
            }
            self.refused
                .copy_within(n as usize..self.refused_len as usize, 0);
            self.refused_len -= n;
        }
        let max_events = (max - n).min(self.in_kernel) as usize;
        if max_events == 0 {
            return Ok(n);
        }
        let min_events = (min.saturating_sub(n) as usize).min(max_events);
        let got = match self.ring {
            Some(ring) if min_events == 0 => self.reap_ring(ring, max_events),
            _ => self.getevents(min_events, max_events)?,
        };
        for e in &self.events[..got] {
            on_complete(Completion {
                slot: e.data as u32,
                result: e.res,
            });
        }
        self.in_kernel -= got as u32;
        Ok(n + got as u32)
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.queued + self.in_kernel + self.refused_len
    }

    fn calls(&self) -> (u64, u64) {
        (self.submit_calls, self.reap_calls)
    }
}

#[cold]
pub(super) fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "libaio queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
}
