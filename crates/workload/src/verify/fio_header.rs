//! fio's own verify header (`struct verify_header`, verify.h), as fio 3.42
//! lays it: the header every verify method but pattern and null writes, so
//! that its blocks hold the bytes fio's do and either tool checks what the
//! other wrote. The method's checksum (`fio_sums`), when it has one,
//! follows it: header and checksum are fio's `hdr_size` bytes.
//!
//! Layout, little endian (x86's struct layout, 48 bytes):
//!
//! | bytes  | field                                                  |
//! | ------ | ------------------------------------------------------ |
//! | 0..2   | magic `0xacca`                                         |
//! | 2      | version `0x81` (fio 3.42; fio 3.33 had none)           |
//! | 3      | verify_type (fio's enum: 17 = VERIFY_PATTERN)          |
//! | 4..8   | len: the interval's length                             |
//! | 8..16  | rand_seed (0 with verify_pattern: fio never sets it;   |
//! |        | ioscope's seed of the worker and file otherwise)       |
//! | 16..24 | offset: file offset of the interval                    |
//! | 24..28 | time_sec  } when the I/O started; fio never checks     |
//! | 28..32 | time_nsec } them: ioscope writes 0                     |
//! | 32..40 | numberio: the job's writes issued before this one      |
//! | 40..42 | thread: fio's thread_number (the worker's, 1-based)    |
//! | 42..44 | padding: fio leaves the data that was there            |
//! | 44..48 | crc32c of bytes 0..44, fio's: no final inversion       |
//!
//! The checksum covers the data after header and checksum. With
//! verify_offset both are written at the interval's start and then swapped
//! with the bytes at verify_offset (fio's memswp), so the interval's first
//! `hdr_size` bytes hold the data from verify_offset on.

use ioscope_job::VerifyMethod;

use super::header::{self, Header};

pub const LEN: usize = 48;
pub(super) const MAGIC: [u8; 2] = 0xaccau16.to_le_bytes();
pub(super) const VERSION: u8 = 0x81;
const CRC_AT: usize = 44;
/// The fields fio writes and never checks: time_sec, time_nsec, thread.
const UNCHECKED: [std::ops::Range<usize>; 2] = [24..32, 40..42];

/// fio's verify_type values: the position in this list (verify.h's enum).
pub(super) const TYPES: [VerifyMethod; 20] = [
    VerifyMethod::None,
    VerifyMethod::Meta,
    VerifyMethod::Md5,
    VerifyMethod::Crc64,
    VerifyMethod::Crc32,
    VerifyMethod::Crc32c,
    VerifyMethod::Crc32cIntel,
    VerifyMethod::Crc16,
    VerifyMethod::Crc7,
    VerifyMethod::Sha256,
    VerifyMethod::Sha512,
    VerifyMethod::Sha3_224,
    VerifyMethod::Sha3_256,
    VerifyMethod::Sha3_384,
    VerifyMethod::Sha3_512,
    VerifyMethod::Xxhash,
    VerifyMethod::Sha1,
    VerifyMethod::PatternHdr,
    VerifyMethod::Pattern,
    VerifyMethod::Null,
];

/// The method fio's verify_type `t` names (fio 3.33's and 3.42's enum are
/// the same); None for a number fio has no method for.
pub(super) fn method_of_type(t: u8) -> Option<VerifyMethod> {
    TYPES.get(usize::from(t)).copied()
}

/// fio's verify_type for a method.
pub(super) fn verify_type(method: VerifyMethod) -> u8 {
    TYPES
        .iter()
        .position(|&m| m == method)
        .expect("every method has a fio verify_type") as u8
}

/// Writes `h` and the data checksum `sum` into `interval`, which holds
/// the interval's data: header and checksum go over its first `h.len`
/// bytes (bytes 42..44, fio's padding, keep the data and are covered by
/// the crc), then swap with those at `at` (verify_offset) as fio's memswp
/// does. `thread` is fio's thread_number. fio writes the I/O's start time,
/// which it never checks and no second run repeats; ioscope writes 0
/// there, so that a block's bytes follow from the write alone.
pub fn write(interval: &mut [u8], at: usize, h: &Header, sum: &[u8], thread: u16) {
    let out = &mut interval[..usize::from(h.len)];
    out[..2].copy_from_slice(&MAGIC);
    out[2] = VERSION;
    out[3] = h.method;
    out[4..8].copy_from_slice(&h.interval.to_le_bytes());
    out[8..16].copy_from_slice(&h.seed.to_le_bytes());
    out[16..24].copy_from_slice(&h.offset.to_le_bytes());
    out[24..32].fill(0);
    // fio counts from 0, ioscope's write numbers from 1.
    out[32..40].copy_from_slice(&h.seq.saturating_sub(1).to_le_bytes());
    out[40..42].copy_from_slice(&thread.to_le_bytes());
    out[LEN..].copy_from_slice(sum);
    seal(out);
    swap(interval, at, usize::from(h.len));
}

/// fio's crc32c of bytes 0..44 into 44..48.
fn seal(out: &mut [u8]) {
    let crc = !crc32c::crc32c(&out[..CRC_AT]);
    out[CRC_AT..LEN].copy_from_slice(&crc.to_le_bytes());
}

/// fio's memswp of the interval's first `len` bytes (header and
/// checksum) with those at `at` (verify_offset: 0, or `len` and more,
/// which `Verifier::new` holds to).
pub fn swap(interval: &mut [u8], at: usize, len: usize) {
    if at == 0 {
        return;
    }
    assert!(
        at >= len,
        "verify_offset={at} overlaps fio's {len}-byte header"
    );
    let (head, rest) = interval.split_at_mut(at);
    head[..len].swap_with_slice(&mut rest[..len]);
}

/// The header at the start of `bytes`, when its magic, version and crc
/// say it is one.
pub fn read(bytes: &[u8]) -> Option<Header> {
    let h = read_unchecked(bytes)?;
    let crc = u32::from_le_bytes(bytes[CRC_AT..LEN].try_into().ok()?);
    (!crc32c::crc32c(&bytes[..CRC_AT]) == crc).then_some(h)
}

/// What a header with a good magic and version says, its crc unchecked.
/// `len` is fio's `hdr_size` for its method: the header and the checksum
/// after it.
pub fn read_unchecked(bytes: &[u8]) -> Option<Header> {
    if bytes.len() < LEN || !has_magic(bytes) || bytes[2] != VERSION {
        return None;
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let method = method_of_type(bytes[3]).unwrap_or(VerifyMethod::None);
    Some(Header {
        method: header::code(method),
        len: header::len(method) as u16,
        interval: u32_at(4),
        offset: u64_at(16),
        seq: u64_at(32).wrapping_add(1),
        seed: u64_at(8),
    })
}

/// Whether `bytes` start with fio's magic: a header, if perhaps a damaged
/// one or one of another fio version.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Copies the fields fio never checks (time and thread) of the header in
/// `found` (whole, or damaged past its version byte) into the one in
/// `want` and seals it again, when that brings `want` nearer to `found`:
/// what `want` would be had fio written it, so that a diagnosis compares
/// the rest. Where `found` is ioscope's with a bit flipped in those fields,
/// `want` stays as it was and the flip shows where it is.
pub fn adopt_unchecked(found: &[u8], want: &mut [u8]) {
    if read_unchecked(found).is_none() {
        return;
    }
    let mut adopted: [u8; LEN] = want[..LEN].try_into().expect("a whole header");
    for r in UNCHECKED {
        adopted[r.clone()].copy_from_slice(&found[r]);
    }
    seal(&mut adopted);
    let bits = |h: &[u8]| -> u32 {
        h.iter()
            .zip(&found[..LEN])
            .map(|(a, b)| (a ^ b).count_ones())
            .sum()
    };
    if bits(&adopted) < bits(&want[..LEN]) {
        want[..LEN].copy_from_slice(&adopted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first header of a file fio 3.42 wrote with `--rw=write --bs=4k
    /// --verify_pattern=0xdeadbeef --verify_interval=512` (its crc over
    /// the time fio wrote: 0 s, 119383399 ns).
    const FIO_342: [u8; 48] = [
        0xca, 0xac, 0x81, 0x11, 0x00, 0x02, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x00, 0x00, 0x00, 0x00, 0x67, 0xa5, 0x1d, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00,
        0xbe, 0xef, 0x95, 0x5d, 0x02, 0x46,
    ];

    #[test]
    fn reads_what_fio_342_wrote() {
        let h = read(&FIO_342).expect("fio's header reads back");
        assert_eq!(
            h,
            Header {
                method: header::code(VerifyMethod::PatternHdr),
                len: 48,
                interval: 512,
                offset: 0,
                seq: 1,
                seed: 0,
            }
        );
        // Written again, only the time (and so the crc) differs.
        let mut ours = [0u8; 512];
        ours[..48].copy_from_slice(&FIO_342);
        write(&mut ours, 0, &h, &[], 1);
        assert_eq!(ours[..24], FIO_342[..24]);
        assert_eq!(ours[24..32], [0; 8]);
        assert_eq!(ours[32..44], FIO_342[32..44]);
        assert_eq!(read(&ours), Some(h));
        adopt_unchecked(&FIO_342, &mut ours[..48]);
        assert_eq!(ours[..48], FIO_342);
    }

    #[test]
    fn a_flipped_bit_or_an_older_fio_is_no_header() {
        for bit in 0..48 * 8 {
            let mut b = FIO_342;
            b[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(read(&b), None, "bit {bit}");
        }
        // fio 3.33: magic, verify_type 17 as 16 bits (fio_written reads it).
        let old = [0xca, 0xac, 0x11, 0x00, 0x00, 0x02, 0x00, 0x00];
        assert!(has_magic(&old));
        let mut old48 = [0u8; 48];
        old48[..8].copy_from_slice(&old);
        assert_eq!(read_unchecked(&old48), None);
    }

    #[test]
    fn verify_offset_swaps_the_header_with_the_data_there() {
        let mut interval: Vec<u8> = (0..512u32).map(|i| i as u8).collect();
        let h = read(&FIO_342).unwrap();
        write(&mut interval, 100, &h, &[], 1);
        assert_eq!(
            interval[..48],
            (100..148u32).map(|i| i as u8).collect::<Vec<_>>()[..]
        );
        let hdr = read(&interval[100..]).expect("the header at verify_offset");
        assert_eq!(hdr, h);
        // The padding holds what was at 42..44 when fio wrote the header.
        assert_eq!(interval[142..144], [42, 43]);
        swap(&mut interval, 100, 48);
        assert_eq!(read(&interval), Some(h));
    }
}
