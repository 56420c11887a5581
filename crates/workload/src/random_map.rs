//! fio's random map (lib/axmap.c): a bitmap of blocks already done, with
//! summary levels above it (a set bit at level N means a full word at level
//! N-1) so that finding a free block stays cheap as the map fills.
//!
//! The search order is fio's, so that the offsets of a
//! random job follow fio's exactly.

const UNIT_SHIFT: u32 = 6;
const UNIT: u64 = 1 << UNIT_SHIFT;
const UNIT_MASK: u64 = UNIT - 1;

/// `bit_masks[n]`: the low `n` bits set, for n in 0..=64.
#[inline]
fn low_bits(n: u64) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[derive(Clone, Debug)]
pub struct RandomMap {
    levels: Vec<Vec<u64>>,
    nr_bits: u64,
    /// Blocks marked done.
    done: u64,
}

impl RandomMap {
    /// A map of `nr_bits` free blocks; all memory is taken here.
    pub fn new(nr_bits: u64) -> RandomMap {
        let mut levels = Vec::new();
        let mut bits = nr_bits;
        loop {
            let words = bits.div_ceil(UNIT);
            levels.push(vec![0u64; words as usize]);
            if words <= 1 {
                break;
            }
            bits = words;
        }
        RandomMap {
            levels,
            nr_bits,
            done: 0,
        }
    }

    pub fn reset(&mut self) {
        for l in &mut self.levels {
            l.fill(0);
        }
        self.done = 0;
    }

    /// Every block is done: [`RandomMap::next_free`] finds none.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.done >= self.nr_bits
    }

    /// Whether `bit_nr` is done (`axmap_isset`). fio walks from the top
    /// level down, but every done block is marked at level 0 (the levels
    /// above only summarise full words), so one load answers.
    #[inline]
    pub fn is_set(&self, bit_nr: u64) -> bool {
        self.levels[0]
            .get((bit_nr >> UNIT_SHIFT) as usize)
            .is_some_and(|w| w & (1u64 << (bit_nr & UNIT_MASK)) != 0)
    }

    /// Marks up to `data.nr_bits` bits from `bit_nr` within one word
    /// (`__axmap_set`), walking up the levels while words fill.
    fn set_in_word(&mut self, mut bit_nr: u64, want: u64) -> u64 {
        let mut nr = want;
        if bit_nr > self.nr_bits {
            return 0;
        } else if bit_nr + nr > self.nr_bits {
            nr = self.nr_bits - bit_nr;
        }
        let mut data_nr = want;
        let mut total = 0;
        while nr != 0 {
            let mut set_bits = 0;
            let mut index = bit_nr;
            for level in 0..self.levels.len() {
                let off = (index >> UNIT_SHIFT) as usize;
                let bit = index & UNIT_MASK;
                let word = &mut self.levels[level][off];
                let mut n = data_nr.min(UNIT - bit);
                let mut mask = low_bits(n) << bit;
                let overlap = *word & mask;
                if overlap == mask {
                    set_bits = 0;
                    break;
                }
                if overlap != 0 {
                    // Only the free run up to the first done block is marked.
                    n = u64::from(overlap.trailing_zeros()) - bit;
                    if n == 0 {
                        set_bits = 0;
                        break;
                    }
                    mask = low_bits(n) << bit;
                }
                *word |= mask;
                if level == 0 {
                    set_bits = n;
                }
                data_nr = 1;
                if *word != u64::MAX {
                    break;
                }
                index >>= UNIT_SHIFT;
            }
            total += set_bits;
            if set_bits == 0 || set_bits != UNIT - nr {
                break;
            }
            nr -= set_bits;
            bit_nr += set_bits;
            data_nr = nr;
        }
        total
    }

    /// Marks up to `nr_bits` blocks from `bit_nr` as done (`axmap_set_nr`)
    /// and returns how many contiguous ones were free and are now marked.
    #[inline]
    pub fn set_nr(&mut self, bit_nr: u64, nr_bits: u64) -> u64 {
        // One free block whose word does not fill: the common case of a
        // random job, which is all `set_in_word` would do for it.
        if nr_bits == 1 && bit_nr < self.nr_bits {
            let word = &mut self.levels[0][(bit_nr >> UNIT_SHIFT) as usize];
            let mask = 1u64 << (bit_nr & UNIT_MASK);
            if *word & mask == 0 && *word | mask != u64::MAX {
                *word |= mask;
                self.done += 1;
                return 1;
            }
        }
        let set = self.set_nr_walking(bit_nr, nr_bits);
        // The walk marks a run that reaches past the last block whole, as
        // fio's does; only the blocks of the map count as done.
        self.done += set.min(self.nr_bits.saturating_sub(bit_nr));
        set
    }

    /// [`RandomMap::set_nr`] through the levels, as fio's.
    fn set_nr_walking(&mut self, mut bit_nr: u64, mut nr_bits: u64) -> u64 {
        let mut set_bits = 0;
        loop {
            let this_set = nr_bits.min(UNIT - (bit_nr & UNIT_MASK));
            let set = self.set_in_word(bit_nr, this_set);
            set_bits += set;
            if set != this_set {
                break;
            }
            nr_bits -= set;
            bit_nr += set;
            if nr_bits == 0 {
                break;
            }
        }
        set_bits
    }

    /// The first free block at or after `bit_nr`, searching from the top
    /// level down (`axmap_find_first_free`).
    fn find_first_free(&self, bit_nr: u64) -> Option<u64> {
        let mut index = 0u64;
        for i in (0..self.levels.len()).rev() {
            let map = &self.levels[i];
            index <<= UNIT_SHIFT;
            index = index.max(bit_nr >> (UNIT_SHIFT as usize * i));
            let mut off = (index >> UNIT_SHIFT) as usize;
            if off >= map.len() {
                return None;
            }
            let mut free = !low_bits(index & UNIT_MASK) & !map[off];
            while free == 0 {
                off += 1;
                free = !*map.get(off)?;
            }
            index = ((off as u64) << UNIT_SHIFT) + u64::from(free.trailing_zeros());
        }
        (index < self.nr_bits).then_some(index)
    }

    /// The first free block after `bit_nr`, wrapping to the start
    /// (`axmap_next_free`); None when every block is done.
    #[inline]
    pub fn next_free(&self, bit_nr: u64) -> Option<u64> {
        if bit_nr >= self.nr_bits {
            return None;
        }
        let next = if bit_nr + 1 == self.nr_bits {
            0
        } else {
            bit_nr + 1
        };
        let off = (next >> UNIT_SHIFT) as usize;
        let free = !low_bits(next & UNIT_MASK) & !self.levels[0][off];
        let found = if free != 0 {
            let b = ((off as u64) << UNIT_SHIFT) + u64::from(free.trailing_zeros());
            (b < self.nr_bits).then_some(b)
        } else {
            self.find_first_free(next)
        };
        match found {
            None if next != 0 => self.find_first_free(0),
            f => f,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count of done blocks says when the map is full, as the search
    /// for a free block finds none, and starts over with a reset.
    #[test]
    fn full_when_no_block_is_free() {
        for n in [1u64, 64, 65, 1000] {
            let mut m = RandomMap::new(n);
            for round in 0..2 {
                let mut b = 0;
                while !m.is_full() {
                    assert!(
                        m.next_free(b).is_some() || !m.is_set(b),
                        "n={n} round {round}"
                    );
                    m.set_nr(b, if b % 3 == 0 { 2 } else { 1 });
                    b = (b + 7) % n;
                }
                assert!(
                    m.next_free(0).is_none() && m.is_set(0),
                    "n={n} round {round}"
                );
                m.reset();
                assert!(!m.is_full());
            }
        }
    }

    /// The one-block shortcut marks and counts as the walk through the
    /// levels does, whether the block is free, done, the last of its word
    /// or past the map's end.
    #[test]
    fn one_block_sets_as_the_walk_does() {
        for n in [1u64, 64, 65, 4096, 4100] {
            let mut fast = RandomMap::new(n);
            let mut walk = RandomMap::new(n);
            let mut x = 12345u64;
            for _ in 0..3 * n + 10 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let b = (x >> 33) % (n + 2);
                let len = if x & 7 == 0 { 3 } else { 1 };
                assert_eq!(
                    fast.set_nr(b, len),
                    walk.set_nr_walking(b, len),
                    "n={n} b={b}"
                );
                assert_eq!(fast.levels, walk.levels, "n={n} b={b}");
            }
        }
    }

    #[test]
    fn set_and_find_cover_every_block() {
        for n in [1u64, 63, 64, 65, 4096, 4097, 300_000] {
            let mut m = RandomMap::new(n);
            let mut count = 0;
            let mut b = n / 2;
            loop {
                if m.is_set(b) {
                    match m.next_free(b) {
                        Some(f) => b = f,
                        None => break,
                    }
                }
                assert!(b < n);
                assert_eq!(m.set_nr(b, 1), 1);
                count += 1;
                b = (b * 7 + 13) % n;
            }
            assert_eq!(count, n, "map of {n}");
            m.reset();
            assert!(!m.is_set(0));
        }
    }

    /// fio's `axmap_isset`: set at any level, from the top down.
    fn is_set_top_down(m: &RandomMap, bit_nr: u64) -> bool {
        bit_nr <= m.nr_bits
            && (0..m.levels.len()).rev().any(|i| {
                let index = bit_nr >> (UNIT_SHIFT as usize * i);
                m.levels[i]
                    .get((index >> UNIT_SHIFT) as usize)
                    .is_some_and(|w| w & (1u64 << (index & UNIT_MASK)) != 0)
            })
    }

    #[test]
    fn level_zero_answers_as_fio_top_down_walk_does() {
        let n = 300_000u64;
        let mut m = RandomMap::new(n);
        let mut b = 12_345u64;
        for round in 0..40_000u64 {
            // Runs of 1 to 200 blocks fill whole words, so the levels
            // above get summary bits.
            m.set_nr(b, 1 + round % 200);
            b = (b * 6_364_136_223 + 1_442_695) % n;
        }
        let mut set = 0;
        for probe in (0..=n + 64).step_by(7) {
            assert_eq!(m.is_set(probe), is_set_top_down(&m, probe), "block {probe}");
            set += usize::from(m.is_set(probe));
        }
        assert!(
            set > 0 && set < (n / 7) as usize,
            "{set} probes set: no mix"
        );
        assert!(
            m.levels[1].iter().any(|&w| w != 0),
            "no summary bit was set"
        );
    }

    #[test]
    fn set_nr_counts_only_free_blocks() {
        let mut m = RandomMap::new(128);
        assert_eq!(m.set_nr(10, 1), 1);
        // fio marks the free run up to the done block.
        assert_eq!(m.set_nr(8, 4), 2);
        assert!(!m.is_set(11));
        assert_eq!(m.set_nr(60, 8), 8);
        assert!(m.is_set(67));
        assert!(!m.is_set(68));
    }
}
