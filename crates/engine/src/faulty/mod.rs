//! A queue that injects faults into another backend's queue, so that a test
//! can prove that verify catches each kind of corruption and error.

use std::io;

use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::{FaultConfig, FaultKind};
use crate::request::{Completion, Op, Request};

/// The faulty engine: another engine (its `fault_engine`) whose queue is
/// wrapped in a [`FaultyQueue`]. The wrapped engine says what is carried
/// and refused.
pub(crate) static FAULTY: EngineDesc = EngineDesc {
    name: "faulty",
    aliases: &[],
    help: "ioscope only, for testing verify: another engine (fault_engine) with faults injected (fault, fault_rate)",
    kind: EngineKind::Wrapper,
    fio: false,
    ring: false,
    carries: data_ops,
    options: &["fault", "fault_rate", "fault_engine"],
    check: any_shape,
};

impl FaultKind {
    /// Whether a request with `op` can get this kind of fault.
    fn applies_to(self, op: Op) -> bool {
        match self {
            FaultKind::ShortRead | FaultKind::ReadError => op == Op::Read,
            FaultKind::BitFlip
            | FaultKind::DropWrite
            | FaultKind::Misdirect
            | FaultKind::TornWrite
            | FaultKind::WriteError => op == Op::Write,
        }
    }
}

/// splitmix64: one add and three multiply-xorshifts per number, no state
/// beyond a u64, and every seed (0 included) gives a full-period stream.
#[derive(Clone, Copy, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The random numbers are cut to 53 bits, so that `percent / 100 * 2^53`
/// is exact enough and 100% (2^53) exceeds every draw.
const CHOICE_BITS: u32 = 53;

/// How a request's completion is changed when it comes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rewrite {
    Untouched,
    /// ShortRead: report at most this many bytes.
    Cap(u32),
    /// TornWrite: `sent` bytes went out; report `full` when they all landed.
    Stretch {
        sent: u32,
        full: u32,
    },
}

impl Rewrite {
    #[inline]
    fn apply(self, result: i64) -> i64 {
        match self {
            Rewrite::Untouched => result,
            Rewrite::Cap(cap) => result.min(i64::from(cap)),
            Rewrite::Stretch { sent, full } if result == i64::from(sent) => i64::from(full),
            Rewrite::Stretch { .. } => result,
        }
    }
}

/// Wraps another backend's queue and injects one [`FaultKind`] into a
/// share of the eligible requests (reads for the read faults, writes for
/// the others; fsync, trim and write-zeroes always pass through).
///
/// It exists to test verify and is used only when asked for by name
/// ([`crate::QueueConfig::fault`]). Each eligible request draws one number
/// from a seeded PRNG to decide, so the same seed faults the same requests
/// of the same sequence. Nothing is allocated per request.
///
/// A request that is never sent (a dropped write, an error, a torn write
/// too short to send any part of) completes inside [`Queue::submit`] when
/// the inner queue is synchronous. Otherwise `submit` answers
/// [`Submitted::Queued`] and the completion is held until the next
/// [`Queue::reap`], which hands it out before the inner queue's; it counts
/// in [`Queue::in_flight`] until then.
pub struct FaultyQueue<Q: Queue> {
    inner: Q,
    kind: FaultKind,
    /// A draw below this (after the shift to [`CHOICE_BITS`]) is a fault.
    threshold: u64,
    rng: SplitMix64,
    synchronous: bool,
    depth: u32,
    /// Per slot: what to do to the completion of the request sent from it.
    rewrites: Box<[Rewrite]>,
    /// Completions of requests that were not sent, for the next reap
    /// (asynchronous inner queues only).
    held: Box<[Completion]>,
    held_len: u32,
    injected: u64,
}

impl<Q: Queue> FaultyQueue<Q> {
    /// Wraps `inner`, whose buffers are `depth` slots. `synchronous` says
    /// that `inner` completes every request inside `submit` (see
    /// [`crate::Backend::is_sync`]), so unsent requests can complete there
    /// too.
    pub fn new(
        inner: Q,
        fault: FaultConfig,
        depth: u32,
        synchronous: bool,
    ) -> Result<FaultyQueue<Q>, EngineError> {
        if !(0.0..=100.0).contains(&fault.percent) {
            return Err(EngineError::Setup(format!(
                "fault percentage {} is outside 0 to 100",
                fault.percent
            )));
        }
        let threshold = (fault.percent / 100.0 * (1u64 << CHOICE_BITS) as f64) as u64;
        let held = if synchronous { 0 } else { depth as usize };
        Ok(FaultyQueue {
            inner,
            kind: fault.kind,
            threshold,
            rng: SplitMix64(fault.seed),
            synchronous,
            depth,
            rewrites: vec![Rewrite::Untouched; depth as usize].into_boxed_slice(),
            held: vec![Completion { slot: 0, result: 0 }; held].into_boxed_slice(),
            held_len: 0,
            injected: 0,
        })
    }

    /// Completes a request without sending it: at once for a synchronous
    /// inner queue, else from the next reap.
    fn complete_unsent(&mut self, slot: u32, result: i64) -> io::Result<Submitted> {
        if self.synchronous {
            return Ok(Submitted::Completed(result));
        }
        let Some(entry) = self.held.get_mut(self.held_len as usize) else {
            return Err(io::Error::other(format!(
                "fault queue full: {} requests held at depth {}; reap before submitting more",
                self.held_len, self.depth
            )));
        };
        *entry = Completion { slot, result };
        self.held_len += 1;
        Ok(Submitted::Queued)
    }

    /// Sends `req` to the inner queue, changing its completion by `rewrite`
    /// whenever that comes back.
    fn send(&mut self, req: &Request, rewrite: Rewrite) -> io::Result<Submitted> {
        match self.inner.submit(req)? {
            Submitted::Completed(result) => Ok(Submitted::Completed(rewrite.apply(result))),
            Submitted::Queued => {
                self.rewrites[req.slot as usize] = rewrite;
                Ok(Submitted::Queued)
            }
        }
    }
}

impl<Q: Queue> Queue for FaultyQueue<Q> {
    const COMPLETES_IN_SUBMIT: bool = Q::COMPLETES_IN_SUBMIT;

    #[inline]
    fn set_ioprio(&mut self, ioprio: u16) {
        self.inner.set_ioprio(ioprio);
    }

    #[inline]
    fn set_hipri(&mut self, on: bool) {
        self.inner.set_hipri(on);
    }

    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        // A slot beyond the depth is the inner queue's to refuse.
        if !self.kind.applies_to(req.op) || req.slot >= self.depth {
            return self.send(req, Rewrite::Untouched);
        }
        // One draw per eligible request, whatever the percentage, so the
        // choice of a request depends only on the seed and its position.
        if self.rng.next() >> (64 - CHOICE_BITS) >= self.threshold {
            return self.send(req, Rewrite::Untouched);
        }
        self.injected += 1;
        let len = req.len;
        match self.kind {
            FaultKind::BitFlip => {
                let buf = self.inner.buffer(req.slot);
                let bits = (len as usize).min(buf.len()) as u64 * 8;
                if bits > 0 {
                    let bit = self.rng.next() % bits;
                    buf[(bit / 8) as usize] ^= 1 << (bit % 8);
                }
                self.send(req, Rewrite::Untouched)
            }
            FaultKind::DropWrite => self.complete_unsent(req.slot, i64::from(len)),
            FaultKind::Misdirect => {
                let len = u64::from(len);
                let offset = if req.offset >= len {
                    req.offset - len
                } else {
                    req.offset + len
                };
                self.send(&Request { offset, ..*req }, Rewrite::Untouched)
            }
            FaultKind::TornWrite if len <= 512 => self.complete_unsent(req.slot, i64::from(len)),
            FaultKind::TornWrite => {
                let sent = ((len / 2) & !511).max(512);
                let torn = Request { len: sent, ..*req };
                self.send(&torn, Rewrite::Stretch { sent, full: len })
            }
            FaultKind::ShortRead => self.send(req, Rewrite::Cap((len / 2) & !511)),
            FaultKind::ReadError | FaultKind::WriteError => {
                self.complete_unsent(req.slot, -i64::from(libc::EIO))
            }
        }
    }

    #[inline]
    fn commit(&mut self) -> io::Result<u32> {
        self.inner.commit()
    }

    /// Hands out held completions first, then the inner queue's; `min`
    /// counts both.
    #[inline]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let mut n = 0;
        if self.held_len > 0 {
            n = self.held_len.min(max);
            for &c in &self.held[..n as usize] {
                on_complete(c);
            }
            self.held.copy_within(n as usize..self.held_len as usize, 0);
            self.held_len -= n;
        }
        if n == max {
            return Ok(n);
        }
        let rewrites = &mut self.rewrites;
        let got = self.inner.reap(min.saturating_sub(n), max - n, |mut c| {
            if let Some(rewrite) = rewrites.get_mut(c.slot as usize) {
                c.result = rewrite.apply(c.result);
                *rewrite = Rewrite::Untouched;
            }
            on_complete(c);
        })?;
        Ok(n + got)
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.inner.buffer(slot)
    }

    fn in_flight(&self) -> u32 {
        self.inner.in_flight() + self.held_len
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn setup_note(&self) -> Option<&str> {
        self.inner.setup_note()
    }

    fn refused_setup_flags(&self) -> Option<String> {
        self.inner.refused_setup_flags()
    }

    fn calls(&self) -> (u64, u64) {
        self.inner.calls()
    }

    fn faults_injected(&self) -> u64 {
        self.injected
    }

    fn ended(&self) -> bool {
        self.inner.ended()
    }
}

#[cfg(test)]
mod tests;
