//! Bandwidth and IOPS sampled over fixed intervals (fio's bw/iops lines).

use crate::{Clock, Summary};

#[derive(Clone, Debug)]
pub struct RateSampler {
    /// KiB/s per interval.
    pub bw: Summary,
    /// I/Os per second per interval.
    pub iops: Summary,
    _todo: (),
}

impl RateSampler {
    /// Samples every `interval_ms` from `start` (ticks of `clock`).
    pub fn new(_clock: &Clock, _interval_ms: u64, _start: u64) -> RateSampler {
        todo!()
    }
    /// Given the cumulative bytes and I/Os so far at time `now` (ticks),
    /// takes a sample if an interval has passed. Cheap when it has not.
    #[inline]
    pub fn tick(&mut self, _now: u64, _bytes: u64, _ios: u64) {
        todo!()
    }
    /// Drops the samples and starts over at `now` with the given counters.
    pub fn reset(&mut self, _now: u64, _bytes: u64, _ios: u64) {
        todo!()
    }
}
