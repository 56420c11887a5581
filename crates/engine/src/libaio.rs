//! Linux native AIO (fio `libaio`), through the raw io_setup, io_submit,
//! io_getevents and io_destroy system calls: no C library is needed to build
//! or to run.
//!
//! Everything a request needs is allocated once per queue: one iocb per
//! slot, the iocb pointer array io_submit reads, one iovec per slot for
//! vectored requests and the io_event array io_getevents fills.
//!
//! Kernel behaviour this backend relies on (Linux 6.18, ext4):
//! - Only O_DIRECT I/O is asynchronous. Buffered reads and writes run to
//!   completion inside io_submit and their events are ready at once; the
//!   results are still right, only the submission cost is larger.
//! - IOCB_CMD_FSYNC is asynchronous since Linux 4.18 (the fsync runs on a
//!   kernel worker) and works on every file that has fsync(2). It does not
//!   wait for writes still in flight: like io_uring's fsync it covers the
//!   writes that completed before it started. fio's libaio engine issues it
//!   the same way.
//! - RWF_HIPRI is accepted in `aio_rw_flags` and then cleared: fs/aio.c
//!   drops IOCB_HIPRI on every request because nobody polls an AIO context.
//!   Asking for polled completions is therefore refused up front.
//! - AIO has no trim command. A trim runs synchronously inside `submit`
//!   (a hole punched in a file, BLKDISCARD on a block device) and completes
//!   there, as fio's libaio engine does (`do_io_u_trim`, then
//!   FIO_Q_COMPLETED).

use std::io;
use std::mem::size_of;
use std::os::fd::RawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Completion, Op, Request};
use crate::trim::{trim, TrimMethod};

// The kernel ABI, from include/uapi/linux/aio_abi.h.

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_PREADV: u16 = 7;
const IOCB_CMD_PWRITEV: u16 = 8;

/// `struct iocb`. `aio_key` and `aio_rw_flags` share a 64-bit word whose
/// halves are swapped on big-endian machines (the header's PADDED macro).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct IoEvent {
    /// The iocb's `aio_data`: the request's slot.
    data: u64,
    obj: u64,
    /// Bytes transferred, or a negative errno.
    res: i64,
    res2: i64,
}

/// The header of the completion ring the kernel maps at the address that
/// io_setup returns as the context id (`struct aio_ring` in fs/aio.c);
/// `nr` io_events follow it.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    /// Next event to reap; written by whoever reaps (us, or the kernel in
    /// io_getevents).
    head: AtomicU32,
    /// Next event the kernel fills; it stores the events before the tail.
    tail: AtomicU32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

const _: () = assert!(size_of::<Iocb>() == 64);
const _: () = assert!(size_of::<IoEvent>() == 32);
const _: () = assert!(size_of::<AioRing>() == 32);

/// An AIO context, destroyed on drop. io_destroy waits for every request
/// still in flight, so once it returns the kernel no longer writes into the
/// queue's buffers.
struct AioContext(libc::c_ulong);

impl AioContext {
    fn new(depth: u32) -> Result<AioContext, EngineError> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes one aio_context_t through the pointer,
        // which must point to 0.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut ctx as *mut libc::c_ulong,
            )
        };
        if r != 0 {
            return Err(setup_error(depth, io::Error::last_os_error()));
        }
        Ok(AioContext(ctx))
    }
}

impl Drop for AioContext {
    fn drop(&mut self) {
        // SAFETY: the context is ours and destroyed once. It can only fail
        // for a context that does not exist, which would be a bug here and
        // leaves nothing to clean up.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.0) };
    }
}

#[cold]
fn setup_error(depth: u32, e: io::Error) -> EngineError {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/fs/{name}"))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "?".to_owned())
    };
    EngineError::Setup(match e.raw_os_error() {
        Some(libc::EAGAIN) => format!(
            "io_setup({depth}) failed ({e}): the system-wide AIO limit would be exceeded \
             (/proc/sys/fs/aio-max-nr is {}, /proc/sys/fs/aio-nr shows {} in use); \
             raise fs.aio-max-nr (sysctl -w fs.aio-max-nr=N) or lower iodepth or numjobs",
            read("aio-max-nr"),
            read("aio-nr")
        ),
        Some(libc::EINVAL) => format!(
            "io_setup({depth}) failed ({e}): iodepth {depth} is larger than Linux AIO allows; \
             lower iodepth"
        ),
        Some(libc::ENOSYS) => format!(
            "io_setup failed ({e}): this kernel has no native AIO (built without CONFIG_AIO, \
             or blocked by a seccomp filter); use ioengine=io_uring or psync"
        ),
        _ => format!("io_setup({depth}) failed: {e}"),
    })
}

/// fio's `libaio` engine: requests are prepared by [`Queue::submit`], sent
/// in one io_submit per [`Queue::commit`] and collected by [`Queue::reap`]
/// with io_getevents, or from the mapped completion ring with
/// [`AioOptions::userspace_reap`].
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
    in_kernel: u32,
    events: Box<[IoEvent]>,
    /// Requests refused at io_submit, handed back by the next reap.
    refused: Box<[Completion]>,
    refused_len: u32,
    rw_flags: i32,
    vectored: bool,
    /// The mapped completion ring, when reaping from user space.
    ring: Option<NonNull<AioRing>>,
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
        if fds.is_empty() {
            return Err(EngineError::Setup(
                "the libaio backend needs at least one open file or device".into(),
            ));
        }
        if let Some(fd) = fds.iter().find(|&&fd| fd < 0) {
            return Err(EngineError::Setup(format!(
                "file descriptor {fd} is not valid; open every target before building the queue"
            )));
        }
        if config.hipri {
            return Err(EngineError::Setup(
                "hipri with ioengine=libaio: Linux AIO never polls for completions (fs/aio.c \
                 clears the HIPRI flag on every request), so the job would measure interrupt \
                 completions while claiming polled ones; use ioengine=io_uring or pvsync2 with \
                 hipri, or drop hipri"
                    .into(),
            ));
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
            vectored: options.vectored,
            ring,
            submit_calls: 0,
            reap_calls: 0,
        })
    }

    /// Sends the first `count` pending requests with io_submit, as many
    /// calls as it takes. Returns how many left the queue (accepted, or
    /// refused and turned into a result).
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
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx.0,
                    (count - done) as libc::c_long,
                    self.iocb_ptrs.as_mut_ptr().add(done),
                )
            };
            if r > 0 {
                done += r as usize;
                self.in_kernel += r as u32;
                continue;
            }
            // io_submit fails only for the first request it was given;
            // it never returns 0 for a non-empty batch.
            let e = if r < 0 {
                crate::syscall::errno()
            } else {
                libc::EAGAIN
            };
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
    fn getevents(&mut self, min: usize, max: usize) -> io::Result<usize> {
        loop {
            // SAFETY: the events array holds `depth` >= `max` entries; a
            // null timeout waits for `min` events.
            self.reap_calls += 1;
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx.0,
                    min as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(io::Error::new(
                    e.kind(),
                    format!("io_getevents({min}, {max}) failed: {e}"),
                ));
            }
        }
    }
}

/// The context's completion ring, checked to have the layout this code
/// reads.
fn user_ring(ctx: &AioContext) -> Result<NonNull<AioRing>, EngineError> {
    let ring = NonNull::new(ctx.0 as *mut AioRing).ok_or_else(|| {
        EngineError::Setup("io_setup returned a null context; cannot use userspace_reap".into())
    })?;
    // SAFETY: on Linux the context id is the address of the ring mapping,
    // whose first page holds the header.
    let (magic, incompat, header, nr) = unsafe {
        let r = ring.as_ref();
        (r.magic, r.incompat_features, r.header_length, r.nr)
    };
    if magic != AIO_RING_MAGIC
        || incompat != 0
        || header as usize != size_of::<AioRing>()
        || nr == 0
    {
        return Err(EngineError::Setup(format!(
            "userspace_reap: this kernel's AIO completion ring has an unknown layout \
             (magic {magic:#x}, incompat features {incompat:#x}, header {header} bytes, \
             {nr} events); drop userspace_reap"
        )));
    }
    Ok(ring)
}

#[cold]
fn no_resources(errno: i32) -> io::Error {
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
            // No AIO command trims: run it here and complete it at once,
            // as fio's libaio engine does.
            Op::Trim => {
                let method = self.trims[req.file as usize];
                return Ok(Submitted::Completed(trim(fd, method, req.offset, req.len)));
            }
            Op::WriteZeroes { .. } | Op::TrimRanges { .. } => {
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
    fn commit(&mut self) -> io::Result<u32> {
        if self.queued == 0 {
            return Ok(0);
        }
        self.send(self.queued)
    }

    /// Hands back refused requests first, then kernel completions. `min`
    /// counts only requests that can complete (those sent), so a reap never
    /// waits for a request that was not committed.
    #[inline]
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

/// A request the queue cannot carry out: a bug in the caller, reported
/// rather than turned into I/O on memory or descriptors the queue does not own.
#[cold]
fn bad_request(req: &Request, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("request {req:?} {why}"),
    )
}

#[cold]
fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "libaio queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue_config::AioOptions;
    use crate::target::{OpenOptions, Target};
    use std::path::Path;

    const BS: usize = 4096;

    fn config(depth: u32, aio: AioOptions) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: BS,
            buffer_align: 4096,
            aio,
            ..QueueConfig::default()
        }
    }

    fn open(path: &Path, direct: bool) -> Target {
        Target::open(
            path,
            &OpenOptions {
                read: true,
                write: true,
                create: true,
                direct,
            },
        )
        .unwrap()
    }

    fn req(op: Op, block: u64, slot: u32) -> Request {
        Request {
            op,
            file: 0,
            offset: block * BS as u64,
            len: BS as u32,
            slot,
        }
    }

    fn queued(q: &mut LibaioQueue, r: Request) {
        assert_eq!(q.submit(&r).unwrap(), Submitted::Queued, "{r:?}");
    }

    /// Reaps until nothing is in flight, with `min`/`max` as given, and
    /// returns the results by slot.
    fn drain(q: &mut LibaioQueue, min: u32, max: u32) -> Vec<Completion> {
        let mut all = Vec::new();
        while q.in_flight() > 0 {
            let mut got = Vec::new();
            let n = q.reap(min, max, |c| got.push(c)).unwrap();
            assert_eq!(n as usize, got.len());
            assert!(n <= max, "reap({min}, {max}) took {n}");
            all.extend(got);
        }
        all
    }

    /// Writes `blocks` blocks in batches of up to the depth, each filled
    /// with its own byte and written out of order, then reads them back in
    /// another order and checks them, and checks the file on disk.
    fn round_trip(target: &Target, depth: u32, aio: AioOptions, min: u32, max: u32) {
        let what = format!("depth {depth} {aio:?} reap({min}, {max})");
        let mut q = LibaioQueue::new(&config(depth, aio), &[target.fd()]).unwrap();
        let blocks = 64u64;
        let order = |i: u64| (i * 37 + 5) % blocks;
        for pass in [Op::Write, Op::Read] {
            let mut i = 0;
            while i < blocks {
                let batch = u64::from(depth).min(blocks - i);
                let mut slot_block = vec![0u64; depth as usize];
                for s in 0..batch as u32 {
                    let block = order(if pass == Op::Write { i } else { blocks - 1 - i });
                    slot_block[s as usize] = block;
                    if pass == Op::Write {
                        q.buffer(s).fill(block as u8 + 1);
                    } else {
                        q.buffer(s).fill(0);
                    }
                    queued(&mut q, req(pass, block, s));
                    i += 1;
                }
                assert_eq!(q.in_flight(), batch as u32, "{what}");
                assert_eq!(q.commit().unwrap(), batch as u32, "{what}");
                let done = drain(&mut q, min, max);
                assert_eq!(done.len() as u64, batch, "{what}");
                let mut seen = vec![false; depth as usize];
                for c in done {
                    assert_eq!(c.result, BS as i64, "{what} {pass:?} slot {}", c.slot);
                    assert!(!seen[c.slot as usize], "{what}: slot {} twice", c.slot);
                    seen[c.slot as usize] = true;
                    if pass == Op::Read {
                        let want = slot_block[c.slot as usize] as u8 + 1;
                        assert!(
                            q.buffer(c.slot).iter().all(|&b| b == want),
                            "{what}: block {} read back wrong",
                            slot_block[c.slot as usize]
                        );
                    }
                }
            }
        }
        let on_disk = std::fs::read(target.path()).unwrap();
        assert_eq!(on_disk.len(), blocks as usize * BS, "{what}");
        for (i, block) in on_disk.chunks(BS).enumerate() {
            assert!(
                block.iter().all(|&b| b == i as u8 + 1),
                "{what}: file block {i}"
            );
        }
    }

    fn every_option_set() -> Vec<AioOptions> {
        let mut all = Vec::new();
        for vectored in [false, true] {
            for userspace_reap in [false, true] {
                all.push(AioOptions {
                    vectored,
                    userspace_reap,
                    nowait: false,
                });
            }
        }
        all
    }

    #[test]
    fn reads_back_what_it_wrote_with_o_direct() {
        for aio in every_option_set() {
            for (depth, min, max) in [(1, 1, 1), (32, 1, 32), (32, 0, 32), (32, 4, 7), (8, 8, 8)] {
                let dir = tempfile::tempdir().unwrap();
                let t = open(&dir.path().join("f"), true);
                round_trip(&t, depth, aio, min, max);
            }
        }
    }

    /// Buffered AIO runs inside io_submit; the results are the same.
    #[test]
    fn reads_back_what_it_wrote_buffered() {
        for aio in every_option_set() {
            for (depth, min, max) in [(1, 1, 1), (32, 1, 32), (16, 0, 3)] {
                let dir = tempfile::tempdir().unwrap();
                let t = open(&dir.path().join("f"), false);
                round_trip(&t, depth, aio, min, max);
            }
        }
    }

    /// One io_submit per commit and one io_getevents per waiting reap, so a
    /// caller can show how many requests each system call carried.
    #[test]
    fn counts_its_system_calls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 8 * BS]).unwrap();
        let t = read_only(&path);
        let mut q = LibaioQueue::new(&config(8, AioOptions::default()), &[t.fd()]).unwrap();
        assert_eq!(q.calls(), (0, 0));
        for slot in 0..8 {
            queued(&mut q, req(Op::Read, u64::from(slot), slot));
        }
        assert_eq!(q.commit().unwrap(), 8);
        assert_eq!(q.calls(), (1, 0));
        assert_eq!(
            q.reap(8, 8, |c| assert_eq!(c.result, BS as i64)).unwrap(),
            8
        );
        assert_eq!(q.calls(), (1, 1));
    }

    fn read_only(path: &Path) -> Target {
        Target::open(
            path,
            &OpenOptions {
                read: true,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// The reap that does not wait takes completions from the mapped ring;
    /// a reap that waits calls io_getevents. Both move the same ring head,
    /// so mixing them loses and repeats nothing.
    #[test]
    fn userspace_reap_reads_the_ring_and_mixes_with_io_getevents() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false);
        let aio = AioOptions {
            userspace_reap: true,
            ..Default::default()
        };
        let mut q = LibaioQueue::new(&config(8, aio), &[t.fd()]).unwrap();
        let ring = q.ring.expect("userspace_reap maps the ring");
        // SAFETY: the ring stays mapped while `q` lives.
        let ring_state = |r: NonNull<AioRing>| unsafe {
            (
                r.as_ref().head.load(Ordering::Acquire),
                r.as_ref().tail.load(Ordering::Acquire),
            )
        };
        // SAFETY: as above.
        let nr = |r: NonNull<AioRing>| unsafe { r.as_ref().nr };
        let before = ring_state(ring);
        for s in 0..8 {
            queued(&mut q, req(Op::Write, u64::from(s), s));
        }
        assert_eq!(q.commit().unwrap(), 8);
        // Buffered writes complete inside io_submit: all 8 events are in
        // the ring already.
        let (h, t) = ring_state(ring);
        assert_eq!(h, before.0);
        assert_eq!((t + nr(ring) - h) % nr(ring), 8);
        let mut slots = Vec::new();
        assert_eq!(q.reap(0, 3, |c| slots.push(c.slot)).unwrap(), 3);
        assert_eq!(ring_state(ring).0, (before.0 + 3) % nr(ring));
        // Waiting reaps go through io_getevents, which takes the next ones.
        assert_eq!(q.reap(2, 2, |c| slots.push(c.slot)).unwrap(), 2);
        assert_eq!(q.reap(0, 8, |c| slots.push(c.slot)).unwrap(), 3);
        assert_eq!(q.in_flight(), 0);
        let (h, t) = ring_state(ring);
        assert_eq!(h, t);
        slots.sort_unstable();
        assert_eq!(slots, (0..8).collect::<Vec<_>>());
        // Nothing in flight: nothing to take, and no wait.
        assert_eq!(q.reap(0, 8, |_| panic!("nothing in flight")).unwrap(), 0);
    }

    /// Submits `reqs` (slots 0..) in one batch and returns the results by slot.
    fn batch(q: &mut LibaioQueue, reqs: &[Request]) -> Vec<i64> {
        for r in reqs {
            queued(q, *r);
        }
        assert_eq!(q.commit().unwrap(), reqs.len() as u32);
        let mut results = vec![i64::MIN; reqs.len()];
        for c in drain(q, 1, 64) {
            results[c.slot as usize] = c.result;
        }
        results
    }

    /// RWF_NOWAIT turns "would block" into -EAGAIN results; what would
    /// block depends on the filesystem. On ext4 (Linux 6.18): buffered
    /// writes refuse the flag (-EOPNOTSUPP); O_DIRECT reads block (and
    /// fail) while dirty cached pages cover the range, and succeed once
    /// they are written back; O_DIRECT writes failed with -EAGAIN in every
    /// case tried, overwrites of written-back blocks included (the kernel
    /// refuses a NOWAIT write that must allocate blocks or update the
    /// file's timestamps). Without the flag the same requests all succeed.
    #[test]
    fn nowait_gives_eagain_or_success_as_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; 8 * BS]).unwrap();
        let nowait = AioOptions {
            nowait: true,
            ..Default::default()
        };
        let eagain = -i64::from(libc::EAGAIN);
        let unsupported = -i64::from(libc::EOPNOTSUPP);

        let buffered = open(&path, false);
        let mut q = LibaioQueue::new(&config(4, nowait), &[buffered.fd()]).unwrap();
        assert_eq!(q.rw_flags, libc::RWF_NOWAIT);
        let r = batch(&mut q, &[req(Op::Read, 1, 0), req(Op::Write, 2, 1)]);
        assert_eq!(r[0], BS as i64, "a cached buffered read never blocks");
        assert!([BS as i64, eagain, unsupported].contains(&r[1]), "{r:?}");

        let direct = open(&path, true);
        let mut q = LibaioQueue::new(&config(4, nowait), &[direct.fd()]).unwrap();
        let r = batch(&mut q, &[req(Op::Read, 3, 0), req(Op::Write, 12, 1)]);
        assert_eq!(r[0], eagain, "O_DIRECT read over dirty cached pages");
        assert!([BS as i64, eagain].contains(&r[1]), "{r:?}");
        std::fs::File::open(&path).unwrap().sync_all().unwrap();
        let r = batch(&mut q, &[req(Op::Read, 3, 0)]);
        assert_eq!(r[0], BS as i64, "O_DIRECT read of written-back blocks");

        let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[direct.fd()]).unwrap();
        let r = batch(&mut q, &[req(Op::Read, 3, 0), req(Op::Write, 12, 1)]);
        assert_eq!(r, vec![BS as i64; 2]);
    }

    /// ext4 on Linux 6.18 (and every filesystem with fsync(2), since Linux
    /// 4.18) takes IOCB_CMD_FSYNC asynchronously: io_submit accepts it and
    /// its completion comes back through io_getevents with 0. A file
    /// without fsync (/dev/null) fails it with -EINVAL, as fsync(2) would.
    #[test]
    fn fsync_goes_through_aio() {
        let dir = tempfile::tempdir().unwrap();
        for direct in [false, true] {
            let t = open(&dir.path().join(format!("f{direct}")), direct);
            let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
            let r = batch(&mut q, &[req(Op::Write, 0, 0), req(Op::Write, 1, 1)]);
            assert_eq!(r, vec![BS as i64; 2]);
            queued(&mut q, req(Op::Fsync, 0, 0));
            assert_eq!(q.commit().unwrap(), 1);
            assert_eq!(
                (q.in_kernel, q.refused_len),
                (1, 0),
                "the kernel accepted the fsync"
            );
            assert_eq!(drain(&mut q, 1, 1), vec![Completion { slot: 0, result: 0 }]);
        }
        let null = Target::open(
            Path::new("/dev/null"),
            &OpenOptions {
                read: true,
                write: true,
                ..Default::default()
            },
        )
        .unwrap();
        let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[null.fd()]).unwrap();
        let r = batch(&mut q, &[req(Op::Write, 0, 0), req(Op::Fsync, 0, 1)]);
        assert_eq!(r, vec![BS as i64, -i64::from(libc::EINVAL)]);
    }

    /// io_submit stops at the first request it refuses; the refused one
    /// becomes an error result and the rest of the batch is sent on.
    #[test]
    fn refused_requests_are_results_and_the_batch_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 4 * BS]).unwrap();
        let t = read_only(&path);
        for aio in every_option_set() {
            let mut q = LibaioQueue::new(&config(6, aio), &[t.fd()]).unwrap();
            let reqs = [
                req(Op::Read, 0, 0),
                req(Op::Write, 1, 1),
                req(Op::Write, 2, 2),
                req(Op::Read, 3, 3),
                req(Op::Write, 0, 4),
                req(Op::Read, 1, 5),
            ];
            let ebadf = -i64::from(libc::EBADF);
            let r = batch(&mut q, &reqs);
            let ok = BS as i64;
            assert_eq!(r, vec![ok, ebadf, ebadf, ok, ebadf, ok], "{aio:?}");
            assert!(q.buffer(5).iter().all(|&b| b == 7));
        }
    }

    #[test]
    fn per_io_errors_come_back_as_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; BS + 100]).unwrap();
        let t = open(&path, false);
        let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
        let r = batch(&mut q, &[req(Op::Read, 1, 0), req(Op::Read, 2, 1)]);
        assert_eq!(r, vec![100, 0], "short read, then end of file");

        let t = open(&path, true);
        let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
        let unaligned = Request {
            offset: 1,
            ..req(Op::Read, 0, 0)
        };
        let r = batch(&mut q, &[unaligned]);
        assert_eq!(r, vec![-i64::from(libc::EINVAL)], "unaligned O_DIRECT");
    }

    /// `min` counts only what can complete: a reap never waits for more
    /// than was sent, nor for requests not yet committed.
    #[test]
    fn reaps_never_wait_for_what_cannot_come() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), true);
        let mut q = LibaioQueue::new(&config(8, AioOptions::default()), &[t.fd()]).unwrap();
        for s in 0..3 {
            queued(&mut q, req(Op::Write, u64::from(s), s));
        }
        assert_eq!(q.commit().unwrap(), 3);
        queued(&mut q, req(Op::Write, 3, 3));
        assert_eq!(q.in_flight(), 4);
        let mut got = Vec::new();
        let n = q.reap(8, 8, |c| got.push(c)).unwrap();
        assert_eq!(n, 3, "the three sent, not the one still queued");
        assert_eq!(q.in_flight(), 1);
        assert_eq!(q.reap(1, 8, |_| panic!("not sent yet")).unwrap(), 0);
        assert_eq!(q.commit().unwrap(), 1);
        assert_eq!(drain(&mut q, 4, 8).len(), 1);
        assert_eq!(q.reap(0, 0, |_| panic!("max 0")).unwrap(), 0);
    }

    /// Dropping a queue with I/O in flight waits for it (io_destroy) before
    /// the buffers are freed.
    #[test]
    fn drop_with_requests_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), true);
        let mut q = LibaioQueue::new(&config(32, AioOptions::default()), &[t.fd()]).unwrap();
        for s in 0..32 {
            q.buffer(s).fill(9);
            queued(&mut q, req(Op::Write, u64::from(s), s));
        }
        assert_eq!(q.commit().unwrap(), 32);
        drop(q);
        let data = std::fs::read(t.path()).unwrap();
        assert_eq!(data.len(), 32 * BS);
        assert!(data.iter().all(|&b| b == 9));
    }

    #[test]
    fn hipri_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), true);
        let cfg = QueueConfig {
            hipri: true,
            ..config(4, AioOptions::default())
        };
        let e = LibaioQueue::new(&cfg, &[t.fd()]).err().unwrap().to_string();
        assert!(e.contains("never polls") && e.contains("io_uring"), "{e}");
    }

    #[test]
    fn setup_errors_say_what_to_change() {
        let aio = AioOptions::default();
        let e = LibaioQueue::new(&config(1, aio), &[]).err().unwrap();
        assert!(e.to_string().contains("at least one open file"), "{e}");
        let e = LibaioQueue::new(&config(1, aio), &[-1]).err().unwrap();
        assert!(e.to_string().contains("not valid"), "{e}");
        let e = LibaioQueue::new(&config(0, aio), &[0]).err().unwrap();
        assert!(e.to_string().contains("queue depth 0"), "{e}");
        // One more event than the whole system may have.
        let max: u32 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        if let Some(depth) = max.checked_add(1) {
            let cfg = QueueConfig {
                buffer_size: 8,
                buffer_align: 8,
                ..config(depth, aio)
            };
            let e = LibaioQueue::new(&cfg, &[0]).err().unwrap().to_string();
            assert!(
                e.contains("/proc/sys/fs/aio-max-nr") && e.contains("lower iodepth"),
                "{e}"
            );
        }
    }

    #[test]
    fn requests_outside_the_queue_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false);
        let mut q = LibaioQueue::new(&config(2, AioOptions::default()), &[t.fd()]).unwrap();
        let bad = [
            req(Op::Read, 0, 2),
            req(Op::Fsync, 0, 2),
            Request {
                len: BS as u32 + 1,
                ..req(Op::Read, 0, 0)
            },
            Request {
                file: 1,
                ..req(Op::Read, 0, 0)
            },
        ];
        for r in bad {
            let e = q.submit(&r).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
        }
        assert_eq!(q.in_flight(), 0);
        queued(&mut q, req(Op::Write, 0, 0));
        queued(&mut q, req(Op::Write, 1, 1));
        let e = q.submit(&req(Op::Write, 2, 0)).unwrap_err();
        assert!(e.to_string().contains("queue full"), "{e}");
        assert_eq!(q.commit().unwrap(), 2);
        assert_eq!(drain(&mut q, 2, 2).len(), 2);
    }
}
