//! Write-buffer contents, by fio's rules: random data scrambled a little
//! per write (the default), zeroes, `buffer_pattern`, or buffers refilled
//! for every write with a chosen compressibility and share of duplicates
//! (`buffer_compress_percentage`, `dedupe_percentage`).

mod generated;
mod pattern;
mod pool;

use ioscope_job::{DedupeMode, JobSpec, RandomGenerator, SizeSpec};

use crate::rand::{job_seeds, seed_slot, FioRand};
use generated::{Fixed, Generated, Rotation, Shape};
use pattern::PatternFill;
use pool::RandomPool;

/// fio's `GOLDEN_RATIO_PRIME` (hash.h), which its buffer filler steps by.
const GOLDEN_RATIO_PRIME: u64 = 0x9e37_ffff_fffc_0001;

/// fio's `FIO_DEDUPE_OFF` in `td->rand_seeds`: the seed of the draws that
/// pick which buffers repeat.
const DEDUPE_SEED_SLOT: usize = 14;
/// fio's `FIO_RAND_DEDUPE_WORKING_SET_IX`: the draws that pick a working
/// set buffer.
const WORKING_SET_SEED_SLOT: usize = 20;

/// Bounds of the random pool refilled buffers copy from. The pool is as
/// long as the largest write, so that no buffer repeats itself, within
/// these: 256 KiB gives small writes plenty of distinct starts, and 4 MiB
/// per worker keeps many workers' pools small while a 16 MiB buffer
/// repeats only every 4 MiB (wider than the windows block-level
/// compression and deduplication look through).
const POOL_MIN: usize = 256 << 10;
const POOL_MAX: usize = 4 << 20;

/// What a buffer is filled with (fio's `fill_io_buffer`, in its order:
/// compression or dedupe, then the pattern, then zeroes, then random data).
enum Content {
    /// `zero_buffers`, or `buffer_compress_percentage=100` (fio turns that
    /// into zero_buffers).
    Zero,
    /// fio's random fill from its buffer generator, once at setup: the
    /// default, and `scramble_buffers=0`.
    Random(FioRand),
    Pattern(PatternFill),
    /// Random bytes from the pool, shaped by compress and dedupe (boxed:
    /// it is far larger than the other kinds).
    Generated(Box<Generated>),
}

impl Content {
    fn fill(&mut self, buf: &mut [u8], offset: u64) {
        match self {
            Content::Zero => buf.fill(0),
            Content::Random(rand) => fill_random(rand, buf),
            Content::Pattern(p) => p.fill(buf, offset),
            Content::Generated(g) => g.fill(buf, offset),
        }
    }
}

/// What a buffer gets before each write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PerWrite {
    /// Nothing: the setup fill stands.
    Keep,
    /// fio's `small_content_scramble`: a few bytes per sector.
    Scramble,
    /// The `%o` slots of the pattern, and nothing else.
    PatternOffsets,
    /// The whole content again.
    Refill,
}

/// What one worker's write buffers hold, and what changes in them before
/// each write.
pub struct BufferFiller {
    content: Content,
    per_write: PerWrite,
    /// Stands in for the start time fio stamps into each sector: a count of
    /// writes, so that no two writes of the same buffer carry the same bytes.
    writes: u64,
}

/// `dedupe_global`: the buffer generator's seed of every thread of the
/// run, in thread-number order, so that a job's dedupe working set takes
/// its pages from each thread in turn (fio's dedupe.c), and the pool all
/// of them copy from is the first thread's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DedupePeers {
    buf_seeds: Vec<u64>,
}

impl DedupePeers {
    /// The seeds of every worker of `jobs` (numjobs each), numbered across
    /// the run as fio numbers its threads.
    pub fn of_run(jobs: &[JobSpec]) -> DedupePeers {
        let mut buf_seeds = Vec::new();
        for spec in jobs {
            for _ in 0..spec.numjobs.max(1) {
                let number = buf_seeds.len() as u64 + 1;
                buf_seeds.push(job_seeds(spec, number)[seed_slot::BUF]);
            }
        }
        DedupePeers { buf_seeds }
    }
}

/// The two draws that seed a pool, as every worker's generator starts.
fn pool_seed(rand: &mut FioRand) -> u64 {
    (rand.next_u64() << 32) ^ rand.next_u64()
}

impl BufferFiller {
    pub fn new(spec: &JobSpec, worker: u32) -> BufferFiller {
        BufferFiller::with_peers(spec, worker, None)
    }

    /// As [`BufferFiller::new`], for a worker of a `dedupe_global` job:
    /// `peers` are the run's threads (None for any other job).
    pub fn with_peers(spec: &JobSpec, worker: u32, peers: Option<&DedupePeers>) -> BufferFiller {
        let seeds = job_seeds(spec, u64::from(worker) + 1);
        let rand = FioRand::new(seeds[seed_slot::BUF], false);
        let compress = spec.buffer_compress_percentage;
        // fio's TD_F_COMPRESS: either option written turns scrambling off.
        let shaped = compress.is_some() || spec.dedupe_percentage > 0;
        let reads = spec.rw.kind.reads();
        let generate = |mut rand: FioRand, fixed_percent: u32, dedupe_percent: u32| {
            let pool_len = usize::try_from(spec.bs.write.max())
                .unwrap_or(POOL_MAX)
                .clamp(POOL_MIN, POOL_MAX);
            let own_pool = pool_seed(&mut rand);
            // Shared content needs one pool: the first thread's.
            let pool = RandomPool::new(
                pool_len,
                peers.map_or(own_pool, |p| {
                    pool_seed(&mut FioRand::new(p.buf_seeds[0], false))
                }),
            );
            // fio splits a buffer into pieces of the smallest write, and
            // those into compress chunks (min_not_zero: a chunk of 0 is
            // the piece, and so is one with no write size to cut by).
            let chunk = match (spec.bs.write.min(), spec.buffer_compress_chunk) {
                (0, 0) => u64::MAX,
                (0, chunk) => chunk,
                (min, 0) => min,
                (min, chunk) => chunk.min(min),
            };
            let fixed = match &spec.buffer_pattern {
                Some(p) => Fixed::Pattern(PatternFill::new(p)),
                None => Fixed::Zero,
            };
            let shape = Shape {
                fixed_percent,
                chunk: usize::try_from(chunk).unwrap_or(usize::MAX),
                fixed,
                dedupe_percent,
                working_set: if dedupe_percent > 0 {
                    working_set_pages(spec)
                } else {
                    0
                },
                rotation: peers.map(|p| Rotation {
                    peers: p
                        .buf_seeds
                        .iter()
                        .map(|&s| {
                            let mut r = FioRand::new(s, false);
                            pool_seed(&mut r);
                            r
                        })
                        .collect(),
                    own: worker as usize,
                }),
            };
            let dedupe = FioRand::new(seeds[DEDUPE_SEED_SLOT], false);
            let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
            let index = FioRand::new(seeds[WORKING_SET_SEED_SLOT], use64);
            Content::Generated(Box::new(Generated::new(pool, shape, rand, dedupe, index)))
        };
        // fio turns compress=100 into zero_buffers before it fills (and
        // then, with dedupe too, fills random data: a quirk not copied,
        // since every buffer of such a job is the same fixed data anyway).
        let content = if shaped && compress != Some(100) {
            generate(rand, compress.unwrap_or(0), spec.dedupe_percentage)
        } else if let Some(p) = &spec.buffer_pattern {
            Content::Pattern(PatternFill::new(p))
        } else if spec.zero_buffers || compress == Some(100) {
            Content::Zero
        } else if spec.refill_buffers {
            generate(rand, 0, 0)
        } else {
            Content::Random(rand)
        };
        let per_write = match &content {
            Content::Generated(_) if spec.refill_buffers => PerWrite::Refill,
            Content::Generated(_) => PerWrite::Keep,
            // fio lays a pattern again before every write when the job also
            // reads (reads land in the same buffers), and otherwise once:
            // buffer_pattern turns scrambling and refilling off. Only the
            // %o slots differ from one write to the next.
            Content::Pattern(_) if reads => PerWrite::Refill,
            Content::Pattern(p) if p.has_offsets() => PerWrite::PatternOffsets,
            Content::Pattern(_) => PerWrite::Keep,
            // Zeroes need laying again only where reads may have landed.
            Content::Zero if spec.refill_buffers && reads => PerWrite::Refill,
            Content::Zero if spec.refill_buffers => PerWrite::Keep,
            // scramble_buffers is already off where zero_buffers was written
            // without it (the job crate applies fio's rule).
            _ if spec.scramble_buffers && !shaped => PerWrite::Scramble,
            _ => PerWrite::Keep,
        };
        BufferFiller {
            content,
            per_write,
            writes: 0,
        }
    }

    /// Fills a buffer once, when the queue is set up.
    pub fn init(&mut self, buf: &mut [u8]) {
        self.content.fill(buf, 0);
    }

    /// Makes `buf` ready for a write of its length at `offset`: by default
    /// a cheap scramble; nothing for zero_buffers; the pattern's offsets;
    /// or fresh contents with refill_buffers.
    #[inline]
    pub fn prepare_write(&mut self, buf: &mut [u8], offset: u64) {
        match self.per_write {
            PerWrite::Keep => {}
            PerWrite::Scramble => {
                self.writes = self.writes.wrapping_add(1);
                scramble(buf, offset, self.writes);
            }
            PerWrite::PatternOffsets => {
                if let Content::Pattern(p) = &self.content {
                    p.paste_offsets(buf, offset);
                }
            }
            PerWrite::Refill => self.content.fill(buf, offset),
        }
    }
}

/// fio's num_unique_pages for `dedupe_mode=working_set`: the share
/// `dedupe_working_set_percentage` of the job's size, in its smallest
/// writes (at least one); 0 in `repeat` mode. The plan step refused a
/// working set without a size in bytes, as fio does.
fn working_set_pages(spec: &JobSpec) -> usize {
    let d = &spec.misc.dedupe;
    match (d.mode, spec.size) {
        (DedupeMode::WorkingSet, Some(SizeSpec::Bytes(size))) => {
            let pages =
                size * u64::from(d.working_set_percentage) / 100 / spec.bs.write.min().max(1);
            usize::try_from(pages).unwrap_or(usize::MAX).max(1)
        }
        _ => 0,
    }
}

/// fio's `fill_random_buf`: one draw seeds a multiplicative sequence
/// written a u64 at a time (the tail with the low bytes of the next).
fn fill_random(rand: &mut FioRand, buf: &mut [u8]) {
    let r1 = rand.next_u64();
    let r2 = rand.next_u64();
    let mut seed = r1.wrapping_mul(r2);
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&seed.to_ne_bytes());
        seed = seed.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3;
    }
    let tail = chunks.into_remainder();
    let n = tail.len();
    tail.copy_from_slice(&seed.to_ne_bytes()[..n]);
}

/// fio's `small_content_scramble`: in every 512-byte sector, the sector's
/// file offset goes into one of its first eight 64-byte lines (which one
/// depends on the write) and a per-write stamp into bytes 48..64. A
/// buffer shorter than a sector is left as it is, as fio does.
#[inline]
fn scramble(buf: &mut [u8], offset: u64, stamp: u64) {
    let line = ((stamp ^ offset) & 7) as usize * 64;
    let mut boffset = offset;
    for sector in buf.chunks_exact_mut(512) {
        sector[line..line + 8].copy_from_slice(&boffset.to_ne_bytes());
        sector[48..56].copy_from_slice(&(stamp >> 32).to_ne_bytes());
        sector[56..64].copy_from_slice(&stamp.to_ne_bytes());
        boffset = boffset.wrapping_add(512);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_spec::spec;
    use ioscope_job::{Pattern, RwKind};

    fn filler(f: impl Fn(&mut JobSpec)) -> BufferFiller {
        let mut s = spec(RwKind::Write, 1 << 20, 4096);
        f(&mut s);
        BufferFiller::new(&s, 0)
    }

    #[test]
    fn zero_buffers_stay_zero() {
        // As the job crate leaves it: zero_buffers turns scrambling off.
        let mut b = filler(|s| {
            s.zero_buffers = true;
            s.scramble_buffers = false;
        });
        let mut buf = vec![0xaau8; 8192];
        b.init(&mut buf);
        assert!(buf.iter().all(|&x| x == 0));
        for i in 0..10 {
            b.prepare_write(&mut buf, i * 8192);
            assert!(buf.iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn default_fills_once_then_scrambles_a_few_bytes_per_sector() {
        let mut b = filler(|_| {});
        let mut buf = vec![0u8; 4096];
        b.init(&mut buf);
        let zeros = buf.iter().filter(|&&x| x == 0).count();
        assert!(zeros < 64, "random data: {zeros} zero bytes");
        let before = buf.clone();
        b.prepare_write(&mut buf, 1 << 20);
        let changed: Vec<usize> = (0..buf.len()).filter(|&i| buf[i] != before[i]).collect();
        // At most 8 bytes of offset and 16 of stamp per 512-byte sector.
        assert!(changed.len() <= 8 * 24, "{}", changed.len());
        assert!(!changed.is_empty());
        for sector in buf.chunks(512).enumerate() {
            let (i, s) = sector;
            let line = (0..8)
                .find(|l| s[l * 64..l * 64 + 8] == ((1u64 << 20) + i as u64 * 512).to_ne_bytes());
            assert!(line.is_some(), "sector {i} carries its offset");
        }
        // Two writes of the same buffer at the same offset differ.
        let first = buf.clone();
        b.prepare_write(&mut buf, 1 << 20);
        assert_ne!(first, buf);
    }

    #[test]
    fn short_buffers_are_not_scrambled() {
        let mut b = filler(|_| {});
        let mut buf = vec![0u8; 100];
        b.init(&mut buf);
        let before = buf.clone();
        b.prepare_write(&mut buf, 0);
        assert_eq!(before, buf);
    }

    #[test]
    fn refill_rewrites_everything() {
        let mut b = filler(|s| s.refill_buffers = true);
        let mut buf = vec![0u8; 4099];
        b.init(&mut buf);
        let before = buf.clone();
        b.prepare_write(&mut buf, 0);
        let same = (0..buf.len()).filter(|&i| buf[i] == before[i]).count();
        assert!(same < 64, "{same} bytes unchanged");
    }

    #[test]
    fn scramble_off_keeps_the_initial_data() {
        let mut b = filler(|s| s.scramble_buffers = false);
        let mut buf = vec![0u8; 4096];
        b.init(&mut buf);
        assert!(buf.iter().any(|&x| x != 0));
        let before = buf.clone();
        b.prepare_write(&mut buf, 4096);
        assert_eq!(before, buf);
    }

    /// `bytes` repeated over `n` bytes, every slot holding `offset`.
    fn repeated(bytes: &[u8], slots: &[usize], n: usize, offset: u64) -> Vec<u8> {
        let mut rep = bytes.to_vec();
        for &s in slots {
            rep[s..s + 8].copy_from_slice(&offset.to_ne_bytes());
        }
        rep.iter().copied().cycle().take(n).collect()
    }

    #[test]
    fn a_pattern_without_offsets_is_laid_once_and_never_scrambled() {
        let bytes = b"0123456".to_vec();
        let mut b = filler(|s| {
            s.buffer_pattern = Some(Pattern {
                bytes: bytes.clone(),
                offsets: vec![],
            })
        });
        assert_eq!(b.per_write, PerWrite::Keep);
        // 4100 bytes: not a multiple of the 7-byte pattern.
        let mut buf = vec![0u8; 4100];
        b.init(&mut buf);
        assert_eq!(buf, repeated(&bytes, &[], 4100, 0));
        b.prepare_write(&mut buf[..1000], 8192);
        assert_eq!(buf, repeated(&bytes, &[], 4100, 0));
    }

    #[test]
    fn pattern_offsets_take_each_writes_offset() {
        // 0x11 %o 0x22 0x33: 11 bytes, the slot at 1.
        let bytes = vec![0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0x22, 0x33];
        let mut b = filler(|s| {
            s.buffer_pattern = Some(Pattern {
                bytes: bytes.clone(),
                offsets: vec![1],
            })
        });
        assert_eq!(b.per_write, PerWrite::PatternOffsets);
        let mut buf = vec![0u8; 8192];
        b.init(&mut buf);
        assert_eq!(buf, repeated(&bytes, &[1], 8192, 0));
        // Writes of a whole buffer, then of a part of it whose end cuts a
        // slot (4096 = 372 * 11 + 4).
        b.prepare_write(&mut buf, 1 << 30);
        assert_eq!(buf, repeated(&bytes, &[1], 8192, 1 << 30));
        b.prepare_write(&mut buf[..4096], 12288);
        assert_eq!(buf[..4096], repeated(&bytes, &[1], 4096, 12288)[..]);
        assert_eq!(&buf[4093..4096], &12288u64.to_ne_bytes()[..3]);
    }

    #[test]
    fn a_pattern_is_laid_again_when_reads_share_the_buffers() {
        let bytes = vec![0xab, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut b = filler(|s| {
            s.rw.kind = RwKind::RandRw;
            s.buffer_pattern = Some(Pattern {
                bytes: bytes.clone(),
                offsets: vec![1],
            })
        });
        assert_eq!(b.per_write, PerWrite::Refill);
        let mut buf = vec![0u8; 4096];
        b.init(&mut buf);
        // A read landed in the buffer.
        buf.fill(0x5a);
        b.prepare_write(&mut buf, 4096);
        assert_eq!(buf, repeated(&bytes, &[1], 4096, 4096));
    }

    /// Zero bytes of each `chunk`-byte chunk of `buf` that follow its
    /// random part, checked to be all of the chunk's tail.
    fn fixed_bytes(buf: &[u8], chunk: usize, percent: usize) -> usize {
        buf.chunks(chunk)
            .map(|c| {
                let random = c.len() * (100 - percent) / 100;
                assert!(c[random..].iter().all(|&x| x == 0));
                c.len() - random
            })
            .sum()
    }

    #[test]
    fn compress_percentages_fix_that_share_of_every_chunk() {
        for (percent, chunk) in [(0, 512), (50, 512), (50, 4096), (75, 1000), (100, 512)] {
            let mut b = filler(|s| {
                s.buffer_compress_percentage = Some(percent);
                s.buffer_compress_chunk = chunk;
                // What the job crate derives from the percentage.
                s.refill_buffers = percent != 100;
            });
            let mut buf = vec![0xeeu8; 64 << 10];
            b.init(&mut buf);
            for i in 0..3 {
                let before = buf.clone();
                b.prepare_write(&mut buf, i * 65536);
                let fixed = fixed_bytes(&buf, chunk as usize, percent as usize);
                let whole = (65536 / chunk) * (chunk - chunk * (100 - u64::from(percent)) / 100);
                let tail = 65536 % chunk - (65536 % chunk) * (100 - u64::from(percent)) / 100;
                assert_eq!(fixed as u64, whole + tail, "{percent}% of {chunk}");
                let zeros = buf.iter().filter(|&&x| x == 0).count();
                let random = buf.len() - fixed;
                // Random bytes are about 1 in 256 zero.
                assert!(
                    zeros - fixed <= random / 128 + 4,
                    "{percent}%: {zeros} zeros"
                );
                // Refilled buffers change with every write; 100% is fixed
                // and not scrambled (fio's compress flag turns that off).
                if percent == 100 {
                    assert_eq!(b.per_write, PerWrite::Keep);
                    assert!(buf.iter().all(|&x| x == 0));
                } else {
                    assert_ne!(before, buf);
                }
            }
        }
    }

    /// buffer_compress_chunk=0 cuts each write's buffer into chunks of the
    /// smallest write, as fio's min_not_zero does.
    #[test]
    fn a_compress_chunk_of_0_is_the_smallest_write() {
        let bytes = |chunk| {
            let mut b = filler(|s| {
                s.buffer_compress_percentage = Some(50);
                s.buffer_compress_chunk = chunk;
                s.refill_buffers = true;
            });
            let mut buf = vec![0xeeu8; 16 << 10];
            b.init(&mut buf);
            b.prepare_write(&mut buf, 0);
            buf
        };
        let zero = bytes(0);
        assert_eq!(zero, bytes(4096), "the job's writes are 4 KiB");
        assert_ne!(zero, bytes(512));
        assert_eq!(fixed_bytes(&zero, 4096, 50), 8192);
    }

    /// How many of `n` writes of `len` bytes repeat an earlier buffer.
    fn repeated_writes(b: &mut BufferFiller, n: u64, len: usize) -> usize {
        let mut seen = std::collections::HashSet::new();
        let mut buf = vec![0u8; len];
        b.init(&mut buf);
        (0..n)
            .filter(|&i| {
                b.prepare_write(&mut buf, i * len as u64);
                !seen.insert(buf.clone())
            })
            .count()
    }

    #[test]
    fn dedupe_percentages_repeat_that_share_of_writes() {
        for (dedupe, band) in [(0, 0..1), (50, 450..551), (100, 999..1000)] {
            for compress in [None, Some(30)] {
                let mut b = filler(|s| {
                    s.dedupe_percentage = dedupe;
                    s.buffer_compress_percentage = compress;
                    s.refill_buffers = dedupe > 0 || compress.is_some();
                });
                let r = repeated_writes(&mut b, 1000, 4096);
                assert!(
                    band.contains(&r),
                    "dedupe {dedupe}%, compress {compress:?}: {r} of 1000 repeat"
                );
            }
        }
    }

    #[test]
    fn refilled_random_buffers_are_all_new() {
        let mut b = filler(|s| s.refill_buffers = true);
        assert_eq!(repeated_writes(&mut b, 200, 8192), 0);
    }

    #[test]
    fn zero_buffers_win_where_fio_lets_them() {
        let zero = |buf: &[u8]| buf.iter().all(|&x| x == 0);
        let mut buf = vec![0xaau8; 8192];
        // Over random data refilled for every write: still zeroes.
        let mut b = filler(|s| {
            s.zero_buffers = true;
            s.refill_buffers = true;
        });
        b.init(&mut buf);
        b.prepare_write(&mut buf, 0);
        assert!(zero(&buf));
        // ... and zeroed again before a write when reads share the buffers.
        let mut b = filler(|s| {
            s.rw.kind = RwKind::RandRw;
            s.zero_buffers = true;
            s.refill_buffers = true;
        });
        buf.fill(0xaa);
        b.prepare_write(&mut buf, 0);
        assert!(zero(&buf));
        // scramble_buffers written as well: fio scrambles the zeroes.
        let mut b = filler(|s| s.zero_buffers = true);
        b.init(&mut buf);
        b.prepare_write(&mut buf, 0);
        assert!(!zero(&buf));
        // A pattern wins over zeroes (fio's buffer_pattern clears
        // zero_buffers), and so do compression and dedupe, which fio
        // checks first.
        let mut b = filler(|s| {
            s.zero_buffers = true;
            s.scramble_buffers = false;
            s.buffer_pattern = Some(Pattern {
                bytes: vec![7],
                offsets: vec![],
            });
        });
        b.init(&mut buf);
        assert!(buf.iter().all(|&x| x == 7));
        let mut b = filler(|s| {
            s.zero_buffers = true;
            s.scramble_buffers = false;
            s.dedupe_percentage = 10;
            s.refill_buffers = true;
        });
        b.init(&mut buf);
        assert!(!zero(&buf));
    }

    #[test]
    fn workers_get_different_data() {
        let s = spec(RwKind::Write, 1 << 20, 4096);
        let (mut a, mut b) = (vec![0u8; 512], vec![0u8; 512]);
        BufferFiller::new(&s, 0).init(&mut a);
        BufferFiller::new(&s, 1).init(&mut b);
        assert_ne!(a, b);
    }
}
