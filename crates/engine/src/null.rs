//! The null backend: no I/O, every request completes with its full length.

use std::io;

use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Completion, Request};

use crate::descriptor::{any_shape, every_op, EngineDesc, EngineKind};

pub(crate) static NULL: EngineDesc = EngineDesc {
    name: "null",
    aliases: &[],
    help: "No I/O: measures ioscope itself",
    kind: EngineKind::Diskless,
    fio: true,
    ring: false,
    carries: every_op,
    options: &[],
    check: any_shape,
};

/// Builds the queue; the null engine has no files.
pub(crate) fn open(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<NullQueue, EngineError> {
    NullQueue::new(config)
}

/// fio's `null` engine: measures the caller, not a device.
///
/// At depth 1 every request completes inside `submit`. At a greater depth
/// requests are queued, [`Queue::commit`] sends them, and [`Queue::reap`]
/// hands every sent one back at once, whatever `min` and `max` ask, since
/// nothing is ever outstanding; until then the queue is [`Queue::busy`],
/// as fio's engine answers FIO_Q_BUSY, so that a job's depth is one batch.
/// Reads and writes complete with their full length, fsync
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
    // At depth 1 a request completes in `submit`, and its submission time
    // is taken before it.
    const COMPLETES_IN_SUBMIT: bool = true;

    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let result = if req.op.is_sync() {
            0
        } else {
            i64::from(req.len)
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

    /// Every sent request at once, whatever `max` says, as fio's
    /// null_getevents hands back all its events.
    #[inline]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        _min: u32,
        _max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let n = self.sent;
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

    /// As fio's null_queue: busy from a commit until the reap.
    #[inline]
    fn busy(&self) -> bool {
        self.sent > 0
    }
}

#[cold]
fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "null queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    fn config(depth: u32) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: 4096,
            buffer_align: 4096,
            hipri: false,
            ..QueueConfig::default()
        }
    }

    fn req(op: Op, len: u32, slot: u32) -> Request {
        Request {
            op,
            file: 0,
            offset: 0,
            len,
            slot,
        }
    }

    fn reap_all(q: &mut NullQueue, min: u32, max: u32) -> Vec<Completion> {
        let mut got = Vec::new();
        let n = q.reap(min, max, |c| got.push(c)).unwrap();
        assert_eq!(n as usize, got.len());
        got
    }

    /// The trait's own `submit_batch`: what completes inside submit goes
    /// to `done`, the rest is queued in order, and a batch larger than the
    /// room fails where `submit` would, keeping what went before.
    #[test]
    fn submit_batch_reports_what_completed_and_queues_the_rest() {
        let mut q = NullQueue::new(&config(1)).unwrap();
        let mut done = Vec::new();
        q.submit_batch(1, || req(Op::Read, 512, 0), |slot, r| done.push((slot, r)))
            .unwrap();
        assert_eq!(done, [(0, 512)]);

        let mut q = NullQueue::new(&config(8)).unwrap();
        let mut next = 0;
        let mut make = || {
            next += 1;
            req(Op::Write, 512 * next, next - 1)
        };
        q.submit_batch(5, &mut make, |slot, _| panic!("slot {slot} completed"))
            .unwrap();
        q.commit().unwrap();
        let got: Vec<_> = reap_all(&mut q, 0, 8)
            .iter()
            .map(|c| (c.slot, c.result))
            .collect();
        assert_eq!(got, [(0, 512), (1, 1024), (2, 1536), (3, 2048), (4, 2560)]);
        let e = q
            .submit_batch(9, &mut make, |slot, _| panic!("slot {slot} completed"))
            .unwrap_err();
        assert!(e.to_string().contains("queue full"), "{e}");
        q.commit().unwrap();
        assert_eq!(reap_all(&mut q, 0, 8).len(), 8);
    }

    #[test]
    fn depth_one_completes_in_submit() {
        let mut q = NullQueue::new(&config(1)).unwrap();
        assert_eq!(
            q.submit(&req(Op::Read, 4096, 0)).unwrap(),
            Submitted::Completed(4096)
        );
        assert_eq!(
            q.submit(&req(Op::Write, 512, 0)).unwrap(),
            Submitted::Completed(512)
        );
        assert_eq!(
            q.submit(&req(Op::Fsync, 0, 0)).unwrap(),
            Submitted::Completed(0)
        );
        assert_eq!(q.in_flight(), 0);
        assert_eq!(q.commit().unwrap(), 0);
        assert!(reap_all(&mut q, 1, 1).is_empty());
    }

    #[test]
    fn depth_eight_batches_through_commit_and_reap() {
        let mut q = NullQueue::new(&config(8)).unwrap();
        for slot in 0..8 {
            let op = if slot == 7 { Op::Fsync } else { Op::Read };
            assert_eq!(
                q.submit(&req(op, 1000 + slot, slot)).unwrap(),
                Submitted::Queued
            );
        }
        assert_eq!(q.in_flight(), 8);
        assert!(
            q.submit(&req(Op::Read, 1, 0)).is_err(),
            "a ninth request exceeds the depth"
        );
        // Nothing comes back before commit, and the queue is not busy.
        assert!(reap_all(&mut q, 0, 8).is_empty());
        assert!(!q.busy());
        assert_eq!(q.commit().unwrap(), 8);
        assert_eq!(q.in_flight(), 8);
        assert!(q.busy(), "fio's null engine answers BUSY until the reap");

        // As fio's null_getevents: all of them, whatever max asks.
        let all = reap_all(&mut q, 1, 3);
        assert_eq!(all.len(), 8);
        assert_eq!(
            all[..3],
            (0..3)
                .map(|s| Completion {
                    slot: s,
                    result: 1000 + i64::from(s)
                })
                .collect::<Vec<_>>()
        );
        assert_eq!(
            all[7],
            Completion { slot: 7, result: 0 },
            "fsync completes with 0"
        );
        assert_eq!(q.in_flight(), 0);
        assert!(!q.busy());
    }

    #[test]
    fn only_committed_requests_are_reaped_and_the_ring_wraps() {
        let mut q = NullQueue::new(&config(8)).unwrap();
        let mut next_slot = 0u32;
        let mut expected = std::collections::VecDeque::new();
        for round in 0..50u32 {
            let batch = round % 5 + 1;
            for _ in 0..batch {
                q.submit(&req(Op::Write, next_slot + 1, next_slot % 8))
                    .unwrap();
                expected.push_back(next_slot);
                next_slot += 1;
            }
            assert_eq!(q.commit().unwrap(), batch);
            // One more request queued but not committed stays behind.
            q.submit(&req(Op::Read, 7, 0)).unwrap();
            for c in reap_all(&mut q, 1, 8) {
                let n = expected.pop_front().unwrap();
                assert_eq!(
                    c,
                    Completion {
                        slot: n % 8,
                        result: i64::from(n) + 1
                    }
                );
            }
            assert_eq!(q.in_flight(), 1);
            assert_eq!(q.commit().unwrap(), 1);
            assert_eq!(
                reap_all(&mut q, 1, 1),
                vec![Completion { slot: 0, result: 7 }]
            );
        }
        assert!(expected.is_empty());
    }

    #[test]
    fn buffers_are_per_slot() {
        let mut q = NullQueue::new(&config(4)).unwrap();
        for s in 0..4 {
            q.buffer(s).fill(s as u8);
        }
        for s in 0..4 {
            assert_eq!(q.buffer(s).len(), 4096);
            assert!(q.buffer(s).iter().all(|&b| b == s as u8));
        }
    }
}
