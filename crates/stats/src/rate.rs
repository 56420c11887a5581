//! Bandwidth and IOPS sampled over fixed intervals (fio's bw/iops lines).
//!
//! fio's helper thread wakes every bw_avg_time / iops_avg_time ms (500 by
//! default) and, per direction, turns what completed since its last visit
//! into one sample: `bytes * 1000 / ms / 1024` KiB/s (always 1024, whatever
//! kb_base says; the report only changes the label) and `ios * 1000 / ms`
//! IOPS, with integer division. An interval in which nothing completed gives
//! no sample. The sampler does the same from the I/O loop, without a thread:
//! intervals are laid end to end from the start, and each is closed by the
//! first tick after it ends, using the counters as they stood before that
//! tick, which are exactly the completions that happened inside it.
//!
//! One fio habit needs the end of the run: the interval that ends when the
//! run ends (a time_based run of a whole number of intervals) gets no sample
//! in fio, because the job is gone by the time the helper thread looks.
//! `finish` takes that sample back.
//!
//! With `log_avg_msec`, fio's bandwidth and IOPS logs have a line per such
//! sample (the interval being log_avg_msec then): [`RateSampler::keep_log`]
//! keeps each sample with the end of its interval.

use crate::{Clock, Summary};

#[derive(Clone, Debug)]
pub struct RateSampler {
    /// KiB/s per interval.
    pub bw: Summary,
    /// I/Os per second per interval.
    pub iops: Summary,
    bw_window: Window,
    iops_window: Window,
    /// The earlier of the two windows' deadlines: the only thing `tick`
    /// looks at before returning.
    next: u64,
    /// Counters at the previous tick: all of them completed before `now`.
    seen_bytes: u64,
    seen_ios: u64,
    /// How close to an interval's end the run may stop for fio to miss
    /// that interval's sample: its LOG_MSEC_SLACK, 1 ms.
    end_slack_ticks: u64,
}

/// The sampling state of one metric.
#[derive(Clone, Debug)]
struct Window {
    interval_ms: u64,
    interval_ticks: u64,
    /// End of the open interval, in ticks; u64::MAX when sampling is off.
    deadline: u64,
    /// The counter when the open interval began.
    start: u64,
    /// End (ticks) of the last interval that gave a sample, and the
    /// summary as it was before that sample, for `finish`.
    last_sampled_end: Option<u64>,
    before_last: Summary,
    /// Each sample with the end of its interval (ticks), when kept.
    log: Option<Vec<(u64, u64)>>,
}

impl Window {
    fn new(clock: &Clock, interval_ms: u64) -> Window {
        Window {
            interval_ms,
            interval_ticks: clock
                .ticks_for_ns(interval_ms.saturating_mul(1_000_000))
                .max(1),
            deadline: u64::MAX,
            start: 0,
            last_sampled_end: None,
            before_last: Summary::default(),
            log: None,
        }
    }

    fn reset(&mut self, now: u64, count: u64) {
        self.deadline = if self.interval_ms == 0 {
            u64::MAX
        } else {
            now.saturating_add(self.interval_ticks)
        };
        self.start = count;
        self.last_sampled_end = None;
        if let Some(log) = &mut self.log {
            log.clear();
        }
    }

    /// Closes the intervals that ended by `now`, given the counter before
    /// this tick; `scale` turns a count per millisecond window into a rate.
    fn close(&mut self, now: u64, seen: u64, summary: &mut Summary, scale: fn(u64, u64) -> u64) {
        if now < self.deadline {
            return;
        }
        let delta = seen - self.start;
        if delta != 0 {
            self.before_last = *summary;
            self.last_sampled_end = Some(self.deadline);
            let value = scale(delta, self.interval_ms);
            summary.add(value);
            if let Some(log) = &mut self.log {
                log.push((self.deadline, value));
            }
        }
        self.start = seen;
        // Intervals that passed with no tick saw no completion: no samples.
        let passed = (now - self.deadline) / self.interval_ticks + 1;
        self.deadline = self
            .deadline
            .saturating_add(passed.saturating_mul(self.interval_ticks));
    }

    fn finish(&mut self, end: u64, slack: u64, summary: &mut Summary) {
        if let Some(last_end) = self.last_sampled_end.take() {
            if end < last_end.saturating_add(slack) {
                *summary = self.before_last;
                if let Some(log) = &mut self.log {
                    log.pop();
                }
            }
        }
        self.deadline = u64::MAX;
    }
}

fn kib_per_s(bytes: u64, ms: u64) -> u64 {
    bytes * 1000 / ms / 1024
}

fn per_s(ios: u64, ms: u64) -> u64 {
    ios * 1000 / ms
}

impl RateSampler {
    /// Samples every `interval_ms` from `start` (ticks of `clock`).
    /// An interval of 0 turns sampling off.
    pub fn new(clock: &Clock, interval_ms: u64, start: u64) -> RateSampler {
        RateSampler::with_intervals(clock, interval_ms, interval_ms, start)
    }

    /// Bandwidth every `bw_ms` and IOPS every `iops_ms` (fio's bw_avg_time
    /// and iops_avg_time), from `start`. 0 turns that metric off.
    pub fn with_intervals(clock: &Clock, bw_ms: u64, iops_ms: u64, start: u64) -> RateSampler {
        let mut sampler = RateSampler {
            bw: Summary::default(),
            iops: Summary::default(),
            bw_window: Window::new(clock, bw_ms),
            iops_window: Window::new(clock, iops_ms),
            next: u64::MAX,
            seen_bytes: 0,
            seen_ios: 0,
            end_slack_ticks: clock.ticks_for_ns(1_000_000),
        };
        sampler.reset(start, 0, 0);
        sampler
    }

    /// Given the cumulative bytes and I/Os so far at time `now` (ticks),
    /// takes a sample if an interval has passed. Cheap when it has not.
    ///
    /// Call it after counting the completions observed at `now`.
    #[inline]
    pub fn tick(&mut self, now: u64, bytes: u64, ios: u64) {
        if now >= self.next {
            self.close_intervals(now);
        }
        // Remembered so that the next interval closed is charged only what
        // completed before the tick that closes it.
        self.seen_bytes = bytes;
        self.seen_ios = ios;
    }

    #[cold]
    fn close_intervals(&mut self, now: u64) {
        self.bw_window
            .close(now, self.seen_bytes, &mut self.bw, kib_per_s);
        self.iops_window
            .close(now, self.seen_ios, &mut self.iops, per_s);
        self.next = self.bw_window.deadline.min(self.iops_window.deadline);
    }

    /// Ends sampling at `end` (ticks), the end of the measured period. If
    /// the last sample's interval ended less than 1 ms before `end`, that
    /// sample is dropped, as fio never takes it.
    pub fn finish(&mut self, end: u64) {
        let slack = self.end_slack_ticks;
        self.bw_window.finish(end, slack, &mut self.bw);
        self.iops_window.finish(end, slack, &mut self.iops);
        self.next = u64::MAX;
    }

    /// Keeps every sample from now on, for the averaged bandwidth and
    /// IOPS logs.
    pub fn keep_log(&mut self) {
        self.bw_window.log.get_or_insert_with(Vec::new);
        self.iops_window.log.get_or_insert_with(Vec::new);
    }

    /// The bandwidth samples kept (KiB/s), each with the end of its
    /// interval in ticks.
    pub fn bw_log(&self) -> &[(u64, u64)] {
        self.bw_window.log.as_deref().unwrap_or(&[])
    }

    /// The IOPS samples kept, as `bw_log`.
    pub fn iops_log(&self) -> &[(u64, u64)] {
        self.iops_window.log.as_deref().unwrap_or(&[])
    }

    /// Drops the samples and starts over at `now` with the given counters.
    pub fn reset(&mut self, now: u64, bytes: u64, ios: u64) {
        self.bw = Summary::default();
        self.iops = Summary::default();
        self.bw_window.reset(now, bytes);
        self.iops_window.reset(now, ios);
        self.next = self.bw_window.deadline.min(self.iops_window.deadline);
        self.seen_bytes = bytes;
        self.seen_ios = ios;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockSource;

    const MS: u64 = 1_000_000;

    /// CLOCK_MONOTONIC ticks are nanoseconds, so times below are in ns.
    fn sampler(interval_ms: u64) -> RateSampler {
        RateSampler::new(&Clock::new(ClockSource::ClockGettime), interval_ms, 0)
    }

    #[test]
    fn steady_stream_gives_one_sample_per_interval() {
        let mut s = sampler(500);
        // One 4 KiB I/O every millisecond for 2.2 s.
        for i in 1..=2200u64 {
            s.tick(i * MS, i * 4096, i);
        }
        // Intervals ending at 500, 1000, 1500 and 2000 ms.
        assert_eq!(s.bw.samples, 4);
        assert_eq!(s.iops.samples, 4);
        // The tick at exactly 500 ms closes the first interval before its
        // own I/O is charged: 499 I/Os in it, 500 in each later one.
        assert_eq!(s.iops.min, 499 * 1000 / 500);
        assert_eq!(s.iops.max, 1000);
        assert_eq!(s.bw.max, 500 * 4096 * 1000 / 500 / 1024);
    }

    #[test]
    fn sparse_io_is_charged_to_the_interval_it_completed_in() {
        // One 4 KiB I/O per second, as with rate_iops=1: fio samples every
        // 500 ms, half the intervals are empty, and each full one shows
        // 1 I/O in 0.5 s.
        let mut s = sampler(500);
        for i in 0..10u64 {
            s.tick(i * 1000 * MS + MS, (i + 1) * 4096, i + 1);
        }
        assert_eq!(s.iops.samples, 9);
        assert_eq!((s.iops.min, s.iops.max), (2, 2));
        assert_eq!((s.bw.min, s.bw.max), (8, 8));
    }

    #[test]
    fn nothing_before_the_first_interval_ends() {
        let mut s = sampler(500);
        s.tick(499 * MS, 1 << 20, 10);
        assert_eq!(s.bw.samples, 0);
    }

    #[test]
    fn idle_intervals_make_no_samples() {
        let mut s = sampler(100);
        s.tick(3_000 * MS, 0, 0);
        assert_eq!((s.bw.samples, s.iops.samples), (0, 0));
    }

    #[test]
    fn reset_forgets_ramp_time() {
        let mut s = sampler(500);
        for i in 1..=1000u64 {
            s.tick(i * MS, i * 4096, i);
        }
        assert_eq!(s.bw.samples, 2);
        s.reset(1000 * MS, 1000 * 4096, 1000);
        assert_eq!(s.bw.samples, 0);
        // 8 KiB per ms after the reset.
        for i in 1001..=1600u64 {
            s.tick(
                i * MS,
                1000 * 4096 + (i - 1000) * 8192,
                1000 + (i - 1000) * 2,
            );
        }
        assert_eq!(s.bw.samples, 1);
        assert_eq!(s.bw.min, 499 * 8192 * 1000 / 500 / 1024);
    }

    #[test]
    fn an_interval_ending_with_the_run_gives_no_sample() {
        // A 2 s time_based run: fio reports the samples at 0.5, 1 and 1.5 s.
        let mut s = sampler(500);
        for i in 1..=2000u64 {
            s.tick(i * MS, i * 4096, i);
        }
        // The last I/O completes just after the 2 s mark and closes it.
        s.tick(2000 * MS + 30_000, 2001 * 4096, 2001);
        assert_eq!(s.bw.samples, 4);
        s.finish(2000 * MS + 30_000);
        assert_eq!((s.bw.samples, s.iops.samples), (3, 3));
        assert_eq!(s.iops.max, 1000);
        // Nothing more is sampled after the end.
        s.tick(9000 * MS, 9000 * 4096, 9000);
        assert_eq!(s.bw.samples, 3);
    }

    #[test]
    fn finish_keeps_samples_of_intervals_well_before_the_end() {
        let mut s = sampler(500);
        for i in 1..=1200u64 {
            s.tick(i * MS, i * 4096, i);
        }
        s.finish(1200 * MS);
        assert_eq!(s.bw.samples, 2);
    }

    #[test]
    fn bw_and_iops_can_have_their_own_intervals() {
        let clock = Clock::new(ClockSource::ClockGettime);
        let mut s = RateSampler::with_intervals(&clock, 1000, 250, 0);
        for i in 1..=2100u64 {
            s.tick(i * MS, i * 4096, i);
        }
        assert_eq!(s.bw.samples, 2);
        assert_eq!(s.iops.samples, 8);
        assert_eq!(s.iops.max, 1000);
        assert_eq!(s.bw.max, 1000 * 4096 / 1024);
        // Only one metric off.
        let mut s = RateSampler::with_intervals(&clock, 0, 500, 0);
        for i in 1..=600u64 {
            s.tick(i * MS, i * 4096, i);
        }
        assert_eq!((s.bw.samples, s.iops.samples), (0, 1));
    }

    #[test]
    fn kept_log_has_each_sample_with_its_interval_end() {
        let mut s = sampler(500);
        s.keep_log();
        for i in 1..=2000u64 {
            s.tick(i * MS, i * 4096, i);
        }
        s.tick(2000 * MS + 30_000, 2001 * 4096, 2001);
        s.finish(2000 * MS + 30_000);
        // The sample fio never takes (its interval ends with the run) is
        // not logged either.
        let ends: Vec<u64> = s.iops_log().iter().map(|&(t, _)| t / MS).collect();
        assert_eq!(ends, [500, 1000, 1500]);
        assert_eq!(s.iops_log()[1].1, 1000);
        assert_eq!(s.bw_log().len(), 3);
    }

    #[test]
    fn zero_interval_turns_sampling_off() {
        let mut s = sampler(0);
        s.tick(u64::MAX - 1, 1 << 30, 1 << 20);
        assert_eq!(s.bw.samples, 0);
    }
}
