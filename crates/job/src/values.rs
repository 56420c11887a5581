//! Option values as fio reads them: sizes with unit suffixes (per
//! `kb_base`), times with a per-option default unit, booleans, ranges,
//! per-direction comma lists, CPU lists and percentile lists.
//!
//! Each function returns a message saying what was expected; the caller adds
//! the place and the option name.

use crate::arith;
use crate::spec::{PerDir, SizeSpec};

/// The multiplier of a size suffix, fio's rules: with `kb_base=1024` (the
/// default, kept for old job files) `k`/`kb` mean 1024 and the IEC `KiB`
/// means 1000; with `kb_base=1000` it is the other way round. Case does not
/// matter, so `kB` is `kb`. A lone `b` means bytes. fio matches `kib`
/// first and then only the first letter, so `Ki` (no `B`) is `k`: 1024
/// with the default kb_base, as a user writing `4Ki` means.
fn size_factor(suffix: &str, kb_base: u32) -> Result<f64, String> {
    let lower = suffix.to_ascii_lowercase();
    let (power, iec) = match lower.as_str() {
        "" | "b" => return Ok(1.0),
        "k" | "kb" | "ki" => (1, false),
        "m" | "mb" | "mi" => (2, false),
        "g" | "gb" | "gi" => (3, false),
        "t" | "tb" | "ti" => (4, false),
        "p" | "pb" | "pi" => (5, false),
        "kib" => (1, true),
        "mib" => (2, true),
        "gib" => (3, true),
        "tib" => (4, true),
        "pib" => (5, true),
        _ => {
            return Err(format!(
                "unknown size unit '{suffix}' (use k, m, g, t, p, optionally with B or iB)"
            ))
        }
    };
    let base = match (kb_base, iec) {
        (1000, false) | (1024, true) => 1000.0,
        _ => 1024.0,
    };
    Ok(f64::powi(base, power))
}

/// Splits "123abc" into the digits and the rest.
fn split_number(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text.split_at(end)
}

/// The largest number fio reads (it parses with `strtoll`), which is also
/// the largest offset Linux can address in a file (`loff_t`).
pub(crate) const MAX_NUMBER: u64 = i64::MAX as u64;

fn too_large(text: &str) -> String {
    format!("'{text}' is too large (at most {MAX_NUMBER}, 2^63-1)")
}

fn to_u64(value: f64, text: &str) -> Result<u64, String> {
    if value < 0.0 {
        return Err(format!("'{text}' is negative"));
    }
    // 2^63 as f64 is exact; anything at or above it does not fit.
    if value >= MAX_NUMBER as f64 {
        return Err(too_large(text));
    }
    Ok(value as u64)
}

/// A size in bytes: `4096`, `4k`, `1MiB`, `0x1000`, or an expression in
/// parentheses such as `(1+2)*4k`. At most [`MAX_NUMBER`], as in fio.
pub(crate) fn size(text: &str, kb_base: u32) -> Result<u64, String> {
    match size_or_percent(text, kb_base)? {
        SizeSpec::Bytes(b) => Ok(b),
        SizeSpec::Percent(_) => Err(format!("'{text}': a percentage is not allowed here")),
    }
}

/// A size, or a share of the target written as `50%`.
pub(crate) fn size_or_percent(text: &str, kb_base: u32) -> Result<SizeSpec, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("a size is needed".to_string());
    }
    if text.starts_with('(') {
        let value = arith::eval(text, &|s| size_factor(s, kb_base))?;
        return to_u64(value, text).map(SizeSpec::Bytes);
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("'{text}' is not a hexadecimal number"));
        }
        return u64::from_str_radix(hex, 16)
            .ok()
            .filter(|&v| v <= MAX_NUMBER)
            .map(SizeSpec::Bytes)
            .ok_or_else(|| too_large(text));
    }
    if let Some(percent) = text.strip_suffix('%') {
        if percent.trim() == "0" {
            // fio reads 0% as no percentage at all: offset=0%, size=0% are 0.
            return Ok(SizeSpec::Bytes(0));
        }
        let p: f64 = percent
            .parse()
            .map_err(|_| format!("'{text}' is not a percentage"))?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(format!(
                "'{text}': a percentage must be above 0 and at most 100"
            ));
        }
        return Ok(SizeSpec::Percent(p));
    }
    let (digits, suffix) = split_number(text);
    if digits.is_empty() {
        return Err(format!("'{text}' is not a size"));
    }
    if suffix.starts_with('.') {
        return Err(format!(
            "'{text}': fractions need an expression, e.g. ({text_no_unit}*1k)",
            text_no_unit = text.trim_end_matches(|c: char| c.is_ascii_alphabetic())
        ));
    }
    let number: u64 = digits.parse().map_err(|_| too_large(text))?;
    let factor = size_factor(suffix, kb_base)? as u64;
    number
        .checked_mul(factor)
        .filter(|&v| v <= MAX_NUMBER)
        .map(SizeSpec::Bytes)
        .ok_or_else(|| too_large(text))
}

/// An integer option: fio reads these like sizes, so `iodepth=1k` is 1024.
pub(crate) fn uint(text: &str, kb_base: u32, min: u32) -> Result<u32, String> {
    let value = size(text, kb_base)?;
    let value = u32::try_from(value)
        .map_err(|_| format!("'{text}' is too large (at most {})", u32::MAX))?;
    if value < min {
        return Err(format!("'{text}' is below the minimum of {min}"));
    }
    Ok(value)
}

/// Microseconds in one unit of time, fio's suffixes; case does not matter.
fn time_factor(suffix: &str, default_us: u64) -> Result<f64, String> {
    Ok(match suffix.to_ascii_lowercase().as_str() {
        "" => default_us as f64,
        "us" | "usec" => 1.0,
        "ms" | "msec" => 1e3,
        "s" => 1e6,
        "m" => 60e6,
        "h" => 3600e6,
        "d" => 86400e6,
        _ => {
            return Err(format!(
                "unknown time unit '{suffix}' (use us, ms, s, m, h or d)"
            ))
        }
    })
}

/// A time in microseconds; a plain number is in `default_us` units (seconds
/// for runtime, ramp_time and startdelay).
pub(crate) fn time_us(text: &str, default_us: u64) -> Result<u64, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("a time is needed".to_string());
    }
    if text.starts_with('(') {
        // Plain numbers in an expression are factors; the default unit
        // applies only when no number in it carries a unit.
        let unit_seen = std::cell::Cell::new(false);
        let value = arith::eval(text, &|s| {
            if s.is_empty() {
                return Ok(1.0);
            }
            unit_seen.set(true);
            time_factor(s, default_us)
        })?;
        let value = if unit_seen.get() {
            value
        } else {
            value * default_us as f64
        };
        return to_u64(value, text);
    }
    let (digits, suffix) = split_number(text);
    if digits.is_empty() {
        return Err(format!("'{text}' is not a time"));
    }
    let number: u64 = digits.parse().map_err(|_| too_large(text))?;
    let factor = time_factor(suffix, default_us)? as u64;
    number
        .checked_mul(factor)
        .filter(|&v| v <= MAX_NUMBER)
        .ok_or_else(|| too_large(text))
}

/// fio's booleans are numbers: 0 or 1, also in hex (`true`/`yes`/`on` are
/// refused by fio 3.33 too, and so is 2).
pub(crate) fn boolean(text: &str) -> Result<bool, String> {
    match flag_number(text) {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        _ => Err(format!("'{}' is not a boolean (use 0 or 1)", text.trim())),
    }
}

/// fio's "empty or boolean" options (`time_based`, `thread`, `hipri`...)
/// take any unsigned number and are on when it is not 0: fio 3.33 runs
/// `time_based=2` as time-based. Words (`yes`, `true`) are refused, as fio
/// refuses them.
pub(crate) fn flag(text: &str) -> Result<bool, String> {
    flag_number(text)
        .map(|n| n != 0)
        .ok_or_else(|| format!("'{}' is not 0 or 1 (or another number)", text.trim()))
}

/// A decimal or 0x-hexadecimal number that fits fio's `unsigned int`.
fn flag_number(text: &str) -> Option<u32> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.starts_with('+') => u32::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if text.starts_with('+') => None,
        None => text.parse().ok(),
    }
}

/// Two values separated by `-` (or `:`), in either order: `4k-64k`.
pub(crate) fn range<T: PartialOrd>(
    text: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<(T, T), String> {
    let Some(sep) = text.find(['-', ':']) else {
        return Err(format!("'{text}' is not a range (use MIN-MAX)"));
    };
    let low = one(&text[..sep])?;
    let high = one(&text[sep + 1..])?;
    Ok(if low <= high {
        (low, high)
    } else {
        (high, low)
    })
}

/// fio's per-direction lists (read,write,trim): an empty entry keeps that
/// direction's current value; the last non-empty entry also fills the
/// directions after it. So `bs=8k,32k` gives writes and trims 32k, and
/// `bs=8k,32k,` leaves trims as they were.
pub(crate) fn per_dir<T: Clone>(
    text: &str,
    current: &PerDir<T>,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<PerDir<T>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!(
            "'{text}' has more than three comma-separated entries (read,write,trim)"
        ));
    }
    if parts.iter().all(|p| p.is_empty()) {
        return Err("a value is needed".to_string());
    }
    let mut out = current.clone();
    let last = parts.len() - 1;
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let value = one(part)?;
        let upto = if i == last { 2 } else { i };
        for dir in i..=upto {
            match dir {
                0 => out.read = value.clone(),
                1 => out.write = value.clone(),
                _ => out.trim = value.clone(),
            }
        }
    }
    Ok(out)
}

/// `filename=a:b\:c` → `["a", "b:c"]`.
pub(crate) fn filenames(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                current.push(':');
                chars.next();
            }
            ':' => names.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    names.push(current);
    names.retain(|n| !n.is_empty());
    names
}

/// `0-3,5` → `[0, 1, 2, 3, 5]`: a set, in ascending order as fio walks its
/// CPU mask (which matters for `cpus_allowed_policy=split`).
pub(crate) fn cpu_list(text: &str) -> Result<Vec<u32>, String> {
    // A CPU number this high is a typo, and a range of them would allocate
    // without bound.
    const MAX_CPU: u32 = 1 << 16;
    let mut cpus = std::collections::BTreeSet::new();
    for part in text.split(',') {
        let part = part.trim();
        let cpu = |s: &str| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|&c| c < MAX_CPU)
                .ok_or_else(|| format!("'{s}' is not a CPU number"))
        };
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (cpu(a)?, cpu(b)?),
            None => (cpu(part)?, cpu(part)?),
        };
        if first > last {
            return Err(format!("'{part}': the range goes backwards"));
        }
        cpus.extend(first..=last);
    }
    Ok(cpus.into_iter().collect())
}

/// The most values fio keeps of a float list (FIO_IO_U_LIST_MAX_LEN).
const LIST_MAX: usize = 20;

/// `99:99.9` → `[99.0, 99.9]`: at most 20 values, each 0..=100.
pub(crate) fn percentile_list(text: &str) -> Result<Vec<f64>, String> {
    let mut values = text
        .split(':')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| (0.0..=100.0).contains(v))
                .ok_or_else(|| format!("'{p}' is not a percentile between 0 and 100"))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    if values.len() > LIST_MAX {
        return Err(format!("at most {LIST_MAX} percentiles can be given"));
    }
    // fio reports them in ascending order whatever the order written.
    values.sort_by(f64::total_cmp);
    Ok(values)
}

/// `50:100` → `[50, 100]`: a float list of whole numbers from 1 (at most
/// 20), each kept whole as fio keeps the merge_blktrace lists (it casts
/// them to int). fio ends such a list at a 0 and pairs what is left with
/// nothing; here anything below 1 is refused.
pub(crate) fn whole_list(text: &str) -> Result<Vec<u64>, String> {
    let values = text
        .split(':')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 1.0 && *v < u32::MAX as f64)
                .map(|v| v as u64)
                .ok_or_else(|| format!("'{p}' is not a number from 1 up"))
        })
        .collect::<Result<Vec<u64>, String>>()?;
    if values.len() > LIST_MAX {
        return Err(format!("at most {LIST_MAX} values can be given"));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_lists_take_numbers_from_one() {
        assert_eq!(whole_list("50:100"), Ok(vec![50, 100]));
        assert_eq!(whole_list("2.5"), Ok(vec![2]));
        assert!(whole_list("50:0").unwrap_err().contains("'0'"));
        assert!(whole_list("50,100").is_err());
        assert!(whole_list(&["1"; 21].join(":")).is_err());
    }

    #[test]
    fn sizes_follow_kb_base() {
        assert_eq!(size("4096", 1024), Ok(4096));
        assert_eq!(size("4k", 1024), Ok(4096));
        assert_eq!(size("4K", 1024), Ok(4096));
        assert_eq!(size("1m", 1024), Ok(1 << 20));
        assert_eq!(size("1g", 1024), Ok(1 << 30));
        assert_eq!(size("1t", 1024), Ok(1 << 40));
        assert_eq!(size("1p", 1024), Ok(1 << 50));
        assert_eq!(size("1kB", 1024), Ok(1024));
        assert_eq!(size("1GB", 1024), Ok(1 << 30));
        // fio's compatibility mode inverts IEC prefixes.
        assert_eq!(size("1KiB", 1024), Ok(1000));
        assert_eq!(size("1MiB", 1024), Ok(1_000_000));
        assert_eq!(size("1k", 1000), Ok(1000));
        assert_eq!(size("1kB", 1000), Ok(1000));
        assert_eq!(size("1KiB", 1000), Ok(1024));
        assert_eq!(size("1MiB", 1000), Ok(1 << 20));
        assert_eq!(size("0x1000", 1024), Ok(4096));
        assert_eq!(size("8b", 1024), Ok(8));
        // fio reads `Ki` as `k` (only `KiB` is IEC): 4096 with kb_base=1024.
        assert_eq!(size("4ki", 1024), Ok(4096));
        assert_eq!(size("4Ki", 1024), Ok(4096));
        assert_eq!(size("1Gi", 1024), Ok(1 << 30));
        assert_eq!(size("4KiB", 1024), Ok(4000));
        assert_eq!(size("4ki", 1000), Ok(4000));
    }

    #[test]
    fn sizes_with_expressions() {
        assert_eq!(size("(1+2)*4k", 1024), Ok(12288));
        assert_eq!(size("(1.5*1m)", 1024), Ok(1572864));
        assert_eq!(size("(10/3)", 1024), Ok(3));
        assert!(size("(1-2)", 1024).unwrap_err().contains("negative"));
    }

    #[test]
    fn bad_sizes_are_errors() {
        assert!(size("", 1024).is_err());
        assert!(size("abc", 1024).is_err());
        assert!(size("4x", 1024).unwrap_err().contains("unknown size unit"));
        assert!(size("1.5k", 1024).unwrap_err().contains("fractions"));
        assert!(size("99999999999p", 1024)
            .unwrap_err()
            .contains("too large"));
        // fio parses with strtoll: nothing above 2^63-1, in any notation.
        for huge in [
            "18446744073709551615",
            "99999999999999999999",
            "9223372036854775808",
            "16777216t",
            "8388608t",
            "0xffffffffffffffff",
            "0x8000000000000000",
            "(2^63)",
        ] {
            assert!(
                size(huge, 1024).unwrap_err().contains("too large"),
                "{huge}"
            );
        }
        assert_eq!(size("9223372036854775807", 1024), Ok(i64::MAX as u64));
        assert_eq!(size("0x7fffffffffffffff", 1024), Ok(i64::MAX as u64));
        assert!(time_us("9223372036854775807s", 1)
            .unwrap_err()
            .contains("too large"));
        assert!(size("50%", 1024).unwrap_err().contains("percentage"));
        assert!(size("0xzz", 1024).is_err());
    }

    #[test]
    fn percentages() {
        assert_eq!(size_or_percent("50%", 1024), Ok(SizeSpec::Percent(50.0)));
        assert_eq!(size_or_percent("12.5%", 1024), Ok(SizeSpec::Percent(12.5)));
        assert_eq!(size_or_percent("0%", 1024), Ok(SizeSpec::Bytes(0)));
        assert!(size_or_percent("150%", 1024).is_err());
        assert_eq!(size_or_percent("1m", 1024), Ok(SizeSpec::Bytes(1 << 20)));
    }

    #[test]
    fn integers() {
        assert_eq!(uint("32", 1024, 1), Ok(32));
        assert_eq!(uint("1k", 1024, 1), Ok(1024));
        assert!(uint("0", 1024, 1).unwrap_err().contains("minimum"));
        assert!(uint("8g", 1024, 0).unwrap_err().contains("too large"));
    }

    #[test]
    fn times() {
        let s = 1_000_000;
        assert_eq!(time_us("10", s), Ok(10_000_000));
        assert_eq!(time_us("10s", s), Ok(10_000_000));
        assert_eq!(time_us("1m", s), Ok(60_000_000));
        assert_eq!(time_us("1h", s), Ok(3_600_000_000));
        assert_eq!(time_us("1d", s), Ok(86_400_000_000));
        assert_eq!(time_us("250ms", s), Ok(250_000));
        assert_eq!(time_us("250MSEC", s), Ok(250_000));
        assert_eq!(time_us("7us", s), Ok(7));
        assert_eq!(time_us("7", 1), Ok(7));
        assert_eq!(time_us("(1+2)*1m", s), Ok(180_000_000));
        assert_eq!(time_us("(1+2)*2", s), Ok(6_000_000));
        assert_eq!(time_us("(1m+30s)", s), Ok(90_000_000));
        assert!(time_us("10sec", s)
            .unwrap_err()
            .contains("unknown time unit"));
        assert!(time_us("", s).is_err());
    }

    #[test]
    fn booleans_are_0_or_1() {
        assert_eq!(boolean("1"), Ok(true));
        assert_eq!(boolean(" 0 "), Ok(false));
        assert_eq!(boolean("0x1"), Ok(true));
        for bad in [
            "true", "false", "yes", "no", "on", "off", "2", "-1", "", "0x",
        ] {
            assert!(boolean(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn flags_are_any_number() {
        assert_eq!(flag("1"), Ok(true));
        assert_eq!(flag("2"), Ok(true));
        assert_eq!(flag("0x10"), Ok(true));
        assert_eq!(flag("0"), Ok(false));
        for bad in ["yes", "true", "on", "-1", "+1", "4294967296", "1x"] {
            assert!(flag(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_swap_when_reversed() {
        let sz = |s: &str| size(s, 1024);
        assert_eq!(range("4k-64k", sz), Ok((4096, 65536)));
        assert_eq!(range("64k:4k", sz), Ok((4096, 65536)));
        assert!(range("4k", sz).is_err());
    }

    #[test]
    fn per_direction_lists_follow_fio() {
        let start = PerDir::all(1u64);
        let n = |s: &str| s.parse::<u64>().map_err(|e| e.to_string());
        let pd = |r, w, t| PerDir {
            read: r,
            write: w,
            trim: t,
        };
        assert_eq!(per_dir("256", &start, n), Ok(pd(256, 256, 256)));
        assert_eq!(per_dir("8,32", &start, n), Ok(pd(8, 32, 32)));
        assert_eq!(per_dir("8,32,", &start, n), Ok(pd(8, 32, 1)));
        assert_eq!(per_dir(",8", &start, n), Ok(pd(1, 8, 8)));
        assert_eq!(per_dir(",8,", &start, n), Ok(pd(1, 8, 1)));
        assert_eq!(per_dir("4,,", &start, n), Ok(pd(4, 1, 1)));
        assert_eq!(per_dir("4,", &start, n), Ok(pd(4, 1, 1)));
        assert_eq!(per_dir("1,2,3", &start, n), Ok(pd(1, 2, 3)));
        assert!(per_dir("1,2,3,4", &start, n).is_err());
        assert!(per_dir(",,", &start, n).is_err());
        assert!(per_dir("x", &start, n).is_err());
    }

    #[test]
    fn filename_lists_unescape_colons() {
        assert_eq!(filenames("/dev/nvme0n1"), vec!["/dev/nvme0n1"]);
        assert_eq!(filenames("a:b"), vec!["a", "b"]);
        assert_eq!(filenames("a\\:b:c"), vec!["a:b", "c"]);
        assert_eq!(filenames("a::b:"), vec!["a", "b"]);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list("0-3,5"), Ok(vec![0, 1, 2, 3, 5]));
        assert_eq!(cpu_list("1"), Ok(vec![1]));
        assert_eq!(cpu_list("2,2"), Ok(vec![2]));
        assert_eq!(cpu_list("5,0-1"), Ok(vec![0, 1, 5]));
        assert_eq!(cpu_list("0-65535").map(|c| c.len()), Ok(65536));
        assert!(cpu_list("3-1").is_err());
        assert!(cpu_list("a").is_err());
        assert!(cpu_list("0-99999999").is_err());
    }

    #[test]
    fn percentile_lists() {
        assert_eq!(percentile_list("99:99.9"), Ok(vec![99.0, 99.9]));
        assert_eq!(percentile_list("99.9:50:99"), Ok(vec![50.0, 99.0, 99.9]));
        assert!(percentile_list("99,99.9").is_err());
        assert!(percentile_list("101").is_err());
        assert!(percentile_list(&vec!["50"; 21].join(":")).is_err());
    }
}
