//! The status line, as fio's display_thread_status draws it from a
//! [`JobsEta`]: `Jobs: 1 (f=1): [r(1)][75.0%][r=34.1GiB/s][r=8928k
//! IOPS][eta 00m:01s]` and a carriage return, padded with spaces over a
//! longer line it redraws. The same for a local run and for fio's client.

use std::time::{Duration, Instant};

use ioscope_stats::{JobsEta, ETA_UNKNOWN, UNIT_BITS, UNIT_BYTES};

use crate::num2str::{num2str, Unit};

/// fio's `eta_sec` of a job whose progress cannot be told (its -1).
const NO_PROGRESS: u64 = u64::MAX;

/// What fio's display keeps from one line to the next.
#[derive(Debug)]
pub struct EtaLine {
    /// `--eta-newline`: start a new line once this long has passed.
    newline: Option<Duration>,
    line_started: Option<Instant>,
    newline_pending: bool,
    /// The last line's length, which a shorter one is padded to.
    last_len: usize,
    /// An estimate has been shown (fio's `eta_good`): from then on a zero
    /// ETA shows its percentage.
    eta_good: bool,
}

impl EtaLine {
    pub fn new(newline: Option<Duration>) -> EtaLine {
        EtaLine {
            newline,
            line_started: None,
            newline_pending: false,
            last_len: 0,
            eta_good: false,
        }
    }

    /// The text that draws `je`: the status, ended by `\r`, after a new
    /// line when one is due.
    pub fn draw(&mut self, je: &JobsEta) -> String {
        let mut out = String::new();
        let mut perc = 0.0;
        let mut eta_str = String::new();
        if je.eta_sec != ETA_UNKNOWN && je.elapsed_sec != 0 {
            perc = je.elapsed_sec as f64 / (je.elapsed_sec as f64 + je.eta_sec as f64);
            eta_str = eta_to_str(je.eta_sec);
        }
        if std::mem::take(&mut self.newline_pending) {
            self.last_len = 0;
            out.push('\n');
        }
        let start = out.len();
        out += &format!("Jobs: {} (f={})", je.nr_running, je.files_open);
        let sum = |v: &[u64; 3]| v.iter().sum::<u64>();
        let sum32 = |v: &[u32; 3]| v.iter().map(|&x| u64::from(x)).sum::<u64>();
        let sig = je.sig_figs as usize;
        if sum(&je.m_rate) != 0 || sum(&je.t_rate) != 0 {
            let show = |v| num2str(v, sig, 1, je.is_pow2, Unit::BytePerSec);
            out += &format!(", {}-{}", show(sum(&je.m_rate)), show(sum(&je.t_rate)));
        } else if sum32(&je.m_iops) != 0 || sum32(&je.t_iops) != 0 {
            out += &format!(", {}-{} IOPS", sum32(&je.m_iops), sum32(&je.t_iops));
        }
        if je.eta_sec != ETA_UNKNOWN && je.nr_running != 0 {
            let perc_str = if (je.eta_sec == 0 && !self.eta_good)
                || je.nr_ramp == je.nr_running
                || je.eta_sec == NO_PROGRESS
            {
                "-.-%".to_string()
            } else {
                let mut mult = 100.0;
                if je.nr_setting_up != 0 {
                    mult *= 1.0 - f64::from(je.nr_setting_up) / f64::from(je.nr_running);
                }
                self.eta_good = true;
                format!("{:3.1}%", perc * mult)
            };
            out += &format!(": [{}][{perc_str}]", je.run_str);
            out += &rates(je);
            out += &format!("[eta {eta_str}]");
            let len = out.len() - start;
            if len < self.last_len {
                out += &" ".repeat(self.last_len - len);
            }
            self.last_len = len;
        }
        out.push('\r');
        let now = Instant::now();
        match self.line_started {
            None => self.line_started = Some(now),
            Some(t) if self.newline.is_some_and(|every| now - t > every) => {
                self.line_started = Some(now);
                self.newline_pending = true;
            }
            Some(_) => {}
        }
        out
    }
}

/// fio's gen_eta_str: `[r=...,w=...][r=...,w=... IOPS]` for the
/// directions that moved, nothing when none did.
fn rates(je: &JobsEta) -> String {
    let unit = match je.unit_base {
        UNIT_BYTES => Unit::BytePerSec,
        UNIT_BITS => Unit::BitPerSec,
        2 => Unit::Byte,
        _ => Unit::None,
    };
    let moved: Vec<usize> = (0..3)
        .filter(|&d| je.rate[d] != 0 || je.iops[d] != 0)
        .collect();
    if moved.is_empty() {
        return String::new();
    }
    let letter = ['r', 'w', 't'];
    let list = |show: &dyn Fn(usize) -> String| {
        (moved.iter())
            .map(|&d| format!("{}={}", letter[d], show(d)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let bw = list(&|d| num2str(je.rate[d], 4, 1024, je.is_pow2, unit));
    let iops = list(&|d| num2str(u64::from(je.iops[d]), 4, 1, false, Unit::None));
    format!("[{bw}][{iops} IOPS]")
}

/// fio's eta_to_str: `05m:03s`, with hours (`01h:05m:03s`) and days
/// when there are any; `--` when no progress can be told.
pub fn eta_to_str(eta_sec: u64) -> String {
    if eta_sec == NO_PROGRESS {
        return "--".into();
    }
    let (s, m, h, d) = (
        eta_sec % 60,
        eta_sec / 60 % 60,
        eta_sec / 3600 % 24,
        eta_sec / 86400,
    );
    let mut out = String::new();
    if d != 0 {
        out += &format!("{d:02}d:");
    }
    if h != 0 || d != 0 {
        out += &format!("{h:02}h:");
    }
    out + &format!("{m:02}m:{s:02}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running() -> JobsEta {
        JobsEta {
            nr_running: 1,
            files_open: 1,
            rate: [35_756_339, 0, 0],
            iops: [8_928_000, 0, 0],
            elapsed_sec: 3,
            eta_sec: 1,
            is_pow2: true,
            unit_base: UNIT_BYTES,
            sig_figs: 4,
            nr_threads: 1,
            run_str: "r(1)".into(),
            ..JobsEta::default()
        }
    }

    #[test]
    fn a_running_job_reads_as_fios_line() {
        // fio 3.33, `--eta=always` on a null-engine randread job.
        let mut line = EtaLine::new(None);
        assert_eq!(
            line.draw(&running()),
            "Jobs: 1 (f=1): [r(1)][75.0%][r=34.1GiB/s][r=8928k IOPS][eta 00m:01s]\r"
        );
    }

    #[test]
    fn before_an_estimate_only_the_counts_show() {
        let je = JobsEta {
            eta_sec: ETA_UNKNOWN,
            ..running()
        };
        assert_eq!(EtaLine::new(None).draw(&je), "Jobs: 1 (f=1)\r");
    }

    #[test]
    fn a_shorter_line_is_padded_over_the_longer_one() {
        let mut line = EtaLine::new(None);
        let long = line.draw(&running());
        let short = line.draw(&JobsEta {
            rate: [0; 3],
            iops: [0; 3],
            ..running()
        });
        assert_eq!(short.len(), long.len());
        assert!(short.starts_with("Jobs: 1 (f=1): [r(1)][75.0%][eta 00m:01s]   "));
    }

    #[test]
    fn rate_limits_and_mixed_directions() {
        let je = JobsEta {
            t_rate: [1 << 20, 0, 0],
            rate: [1024, 2048, 0],
            iops: [256, 512, 0],
            ..running()
        };
        assert_eq!(
            EtaLine::new(None).draw(&je),
            "Jobs: 1 (f=1), 0B/s-1024KiB/s: [r(1)][75.0%][r=1024KiB/s,w=2048KiB/s]\
             [r=256,w=512 IOPS][eta 00m:01s]\r"
        );
    }

    #[test]
    fn a_ramping_job_has_no_percentage() {
        let je = JobsEta {
            nr_ramp: 1,
            ..running()
        };
        assert!(EtaLine::new(None).draw(&je).contains("[r(1)][-.-%]"));
    }

    #[test]
    fn eta_strings() {
        assert_eq!(eta_to_str(0), "00m:00s");
        assert_eq!(eta_to_str(3 * 60 + 5), "03m:05s");
        assert_eq!(eta_to_str(3600 + 5), "01h:00m:05s");
        assert_eq!(eta_to_str(86400 * 2 + 5), "02d:00h:00m:05s");
    }

    #[test]
    fn a_new_line_starts_once_its_time_has_passed() {
        let mut line = EtaLine::new(Some(Duration::ZERO));
        assert!(!line.draw(&running()).starts_with('\n'));
        std::thread::sleep(Duration::from_millis(2));
        let _ = line.draw(&running());
        assert!(line.draw(&running()).starts_with('\n'));
    }
}
