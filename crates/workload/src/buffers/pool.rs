//! Random bytes generated once per worker, for refilled buffers to copy
//! from: a copy costs a memcpy, where generating fresh bytes for every
//! byte of every write would cost several instructions per 8 bytes.

pub(super) struct RandomPool {
    bytes: Vec<u8>,
}

impl RandomPool {
    /// `len` bytes (at least 8) of splitmix64 output from `seed`. Every bit
    /// of it is random, so the random part of a buffer does not compress.
    pub(super) fn new(len: usize, seed: u64) -> RandomPool {
        let len = len.max(8).next_multiple_of(8);
        let mut bytes = vec![0u8; len];
        let mut state = seed;
        for word in bytes.chunks_exact_mut(8) {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            word.copy_from_slice(&(z ^ (z >> 31)).to_ne_bytes());
        }
        RandomPool { bytes }
    }

    pub(super) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Fills `dst` with the pool's bytes from `from` (below the pool's
    /// length) on, going round to the pool's start at its end; returns
    /// where the next copy continues.
    #[inline]
    pub(super) fn copy(&self, mut from: usize, dst: &mut [u8]) -> usize {
        debug_assert!(from < self.bytes.len());
        let mut done = 0;
        while done < dst.len() {
            let n = (dst.len() - done).min(self.bytes.len() - from);
            dst[done..done + n].copy_from_slice(&self.bytes[from..from + n]);
            done += n;
            from += n;
            if from == self.bytes.len() {
                from = 0;
            }
        }
        from
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_go_round_the_pool() {
        let pool = RandomPool::new(64, 1);
        assert_eq!(pool.len(), 64);
        let mut whole = vec![0u8; 64];
        assert_eq!(pool.copy(0, &mut whole), 0);
        let mut buf = vec![0u8; 150];
        let next = pool.copy(60, &mut buf);
        assert_eq!(next, (60 + 150) % 64);
        for (i, &b) in buf.iter().enumerate() {
            assert_eq!(b, whole[(60 + i) % 64], "byte {i}");
        }
    }

    #[test]
    fn the_bytes_look_random() {
        let pool = RandomPool::new(1 << 16, 7);
        let mut counts = [0u32; 256];
        let whole = &pool.bytes;
        for &b in whole {
            counts[usize::from(b)] += 1;
        }
        // 256 per value on average; a fixed or skewed byte would stand out.
        assert!(
            counts.iter().all(|&c| (150..400).contains(&c)),
            "{counts:?}"
        );
        assert_ne!(*whole, RandomPool::new(1 << 16, 8).bytes);
    }
}
