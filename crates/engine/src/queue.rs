//! The one trait every backend implements.

use std::io;

use crate::error::EngineError;
use crate::request::{Completion, Request};

/// What happened to a request handed to [`Queue::submit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// A synchronous backend performed the request before returning:
    /// bytes transferred, or a negative errno.
    Completed(i64),
    /// The request waits in the queue; it is sent by [`Queue::commit`] and
    /// comes back from [`Queue::reap`].
    Queued,
}

/// A queue of requests against a fixed set of targets.
///
/// Per-I/O failures (EIO, a short read) are results, not `Err`: `Err` means
/// the queue itself cannot go on.
pub trait Queue {
    /// Reads and writes may complete inside [`Queue::submit`] (the
    /// synchronous backends, whose `commit`, `reap` and `in_flight` are the
    /// defaults below, and the null backend at depth 1). A backend whose
    /// reads and writes are always queued sets it false: its caller then
    /// takes a request's submission time at `commit`, and reads no clock
    /// for it before `submit`.
    const COMPLETES_IN_SUBMIT: bool = true;

    /// [`Queue::submit_and_wait`] can wait in the call that submits (the
    /// io_uring backends). Where it is false that method is
    /// [`Queue::commit`], and a caller that times submissions reads its
    /// clock after it, as after any commit.
    const WAITS_IN_SUBMIT: bool = false;

    /// Hands one request to the backend.
    fn submit(&mut self, req: &Request) -> io::Result<Submitted>;

    /// Hands `count` requests to the backend in one go, the next made by
    /// `make` each time; `done` gets the slot and result of each request a
    /// synchronous backend completed on the way. The same as calling
    /// [`Queue::submit`] `count` times, which is what this default does;
    /// ring backends override it to keep their ring's tail in a register
    /// for the whole batch. On `Err`, the requests made before it stay
    /// handed over.
    #[inline]
    fn submit_batch<M, D>(&mut self, count: u32, mut make: M, mut done: D) -> io::Result<()>
    where
        M: FnMut() -> Request,
        D: FnMut(u32, i64),
    {
        for _ in 0..count {
            let req = make();
            if let Submitted::Completed(result) = self.submit(&req)? {
                done(req.slot, result);
            }
        }
        Ok(())
    }

    /// Gives the reads and writes submitted from now on I/O priority
    /// `ioprio` (class << 13 | level; 0: the thread's own), as fio's
    /// cmdprio options do per I/O. The backends that can send a priority
    /// with a request (io_uring, libaio) keep it; the rest ignore it, and
    /// the job options refuse cmdprio for them.
    #[inline]
    fn set_ioprio(&mut self, ioprio: u16) {
        let _ = ioprio;
    }

    /// Whether the reads and writes submitted from now on ask for polled
    /// completion (RWF_HIPRI), as pvsync2's `hipri_percentage` decides per
    /// I/O. Only pvsync2 keeps it.
    #[inline]
    fn set_hipri(&mut self, on: bool) {
        let _ = on;
    }

    /// Asks that `req`, a read about to be submitted, go as a compare: the
    /// device checks that the target holds what the caller has put in the
    /// slot's buffer and moves no data back (an NVMe Compare: fio's
    /// io_uring_cmd `verify_mode=compare`). Returns whether it will; where
    /// not (this default, which every backend without such a command
    /// keeps, or a namespace that lacks it), the read goes as a read. The
    /// ask holds for the next submission in `req.slot` only, and only if
    /// that submission is `req`, so a request never issued leaves no
    /// compare behind for the slot's next one. A compare that finds the
    /// data different fails; [`Queue::compare_mismatch`] tells that
    /// failure from the others.
    #[inline]
    fn compare_in_device(&mut self, req: &Request) -> bool {
        let _ = req;
        false
    }

    /// Whether a failed completion's result is a compare's
    /// ([`Queue::compare_in_device`]) answer that the data differs, rather
    /// than an error that kept it from comparing.
    #[inline]
    fn compare_mismatch(result: i64) -> bool {
        let _ = result;
        false
    }

    /// Sends every queued request to the kernel; returns how many were sent.
    ///
    /// This default, with those of [`Queue::reap`] and
    /// [`Queue::in_flight`], is a synchronous backend's: every request
    /// completes in [`Queue::submit`], so nothing is ever queued. A backend
    /// that queues overrides all three and [`Queue::COMPLETES_IN_SUBMIT`].
    fn commit(&mut self) -> io::Result<u32> {
        Ok(0)
    }

    /// Waits for at least `min` completions (0: do not wait) and takes at
    /// most `max`, calling `on_complete` for each. Returns how many it took.
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        on_complete: F,
    ) -> io::Result<u32> {
        let _ = (min, max, on_complete);
        Ok(0)
    }

    /// [`Queue::commit`], for a caller that waits for `want` completions
    /// right after: an io_uring backend submits and waits in one
    /// io_uring_enter, as t/io_uring does at QD1 (the completions are then
    /// in the CQ ring for [`Queue::reap`]). Returns how many were sent.
    #[inline(always)]
    fn submit_and_wait(&mut self, want: u32) -> io::Result<u32> {
        let _ = want;
        self.commit()
    }

    /// Sends what is queued, then waits for at least `min` completions and
    /// takes at most `max`: [`Queue::submit_and_wait`] then
    /// [`Queue::reap`].
    #[inline(always)]
    fn commit_and_reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        on_complete: F,
    ) -> io::Result<u32> {
        self.submit_and_wait(min.min(max))?;
        self.reap(min, max, on_complete)
    }

    /// The data buffer of one slot (`buffer_size` bytes, aligned as asked).
    fn buffer(&mut self, slot: u32) -> &mut [u8];

    /// Requests handed over and not yet reaped.
    fn in_flight(&self) -> u32 {
        0
    }

    /// Whether the queue takes no more requests until the caller reaps,
    /// though it has room: fio's null engine answers FIO_Q_BUSY while a
    /// committed batch waits to be reaped, so that its depth is one batch
    /// (`iodepth_batch_submit`), whatever `iodepth` says. No other
    /// backend is ever busy.
    #[inline]
    fn busy(&self) -> bool {
        false
    }

    /// What the backend settled on when it was built that a report should
    /// show (io_uring: the ring flags the kernel accepted), if anything.
    fn setup_note(&self) -> Option<&str> {
        None
    }

    /// The optional io_uring setup flags the kernel refused and the ring
    /// was built without (`COOP_TASKRUN|SINGLE_ISSUER`), for the caller to
    /// tell the user; `None` when it took every flag or has no ring.
    fn refused_setup_flags(&self) -> Option<String> {
        None
    }

    /// System calls made so far to submit and to reap (io_uring_enter,
    /// io_submit, io_getevents), counted by the backends that batch requests
    /// so a caller can show how many requests each call carried. (0, 0) for
    /// backends that do not count.
    fn calls(&self) -> (u64, u64) {
        (0, 0)
    }

    /// Whether the target has nothing more to give: a connection whose
    /// peer has closed it. A short read then ends the job instead of
    /// failing it. Always false for files and devices.
    fn ended(&self) -> bool {
        false
    }

    /// The time, in ns, of the file operation the last request did, for
    /// the engines that time an operation of their own rather than the
    /// request (fio's file engines: see [`crate::FileOpQueue`]); taken
    /// once. None for every other engine.
    fn op_latency(&mut self) -> Option<u64> {
        None
    }

    /// Faults injected so far by a [`crate::FaultyQueue`], so a report can
    /// say how many there were; 0 for every real backend.
    fn faults_injected(&self) -> u64 {
        0
    }
}

/// Code that runs against a queue whose concrete type is chosen at run time.
pub trait QueueUser {
    type Output;
    fn run<Q: Queue>(self, queue: Q) -> Self::Output;
}

/// The path behind a descriptor, for messages.
pub(crate) fn fd_name(fd: std::os::fd::RawFd) -> String {
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| format!("file descriptor {fd}"))
}

/// What every queue over files checks of the descriptors it is built
/// over: at least one, and none negative (a target left unopened).
pub(crate) fn check_fds(engine: &str, fds: &[std::os::fd::RawFd]) -> Result<(), EngineError> {
    if fds.is_empty() {
        return Err(EngineError::Setup(format!(
            "the {engine} backend needs at least one open file or device"
        )));
    }
    if let Some(fd) = fds.iter().find(|&&fd| fd < 0) {
        return Err(EngineError::Setup(format!(
            "file descriptor {fd} is not valid; open every target before building the queue"
        )));
    }
    Ok(())
}
