//! fio's random number generators (lib/rand.h): the combined Tausworthe
//! generators `taus88` (32-bit) and `taus258` (64-bit), seeded exactly like
//! fio so that a job with `randrepeat=1` draws the same numbers as fio.

/// One fio `struct frand_state`: 32- or 64-bit Tausworthe.
#[derive(Clone, Debug)]
pub struct FioRand {
    s: [u64; 5],
    use64: bool,
}

/// `__seed`: the generator needs each component above a minimum.
fn floor_seed(x: u64, m: u64) -> u64 {
    if x < m {
        x + m
    } else {
        x
    }
}

/// The largest range a 32-bit draw scales to exactly in integers (see
/// [`FioRand::scale`]).
const EXACT_32: u64 = 1 << 21;

/// fio writes the LCG's start value as `(2^31) + (2^17) + (2^7)`, which C
/// evaluates with `^` as XOR: 29 + 19 + 5.
const LCG_START: u64 = 53;

impl FioRand {
    /// `init_rand_seed(state, seed, use64)`.
    pub fn new(seed: u64, use64: bool) -> FioRand {
        let mut s = [0u64; 5];
        if use64 {
            let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
            s[0] = floor_seed(lcg(LCG_START), 1);
            s[1] = floor_seed(lcg(s[0]), 7);
            s[2] = floor_seed(lcg(s[1]), 15);
            s[3] = floor_seed(lcg(s[2]), 33);
            s[4] = floor_seed(lcg(s[3]), 49);
        } else {
            // The 32-bit generator takes the seed as an unsigned int.
            let seed = seed as u32;
            let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
            let s1 = floor_seed(u64::from(lcg(LCG_START as u32)), 1) as u32;
            let s2 = floor_seed(u64::from(lcg(s1)), 7) as u32;
            let s3 = floor_seed(u64::from(lcg(s2)), 15) as u32;
            s[0] = u64::from(s1);
            s[1] = u64::from(s2);
            s[2] = u64::from(s3);
        }
        let mut r = FioRand { s, use64 };
        for _ in 0..6 {
            r.next_u64();
        }
        r
    }

    /// `rand_max()`.
    #[inline]
    pub fn max(&self) -> u64 {
        if self.use64 {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        }
    }

    /// `1 / (rand_max() + 1.0)`: fio divides draws by a power of two, which
    /// a multiplication by its inverse does exactly, and faster.
    #[inline]
    pub fn inv_max_plus_one(&self) -> f64 {
        if self.use64 {
            1.0 / 18_446_744_073_709_551_616.0
        } else {
            1.0 / 4_294_967_296.0
        }
    }

    /// `__rand()`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        if self.use64 {
            self.next64()
        } else {
            u64::from(self.next32())
        }
    }

    #[inline]
    fn next32(&mut self) -> u32 {
        #[inline]
        fn taus(s: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
            ((s & c) << d) ^ (((s << a) ^ s) >> b)
        }
        let s1 = taus(self.s[0] as u32, 13, 19, 4_294_967_294, 12);
        let s2 = taus(self.s[1] as u32, 2, 25, 4_294_967_288, 4);
        let s3 = taus(self.s[2] as u32, 3, 11, 4_294_967_280, 17);
        self.s[0] = u64::from(s1);
        self.s[1] = u64::from(s2);
        self.s[2] = u64::from(s3);
        s1 ^ s2 ^ s3
    }

    #[inline]
    fn next64(&mut self) -> u64 {
        let s = &mut self.s;
        let x = ((s[0] << 1) ^ s[0]) >> 53;
        s[0] = ((s[0] & 18_446_744_073_709_551_614) << 10) ^ x;
        let x = ((s[1] << 24) ^ s[1]) >> 50;
        s[1] = ((s[1] & 18_446_744_073_709_551_104) << 5) ^ x;
        let x = ((s[2] << 3) ^ s[2]) >> 23;
        s[2] = ((s[2] & 18_446_744_073_709_547_520) << 29) ^ x;
        let x = ((s[3] << 5) ^ s[3]) >> 24;
        s[3] = ((s[3] & 18_446_744_073_709_420_544) << 23) ^ x;
        let x = ((s[4] << 3) ^ s[4]) >> 33;
        s[4] = ((s[4] & 18_446_744_073_701_163_008) << 8) ^ x;
        s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
    }

    /// `n * (r / (rand_max + 1.0))`: fio's way of scaling a draw to `[0, n)`.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        let r = self.next_u64();
        self.scale(n, r)
    }

    /// `rand_between(state, start, end)`, both ends inclusive.
    #[inline]
    pub fn between(&mut self, start: u64, end: u64) -> u64 {
        let r = self.next_u64();
        start + self.scale(end - start + 1, r)
    }

    /// `n * (r / (rand_max + 1.0))` truncated, as fio computes it in
    /// doubles. For the 32-bit generator and `n` up to 2^21 (a file of
    /// 8 GiB in 4 KiB blocks) every step is exact in a double (`r` has 32
    /// bits, the division is by 2^32, the product has at most 53 bits), so
    /// the integer `n * r >> 32` is the same number without the four
    /// conversions and two multiplications of the double form.
    #[inline]
    fn scale(&self, n: u64, r: u64) -> u64 {
        if !self.use64 && n <= EXACT_32 {
            (n * r) >> 32
        } else {
            (n as f64 * (r as f64 * self.inv_max_plus_one())) as u64
        }
    }
}

/// Indexes into fio's `td->rand_seeds` (enum in fio.h) that ioscope uses.
pub mod seed_slot {
    pub const BS_READ: usize = 0;
    pub const BS_WRITE: usize = 1;
    pub const BS_TRIM: usize = 2;
    pub const MIX: usize = 4;
    pub const FILE: usize = 5;
    pub const BLOCK: usize = 6;
    pub const FILE_SIZE: usize = 7;
    pub const BUF: usize = 9;
    /// `percentage_random`: fio seeds every direction's from this one.
    pub const SEQ_RAND_READ: usize = 10;
    pub const ZONE: usize = 16;
    /// FIO_RAND_PRIO_CMDS: the cmdprio choices (td->prio_state).
    pub const PRIO_CMDS: usize = 19;
    /// FIO_RAND_SPRANDOM_OFF (fio 3.41): sprandom's draws.
    pub const SPRANDOM: usize = 22;
    /// FIO_RAND_WMODE_OFF (a newer fio's): io_uring_cmd's `write_mode`
    /// mix.
    pub const WRITE_MODE: usize = 23;
    /// A newer fio's FIO_RAND_NR_OFFS; 3.42's 23 slots and 3.33's 21 are
    /// the first of these (a slot's seed depends only on its index).
    pub const COUNT: usize = 24;
}

/// fio's `FIO_RANDSEED`: with `randrepeat=1` the offset generator is seeded
/// from it and the job's thread number, whatever `randseed` says.
const FIO_RANDSEED: u64 = 0xb189_9bed;
/// fio's default `randseed`.
const DEFAULT_RANDSEED: u64 = 0x89;
const SEED_MULT: u64 = 0x9e37_0001;

/// fio's `td->rand_seeds` for one worker (init.c `setup_random_seeds`).
///
/// `thread_number` is fio's 1-based job number: for the workers of a job
/// file with one job section, clone `n` is thread `n + 1`.
pub fn fio_seeds(
    randrepeat: bool,
    randseed: Option<u64>,
    thread_number: u64,
) -> [u64; seed_slot::COUNT] {
    let mut seeds = [0u64; seed_slot::COUNT];
    if !randrepeat && randseed.is_none() {
        // fio reads /dev/urandom here; any fresh entropy will do.
        for s in seeds.iter_mut() {
            *s = os_entropy();
        }
        return seeds;
    }
    let mut seed = randseed.unwrap_or(DEFAULT_RANDSEED);
    for _ in 0..4 {
        seed = seed.wrapping_mul(SEED_MULT);
    }
    for (i, s) in seeds.iter_mut().enumerate() {
        *s = seed.wrapping_mul(thread_number).wrapping_add(i as u64);
        seed = seed.wrapping_mul(SEED_MULT);
    }
    if randrepeat {
        seeds[seed_slot::BLOCK] = FIO_RANDSEED.wrapping_mul(thread_number);
    }
    seeds
}

/// fio's `td->rand_seeds` for worker `thread_number` of `spec`: as
/// [`fio_seeds`], with `allrandrepeat` (init.c `td_fill_rand_seeds`)
/// making every seed the repeatable one.
pub fn job_seeds(spec: &ioscope_job::JobSpec, thread_number: u64) -> [u64; seed_slot::COUNT] {
    if spec.placement.sprandom || spec.placement.fio_335_seeds {
        // sprandom is fio 3.41's, and since 3.35 every seed is the one
        // computed from randseed: randrepeat no longer puts the offsets'
        // on FIO_RANDSEED, and allrandrepeat is another name for it.
        let repeat = spec.randrepeat || spec.placement.allrandrepeat || spec.randseed.is_some();
        let seed = repeat.then(|| spec.randseed.unwrap_or(DEFAULT_RANDSEED));
        return fio_seeds(false, seed, thread_number);
    }
    if !spec.placement.allrandrepeat {
        let mut seeds = fio_seeds(spec.randrepeat, spec.randseed, thread_number);
        if spec.placement.randseed_keeps_offsets {
            seeds[seed_slot::BLOCK] = FIO_RANDSEED.wrapping_mul(thread_number);
        }
        return seeds;
    }
    let mut seeds = [0u64; seed_slot::COUNT];
    for (i, s) in seeds.iter_mut().enumerate() {
        *s = FIO_RANDSEED
            .wrapping_mul(thread_number)
            .wrapping_add(i as u64);
    }
    if spec.randrepeat || spec.placement.randseed_keeps_offsets {
        seeds[seed_slot::BLOCK] = FIO_RANDSEED.wrapping_mul(thread_number);
    }
    seeds
}

/// A random 64-bit value from the standard library's per-process hash keys
/// (seeded from the OS), so unrepeatable runs need no extra dependency.
fn os_entropy() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's double form, kept here as the reference for the integer one.
    fn scale_in_doubles(n: u64, r: u64) -> u64 {
        (n as f64 * (r as f64 / 4_294_967_296.0)) as u64
    }

    #[test]
    fn integer_scaling_is_fio_double_scaling() {
        let r = FioRand::new(1, false);
        let edges = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
        let ranges = [1, 2, 3, 2560, 262_144, 1_000_003, EXACT_32 - 1, EXACT_32];
        for &n in &ranges {
            for &x in &edges {
                assert_eq!(r.scale(n, x), scale_in_doubles(n, x), "n={n} r={x}");
            }
        }
        // And on the generator's own draws, over ranges up to the limit.
        let mut g = FioRand::new(99, false);
        for i in 0..200_000u64 {
            let n = 1 + (i * 7919) % EXACT_32;
            let x = g.next_u64();
            assert_eq!(r.scale(n, x), scale_in_doubles(n, x), "n={n} r={x}");
        }
        // Past the limit the double form is used, rounding included.
        let n = EXACT_32 * 4 + 3;
        assert_eq!(r.scale(n, 0xffff_ffff), scale_in_doubles(n, 0xffff_ffff));
    }

    #[test]
    fn offsets_match_fio_default_seed() {
        // fio --name=t --filename=/tmp/f --size=10m --bs=4k --rw=randread
        //   --write_iolog=log: first offsets 630784 7761920 8839168
        let seeds = fio_seeds(true, None, 1);
        let mut r = FioRand::new(seeds[seed_slot::BLOCK], false);
        let got: Vec<u64> = (0..3).map(|_| r.below(2560) * 4096).collect();
        assert_eq!(got, [630784, 7761920, 8839168]);
    }

    #[test]
    fn offsets_match_fio_randseed_without_repeat() {
        // fio ... --rw=randread --randseed=1234 --randrepeat=0:
        // first offsets 778240 4526080 761856
        let seeds = fio_seeds(false, Some(1234), 1);
        let mut r = FioRand::new(seeds[seed_slot::BLOCK], false);
        let got: Vec<u64> = (0..3).map(|_| r.below(2560) * 4096).collect();
        assert_eq!(got, [778240, 4526080, 761856]);
    }

    #[test]
    fn debug_random_values_match_fio() {
        // fio --name=t --filename=/tmp/g --size=1m --rw=randread --debug=random
        // prints "off rand 259043585", "off rand 3179521932", ...
        let seeds = fio_seeds(true, None, 1);
        let mut r = FioRand::new(seeds[seed_slot::BLOCK], false);
        assert_eq!(r.next_u64(), 259_043_585);
        assert_eq!(r.next_u64(), 3_179_521_932);
    }

    #[test]
    fn sixty_four_bit_generator_differs_and_repeats() {
        let mut a = FioRand::new(42, true);
        let mut b = FioRand::new(42, true);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(va, vb);
        assert!(va.iter().any(|&v| v > u64::from(u32::MAX)));
    }

    #[test]
    fn between_stays_in_range() {
        let mut r = FioRand::new(7, false);
        for _ in 0..10_000 {
            let v = r.between(1, 100);
            assert!((1..=100).contains(&v));
        }
    }
}
