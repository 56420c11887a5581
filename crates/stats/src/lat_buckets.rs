//! fio's coarse latency distribution: the `lat (usec): 10=99.29%` lines.

/// Completion latencies counted in fio's decade-ish steps (fio's io_u_lat_n,
/// io_u_lat_u and io_u_lat_m). A label such as "10" stands for the values
/// from the previous step up to but excluding 10.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatencyBuckets {
    /// <=2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 ns.
    pub nsec: [u64; 10],
    /// The same steps in microseconds.
    pub usec: [u64; 10],
    /// <=2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000, >=2000 ms.
    pub msec: [u64; 12],
}

/// Upper bounds (exclusive) of all but the last step inside one unit.
const STEPS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];

/// The step of `v` (fio's io_u_mark_lat_{nsec,usec,msec} switches): the
/// number of bounds at or below it.
#[inline]
fn step(v: u64) -> usize {
    STEPS.iter().take_while(|&&bound| v >= bound).count()
}

impl LatencyBuckets {
    /// Counts one latency, split by unit as fio's io_u_mark_latency does:
    /// below 1 us in ns, below 1 ms in whole us, else in whole ms.
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.add_n(ns, 1);
    }

    /// Counts `count` latencies of the same value.
    #[inline]
    pub fn add_n(&mut self, ns: u64, count: u64) {
        if ns < 1_000 {
            self.nsec[step(ns)] += count;
        } else if ns < 1_000_000 {
            self.usec[step(ns / 1_000)] += count;
        } else {
            self.msec[step(ns / 1_000_000)] += count;
        }
    }

    pub fn merge(&mut self, other: &LatencyBuckets) {
        let pairs = self
            .nsec
            .iter_mut()
            .zip(other.nsec.iter())
            .chain(self.usec.iter_mut().zip(other.usec.iter()))
            .chain(self.msec.iter_mut().zip(other.msec.iter()));
        for (dst, src) in pairs {
            *dst += src;
        }
    }

    /// All latencies counted.
    pub fn total(&self) -> u64 {
        self.nsec
            .iter()
            .chain(self.usec.iter())
            .chain(self.msec.iter())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn where_is(ns: u64) -> (&'static str, usize) {
        let mut b = LatencyBuckets::default();
        b.add(ns);
        let find = |a: &[u64]| a.iter().position(|&c| c == 1);
        if let Some(i) = find(&b.nsec) {
            ("nsec", i)
        } else if let Some(i) = find(&b.usec) {
            ("usec", i)
        } else {
            ("msec", find(&b.msec).unwrap())
        }
    }

    #[test]
    fn boundaries_match_fio() {
        let cases = [
            (0, ("nsec", 0)),
            (1, ("nsec", 0)),
            (2, ("nsec", 1)),
            (3, ("nsec", 1)),
            (4, ("nsec", 2)),
            (9, ("nsec", 2)),
            (10, ("nsec", 3)),
            (49, ("nsec", 4)),
            (50, ("nsec", 5)),
            (249, ("nsec", 6)),
            (250, ("nsec", 7)),
            (500, ("nsec", 8)),
            (750, ("nsec", 9)),
            (999, ("nsec", 9)),
            (1_000, ("usec", 0)),
            (1_999, ("usec", 0)),
            (2_000, ("usec", 1)),
            (9_999, ("usec", 2)),
            (10_000, ("usec", 3)),
            (999_999, ("usec", 9)),
            (1_000_000, ("msec", 0)),
            (2_000_000, ("msec", 1)),
            (999_999_999, ("msec", 9)),
            (1_000_000_000, ("msec", 10)),
            (1_999_999_999, ("msec", 10)),
            (2_000_000_000, ("msec", 11)),
            (u64::MAX, ("msec", 11)),
        ];
        for (ns, want) in cases {
            assert_eq!(where_is(ns), want, "{ns} ns");
        }
    }

    #[test]
    fn merge_and_total() {
        let mut a = LatencyBuckets::default();
        a.add(5);
        a.add(5_000);
        let mut b = LatencyBuckets::default();
        b.add(5_000_000_000);
        a.merge(&b);
        assert_eq!(a.total(), 3);
        assert_eq!((a.nsec[2], a.usec[2], a.msec[11]), (1, 1, 1));
    }
}
