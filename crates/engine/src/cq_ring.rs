//! The completion side of an io_uring, read through a mapping of its own.
//!
//! The io-uring crate's `CompletionQueue` reads the shared head, tail and
//! ring size each time one is made and copies every CQE out; a reap of one
//! completion at QD1 paid for all of that. Here the head is this thread's
//! own copy, the tail is read once per drain, and only a CQE's user_data
//! and result are read, where they lie in both CQE sizes. The ring is
//! mapped at the CQ ring's own offset (with IORING_FEAT_SINGLE_MMAP the
//! kernel maps the same memory as the SQ ring's).

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

use io_uring::Parameters;

use crate::sq_ring::{raw_params, Mapping, IORING_OFF_CQ_RING};

/// The CQ ring of one io_uring.
pub(crate) struct CqRing {
    head: *const AtomicU32,
    tail: *const AtomicU32,
    cqes: *const u8,
    mask: u32,
    /// Bytes per CQE: 16, or 32 with IORING_SETUP_CQE32.
    stride: usize,
    /// The head as this thread last published it; only this thread moves it.
    local_head: u32,
    _ring: Mapping,
}

impl CqRing {
    /// Maps the CQ ring of the io_uring `fd` that `params` describes, whose
    /// CQEs are `cqe_size` bytes.
    pub(crate) fn map(fd: RawFd, params: &Parameters, cqe_size: usize) -> io::Result<CqRing> {
        let p = raw_params(params);
        let len = p.cq_off.sixth as usize + p.cq_entries as usize * cqe_size;
        let ring = Mapping::new(fd, IORING_OFF_CQ_RING, len)?;
        let head = ring.at(p.cq_off.head).cast::<AtomicU32>();
        // SAFETY: the kernel's offsets of the CQ ring's head and mask.
        let (mask, local_head) = unsafe {
            (
                *ring.at(p.cq_off.ring_mask).cast::<u32>(),
                (*head).load(Ordering::Relaxed),
            )
        };
        Ok(CqRing {
            head,
            tail: ring.at(p.cq_off.tail).cast::<AtomicU32>(),
            cqes: ring.at(p.cq_off.sixth),
            mask,
            stride: cqe_size,
            local_head,
            _ring: ring,
        })
    }

    /// CQEs waiting to be drained.
    #[inline(always)]
    pub(crate) fn ready(&self) -> u32 {
        // SAFETY: the tail is a u32 of the mapped ring.
        unsafe { (*self.tail).load(Ordering::Acquire) }.wrapping_sub(self.local_head)
    }

    /// Hands up to `max` CQEs (user_data, result) to `each`, in order, and
    /// gives their places back to the kernel. Returns how many.
    #[inline(always)]
    pub(crate) fn drain(&mut self, max: u32, each: &mut impl FnMut(u64, i32)) -> u32 {
        // SAFETY: the tail is a u32 of the mapped ring; Acquire makes the
        // CQEs below it visible.
        let tail = unsafe { (*self.tail).load(Ordering::Acquire) };
        let mut head = self.local_head;
        let mut n = 0;
        while n < max && head != tail {
            // SAFETY: the index is masked to the ring's size; user_data (a
            // u64) and res (an i32) open every CQE, whatever its size.
            let (data, res) = unsafe {
                let cqe = self.cqes.add((head & self.mask) as usize * self.stride);
                (
                    std::ptr::read(cqe.cast::<u64>()),
                    std::ptr::read(cqe.add(8).cast::<i32>()),
                )
            };
            each(data, res);
            head = head.wrapping_add(1);
            n += 1;
        }
        if n > 0 {
            // SAFETY: as above; Release: the CQEs are read before the
            // kernel may write over them.
            unsafe { (*self.head).store(head, Ordering::Release) };
            self.local_head = head;
        }
        n
    }
}
