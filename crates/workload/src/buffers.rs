//! Write-buffer contents: zeroes, random data scrambled per write, or refilled.

use ioscope_job::JobSpec;

use crate::rand::{fio_seeds, seed_slot, FioRand};

/// fio's `GOLDEN_RATIO_PRIME` (hash.h), which its buffer filler steps by.
const GOLDEN_RATIO_PRIME: u64 = 0x9e37_ffff_fffc_0001;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `zero_buffers`: zeroes once, never touched again.
    Zero,
    /// `scramble_buffers=0`: random data once, never touched again.
    Random,
    /// The default: random data once, a few bytes per sector per write.
    Scramble,
    /// `refill_buffers`: fresh random data for every write.
    Refill,
}

pub struct BufferFiller {
    mode: Mode,
    rand: FioRand,
    /// Stands in for the start time fio stamps into each sector: a count of
    /// writes, so that no two writes of the same buffer carry the same bytes.
    writes: u64,
}

impl BufferFiller {
    pub fn new(spec: &JobSpec, worker: u32) -> BufferFiller {
        // fio: refill_buffers wins; an explicit zero_buffers turns the
        // default scramble off.
        let mode = if spec.refill_buffers {
            Mode::Refill
        } else if spec.zero_buffers {
            Mode::Zero
        } else if spec.scramble_buffers {
            Mode::Scramble
        } else {
            Mode::Random
        };
        let seeds = fio_seeds(spec.randrepeat, spec.randseed, u64::from(worker) + 1);
        BufferFiller {
            mode,
            rand: FioRand::new(seeds[seed_slot::BUF], false),
            writes: 0,
        }
    }

    /// Fills a buffer once, when the queue is set up.
    pub fn init(&mut self, buf: &mut [u8]) {
        if self.mode == Mode::Zero {
            buf.fill(0);
        } else {
            self.fill_random(buf);
        }
    }

    /// Makes `buf` ready for a write of its length at `offset`: nothing for
    /// zero_buffers, a cheap scramble by default, fresh random data with
    /// refill_buffers.
    #[inline]
    pub fn prepare_write(&mut self, buf: &mut [u8], offset: u64) {
        match self.mode {
            Mode::Zero | Mode::Random => {}
            Mode::Refill => self.fill_random(buf),
            Mode::Scramble => {
                self.writes = self.writes.wrapping_add(1);
                scramble(buf, offset, self.writes);
            }
        }
    }

    /// fio's `fill_random_buf`: one draw seeds a multiplicative sequence
    /// written a u64 at a time (the tail with the low bytes of the next).
    fn fill_random(&mut self, buf: &mut [u8]) {
        let r1 = self.rand.next_u64();
        let r2 = self.rand.next_u64();
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
    use ioscope_job::RwKind;

    fn filler(f: impl Fn(&mut JobSpec)) -> BufferFiller {
        let mut s = spec(RwKind::Write, 1 << 20, 4096);
        f(&mut s);
        BufferFiller::new(&s, 0)
    }

    #[test]
    fn zero_buffers_stay_zero() {
        let mut b = filler(|s| s.zero_buffers = true);
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

    #[test]
    fn workers_get_different_data() {
        let s = spec(RwKind::Write, 1 << 20, 4096);
        let (mut a, mut b) = (vec![0u8; 512], vec![0u8; 512]);
        BufferFiller::new(&s, 0).init(&mut a);
        BufferFiller::new(&s, 1).init(&mut b);
        assert_ne!(a, b);
    }
}
