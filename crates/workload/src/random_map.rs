//! fio's random map (lib/axmap.c): a bitmap of blocks already done, with
//! summary levels above it (a set bit at level N means a full word at level
//! N-1) so that finding a free block stays cheap as the map fills.
//!
//! The search order is fio's, quirks included, so that the offsets of a
//! random job follow fio's exactly.

const UNIT_SHIFT: u32 = 6;
const UNIT: u64 = 1 << UNIT_SHIFT;
const UNIT_MASK: u64 = UNIT - 1;
const NONE: u64 = u64::MAX;

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
    first_free: u64,
}

struct SetData {
    nr_bits: u64,
    set_bits: u64,
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
            first_free: 0,
        }
    }

    pub fn reset(&mut self) {
        for l in &mut self.levels {
            l.fill(0);
        }
        self.first_free = 0;
    }

    #[inline]
    fn index(bit_nr: u64, level: usize) -> (usize, u64) {
        let index = bit_nr >> (UNIT_SHIFT as usize * level);
        ((index >> UNIT_SHIFT) as usize, index & UNIT_MASK)
    }

    /// Whether `bit_nr` is done (`axmap_isset`, top level first).
    #[inline]
    pub fn is_set(&self, bit_nr: u64) -> bool {
        if bit_nr > self.nr_bits {
            return false;
        }
        (0..self.levels.len()).rev().any(|i| {
            let (off, bit) = Self::index(bit_nr, i);
            self.levels[i]
                .get(off)
                .is_some_and(|w| w & (1u64 << bit) != 0)
        })
    }

    /// `axmap_set_fn` on one level; true stops the walk up the levels.
    fn set_fn(&mut self, level: usize, off: usize, bit: u64, data: &mut SetData) -> bool {
        let Some(word) = self.levels[level].get_mut(off) else {
            return true;
        };
        let mut nr = data.nr_bits.min(UNIT - bit);
        let mut mask = low_bits(nr) << bit;
        let mut overlap = *word & mask;
        if overlap == mask {
            return true;
        }
        // Only blocks not yet done are marked and counted.
        while overlap != 0 {
            let clear = !(1u64 << overlap.trailing_zeros());
            mask &= clear;
            overlap &= clear;
            nr -= 1;
        }
        *word |= mask;
        if level == 0 {
            data.set_bits = nr;
        }
        data.nr_bits = 1;
        *word != u64::MAX
    }

    fn set_inner(&mut self, mut bit_nr: u64, data: &mut SetData) {
        if self.first_free >= bit_nr && self.first_free < bit_nr + data.nr_bits {
            self.first_free = NONE;
        }
        let mut nr = data.nr_bits;
        if bit_nr > self.nr_bits {
            return;
        } else if bit_nr + nr > self.nr_bits {
            nr = self.nr_bits - bit_nr;
        }
        let mut set_bits = 0;
        while nr != 0 {
            for level in 0..self.levels.len() {
                let (off, bit) = Self::index(bit_nr, level);
                if self.set_fn(level, off, bit, data) {
                    break;
                }
            }
            set_bits += data.set_bits;
            if data.set_bits == 0 || data.set_bits != UNIT - nr {
                break;
            }
            nr -= data.set_bits;
            bit_nr += data.set_bits;
            data.nr_bits = nr;
        }
        data.set_bits = set_bits;
    }

    /// Marks up to `nr_bits` blocks from `bit_nr` as done (`axmap_set_nr`)
    /// and returns how many contiguous ones were free and are now marked.
    pub fn set_nr(&mut self, mut bit_nr: u64, mut nr_bits: u64) -> u64 {
        let mut set_bits = 0;
        loop {
            let mut data = SetData {
                nr_bits,
                set_bits: 0,
            };
            let max_bits = UNIT - (bit_nr & UNIT_MASK);
            if max_bits < nr_bits {
                data.nr_bits = max_bits;
            }
            let this_set = data.nr_bits;
            self.set_inner(bit_nr, &mut data);
            set_bits += data.set_bits;
            if data.set_bits != this_set {
                break;
            }
            nr_bits -= data.set_bits;
            bit_nr += data.set_bits;
            if nr_bits == 0 {
                break;
            }
        }
        set_bits
    }

    fn find_first_free(&self, level: usize, mut index: u64) -> u64 {
        let mut ret = NONE;
        for i in (0..=level).rev() {
            let map = &self.levels[i];
            if index >= map.len() as u64 {
                ret = NONE;
                break;
            }
            if let Some(j) = (index as usize..map.len()).find(|&j| map[j] != u64::MAX) {
                index = ((j as u64) << UNIT_SHIFT) + u64::from((!map[j]).trailing_zeros());
                ret = index;
            }
        }
        if ret < self.nr_bits {
            ret
        } else {
            NONE
        }
    }

    fn first_free(&mut self) -> Option<u64> {
        if self.first_free == NONE {
            self.first_free = self.find_first_free(self.levels.len() - 1, 0);
        }
        (self.first_free != NONE).then_some(self.first_free)
    }

    /// A free block near `bit_nr`, which is done (`axmap_next_free`); None
    /// when every block is done.
    pub fn next_free(&mut self, bit_nr: u64) -> Option<u64> {
        if self.first_free != NONE && bit_nr < self.first_free {
            return Some(self.first_free);
        }
        let mut found = None;
        for level in 0..self.levels.len() {
            let (off, _) = Self::index(bit_nr, level);
            let mask = !low_bits((bit_nr + 1) & UNIT_MASK);
            let Some(&word) = self.levels[level].get(off) else {
                break;
            };
            if mask & !word == 0 {
                continue;
            }
            found = Some((level, off as u64));
            break;
        }
        let Some((level, off)) = found else {
            return self.first_free();
        };
        match self.find_first_free(level, off) {
            NONE => self.first_free(),
            b => Some(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn set_nr_counts_only_free_blocks() {
        let mut m = RandomMap::new(128);
        assert_eq!(m.set_nr(10, 1), 1);
        // fio marks the free blocks around a done one and counts them.
        assert_eq!(m.set_nr(8, 4), 3);
        assert!(m.is_set(11));
        assert_eq!(m.set_nr(60, 8), 8);
        assert!(m.is_set(67));
        assert!(!m.is_set(68));
    }
}
