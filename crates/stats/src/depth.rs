//! fio's I/O depth, submit and complete distributions (seven buckets each).

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthDist {
    pub counts: [u64; 7],
}

impl DepthDist {
    /// Counts `n` requests issued at depth `depth`: buckets 1, 2, 4, 8, 16, 32, >=64.
    ///
    /// As in fio's io_u_mark_depth, a depth of 0 falls in the last bucket;
    /// fio never passes 0 because it counts the request being issued.
    #[inline]
    pub fn add_depth(&mut self, depth: u32, n: u64) {
        let idx = match depth {
            1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        self.counts[idx] += n;
    }

    /// Counts one submit or reap call that moved `n` requests:
    /// buckets 0, 4, 8, 16, 32, 64, >64 (fio's __io_u_mark_map, where "4"
    /// means 1 to 4).
    #[inline]
    pub fn add_batch(&mut self, n: u32) {
        let idx = match n {
            0 => 0,
            1..=4 => 1,
            5..=8 => 2,
            9..=16 => 3,
            17..=32 => 4,
            33..=64 => 5,
            _ => 6,
        };
        self.counts[idx] += 1;
    }

    pub fn merge(&mut self, other: &DepthDist) {
        for (dst, src) in self.counts.iter_mut().zip(other.counts.iter()) {
            *dst += src;
        }
    }

    /// Sum of all buckets: requests for a depth map, calls for submit/complete.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_bucket(depth: u32) -> usize {
        let mut d = DepthDist::default();
        d.add_depth(depth, 3);
        d.counts.iter().position(|&c| c == 3).unwrap()
    }

    fn batch_bucket(n: u32) -> usize {
        let mut d = DepthDist::default();
        d.add_batch(n);
        d.counts.iter().position(|&c| c == 1).unwrap()
    }

    #[test]
    fn depth_buckets_match_fio() {
        let cases = [
            (0, 6),
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (7, 2),
            (8, 3),
            (16, 4),
            (31, 4),
            (32, 5),
            (63, 5),
            (64, 6),
            (u32::MAX, 6),
        ];
        for (depth, want) in cases {
            assert_eq!(depth_bucket(depth), want, "depth {depth}");
        }
    }

    #[test]
    fn batch_buckets_match_fio() {
        let cases = [
            (0, 0),
            (1, 1),
            (4, 1),
            (5, 2),
            (8, 2),
            (9, 3),
            (16, 3),
            (17, 4),
            (32, 4),
            (33, 5),
            (64, 5),
            (65, 6),
        ];
        for (n, want) in cases {
            assert_eq!(batch_bucket(n), want, "batch of {n}");
        }
    }

    #[test]
    fn merge_and_total() {
        let mut a = DepthDist::default();
        a.add_depth(1, 10);
        let mut b = DepthDist::default();
        b.add_depth(1, 5);
        b.add_depth(64, 1);
        a.merge(&b);
        assert_eq!(a.counts, [15, 0, 0, 0, 0, 0, 1]);
        assert_eq!(a.total(), 16);
    }
}
