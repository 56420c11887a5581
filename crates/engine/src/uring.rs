//! The io_uring backend (fio's `io_uring` engine), and the ring that it and
//! the NOP backend share.
//!
//! The ring is built the way fio 3.x and t/io_uring build theirs: the CQ ring
//! sized to the queue depth, COOP_TASKRUN, SINGLE_ISSUER and DEFER_TASKRUN,
//! plus TASKRUN_FLAG, SUBMIT_ALL and NO_SQARRAY where the kernel has them.
//! Whichever of those optional flags the kernel refuses (EINVAL) is dropped,
//! one at a time, and the queue reports what it settled on. The ring fd is
//! registered with the kernel, so io_uring_enter skips the fd lookup, unless
//! [`UringOptions::skip_ring_registration`] asks for the plain fd.

use std::io;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use io_uring::{cqueue, opcode, squeue, types, IoUring, Probe};

use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Completion, Op, Request};
use crate::sq_ring::SqRing;
use crate::syscall::{errno, io_result};
use crate::trim::{trim, TrimMethod};

/// RWF_DONTCACHE from include/uapi/linux/fs.h (Linux 6.14). Older kernels
/// and filesystems without FOP_DONTCACHE fail it with EOPNOTSUPP. (fio 3.33's
/// RWF_UNCACHED was 0x40, from a patch set that never went upstream; on
/// Linux 6.9 and later 0x40 is RWF_NOAPPEND, so it must not be used.)
const RWF_DONTCACHE: i32 = 0x80;

// io_uring ABI values the io-uring crate keeps private
// (include/uapi/linux/io_uring.h).
const IORING_SETUP_IOPOLL: u32 = 1 << 0;
const IORING_SETUP_SQPOLL: u32 = 1 << 1;
const IORING_SETUP_SQ_AFF: u32 = 1 << 2;
const IORING_SETUP_CQSIZE: u32 = 1 << 3;
const IORING_SETUP_SUBMIT_ALL: u32 = 1 << 7;
const IORING_SETUP_COOP_TASKRUN: u32 = 1 << 8;
const IORING_SETUP_TASKRUN_FLAG: u32 = 1 << 9;
const IORING_SETUP_SINGLE_ISSUER: u32 = 1 << 12;
const IORING_SETUP_DEFER_TASKRUN: u32 = 1 << 13;
const IORING_SETUP_NO_SQARRAY: u32 = 1 << 16;
const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
const IORING_ENTER_SQ_WAKEUP: u32 = 1 << 1;
const IORING_ENTER_SQ_WAIT: u32 = 1 << 2;
const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
const IORING_REGISTER_RING_FDS: libc::c_long = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_long = 21;
/// The most entries io_uring_setup accepts (IORING_MAX_ENTRIES).
const MAX_ENTRIES: u32 = 32768;
/// The most buffers one ring can register (IORING_MAX_REG_BUFFERS).
const MAX_FIXED_BUFFERS: u32 = 1 << 14;

/// The optional setup flags, in the order they are given up when the kernel
/// refuses the set with EINVAL. DEFER_TASKRUN goes first: it is the newest
/// (6.1) and is refused with SQPOLL. TASKRUN_FLAG goes before COOP_TASKRUN,
/// which it needs when DEFER_TASKRUN is gone. SINGLE_ISSUER goes last, as
/// DEFER_TASKRUN needs it.
const OPTIONAL_FLAGS: [(u32, &str); 7] = [
    (IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"),
    (IORING_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG"),
    (IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"),
    (IORING_SETUP_NO_SQARRAY, "NO_SQARRAY"),
    (IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"),
    (IORING_SETUP_CQSIZE, "CQSIZE"),
    (IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"),
];

const REQUIRED_FLAGS: [(u32, &str); 3] = [
    (IORING_SETUP_IOPOLL, "IOPOLL"),
    (IORING_SETUP_SQPOLL, "SQPOLL"),
    (IORING_SETUP_SQ_AFF, "SQ_AFF"),
];

/// The names of the IORING_SETUP_* flags in `flags`, joined with `|`.
pub fn setup_flag_names(flags: u32) -> String {
    let names: Vec<&str> = REQUIRED_FLAGS
        .iter()
        .chain(OPTIONAL_FLAGS.iter().rev())
        .filter(|(bit, _)| flags & bit != 0)
        .map(|&(_, name)| name)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join("|")
    }
}

/// How the ring is polled, as asked for.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RingMode {
    pub iopoll: bool,
    pub sqpoll: bool,
    pub sqpoll_cpu: Option<u32>,
    pub sqpoll_idle_ms: Option<u32>,
    /// Leave the ring fd unregistered ([`UringOptions::skip_ring_registration`]).
    pub skip_ring_registration: bool,
}

impl RingMode {
    /// The ring a queue built from `config` needs: IOPOLL for hipri, and
    /// the SQ-polling and registration choices of its io_uring options.
    pub(crate) fn of(config: &QueueConfig) -> RingMode {
        let opts = &config.uring;
        RingMode {
            iopoll: config.hipri,
            sqpoll: opts.sqpoll,
            sqpoll_cpu: opts.sqpoll_cpu,
            sqpoll_idle_ms: opts.sqpoll_idle_ms,
            skip_ring_registration: opts.skip_ring_registration,
        }
    }
}

/// `struct io_uring_rsrc_update`, the argument of IORING_(UN)REGISTER_RING_FDS.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// An io_uring instance with the bookkeeping both ring backends need.
///
/// Not `Send`: with SINGLE_ISSUER the kernel accepts io_uring_enter only from
/// the thread that made the ring, and a registered ring fd is an index into
/// that thread's own table. Build the queue on the thread that uses it, as
/// [`crate::open_queue`] does when called there.
/// Generic over the entry sizes: the NVMe passthrough backend uses 128-byte
/// SQEs and 32-byte CQEs (IORING_SETUP_SQE128 | IORING_SETUP_CQE32, which
/// the io-uring crate sets from the entry types).
pub(crate) struct Ring<S = squeue::Entry, C = cqueue::Entry>
where
    S: squeue::EntryMarker,
    C: cqueue::EntryMarker,
{
    ring: IoUring<S, C>,
    /// What io_uring_enter is called with: the registered index of the ring
    /// fd, or the fd itself when registering it failed.
    enter_fd: libc::c_long,
    /// IORING_ENTER_REGISTERED_RING when `enter_fd` is an index.
    enter_flags: u32,
    registered: bool,
    flags: u32,
    depth: u32,
    /// The SQ ring, written in place: SQEs go straight into their slots and
    /// the tail moves once per batch, at commit.
    sq: SqRing<S>,
    /// In the SQ ring and not yet handed to the kernel.
    unsubmitted: u32,
    /// Pushed and not yet reaped.
    in_flight: u32,
    /// io_uring_enter calls made to submit and to reap: plain counters, read
    /// by [`Queue::calls`].
    submit_calls: u64,
    reap_calls: u64,
    note: String,
    _one_thread: PhantomData<*const ()>,
}

impl<S: squeue::EntryMarker, C: cqueue::EntryMarker> Ring<S, C> {
    pub(crate) fn new(depth: u32, mode: RingMode) -> Result<Ring<S, C>, EngineError> {
        if depth == 0 {
            return Err(EngineError::Setup(
                "queue depth 0: a queue needs at least one slot (iodepth=1 or more)".into(),
            ));
        }
        if depth > MAX_ENTRIES {
            return Err(EngineError::Setup(format!(
                "iodepth {depth} is more than the {MAX_ENTRIES} entries an io_uring ring can have; \
                 lower iodepth"
            )));
        }
        let mut required = 0;
        if mode.iopoll {
            required |= IORING_SETUP_IOPOLL;
        }
        if mode.sqpoll {
            required |= IORING_SETUP_SQPOLL;
            if mode.sqpoll_cpu.is_some() {
                required |= IORING_SETUP_SQ_AFF;
            }
        } else if mode.sqpoll_cpu.is_some() || mode.sqpoll_idle_ms.is_some() {
            return Err(EngineError::Setup(
                "sqthread_poll_cpu and the SQ thread idle time only apply with sqthread_poll; \
                 set sqthread_poll or drop them"
                    .into(),
            ));
        }
        let mut optional = OPTIONAL_FLAGS.iter().fold(0, |all, (bit, _)| all | bit);
        let mut refused = 0;
        let ring = loop {
            match build_ring(depth, required | optional, mode) {
                Ok(ring) => break ring,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) && optional != 0 => {
                    let &(bit, _) = OPTIONAL_FLAGS
                        .iter()
                        .find(|(bit, _)| optional & bit != 0)
                        .expect("optional is not empty");
                    optional &= !bit;
                    refused |= bit;
                }
                Err(e) => return Err(setup_error(depth, required, mode, &e)),
            }
        };
        let flags = required | optional;
        let sq = SqRing::map(ring.as_raw_fd(), ring.params(), std::mem::size_of::<C>())
            .map_err(|e| EngineError::Setup(format!("cannot map the io_uring SQ ring: {e}")))?;
        let mut ring = Ring {
            enter_fd: libc::c_long::from(ring.as_raw_fd()),
            ring,
            enter_flags: 0,
            registered: false,
            flags,
            depth,
            sq,
            unsubmitted: 0,
            in_flight: 0,
            submit_calls: 0,
            reap_calls: 0,
            note: String::new(),
            _one_thread: PhantomData,
        };
        let registered = if mode.skip_ring_registration {
            Err(io::Error::other("as asked"))
        } else {
            ring.register_ring_fd()
        };
        ring.note = format!(
            "io_uring setup flags {}{}; ring fd {}",
            setup_flag_names(flags),
            if refused == 0 {
                String::new()
            } else {
                format!(" (kernel refused {})", setup_flag_names(refused))
            },
            match registered {
                Ok(()) => "registered".to_string(),
                Err(e) => format!("not registered ({e})"),
            }
        );
        Ok(ring)
    }

    /// Registers the ring fd (Linux 5.18) so every io_uring_enter names it
    /// by index and the kernel skips the fd table lookup.
    fn register_ring_fd(&mut self) -> io::Result<()> {
        let mut update = RsrcUpdate {
            // u32::MAX: let the kernel pick a free index.
            offset: u32::MAX,
            resv: 0,
            data: self.ring.as_raw_fd() as u64,
        };
        // SAFETY: the argument is one io_uring_rsrc_update, as nr_args says.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                libc::c_long::from(self.ring.as_raw_fd()),
                IORING_REGISTER_RING_FDS,
                &mut update as *mut RsrcUpdate,
                1 as libc::c_long,
            )
        };
        if r != 1 {
            return Err(io::Error::last_os_error());
        }
        self.enter_fd = libc::c_long::from(update.offset);
        self.enter_flags = IORING_ENTER_REGISTERED_RING;
        self.registered = true;
        Ok(())
    }

    /// The setup flags the kernel accepted.
    pub(crate) fn flags(&self) -> u32 {
        self.flags
    }

    pub(crate) fn note(&self) -> &str {
        &self.note
    }

    pub(crate) fn iopoll(&self) -> bool {
        self.flags & IORING_SETUP_IOPOLL != 0
    }

    fn sqpoll(&self) -> bool {
        self.flags & IORING_SETUP_SQPOLL != 0
    }

    pub(crate) fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// io_uring_enter calls made to submit and to reap so far.
    pub(crate) fn calls(&self) -> (u64, u64) {
        (self.submit_calls, self.reap_calls)
    }

    pub(crate) fn submitter(&self) -> io_uring::Submitter<'_> {
        self.ring.submitter()
    }

    /// The kernel's opcode table, or `None` before Linux 5.6.
    pub(crate) fn probe(&self) -> Option<Probe> {
        let mut probe = Probe::new();
        self.ring.submitter().register_probe(&mut probe).ok()?;
        Some(probe)
    }

    /// Puts one SQE on the ring.
    ///
    /// # Safety
    ///
    /// Whatever memory or descriptor the SQE names must stay valid until its
    /// completion is reaped (or the ring is dropped).
    #[inline]
    pub(crate) unsafe fn push(&mut self, sqe: &S) -> io::Result<()> {
        let slot = self.slot()?;
        // SAFETY: a slot of the SQ ring that the kernel does not read until
        // the tail is published; the caller vouches for what the SQE names.
        unsafe { slot.write(sqe.clone()) };
        Ok(())
    }

    /// Puts `count` SQEs on the ring, each written into its slot by `fill`,
    /// with the SQ tail kept in a register for the whole batch.
    ///
    /// # Safety
    ///
    /// `fill` must write a whole SQE, and what each names must stay valid
    /// until its completion is reaped.
    #[inline]
    pub(crate) unsafe fn push_batch(
        &mut self,
        count: u32,
        mut fill: impl FnMut(*mut S),
    ) -> io::Result<()> {
        if count > self.depth - self.in_flight {
            return Err(queue_full(self.depth));
        }
        let Some(slots) = self.sq.slots(count) else {
            // Only an SQ thread that is behind leaves too little room: wait
            // for it one slot at a time, as `push` does.
            for _ in 0..count {
                fill(self.slot()?);
            }
            return Ok(());
        };
        slots.for_each(fill);
        self.in_flight += count;
        self.unsubmitted += count;
        Ok(())
    }

    /// The SQ ring slot for one more request, counted as in flight.
    #[inline]
    fn slot(&mut self) -> io::Result<*mut S> {
        if self.in_flight == self.depth {
            return Err(queue_full(self.depth));
        }
        let slot = match self.sq.next_slot() {
            Some(slot) => slot,
            None => self.wait_for_sq_space()?,
        };
        self.in_flight += 1;
        self.unsubmitted += 1;
        Ok(slot)
    }

    /// Waits for the kernel to free SQ entries. The SQ ring has at least
    /// `depth` entries and at most `depth` requests are in flight, so only
    /// the SQ thread can leave it full: it posts completions before it
    /// moves the SQ head past the entries it took.
    #[cold]
    fn wait_for_sq_space(&mut self) -> io::Result<*mut S> {
        if !self.sqpoll() {
            return Err(queue_full(self.depth));
        }
        loop {
            // What was written and not yet published is for the SQ thread
            // too: it has to take it to make room.
            self.sq.publish();
            let mut flags = IORING_ENTER_SQ_WAIT;
            if self.sq.need_wakeup() {
                flags |= IORING_ENTER_SQ_WAKEUP;
            }
            self.submit_calls += 1;
            self.enter(0, 0, flags)?;
            if let Some(slot) = self.sq.next_slot() {
                return Ok(slot);
            }
        }
    }

    /// Hands the pushed SQEs to the kernel. Returns how many it took.
    #[inline]
    pub(crate) fn commit(&mut self) -> io::Result<u32> {
        self.sq.publish();
        let n = self.unsubmitted;
        if n == 0 {
            return Ok(0);
        }
        if self.sqpoll() {
            // The SQ thread takes entries as soon as the tail moves; only a
            // thread that went to sleep needs a system call.
            if self.sq.need_wakeup() {
                self.submit_calls += 1;
                self.enter(0, 0, IORING_ENTER_SQ_WAKEUP)?;
            }
            self.unsubmitted = 0;
            return Ok(n);
        }
        // GETEVENTS with nothing to wait for, as fio and t/io_uring do: the
        // same call runs deferred task work (and polls once with IOPOLL),
        // so completions that are already done show up without another call.
        self.submit_calls += 1;
        let sent = self.enter(n, 0, IORING_ENTER_GETEVENTS)?;
        self.unsubmitted -= sent.min(n);
        Ok(sent)
    }

    /// Takes at most `max` completions, waiting until at least `min` came.
    /// `each` gets every CQE's user_data and result.
    #[inline]
    pub(crate) fn reap(
        &mut self,
        min: u32,
        max: u32,
        mut each: impl FnMut(u64, i32),
    ) -> io::Result<u32> {
        let max = max.min(self.in_flight);
        let min = min.min(max);
        let mut got = self.drain(max, &mut each);
        if got >= min && !(got == 0 && max > 0 && self.completions_hidden()) {
            return Ok(got);
        }
        loop {
            self.get_events(min - got.min(min))?;
            got += self.drain(max - got, &mut each);
            if got >= min {
                return Ok(got);
            }
        }
    }

    /// True when completions may exist that the CQ ring does not show yet:
    /// SQEs not handed over, task work the kernel deferred to our next
    /// io_uring_enter, an overflowed CQ, or IOPOLL requests nobody polled.
    #[inline]
    fn completions_hidden(&mut self) -> bool {
        self.unsubmitted > 0 || (self.iopoll() && !self.sqpoll()) || self.sq.completions_pending()
    }

    /// One io_uring_enter that submits what is pending and waits for `want`
    /// completions.
    fn get_events(&mut self, want: u32) -> io::Result<()> {
        self.sq.publish();
        let mut flags = IORING_ENTER_GETEVENTS;
        let mut to_submit = self.unsubmitted;
        if self.sqpoll() {
            // The SQ thread submits; the call only waits (and wakes it).
            if to_submit > 0 && self.sq.need_wakeup() {
                flags |= IORING_ENTER_SQ_WAKEUP;
            }
            self.unsubmitted = 0;
            to_submit = 0;
        }
        self.reap_calls += 1;
        let sent = self.enter(to_submit, want, flags)?;
        self.unsubmitted -= sent.min(to_submit);
        Ok(())
    }

    /// Moves up to `max` CQEs from the CQ ring to `each`.
    #[inline]
    fn drain(&mut self, max: u32, each: &mut impl FnMut(u64, i32)) -> u32 {
        let mut n = 0;
        // The CQ head is published once, when `cq` is dropped.
        let mut cq = self.ring.completion();
        while n < max {
            let Some(cqe) = cq.next() else { break };
            let cqe: cqueue::Entry = cqe.into();
            each(cqe.user_data(), cqe.result());
            n += 1;
        }
        drop(cq);
        self.in_flight -= n;
        n
    }

    /// io_uring_enter(2). EINTR is retried; EAGAIN and EBUSY (the kernel is
    /// short of memory for requests, or has completions to flush first)
    /// count as nothing submitted, and the caller's next call retries.
    #[inline]
    fn enter(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<u32> {
        loop {
            // SAFETY: no argument pointer is passed; the SQEs on the ring
            // name memory their pushers vouched for.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_uring_enter,
                    self.enter_fd,
                    libc::c_long::from(to_submit),
                    libc::c_long::from(min_complete),
                    libc::c_long::from(flags | self.enter_flags),
                    std::ptr::null::<libc::c_void>(),
                    0 as libc::c_long,
                )
            };
            if r >= 0 {
                return Ok(r as u32);
            }
            match errno() {
                libc::EINTR => continue,
                libc::EAGAIN | libc::EBUSY => return Ok(0),
                e => return Err(enter_error(e)),
            }
        }
    }

    /// Waits until nothing is in flight, so no request outlives the memory it
    /// names. Errors are ignored: this runs on drop, and a ring that cannot
    /// be entered has nothing in flight that the kernel will finish later
    /// than closing the ring.
    fn quiesce(&mut self) {
        while self.in_flight > 0 {
            let before = self.in_flight;
            if self.reap(1, before, |_, _| {}).is_err() {
                return;
            }
        }
    }
}

impl<S: squeue::EntryMarker, C: cqueue::EntryMarker> Drop for Ring<S, C> {
    fn drop(&mut self) {
        self.quiesce();
        if self.registered {
            let update = RsrcUpdate {
                offset: self.enter_fd as u32,
                resv: 0,
                data: 0,
            };
            // SAFETY: one io_uring_rsrc_update, as nr_args says. Without this
            // the thread's table would keep the ring alive until it exits.
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    libc::c_long::from(self.ring.as_raw_fd()),
                    IORING_UNREGISTER_RING_FDS,
                    &update as *const RsrcUpdate,
                    1 as libc::c_long,
                )
            };
        }
    }
}

fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    depth: u32,
    flags: u32,
    mode: RingMode,
) -> io::Result<IoUring<S, C>> {
    let mut b = IoUring::<S, C>::builder();
    if flags & IORING_SETUP_IOPOLL != 0 {
        b.setup_iopoll();
    }
    if flags & IORING_SETUP_SQPOLL != 0 {
        b.setup_sqpoll(mode.sqpoll_idle_ms.unwrap_or(0));
    }
    if let Some(cpu) = mode.sqpoll_cpu.filter(|_| flags & IORING_SETUP_SQ_AFF != 0) {
        b.setup_sqpoll_cpu(cpu);
    }
    // A CQ ring as deep as the queue, as fio sizes it: no more than `depth`
    // requests are ever in flight, so it cannot overflow, and it is half the
    // kernel's default size, so it takes less cache.
    if flags & IORING_SETUP_CQSIZE != 0 {
        b.setup_cqsize(depth);
    }
    if flags & IORING_SETUP_SUBMIT_ALL != 0 {
        b.setup_submit_all();
    }
    if flags & IORING_SETUP_COOP_TASKRUN != 0 {
        b.setup_coop_taskrun();
    }
    if flags & IORING_SETUP_TASKRUN_FLAG != 0 {
        b.setup_taskrun_flag();
    }
    if flags & IORING_SETUP_SINGLE_ISSUER != 0 {
        b.setup_single_issuer();
    }
    if flags & IORING_SETUP_DEFER_TASKRUN != 0 {
        b.setup_defer_taskrun();
    }
    if flags & IORING_SETUP_NO_SQARRAY != 0 {
        b.setup_no_sqarray();
    }
    b.build(depth)
}

#[cold]
fn setup_error(depth: u32, required: u32, mode: RingMode, e: &io::Error) -> EngineError {
    let advice = match e.raw_os_error() {
        Some(libc::ENOSYS) => "this kernel has no io_uring (Linux 5.1 or later needed)".into(),
        Some(libc::EPERM) => {
            "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)"
                .into()
        }
        Some(libc::ENOMEM) => {
            "not enough locked memory for the rings; lower iodepth or raise ulimit -l".into()
        }
        Some(libc::EINVAL) if mode.sqpoll_cpu.is_some() => format!(
            "check that sqthread_poll_cpu={} names an online CPU",
            mode.sqpoll_cpu.unwrap_or(0)
        ),
        _ => {
            "the kernel refused even without the optional flags; drop hipri or sqthread_poll".into()
        }
    };
    EngineError::Setup(format!(
        "io_uring_setup({depth} entries, flags {}) failed: {e}; {advice}",
        setup_flag_names(required)
    ))
}

#[cold]
fn enter_error(e: i32) -> io::Error {
    let why = match e {
        libc::EEXIST => {
            " (the ring was made with SINGLE_ISSUER on another thread; \
             build the queue on the thread that uses it)"
        }
        _ => "",
    };
    let err = io::Error::from_raw_os_error(e);
    io::Error::new(err.kind(), format!("io_uring_enter failed: {err}{why}"))
}

#[cold]
fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "io_uring queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
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

/// Builds one entry with either a plain fd or a registered-file index.
macro_rules! with_file {
    ($fixed:expr, $index:expr, $fd:expr, |$f:ident| $build:expr) => {
        if $fixed {
            let $f = types::Fixed($index);
            $build
        } else {
            let $f = types::Fd($fd);
            $build
        }
    };
}

/// fio's `io_uring` engine: reads, writes and fsyncs through an io_uring.
///
/// [`Queue::submit`] puts one SQE on the ring (user_data is the slot),
/// [`Queue::commit`] hands the batch over with one io_uring_enter (none with
/// SQPOLL while the SQ thread is awake), and [`Queue::reap`] takes CQEs off
/// the ring, entering the kernel only to wait, to poll (IOPOLL) or to run
/// deferred completions. A completion's result is the CQE's: bytes moved,
/// or a negative errno. Nothing is allocated and no lock is taken per I/O.
///
/// With hipri (IOPOLL) an fsync cannot go through the ring (the kernel
/// refuses non-pollable opcodes there with EINVAL), so it runs as fsync(2)
/// inside `submit` and completes at once.
///
/// A trim runs inside `submit` too and completes there, as in fio's
/// io_uring engine (`do_io_u_trim`, then FIO_Q_COMPLETED): a hole punched
/// in a regular file, BLKDISCARD on a block device.
///
/// Not `Send`; see [`UringQueue::new`].
pub struct UringQueue {
    ring: Ring,
    fds: Box<[RawFd]>,
    /// One per descriptor.
    trims: Box<[TrimMethod]>,
    /// One iovec per slot, pointing at the slot's buffer, for READV/WRITEV:
    /// the kernel reads it while it prepares the request, and the slot is
    /// not used again before the request completes.
    iovecs: Box<[libc::iovec]>,
    buffers: SlotBuffers,
    fixed_files: bool,
    fixed_buffers: bool,
    vectored: bool,
    rw_flags: i32,
    force_async: u32,
    since_async: u32,
    note: String,
}

impl UringQueue {
    /// A queue over `fds` (indexed by [`Request::file`]), which must stay open
    /// as long as the queue is used. Everything the options need from the
    /// kernel is checked here, so no option fails at the first I/O.
    ///
    /// The ring is made with SINGLE_ISSUER where the kernel has it, so the
    /// queue must be used on the thread that built it; the type is not
    /// `Send`, which makes the compiler hold to that.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<UringQueue, EngineError> {
        let opts = &config.uring;
        if fds.is_empty() {
            return Err(EngineError::Setup(
                "the io_uring backend needs at least one open file or device".into(),
            ));
        }
        if let Some(fd) = fds.iter().find(|&&fd| fd < 0) {
            return Err(EngineError::Setup(format!(
                "file descriptor {fd} is not valid; open every target before building the queue"
            )));
        }
        if config.hipri {
            check_iopoll_files(fds)?;
        }
        if opts.uncached {
            check_uncached(fds)?;
        }
        let trims = TrimMethod::for_fds(fds)?;
        let mut buffers = SlotBuffers::new(config)?;
        let ring = Ring::<squeue::Entry>::new(config.depth, RingMode::of(config))?;
        let probe = ring.probe();
        let has = |code: u8| probe.as_ref().map(|p| p.is_supported(code));
        let vectored = match opts.nonvectored {
            Some(nonvectored) => !nonvectored,
            None => has(opcode::Read::CODE) != Some(true) || has(opcode::Write::CODE) != Some(true),
        };
        let mut need: Vec<(u8, &str)> = vec![(opcode::Fsync::CODE, "FSYNC")];
        if opts.fixed_buffers {
            need.push((opcode::ReadFixed::CODE, "READ_FIXED"));
            need.push((opcode::WriteFixed::CODE, "WRITE_FIXED"));
        } else if vectored {
            need.push((opcode::Readv::CODE, "READV"));
            need.push((opcode::Writev::CODE, "WRITEV"));
        } else {
            need.push((opcode::Read::CODE, "READ"));
            need.push((opcode::Write::CODE, "WRITE"));
        }
        for (code, name) in need {
            match has(code) {
                Some(true) => {}
                Some(false) => {
                    return Err(EngineError::Setup(format!(
                        "this kernel's io_uring has no IORING_OP_{name}; {}",
                        if name == "READ" || name == "WRITE" {
                            "set nonvectored=0"
                        } else {
                            "use a newer kernel"
                        }
                    )))
                }
                // No probe (before 5.6): READV/WRITEV, the fixed opcodes and
                // FSYNC date from 5.1; READ/WRITE and IOSQE_ASYNC need 5.6.
                None if name == "READ" || name == "WRITE" => {
                    return Err(EngineError::Setup(format!(
                        "this kernel cannot tell whether io_uring has IORING_OP_{name} \
                         (Linux 5.6); set nonvectored=0"
                    )))
                }
                None => {}
            }
        }
        if opts.force_async > 0 && probe.is_none() {
            return Err(EngineError::Setup(
                "force_async needs IOSQE_ASYNC (Linux 5.6), which this kernel lacks; \
                 drop force_async"
                    .into(),
            ));
        }
        let fixed_files = opts.register_files || opts.sqpoll;
        if fixed_files {
            ring.submitter().register_files(fds).map_err(|e| {
                EngineError::Setup(format!(
                    "cannot register {} files with the io_uring: {e}; {}",
                    fds.len(),
                    if opts.sqpoll {
                        "sqthread_poll registers the files (as fio does); check the open file limit"
                    } else {
                        "drop registerfiles or raise the open file limit (ulimit -n)"
                    }
                ))
            })?;
        }
        let depth = config.depth as usize;
        let mut iovecs = Vec::with_capacity(depth);
        for slot in 0..config.depth {
            let base = buffers
                .io_ptr(slot, 0)
                .expect("every slot below the depth has a buffer");
            iovecs.push(libc::iovec {
                iov_base: base.cast(),
                iov_len: config.buffer_size,
            });
        }
        let iovecs = iovecs.into_boxed_slice();
        if opts.fixed_buffers {
            if config.depth > MAX_FIXED_BUFFERS {
                return Err(EngineError::Setup(format!(
                    "fixedbufs registers one buffer per slot, and io_uring takes at most \
                     {MAX_FIXED_BUFFERS}; lower iodepth {} or drop fixedbufs",
                    config.depth
                )));
            }
            // SAFETY: the iovecs name the queue's buffers, which live as long
            // as the ring (the ring is dropped first).
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                EngineError::Setup(format!(
                    "cannot register {} buffers of {} bytes with the io_uring: {e}; \
                     {}",
                    config.depth,
                    config.buffer_size,
                    if e.raw_os_error() == Some(libc::ENOMEM) {
                        "raise the locked-memory limit (ulimit -l) or lower iodepth or bs"
                    } else {
                        "each buffer must be at most 1 GiB; lower bs or drop fixedbufs"
                    }
                ))
            })?;
        }
        let mut rw_flags = 0;
        if opts.nowait {
            rw_flags |= libc::RWF_NOWAIT;
        }
        if opts.uncached {
            rw_flags |= RWF_DONTCACHE;
        }
        let note = format!(
            "{}; {}{}{}",
            ring.note(),
            if opts.fixed_buffers {
                "fixed buffers"
            } else if vectored {
                "vectored"
            } else {
                "non-vectored"
            },
            if fixed_files {
                ", registered files"
            } else {
                ""
            },
            if config.hipri {
                ", fsync runs synchronously (IOPOLL)"
            } else {
                ""
            },
        );
        Ok(UringQueue {
            ring,
            fds: fds.into(),
            trims,
            iovecs,
            buffers,
            fixed_files,
            fixed_buffers: opts.fixed_buffers,
            vectored,
            rw_flags,
            force_async: opts.force_async,
            since_async: 0,
            note,
        })
    }

    /// The IORING_SETUP_* flags the kernel accepted (see [`setup_flag_names`]).
    pub fn setup_flags(&self) -> u32 {
        self.ring.flags()
    }

    /// True when requests move data with READV/WRITEV.
    pub fn is_vectored(&self) -> bool {
        self.vectored && !self.fixed_buffers
    }
}

impl Queue for UringQueue {
    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let Some(&fd) = self.fds.get(req.file as usize) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        let fixed = self.fixed_files;
        let index = req.file;
        let sqe = match req.op {
            Op::Fsync if self.ring.iopoll() => {
                // SAFETY: fsync touches no memory.
                return Ok(Submitted::Completed(io_result(
                    || unsafe { libc::fsync(fd) } as isize,
                )));
            }
            Op::Fsync => with_file!(fixed, index, fd, |f| opcode::Fsync::new(f).build()),
            // Synchronous, as in fio's io_uring engine: the same on every
            // kernel, whether or not its ring has IORING_OP_FALLOCATE (5.6)
            // and the block discard command (6.12).
            Op::Trim => {
                let method = self.trims[req.file as usize];
                return Ok(Submitted::Completed(trim(fd, method, req.offset, req.len)));
            }
            Op::WriteZeroes { .. } | Op::TrimRanges { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
            Op::Read | Op::Write => {
                let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
                    return Err(bad_request(
                        req,
                        "lies outside the queue's buffers (slot >= depth or len > buffer size)",
                    ));
                };
                let (len, off, flags) = (req.len, req.offset, self.rw_flags);
                let read = req.op == Op::Read;
                if self.fixed_buffers {
                    // The slot's buffer is registered at the slot's index.
                    let buf = req.slot as u16;
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::ReadFixed::new(f, ptr, len, buf)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    } else {
                        opcode::WriteFixed::new(f, ptr, len, buf)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    })
                } else if self.vectored {
                    let iov = &mut self.iovecs[req.slot as usize];
                    iov.iov_len = len as usize;
                    let iov: *const libc::iovec = iov;
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::Readv::new(f, iov, 1)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    } else {
                        opcode::Writev::new(f, iov, 1)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    })
                } else {
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::Read::new(f, ptr, len)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    } else {
                        opcode::Write::new(f, ptr, len)
                            .offset(off)
                            .rw_flags(flags)
                            .build()
                    })
                }
            }
        };
        let mut sqe = sqe.user_data(u64::from(req.slot));
        if self.force_async > 0 {
            self.since_async += 1;
            if self.since_async == self.force_async {
                self.since_async = 0;
                sqe = sqe.flags(squeue::Flags::ASYNC);
            }
        }
        // SAFETY: the buffer (checked by `io_ptr`), the slot's iovec and the
        // descriptor (which the caller keeps open) outlive the request: the
        // queue waits for every request before its memory is freed.
        unsafe { self.ring.push(&sqe)? };
        Ok(Submitted::Queued)
    }

    #[inline]
    fn commit(&mut self) -> io::Result<u32> {
        self.ring.commit()
    }

    #[inline]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        self.ring.reap(min, max, |slot, res| {
            on_complete(Completion {
                slot: slot as u32,
                result: i64::from(res),
            })
        })
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.ring.in_flight()
    }

    fn setup_note(&self) -> Option<&str> {
        Some(&self.note)
    }

    fn calls(&self) -> (u64, u64) {
        self.ring.calls()
    }
}

/// IOPOLL needs O_DIRECT (on a buffered file the kernel fails every request
/// with EOPNOTSUPP) and a device with poll queues (see
/// [`poll_queue_warning`]). Say so before the run.
fn check_iopoll_files(fds: &[RawFd]) -> Result<(), EngineError> {
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
            return Err(EngineError::Setup(format!(
                "hipri (IORING_SETUP_IOPOLL) needs files opened with O_DIRECT, and {} is not: \
                 set direct=1 or drop hipri",
                fd_name(fd)
            )));
        }
        // SAFETY: fstat fills the stat buffer it is given.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } == 0 {
            let is_block_device = st.st_mode & libc::S_IFMT == libc::S_IFBLK;
            if let PollSupport::No(why) =
                poll_support(is_block_device, st.st_dev, st.st_rdev, &fd_name(fd))
            {
                return Err(EngineError::Setup(why));
            }
        }
    }
    Ok(())
}

/// RWF_DONTCACHE depends on the kernel (6.14) and on the filesystem, and an
/// unsupported one fails each transfer with EOPNOTSUPP. A one-byte buffered
/// read with the flag, through a second read-only descriptor of the same
/// file (the first may be write-only or O_DIRECT), finds out before the run.
fn check_uncached(fds: &[RawFd]) -> Result<(), EngineError> {
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

/// The path behind a descriptor, for messages.
pub(crate) fn fd_name(fd: RawFd) -> String {
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| format!("file descriptor {fd}"))
}

/// Whether the device under a file can poll for completions.
enum PollSupport {
    Yes,
    /// The device has no poll queues: Linux 6.18 fails every polled read
    /// with EOPNOTSUPP there.
    No(String),
    /// Not a block device sysfs knows: it depends on the filesystem.
    Unknown(String),
}

/// Looks up the poll queues of the device behind a file (`dev`) or a block
/// device (`rdev`) in sysfs. `shown` names the file in messages.
fn poll_support(is_block_device: bool, dev: u64, rdev: u64, shown: &str) -> PollSupport {
    let dev = if is_block_device { rdev } else { dev };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    if !sys.exists() {
        return PollSupport::Unknown(format!(
            "{shown}: hipri: not on a block device (device {major}:{minor}: tmpfs, NFS, FUSE, \
             overlayfs or a btrfs subvolume); polled I/O works only where the filesystem \
             supports it, and fails with EOPNOTSUPP otherwise"
        ));
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
    PollSupport::No(format!(
        "{shown}: hipri needs a device with poll queues, and {disk} has none ({why}): \
         polled reads fail with EOPNOTSUPP; drop hipri, or for NVMe load the driver with \
         poll_queues=N"
    ))
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
/// [`UringQueue::new`] refuses hipri on such a device; for files on devices
/// sysfs does not know, this says that it depends on the filesystem.
pub fn poll_queue_warning(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    match poll_support(
        meta.file_type().is_block_device(),
        meta.dev(),
        meta.rdev(),
        &path.display().to_string(),
    ) {
        PollSupport::Yes => None,
        PollSupport::No(why) | PollSupport::Unknown(why) => Some(why),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::queue_config::UringOptions;
    use crate::target::{OpenOptions, Target};

    const BS: usize = 4096;

    pub(crate) fn config(depth: u32, hipri: bool, uring: UringOptions) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: BS,
            buffer_align: 4096,
            hipri,
            uring,
            ..QueueConfig::default()
        }
    }

    fn open(path: &Path, direct: bool) -> Result<Target, EngineError> {
        Target::open(
            path,
            &OpenOptions {
                read: true,
                write: true,
                create: true,
                direct,
            },
        )
    }

    fn fill_byte(block: u64) -> u8 {
        (block as u8).wrapping_mul(7).wrapping_add(1)
    }

    /// Writes `blocks` blocks, each filled with its own byte, keeping up to
    /// `depth` in flight and committing every `batch`, then fsyncs and reads
    /// them all back the same way, checking every result and every byte.
    pub(crate) fn round_trip<Q: Queue>(q: &mut Q, depth: u32, batch: u32, blocks: u64) {
        for op in [Op::Write, Op::Read] {
            let mut free: Vec<u32> = (0..depth).rev().collect();
            let mut block_of = vec![u64::MAX; depth as usize];
            let mut pending = 0;
            let mut done = 0u64;
            let check = |q: &mut Q, c: Completion, block_of: &[u64]| {
                let block = block_of[c.slot as usize];
                assert_eq!(c.result, BS as i64, "{op:?} of block {block}");
                if op == Op::Read {
                    let want = fill_byte(block);
                    assert!(
                        q.buffer(c.slot).iter().all(|&b| b == want),
                        "block {block} read back wrong data"
                    );
                }
            };
            for block in 0..blocks {
                let slot = loop {
                    if let Some(slot) = free.pop() {
                        break slot;
                    }
                    let mut got = Vec::new();
                    q.reap(1, depth, |c| got.push(c)).unwrap();
                    assert!(!got.is_empty(), "reap(1, ..) returned nothing");
                    for c in got {
                        check(q, c, &block_of);
                        free.push(c.slot);
                        done += 1;
                    }
                };
                if op == Op::Write {
                    q.buffer(slot).fill(fill_byte(block));
                } else {
                    q.buffer(slot).fill(0);
                }
                block_of[slot as usize] = block;
                let req = Request {
                    op,
                    file: 0,
                    offset: block * BS as u64,
                    len: BS as u32,
                    slot,
                };
                assert_eq!(q.submit(&req).unwrap(), Submitted::Queued);
                pending += 1;
                if pending == batch {
                    assert!(q.commit().unwrap() <= batch);
                    pending = 0;
                }
            }
            q.commit().unwrap();
            while done < blocks {
                let mut got = Vec::new();
                let n = q.reap(1, depth, |c| got.push(c)).unwrap();
                assert_eq!(n as usize, got.len());
                for c in got {
                    check(q, c, &block_of);
                    done += 1;
                }
            }
            assert_eq!(q.in_flight(), 0);
            if op == Op::Write {
                let fsync = Request {
                    op: Op::Fsync,
                    file: 0,
                    offset: 0,
                    len: 0,
                    slot: 0,
                };
                let r = match q.submit(&fsync).unwrap() {
                    Submitted::Completed(r) => r,
                    Submitted::Queued => {
                        q.commit().unwrap();
                        let mut r = None;
                        q.reap(1, 1, |c| r = Some(c.result)).unwrap();
                        r.unwrap()
                    }
                };
                assert_eq!(r, 0, "fsync");
            }
        }
    }

    fn check_file(path: &Path, blocks: u64) {
        let data = std::fs::read(path).unwrap();
        assert_eq!(data.len() as u64, blocks * BS as u64);
        for (i, block) in data.chunks(BS).enumerate() {
            assert!(block.iter().all(|&b| b == fill_byte(i as u64)), "block {i}");
        }
    }

    fn variants() -> Vec<(&'static str, UringOptions)> {
        vec![
            ("default", UringOptions::default()),
            (
                "vectored",
                UringOptions {
                    nonvectored: Some(false),
                    ..Default::default()
                },
            ),
            (
                "nonvectored",
                UringOptions {
                    nonvectored: Some(true),
                    ..Default::default()
                },
            ),
            (
                "fixed buffers",
                UringOptions {
                    fixed_buffers: true,
                    ..Default::default()
                },
            ),
            (
                "registered files",
                UringOptions {
                    register_files: true,
                    ..Default::default()
                },
            ),
            (
                "fixed buffers and registered files, vectored asked for",
                UringOptions {
                    fixed_buffers: true,
                    register_files: true,
                    nonvectored: Some(false),
                    ..Default::default()
                },
            ),
            (
                "force_async every 3rd",
                UringOptions {
                    force_async: 3,
                    ..Default::default()
                },
            ),
        ]
    }

    fn every_variant_reads_back(direct: bool) {
        for (name, opts) in variants() {
            for (depth, batch) in [(1, 1), (32, 1), (32, 8), (32, 32)] {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("f");
                let t = match open(&path, direct) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("skipping: the temp directory refuses O_DIRECT: {e}");
                        return;
                    }
                };
                let mut q = UringQueue::new(&config(depth, false, opts.clone()), &[t.fd()])
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                round_trip(&mut q, depth, batch, 100);
                drop(q);
                check_file(&path, 100);
            }
        }
    }

    #[test]
    fn every_variant_reads_back_what_it_wrote_buffered() {
        every_variant_reads_back(false);
    }

    #[test]
    fn every_variant_reads_back_what_it_wrote_with_o_direct() {
        every_variant_reads_back(true);
    }

    #[test]
    fn vectored_follows_the_option_and_defaults_to_read_write() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let q = |opts| UringQueue::new(&config(4, false, opts), &[t.fd()]).unwrap();
        // Every kernel this runs on has IORING_OP_READ (5.6), so fio's
        // default picks the non-vectored opcodes.
        assert!(!q(UringOptions::default()).is_vectored());
        let vectored = UringOptions {
            nonvectored: Some(false),
            ..Default::default()
        };
        assert!(q(vectored.clone()).is_vectored());
        assert!(!q(UringOptions {
            fixed_buffers: true,
            ..vectored
        })
        .is_vectored());
    }

    #[test]
    fn ring_uses_modern_flags_and_a_registered_fd() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let q = UringQueue::new(&config(8, false, UringOptions::default()), &[t.fd()]).unwrap();
        let note = q.setup_note().unwrap().to_string();
        eprintln!("{note}");
        assert!(note.contains("ring fd registered"), "{note}");
        assert!(q.setup_flags() & IORING_SETUP_SINGLE_ISSUER != 0, "{note}");
        assert_eq!(
            q.setup_flags() & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL),
            0
        );
    }

    /// A registered ring fd takes one of the 16 slots of the thread's table
    /// until it is unregistered: dropping a queue must give it back, or the
    /// 17th queue a worker builds would go unregistered.
    #[test]
    fn dropping_a_queue_unregisters_its_ring_fd() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        for i in 0..40 {
            let q = UringQueue::new(&config(2, false, UringOptions::default()), &[t.fd()]).unwrap();
            let note = q.setup_note().unwrap();
            assert!(note.contains("ring fd registered"), "queue {i}: {note}");
        }
    }

    /// An IOPOLL ring comes up (on Linux 6.18 with every optional flag).
    #[test]
    fn polled_ring_comes_up() {
        let ring = Ring::<squeue::Entry>::new(
            4,
            RingMode {
                iopoll: true,
                ..Default::default()
            },
        )
        .unwrap();
        eprintln!("{}", ring.note());
        assert!(ring.iopoll());
    }

    /// The kernel refuses DEFER_TASKRUN (and the other task-run flags) with
    /// SQPOLL: the ring must still come up, without them, and say so.
    #[test]
    fn refused_flags_are_dropped_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let t = open(&path, false).unwrap();
        let opts = UringOptions {
            sqpoll: true,
            ..Default::default()
        };
        let mut q = match UringQueue::new(&config(8, false, opts), &[t.fd()]) {
            Ok(q) => q,
            Err(e) if unsafe { libc::geteuid() } != 0 => {
                eprintln!("skipping: SQPOLL refused to a non-root user: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let flags = q.setup_flags();
        let note = q.setup_note().unwrap().to_string();
        eprintln!("{note}");
        assert!(flags & IORING_SETUP_SQPOLL != 0);
        assert_eq!(flags & IORING_SETUP_DEFER_TASKRUN, 0, "{note}");
        assert!(
            note.contains("kernel refused") && note.contains("DEFER_TASKRUN"),
            "{note}"
        );
        assert!(
            note.contains("registered files"),
            "SQPOLL registers the files as fio does"
        );
        round_trip(&mut q, 8, 4, 40);
        drop(q);
        check_file(&path, 40);
    }

    #[test]
    fn sqpoll_with_a_cpu_and_idle_time_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let t = open(&path, true).unwrap();
        let opts = UringOptions {
            sqpoll: true,
            sqpoll_cpu: Some(0),
            // A short idle time so the thread sleeps between the phases
            // below and commit has to wake it.
            sqpoll_idle_ms: Some(1),
            ..Default::default()
        };
        let mut q = match UringQueue::new(&config(16, false, opts), &[t.fd()]) {
            Ok(q) => q,
            Err(e) if unsafe { libc::geteuid() } != 0 => {
                eprintln!("skipping: SQPOLL refused to a non-root user: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert!(q.setup_flags() & IORING_SETUP_SQ_AFF != 0);
        round_trip(&mut q, 16, 16, 64);
        std::thread::sleep(std::time::Duration::from_millis(20));
        round_trip(&mut q, 16, 3, 64);
        drop(q);
        check_file(&path, 64);
    }

    #[test]
    fn sqpoll_options_without_sqpoll_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let opts = UringOptions {
            sqpoll_cpu: Some(0),
            ..Default::default()
        };
        let e = UringQueue::new(&config(4, false, opts), &[t.fd()])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("only apply with sqthread_poll"), "{e}");
    }

    #[test]
    fn hipri_on_a_buffered_file_is_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let e = UringQueue::new(&config(4, true, UringOptions::default()), &[t.fd()])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("needs files opened with O_DIRECT"), "{e}");
        assert!(e.contains("direct=1"), "{e}");
    }

    /// hipri on an O_DIRECT file: where the device has poll queues the data
    /// moves, and fsync (which the ring refuses with IOPOLL) runs
    /// synchronously; where it has none (virtio-blk here) the queue refuses
    /// up front, since the kernel would fail the reads.
    #[test]
    fn hipri_with_o_direct_round_trips_or_is_refused_without_poll_queues() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let t = match open(&path, true) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("skipping: the temp directory refuses O_DIRECT: {e}");
                return;
            }
        };
        let warning = poll_queue_warning(&path);
        for opts in [
            UringOptions::default(),
            UringOptions {
                fixed_buffers: true,
                register_files: true,
                ..Default::default()
            },
        ] {
            match UringQueue::new(&config(16, true, opts), &[t.fd()]) {
                Ok(mut q) => {
                    assert!(q.setup_flags() & IORING_SETUP_IOPOLL != 0);
                    round_trip(&mut q, 16, 4, 64);
                }
                Err(e) => {
                    let e = e.to_string();
                    let w = warning.as_deref().unwrap_or_default();
                    assert!(
                        e.contains("has no poll queues") || e.contains("has none"),
                        "{e}"
                    );
                    assert!(w.contains("has none"), "the warning says the same: {w}");
                    eprintln!("refused as expected: {e}");
                    return;
                }
            }
        }
        check_file(&path, 64);
    }

    /// What the kernel does, bypassing the queue's checks, with a polled read
    /// on a device without poll queues (Linux 6.18 fails it with EOPNOTSUPP;
    /// older kernels completed it by interrupt), and with an fsync on an
    /// IOPOLL ring (EINVAL: only pollable opcodes are allowed there).
    #[test]
    fn kernel_facts_polled_read_and_fsync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![5u8; BS]).unwrap();
        let t = match open(&path, true) {
            Ok(t) => t,
            Err(_) => return,
        };
        let mut buf = crate::AlignedBuffer::new(BS, 4096);
        let mut ring = Ring::<squeue::Entry>::new(
            1,
            RingMode {
                iopoll: true,
                ..Default::default()
            },
        )
        .unwrap();
        let sqe = opcode::Read::new(
            types::Fd(t.fd()),
            buf.as_mut_slice().as_mut_ptr(),
            BS as u32,
        )
        .build();
        // SAFETY: the buffer outlives the ring's wait for the completion.
        unsafe { ring.push(&sqe).unwrap() };
        ring.commit().unwrap();
        let mut res = None;
        ring.reap(1, 1, |_, r| res = Some(r)).unwrap();
        let res = res.unwrap();
        eprintln!(
            "polled read: {res}; device: {:?}",
            poll_queue_warning(&path)
        );
        assert!(res == BS as i32 || res == -libc::EOPNOTSUPP, "{res}");
        if res == BS as i32 {
            assert!(buf.as_slice().iter().all(|&b| b == 5));
        }
        // An fsync cannot be polled for; the ring refuses it.
        let sqe = opcode::Fsync::new(types::Fd(t.fd())).build();
        // SAFETY: an fsync names no memory.
        unsafe { ring.push(&sqe).unwrap() };
        ring.commit().unwrap();
        let mut res = None;
        ring.reap(1, 1, |_, r| res = Some(r)).unwrap();
        eprintln!("fsync on an IOPOLL ring: {res:?}");
        assert_eq!(res, Some(-libc::EINVAL));
    }

    #[test]
    fn poll_queue_warning_matches_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let warning = poll_queue_warning(&path);
        eprintln!("{warning:?}");
        if let Some(w) = &warning {
            assert!(w.contains("hipri"), "{w}");
        }
        assert_eq!(poll_queue_warning(Path::new("/no/such/file")), None);
    }

    /// Pages of `path` in the page cache, by mincore(2) on a mapping of it.
    fn resident_pages(path: &Path) -> usize {
        let f = std::fs::File::open(path).unwrap();
        let len = f.metadata().unwrap().len() as usize;
        // SAFETY: a fresh read-only shared mapping of the whole file, only
        // inspected by mincore and unmapped before returning.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            let mut vec = vec![0u8; len.div_ceil(4096)];
            assert_eq!(libc::mincore(p, len, vec.as_mut_ptr()), 0);
            libc::munmap(p, len);
            vec.iter().filter(|&&v| v & 1 != 0).count()
        }
    }

    /// With uncached, buffered reads leave nothing in the page cache (where
    /// the kernel has RWF_DONTCACHE; elsewhere the queue refuses up front).
    #[test]
    fn uncached_reads_leave_no_pages_cached_or_are_refused_up_front() {
        const BLOCKS: u64 = 32;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..BLOCKS).flat_map(|b| vec![fill_byte(b); BS]).collect();
        std::fs::write(&path, data).unwrap();
        let t = open(&path, false).unwrap();
        let evict = || {
            // SAFETY: plain calls on an open descriptor.
            unsafe {
                libc::fsync(t.fd());
                libc::posix_fadvise(t.fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
            }
        };
        for uncached in [false, true] {
            evict();
            let opts = UringOptions {
                uncached,
                ..Default::default()
            };
            let mut q = match UringQueue::new(&config(8, false, opts), &[t.fd()]) {
                Ok(q) => q,
                Err(e) => {
                    let e = e.to_string();
                    assert!(uncached && e.contains("drop uncached"), "{e}");
                    eprintln!("uncached refused here: {e}");
                    return;
                }
            };
            let mut read_all = 0;
            for slot in 0..8u32 {
                for block in (u64::from(slot)..BLOCKS).step_by(8) {
                    q.submit(&Request {
                        op: Op::Read,
                        file: 0,
                        offset: block * BS as u64,
                        len: BS as u32,
                        slot,
                    })
                    .unwrap();
                    q.commit().unwrap();
                    q.reap(1, 1, |c| {
                        assert_eq!(c.result, BS as i64);
                        read_all += 1;
                    })
                    .unwrap();
                    assert!(q.buffer(slot).iter().all(|&b| b == fill_byte(block)));
                }
            }
            assert_eq!(read_all, BLOCKS);
            let cached = resident_pages(&path);
            eprintln!("uncached {uncached}: {cached} of {BLOCKS} pages cached");
            if uncached {
                assert_eq!(cached, 0);
            } else {
                assert!(cached > 0, "plain buffered reads fill the page cache");
            }
        }
    }

    /// RWF_NOWAIT fails a transfer that would block with -EAGAIN instead of
    /// waiting; reads of data in the page cache never block.
    #[test]
    fn nowait_reads_cached_data_or_says_eagain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0x42u8; 8 * BS]).unwrap();
        let t = open(&path, false).unwrap();
        let opts = UringOptions {
            nowait: true,
            ..Default::default()
        };
        let mut q = UringQueue::new(&config(8, false, opts), &[t.fd()]).unwrap();
        for slot in 0..8 {
            let req = Request {
                op: Op::Read,
                file: 0,
                offset: u64::from(slot) * BS as u64,
                len: BS as u32,
                slot,
            };
            q.submit(&req).unwrap();
        }
        assert_eq!(q.commit().unwrap(), 8);
        let mut results = Vec::new();
        while q.in_flight() > 0 {
            q.reap(1, 8, |c| results.push(c)).unwrap();
        }
        for c in results {
            assert!(
                c.result == BS as i64 || c.result == -i64::from(libc::EAGAIN),
                "{c:?}"
            );
            if c.result == BS as i64 {
                assert!(q.buffer(c.slot).iter().all(|&b| b == 0x42));
            }
        }
    }

    #[test]
    fn per_io_errors_and_short_reads_are_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![9u8; BS + 100]).unwrap();
        let t = Target::open(
            &path,
            &OpenOptions {
                read: true,
                ..Default::default()
            },
        )
        .unwrap();
        let mut q = UringQueue::new(&config(4, false, UringOptions::default()), &[t.fd()]).unwrap();
        let reqs = [
            (Op::Write, 0, -i64::from(libc::EBADF)),
            (Op::Read, BS as u64, 100),
            (Op::Read, 2 * BS as u64, 0),
        ];
        for (slot, &(op, offset, _)) in reqs.iter().enumerate() {
            q.submit(&Request {
                op,
                file: 0,
                offset,
                len: BS as u32,
                slot: slot as u32,
            })
            .unwrap();
        }
        assert_eq!(q.commit().unwrap(), 3);
        let mut got = [None; 3];
        while q.in_flight() > 0 {
            q.reap(1, 4, |c| got[c.slot as usize] = Some(c.result))
                .unwrap();
        }
        for (slot, &(op, _, want)) in reqs.iter().enumerate() {
            assert_eq!(got[slot], Some(want), "{op:?} in slot {slot}");
        }
    }

    #[test]
    fn reap_takes_no_more_than_asked_and_never_waits_on_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; 8 * BS]).unwrap();
        let t = open(&path, false).unwrap();
        let mut q = UringQueue::new(&config(8, false, UringOptions::default()), &[t.fd()]).unwrap();
        // Nothing in flight: even min 1 returns at once.
        assert_eq!(q.reap(1, 8, |_| panic!("nothing to reap")).unwrap(), 0);
        for slot in 0..8 {
            q.submit(&Request {
                op: Op::Read,
                file: 0,
                offset: u64::from(slot) * BS as u64,
                len: BS as u32,
                slot,
            })
            .unwrap();
        }
        assert_eq!(q.in_flight(), 8);
        // Not committed: reap submits them itself when it must wait.
        let mut seen = Vec::new();
        assert_eq!(q.reap(3, 3, |c| seen.push(c.slot)).unwrap(), 3);
        assert_eq!(q.in_flight(), 5);
        while q.in_flight() > 0 {
            q.reap(1, 8, |c| seen.push(c.slot)).unwrap();
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn requests_outside_the_queue_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let mut q = UringQueue::new(&config(2, false, UringOptions::default()), &[t.fd()]).unwrap();
        let req = |file, len, slot| Request {
            op: Op::Read,
            file,
            offset: 0,
            len,
            slot,
        };
        for r in [
            req(0, BS as u32, 2),
            req(0, BS as u32 + 1, 0),
            req(1, 512, 0),
        ] {
            let e = q.submit(&r).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
        }
        q.submit(&req(0, 512, 0)).unwrap();
        q.submit(&req(0, 512, 1)).unwrap();
        let e = q.submit(&req(0, 512, 0)).unwrap_err();
        assert!(e.to_string().contains("queue full"), "{e}");
    }

    #[test]
    fn requests_pick_their_file_by_fd_or_by_registered_index() {
        for register_files in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let a = open(&dir.path().join("a"), false).unwrap();
            let b = open(&dir.path().join("b"), false).unwrap();
            let opts = UringOptions {
                register_files,
                ..Default::default()
            };
            let mut q = UringQueue::new(&config(2, false, opts), &[a.fd(), b.fd()]).unwrap();
            q.buffer(0).fill(0xaa);
            q.buffer(1).fill(0xbb);
            for file in 0..2 {
                q.submit(&Request {
                    op: Op::Write,
                    file,
                    offset: 0,
                    len: 512,
                    slot: file,
                })
                .unwrap();
            }
            q.commit().unwrap();
            let mut n = 0;
            while q.in_flight() > 0 {
                q.reap(1, 2, |c| {
                    assert_eq!(c.result, 512);
                    n += 1
                })
                .unwrap();
            }
            assert_eq!(n, 2);
            assert_eq!(std::fs::read(a.path()).unwrap(), vec![0xaa; 512]);
            assert_eq!(std::fs::read(b.path()).unwrap(), vec![0xbb; 512]);
        }
    }

    #[test]
    fn setup_errors_say_what_to_change() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let e = |c: QueueConfig, fds: &[RawFd]| UringQueue::new(&c, fds).err().unwrap().to_string();
        let d = UringOptions::default;
        assert!(e(config(1, false, d()), &[]).contains("at least one open file"));
        assert!(e(config(1, false, d()), &[-1]).contains("not valid"));
        assert!(e(config(0, false, d()), &[t.fd()]).contains("queue depth 0"));
        assert!(e(config(65536, false, d()), &[t.fd()]).contains("lower iodepth"));
        let fixed = UringOptions {
            fixed_buffers: true,
            ..d()
        };
        assert!(e(config(20000, false, fixed), &[t.fd()]).contains("drop fixedbufs"));
    }

    #[test]
    fn flag_names() {
        assert_eq!(setup_flag_names(0), "none");
        assert_eq!(
            setup_flag_names(
                IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_CQSIZE
            ),
            "SQPOLL|SINGLE_ISSUER|CQSIZE"
        );
    }
}
