//! fio's log-linear latency histogram: 29 groups of 64 buckets, values in ns.

pub const PLAT_NR: usize = 29 * 64;

/// The bucket a value falls in.
#[inline]
pub fn bucket_index(_value: u64) -> usize {
    todo!()
}

/// The value fio reports for a bucket (the middle of its range).
pub fn bucket_value(_index: usize) -> u64 {
    todo!()
}

#[derive(Clone, Debug, Default)]
pub struct LatencyHistogram {
    _todo: (),
}

impl LatencyHistogram {
    pub fn new() -> LatencyHistogram {
        todo!()
    }
    #[inline]
    pub fn add(&mut self, _ns: u64) {
        todo!()
    }
    pub fn merge(&mut self, _other: &LatencyHistogram) {
        todo!()
    }
    pub fn count(&self) -> u64 {
        todo!()
    }
    /// fio's rule: for each p, the value of the first bucket whose
    /// cumulative count reaches p% of all samples.
    pub fn percentiles(&self, _list: &[f64]) -> Vec<u64> {
        todo!()
    }
    /// (bucket value, count) of every non-empty bucket, in order.
    pub fn nonzero_bins(&self) -> Vec<(u64, u64)> {
        todo!()
    }
}
