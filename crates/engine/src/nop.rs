//! The NOP backend: every request is an IORING_OP_NOP, so a run measures the
//! ring itself (t/io_uring's `-N1` mode), not a device.

use std::io;

use io_uring::{opcode, squeue};

use crate::backend::QueueConfig;
use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::request::{Completion, Op, Request};
use crate::uring::{Ring, RingMode};

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
/// flags, hipri for IOPOLL and `uring.sqpoll` for SQPOLL), but no file and
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
    note: String,
}

impl NopQueue {
    pub fn new(config: &QueueConfig) -> Result<NopQueue, EngineError> {
        let buffers = SlotBuffers::new(config)?;
        let mut ring = Ring::new(
            config.depth,
            RingMode {
                iopoll: config.hipri,
                sqpoll: config.uring.sqpoll,
                sqpoll_cpu: config.uring.sqpoll_cpu,
                sqpoll_idle_ms: config.uring.sqpoll_idle_ms,
            },
        )?;
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
    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let len = match req.op {
            Op::Read | Op::Write => req.len,
            Op::Fsync => 0,
        };
        // SAFETY: a NOP names no memory and no file.
        unsafe { self.ring.push(&nop_entry(req.slot, len, self.inject))? };
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
}
