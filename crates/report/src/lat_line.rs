//! The `    clat (usec): min=29, max=2097, avg=66.13, stdev=96.93` lines:
//! fio's choice of nsec/usec/msec and its number formatting.

use crate::cfmt::padded;
use crate::num2str::{num2str, Unit};
use crate::stat::Stat;

/// A latency summary scaled to the unit fio would print it in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    pub unit: &'static str,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub dev: f64,
}

/// fio's nsec_to_msec / nsec_to_usec: msec when min > 2 ms, max > 100 ms and
/// stdev > 1 ms; usec when min > 2 us, max > 100 us and stdev > 1 us.
pub fn scale(min: u64, max: u64, mean: f64, dev: f64) -> Scaled {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        Scaled {
            unit: "msec",
            min: min / 1_000_000,
            max: max / 1_000_000,
            mean: mean / 1_000_000.0,
            dev: dev / 1_000_000.0,
        }
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        Scaled {
            unit: "usec",
            min: min / 1000,
            max: max / 1000,
            mean: mean / 1000.0,
            dev: dev / 1000.0,
        }
    } else {
        Scaled {
            unit: "nsec",
            min,
            max,
            mean,
            dev,
        }
    }
}

/// One `display_lat()` line; `name` is "slat", "clat" or " lat".
pub fn line(name: &str, stat: &Stat) -> String {
    let s = scale(stat.min, stat.max, stat.mean, stat.dev);
    format!(
        "    {name} ({}): min={}, max={}, avg={}, stdev={}\n",
        s.unit,
        num2str(s.min, 6, 1, false, Unit::None),
        num2str(s.max, 6, 1, false, Unit::None),
        padded(s.mean, 5, 2),
        padded(s.dev, 5, 2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(min: u64, max: u64, mean: f64, dev: f64) -> Stat {
        Stat {
            samples: 10,
            min,
            max,
            mean,
            dev,
        }
    }

    #[test]
    fn usec_when_all_three_are_large() {
        // fio 3.33: "clat (usec): min=29, max=2097, avg=66.13, stdev=96.93"
        let l = line("clat", &stat(29_500, 2_097_400, 66_130.0, 96_930.0));
        assert_eq!(
            l,
            "    clat (usec): min=29, max=2097, avg=66.13, stdev=96.93\n"
        );
    }

    #[test]
    fn nsec_when_min_is_small() {
        // fio 3.33: "clat (nsec): min=587, max=3245.2k, avg=32313.40, stdev=44534.39"
        let l = line("clat", &stat(587, 3_245_236, 32313.40, 44534.39));
        assert_eq!(
            l,
            "    clat (nsec): min=587, max=3245.2k, avg=32313.40, stdev=44534.39\n"
        );
    }

    #[test]
    fn nsec_when_stdev_is_small() {
        let s = scale(30_000, 200_000, 40_000.0, 900.0);
        assert_eq!(s.unit, "nsec");
    }

    #[test]
    fn msec() {
        let s = scale(3_000_000, 150_000_000, 9_000_000.0, 2_000_000.0);
        assert_eq!((s.unit, s.min, s.max), ("msec", 3, 150));
    }

    #[test]
    fn small_numbers_are_padded() {
        let l = line(" lat", &stat(61, 170, 78.8, 0.0));
        assert_eq!(
            l,
            "     lat (nsec): min=61, max=170, avg=78.80, stdev= 0.00\n"
        );
    }
}
