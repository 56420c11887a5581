//! fio's log-linear latency histogram: 29 groups of 64 buckets, values in ns.
//!
//! Values below 128 have a bucket each. Above that, every power-of-two range
//! [2^m, 2^(m+1)) is cut into 64 equal buckets, so a bucket's width is at most
//! 1/64 of its group's lower bound and its middle is within 1/128 of any
//! value in it. The last bucket collects everything from about 17 s up.

use crate::percentile::threshold_reached;

/// fio's FIO_IO_U_PLAT_BITS: 2^6 = 64 buckets per group.
const PLAT_BITS: u32 = 6;
/// fio's FIO_IO_U_PLAT_VAL.
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// fio's FIO_IO_U_PLAT_GROUP_NR.
const PLAT_GROUP_NR: usize = 29;

/// Number of buckets (fio's FIO_IO_U_PLAT_NR).
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL as usize;

/// The bucket a value falls in (fio's plat_val_to_idx).
#[inline]
pub fn bucket_index(value: u64) -> usize {
    let msb = if value == 0 {
        0
    } else {
        63 - value.leading_zeros()
    };
    if msb <= PLAT_BITS {
        // Below 128 every value is its own bucket.
        return value as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as usize) << PLAT_BITS;
    let offset = ((PLAT_VAL - 1) & (value >> error_bits)) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// The value fio reports for a bucket (fio's plat_idx_to_val): the middle of
/// its range, or the value itself below 128.
///
/// # Panics
/// When `index >= PLAT_NR`.
pub fn bucket_value(index: usize) -> u64 {
    assert!(index < PLAT_NR, "histogram bucket {index} out of range");
    if index < (PLAT_VAL << 1) as usize {
        return index as u64;
    }
    let error_bits = (index >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = index as u64 % PLAT_VAL;
    // fio computes base + (k + 0.5) * 2^error_bits in doubles; error_bits is
    // at least 1 here, so the half is a whole number and this is exact.
    base + (k << error_bits) + (1u64 << (error_bits - 1))
}

/// Latency histogram with fio's buckets. The bins live on the heap (15 KiB),
/// allocated once by `new`/`default`; `add` is a single increment.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    /// Fixed length, so that indexing by `bucket_index` (always below
    /// PLAT_NR) needs no bounds check.
    bins: Box<[u64; PLAT_NR]>,
}

impl Default for LatencyHistogram {
    fn default() -> LatencyHistogram {
        LatencyHistogram::new()
    }
}

impl PartialEq for LatencyHistogram {
    fn eq(&self, other: &LatencyHistogram) -> bool {
        self.bins == other.bins
    }
}

impl LatencyHistogram {
    pub fn new() -> LatencyHistogram {
        // Built on the heap directly: a 15 KiB array on the stack first
        // would be copied for nothing.
        let bins: Box<[u64]> = vec![0; PLAT_NR].into_boxed_slice();
        LatencyHistogram {
            bins: bins.try_into().expect("PLAT_NR elements"),
        }
    }

    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.bins[bucket_index(ns)] += 1;
    }

    /// Counts `count` samples of the same value (a batch of completions
    /// timed by one clock read).
    #[inline]
    pub fn add_n(&mut self, ns: u64, count: u64) {
        self.bins[bucket_index(ns)] += count;
    }

    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (dst, src) in self.bins.iter_mut().zip(other.bins.iter()) {
            *dst += src;
        }
    }

    /// Number of samples in the histogram.
    pub fn count(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// Samples counted in bucket `index` (see `bucket_value`).
    pub fn bin(&self, index: usize) -> u64 {
        self.bins[index]
    }

    /// fio's rule (calc_clat_percentiles): for each p, the value of the first
    /// bucket whose cumulative count reaches p% of all samples. Several
    /// percentiles can land in one bucket; an empty histogram gives zeros.
    ///
    /// The result is in the order of `list`. fio sorts its list before
    /// printing; callers that print should pass it sorted too.
    pub fn percentiles(&self, list: &[f64]) -> Vec<u64> {
        let total = self.count();
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_by(|&a, &b| list[a].total_cmp(&list[b]));
        let mut out = vec![0; list.len()];
        let mut next = order.iter().peekable();
        let mut sum = 0u64;
        for (i, &count) in self.bins.iter().enumerate() {
            sum += count;
            while let Some(&&j) = next.peek() {
                if !threshold_reached(sum, list[j], total) {
                    break;
                }
                out[j] = bucket_value(i);
                next.next();
            }
            if next.peek().is_none() {
                break;
            }
        }
        out
    }

    /// (bucket value, count) of every non-empty bucket, in order: the
    /// "bins" object of fio's json+ output.
    pub fn nonzero_bins(&self) -> Vec<(u64, u64)> {
        self.bins
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count != 0)
            .map(|(i, &count)| (bucket_value(i), count))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The inclusive range of values that land in a bucket (below the last).
    fn bucket_range(index: usize) -> (u64, u64) {
        if index < 128 {
            return (index as u64, index as u64);
        }
        let error_bits = (index >> 6) as u32 - 1;
        let lo = (1u64 << (error_bits + 6)) + ((index as u64 % 64) << error_bits);
        (lo, lo + (1u64 << error_bits) - 1)
    }

    #[test]
    fn a_run_of_equal_samples_counts_in_their_bucket() {
        let mut one_by_one = LatencyHistogram::new();
        let mut in_runs = LatencyHistogram::new();
        for (v, k) in [(3u64, 2u64), (70_000, 32), (70_001, 5), (1 << 40, 1)] {
            (0..k).for_each(|_| one_by_one.add(v));
            in_runs.add_n(v, k);
        }
        assert_eq!(in_runs.count(), 40);
        assert!(in_runs == one_by_one);
    }

    #[test]
    fn small_values_are_their_own_bucket() {
        for v in 0..128u64 {
            assert_eq!(bucket_index(v), v as usize);
            assert_eq!(bucket_value(v as usize), v);
        }
    }

    #[test]
    fn known_buckets() {
        // 128..255 is group 1: buckets of width 2 from index 128.
        assert_eq!(bucket_index(128), 128);
        assert_eq!(bucket_index(129), 128);
        assert_eq!(bucket_index(130), 129);
        assert_eq!(bucket_index(255), 191);
        assert_eq!(bucket_index(256), 192);
        assert_eq!(bucket_value(128), 129);
        assert_eq!(bucket_value(191), 255);
        assert_eq!(bucket_value(192), 258);
        // 1 ms: msb 19, 13 error bits, base 14*64, offset (1e6>>13)&63 = 58.
        assert_eq!(bucket_index(1_000_000), 14 * 64 + 58);
        assert_eq!(
            bucket_value(14 * 64 + 58),
            (1 << 19) + (58 << 13) + (1 << 12)
        );
    }

    #[test]
    fn huge_values_clamp_to_last_bucket() {
        let last_group_start = 1u64 << 33;
        assert_eq!(bucket_index(last_group_start - 1), PLAT_NR - 65);
        assert_eq!(bucket_index(last_group_start * 2 - 1), PLAT_NR - 1);
        assert_eq!(bucket_index(last_group_start * 2), PLAT_NR - 1);
        assert_eq!(bucket_index(u64::MAX), PLAT_NR - 1);
        assert_eq!(
            bucket_value(PLAT_NR - 1),
            (1 << 33) + (63 << 27) + (1 << 26)
        );
    }

    #[test]
    fn every_index_round_trips() {
        for i in 0..PLAT_NR {
            assert_eq!(bucket_index(bucket_value(i)), i, "bucket {i}");
            let (lo, hi) = bucket_range(i);
            assert_eq!(bucket_index(lo), i);
            assert_eq!(bucket_index(hi), i);
        }
    }

    proptest! {
        #[test]
        fn value_stays_in_its_bucket(v in 0u64..(1u64 << 34)) {
            let i = bucket_index(v);
            let (lo, hi) = bucket_range(i);
            prop_assert!(lo <= v && v <= hi, "{} not in [{}, {}] of bucket {}", v, lo, hi, i);
            let mid = bucket_value(i);
            prop_assert!(lo <= mid && mid <= hi);
            // Error bound: half a bucket, a bucket being 1/64 of the group.
            let err = mid.abs_diff(v) as f64;
            prop_assert!(err <= v.max(1) as f64 / 128.0, "v={} mid={}", v, mid);
        }

        #[test]
        fn any_u64_has_a_valid_bucket(v in any::<u64>()) {
            prop_assert!(bucket_index(v) < PLAT_NR);
        }

        #[test]
        fn index_is_monotonic(a in any::<u64>(), b in any::<u64>()) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(bucket_index(lo) <= bucket_index(hi));
        }

        #[test]
        fn percentiles_match_brute_force(
            samples in prop::collection::vec(
                prop_oneof![0u64..300, 0u64..5_000_000, any::<u64>()], 0..400),
            extra in prop::collection::vec(0.0f64..=100.0, 0..4),
        ) {
            let mut list = vec![1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0,
                                80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];
            list.extend(extra);
            let mut h = LatencyHistogram::new();
            for &s in &samples {
                h.add(s);
            }
            prop_assert_eq!(h.count(), samples.len() as u64);
            let got = h.percentiles(&list);
            let mut sorted = samples.clone();
            sorted.sort_unstable();
            for (k, &p) in list.iter().enumerate() {
                // The smallest rank fio accepts for p, then that sample's bucket.
                let rank = (0..=sorted.len() as u64)
                    .find(|&r| threshold_reached(r, p, sorted.len() as u64))
                    .unwrap();
                let want = if rank == 0 {
                    0
                } else {
                    bucket_value(bucket_index(sorted[rank as usize - 1]))
                };
                prop_assert_eq!(got[k], want, "p={}", p);
            }
        }
    }

    #[test]
    fn empty_histogram_gives_zeros() {
        let h = LatencyHistogram::new();
        assert_eq!(h.percentiles(&[1.0, 50.0, 99.99]), vec![0, 0, 0]);
        assert!(h.nonzero_bins().is_empty());
        assert_eq!(h.count(), 0);
    }

    #[test]
    fn percentiles_match_a_real_fio_run() {
        // fio-3.33 json+ output of 100 null-engine reads: its bins and the
        // percentiles it printed for 10:20:30:60:70:90. The 60th is the
        // 60th sample (56), although exact long double arithmetic on fio's
        // source would have needed 61 (58).
        let bins = [
            (46, 1),
            (47, 1),
            (48, 6),
            (49, 5),
            (50, 11),
            (51, 13),
            (52, 7),
            (53, 6),
            (54, 5),
            (55, 3),
            (56, 2),
            (58, 2),
            (59, 2),
            (60, 5),
            (61, 2),
            (62, 1),
            (63, 1),
            (64, 1),
            (65, 2),
            (66, 2),
            (68, 4),
            (69, 1),
            (70, 3),
            (71, 2),
            (72, 2),
            (73, 2),
            (74, 3),
            (76, 2),
            (78, 1),
            (93, 1),
            (12096, 1),
        ];
        let mut h = LatencyHistogram::new();
        for (value, count) in bins {
            for _ in 0..count {
                h.add(value);
            }
        }
        let list = [10.0, 20.0, 30.0, 60.0, 70.0, 90.0];
        assert_eq!(h.percentiles(&list), vec![49, 50, 51, 56, 61, 72]);
        assert_eq!(h.nonzero_bins(), bins.to_vec());
    }

    #[test]
    fn percentiles_use_fio_rounding_not_doubles() {
        // fio-3.33 runs of 33000 I/Os showed their 99.9th percentile at the
        // 32968th sample; p / 100 * n in doubles would stop at the 32967th.
        let mut h = LatencyHistogram::new();
        for _ in 0..32_967 {
            h.add(100);
        }
        for _ in 0..33 {
            h.add(52_992);
        }
        assert_eq!(h.percentiles(&[99.9]), vec![52_992]);
    }

    #[test]
    fn percentiles_keep_the_callers_order() {
        let mut h = LatencyHistogram::new();
        for v in 1..=100u64 {
            h.add(v);
        }
        assert_eq!(h.percentiles(&[50.0, 30.0, 100.0]), vec![50, 30, 100]);
    }

    #[test]
    fn nonzero_bins_and_merge() {
        let mut a = LatencyHistogram::new();
        a.add(5);
        a.add(5);
        a.add(1_000_000);
        let mut b = LatencyHistogram::default();
        b.add(5);
        a.merge(&b);
        assert_eq!(a.count(), 4);
        assert_eq!(
            a.nonzero_bins(),
            vec![(5, 3), (bucket_value(bucket_index(1_000_000)), 1)]
        );
        assert_eq!(a.bin(5), 3);
    }
}
