//! fio's `num2str()` (lib/num2str.c): a number in at most `maxlen` digits
//! with an SI (k, M, G) or IEC (Ki, Mi, Gi) prefix, carrying fio's rounding
//! quirks so that every figure reads as fio's does.

/// What the number counts, i.e. the suffix after the prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unit {
    /// A bare count: `41.1k`.
    None,
    /// Bytes: `16.0MiB`.
    Byte,
    /// Bytes per second: `161MiB/s`.
    #[default]
    BytePerSec,
    /// Bits per second, from a figure in bytes per second (`unit_base=1`):
    /// `1288Mibit/s`.
    BitPerSec,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Byte => "B",
            Unit::BytePerSec => "B/s",
            Unit::BitPerSec => "bit/s",
        }
    }
}

const SI: [&str; 6] = ["", "k", "M", "G", "T", "P"];
const IEC: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];

/// fio's sig_figs default: four significant figures.
pub const SIG_FIGS: usize = 4;

fn digits(n: u64) -> usize {
    n.to_string().len()
}

/// `num2str(num, maxlen, base, pow2, units)`: `base` is what one unit of
/// `num` is worth (1 for plain numbers, 1024 when `num` is in KiB), `pow2`
/// picks IEC prefixes over SI ones.
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, unit: Unit) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefixes = if pow2 { &IEC } else { &SI };
    // fio multiplies before it scales (num2str's N2S_BITPERSEC).
    let mut num = if unit == Unit::BitPerSec {
        num.wrapping_mul(8)
    } else {
        num
    };
    let mut post_index = 0usize;
    let mut base = base;
    while base > 1 {
        base /= thousand;
        post_index += 1;
    }

    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post_index < SI.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post_index += 1;
    }

    let done = |num: u64, post_index: usize| {
        let post_index = if post_index >= SI.len() {
            0
        } else {
            post_index
        };
        format!("{num}{}{}", prefixes[post_index], unit.suffix())
    };

    let Some(modulo) = modulo else {
        return done(num, post_index);
    };
    let len = digits(num);
    if maxlen as i64 - len as i64 <= 1 {
        return done(if carry { num + 1 } else { num }, post_index);
    }
    let decimals = maxlen - len - 1;
    // fio prints modulo/thousand with %.Nf and keeps what follows "0.";
    // a fraction that rounds up to 1.0 loses its carry there, as in fio.
    let frac = format!("{:.decimals$}", modulo as f64 / thousand as f64);
    let post_index = post_index.min(SI.len() - 1);
    format!(
        "{num}.{}{}{}",
        &frac[2.min(frac.len())..],
        prefixes[post_index],
        unit.suffix()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_per_second_are_eight_times_the_bytes() {
        assert_eq!(num2str(1 << 20, 4, 1, true, Unit::BitPerSec), "8192Kibit/s");
        assert_eq!(
            num2str(1_000_000, 4, 1, false, Unit::BitPerSec),
            "8000kbit/s"
        );
    }

    #[test]
    fn plain_counts() {
        // Values from fio 3.33's real output.
        assert_eq!(num2str(41115, 4, 1, false, Unit::None), "41.1k");
        assert_eq!(num2str(3482124, 4, 1, false, Unit::None), "3482k");
        assert_eq!(num2str(2048000, 4, 1, false, Unit::None), "2048k");
        assert_eq!(num2str(13600, 4, 1, false, Unit::None), "13.6k");
        assert_eq!(num2str(999, 4, 1, false, Unit::None), "999");
        assert_eq!(num2str(0, 4, 1, false, Unit::None), "0");
    }

    #[test]
    fn latency_figures() {
        assert_eq!(num2str(3245236, 6, 1, false, Unit::None), "3245.2k");
        assert_eq!(num2str(233508, 6, 1, false, Unit::None), "233508");
        assert_eq!(num2str(1818, 6, 1, false, Unit::None), "1818");
    }

    #[test]
    fn bytes_iec_and_si() {
        assert_eq!(num2str(16 << 20, 4, 1, true, Unit::Byte), "16.0MiB");
        assert_eq!(num2str(16 << 20, 4, 1, false, Unit::Byte), "16.8MB");
        assert_eq!(num2str(8159232, 4, 1, true, Unit::Byte), "7968KiB");
        assert_eq!(num2str(8159232, 4, 1, false, Unit::Byte), "8159kB");
        assert_eq!(num2str(4096, 4, 1, true, Unit::Byte), "4096B");
        assert_eq!(num2str(131072, 4, 1, true, Unit::Byte), "128KiB");
        assert_eq!(num2str(131072, 4, 1, false, Unit::Byte), "131kB");
        assert_eq!(num2str(1 << 20, 4, 1, true, Unit::Byte), "1024KiB");
        assert_eq!(num2str(50331648, 4, 1, true, Unit::Byte), "48.0MiB");
        assert_eq!(num2str(50331648, 4, 1, false, Unit::Byte), "50.3MB");
    }

    #[test]
    fn rates() {
        // 55.9MB/s and 53.3MiB/s from one fio run: 7968KiB in 146 msec.
        let bw = 1000 * 8159232 / 146;
        assert_eq!(num2str(bw, 4, 1, true, Unit::BytePerSec), "53.3MiB/s");
        assert_eq!(num2str(bw, 4, 1, false, Unit::BytePerSec), "55.9MB/s");
        assert_eq!(
            num2str(8388608000, 4, 1, true, Unit::BytePerSec),
            "8000MiB/s"
        );
        assert_eq!(
            num2str(8388608000, 4, 1, false, Unit::BytePerSec),
            "8389MB/s"
        );
    }

    #[test]
    fn carry_without_decimals() {
        // 999.6k in four digits: no room for decimals, so fio rounds up.
        assert_eq!(num2str(999600, 4, 1, false, Unit::None), "1000k");
    }

    #[test]
    fn base_shifts_prefix() {
        assert_eq!(num2str(4, 4, 1024, true, Unit::Byte), "4KiB");
        assert_eq!(num2str(4, 4, 1000, false, Unit::Byte), "4kB");
    }
}
