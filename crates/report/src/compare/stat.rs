//! The statistic: the mean of per-run values with Student's t interval,
//! and the difference of two means with Welch's interval (unequal
//! variances, Welch–Satterthwaite degrees of freedom). Each run is one
//! sample: the I/Os inside a run are not independent of each other, the
//! runs are (interleaved, so drift in the machine spreads over all
//! configurations alike).

use super::student_t::quantile_975;

/// Mean, spread and 95% confidence interval of one metric over the runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    /// Sample standard deviation (n-1); 0 with one run.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    /// The interval of the mean; the mean itself with one run (no
    /// interval can be given).
    pub ci_low: f64,
    pub ci_high: f64,
}

impl Stat {
    /// The statistic of `samples`, which must not be empty.
    pub fn of(samples: &[f64]) -> Stat {
        let n = samples.len();
        let mean = mean(samples);
        let stddev = variance(samples, mean).sqrt();
        let half = if n > 1 {
            quantile_975(n as f64 - 1.0) * stddev / (n as f64).sqrt()
        } else {
            0.0
        };
        Stat {
            mean,
            stddev,
            min: samples.iter().copied().fold(f64::INFINITY, f64::min),
            max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n,
            ci_low: mean - half,
            ci_high: mean + half,
        }
    }

    /// Half the interval's width: the "±" of the tables.
    pub fn half_width(&self) -> f64 {
        0.5 * (self.ci_high - self.ci_low)
    }
}

fn mean(samples: &[f64]) -> f64 {
    samples.iter().sum::<f64>() / samples.len() as f64
}

/// Sample variance (n-1); 0 with one sample.
fn variance(samples: &[f64], mean: f64) -> f64 {
    if samples.len() < 2 {
        return 0.0;
    }
    samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (samples.len() - 1) as f64
}

/// Which way is better for a metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Latency, CPU per I/O: less is faster.
    Lower,
    /// IOPS, bandwidth: more is higher.
    Higher,
}

/// What a difference says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Faster,
    Slower,
    Higher,
    Lower,
    /// The interval contains 0.
    NoDifference,
}

impl Verdict {
    /// The word of the JSON documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Higher => "higher",
            Verdict::Lower => "lower",
            Verdict::NoDifference => "no difference",
        }
    }
}

/// A configuration's difference from the baseline in one metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diff {
    /// other − baseline, in the metric's unit, with its 95% interval.
    pub diff_abs: f64,
    pub ci_low_abs: f64,
    pub ci_high_abs: f64,
    /// The same in percent of the baseline's mean (0 when that is 0).
    pub diff_pct: f64,
    pub ci_low_pct: f64,
    pub ci_high_pct: f64,
    pub verdict: Verdict,
}

impl Diff {
    /// `other` − `baseline` by Welch's interval; None unless both have at
    /// least two runs (one run gives no variance to judge by).
    pub fn between(baseline: &[f64], other: &[f64], better: Better) -> Option<Diff> {
        let (nb, no) = (baseline.len() as f64, other.len() as f64);
        if nb < 2.0 || no < 2.0 {
            return None;
        }
        let (mb, mo) = (mean(baseline), mean(other));
        let (vb, vo) = (variance(baseline, mb) / nb, variance(other, mo) / no);
        let se2 = vb + vo;
        let diff = mo - mb;
        let half = if se2 > 0.0 {
            let df = se2 * se2 / (vb * vb / (nb - 1.0) + vo * vo / (no - 1.0));
            quantile_975(df) * se2.sqrt()
        } else {
            // Every run of both gave the same value: the difference is
            // exactly what it is.
            0.0
        };
        let (low, high) = (diff - half, diff + half);
        let pct = |x: f64| if mb == 0.0 { 0.0 } else { x / mb * 100.0 };
        let verdict = if low <= 0.0 && high >= 0.0 {
            Verdict::NoDifference
        } else {
            match (better, diff > 0.0) {
                (Better::Lower, true) => Verdict::Slower,
                (Better::Lower, false) => Verdict::Faster,
                (Better::Higher, true) => Verdict::Higher,
                (Better::Higher, false) => Verdict::Lower,
            }
        };
        Some(Diff {
            diff_abs: diff,
            ci_low_abs: low,
            ci_high_abs: high,
            diff_pct: pct(diff),
            ci_low_pct: pct(low),
            ci_high_pct: pct(high),
            verdict,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64* and Box–Muller: normal samples from a fixed seed, so
    /// the trials below give the same verdicts on every machine.
    struct Normal(u64);

    impl Normal {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
            ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }

        fn sample(&mut self, mean: f64, sd: f64) -> f64 {
            let (u, v) = (self.uniform(), self.uniform());
            mean + sd * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }

        fn samples(&mut self, n: usize, mean: f64, sd: f64) -> Vec<f64> {
            (0..n).map(|_| self.sample(mean, sd)).collect()
        }
    }

    fn verdicts(shift: f64, better: Better) -> Vec<Verdict> {
        let mut rng = Normal(0x1234_5678_9abc_def1);
        (0..20)
            .map(|_| {
                let a = rng.samples(5, 10_000.0, 300.0);
                let b = rng.samples(5, 10_000.0 + shift, 300.0);
                Diff::between(&a, &b, better).unwrap().verdict
            })
            .collect()
    }

    #[test]
    fn one_distribution_is_no_difference_in_19_of_20_trials() {
        let v = verdicts(0.0, Better::Lower);
        let same = v.iter().filter(|&&v| v == Verdict::NoDifference).count();
        assert!(same >= 19, "{v:?}");
    }

    #[test]
    fn a_clear_shift_gets_the_right_word() {
        // Four standard deviations apart, five runs each.
        let slower = verdicts(1200.0, Better::Lower);
        assert!(slower.iter().all(|&v| v == Verdict::Slower), "{slower:?}");
        let faster = verdicts(-1200.0, Better::Lower);
        assert!(faster.iter().all(|&v| v == Verdict::Faster), "{faster:?}");
        let higher = verdicts(1200.0, Better::Higher);
        assert!(higher.iter().all(|&v| v == Verdict::Higher), "{higher:?}");
        let lower = verdicts(-1200.0, Better::Higher);
        assert!(lower.iter().all(|&v| v == Verdict::Lower), "{lower:?}");
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // Means 20 and 24; variances 2.5 and 10 (n = 5 each): se² = 2.5,
        // df = 2.5² / (0.5²/4 + 2²/4) = 5.88, so t lies between the
        // table's t(6) = 2.4469 and t(5) = 2.5706, near t(6).
        let a = [18.0, 19.0, 20.0, 21.0, 22.0];
        let b = [20.0, 22.0, 24.0, 26.0, 28.0];
        let d = Diff::between(&a, &b, Better::Lower).unwrap();
        assert_eq!(d.diff_abs, 4.0);
        let half = d.ci_high_abs - d.diff_abs;
        let t = half / 2.5_f64.sqrt();
        assert!(t > 2.4469 && t < 2.47, "{t}");
        assert!((d.diff_pct - 20.0).abs() < 1e-12);
        assert_eq!(d.verdict, Verdict::Slower);
    }

    #[test]
    fn identical_constant_runs_are_no_difference() {
        let d = Diff::between(&[5.0, 5.0], &[5.0, 5.0], Better::Higher).unwrap();
        assert_eq!(d.verdict, Verdict::NoDifference);
        assert_eq!((d.ci_low_abs, d.ci_high_abs), (0.0, 0.0));
    }

    #[test]
    fn one_run_gives_no_difference_to_judge() {
        assert!(Diff::between(&[1.0], &[2.0, 3.0], Better::Lower).is_none());
    }

    #[test]
    fn the_mean_interval_uses_t_with_n_minus_one() {
        let s = Stat::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!((s.mean, s.min, s.max, s.n), (3.0, 1.0, 5.0, 5));
        // sd = sqrt(2.5); t(4) = 2.7764.
        assert!((s.half_width() - 2.7764 * (2.5_f64 / 5.0).sqrt()).abs() < 1e-3);
        let one = Stat::of(&[7.0]);
        assert_eq!((one.stddev, one.ci_low, one.ci_high), (0.0, 7.0, 7.0));
    }
}
