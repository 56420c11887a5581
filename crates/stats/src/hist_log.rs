//! fio's completion latency histogram log (`write_hist_log`): every
//! `log_hist_msec`, per direction, the clat histogram of the I/Os completed
//! since that direction's last line. As in fio's `add_clat_sample`, a
//! direction's window starts at its first completion and is closed by the
//! first completion at least `log_hist_msec` later, which gives the line its
//! time and block size; the next window starts where this one should have
//! ended, so lateness does not accumulate.

use crate::{bucket_index, Clock, PLAT_NR};

/// One line of the histogram log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistLine {
    /// Milliseconds since the job started.
    pub time_ms: u64,
    /// 0 read, 1 write, 2 trim.
    pub dir: u8,
    /// The block size of the I/O that closed the window.
    pub bs: u32,
    /// Completions per fio bucket in the window (PLAT_NR of them).
    pub counts: Box<[u64]>,
}

/// The histogram log of one worker while it runs.
#[derive(Clone, Debug)]
pub struct HistLog {
    clock: Clock,
    epoch: u64,
    msec: u64,
    /// Completions per bucket since each direction's last line.
    window: [Box<[u64]>; 3],
    /// Start of each direction's window, ms since the epoch; 0 when not
    /// started (fio's `hist_last`, which has the same quirk: a window
    /// opened at 0 ms is opened again by the next completion).
    last_ms: [u64; 3],
    pub lines: Vec<HistLine>,
}

impl HistLog {
    /// Lines every `msec` (above 0) from `epoch`, the job's start in ticks.
    pub fn new(clock: Clock, epoch: u64, msec: u64) -> HistLog {
        let empty = || vec![0; PLAT_NR].into_boxed_slice();
        HistLog {
            clock,
            epoch,
            msec,
            window: [empty(), empty(), empty()],
            last_ms: [0; 3],
            lines: Vec::new(),
        }
    }

    /// Adds the completion latency `clat_ns` of an I/O of `bs` bytes in
    /// direction `dir` that completed at `now` (ticks).
    #[inline]
    pub fn add(&mut self, dir: usize, clat_ns: u64, bs: u32, now: u64) {
        self.window[dir][bucket_index(clat_ns)] += 1;
        let elapsed = self.clock.to_ns(now.saturating_sub(self.epoch)) / 1_000_000;
        if self.last_ms[dir] == 0 {
            self.last_ms[dir] = elapsed;
        }
        let this_window = elapsed - self.last_ms[dir].min(elapsed);
        if this_window >= self.msec {
            self.close(dir, bs, elapsed, this_window);
        }
    }

    #[cold]
    fn close(&mut self, dir: usize, bs: u32, elapsed: u64, this_window: u64) {
        let counts = std::mem::replace(&mut self.window[dir], vec![0; PLAT_NR].into_boxed_slice());
        self.lines.push(HistLine {
            time_ms: elapsed,
            dir: dir as u8,
            bs,
            counts,
        });
        self.last_ms[dir] = elapsed - (this_window - self.msec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockSource;

    const MS: u64 = 1_000_000;

    #[test]
    fn one_line_per_window_with_that_windows_counts() {
        let mut h = HistLog::new(Clock::new(ClockSource::ClockGettime), 0, 100);
        h.add(0, 1_000, 4096, MS);
        h.add(0, 1_000, 4096, 50 * MS);
        assert!(h.lines.is_empty());
        h.add(0, 2_000_000, 8192, 101 * MS);
        assert_eq!(h.lines.len(), 1);
        let line = &h.lines[0];
        assert_eq!((line.time_ms, line.dir, line.bs), (101, 0, 8192));
        assert_eq!(line.counts.iter().sum::<u64>(), 3);
        assert_eq!(line.counts[bucket_index(1_000)], 2);
        // The next window is 101..201 ms, and counts only what is new.
        h.add(0, 1_000, 4096, 150 * MS);
        h.add(0, 1_000, 4096, 205 * MS);
        assert_eq!(h.lines.len(), 2);
        assert_eq!(h.lines[1].time_ms, 205);
        assert_eq!(h.lines[1].counts.iter().sum::<u64>(), 2);
    }

    #[test]
    fn late_closing_does_not_drift() {
        let mut h = HistLog::new(Clock::new(ClockSource::ClockGettime), 0, 100);
        h.add(1, 1_000, 4096, 10 * MS);
        h.add(1, 1_000, 4096, 130 * MS);
        // The window ended at 110: the next ends at 210, not 230.
        h.add(1, 1_000, 4096, 212 * MS);
        assert_eq!(h.lines.len(), 2);
    }
}
