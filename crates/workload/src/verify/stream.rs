//! The pseudo-random data of an interval: a function of the write alone
//! (the seed of its worker and file, offset, write number), so a later run can make the same
//! bytes again, and cheap enough to write at memory speed.

/// Independent generators stepped side by side: one xorshift chain is
/// latency-bound; eight become four 2-lane vector chains even on baseline
/// x86-64 (SSE2), which overlap.
const LANES: usize = 8;
/// Bytes one step of all lanes writes.
pub const ROUND: usize = LANES * 8;

/// splitmix64's finaliser: a bijection that spreads every input bit over
/// the whole word, so nearby inputs give unrelated outputs.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The seed of a worker's file: the worker's `seed` and the file's number
/// mixed, so that each file's headers and data are its own.
pub fn file_seed(seed: u64, file: u32) -> u64 {
    mix(mix(seed) ^ u64::from(file))
}

/// The key of one interval's data, `seed` its file's. Each field goes
/// through `mix` before the next is folded in, so no two writes share a
/// key unless by a 2^-64 chance.
pub fn key(seed: u64, offset: u64, seq: u64) -> u64 {
    mix(mix(mix(seed) ^ offset) ^ seq)
}

pub struct Stream {
    lanes: [u64; LANES],
}

impl Stream {
    pub fn new(key: u64) -> Stream {
        let mut lanes = [0u64; LANES];
        for (i, lane) in lanes.iter_mut().enumerate() {
            // xorshift stays at zero once there, so no lane may start there.
            *lane = mix(key.wrapping_add(i as u64 + 1)) | 1;
        }
        Stream { lanes }
    }

    /// Marsaglia's xorshift64 (13, 7, 17) on every lane.
    #[inline(always)]
    fn step(&mut self) -> [u64; LANES] {
        for x in &mut self.lanes {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
        }
        self.lanes
    }

    /// Writes the next `out.len()` bytes. Whole rounds only are consumed
    /// between calls, so pieces of a multiple of `ROUND` bytes give the
    /// same bytes as one call over them all.
    pub fn fill(&mut self, out: &mut [u8]) {
        let mut rounds = out.chunks_exact_mut(ROUND);
        for round in &mut rounds {
            let words = self.step();
            for (dst, w) in round.chunks_exact_mut(8).zip(words) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
        }
        let tail = rounds.into_remainder();
        if !tail.is_empty() {
            let mut last = [0u8; ROUND];
            for (dst, w) in last.chunks_exact_mut(8).zip(self.step()) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
            let n = tail.len();
            tail.copy_from_slice(&last[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(key: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        Stream::new(key).fill(&mut v);
        v
    }

    #[test]
    fn pieces_of_whole_rounds_match_one_fill() {
        let whole = bytes(7, 10_007);
        let mut pieces = vec![0; 10_007];
        let mut s = Stream::new(7);
        let (a, rest) = pieces.split_at_mut(ROUND * 3);
        let (b, c) = rest.split_at_mut(ROUND * 100);
        s.fill(a);
        s.fill(b);
        s.fill(c);
        assert_eq!(whole, pieces);
    }

    #[test]
    fn keys_differ_in_every_field_and_the_data_with_them() {
        let base = key(file_seed(1, 2), 4096, 5);
        let others = [
            key(file_seed(9, 2), 4096, 5),
            key(file_seed(1, 3), 4096, 5),
            key(file_seed(1, 2), 8192, 5),
            key(file_seed(1, 2), 4096, 4),
        ];
        for k in others {
            assert_ne!(k, base);
            let (a, b) = (bytes(base, 4096), bytes(k, 4096));
            let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
            assert!(same < 64, "{same} equal bytes");
        }
    }

    #[test]
    fn data_looks_random() {
        let v = bytes(0, 1 << 16);
        let mut counts = [0u32; 256];
        for b in &v {
            counts[*b as usize] += 1;
        }
        // 256 expected per value; a skewed generator would stray far.
        assert!(
            counts.iter().all(|&c| (150..400).contains(&c)),
            "{counts:?}"
        );
    }
}
