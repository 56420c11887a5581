//! The submission side of an io_uring, written through a mapping of its own.
//!
//! The io-uring crate's `SubmissionQueue` re-reads the shared tail each
//! time one is made and publishes it when dropped, so with it every request
//! either costs an SQ ring update or goes through a staging copy. Here SQEs
//! are written straight into their slots and the tail is published once per
//! batch, as t/io_uring and liburing do. The ring is mapped a second time
//! (the kernel allows any number of mappings of it); the crate's own mapping
//! keeps serving the CQ ring, registration and the opcode builders.

use std::io;
use std::marker::PhantomData;
use std::os::fd::RawFd;
use std::sync::atomic::{fence, AtomicU32, Ordering};

use io_uring::{squeue, Parameters};

/// mmap offsets of the SQ ring and of the SQE array (include/uapi/linux/io_uring.h).
const IORING_OFF_SQ_RING: libc::off_t = 0;
pub(crate) const IORING_OFF_CQ_RING: libc::off_t = 0x800_0000;
const IORING_OFF_SQES: libc::off_t = 0x1000_0000;
const IORING_FEAT_SINGLE_MMAP: u32 = 1 << 0;
const IORING_SQ_NEED_WAKEUP: u32 = 1 << 0;
const IORING_SQ_CQ_OVERFLOW: u32 = 1 << 1;
const IORING_SQ_TASKRUN: u32 = 1 << 2;

/// `struct io_uring_params` as the kernel lays it out; `Parameters` is a
/// transparent wrapper of the same struct, which has no getters for the
/// ring offsets.
#[repr(C)]
pub(crate) struct RawParams {
    pub(crate) sq_entries: u32,
    pub(crate) cq_entries: u32,
    pub(crate) flags: u32,
    pub(crate) sq_thread_cpu: u32,
    pub(crate) sq_thread_idle: u32,
    pub(crate) features: u32,
    pub(crate) wq_fd: u32,
    pub(crate) resv: [u32; 3],
    pub(crate) sq_off: RingOffsets,
    pub(crate) cq_off: RingOffsets,
}

/// `struct io_sqring_offsets` and `struct io_cqring_offsets` share this
/// shape; only the SQ fields and the CQ's `cqes` (the sixth word) are read.
#[repr(C)]
pub(crate) struct RingOffsets {
    pub(crate) head: u32,
    pub(crate) tail: u32,
    pub(crate) ring_mask: u32,
    pub(crate) ring_entries: u32,
    pub(crate) flags: u32,
    /// `dropped` for the SQ ring, `cqes` for the CQ ring.
    pub(crate) sixth: u32,
    /// `array` for the SQ ring, `flags` for the CQ ring.
    pub(crate) seventh: u32,
    pub(crate) resv1: u32,
    pub(crate) user_addr: u64,
}

const _: () = assert!(std::mem::size_of::<RawParams>() == 120);
const _: () = assert!(std::mem::size_of::<Parameters>() == std::mem::size_of::<RawParams>());

/// One shared mapping, unmapped on drop.
pub(crate) struct Mapping {
    addr: *mut libc::c_void,
    len: usize,
}

impl Mapping {
    pub(crate) fn new(fd: RawFd, offset: libc::off_t, len: usize) -> io::Result<Mapping> {
        // SAFETY: a fresh shared mapping of the ring's memory; nothing else
        // is placed at the address the kernel picks.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                offset,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping { addr, len })
    }

    /// The address `offset` bytes in.
    pub(crate) fn at(&self, offset: u32) -> *mut u8 {
        debug_assert!((offset as usize) < self.len);
        // SAFETY: the offsets come from the kernel and lie inside the ring.
        unsafe { self.addr.cast::<u8>().add(offset as usize) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `new` and nothing refers to it now.
        unsafe { libc::munmap(self.addr, self.len) };
    }
}

/// The kernel's `io_uring_params` behind the crate's `Parameters`.
pub(crate) fn raw_params(params: &Parameters) -> &RawParams {
    // SAFETY: `Parameters` is `#[repr(transparent)]` over the kernel's
    // `struct io_uring_params`, whose layout `RawParams` spells out (the
    // sizes are asserted above).
    unsafe { &*(params as *const Parameters).cast::<RawParams>() }
}

/// The SQ ring: SQEs written at the local tail, published by [`SqRing::publish`].
pub(crate) struct SqRing<S: squeue::EntryMarker> {
    head: *const AtomicU32,
    tail: *const AtomicU32,
    flags: *const AtomicU32,
    sqes: *mut S,
    mask: u32,
    entries: u32,
    /// Where the next SQE goes; the kernel sees entries up to `published`.
    local_tail: u32,
    published: u32,
    /// The head as last read. The kernel only moves it forward, so the
    /// room counted from it is never more than there is.
    cached_head: u32,
    _ring: Mapping,
    _sqes: Mapping,
    _entry: PhantomData<S>,
}

impl<S: squeue::EntryMarker> SqRing<S> {
    /// Maps the SQ ring of the io_uring `fd` that `params` describes.
    pub(crate) fn map(fd: RawFd, params: &Parameters, cqe_size: usize) -> io::Result<SqRing<S>> {
        let p = raw_params(params);
        // The sizes liburing and the io-uring crate map: with a single
        // mapping the SQ and CQ rings share one, as long as the larger.
        let sq_len = p.sq_off.seventh as usize + p.sq_entries as usize * 4;
        let cq_len = p.cq_off.sixth as usize + p.cq_entries as usize * cqe_size;
        let ring_len = if p.features & IORING_FEAT_SINGLE_MMAP != 0 {
            sq_len.max(cq_len)
        } else {
            sq_len
        };
        let ring = Mapping::new(fd, IORING_OFF_SQ_RING, ring_len)?;
        let sqes = Mapping::new(
            fd,
            IORING_OFF_SQES,
            p.sq_entries as usize * std::mem::size_of::<S>(),
        )?;
        let head = ring.at(p.sq_off.head).cast::<AtomicU32>();
        let tail = ring.at(p.sq_off.tail).cast::<AtomicU32>();
        // SAFETY: the kernel's offsets of two u32 fields of the SQ ring.
        let (mask, entries) = unsafe {
            (
                *ring.at(p.sq_off.ring_mask).cast::<u32>(),
                *ring.at(p.sq_off.ring_entries).cast::<u32>(),
            )
        };
        // SAFETY: as above; only this thread writes the tail.
        let (now_head, now_tail) = unsafe {
            (
                (*head).load(Ordering::Acquire),
                (*tail).load(Ordering::Relaxed),
            )
        };
        Ok(SqRing {
            head,
            tail,
            flags: ring.at(p.sq_off.flags).cast::<AtomicU32>(),
            sqes: sqes.addr.cast::<S>(),
            mask,
            entries,
            local_tail: now_tail,
            published: now_tail,
            cached_head: now_head,
            _ring: ring,
            _sqes: sqes,
            _entry: PhantomData,
        })
    }

    /// The slot for one more SQE, or `None` when the ring is full (only an
    /// SQ thread that has not yet moved the head leaves it so).
    #[inline]
    pub(crate) fn next_slot(&mut self) -> Option<*mut S> {
        if self.local_tail.wrapping_sub(self.cached_head) == self.entries {
            // SAFETY: the head is a u32 of the mapped ring.
            self.cached_head = unsafe { (*self.head).load(Ordering::Acquire) };
            if self.local_tail.wrapping_sub(self.cached_head) == self.entries {
                return None;
            }
        }
        let index = (self.local_tail & self.mask) as usize;
        self.local_tail = self.local_tail.wrapping_add(1);
        // SAFETY: `index` is masked to the ring's size.
        Some(unsafe { self.sqes.add(index) })
    }

    /// The slots for `count` more SQEs, or `None` when fewer are free.
    #[inline]
    pub(crate) fn slots(&mut self, count: u32) -> Option<impl Iterator<Item = *mut S>> {
        if self.entries - self.local_tail.wrapping_sub(self.cached_head) < count {
            // SAFETY: the head is a u32 of the mapped ring.
            self.cached_head = unsafe { (*self.head).load(Ordering::Acquire) };
            if self.entries - self.local_tail.wrapping_sub(self.cached_head) < count {
                return None;
            }
        }
        let (start, mask, sqes) = (self.local_tail, self.mask, self.sqes);
        self.local_tail = start.wrapping_add(count);
        // SAFETY: each index is masked to the ring's size.
        Some((0..count).map(move |i| unsafe { sqes.add((start.wrapping_add(i) & mask) as usize) }))
    }

    /// Lets the kernel see every SQE written so far. Returns how many
    /// became visible.
    #[inline]
    pub(crate) fn publish(&mut self) -> u32 {
        let n = self.local_tail.wrapping_sub(self.published);
        if n > 0 {
            // SAFETY: the tail is a u32 of the mapped ring; Release makes
            // the SQEs visible before the tail that covers them.
            unsafe { (*self.tail).store(self.local_tail, Ordering::Release) };
            self.published = self.local_tail;
        }
        n
    }

    /// True when the SQ thread sleeps and needs IORING_ENTER_SQ_WAKEUP.
    /// The fence orders the tail published before against the flag read,
    /// as the kernel orders its flag write against its tail read.
    #[inline]
    pub(crate) fn need_wakeup(&self) -> bool {
        fence(Ordering::SeqCst);
        self.flag(Ordering::Relaxed) & IORING_SQ_NEED_WAKEUP != 0
    }

    /// True when completions are waiting that the CQ ring does not show:
    /// deferred task work, or an overflowed CQ ring.
    #[inline]
    pub(crate) fn completions_pending(&self) -> bool {
        self.flag(Ordering::Acquire) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW) != 0
    }

    #[inline]
    fn flag(&self, order: Ordering) -> u32 {
        // SAFETY: the flags are a u32 of the mapped ring.
        unsafe { (*self.flags).load(order) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use io_uring::{cqueue, opcode, IoUring};
    use std::os::fd::AsRawFd;

    /// NOPs written through the second mapping are what the kernel runs:
    /// every one completes, with its own user_data, and the head it
    /// reports catches up with the published tail.
    #[test]
    fn sqes_written_through_the_second_mapping_reach_the_kernel() {
        let mut ring: IoUring = IoUring::builder().build(8).unwrap();
        let mut sq = SqRing::<squeue::Entry>::map(
            ring.as_raw_fd(),
            ring.params(),
            std::mem::size_of::<cqueue::Entry>(),
        )
        .unwrap();
        assert_eq!(sq.entries, 8);
        let mut seen = Vec::new();
        for round in 0..5u64 {
            for i in 0..8u64 {
                let nop = opcode::Nop::new().build().user_data(round * 8 + i);
                let slot = sq.next_slot().expect("room for the ring's entries");
                unsafe { slot.write(nop) };
            }
            // The ring is full until the kernel takes the batch.
            assert!(sq.next_slot().is_none());
            assert_eq!(sq.publish(), 8);
            assert_eq!(sq.publish(), 0);
            ring.submitter().submit_and_wait(8).unwrap();
            seen.extend(ring.completion().map(|c| c.user_data()));
        }
        // A batch's slots: all of them or none.
        assert!(sq.slots(9).is_none());
        let slots: Vec<_> = sq.slots(6).unwrap().collect();
        assert!(sq.slots(3).is_none());
        for (i, slot) in slots.into_iter().enumerate() {
            unsafe { slot.write(opcode::Nop::new().build().user_data(40 + i as u64)) };
        }
        assert_eq!(sq.publish(), 6);
        ring.submitter().submit_and_wait(6).unwrap();
        seen.extend(ring.completion().map(|c| c.user_data()));
        seen.sort_unstable();
        assert_eq!(seen, (0..46).collect::<Vec<_>>());
        assert!(!sq.completions_pending());
        assert!(!sq.need_wakeup());
    }
}
