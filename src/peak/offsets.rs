//! Where each read goes: files in turn, and in each a random block or the
//! next one. No allocation and no division per request.

/// One file as the offset generator sees it.
#[derive(Clone, Copy, Debug)]
struct File {
    /// Whole blocks in the file (at least one).
    blocks: u64,
    /// The next block for sequential reads.
    next: u64,
}

/// Block-aligned offsets over a set of files, one thread's worth.
pub struct Offsets {
    files: Box<[File]>,
    /// The file the next request goes to.
    current: usize,
    block_size: u64,
    random: bool,
    rng: XorShift,
}

impl Offsets {
    /// `sizes` are the files' sizes in bytes, each at least one block.
    pub fn new(sizes: &[u64], block_size: u32, random: bool, seed: u64) -> Offsets {
        let block_size = u64::from(block_size);
        Offsets {
            files: sizes
                .iter()
                .map(|&size| File {
                    blocks: size / block_size,
                    next: 0,
                })
                .collect(),
            current: 0,
            block_size,
            random,
            rng: XorShift::new(seed),
        }
    }

    /// The file index and byte offset of the next read.
    #[inline]
    pub fn next(&mut self) -> (u32, u64) {
        let index = self.current;
        self.current += 1;
        if self.current == self.files.len() {
            self.current = 0;
        }
        let file = &mut self.files[index];
        let block = if self.random {
            // The high half of a 64x64 product maps the random word onto
            // 0..blocks without the division a modulo costs.
            ((u128::from(self.rng.next()) * u128::from(file.blocks)) >> 64) as u64
        } else {
            let block = file.next;
            file.next += 1;
            if file.next == file.blocks {
                file.next = 0;
            }
            block
        };
        (index as u32, block * self.block_size)
    }
}

/// xorshift64* (Vigna): fast, and random enough to spread reads over a
/// device. Not for anything that needs unpredictability.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        // splitmix64 of the seed: any seed, zero included, gives a good
        // non-zero state, and nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        XorShift((z ^ (z >> 31)) | 1)
    }

    #[inline]
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_reads_walk_each_file_and_wrap() {
        let mut o = Offsets::new(&[3 * 512 + 100], 512, false, 1);
        let got: Vec<_> = (0..5).map(|_| o.next()).collect();
        assert_eq!(got, vec![(0, 0), (0, 512), (0, 1024), (0, 0), (0, 512)]);
    }

    #[test]
    fn files_take_turns() {
        let mut o = Offsets::new(&[4096, 8192], 4096, false, 1);
        let got: Vec<_> = (0..4).map(|_| o.next()).collect();
        assert_eq!(got, vec![(0, 0), (1, 0), (0, 0), (1, 4096)]);
    }

    #[test]
    fn random_reads_stay_inside_whole_blocks_and_cover_them() {
        let size = 10 * 4096 + 7;
        let mut o = Offsets::new(&[size], 4096, true, 42);
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            let (file, offset) = o.next();
            assert_eq!(file, 0);
            assert_eq!(offset % 4096, 0);
            assert!(offset + 4096 <= size);
            seen[(offset / 4096) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }

    #[test]
    fn seeds_give_different_streams() {
        let mut a = Offsets::new(&[1 << 40], 4096, true, 0);
        let mut b = Offsets::new(&[1 << 40], 4096, true, 1);
        let a: Vec<_> = (0..8).map(|_| a.next()).collect();
        let b: Vec<_> = (0..8).map(|_| b.next()).collect();
        assert_ne!(a, b);
    }
}
