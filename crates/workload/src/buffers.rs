//! Write-buffer contents: zeroes, random data scrambled per write, or refilled.

use ioscope_job::JobSpec;

pub struct BufferFiller {
    _todo: (),
}

impl BufferFiller {
    pub fn new(_spec: &JobSpec, _worker: u32) -> BufferFiller {
        todo!()
    }
    /// Fills a buffer once, when the queue is set up.
    pub fn init(&mut self, _buf: &mut [u8]) {
        todo!()
    }
    /// Makes `buf` ready for a write of its length at `offset`: nothing for
    /// zero_buffers, a cheap scramble by default, fresh random data with
    /// refill_buffers.
    #[inline]
    pub fn prepare_write(&mut self, _buf: &mut [u8], _offset: u64) {
        todo!()
    }
}
