//! The ring both io_uring backends share: setup (dropping the optional
//! flags the kernel refuses), the registered ring fd, the SQ ring written in
//! place, and io_uring_enter to submit and to reap.

use std::io;
use std::marker::PhantomData;
use std::os::fd::AsRawFd;

use io_uring::{cqueue, squeue, IoUring, Probe};

use super::queue::queue_full;
use super::setup_flags::{
    setup_flag_names, RingMode, IORING_SETUP_COOP_TASKRUN, IORING_SETUP_CQSIZE,
    IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_IOPOLL, IORING_SETUP_NO_SQARRAY,
    IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_SQPOLL, IORING_SETUP_SQ_AFF, IORING_SETUP_SUBMIT_ALL,
    IORING_SETUP_TASKRUN_FLAG, OPTIONAL_FLAGS,
};
use crate::cq_ring::CqRing;
use crate::error::{Advice, EngineError, Knob};
use crate::sq_ring::SqRing;
use crate::syscall::syscall6;

pub(super) const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
pub(super) const IORING_ENTER_SQ_WAKEUP: u32 = 1 << 1;
pub(super) const IORING_ENTER_SQ_WAIT: u32 = 1 << 2;
pub(super) const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
pub(super) const IORING_REGISTER_RING_FDS: libc::c_long = 20;
pub(super) const IORING_UNREGISTER_RING_FDS: libc::c_long = 21;
/// The most entries io_uring_setup accepts (IORING_MAX_ENTRIES).
pub(super) const MAX_ENTRIES: u32 = 32768;
/// The most buffers one ring can register (IORING_MAX_REG_BUFFERS).
pub(super) const MAX_FIXED_BUFFERS: u32 = 1 << 14;

/// `struct io_uring_rsrc_update`, the argument of IORING_(UN)REGISTER_RING_FDS.
#[repr(C)]
pub(super) struct RsrcUpdate {
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
    /// The CQ ring, read through its own mapping (the crate's
    /// `completion()` is not used: the two would disagree on the head).
    cq: CqRing,
    /// In the SQ ring and not yet handed to the kernel.
    unsubmitted: u32,
    /// Pushed and not yet reaped.
    in_flight: u32,
    /// io_uring_enter calls made to submit and to reap: plain counters, read
    /// by [`Queue::calls`].
    submit_calls: u64,
    reap_calls: u64,
    /// [`Ring::submit_and_wait`] calls left before it next submits without
    /// waiting, to see whether completions come inside the call; 0 while
    /// they do (NOPs, cached data).
    wait_next: u32,
    note: String,
    /// Optional setup flags the kernel refused (EINVAL), dropped one by one,
    /// less those it always refuses in this mode (see `refused_flags`).
    refused: u32,
    _one_thread: PhantomData<*const ()>,
}

/// How many of [`Ring::submit_and_wait`]'s calls wait with the submission
/// before one submits alone again to see whether completions now come
/// inside the call.
const SUBMIT_PROBE_EVERY: u32 = 64;

impl<S: squeue::EntryMarker, C: cqueue::EntryMarker> Ring<S, C> {
    pub(crate) fn new(depth: u32, mode: RingMode) -> Result<Ring<S, C>, EngineError> {
        if depth == 0 {
            return Err(EngineError::Setup(
                "queue depth 0: a queue needs at least one slot (iodepth=1 or more)".into(),
            ));
        }
        if depth > MAX_ENTRIES {
            return Err(EngineError::Refused {
                what: format!(
                    "queue depth {depth} is more than the {MAX_ENTRIES} entries an io_uring ring \
                     can have"
                ),
                fix: vec![Advice::Lower(Knob::Depth)],
            });
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
        let cq = CqRing::map(ring.as_raw_fd(), ring.params(), std::mem::size_of::<C>())
            .map_err(|e| EngineError::Setup(format!("cannot map the io_uring CQ ring: {e}")))?;
        let mut ring = Ring {
            enter_fd: libc::c_long::from(ring.as_raw_fd()),
            ring,
            enter_flags: 0,
            registered: false,
            flags,
            depth,
            sq,
            cq,
            unsubmitted: 0,
            in_flight: 0,
            submit_calls: 0,
            reap_calls: 0,
            wait_next: 0,
            note: String::new(),
            refused: refused & !always_refused(mode),
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

    /// The optional setup flags the kernel refused, by name, if any.
    pub(crate) fn refused_flags(&self) -> Option<String> {
        (self.refused != 0).then(|| setup_flag_names(self.refused))
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
    /// Inlined, as every path to [`Ring::enter`] is, into the caller's loop.
    #[inline(always)]
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

    /// Hands the pushed SQEs to the kernel and, in the same io_uring_enter,
    /// waits until `want` completions are there (at most what is in
    /// flight), as t/io_uring does at QD1. A reap after it finds them
    /// without another call. With SQ polling, or nothing to submit, it is
    /// [`Ring::commit`].
    ///
    /// Requests that complete inside the submitting call (NOPs, reads the
    /// page cache serves) are cheaper to submit without a wait, so while
    /// they do, it submits as [`Ring::commit`] does, and only waits, in
    /// one more call, when they did not: it then waits with the submission
    /// for the next [`SUBMIT_PROBE_EVERY`] calls, and tries again.
    #[inline(always)]
    pub(crate) fn submit_and_wait(&mut self, want: u32) -> io::Result<u32> {
        let n = self.unsubmitted;
        if n == 0 || self.sqpoll() {
            return self.commit();
        }
        let want = want.min(self.in_flight);
        if self.wait_next == 0 {
            let sent = self.commit()?;
            if self.cq.ready() < want {
                self.wait_next = SUBMIT_PROBE_EVERY;
            }
            return Ok(sent);
        }
        self.wait_next -= 1;
        self.sq.publish();
        self.submit_calls += 1;
        let sent = self.enter(n, want, IORING_ENTER_GETEVENTS)?;
        self.unsubmitted -= sent.min(n);
        Ok(sent)
    }

    /// Takes at most `max` completions, waiting until at least `min` came.
    /// `each` gets every CQE's user_data and result.
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
    fn drain(&mut self, max: u32, each: &mut impl FnMut(u64, i32)) -> u32 {
        let n = self.cq.drain(max, each);
        self.in_flight -= n;
        n
    }

    /// io_uring_enter(2). EINTR is retried; EAGAIN and EBUSY (the kernel is
    /// short of memory for requests, or has completions to flush first)
    /// count as nothing submitted, and the caller's next call retries.
    /// Inlined into the loop that calls it (see [`syscall6`]).
    #[inline(always)]
    fn enter(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<u32> {
        loop {
            // SAFETY: no argument pointer is passed; the SQEs on the ring
            // name memory their pushers vouched for.
            let r = unsafe {
                syscall6(
                    libc::SYS_io_uring_enter,
                    [
                        self.enter_fd,
                        libc::c_long::from(to_submit),
                        libc::c_long::from(min_complete),
                        libc::c_long::from(flags | self.enter_flags),
                        0,
                        0,
                    ],
                )
            };
            if r >= 0 {
                return Ok(r as u32);
            }
            match -r as i32 {
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

pub(super) fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
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

/// The optional flags the kernel refuses by design in `mode`, whatever its
/// version: the task-run flags with SQPOLL, whose thread runs the task work
/// itself. Their absence is not news to the user.
fn always_refused(mode: RingMode) -> u32 {
    if mode.sqpoll {
        IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_COOP_TASKRUN
    } else {
        0
    }
}

#[cold]
pub(super) fn setup_error(depth: u32, required: u32, mode: RingMode, e: &io::Error) -> EngineError {
    let (why, fix) = match e.raw_os_error() {
        Some(libc::ENOSYS) => (
            "this kernel has no io_uring (Linux 5.1 or later needed)".to_string(),
            vec![],
        ),
        Some(libc::EPERM) => (
            "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)"
                .to_string(),
            vec![],
        ),
        Some(libc::ENOMEM) => (
            "not enough locked memory for the rings".to_string(),
            vec![
                Advice::Lower(Knob::Depth),
                Advice::Other("raise ulimit -l".into()),
            ],
        ),
        Some(libc::EINVAL) if mode.sqpoll_cpu.is_some() => (
            format!(
                "check that sqthread_poll_cpu={} names an online CPU",
                mode.sqpoll_cpu.unwrap_or(0)
            ),
            vec![],
        ),
        _ => (
            "the kernel refused even without the optional flags".to_string(),
            vec![Advice::Drop(Knob::Polled), Advice::Drop(Knob::SqPoll)],
        ),
    };
    EngineError::Refused {
        what: format!(
            "io_uring_setup({depth} entries, flags {}) failed: {e}; {why}",
            setup_flag_names(required)
        ),
        fix,
    }
}

#[cold]
pub(super) fn enter_error(e: i32) -> io::Error {
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
