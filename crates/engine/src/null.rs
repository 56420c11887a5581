//! The null backend: no I/O, every request completes with its full length.

use std::io;

use crate::backend::QueueConfig;
use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::request::{Completion, Op, Request};

/// fio's `null` engine: measures the caller, not a device.
///
/// At depth 1 every request completes inside `submit`. At a greater depth
/// requests are queued, [`Queue::commit`] sends them, and [`Queue::reap`]
/// hands every sent one back at once, whatever `min` asks, since nothing is
/// ever outstanding. Reads and writes complete with their full length, fsync
/// with 0. No system call, no allocation and no wait happens per request.
/// Buffers are allocated as for any queue so callers can fill and check them.
pub struct NullQueue {
    buffers: SlotBuffers,
    depth: u32,
    /// A ring of `depth` completions in submission order: `sent` committed
    /// ones from `head`, then `queued` ones not yet committed.
    ring: Box<[Completion]>,
    head: u32,
    sent: u32,
    queued: u32,
}

impl NullQueue {
    pub fn new(config: &QueueConfig) -> Result<NullQueue, EngineError> {
        let buffers = SlotBuffers::new(config)?;
        Ok(NullQueue {
            buffers,
            depth: config.depth,
            ring: vec![Completion { slot: 0, result: 0 }; config.depth as usize].into_boxed_slice(),
            head: 0,
            sent: 0,
            queued: 0,
        })
    }
}

impl Queue for NullQueue {
    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let result = match req.op {
            Op::Read | Op::Write => i64::from(req.len),
            Op::Fsync => 0,
        };
        if self.depth == 1 {
            return Ok(Submitted::Completed(result));
        }
        if self.sent + self.queued == self.depth {
            return Err(queue_full(self.depth));
        }
        let at = (self.head + self.sent + self.queued) % self.depth;
        self.ring[at as usize] = Completion {
            slot: req.slot,
            result,
        };
        self.queued += 1;
        Ok(Submitted::Queued)
    }

    #[inline]
    fn commit(&mut self) -> io::Result<u32> {
        let n = self.queued;
        self.sent += n;
        self.queued = 0;
        Ok(n)
    }

    #[inline]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        _min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let n = self.sent.min(max);
        for i in 0..n {
            on_complete(self.ring[((self.head + i) % self.depth) as usize]);
        }
        self.head = (self.head + n) % self.depth;
        self.sent -= n;
        Ok(n)
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.sent + self.queued
    }
}

#[cold]
fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "null queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
}
