//! The lines of fio's logs, byte for byte as fio's `flush_samples` and
//! `flush_hist_samples` print them (iolog.c):
//!
//! `time, value[, value1], ddir, bs[, offset], prio[, issue_time]`
//!
//! time in ms since the job started, `value1` only for
//! `log_window_value=both`, `offset` with `log_offset`, `prio` as 0/1 (the
//! real-time class) or as `0x%04x` with `log_prio`, `issue_time` (ns) with
//! `log_issue_time`. A histogram line is `time, ddir, bs, count, ...`.

use ioscope_stats::{HistLine, LogFiles, WindowLine};

/// One sample, whatever the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sample {
    pub time_ms: u64,
    pub value: u64,
    pub value1: u64,
    pub dir: u8,
    pub bs: u64,
    pub offset: u64,
    pub issue_ns: u64,
    /// The I/O priority (class << 13 | level).
    pub prio: u16,
}

impl Sample {
    /// An averaged line: its block size, offset and issue time are 0.
    pub(crate) fn window(w: &WindowLine, files: &LogFiles) -> Sample {
        let (value, value1) = match files.window_value {
            1 => (w.max, 0),
            2 => (w.avg, w.max),
            _ => (w.avg, 0),
        };
        Sample {
            time_ms: w.time_ms,
            value,
            value1,
            dir: w.dir,
            ..Sample::default()
        }
    }
}

/// Appends `n` in decimal: itoa's digits, since a per-I/O log has
/// millions of lines and `write!` spends most of the time writing them.
fn num(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `, ` and `n`: a column after the first.
fn col(out: &mut String, n: u64) {
    out.push_str(", ");
    num(out, n);
}

/// Appends `s` as a line of a log of `files`.
pub(crate) fn push_line(out: &mut String, s: &Sample, files: &LogFiles) {
    num(out, s.time_ms + files.time_offset_ms);
    col(out, s.value);
    if files.averaged && files.window_value == 2 {
        col(out, s.value1);
    }
    col(out, u64::from(s.dir));
    col(out, s.bs);
    if files.offset {
        col(out, s.offset);
    }
    // fio prints the priority itself with log_prio, else whether it is
    // of the real-time class (class 1).
    if files.prio {
        out.push_str(", 0x");
        for shift in [12, 8, 4, 0] {
            let digit = (s.prio >> shift) & 0xf;
            out.push(char::from_digit(u32::from(digit), 16).unwrap_or('0'));
        }
    } else {
        col(out, u64::from(s.prio >> 13 == 1));
    }
    if files.issue_time {
        col(out, s.issue_ns);
    }
    out.push('\n');
}

/// Appends a histogram log line, its buckets summed `2^coarseness` at a
/// time.
pub(crate) fn push_hist_line(out: &mut String, h: &HistLine, files: &LogFiles) {
    num(out, h.time_ms + files.time_offset_ms);
    col(out, u64::from(h.dir));
    col(out, u64::from(h.bs));
    let stride = 1usize << files.hist_coarseness;
    for group in h.counts.chunks(stride) {
        col(out, group.iter().sum::<u64>());
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> LogFiles {
        LogFiles {
            per_job: true,
            ..LogFiles::default()
        }
    }

    fn sample() -> Sample {
        Sample {
            time_ms: 12,
            value: 3456,
            value1: 0,
            dir: 1,
            bs: 4096,
            offset: 8192,
            issue_ns: 777,
            prio: 0,
        }
    }

    #[test]
    fn default_columns_are_fios_five() {
        let mut out = String::new();
        push_line(&mut out, &sample(), &files());
        assert_eq!(out, "12, 3456, 1, 4096, 0\n");
    }

    #[test]
    fn offset_prio_and_issue_time_columns() {
        let f = LogFiles {
            offset: true,
            prio: true,
            issue_time: true,
            time_offset_ms: 1000,
            ..files()
        };
        let mut out = String::new();
        push_line(&mut out, &sample(), &f);
        assert_eq!(out, "1012, 3456, 1, 4096, 8192, 0x0000, 777\n");
        // A priority as fio's %04x, or without log_prio whether it is RT.
        let mut rt = String::new();
        push_line(
            &mut rt,
            &Sample {
                prio: 0x2001,
                ..sample()
            },
            &f,
        );
        assert!(rt.ends_with(", 0x2001, 777\n"), "{rt}");
        rt.clear();
        let plain = LogFiles {
            prio: false,
            issue_time: false,
            ..f.clone()
        };
        push_line(
            &mut rt,
            &Sample {
                prio: 0x2001,
                ..sample()
            },
            &plain,
        );
        assert!(rt.ends_with(", 1\n"), "{rt}");
    }

    #[test]
    fn both_window_values_give_two_value_columns() {
        let f = LogFiles {
            averaged: true,
            window_value: 2,
            ..files()
        };
        let w = WindowLine {
            time_ms: 200,
            avg: 10,
            max: 30,
            dir: 0,
        };
        let mut out = String::new();
        push_line(&mut out, &Sample::window(&w, &f), &f);
        assert_eq!(out, "200, 10, 30, 0, 0, 0\n");
        let max = LogFiles {
            window_value: 1,
            ..f
        };
        out.clear();
        push_line(&mut out, &Sample::window(&w, &max), &max);
        assert_eq!(out, "200, 30, 0, 0, 0\n");
    }

    #[test]
    fn histogram_lines_sum_buckets_by_coarseness() {
        let mut counts = vec![0u64; ioscope_stats::PLAT_NR];
        counts[0] = 1;
        counts[1] = 2;
        counts[5] = 4;
        let h = HistLine {
            time_ms: 201,
            dir: 1,
            bs: 4096,
            counts: counts.into_boxed_slice(),
        };
        let mut out = String::new();
        push_hist_line(&mut out, &h, &files());
        assert!(out.starts_with("201, 1, 4096, 1, 2, 0, 0, 0, 4, 0"));
        assert_eq!(out.matches(", ").count(), 2 + ioscope_stats::PLAT_NR);
        let coarse = LogFiles {
            hist_coarseness: 2,
            ..files()
        };
        out.clear();
        push_hist_line(&mut out, &h, &coarse);
        assert!(out.starts_with("201, 1, 4096, 3, 4, 0"));
        assert_eq!(out.matches(", ").count(), 2 + ioscope_stats::PLAT_NR / 4);
    }
}
