//! fio's non-uniform random offsets (lib/zipf.c, lib/gauss.c, io_u.c's
//! zoned generators), drawn exactly as fio 3.33 draws them so that a job
//! with the same seeds issues the same offsets.

use ioscope_job::{Distribution, PerDir, ZoneSplit};

use crate::rand::FioRand;

/// fio's `FRAND32_MAX`.
const FRAND32_MAX: f64 = u32::MAX as f64;
/// zipf's zeta sum stops after this many terms (fio's `ZIPF_MAX_GEN`).
const ZIPF_MAX_GEN: u64 = 10_000_000;
/// Draws summed for one normal value (fio's `GAUSS_ITERS`).
const GAUSS_ITERS: u64 = 12;

/// fio's `__hash_u64`: spreads a rank over the file.
fn hash_u64(v: u64) -> u64 {
    v.wrapping_mul(0x61C8_8646_80B5_83EB)
}

/// fio's `jhash` (hash.h), quirk included: whole 12-byte blocks add one
/// byte per word, not four.
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let mut a = 0x61C8_8647u32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let (mut b, mut c) = (a, a);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        // __jhash_mix
        a = a.wrapping_sub(c) ^ c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c) ^ c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    let byte = |i: usize, shift: u32| k.get(i).map_or(0, |&x| u32::from(x) << shift);
    c = c.wrapping_add(byte(11, 24) | byte(10, 16) | byte(9, 8) | byte(8, 0));
    b = b.wrapping_add(byte(7, 24) | byte(6, 16) | byte(5, 8) | byte(4, 0));
    a = a.wrapping_add(byte(3, 24) | byte(2, 16) | byte(1, 8) | byte(0, 0));
    // __jhash_final
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(24));
    c
}

/// One file's zipf, pareto or normal generator (fio's `f->zipf` or
/// `f->gauss`), drawing block numbers in `[0, nranges)`.
#[derive(Clone, Debug)]
pub struct FileDist {
    rand: FioRand,
    nranges: u64,
    kind: Kind,
    rand_off: u64,
    /// Ranks are spread over the range by fio's hash, except when fio
    /// disables it (`zipf_disable_hash`: the file service's ranks are
    /// the files themselves).
    hashed: bool,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Zipf { theta: f64, zeta2: f64, zetan: f64 },
    Pareto { pow: f64 },
    Gauss { stddev: u32 },
}

impl FileDist {
    /// fio's `__init_rand_distribution` for one file: None for the
    /// distributions that draw from the job's generator.
    pub fn new(dist: &Distribution, nranges: u64, seed: u32) -> Option<FileDist> {
        let mut rand = FioRand::new(u64::from(seed), false);
        let (kind, rand_off) = match *dist {
            Distribution::Zipf { theta, center } => {
                let off = shared_offset(&mut rand, nranges, center);
                let to_gen = nranges.min(ZIPF_MAX_GEN);
                let zetan = (0..to_gen).fold(0.0, |z, i| z + (1.0 / (i + 1) as f64).powf(theta));
                let zeta2 = 1.0f64.powf(theta) + 0.5f64.powf(theta);
                (
                    Kind::Zipf {
                        theta,
                        zeta2,
                        zetan,
                    },
                    off,
                )
            }
            Distribution::Pareto { h, center } => {
                let off = shared_offset(&mut rand, nranges, center);
                (
                    Kind::Pareto {
                        pow: h.ln() / (1.0 - h).ln(),
                    },
                    off,
                )
            }
            Distribution::Normal { dev, center } => {
                let mut stddev = 0u32;
                if dev != 0.0 {
                    stddev = ((nranges as f64 * dev) / 100.0).ceil() as u32;
                    stddev = stddev.min((nranges / 2) as u32);
                }
                // fio keeps the offset in an unsigned int: a center below
                // the middle wraps, as the C conversion does on x86-64.
                let off = center.map_or(0, |c| (nranges as f64 * (c - 0.5)) as i64 as u32);
                (Kind::Gauss { stddev }, u64::from(off))
            }
            _ => return None,
        };
        Some(FileDist {
            rand,
            nranges,
            kind,
            rand_off,
            hashed: true,
        })
    }

    /// The same generator with fio's hash of the ranks disabled
    /// (`zipf_disable_hash`, `gauss_disable_hash`).
    pub fn unhashed(self) -> FileDist {
        FileDist {
            hashed: false,
            ..self
        }
    }

    #[inline]
    fn spread(&self, v: u64) -> u64 {
        match self.hashed {
            true => hash_u64(v),
            false => v,
        }
    }

    /// The next block number.
    #[inline]
    pub fn next(&mut self) -> u64 {
        let n = self.nranges;
        let val = match self.kind {
            Kind::Zipf {
                theta,
                zeta2,
                zetan,
            } => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let uni = self.rand.next_u64() as f64 / FRAND32_MAX;
                let z = uni * zetan;
                let v = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * uni - eta + 1.0).powf(alpha)) as u64
                };
                self.spread(v - 1)
            }
            Kind::Pareto { pow } => {
                let r = self.rand.next_u64() as f64 / FRAND32_MAX;
                self.spread(((n - 1) as f64 * r.powf(pow)) as u64)
            }
            Kind::Gauss { stddev } => {
                let v = self.gauss(stddev);
                self.spread(v)
            }
        };
        val.wrapping_add(self.rand_off) % n
    }

    fn gauss(&mut self, stddev: u32) -> u64 {
        let n = self.nranges;
        let mut sum = 0u64;
        for _ in 0..GAUSS_ITERS {
            sum = sum.wrapping_add(self.rand.next_u64() % (n + 1));
        }
        sum = sum.div_ceil(GAUSS_ITERS);
        if stddev != 0 {
            let r = self.rand.next_u64() as f64;
            let vr = (f64::from(stddev) * (r / (FRAND32_MAX + 1.0))) as i32;
            let mut dev = vr.wrapping_sub((stddev / 2) as i32);
            // fio adds the int to an unsigned long long: modular, and a
            // sum that would go below 0 wraps high and is halved back.
            while sum.wrapping_add(dev as i64 as u64) >= n {
                dev /= 2;
            }
            sum = sum.wrapping_add(dev as i64 as u64);
        }
        sum
    }
}

/// fio's `shared_rand_init`: the offset the ranks start from, a draw
/// unless a center was given.
fn shared_offset(rand: &mut FioRand, nranges: u64, center: Option<f64>) -> u64 {
    let drawn = rand.next_u64();
    center.map_or(drawn, |c| (nranges as f64 * c) as u64)
}

/// fio's `zone_split_index` for one direction: for each of the 100
/// access percents, the zone it falls in as (start, end) in percent of
/// the file (`zoned`) or bytes (`zoned_abs`).
#[derive(Clone, Debug)]
pub struct ZoneIndex {
    zones: Vec<(u64, u64)>,
}

impl ZoneIndex {
    /// fio's `__td_zone_gen_index`; None for a direction without zones.
    pub fn new(splits: &[ZoneSplit]) -> Option<ZoneIndex> {
        if splits.is_empty() {
            return None;
        }
        let mut zones = Vec::with_capacity(100);
        let mut prev = 0u64;
        for z in splits {
            for _ in 0..z.access {
                zones.push((prev, prev + z.size));
            }
            prev += z.size;
        }
        Some(ZoneIndex { zones })
    }

    pub fn per_dir(splits: &PerDir<Vec<ZoneSplit>>) -> [Option<ZoneIndex>; 3] {
        [
            ZoneIndex::new(&splits.read),
            ZoneIndex::new(&splits.write),
            ZoneIndex::new(&splits.trim),
        ]
    }

    /// The zone of access percent `v` (1 to 100).
    #[inline]
    pub fn zone(&self, v: u64) -> (u64, u64) {
        self.zones[(v - 1) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jhash_matches_fio() {
        // fio's jhash of "" with initval 0 is its initial value, unmixed.
        assert_eq!(jhash(b"", 0), 0x61C8_8647);
    }

    #[test]
    fn zipf_and_pareto_stay_in_range_and_favour_few_blocks() {
        for dist in [
            Distribution::Zipf {
                theta: 1.2,
                center: None,
            },
            Distribution::Pareto {
                h: 0.2,
                center: None,
            },
            Distribution::Normal {
                dev: 5.0,
                center: Some(0.2),
            },
        ] {
            let mut d = FileDist::new(&dist, 1000, 42).unwrap();
            let mut counts = vec![0u32; 1000];
            for _ in 0..100_000 {
                counts[d.next() as usize] += 1;
            }
            counts.sort_unstable();
            let top: u32 = counts[900..].iter().sum();
            assert!(top > 50_000, "{dist:?}: the top 10% got {top}");
        }
    }

    #[test]
    fn zone_index_spans_percents() {
        let z = ZoneIndex::new(&[
            ZoneSplit {
                access: 60,
                size: 10,
            },
            ZoneSplit {
                access: 40,
                size: 90,
            },
        ])
        .unwrap();
        assert_eq!(z.zone(1), (0, 10));
        assert_eq!(z.zone(60), (0, 10));
        assert_eq!(z.zone(61), (10, 100));
        assert_eq!(z.zone(100), (10, 100));
    }
}
