//! fio's percentile test, `sum >= (long double) p / 100.0 * nr`, bit-exact.
//!
//! fio on x86-64 evaluates that threshold in x87 extended precision (64-bit
//! significand, round to nearest even). In plain doubles the result differs
//! whenever p/100*nr is a whole number that p's binary form misses by a hair:
//! for p = 30 and nr = 100, fio's threshold is 30.000000000000000002, so it
//! needs 31 samples where a double computation would accept 30. The two
//! roundings are redone here in integers so every platform gets fio's answer.

/// Whether `sum` samples reach percentile `p` (in percent) of `total`.
pub(crate) fn threshold_reached(sum: u64, p: f64, total: u64) -> bool {
    let Some((mant, exp)) = decompose(p) else {
        // Zero (or a negative or NaN percentile, which fio never accepts):
        // the threshold is at most zero and any sum reaches it.
        return true;
    };
    if total == 0 {
        return true;
    }
    let (q, q_exp) = divide_by_100(mant, exp);
    let (t, t_exp) = round_to_64_bits(q as u128 * total as u128);
    ge_scaled(sum, t, q_exp + t_exp)
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

/// mant * 2^exp / 100 rounded to a 64-bit significand: returns (q, e) with
/// q in [2^63, 2^64) and the quotient ~ q * 2^e.
fn divide_by_100(mant: u64, exp: i32) -> (u64, i32) {
    // Scale the numerator so that the quotient has exactly 64 bits.
    let lower = 100u128 << 63;
    let mut num = mant as u128;
    let mut shift = 0i32;
    while num < lower {
        num <<= 1;
        shift += 1;
    }
    while num >= lower << 1 {
        num >>= 1;
        shift -= 1;
    }
    // Shifting right above can only happen for a mantissa wider than 64 bits,
    // which a double does not have, so nothing was lost.
    let mut q = num / 100;
    let rem = num % 100;
    if rem * 2 > 100 || (rem * 2 == 100 && q & 1 == 1) {
        q += 1;
    }
    let mut e = exp - shift;
    if q == 1u128 << 64 {
        q = 1 << 63;
        e += 1;
    }
    (q as u64, e)
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
    fn agrees_with_x87_long_double() {
        // (p, nr, ceil((long double)p / 100.0 * nr)) from gcc on x86-64.
        let cases: &[(f64, u64, u64)] = &[
            (30.0, 50, 16),
            (30.0, 100, 31),
            (30.0, 90, 28),
            (50.0, 100, 50),
            (99.0, 100, 99),
            (99.9, 1000, 1000),
            (99.99, 10000, 9999),
            (99.5, 200, 199),
            (1.0, 1, 1),
            (100.0, 7, 7),
            (60.0, 5, 3),
            (70.0, 10, 7),
            (99.95, 20000, 19991),
            (90.0, 10, 9),
            (10.0, 10, 1),
            (20.0, 1_000_000, 200_000),
            (95.0, 123_456_789, 117_283_950),
            (33.3, 1000, 333),
            (66.6, 3000, 1998),
            (12.5, 8, 1),
            (
                99.99,
                18_446_744_073_709_551_615,
                18_444_899_399_302_179_716,
            ),
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
