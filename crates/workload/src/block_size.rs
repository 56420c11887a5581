//! Block-size choice for one direction (fio's `get_next_buflen`).

use ioscope_job::BlockSize;

use crate::rand::FioRand;

/// A direction's block-size rule in the form fio draws from.
#[derive(Clone, Debug)]
pub struct BlockSizer {
    min: u64,
    max: u64,
    /// bssplit entries (size, percent), zero percents dropped; empty for
    /// Fixed and Range.
    split: Vec<(u64, u64)>,
    rand: FioRand,
    /// `bs_unaligned`: drawn sizes are not rounded to `min`.
    unaligned: bool,
}

impl BlockSizer {
    pub fn new(bs: &BlockSize, rand: FioRand) -> BlockSizer {
        let split = match bs {
            BlockSize::Split(v) => v
                .iter()
                .filter(|p| p.1 != 0)
                .map(|&(b, p)| (b, u64::from(p)))
                .collect(),
            _ => Vec::new(),
        };
        BlockSizer {
            min: bs.min(),
            max: bs.max(),
            split,
            rand,
            unaligned: false,
        }
    }

    /// This rule with `bs_unaligned` as given.
    pub fn unaligned(mut self, unaligned: bool) -> BlockSizer {
        self.unaligned = unaligned;
        self
    }

    /// Starts the draws over from a freshly seeded generator.
    pub fn reseed(&mut self, rand: FioRand) {
        self.rand = rand;
    }

    pub fn min(&self) -> u64 {
        self.min
    }

    /// One size only: [`BlockSizer::next`] draws nothing and gives it.
    pub fn is_fixed(&self) -> bool {
        self.min == self.max
    }

    /// The next length for an I/O starting `room` bytes before the end of
    /// the extent; 0 when even the smallest block does not fit (fio then
    /// treats the file as done).
    #[inline]
    pub fn next(&mut self, room: u64) -> u64 {
        if self.min == self.max {
            // fio does not check a fixed size against the room here; the
            // caller's end-of-file check rejects it.
            return self.min;
        }
        if self.min > room || self.min == 0 {
            return 0;
        }
        let frand_max = self.rand.max();
        loop {
            let r = self.rand.next_u64();
            let mut len = if self.split.is_empty() {
                self.min + (self.max as f64 * (r as f64 * self.rand.inv_max_plus_one())) as u64
            } else {
                let mut len = 0;
                let mut perc = 0;
                for &(b, p) in &self.split {
                    len = b;
                    perc += p;
                    if r / perc <= frand_max / 100 && b <= room {
                        break;
                    }
                }
                len
            };
            if !self.unaligned {
                len -= len % self.min;
            }
            len = len.min(self.max);
            if len <= room {
                return len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_gives_multiples_of_min_within_bounds() {
        let mut s = BlockSizer::new(
            &BlockSize::Range {
                min: 4096,
                max: 65536,
            },
            FioRand::new(3, false),
        );
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..10_000 {
            let l = s.next(u64::MAX);
            assert!((4096..=65536).contains(&l) && l & 4095 == 0, "{l}");
            seen.insert(l);
        }
        assert_eq!(seen.len(), 16, "every multiple of 4k in 4k..64k drawn");
    }

    #[test]
    fn range_respects_the_room_left() {
        let mut s = BlockSizer::new(
            &BlockSize::Range {
                min: 4096,
                max: 65536,
            },
            FioRand::new(3, false),
        );
        for _ in 0..1000 {
            assert!(s.next(8192) <= 8192);
        }
        assert_eq!(s.next(4095), 0);
    }

    #[test]
    fn split_proportions_hold() {
        let split = BlockSize::Split(vec![(4096, 10), (16384, 30), (65536, 60)]);
        let mut s = BlockSizer::new(&split, FioRand::new(11, false));
        let n = 100_000;
        let mut counts = [0u32; 3];
        for _ in 0..n {
            match s.next(u64::MAX) {
                4096 => counts[0] += 1,
                16384 => counts[1] += 1,
                65536 => counts[2] += 1,
                l => panic!("unexpected {l}"),
            }
        }
        for (c, want) in counts.iter().zip([10.0, 30.0, 60.0]) {
            let pct = f64::from(*c) * 100.0 / f64::from(n);
            assert!((pct - want).abs() < 1.0, "{counts:?}");
        }
    }

    #[test]
    fn split_near_the_end_picks_what_fits() {
        let split = BlockSize::Split(vec![(4096, 50), (65536, 50)]);
        let mut s = BlockSizer::new(&split, FioRand::new(5, false));
        for _ in 0..1000 {
            assert_eq!(s.next(8192), 4096);
        }
    }
}
