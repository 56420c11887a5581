//! fio's percentile test, `sum >= (long double) p / 100.0 * nr`, bit-exact
//! as fio 3.33 actually computes it.
//!
//! fio is built with -ffast-math, and gcc compiles that line (checked in the
//! disassembly of fio-3.33's calc_clat_percentiles) as `p * (nr * 0.01L)`
//! in x87 extended precision: nr times 0.01 rounded to a 64-bit significand,
//! rounded, then times p, rounded again (to nearest even each time). The
//! outcome differs from a plain double computation in rare cases, e.g. the
//! 99.9th percentile of 33000 samples, where fio (and this code) needs
//! 32968 samples and doubles would accept 32967; it also differs from what
//! the source says in exact long double arithmetic (the 60th of 100 samples
//! is the 60th sample in fio, not the 61st). The roundings are redone here
//! in integers so every platform gets fio's answer.

/// 0.01 rounded to the x87 64-bit significand: C_MANT * 2^C_EXP.
const C_MANT: u64 = 0xa3d7_0a3d_70a3_d70a;
const C_EXP: i32 = -70;

/// Whether `sum` samples reach percentile `p` (in percent) of `total`.
pub(crate) fn threshold_reached(sum: u64, p: f64, total: u64) -> bool {
    let Some((p_mant, p_exp)) = decompose(p) else {
        // Zero (or a negative or NaN percentile, which fio never accepts):
        // the threshold is at most zero and any sum reaches it.
        return true;
    };
    let (per_cent, pc_exp) = round_to_64_bits(total as u128 * C_MANT as u128);
    let (t, t_exp) = round_to_64_bits(per_cent as u128 * p_mant as u128);
    ge_scaled(sum, t, C_EXP + pc_exp + p_exp + t_exp)
}

/// p = mant * 2^exp with mant odd or p normal; None when p <= 0 or NaN.
fn decompose(p: f64) -> Option<(u64, i32)> {
    if p.is_nan() || p <= 0.0 {
        return None;
    }
    let bits = p.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp_field == 0 {
        // Subnormal.
        Some((frac, -1074))
    } else {
        Some((frac | (1u64 << 52), exp_field - 1075))
    }
}

/// An exact product rounded to a 64-bit significand: (t, e), value ~ t * 2^e.
fn round_to_64_bits(product: u128) -> (u64, i32) {
    let bits = 128 - product.leading_zeros() as i32;
    if bits <= 64 {
        return (product as u64, 0);
    }
    let shift = bits - 64;
    let mut t = product >> shift;
    let rem = product & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && t & 1 == 1) {
        t += 1;
    }
    let mut e = shift;
    if t == 1u128 << 64 {
        t = 1 << 63;
        e += 1;
    }
    (t as u64, e)
}

/// sum >= t * 2^e, exactly.
fn ge_scaled(sum: u64, t: u64, e: i32) -> bool {
    if t == 0 {
        return true;
    }
    if e >= 0 {
        if e >= 64 {
            return false;
        }
        (sum as u128) >= (t as u128) << e
    } else {
        let down = -e;
        if down >= 64 {
            // t * 2^e < 1, and positive.
            return sum >= 1;
        }
        (sum as u128) << down >= t as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Smallest sum fio accepts for (p, nr).
    fn rank(p: f64, nr: u64) -> u64 {
        // The threshold is at most nr, so a search over 0..=nr finds it.
        let (mut lo, mut hi) = (0u64, nr);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if threshold_reached(mid, p, nr) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    #[test]
    fn agrees_with_fio_3_33_arithmetic() {
        // (p, nr, ceil(p * (nr * 0.01L))) from gcc on x86-64, the
        // expression fio-3.33's binary evaluates.
        let cases: &[(f64, u64, u64)] = &[
            (30.0, 50, 15),
            (30.0, 100, 30),
            (60.0, 100, 60),
            (99.9, 33_000, 32_968),
            (99.9, 1000, 1000),
            (99.99, 10_000, 9999),
            (99.5, 200, 199),
            (1.0, 1, 1),
            (100.0, 7, 7),
            (70.0, 10, 7),
            (99.95, 20_000, 19_991),
            (95.0, 123_456_789, 117_283_950),
            (99.99, u64::MAX, 18_444_899_399_302_179_715),
            (33.3, 1000, 333),
            (66.6, 3000, 1998),
            (12.5, 8, 1),
            (0.001, 1, 1),
            (99.9, 1_052_000, 1_050_949),
        ];
        for &(p, nr, want) in cases {
            assert_eq!(rank(p, nr), want, "p={p} nr={nr}");
        }
    }

    #[test]
    fn zero_percentile_and_empty_total() {
        assert!(threshold_reached(0, 0.0, 100));
        assert!(threshold_reached(0, 50.0, 0));
        assert!(!threshold_reached(0, 0.001, 1));
        assert!(threshold_reached(1, 0.001, 1));
    }
}
