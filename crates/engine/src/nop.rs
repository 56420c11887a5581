//! The NOP backend: every request is an IORING_OP_NOP, so a run measures the
//! ring itself (t/io_uring's `-N1` mode), not a device.

use std::io;

use io_uring::{opcode, squeue};

use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Completion, Request};
use crate::uring::{Ring, RingMode};

use crate::descriptor::{any_shape, every_op, EngineDesc, EngineKind};

pub(crate) static NOP: EngineDesc = EngineDesc {
    name: "nop",
    aliases: &[],
    help: "ioscope only, not a fio engine: io_uring NOP requests, no I/O; measures the ring",
    kind: EngineKind::Diskless,
    fio: false,
    ring: true,
    carries: every_op,
    options: &[],
    check: any_shape,
};

/// Builds the queue; the NOP engine has no files.
pub(crate) fn open(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<NopQueue, EngineError> {
    NopQueue::new(config)
}

/// IORING_NOP_INJECT_RESULT (include/uapi/linux/io_uring.h): the NOP
/// completes with the SQE's `len` as its result. Kernels before it (6.10)
/// ignore the flag and complete with 0.
const IORING_NOP_INJECT_RESULT: u32 = 1 << 0;
/// Where `len` and `nop_flags` (the `rw_flags` union) sit in an SQE: the
/// io-uring crate has no setter for them on a NOP.
const SQE_LEN: usize = 24;
const SQE_NOP_FLAGS: usize = 28;
const _: () = assert!(std::mem::size_of::<squeue::Entry>() == 64);

/// Requests that go through an io_uring and do nothing there.
///
/// Set up, batched and reaped exactly as [`crate::UringQueue`] (same ring
/// flags, hipri for IOPOLL, `uring.sqpoll` for SQPOLL and
/// `uring.skip_ring_registration`), but no file and
/// no buffer is touched. A read or write completes with its length, an fsync
/// with 0: where the kernel has IORING_NOP_INJECT_RESULT the length comes
/// back in the CQE, as a real transfer's would; elsewhere the queue carries
/// it in the user_data and reports it itself.
///
/// Not `Send`, as [`crate::UringQueue`].
pub struct NopQueue {
    ring: Ring,
    buffers: SlotBuffers,
    inject: bool,
    /// The NOP every request starts from: copied into the request's SQ
    /// slot, then its length and user_data set there.
    base: squeue::Entry,
    note: String,
}

impl NopQueue {
    pub fn new(config: &QueueConfig) -> Result<NopQueue, EngineError> {
        let buffers = SlotBuffers::new(config)?;
        let mut ring = Ring::<squeue::Entry>::new(config.depth, RingMode::of(config))?;
        let inject = injects_result(&mut ring)
            .map_err(|e| EngineError::Setup(format!("io_uring NOP check failed: {e}")))?;
        let note = format!(
            "{}; NOP results {}",
            ring.note(),
            if inject {
                "injected by the kernel"
            } else {
                "filled in by the queue (no IORING_NOP_INJECT_RESULT)"
            }
        );
        Ok(NopQueue {
            ring,
            buffers,
            inject,
            base: nop_entry(0, 0, inject),
            note,
        })
    }

    /// True when the kernel puts each request's length in its CQE.
    pub fn kernel_injects_result(&self) -> bool {
        self.inject
    }

    /// The IORING_SETUP_* flags the kernel accepted (see
    /// [`crate::setup_flag_names`]).
    pub fn setup_flags(&self) -> u32 {
        self.ring.flags()
    }
}

/// A NOP whose user_data carries the slot (low half) and the length to report
/// (high half), asking the kernel to inject `len` as the result.
#[inline]
fn nop_entry(slot: u32, len: u32, inject: bool) -> squeue::Entry {
    let sqe = opcode::Nop::new()
        .build()
        .user_data(u64::from(slot) | u64::from(len) << 32);
    if !inject {
        return sqe;
    }
    // SAFETY: an SQE is 64 plain bytes (asserted above); writing two of its
    // u32 fields at their ABI offsets leaves it a valid SQE.
    let mut bytes: [u8; 64] = unsafe { std::mem::transmute(sqe) };
    bytes[SQE_LEN..SQE_LEN + 4].copy_from_slice(&len.to_ne_bytes());
    bytes[SQE_NOP_FLAGS..SQE_NOP_FLAGS + 4]
        .copy_from_slice(&IORING_NOP_INJECT_RESULT.to_ne_bytes());
    // SAFETY: as above.
    unsafe { std::mem::transmute::<[u8; 64], squeue::Entry>(bytes) }
}

/// The result a request's NOP completes with: its length, 0 for an fsync.
#[inline]
fn nop_len(req: &Request) -> u32 {
    if req.op.is_sync() {
        0
    } else {
        req.len
    }
}

/// Writes `req`'s NOP into an SQ slot: `base` (made by [`nop_entry`] with
/// the same `inject`), with the request's length and its user_data (slot in
/// the low half, length in the high half) set in place.
///
/// # Safety
///
/// `slot` must be an SQ ring slot the kernel does not read yet.
#[inline]
unsafe fn write_nop(slot: *mut squeue::Entry, base: &squeue::Entry, req: &Request, inject: bool) {
    let len = nop_len(req);
    // SAFETY: the slot is written whole first; then two of its fields are
    // set at their ABI offsets (an SQE is 64 plain bytes, asserted above).
    unsafe {
        slot.write(base.clone());
        (*slot).set_user_data(u64::from(req.slot) | u64::from(len) << 32);
        if inject {
            slot.cast::<u8>()
                .add(SQE_LEN)
                .cast::<u32>()
                .write_unaligned(len);
        }
    }
}

/// Sends one NOP that asks for an injected result and sees what comes back:
/// the kernel either honours the flag, ignores it (result 0) or refuses it.
fn injects_result(ring: &mut Ring) -> io::Result<bool> {
    const PROBE_LEN: u32 = 4096;
    // SAFETY: a NOP names no memory and no file.
    unsafe { ring.push(&nop_entry(0, PROBE_LEN, true))? };
    ring.commit()?;
    let mut result = 0;
    ring.reap(1, 1, |_, res| result = res)?;
    Ok(result == PROBE_LEN as i32)
}

impl Queue for NopQueue {
    const COMPLETES_IN_SUBMIT: bool = false;
    const WAITS_IN_SUBMIT: bool = true;

    #[inline(always)]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let (base, inject) = (&self.base, self.inject);
        // SAFETY: a NOP names no memory and no file.
        unsafe {
            self.ring
                .push_batch(1, |slot| write_nop(slot, base, req, inject))?
        };
        Ok(Submitted::Queued)
    }

    /// The whole batch goes into the SQ ring with its tail in a register:
    /// `ioscope peak -N1` measures this path.
    #[inline]
    fn submit_batch<M, D>(&mut self, count: u32, mut make: M, _done: D) -> io::Result<()>
    where
        M: FnMut() -> Request,
        D: FnMut(u32, i64),
    {
        let (base, inject) = (&self.base, self.inject);
        // SAFETY: a NOP names no memory and no file.
        unsafe {
            self.ring
                .push_batch(count, |slot| write_nop(slot, base, &make(), inject))
        }
    }

    #[inline(always)]
    fn commit(&mut self) -> io::Result<u32> {
        self.ring.commit()
    }

    #[inline(always)]
    fn submit_and_wait(&mut self, want: u32) -> io::Result<u32> {
        self.ring.submit_and_wait(want)
    }

    #[inline(always)]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let inject = self.inject;
        self.ring.reap(min, max, |data, res| {
            let result = if inject || res < 0 {
                i64::from(res)
            } else {
                (data >> 32) as i64
            };
            on_complete(Completion {
                slot: data as u32,
                result,
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

    fn refused_setup_flags(&self) -> Option<String> {
        self.ring.refused_flags()
    }

    fn calls(&self) -> (u64, u64) {
        self.ring.calls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uring::tests::config;
    use crate::Op;
    use crate::UringOptions;
    use ioscope_testutil::{part, require, setup, uring_setup};

    /// Keeps `depth` NOPs in flight for `total` requests, committing every
    /// `batch`, and checks that each completion names a slot in flight and
    /// carries the request's length. Requests go one by one through
    /// `submit` and, from the second half on, a batch at a time through
    /// `submit_batch`.
    fn churn(q: &mut NopQueue, depth: u32, batch: u32, total: u32) {
        let mut free: Vec<u32> = (0..depth).rev().collect();
        let mut len_of = vec![None; depth as usize];
        let mut returned = vec![0u32; depth as usize];
        let (mut sent, mut done, mut pending) = (0u32, 0u32, 0u32);
        let mut take = |c: Completion, free: &mut Vec<u32>, len_of: &mut Vec<Option<u32>>| {
            let len = len_of[c.slot as usize]
                .take()
                .unwrap_or_else(|| panic!("slot {} completed while not in flight", c.slot));
            assert_eq!(c.result, i64::from(len), "slot {}", c.slot);
            returned[c.slot as usize] += 1;
            free.push(c.slot);
        };
        // Lengths vary so a result from the wrong request shows.
        let request = |sent: u32, slot: u32| {
            let len = 512 * (sent % 8 + 1);
            let op = if sent % 50 == 49 { Op::Fsync } else { Op::Read };
            Request {
                op,
                file: 0,
                offset: 0,
                len,
                slot,
            }
        };
        while done < total {
            while sent >= total / 2 && sent < total && !free.is_empty() {
                let n = batch.min(free.len() as u32).min(total - sent);
                q.submit_batch(
                    n,
                    || {
                        let slot = free.pop().unwrap();
                        let req = request(sent, slot);
                        len_of[slot as usize] = Some(nop_len(&req));
                        sent += 1;
                        req
                    },
                    |slot, _| panic!("slot {slot} completed inside submit_batch"),
                )
                .unwrap();
                q.commit().unwrap();
            }
            while sent < total / 2 {
                let Some(slot) = free.pop() else { break };
                let req = request(sent, slot);
                len_of[slot as usize] = Some(nop_len(&req));
                assert_eq!(q.submit(&req).unwrap(), Submitted::Queued);
                sent += 1;
                pending += 1;
                if pending == batch {
                    q.commit().unwrap();
                    pending = 0;
                }
            }
            if pending > 0 {
                q.commit().unwrap();
                pending = 0;
            }
            let mut got = Vec::new();
            let n = q
                .reap(batch.min(q.in_flight()), depth, |c| got.push(c))
                .unwrap();
            assert_eq!(n as usize, got.len());
            for c in got {
                take(c, &mut free, &mut len_of);
                done += 1;
            }
        }
        assert_eq!(q.in_flight(), 0);
        assert!(len_of.iter().all(Option::is_none));
        assert!(
            returned.iter().all(|&n| n > 0),
            "every slot came back: {returned:?}"
        );
    }

    #[test]
    fn depth_128_batch_32_returns_every_slot() {
        let mut q = NopQueue::new(&config(128, false, UringOptions::default())).unwrap();
        churn(&mut q, 128, 32, 20_000);
    }

    #[test]
    fn results_are_right_without_kernel_injection_too() {
        let mut q = NopQueue::new(&config(32, false, UringOptions::default())).unwrap();
        q.inject = false;
        churn(&mut q, 32, 8, 2_000);
    }

    #[test]
    fn depth_one_and_polled_and_sqpoll_rings_work() {
        let mut variants = vec![
            (false, UringOptions::default()),
            (true, UringOptions::default()),
        ];
        if part!("the SQPOLL rings", uring_setup(setup::SQPOLL)).is_some() {
            let sqpoll = UringOptions {
                sqpoll: true,
                ..Default::default()
            };
            variants.push((false, sqpoll.clone()));
            variants.push((true, sqpoll));
        }
        for (hipri, opts) in variants {
            let mut q =
                NopQueue::new(&config(1, hipri, opts.clone())).unwrap_or_else(|e| panic!("{e}"));
            churn(&mut q, 1, 1, 500);
            let mut q = NopQueue::new(&config(16, hipri, opts)).unwrap();
            churn(&mut q, 16, 4, 2_000);
        }
    }

    /// The SQ thread posts completions before it moves the SQ head, so a
    /// shallow ring can look full right after a reap: submit must wait for
    /// the head rather than fail.
    #[test]
    fn sqpoll_at_small_depths_never_reports_a_full_ring() {
        require!(uring_setup(setup::SQPOLL));
        for depth in [1, 2, 4] {
            let opts = UringOptions {
                sqpoll: true,
                ..Default::default()
            };
            let mut q =
                NopQueue::new(&config(depth, false, opts)).unwrap_or_else(|e| panic!("{e}"));
            churn(&mut q, depth, 1, 200_000);
        }
    }

    /// Linux 6.10 and later honour IORING_NOP_INJECT_RESULT; this kernel
    /// (6.18) does.
    #[test]
    fn kernel_injects_the_result_on_recent_kernels() {
        let q = NopQueue::new(&config(4, false, UringOptions::default())).unwrap();
        let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
        unsafe { libc::uname(&mut uts) };
        let release = unsafe { std::ffi::CStr::from_ptr(uts.release.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mut parts = release.split(|c: char| !c.is_ascii_digit());
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if (major, minor) >= (6, 10) {
            assert!(q.kernel_injects_result(), "Linux {release}");
        }
        assert!(q.setup_note().unwrap().contains("NOP results"));
    }

    /// Every commit is one io_uring_enter; NOPs complete inside it, so
    /// reaps find them on the ring and need no call of their own. Without
    /// registration the ring still works, through its plain fd.
    /// NOPs complete inside the call that submits them: commit_and_reap
    /// takes each one with a single io_uring_enter, whatever it waits for.
    #[test]
    fn commit_and_reap_makes_one_call_per_request_at_qd1() {
        let mut q = NopQueue::new(&config(1, false, UringOptions::default())).unwrap();
        let before = q.calls();
        for i in 0..100u64 {
            let req = Request {
                op: Op::Read,
                file: 0,
                offset: i * 4096,
                len: 4096,
                slot: 0,
            };
            assert!(matches!(q.submit(&req).unwrap(), Submitted::Queued));
            let mut got = Vec::new();
            assert_eq!(q.commit_and_reap(1, 1, |c| got.push(c)).unwrap(), 1);
            assert_eq!(
                got,
                [Completion {
                    slot: 0,
                    result: 4096
                }]
            );
            assert_eq!(q.in_flight(), 0);
        }
        let (s, r) = q.calls();
        assert_eq!((s - before.0) + (r - before.1), 100);
    }

    #[test]
    fn counts_its_calls_with_or_without_a_registered_ring_fd() {
        for skip in [false, true] {
            let opts = UringOptions {
                skip_ring_registration: skip,
                ..Default::default()
            };
            let mut q = NopQueue::new(&config(32, false, opts)).unwrap();
            let note = q.setup_note().unwrap().to_string();
            assert_eq!(note.contains("ring fd not registered"), skip, "{note}");
            let (submits, reaps) = q.calls();
            churn(&mut q, 32, 8, 800);
            let (s, r) = q.calls();
            // 800 requests in batches of 8: 100 commits, a few more where
            // the free slots ran out mid-batch.
            assert!((100..=200).contains(&(s - submits)), "{s} - {submits}");
            assert!(r - reaps <= s - submits, "{r} - {reaps}");
        }
    }

    #[test]
    fn a_full_queue_is_an_error() {
        let mut q = NopQueue::new(&config(2, false, UringOptions::default())).unwrap();
        let req = |slot| Request {
            op: Op::Write,
            file: 0,
            offset: 0,
            len: 4096,
            slot,
        };
        q.submit(&req(0)).unwrap();
        q.submit(&req(1)).unwrap();
        let e = q.submit(&req(0)).unwrap_err();
        assert!(e.to_string().contains("queue full"), "{e}");
        let e = q
            .submit_batch(1, || req(0), |_, _| unreachable!())
            .unwrap_err();
        assert!(e.to_string().contains("queue full"), "{e}");
        assert_eq!(q.in_flight(), 2);
        // Reaping without a commit submits and waits.
        let mut got = Vec::new();
        assert_eq!(q.reap(2, 2, |c| got.push(c)).unwrap(), 2);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|c| c.result == 4096));
    }
}
