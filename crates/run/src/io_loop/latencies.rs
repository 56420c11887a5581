//! A completion's latencies (submission, completion, total) added to its
//! direction's measurements, and the runs in which the plain loop adds a
//! batch's equal latencies in one step.
//!
//! The loop reads the clock once per fill, once per commit and once per
//! reap (as fio does per commit and per reap), so the I/Os that one fill
//! started, one commit submitted and one reap collected have the same
//! three latencies. At depth 128 in batches of 32, adding each of them
//! alone was most of what settling a completion cost; a run of equal
//! latencies adds the same counts and sums as its I/Os one by one.

use ioscope_stats::{Clock, LatencyBuckets};

use super::config::Tracking;
use super::fill::Slot;
use super::results::DirStats;

/// What a completion's latencies are made of, the completion time aside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Times {
    /// The direction (an index into the per-direction statistics).
    pub dir: usize,
    /// Ticks when the I/O's preparation began and when it was submitted.
    pub start: u64,
    pub issue: u64,
    /// Submitted to an asynchronous queue, so it has a submission latency.
    pub queued: bool,
}

impl Times {
    #[inline]
    pub(super) fn of(slot: &Slot, dir: usize) -> Times {
        Times {
            dir,
            start: slot.start,
            issue: slot.issue,
            queued: slot.queued,
        }
    }
}

/// How latencies are measured: the clock's tick rate and which are tracked.
pub(super) struct Timer<'a> {
    pub clock: &'a Clock,
    pub tracking: &'a Tracking,
    /// Submission latencies are measured (see `Ledger::slat`).
    pub slat: bool,
}

impl Timer<'_> {
    /// Adds `count` completions with the same `times`, done at `done`, to
    /// the direction's moments and histograms and to fio's coarse buckets.
    /// Returns their total and completion latencies in ns. Inlined
    /// always: where `count` is a constant 1, each moment's block loop
    /// folds away.
    #[inline(always)]
    pub(super) fn add(
        &self,
        dir: &mut DirStats,
        buckets: &mut LatencyBuckets,
        times: Times,
        done: u64,
        count: u32,
    ) -> (u64, u64) {
        let t = self.tracking;
        let n = u64::from(count);
        // fio's coarse buckets count completion latency (submission to
        // completion), not the total.
        let clat_ns = self.clock.to_ns(done.saturating_sub(times.issue));
        if t.clat {
            dir.clat.add_n(clat_ns, count);
            if let Some(h) = &mut dir.clat_hist {
                h.add_n(clat_ns, n);
            }
        }
        if self.slat && times.queued {
            let v = self.clock.to_ns(times.issue - times.start);
            dir.slat.add_n(v, count);
            if let Some(h) = &mut dir.slat_hist {
                h.add_n(v, n);
            }
        }
        let lat_ns = self.clock.to_ns(done.saturating_sub(times.start));
        if t.lat {
            dir.lat.add_n(lat_ns, count);
            if let Some(h) = &mut dir.lat_hist {
                h.add_n(lat_ns, n);
            }
        }
        if t.slat || t.clat || t.lat {
            buckets.add_n(clat_ns, n);
        }
        (lat_ns, clat_ns)
    }
}

/// Completions whose latencies are still to be added: `count` of them, all
/// with the same `times` and done at `done`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Run {
    times: Times,
    done: u64,
    count: u32,
}

impl Run {
    /// One more completion: it joins the run if its latencies are the
    /// run's; otherwise the run is added and a new one starts with it.
    #[inline]
    pub(super) fn push(
        &mut self,
        times: Times,
        done: u64,
        timer: &Timer<'_>,
        dirs: &mut [DirStats],
        buckets: &mut LatencyBuckets,
    ) {
        if self.count > 0 && self.times == times && self.done == done {
            self.count += 1;
            return;
        }
        self.add(timer, dirs, buckets);
        *self = Run {
            times,
            done,
            count: 1,
        };
    }

    /// Adds what the run holds and empties it: before anything reads the
    /// latencies.
    #[inline]
    pub(super) fn add(
        &mut self,
        timer: &Timer<'_>,
        dirs: &mut [DirStats],
        buckets: &mut LatencyBuckets,
    ) {
        if self.count > 0 {
            let dir = &mut dirs[self.times.dir];
            timer.add(dir, buckets, self.times, self.done, self.count);
            self.count = 0;
        }
    }
}
