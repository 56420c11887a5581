//! fio's averaged log lines (`log_avg_msec`) for the latency logs: each
//! direction's samples collect in a window, and the first sample at or past
//! the window's end closes it into one line stamped with that sample's time
//! (fio's `add_log_sample`, which the latency logs run inline with the
//! I/O). The next window then starts at that time rounded down to a whole
//! window. When the job ends, the windows still open give a line each,
//! stamped with the end (fio's `finalize_logs`).

use crate::Clock;

/// One line of an averaged log: a window's mean and maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowLine {
    /// Milliseconds since the job started.
    pub time_ms: u64,
    /// The mean, rounded to the nearest integer (fio adds 0.5 and
    /// truncates).
    pub avg: u64,
    pub max: u64,
    /// 0 read, 1 write, 2 trim.
    pub dir: u8,
}

/// The open window of one direction.
#[derive(Clone, Copy, Debug, Default)]
struct Open {
    samples: u64,
    sum: u128,
    max: u64,
    /// Ticks at which the window is over: a sample at or after it closes it.
    deadline: u64,
}

/// Averaged lines of one latency log, three directions.
#[derive(Clone, Debug)]
pub struct LogWindows {
    clock: Clock,
    epoch: u64,
    msec: u64,
    open: [Open; 3],
    pub lines: Vec<WindowLine>,
}

impl LogWindows {
    /// Windows of `msec` (above 0) from `epoch`, the job's start in ticks.
    pub fn new(clock: Clock, epoch: u64, msec: u64) -> LogWindows {
        let first = epoch.saturating_add(clock.ticks_for_ns(msec.saturating_mul(1_000_000)));
        LogWindows {
            clock,
            epoch,
            msec,
            open: [Open {
                deadline: first,
                ..Open::default()
            }; 3],
            lines: Vec::new(),
        }
    }

    /// Adds `value`, completed at `now` (ticks), to direction `dir`.
    #[inline]
    pub fn add(&mut self, dir: usize, value: u64, now: u64) {
        let w = &mut self.open[dir];
        w.samples += 1;
        w.sum += u128::from(value);
        w.max = w.max.max(value);
        if now >= w.deadline {
            self.close(dir, now);
        }
    }

    #[cold]
    fn close(&mut self, dir: usize, now: u64) {
        let elapsed = self.clock.to_ns(now.saturating_sub(self.epoch)) / 1_000_000;
        self.emit(dir, elapsed);
        let start = elapsed - elapsed % self.msec;
        let end_ns = (start + self.msec).saturating_mul(1_000_000);
        self.open[dir].deadline = self.epoch.saturating_add(self.clock.ticks_for_ns(end_ns));
    }

    /// A line for the window of `dir`, if it holds a sample, and a fresh
    /// window.
    fn emit(&mut self, dir: usize, time_ms: u64) {
        let w = &mut self.open[dir];
        if w.samples > 0 {
            let mean = w.sum as f64 / w.samples as f64;
            self.lines.push(WindowLine {
                time_ms,
                avg: (mean + 0.5) as u64,
                max: w.max,
                dir: dir as u8,
            });
        }
        *w = Open {
            deadline: w.deadline,
            ..Open::default()
        };
    }

    /// The job ended at `end` (ticks): the windows still open give their
    /// lines, stamped with the end.
    pub fn finish(&mut self, end: u64) {
        let elapsed = self.clock.to_ns(end.saturating_sub(self.epoch)) / 1_000_000;
        for dir in 0..3 {
            self.emit(dir, elapsed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockSource;

    const MS: u64 = 1_000_000;

    fn windows(msec: u64) -> LogWindows {
        LogWindows::new(Clock::new(ClockSource::ClockGettime), 0, msec)
    }

    #[test]
    fn a_sample_past_the_window_closes_it_with_its_own_time() {
        let mut w = windows(100);
        w.add(0, 10, 10 * MS);
        w.add(0, 21, 50 * MS);
        assert!(w.lines.is_empty());
        // fio counts the closing sample in the window it closes.
        w.add(0, 30, 130 * MS);
        assert_eq!(
            w.lines,
            [WindowLine {
                time_ms: 130,
                avg: 20,
                max: 30,
                dir: 0
            }]
        );
        // The next window runs from 100 to 200 ms.
        w.add(0, 5, 199 * MS);
        assert_eq!(w.lines.len(), 1);
        w.add(0, 7, 200 * MS);
        assert_eq!(w.lines[1].time_ms, 200);
        assert_eq!((w.lines[1].avg, w.lines[1].max), (6, 7));
    }

    #[test]
    fn directions_have_their_own_windows() {
        let mut w = windows(100);
        w.add(0, 1, 10 * MS);
        w.add(1, 3, 20 * MS);
        w.add(1, 5, 100 * MS);
        assert_eq!(w.lines.len(), 1);
        assert_eq!((w.lines[0].dir, w.lines[0].avg), (1, 4));
        w.finish(150 * MS);
        assert_eq!(w.lines.len(), 2);
        assert_eq!(
            w.lines[1],
            WindowLine {
                time_ms: 150,
                avg: 1,
                max: 1,
                dir: 0
            }
        );
    }

    #[test]
    fn the_mean_rounds_half_up() {
        let mut w = windows(10);
        w.add(2, 1, MS);
        w.add(2, 2, MS);
        w.finish(2 * MS);
        assert_eq!(w.lines[0].avg, 2);
    }
}
