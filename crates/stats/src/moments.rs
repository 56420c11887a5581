//! The per-I/O latency accumulator: integer sums and no division per
//! sample, folded into a [`Summary`] (fio's running mean and S) once per
//! block of samples.
//!
//! fio's add_stat_sample divides once per sample (Welford's running mean);
//! three latencies per I/O made that the largest part of settling a
//! completion. Here a sample costs a subtraction, a multiply and three
//! additions; the division happens once per [`BLOCK`] samples, where the
//! block's mean and S are computed exactly from its integer sums and merged
//! into the running summary with the parallel-variance formula fio uses to
//! merge jobs. The result agrees with fio's running figures to the
//! rounding of a double, not bit for bit.

use crate::Summary;

/// Samples per block. The block's sums are exact for samples below
/// [`MAX_VALUE`]: `BLOCK` × 2^53 fits the u64 sum, and `BLOCK` × 2^106 the
/// u128 sum of squares with room for the final `n` × S2.
const BLOCK: u32 = 1024;

/// 2^53 ns is 104 days: no latency comes near it. A larger value (a clock
/// gone wrong) counts as this in the sums, so that they stay exact; min
/// and max keep it as it came.
const MAX_VALUE: u64 = (1 << 53) - 1;

/// count, min, max, mean and S of a stream of latencies in ns.
#[derive(Clone, Copy, Debug)]
pub struct Moments {
    /// The blocks folded so far.
    folded: Summary,
    /// Samples in the open block, their sum and the sum of their squares.
    n: u32,
    s1: u64,
    s2: u128,
    min: u64,
    max: u64,
}

impl Default for Moments {
    fn default() -> Moments {
        Moments {
            folded: Summary::default(),
            n: 0,
            s1: 0,
            s2: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Moments {
    #[inline]
    pub fn add(&mut self, value: u64) {
        let v = value.min(MAX_VALUE);
        self.s1 += v;
        self.s2 += u128::from(v) * u128::from(v);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.n += 1;
        if self.n == BLOCK {
            self.fold();
        }
    }

    /// Adds `count` samples of the same value (a batch of completions timed
    /// by one clock read): the sums of `count` calls of [`Moments::add`],
    /// in one step per block.
    #[inline]
    pub fn add_n(&mut self, value: u64, count: u32) {
        if count == 1 {
            // One sample (known where this is inlined): no block loop.
            return self.add(value);
        }
        let v = value.min(MAX_VALUE);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        let mut left = count;
        while left > 0 {
            // A block never holds more than BLOCK samples, which keeps its
            // sums exact.
            let k = left.min(BLOCK - self.n);
            self.s1 += v * u64::from(k);
            self.s2 += u128::from(v) * u128::from(v) * u128::from(k);
            self.n += k;
            left -= k;
            if self.n == BLOCK {
                self.fold();
            }
        }
    }

    /// Samples added.
    pub fn samples(&self) -> u64 {
        self.folded.samples + u64::from(self.n)
    }

    /// The figures so far, as fio's running summary holds them.
    pub fn summary(&self) -> Summary {
        let mut s = self.folded;
        s.merge(&self.open_block());
        s
    }

    #[cold]
    fn fold(&mut self) {
        let block = self.open_block();
        self.folded.merge(&block);
        self.n = 0;
        self.s1 = 0;
        self.s2 = 0;
    }

    /// The open block's count, extremes, mean and S, exact but for the
    /// final rounding to doubles.
    fn open_block(&self) -> Summary {
        if self.n == 0 {
            return Summary::default();
        }
        let n = u128::from(self.n);
        let s1 = u128::from(self.s1);
        // n·S2 − S1² is n² times the variance sum over n: exact in
        // integers, and never negative.
        let spread = (n * self.s2).saturating_sub(s1 * s1);
        let mean = self.s1 as f64 / self.n as f64;
        let m2 = spread as f64 / self.n as f64;
        Summary::from_parts(u64::from(self.n), self.min, self.max, mean, m2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    /// Values with a large mean and a small spread, over several blocks
    /// and a partial one: the summary is fio's (Welford) to a double's
    /// rounding, and min, max and the count are exact.
    #[test]
    fn agrees_with_the_running_summary_across_blocks() {
        let values: Vec<u64> = (0..5000u64)
            .map(|i| 1_000_000 + (i * 7919) % 97 + if i == 4321 { 5_000_000 } else { 0 })
            .collect();
        let mut m = Moments::default();
        let mut w = Summary::default();
        for &v in &values {
            m.add(v);
            w.add(v);
        }
        let s = m.summary();
        assert_eq!((s.samples, s.min, s.max), (w.samples, w.min, w.max));
        assert_eq!(m.samples(), 5000);
        assert!(close(s.mean(), w.mean()), "{} {}", s.mean(), w.mean());
        assert!(
            close(s.stddev(), w.stddev()),
            "{} {}",
            s.stddev(),
            w.stddev()
        );
        // And against the two-pass formulas.
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        assert!(close(s.mean(), mean));
        assert!(close(s.stddev(), var.sqrt()));
    }

    #[test]
    fn empty_and_single() {
        let m = Moments::default();
        assert_eq!(m.summary(), Summary::default());
        let mut m = Moments::default();
        m.add(42);
        let s = m.summary();
        assert_eq!(
            (s.samples, s.min, s.max, s.mean(), s.stddev()),
            (1, 42, 42, 42.0, 0.0)
        );
    }

    /// A sample below the block's first gives a negative offset.
    #[test]
    fn offsets_below_the_first_sample() {
        let mut m = Moments::default();
        for v in [100, 3, 250, 0] {
            m.add(v);
        }
        let s = m.summary();
        assert_eq!((s.min, s.max), (0, 250));
        assert!(close(s.mean(), 88.25));
    }

    /// Runs of equal samples, one of them longer than a block and several
    /// across block boundaries: the same summary, bit for bit, as adding
    /// each sample alone (the blocks close at the same samples).
    #[test]
    fn a_run_of_equal_samples_is_the_samples_one_by_one() {
        let runs = [
            (5_000u64, 3u32),
            (7, 1_500),
            (9_000_000, 1),
            (12, 1_024),
            (40, 700),
        ];
        let mut one_by_one = Moments::default();
        let mut in_runs = Moments::default();
        for (v, k) in runs {
            for _ in 0..k {
                one_by_one.add(v);
            }
            in_runs.add_n(v, k);
        }
        assert_eq!(in_runs.samples(), one_by_one.samples());
        assert_eq!(in_runs.summary(), one_by_one.summary());
    }
}
