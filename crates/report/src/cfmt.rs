//! printf-style float formatting, the way C's `%f` family writes numbers
//! (fio prints every float through printf).

/// C's `%.{prec}f`: fixed notation, `nan`/`inf` spelled as C spells them.
pub fn fixed(value: f64, prec: usize) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    format!("{value:.prec$}")
}

/// C's `%{width}.{prec}f`: right-aligned in at least `width` characters.
pub fn padded(value: f64, width: usize, prec: usize) -> String {
    format!("{:>width$}", fixed(value, prec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_matches_printf() {
        assert_eq!(fixed(0.0, 6), "0.000000");
        assert_eq!(fixed(17025.641026, 6), "17025.641026");
        assert_eq!(fixed(100.0, 2), "100.00");
        assert_eq!(fixed(f64::NAN, 2), "nan");
        assert_eq!(fixed(f64::INFINITY, 2), "inf");
    }

    #[test]
    fn padded_matches_printf() {
        assert_eq!(padded(0.0, 5, 2), " 0.00");
        assert_eq!(padded(1883.333, 5, 2), "1883.33");
        assert_eq!(padded(50.0, 3, 0), " 50");
        assert_eq!(padded(99.5, 6, 3), "99.500");
    }
}
