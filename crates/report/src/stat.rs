//! The figures fio's `calc_lat()` takes out of a running summary.

use ioscope_stats::Summary;

/// min/max/mean/stddev of a summary that has samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub dev: f64,
}

impl Stat {
    /// None when there are no samples (fio then prints no line, and zeros in JSON).
    pub fn of(summary: &Summary) -> Option<Stat> {
        if summary.samples == 0 {
            return None;
        }
        Some(Stat {
            samples: summary.samples,
            min: summary.min,
            max: summary.max,
            mean: summary.mean(),
            dev: if summary.samples > 1 {
                summary.stddev()
            } else {
                0.0
            },
        })
    }

    /// What fio writes to JSON for a summary without samples.
    pub fn zero() -> Stat {
        Stat {
            samples: 0,
            min: 0,
            max: 0,
            mean: 0.0,
            dev: 0.0,
        }
    }

    pub fn of_or_zero(summary: &Summary) -> Stat {
        Stat::of(summary).unwrap_or_else(Stat::zero)
    }
}
