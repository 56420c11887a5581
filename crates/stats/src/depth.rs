//! fio's I/O depth, submit and complete distributions (seven buckets each).

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthDist {
    pub counts: [u64; 7],
}

impl DepthDist {
    /// Counts `n` requests issued at depth `depth`: buckets 1, 2, 4, 8, 16, 32, >=64.
    #[inline]
    pub fn add_depth(&mut self, _depth: u32, _n: u64) {
        todo!()
    }
    /// Counts one submit or reap call that moved `n` requests:
    /// buckets 0, 4, 8, 16, 32, 64, >64.
    #[inline]
    pub fn add_batch(&mut self, _n: u32) {
        todo!()
    }
    pub fn merge(&mut self, _other: &DepthDist) {
        todo!()
    }
    pub fn total(&self) -> u64 {
        todo!()
    }
}
