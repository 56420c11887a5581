//! fio's fill patterns (`verify_pattern`, `buffer_pattern`): a sequence of
//! hex numbers (`0xdeadbeef`, bytes in the order written), decimal numbers
//! (`-12`, `66`: little-endian, as few bytes as the value needs), strings in
//! double quotes, a file's contents in single quotes and `%o`, eight bytes that take each block's offset when a buffer is
//! filled. The pattern is repeated over the whole buffer.

use std::io::Read as _;

use crate::spec::Pattern;

/// fio's `MAX_PATTERN_SIZE`.
pub const MAX_PATTERN_BYTES: usize = 512;

pub(crate) fn parse(text: &str) -> Result<Pattern, String> {
    let mut bytes = Vec::new();
    let mut offsets = Vec::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("an empty pattern".to_string());
    }
    while !rest.is_empty() {
        rest = match rest.as_bytes()[0] {
            b'"' => {
                let body = &rest[1..];
                let end = body
                    .find('"')
                    .ok_or_else(|| format!("the string in '{text}' has no closing '\"'"))?;
                if end == 0 {
                    return Err(format!("an empty string in '{text}'"));
                }
                bytes.extend_from_slice(&body.as_bytes()[..end]);
                &body[end + 1..]
            }
            b'\'' => {
                let body = &rest[1..];
                let end = body
                    .find('\'')
                    .ok_or_else(|| format!("the file name in '{text}' has no closing '''"))?;
                let name = &body[..end];
                // fio reads no more than the pattern can hold; reading no
                // more also keeps '/dev/zero' from filling the memory.
                let room = MAX_PATTERN_BYTES.saturating_sub(bytes.len());
                let mut data = Vec::with_capacity(room);
                std::fs::File::open(name)
                    .and_then(|f| f.take(room as u64).read_to_end(&mut data))
                    .map_err(|e| format!("cannot read pattern file {name}: {e}"))?;
                if data.is_empty() {
                    return Err(format!("pattern file {name} is empty"));
                }
                bytes.extend_from_slice(&data);
                &body[end + 1..]
            }
            b'%' => {
                let tail = rest.strip_prefix("%o").ok_or_else(|| {
                    format!("unknown format in '{text}' (only %o, the block offset)")
                })?;
                offsets.push(bytes.len());
                bytes.extend_from_slice(&[0; 8]);
                tail
            }
            _ => number(rest, &mut bytes).map_err(|e| format!("{e} in pattern '{text}'"))?,
        };
        if bytes.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "pattern '{text}' is longer than {MAX_PATTERN_BYTES} bytes"
            ));
        }
    }
    Ok(Pattern { bytes, offsets })
}

/// One number at the start of `text`; returns what follows it.
fn number<'a>(text: &'a str, out: &mut Vec<u8>) -> Result<&'a str, String> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let mut len = hex
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(hex.len());
        // "0xff0x14" is two numbers: the first stops before the second's 0x.
        if len >= 2 && hex[len - 1..].starts_with('0') && hex[len..].starts_with(['x', 'X']) {
            len -= 1;
        }
        if len == 0 {
            return Err("'0x' without hex digits".to_string());
        }
        let digits = &hex[..len];
        // An odd count: the first digit is a byte of its own, as fio reads it.
        let (first, pairs) = digits.split_at(len % 2);
        if !first.is_empty() {
            out.push(u8::from_str_radix(first, 16).map_err(|e| e.to_string())?);
        }
        for pair in pairs.as_bytes().chunks(2) {
            let s = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
            out.push(u8::from_str_radix(s, 16).map_err(|e| e.to_string())?);
        }
        return Ok(&hex[len..]);
    }
    let sign = usize::from(text.starts_with('-'));
    let mut end = sign
        + text[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len() - sign);
    // "100xab" is 10 then 0xab.
    if end > sign + 1 && text[end..].starts_with(['x', 'X']) && text[..end].ends_with('0') {
        end -= 1;
    }
    let digits = &text[..end];
    if digits.len() == sign {
        return Err(format!(
            "'{}' is not a number, a \"string\" or %o",
            text.chars().next().unwrap_or(' ')
        ));
    }
    let value: i64 = digits
        .parse()
        .map_err(|_| format!("'{digits}' is not a number"))?;
    if value < i64::from(i32::MIN) || value > i64::from(i32::MAX) {
        return Err(format!("{digits} is outside a 32-bit integer"));
    }
    // fio stores the value as unsigned 32 bits, low byte first, dropping
    // the high zero bytes (0 is one byte).
    let mut v = value as i32 as u32;
    if v == 0 {
        out.push(0);
    }
    while v != 0 {
        out.push(v as u8);
        v >>= 8;
    }
    Ok(&text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Vec<u8> {
        parse(text).unwrap().bytes
    }

    // The examples of fio's lib/pattern.c.
    #[test]
    fn fio_examples() {
        assert_eq!(bytes("\"abcd\""), b"abcd");
        assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(bytes("66"), [0x42]);
        assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
        assert_eq!(
            bytes("\"123\"0xFFeeCC"),
            [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
        );
        let p = parse("-100xab\"1\"%o\"2\"").unwrap();
        assert_eq!(
            p.bytes,
            [0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32]
        );
        assert_eq!(p.offsets, [6]);
        let p = parse("%o0xdeadbeef%o").unwrap();
        assert_eq!(p.bytes.len(), 20);
        assert_eq!(&p.bytes[8..12], [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(p.offsets, [0, 12]);
        assert_eq!(
            bytes("0xfefefefefefefefefefefefefefefefefefefefefe").len(),
            21
        );
        assert_eq!(bytes("0"), [0]);
        assert_eq!(bytes("0xff0x14"), [0xff, 0x14]);
    }

    #[test]
    fn bad_patterns_say_why() {
        assert!(parse("").is_err());
        assert!(parse("\"abc").unwrap_err().contains("closing"));
        assert!(parse("%x").unwrap_err().contains("%o"));
        assert!(parse("zz").unwrap_err().contains("not a number"));
        assert!(parse("99999999999").unwrap_err().contains("32-bit"));
        assert!(parse(&format!("0x{}", "ab".repeat(600)))
            .unwrap_err()
            .contains("longer than"));
    }

    #[test]
    fn files_are_read_up_to_the_longest_pattern() {
        let dir = std::env::temp_dir().join(format!("ioscope-pattern-{}", std::process::id()));
        std::fs::write(&dir, b"xyz").unwrap();
        let p = parse(&format!("'{}'0x01", dir.display())).unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(p.bytes, b"xyz\x01");
        assert!(parse("'/nonexistent/ioscope'")
            .unwrap_err()
            .contains("cannot read"));
        // A file without end gives what a pattern holds, not all it has.
        assert_eq!(parse("'/dev/zero'").unwrap().bytes.len(), MAX_PATTERN_BYTES);
    }
}
