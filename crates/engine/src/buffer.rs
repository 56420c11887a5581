//! Aligned, zero-initialised memory for I/O buffers, allocated once per queue.

/// A block of memory aligned for O_DIRECT.
pub struct AlignedBuffer {
    _todo: (),
}

impl AlignedBuffer {
    pub fn new(_len: usize, _align: usize) -> AlignedBuffer {
        todo!()
    }
    pub fn as_slice(&self) -> &[u8] {
        todo!()
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        todo!()
    }
}
