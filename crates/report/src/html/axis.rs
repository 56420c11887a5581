//! Axes of the charts: the range of values shown, linear or logarithmic,
//! where a value falls, the ticks, and how a figure is written on them.

/// A number for a tick or a label: at most three significant digits, with
/// k, M and G for thousands, millions and billions.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let a = scaled.abs();
    let digits = if a == 0.0 || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{scaled:.digits$}");
    // 1.50 reads as 1.5, 2.00 as 2.
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}

/// One axis: the data range it shows, linear or logarithmic, and its label
/// (with the unit).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub label: String,
}

impl Axis {
    /// A linear axis from 0 (or the lowest value, when below 0) to a
    /// rounded maximum of `values`.
    pub fn linear(label: &str, values: impl IntoIterator<Item = f64>) -> Axis {
        let (lo, hi) = bounds(values);
        let lo = lo.min(0.0);
        let hi = if hi > lo { hi } else { lo + 1.0 };
        let step = nice_step((hi - lo) / 5.0);
        Axis {
            lo,
            hi: (hi / step).ceil() * step,
            log: false,
            label: label.into(),
        }
    }

    /// A logarithmic axis from the power of ten at or below the least
    /// positive value to the one at or above the greatest; a linear one
    /// when no value is positive.
    pub fn log(label: &str, values: impl IntoIterator<Item = f64>) -> Axis {
        let (lo, hi) = bounds(values.into_iter().filter(|v| *v > 0.0));
        if !(lo > 0.0 && hi.is_finite()) {
            return Axis::linear(label, []);
        }
        let lo = 10f64.powf(lo.log10().floor());
        let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
        Axis {
            lo,
            hi,
            log: true,
            label: label.into(),
        }
    }

    /// Where `v` falls, from 0 (lo) to 1 (hi), clamped.
    pub fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            let v = v.max(self.lo);
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// The tick values: steps of 1, 2 or 5 times a power of ten on a
    /// linear axis; the powers of ten on a log axis, with 2 and 5 between
    /// them when it spans no more than two decades.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let decades = (self.hi / self.lo).log10().round() as i32;
            let mut out = Vec::new();
            let mut p = self.lo;
            for _ in 0..=decades {
                out.push(p);
                if decades <= 2 && p * 10.0 <= self.hi * 1.0001 {
                    out.extend([p * 2.0, p * 5.0]);
                }
                p *= 10.0;
            }
            out.retain(|t| *t <= self.hi * 1.0001);
            out
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let first = (self.lo / step).ceil() as i64;
            let last = (self.hi / step + 1e-9).floor() as i64;
            (first..=last).map(|i| i as f64 * step).collect()
        }
    }
}

/// The least and greatest finite values; (0, 0) when there are none.
fn bounds(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 0.0)
    }
}

/// The step of 1, 2 or 5 times a power of ten nearest above `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let m = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(12.26), "12.3");
        assert_eq!(num(250.0), "250");
        assert_eq!(num(9999.0), "9999");
        assert_eq!(num(12_345.0), "12.3k");
        assert_eq!(num(2_000_000.0), "2M");
        assert_eq!(num(0.0123), "0.012");
        assert_eq!(num(f64::NAN), "-");
    }

    #[test]
    fn linear_axes_round_up_and_tick_in_nice_steps() {
        let a = Axis::linear("x", [3.0, 87.0]);
        assert_eq!((a.lo, a.hi), (0.0, 100.0));
        assert_eq!(a.ticks(), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(a.frac(50.0), 0.5);
        assert_eq!(a.frac(150.0), 1.0);
        // No values: a unit axis, never a zero-width one.
        let e = Axis::linear("x", []);
        assert_eq!((e.lo, e.hi), (0.0, 1.0));
        assert!(e.frac(0.5).is_finite());
    }

    #[test]
    fn log_axes_span_whole_decades() {
        let a = Axis::log("lat", [1500.0, 2_300_000.0]);
        assert_eq!((a.lo, a.hi), (1000.0, 10_000_000.0));
        assert_eq!(a.ticks(), vec![1e3, 1e4, 1e5, 1e6, 1e7]);
        assert!((a.frac(1e5) - 0.5).abs() < 1e-12);
        // Below the axis is at its start; zero and negatives are ignored.
        assert_eq!(a.frac(1.0), 0.0);
        let narrow = Axis::log("lat", [0.0, 20.0, 30.0]);
        assert_eq!((narrow.lo, narrow.hi), (10.0, 100.0));
        assert_eq!(narrow.ticks(), vec![10.0, 20.0, 50.0, 100.0]);
        // Nothing positive: a linear axis.
        assert!(!Axis::log("lat", [0.0]).log);
    }
}
