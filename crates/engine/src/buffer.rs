//! Aligned, zero-initialised memory for I/O buffers, allocated once per queue.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::buffer_memory::{BufferMemory, MemoryKind, Region};
use crate::error::EngineError;
use crate::queue_config::QueueConfig;

/// A block of memory aligned for O_DIRECT.
///
/// One allocation, zeroed, freed on drop. It owns its memory the way a
/// `Box<[u8]>` does, so it can move between threads.
///
/// Buffers of 1 MiB or more (`MAP_THRESHOLD`) with at most page alignment
/// are anonymous mappings: the kernel hands out zeroed pages as they are
/// first touched, where the allocator would write zeroes over the whole
/// buffer up front (an aligned allocation cannot come from calloc). Large
/// blocks at a high depth (64 × 16 MiB) are then filled once, not twice.
pub struct AlignedBuffer {
    ptr: NonNull<u8>,
    len: usize,
    align: usize,
    mapped: bool,
    /// Memory of a `mem=` kind other than the heap, which frees itself.
    region: Option<Region>,
}

/// The size from which buffers are mapped rather than allocated.
const MAP_THRESHOLD: usize = 1 << 20;

// SAFETY: the buffer exclusively owns its allocation and hands out access only
// through `&self`/`&mut self`, exactly like `Box<[u8]>`.
unsafe impl Send for AlignedBuffer {}
// SAFETY: shared access is read-only (`as_slice`), as for `Box<[u8]>`.
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// Allocates `len` zeroed bytes starting at a multiple of `align`.
    ///
    /// # Panics
    ///
    /// When `align` is not a power of two or `len` rounded up to `align`
    /// overflows (as `Layout` would); aborts when memory runs out, as `Vec`
    /// does. Use [`AlignedBuffer::try_new`] for sizes that come from a user.
    pub fn new(len: usize, align: usize) -> AlignedBuffer {
        match Layout::from_size_align(len, align) {
            Ok(layout) => match Self::alloc(layout) {
                Some(buffer) => buffer,
                None => alloc::handle_alloc_error(layout),
            },
            Err(_) => panic!(
                "AlignedBuffer: alignment {align} is not a power of two or {len} bytes overflow"
            ),
        }
    }

    /// Like [`AlignedBuffer::new`], but a bad alignment or a failed
    /// allocation is an error that says what to change.
    pub fn try_new(len: usize, align: usize) -> Result<AlignedBuffer, EngineError> {
        let layout = Layout::from_size_align(len, align).map_err(|_| {
            EngineError::Setup(format!(
                "buffer alignment {align} is not a power of two (or {len} bytes is too large); \
                 use a power-of-two alignment such as 4096"
            ))
        })?;
        Self::alloc(layout).ok_or_else(|| {
            EngineError::Setup(format!(
                "cannot allocate {len} bytes of I/O buffers; lower the queue depth or the block size"
            ))
        })
    }

    fn alloc(layout: Layout) -> Option<AlignedBuffer> {
        if layout.size() >= MAP_THRESHOLD && layout.align() <= page_size() {
            return Self::map(layout);
        }
        let ptr = if layout.size() == 0 {
            // The global allocator must not be asked for zero bytes; an
            // aligned dangling pointer is a valid empty slice.
            NonNull::new(layout.align() as *mut u8)?
        } else {
            // SAFETY: the layout has a non-zero size.
            NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?
        };
        Some(AlignedBuffer {
            ptr,
            len: layout.size(),
            align: layout.align(),
            mapped: false,
            region: None,
        })
    }

    /// An anonymous private mapping: page aligned, and zero until written.
    fn map(layout: Layout) -> Option<AlignedBuffer> {
        // SAFETY: a fresh anonymous mapping names no file and overlaps
        // nothing; the result is checked before use.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return None;
        }
        Some(AlignedBuffer {
            ptr: NonNull::new(addr.cast::<u8>())?,
            len: layout.size(),
            align: layout.align(),
            mapped: true,
            region: None,
        })
    }

    /// `len` zeroed bytes of the memory `mem` names, aligned to `align`
    /// (the non-heap kinds are page aligned, huge ones huge-page aligned).
    pub fn in_memory(
        len: usize,
        align: usize,
        mem: &BufferMemory,
    ) -> Result<AlignedBuffer, EngineError> {
        if mem.kind == MemoryKind::Heap {
            Self::try_new(len, align)
        } else {
            let region = Region::new(mem, len)?;
            if !(region.ptr.as_ptr() as usize).is_multiple_of(align) {
                return Err(EngineError::Setup(format!(
                    "the {:?} buffer memory is not aligned to {align} bytes; use mem=malloc",
                    mem.kind
                )));
            }
            Ok(AlignedBuffer {
                ptr: region.ptr,
                len,
                align,
                mapped: false,
                region: Some(region),
            })
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialised (zeroed) bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Bytes in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The system's page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the system.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // A region unmaps or detaches itself.
        if self.region.is_none() && self.mapped {
            // SAFETY: mapped in `map` with exactly this length; nothing
            // refers to it once the buffer is dropped.
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
        } else if self.region.is_none() && self.len != 0 {
            // SAFETY: allocated in `alloc` with exactly this size and alignment.
            unsafe {
                alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.len, self.align),
                )
            };
        }
    }
}

/// The buffers of one queue: `depth` slots of `slot_size` bytes in one
/// aligned allocation. Slot `i` starts at `i * stride`, where the stride is
/// the slot size rounded up to the alignment (the same as the slot size for
/// the usual power-of-two block sizes), so every slot is aligned as asked.
pub(crate) struct SlotBuffers {
    memory: AlignedBuffer,
    /// Where slot 0 starts (fio `iomem_align`).
    first: usize,
    slot_size: usize,
    stride: usize,
    slots: u32,
}

impl SlotBuffers {
    pub(crate) fn new(config: &QueueConfig) -> Result<SlotBuffers, EngineError> {
        if config.depth == 0 {
            return Err(EngineError::Setup(
                "queue depth 0: a queue needs at least one slot (iodepth=1 or more)".into(),
            ));
        }
        if !config.buffer_align.is_power_of_two() {
            return Err(EngineError::Setup(format!(
                "buffer alignment {} is not a power of two; use one such as 4096",
                config.buffer_align
            )));
        }
        let too_big = || {
            EngineError::Setup(format!(
                "{} slots of {} bytes do not fit in memory; lower the queue depth or the block size",
                config.depth, config.buffer_size
            ))
        };
        let stride = config
            .buffer_size
            .checked_next_multiple_of(config.buffer_align)
            .ok_or_else(too_big)?;
        let first = config.memory.offset;
        let total = stride
            .checked_mul(config.depth as usize)
            .and_then(|t| t.checked_add(first))
            .ok_or_else(too_big)?;
        Ok(SlotBuffers {
            memory: AlignedBuffer::in_memory(total, config.buffer_align, &config.memory)?,
            first,
            slot_size: config.buffer_size,
            stride,
            slots: config.depth,
        })
    }

    /// The bytes of one slot.
    ///
    /// # Panics
    ///
    /// When `slot` is not below the queue depth: that is a bug in the caller.
    pub(crate) fn slot(&mut self, slot: u32) -> &mut [u8] {
        assert!(
            slot < self.slots,
            "buffer slot {slot} out of range (queue depth {})",
            self.slots
        );
        let start = self.first + slot as usize * self.stride;
        &mut self.memory.as_mut_slice()[start..start + self.slot_size]
    }

    /// Where the kernel may move `len` bytes for `slot`, or `None` when the
    /// slot or the length lies outside the buffers (a bug in the caller that
    /// must not turn into a write to memory we do not own).
    #[inline]
    pub(crate) fn io_ptr(&mut self, slot: u32, len: u32) -> Option<*mut u8> {
        if slot >= self.slots || len as usize > self.slot_size {
            return None;
        }
        let start = self.first + slot as usize * self.stride;
        Some(self.memory.as_mut_slice()[start..].as_mut_ptr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(depth: u32, size: usize, align: usize) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: size,
            buffer_align: align,
            hipri: false,
            ..QueueConfig::default()
        }
    }

    #[test]
    fn large_buffers_are_mapped_unless_aligned_beyond_a_page() {
        for len in [MAP_THRESHOLD, 3 * MAP_THRESHOLD + 512] {
            for align in [512, 4096, 1 << 21] {
                let mut b = AlignedBuffer::new(len, align);
                assert_eq!(b.mapped, align <= page_size(), "len {len} align {align}");
                assert_eq!(b.as_slice().as_ptr() as usize % align, 0, "align {align}");
                assert_eq!(b.len(), len);
                assert!(b.as_slice().iter().all(|&x| x == 0));
                b.as_mut_slice().fill(0x5a);
                assert!(b.as_slice().iter().all(|&x| x == 0x5a));
            }
        }
        assert!(!AlignedBuffer::new(MAP_THRESHOLD - 1, 4096).mapped);
    }

    #[test]
    fn buffer_is_aligned_zeroed_and_writable() {
        for align in [1, 512, 4096, 1 << 21] {
            let mut b = AlignedBuffer::new(12288, align);
            assert_eq!(b.as_slice().as_ptr() as usize % align, 0, "align {align}");
            assert_eq!(b.len(), 12288);
            assert!(b.as_slice().iter().all(|&x| x == 0));
            b.as_mut_slice().fill(0xa5);
            assert!(b.as_slice().iter().all(|&x| x == 0xa5));
        }
    }

    #[test]
    fn empty_buffer_needs_no_allocation() {
        let b = AlignedBuffer::new(0, 4096);
        assert!(b.is_empty());
        assert_eq!(b.as_slice().as_ptr() as usize % 4096, 0);
    }

    #[test]
    fn bad_alignment_is_an_error_not_a_panic() {
        let e = AlignedBuffer::try_new(4096, 3)
            .err()
            .expect("align 3 must fail");
        assert!(e.to_string().contains("not a power of two"), "{e}");
    }

    #[test]
    fn buffer_moves_between_threads() {
        let mut b = AlignedBuffer::new(4096, 4096);
        b.as_mut_slice()[0] = 7;
        let b = std::thread::spawn(move || b).join().unwrap();
        assert_eq!(b.as_slice()[0], 7);
    }

    #[test]
    fn slots_are_disjoint_and_each_aligned() {
        let mut s = SlotBuffers::new(&config(4, 8192, 4096)).unwrap();
        for i in 0..4u32 {
            let slot = s.slot(i);
            assert_eq!(slot.len(), 8192);
            assert_eq!(slot.as_ptr() as usize % 4096, 0);
            slot.fill(i as u8 + 1);
        }
        for i in 0..4u32 {
            assert!(s.slot(i).iter().all(|&x| x == i as u8 + 1));
        }
        assert!(s.io_ptr(3, 8192).is_some());
        assert!(s.io_ptr(4, 1).is_none());
        assert!(s.io_ptr(0, 8193).is_none());
    }

    #[test]
    fn odd_slot_sizes_keep_every_slot_aligned() {
        let mut s = SlotBuffers::new(&config(3, 1000, 512)).unwrap();
        for i in 0..3u32 {
            let slot = s.slot(i);
            assert_eq!(slot.len(), 1000);
            assert_eq!(slot.as_ptr() as usize % 512, 0, "slot {i}");
        }
    }

    #[test]
    fn slot_setup_errors() {
        let e = SlotBuffers::new(&config(0, 4096, 4096)).err().unwrap();
        assert!(e.to_string().contains("queue depth 0"), "{e}");
        let e = SlotBuffers::new(&config(2, 4096, 0)).err().unwrap();
        assert!(e.to_string().contains("not a power of two"), "{e}");
        let e = SlotBuffers::new(&config(u32::MAX, usize::MAX / 2, 1))
            .err()
            .unwrap();
        assert!(e.to_string().contains("do not fit"), "{e}");
    }
}
