//! fio's `random_generator=lfsr` (lib/lfsr.c): a maximal-length linear
//! feedback shift register that visits every block number below `count`
//! exactly once per cycle, so no random map is needed.

/// Tap positions per register width (fio's table, widths 3 to 63).
const TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

#[derive(Clone, Debug)]
pub struct Lfsr {
    last_val: u64,
    max_val: u64,
    xormask: u64,
    cached_bit: u64,
    num_vals: u64,
    /// fio's `cycle_length` for spin 0: it starts at 1, so the very first
    /// draw after init steps twice; a reset does not restore it.
    extra_step_pending: bool,
    seed: u64,
}

impl Lfsr {
    /// `lfsr_init(fl, count, seed, 0)`; None when `count` is 0 or needs more
    /// than 63 bits. Where fio gives up because the seed lands on the
    /// register's forbidden all-ones state, the seed's low bit is flipped
    /// instead so the job still runs.
    pub fn new(count: u64, seed: u64) -> Option<Lfsr> {
        if count == 0 {
            return None;
        }
        let width = (3..64).find(|&i| (1u64 << i) > count)?;
        let taps = TAPS[width];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1u64 << (t - 1));
        let mut l = Lfsr {
            last_val: 0,
            max_val: count - 1,
            xormask,
            cached_bit: 1u64 << (taps[0] - 1),
            num_vals: 0,
            extra_step_pending: true,
            seed,
        };
        if !l.reset() {
            l.seed ^= 1;
            l.reset();
        }
        Some(l)
    }

    /// `lfsr_reset`: back to the seed, so the next cycle repeats this one.
    pub fn reset(&mut self) -> bool {
        // Returns false on the forbidden state, which only `new` can meet.
        let bitmask = (self.cached_bit << 1) - 1;
        self.num_vals = 0;
        self.last_val = self.seed & bitmask;
        // All-ones is the XNOR register's stuck state.
        self.last_val != bitmask
    }

    #[inline]
    fn step(&mut self) {
        let v = self.last_val;
        self.last_val = ((v >> 1) | self.cached_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
    }

    /// `lfsr_next`: the next block number, or None once all `count` have
    /// been returned since the last reset.
    #[inline]
    pub fn next(&mut self) -> Option<u64> {
        let n = self.num_vals;
        self.num_vals += 1;
        if n > self.max_val {
            return None;
        }
        loop {
            if self.extra_step_pending {
                self.extra_step_pending = false;
                self.step();
            }
            self.step();
            if self.last_val <= self.max_val {
                return Some(self.last_val);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_every_value_once() {
        for count in [1u64, 2, 7, 8, 9, 100, 1000, 4097] {
            let mut l = Lfsr::new(count, 0xdead_beef).unwrap();
            let mut seen = vec![false; count as usize];
            for _ in 0..count {
                let v = l.next().unwrap() as usize;
                assert!(!seen[v], "count {count}: {v} twice");
                seen[v] = true;
            }
            assert_eq!(l.next(), None);
            l.reset();
            assert!(l.next().is_some());
        }
    }

    #[test]
    fn zero_count_has_no_register() {
        assert!(Lfsr::new(0, 1).is_none());
    }
}
