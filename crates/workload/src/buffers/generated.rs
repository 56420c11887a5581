//! Buffers refilled for every write (`refill_buffers`, which
//! `buffer_compress_percentage` and `dedupe_percentage` turn on): each
//! compress chunk is random bytes followed by fixed bytes (zeroes or
//! `buffer_pattern`), as fio's `fill_random_buf_percentage` lays them out,
//! and `dedupe_percentage` of the buffers repeat an earlier one.
//!
//! The random bytes are copied from the worker's pool from a start drawn
//! per buffer, and the first 8 bytes of every 512 random bytes take a stamp
//! drawn per buffer (counting up within it), so that no two unique buffers,
//! and no two sectors of one buffer, hold the same bytes even where a large
//! buffer goes round the pool.

use super::pattern::PatternFill;
use super::pool::RandomPool;
use crate::rand::FioRand;

/// Random bytes per stamp: one stamp per 512-byte sector, as fio's
/// scramble stamps each sector.
const STAMP_EVERY: usize = 512;

/// Bytes copied and stamped at a time where nothing is fixed: small
/// enough to stay in the L2 cache between the copy and the stamps, a
/// multiple of `STAMP_EVERY` so that the stamps stay 512 bytes apart.
const COPY_PIECE: usize = 64 << 10;

/// What the fixed part of a chunk holds.
pub(super) enum Fixed {
    Zero,
    Pattern(PatternFill),
}

/// Everything a buffer's content depends on besides its length (and the
/// offset, for a pattern with `%o`): a deduplicated buffer reuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seed {
    /// Where its random bytes start in the pool.
    start: usize,
    /// The stamp of its first sector.
    stamp: u64,
}

/// How the buffers are shaped.
pub(super) struct Shape {
    /// `buffer_compress_percentage`: percent of each chunk that is fixed.
    pub fixed_percent: u32,
    /// Bytes per chunk: `buffer_compress_chunk`, or the smallest write when
    /// that is smaller, as fio splits a buffer.
    pub chunk: usize,
    pub fixed: Fixed,
    /// `dedupe_percentage`.
    pub dedupe_percent: u32,
    /// `dedupe_mode=working_set`: how many buffers a repeated one is drawn
    /// from (fio's num_unique_pages); 0 in `repeat` mode.
    pub working_set: usize,
    /// `dedupe_global`: where the working set's pages come from.
    pub rotation: Option<Rotation>,
}

/// `dedupe_global`: each thread's generator just past its pool seed, and
/// this worker's place among them. fio's working set takes
/// `pages / threads` pages from each thread's generator in turn, starting
/// with its own (init_dedupe_working_set_seeds with global_dedup).
pub(super) struct Rotation {
    pub peers: Vec<FioRand>,
    pub own: usize,
}

impl Rotation {
    /// The `pages` seeds of the working set; `own` is this worker's
    /// generator where its working set starts.
    fn working_set(self, own: FioRand, pages: usize, pool_len: usize) -> Vec<Seed> {
        let threads = self.peers.len().max(1);
        let per_thread = (pages / threads).max(1);
        // Each peer's generator past the seed its first buffer repeats,
        // where this worker's own `own` is.
        let mut starts: Vec<FioRand> = self.peers;
        for r in &mut starts {
            draw(r, pool_len);
        }
        let mut thread = self.own;
        let mut cursor = own;
        (0..pages)
            .map(|i| {
                if i > 0 && i % per_thread == 0 {
                    thread += 1;
                    cursor = starts[thread % threads].clone();
                }
                draw(&mut cursor, pool_len)
            })
            .collect()
    }
}

pub(super) struct Generated {
    pool: RandomPool,
    shape: Shape,
    /// Draws the seeds of unique buffers.
    rand: FioRand,
    /// Draws which buffers repeat (fio's `dedupe_state`).
    dedupe: FioRand,
    /// The seed of the last unique buffer, which a repeated one reuses.
    last: Seed,
    /// `dedupe_mode=working_set`: the seeds a repeated buffer is drawn
    /// from, and the draws that pick one (fio's
    /// dedupe_working_set_index_state).
    working_set: Vec<Seed>,
    working_set_index: FioRand,
}

impl Generated {
    pub(super) fn new(
        pool: RandomPool,
        shape: Shape,
        rand: FioRand,
        dedupe: FioRand,
        working_set_index: FioRand,
    ) -> Generated {
        let mut g = Generated {
            pool,
            shape: Shape {
                fixed_percent: shape.fixed_percent.min(100),
                chunk: shape.chunk.max(1),
                ..shape
            },
            rand,
            dedupe,
            last: Seed { start: 0, stamp: 0 },
            working_set: Vec::new(),
            working_set_index,
        };
        // fio's first repeated buffer repeats the state the generator
        // started from; here it repeats a seed drawn up front.
        g.last = g.draw();
        // fio's working set is the generator's next states, so its page i
        // is also the i-th unique buffer written (init_dedupe_working_set_seeds).
        let mut ahead = g.rand.clone();
        let pool_len = g.pool.len();
        let pages = g.shape.working_set;
        g.working_set = match g.shape.rotation.take() {
            Some(r) => r.working_set(ahead, pages, pool_len),
            None => (0..pages).map(|_| draw(&mut ahead, pool_len)).collect(),
        };
        g
    }

    /// Fills `buf` for a write at `offset`.
    pub(super) fn fill(&mut self, buf: &mut [u8], offset: u64) {
        let seed = self.next_seed();
        if self.shape.fixed_percent == 0 {
            // Nothing fixed: large copies rather than one per chunk, each
            // stamped while it is still in the cache.
            let mut from = seed.start;
            let mut next_stamp = seed.stamp;
            for piece in buf.chunks_mut(COPY_PIECE) {
                from = self.pool.copy(from, piece);
                next_stamp = stamp(piece, next_stamp);
            }
            return;
        }
        if let Fixed::Pattern(p) = &mut self.shape.fixed {
            p.set_offset(offset);
        }
        let random_percent = 100 - self.shape.fixed_percent as usize;
        let mut from = seed.start;
        let mut next_stamp = seed.stamp;
        for chunk in buf.chunks_mut(self.shape.chunk) {
            // A short last chunk is split in the same proportion, as fio
            // fills it with a segment of its own length.
            let (random, fixed) = chunk.split_at_mut(chunk.len() * random_percent / 100);
            from = self.pool.copy(from, random);
            next_stamp = stamp(random, next_stamp);
            match &self.shape.fixed {
                Fixed::Zero => fixed.fill(0),
                Fixed::Pattern(p) => p.copy_into(fixed),
            }
        }
    }

    /// fio's `get_buf_state`: with probability `dedupe_percentage`, the
    /// last unique buffer's seed (`dedupe_mode=repeat`) or one of the
    /// working set's, drawn uniformly (`working_set`).
    #[inline]
    fn next_seed(&mut self) -> Seed {
        let d = self.shape.dedupe_percent;
        if d > 0 && self.dedupe.between(1, 100) <= u64::from(d) {
            if self.working_set.is_empty() {
                return self.last;
            }
            let last = self.working_set.len() as u64 - 1;
            return self.working_set[self.working_set_index.between(0, last) as usize];
        }
        self.last = self.draw();
        self.last
    }

    fn draw(&mut self) -> Seed {
        draw(&mut self.rand, self.pool.len())
    }
}

/// The seed of a unique buffer, from the generator's next draws.
fn draw(rand: &mut FioRand, pool_len: usize) -> Seed {
    // 8-byte aligned starts keep the copies aligned as the buffers are.
    let words = (pool_len / 8) as u64;
    let start = rand.below(words) as usize * 8;
    // fio's buffer generator is 32-bit: two draws make a 64-bit stamp.
    let stamp = (rand.next_u64() << 32) ^ rand.next_u64();
    Seed { start, stamp }
}

/// Writes `stamp`, `stamp + 1`, ... over the first 8 bytes of every
/// `STAMP_EVERY` bytes of `random` (fewer where it ends sooner); returns
/// the stamp that follows.
#[inline]
fn stamp(random: &mut [u8], mut stamp: u64) -> u64 {
    for sector in random.chunks_mut(STAMP_EVERY) {
        let n = sector.len().min(8);
        sector[..n].copy_from_slice(&stamp.to_ne_bytes()[..n]);
        stamp = stamp.wrapping_add(1);
    }
    stamp
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_job::Pattern;
    use std::collections::HashSet;

    fn generated(fixed_percent: u32, chunk: usize, fixed: Fixed, dedupe: u32) -> Generated {
        Generated::new(
            RandomPool::new(1 << 18, 3),
            Shape {
                fixed_percent,
                chunk,
                fixed,
                dedupe_percent: dedupe,
                working_set: 0,
                rotation: None,
            },
            FioRand::new(11, false),
            FioRand::new(12, false),
            FioRand::new(13, false),
        )
    }

    /// Per chunk: the bytes that must be fixed (zero) at its end, and
    /// whether they are; and the zero bytes in the random part before them.
    fn check_chunks(buf: &[u8], chunk: usize, fixed_percent: usize) -> (usize, usize) {
        let (mut fixed_total, mut random_zeros) = (0, 0);
        for (i, c) in buf.chunks(chunk).enumerate() {
            let random = c.len() * (100 - fixed_percent) / 100;
            assert!(
                c[random..].iter().all(|&b| b == 0),
                "chunk {i}: the last {} bytes are fixed",
                c.len() - random
            );
            fixed_total += c.len() - random;
            random_zeros += c[..random].iter().filter(|&&b| b == 0).count();
        }
        (fixed_total, random_zeros)
    }

    #[test]
    fn each_chunk_is_random_then_fixed_in_the_asked_proportion() {
        // (percent, chunk, buffer length): whole chunks, a short last chunk,
        // chunks that are not multiples of 100 or of a sector.
        let cases = [
            (0, 512, 65536),
            (50, 512, 65536),
            (50, 512, 65536 + 300),
            (25, 4096, 1 << 20),
            (90, 1000, 10_007),
            (99, 512, 4096),
            (100, 512, 4096),
        ];
        for (percent, chunk, len) in cases {
            let mut g = generated(percent, chunk, Fixed::Zero, 0);
            let mut buf = vec![0xeeu8; len];
            g.fill(&mut buf, 0);
            let (fixed, random_zeros) = check_chunks(&buf, chunk, percent as usize);
            let whole = (len / chunk) * (chunk - chunk * (100 - percent as usize) / 100);
            let tail = len % chunk - (len % chunk) * (100 - percent as usize) / 100;
            assert_eq!(
                fixed,
                whole + tail,
                "{percent}% of {chunk}-byte chunks, {len} bytes"
            );
            // The random bytes are random: about 1 in 256 is zero.
            let random = len - fixed;
            assert!(
                random_zeros <= random / 128 + 4,
                "{percent}%: {random_zeros} zeros in {random} random bytes"
            );
            if percent == 50 && len % chunk == 0 {
                assert_eq!(fixed * 2, len);
            }
        }
    }

    #[test]
    fn the_fixed_part_holds_the_pattern_from_its_start() {
        // "ab" then %o: 10 bytes, the slot at 2.
        let p = Pattern {
            bytes: vec![b'a', b'b', 0, 0, 0, 0, 0, 0, 0, 0],
            offsets: vec![2],
        };
        let mut g = generated(50, 512, Fixed::Pattern(PatternFill::new(&p)), 0);
        let mut buf = vec![0u8; 2048];
        let offset = 0x0123_4567_89ab_cdef;
        g.fill(&mut buf, offset);
        let mut rep = p.bytes.clone();
        rep[2..10].copy_from_slice(&offset.to_ne_bytes());
        for c in buf.chunks(512) {
            let want: Vec<u8> = rep.iter().copied().cycle().take(256).collect();
            assert_eq!(c[256..], want[..]);
        }
    }

    #[test]
    fn unique_buffers_differ_in_every_sector() {
        let mut g = generated(0, 512, Fixed::Zero, 0);
        // Four times the pool: the copy goes round it, the stamps do not.
        let mut buf = vec![0u8; 1 << 20];
        g.fill(&mut buf, 0);
        let sectors: HashSet<&[u8]> = buf.chunks(512).collect();
        assert_eq!(sectors.len(), buf.len() / 512);
        let first = buf.clone();
        g.fill(&mut buf, 0);
        let same = first
            .chunks(512)
            .zip(buf.chunks(512))
            .filter(|(a, b)| a == b)
            .count();
        assert_eq!(same, 0);
    }

    /// Of `n` buffers of `len` bytes, how many repeat an earlier one.
    fn repeats(g: &mut Generated, n: usize, len: usize) -> usize {
        let mut seen = HashSet::new();
        let mut buf = vec![0u8; len];
        (0..n)
            .filter(|_| {
                g.fill(&mut buf, 0);
                !seen.insert(buf.clone())
            })
            .count()
    }

    #[test]
    fn dedupe_repeats_about_the_asked_share_of_buffers() {
        for (dedupe, band) in [(0, 0..1), (50, 450..551), (100, 999..1000)] {
            for percent in [0, 50] {
                let mut g = generated(percent, 512, Fixed::Zero, dedupe);
                let r = repeats(&mut g, 1000, 4096);
                assert!(
                    band.contains(&r),
                    "dedupe {dedupe}%, compress {percent}%: {r} of 1000 repeat"
                );
            }
        }
        // 20%, with another seed and a length that is not a sector multiple.
        let mut g = Generated::new(
            RandomPool::new(1 << 16, 9),
            Shape {
                fixed_percent: 0,
                chunk: 512,
                fixed: Fixed::Zero,
                dedupe_percent: 20,
                working_set: 0,
                rotation: None,
            },
            FioRand::new(5, false),
            FioRand::new(6, false),
            FioRand::new(7, false),
        );
        let r = repeats(&mut g, 1000, 5000);
        assert!((150..251).contains(&r), "dedupe 20%: {r} of 1000 repeat");
    }

    #[test]
    fn a_working_set_repeats_only_its_own_buffers_which_are_the_first_unique_ones() {
        let mut g = generated(0, 512, Fixed::Zero, 50);
        g.shape.working_set = 10;
        let mut ahead = g.rand.clone();
        g.working_set = (0..10).map(|_| draw(&mut ahead, g.pool.len())).collect();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut repeated = HashSet::new();
        let mut buf = vec![0u8; 4096];
        for _ in 0..1000 {
            g.fill(&mut buf, 0);
            match seen.iter().position(|b| *b == buf) {
                Some(i) => {
                    repeated.insert(i);
                }
                None => seen.push(buf.clone()),
            }
        }
        // Every repeat is of one of the working set's 10 buffers, which
        // are the first unique ones written (fio's page i).
        assert!(repeated.iter().all(|&i| i < 10), "{repeated:?}");
        assert!(repeated.len() >= 8, "{repeated:?}");
        assert!((400..600).contains(&(1000 - seen.len())), "{}", seen.len());
    }

    #[test]
    fn a_repeated_buffer_repeats_the_last_unique_one() {
        let mut g = generated(0, 512, Fixed::Zero, 50);
        let mut last_unique: Option<Vec<u8>> = None;
        let mut seen = HashSet::new();
        let mut buf = vec![0u8; 4096];
        for _ in 0..200 {
            g.fill(&mut buf, 0);
            if seen.insert(buf.clone()) {
                last_unique = Some(buf.clone());
            } else if let Some(u) = &last_unique {
                assert_eq!(&buf, u);
            }
        }
    }

    // fio's dedupe.c with global_dedup: pages / threads pages from each
    // thread in turn, from this worker's own on; the same set of seeds for
    // every worker, in a rotated order.
    #[test]
    fn a_global_working_set_takes_each_threads_first_buffers_in_turn() {
        let pool_len = 1 << 18;
        let peers: Vec<FioRand> = (1..=3).map(|s| FioRand::new(s, false)).collect();
        let first = |t: usize, n: usize| {
            let mut r = peers[t].clone();
            draw(&mut r, pool_len);
            (0..n).map(|_| draw(&mut r, pool_len)).collect::<Vec<_>>()
        };
        let set = |own: usize| {
            let mut start = peers[own].clone();
            draw(&mut start, pool_len);
            Rotation {
                peers: peers.clone(),
                own,
            }
            .working_set(start, 6, pool_len)
        };
        let (a, b) = (set(0), set(1));
        assert_eq!(a[..2], first(0, 2)[..]);
        assert_eq!(a[2..4], first(1, 2)[..]);
        assert_eq!(a[4..], first(2, 2)[..]);
        assert_eq!(b[..2], first(1, 2)[..]);
        assert_eq!(b[4..], first(0, 2)[..]);
    }
}
