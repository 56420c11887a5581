//! Shares of distributions as fio computes them: the I/O depth lines
//! (stat_calc_dist) and the coarse latency lines (stat_calc_lat).

use crate::cfmt::fixed;
use ioscope_stats::{JobResult, LatencyBuckets};

/// Percent of `total` in each bucket; a non-empty bucket under 0.1% shows as 0.1%.
pub fn depth_shares(counts: &[u64; 7], total: u64) -> [f64; 7] {
    let mut out = [0.0; 7];
    for (o, &c) in out.iter_mut().zip(counts) {
        if total != 0 {
            *o = c as f64 / total as f64 * 100.0;
            if *o < 0.1 && c != 0 {
                *o = 0.1;
            }
        }
    }
    out
}

/// Percent of `total` in each bucket; a non-empty bucket under 0.01% shows as 0.01%.
pub fn lat_shares(counts: &[u64], total: u64) -> Vec<f64> {
    counts
        .iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let v = c as f64 / total as f64 * 100.0;
            if v < 0.01 && c != 0 {
                0.01
            } else {
                v
            }
        })
        .collect()
}

/// The I/Os that fio divides depth and latency counts by: reads, writes
/// and trims issued (ddir_rw_sum(total_io_u)).
pub fn issued_rw(job: &JobResult) -> u64 {
    job.issued.iter().sum()
}

pub const LAT_RANGES: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// fio's show_lat(): up to five `range=share%` entries per line, only
/// buckets that have something.
fn show_lat(shares: &[f64], unit: &str) -> String {
    let mut out = String::new();
    let mut on_line = 0;
    let mut lines = 0;
    for (i, &v) in shares.iter().enumerate() {
        if v <= 0.0 {
            continue;
        }
        if on_line == 0 {
            if lines > 0 {
                out.push('\n');
            }
            out.push_str(&format!("  lat ({unit})   : "));
            lines += 1;
        } else {
            out.push_str(", ");
        }
        out.push_str(&format!("{}={}%", LAT_RANGES[i], fixed(v, 2)));
        on_line += 1;
        if on_line == 5 {
            on_line = 0;
        }
    }
    if lines > 0 {
        out.push('\n');
    }
    out
}

/// fio's show_latencies(): the `lat (nsec)`, `lat (usec)`, `lat (msec)` lines.
pub fn latency_lines(b: &LatencyBuckets, total: u64) -> String {
    let mut out = show_lat(&lat_shares(&b.nsec, total), "nsec");
    out.push_str(&show_lat(&lat_shares(&b.usec, total), "usec"));
    out.push_str(&show_lat(&lat_shares(&b.msec, total), "msec"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_per_line() {
        // fio 3.33:
        //   lat (usec)   : 2=0.17%, 4=40.26%, 10=9.35%, 20=0.88%, 50=27.88%
        //   lat (usec)   : 100=17.24%, 250=3.34%, 500=0.51%, 750=0.24%, 1000=0.02%
        //   lat (msec)   : 2=0.07%, 4=0.02%
        let b = LatencyBuckets {
            nsec: [0; 10],
            usec: [7, 1649, 383, 36, 1142, 706, 137, 21, 10, 1],
            msec: [3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        };
        let want = "  lat (usec)   : 2=0.17%, 4=40.26%, 10=9.35%, 20=0.88%, 50=27.88%
  lat (usec)   : 100=17.24%, 250=3.34%, 500=0.51%, 750=0.24%, 1000=0.02%
  lat (msec)   : 2=0.07%, 4=0.02%
";
        assert_eq!(latency_lines(&b, 4096), want);
    }

    #[test]
    fn tiny_shares_show_as_minimum() {
        assert_eq!(lat_shares(&[1, 0], 1_000_000), vec![0.01, 0.0]);
        let d = depth_shares(&[1, 999_999, 0, 0, 0, 0, 0], 1_000_000);
        assert_eq!(d[0], 0.1);
        assert_eq!(d[2], 0.0);
    }

    #[test]
    fn nothing_when_empty() {
        assert_eq!(latency_lines(&LatencyBuckets::default(), 0), "");
    }
}
