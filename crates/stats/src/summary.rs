//! min/max/mean/stddev of a stream of samples, merged the way fio merges them.

/// fio's `struct io_stat`: count, extremes, running mean and the running sum
/// of squared differences from the mean (Welford), so that the printed
/// avg/stdev are the very doubles fio would print for the same samples.
/// A worker's latencies reach it through [`crate::Moments`], which adds
/// them up in integers and folds them in here a block at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    mean: f64,
    /// Sum of squared differences from the mean (fio's `S`).
    m2: f64,
}

impl Summary {
    /// A summary of `samples` samples with these extremes, mean and S.
    pub fn from_parts(samples: u64, min: u64, max: u64, mean: f64, m2: f64) -> Summary {
        Summary {
            samples,
            min,
            max,
            mean,
            m2,
        }
    }

    /// fio's add_stat_sample, step for step: the mean and S move only when
    /// the sample differs from the mean, which keeps rounding identical.
    #[inline]
    pub fn add(&mut self, value: u64) {
        if self.samples == 0 || value < self.min {
            self.min = value;
        }
        if value > self.max {
            self.max = value;
        }
        let val = value as f64;
        let delta = val - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.samples as f64 + 1.0);
            self.m2 += delta * (val - self.mean);
        }
        self.samples += 1;
    }

    /// Combines two sets of time samples (fio's sum_stat without pure_sum,
    /// used for slat/clat/lat/sync): the parallel variance algorithm.
    pub fn merge(&mut self, other: &Summary) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        // Same operand order and integer/float conversions as fio's
        // __sum_stat, so the merged doubles match bit for bit.
        let delta = other.mean - self.mean;
        let total = (self.samples + other.samples) as f64;
        let mean = (other.mean * other.samples as f64 + self.mean * self.samples as f64) / total;
        let m2 = other.m2 + self.m2 + delta * delta * (self.samples * other.samples) as f64 / total;
        self.samples += other.samples;
        self.mean = mean;
        self.m2 = m2;
    }

    /// Adds up rate samples of jobs that ran side by side (fio's sum_stat
    /// with pure_sum, used for bw and iops under group_reporting): min, max,
    /// mean and S are summed, not averaged, because the jobs' rates add.
    pub fn sum(&mut self, other: &Summary) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.samples += other.samples;
        self.mean += other.mean;
        self.m2 += other.m2;
    }

    /// The running mean; 0 with no samples.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The sum of squared differences from the mean (fio's `S`).
    pub fn s(&self) -> f64 {
        self.m2
    }

    /// Sample standard deviation (n-1), 0 with fewer than two samples.
    pub fn stddev(&self) -> f64 {
        if self.samples > 1 {
            (self.m2 / (self.samples as f64 - 1.0)).sqrt()
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u64]) -> Summary {
        let mut s = Summary::default();
        for &v in values {
            s.add(v);
        }
        s
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn empty_is_all_zero() {
        let s = Summary::default();
        assert_eq!((s.samples, s.min, s.max), (0, 0, 0));
        assert_eq!(s.mean(), 0.0);
        assert_eq!(s.stddev(), 0.0);
    }

    #[test]
    fn one_sample_has_no_spread() {
        let s = of(&[7]);
        assert_eq!((s.samples, s.min, s.max), (1, 7, 7));
        assert_eq!(s.mean(), 7.0);
        assert_eq!(s.stddev(), 0.0);
    }

    #[test]
    fn matches_two_pass_formulas() {
        let values = [10, 3, 8, 8, 1000, 0, 42, 17, 17, 5];
        let s = of(&values);
        let n = values.len() as f64;
        let mean = values.iter().sum::<u64>() as f64 / n;
        let var = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        assert_eq!((s.samples, s.min, s.max), (10, 0, 1000));
        assert!(close(s.mean(), mean));
        assert!(close(s.stddev(), var.sqrt()));
    }

    #[test]
    fn zero_first_sample_sets_min() {
        let s = of(&[0, 5]);
        assert_eq!((s.min, s.max), (0, 5));
    }

    #[test]
    fn merge_equals_adding_everything_to_one() {
        let a = [5, 9, 100, 7];
        let b = [1, 2, 3, 4000, 6, 6];
        let mut merged = of(&a);
        merged.merge(&of(&b));
        let all: Vec<u64> = a.iter().chain(b.iter()).copied().collect();
        let direct = of(&all);
        assert_eq!(
            (merged.samples, merged.min, merged.max),
            (direct.samples, direct.min, direct.max)
        );
        assert!(close(merged.mean(), direct.mean()));
        assert!(close(merged.stddev(), direct.stddev()));
    }

    #[test]
    fn merge_with_empty_sides() {
        let a = of(&[4, 6]);
        let mut empty = Summary::default();
        empty.merge(&a);
        assert_eq!(empty, a);
        let mut b = a;
        b.merge(&Summary::default());
        assert_eq!(b, a);
    }

    #[test]
    fn sum_adds_rates() {
        let mut a = of(&[100, 200]);
        a.sum(&of(&[10, 30, 50]));
        assert_eq!((a.samples, a.min, a.max), (5, 110, 250));
        assert_eq!(a.mean(), 150.0 + 30.0);
        let mut empty = Summary::default();
        empty.sum(&of(&[3]));
        assert_eq!((empty.samples, empty.min, empty.max), (1, 3, 3));
    }
}
