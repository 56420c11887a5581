//! Zeroes: what a trimmed block must read back, and what a block that was
//! never written often does.

use super::{Corruption, CorruptionKind};

/// Whether every byte is zero. ORs 256-byte runs, which the compiler turns
/// into wide vector code, instead of stopping at each byte.
pub fn is_zero(buf: &[u8]) -> bool {
    let mut runs = buf.chunks_exact(256);
    runs.all(|r| r.iter().fold(0u8, |acc, &b| acc | b) == 0)
        && runs.remainder().iter().all(|&b| b == 0)
}

/// A trimmed block must read back zeroes (trim_verify_zero).
pub fn check_zeroes(buf: &[u8], file_offset: u64) -> Result<(), Corruption> {
    if is_zero(buf) {
        return Ok(());
    }
    let first = buf.iter().position(|&b| b != 0).unwrap_or_default();
    let nonzero = buf.iter().filter(|&&b| b != 0).count();
    Err(Corruption {
        kind: CorruptionKind::NotZeroed,
        offset: file_offset + first as u64,
        detail: format!(
            "{nonzero} of {} bytes are not zero, the first reads {:#04x}",
            buf.len(),
            buf[first]
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroes_pass_and_the_first_other_byte_is_named() {
        let mut buf = vec![0u8; 4096 + 7];
        assert_eq!(check_zeroes(&buf, 8192), Ok(()));
        assert_eq!(check_zeroes(&[], 0), Ok(()));
        buf[4100] = 0x5a;
        buf[4101] = 1;
        let e = check_zeroes(&buf, 8192).unwrap_err();
        assert_eq!(e.kind, CorruptionKind::NotZeroed);
        assert_eq!(e.offset, 8192 + 4100);
        assert_eq!(
            e.detail,
            "2 of 4103 bytes are not zero, the first reads 0x5a"
        );
        buf[4100] = 0;
        buf[4101] = 0;
        buf[3] = 0x80;
        assert_eq!(check_zeroes(&buf, 0).unwrap_err().offset, 3);
    }
}
