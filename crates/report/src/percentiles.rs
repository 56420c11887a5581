//! Latency percentiles: fio's percentile list handling and the
//! `clat percentiles (usec):` block with its column layout.

use crate::cfmt::{fixed, padded};
use ioscope_stats::LatencyHistogram;

/// fio's default percentile_list.
pub const DEFAULT_LIST: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// fio's FIO_IO_U_LIST_MAX_LEN: at most this many percentiles are used.
pub const MAX_LEN: usize = 20;

/// The list fio prints: up to the first 0 entry and at most 20 entries,
/// sorted ascending (fio sorts it before use); fio's default when the job
/// gave none.
pub fn sorted_list(list: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = if list.is_empty() {
        DEFAULT_LIST.to_vec()
    } else {
        list.iter()
            .copied()
            .take(MAX_LEN)
            .take_while(|p| *p != 0.0)
            .collect()
    };
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v
}

/// fio's percentile_precision: the most decimals any entry of the list
/// needs (2 for the default list, 0 for `50:99`, 3 for `99.999`).
pub fn precision(list: &[f64]) -> usize {
    list.iter().map(|&p| decimals(p)).max().unwrap_or(0)
}

fn decimals(p: f64) -> usize {
    for d in 0..6 {
        let scaled = p * 10f64.powi(d as i32);
        if (scaled - scaled.round()).abs() <= 1e-9 * scaled.abs().max(1.0) {
            return d;
        }
    }
    6
}

/// The values (ns) of the percentiles in `list` (already sorted).
pub fn values(hist: &LatencyHistogram, list: &[f64]) -> Vec<u64> {
    if list.is_empty() || hist.count() == 0 {
        return Vec::new();
    }
    hist.percentiles(list)
}

/// The JSON key of a percentile: C's `%f`.
pub fn json_key(p: f64) -> String {
    fixed(p, 6)
}

/// fio's show_clat_percentiles(): `pre` is "clat", "lat" or "slat";
/// `values` are in ns, one per entry of `list`.
pub fn block(pre: &str, list: &[f64], values: &[u64], precision: usize) -> String {
    let len = list.len().min(values.len());
    if len == 0 {
        return String::new();
    }
    let values = &values[..len];
    let minv = *values.iter().min().unwrap();
    let maxv = *values.iter().max().unwrap();

    let (scale_down, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000u64, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let mut out = format!("    {pre} percentiles ({unit}):\n     |");

    let top = maxv / divisor;
    let time_width = if top == 0 {
        5
    } else {
        5.max(((top as f64).log10() + 1.0) as usize)
    };
    let per_line = (80 - 7) / (precision + 10 + time_width);

    for (j, (&p, &v)) in list.iter().zip(values).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let is_last = j == len - 1;
        let mut v = v;
        for _ in 0..scale_down {
            v = v.div_ceil(1000);
        }
        out.push_str(&format!(
            " {}th=[{:>time_width$}]{}",
            padded(p, precision + 3, precision),
            v,
            if is_last { '\n' } else { ',' }
        ));
        if is_last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_follows_the_list() {
        assert_eq!(precision(&DEFAULT_LIST), 2);
        assert_eq!(precision(&[50.0, 99.0]), 0);
        assert_eq!(precision(&[50.0, 99.999, 99.5]), 3);
    }

    #[test]
    fn list_is_sorted() {
        assert_eq!(sorted_list(&[99.0, 50.0]), vec![50.0, 99.0]);
        assert_eq!(sorted_list(&[]).len(), 17);
        assert_eq!(sorted_list(&[1.0; 30]).len(), MAX_LEN);
    }

    #[test]
    fn json_keys() {
        assert_eq!(json_key(99.0), "99.000000");
        assert_eq!(json_key(99.95), "99.950000");
    }

    #[test]
    fn usec_block_four_per_line() {
        // Values of a real fio 3.33 run (read, psync, 16 MiB).
        let ns = [
            32640, 34048, 35072, 36608, 38144, 39168, 40192, 41728, 42752, 44288, 47360, 56576,
            148480, 205824, 456704, 929792, 929792,
        ];
        let b = block("clat", &DEFAULT_LIST, &ns, 2);
        let want = "    clat percentiles (usec):
     |  1.00th=[   33],  5.00th=[   35], 10.00th=[   36], 20.00th=[   37],
     | 30.00th=[   39], 40.00th=[   40], 50.00th=[   41], 60.00th=[   42],
     | 70.00th=[   43], 80.00th=[   45], 90.00th=[   48], 95.00th=[   57],
     | 99.00th=[  149], 99.50th=[  206], 99.90th=[  457], 99.95th=[  930],
     | 99.99th=[  930]
";
        assert_eq!(b, want);
    }

    #[test]
    fn nsec_block_wide_values_three_per_line() {
        // fio 3.33, randrw with numjobs=2 and group_reporting.
        let ns = [
            1080, 1272, 1384, 1576, 1768, 2064, 27520, 47872, 54528, 59136, 67072, 76288, 148480,
            197632, 432128, 659456, 1187840,
        ];
        let b = block("clat", &DEFAULT_LIST, &ns, 2);
        let want = "    clat percentiles (nsec):
     |  1.00th=[   1080],  5.00th=[   1272], 10.00th=[   1384],
     | 20.00th=[   1576], 30.00th=[   1768], 40.00th=[   2064],
     | 50.00th=[  27520], 60.00th=[  47872], 70.00th=[  54528],
     | 80.00th=[  59136], 90.00th=[  67072], 95.00th=[  76288],
     | 99.00th=[ 148480], 99.50th=[ 197632], 99.90th=[ 432128],
     | 99.95th=[ 659456], 99.99th=[1187840]
";
        assert_eq!(b, want);
    }

    #[test]
    fn integer_list() {
        let b = block("clat", &[50.0, 99.0], &[70, 83], 0);
        assert_eq!(
            b,
            "    clat percentiles (nsec):\n     |  50th=[   70],  99th=[   83]\n"
        );
    }

    #[test]
    fn three_decimals() {
        let b = block("clat", &[50.0, 99.5, 99.999], &[59, 91, 42240], 3);
        assert_eq!(
            b,
            "    clat percentiles (nsec):\n     | 50.000th=[   59], 99.500th=[   91], 99.999th=[42240]\n"
        );
    }

    #[test]
    fn msec_block() {
        let b = block("lat", &[50.0, 99.0], &[2_500_000, 150_000_000], 2);
        assert_eq!(
            b,
            "    lat percentiles (msec):\n     | 50.00th=[    3], 99.00th=[  150]\n"
        );
    }
}
