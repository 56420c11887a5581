//! fio's coarse latency distribution: the `lat (usec): 10=99.29%` lines.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatencyBuckets {
    /// <=2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 ns.
    pub nsec: [u64; 10],
    /// The same steps in microseconds.
    pub usec: [u64; 10],
    /// <=2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000, >=2000 ms.
    pub msec: [u64; 12],
}

impl LatencyBuckets {
    #[inline]
    pub fn add(&mut self, _ns: u64) {
        todo!()
    }
    pub fn merge(&mut self, _other: &LatencyBuckets) {
        todo!()
    }
    pub fn total(&self) -> u64 {
        todo!()
    }
}
