//! The header each interval carries: which write the interval holds, and
//! the checksum of its data. verify=pattern_hdr writes fio's own header
//! instead (`fio_header`, [`Layout::Fio`]); every other method this one.
//!
//! Layout, little endian, `n` the method's checksum length (0 to 64):
//!
//! | bytes          | field                                        |
//! | -------------- | -------------------------------------------- |
//! | 0..4           | magic `iosV`                                 |
//! | 4              | layout version (1)                           |
//! | 5              | method code (`CODES`)                        |
//! | 6..8           | header length in bytes (44 + n)              |
//! | 8..12          | interval length                              |
//! | 12..16         | file number                                  |
//! | 16..24         | file offset of the interval                  |
//! | 24..32         | write number (`seq`)                         |
//! | 32..40         | seed of the job's worker                     |
//! | 40..40+n       | checksum of the interval's data              |
//! | 40+n..44+n     | crc32c of bytes 0..40+n                      |

use ioscope_job::VerifyMethod;

use super::{checksum, fio_header};

pub const MAGIC: [u8; 4] = *b"iosV";
/// Bumped when the layout changes, so that old blocks read as foreign
/// rather than as damaged.
const VERSION: u8 = 1;
/// Where the checksum starts.
pub const FIXED: usize = 40;
const CRC_LEN: usize = 4;
/// The longest header (sha512's).
const MAX_LEN: usize = FIXED + checksum::MAX_LEN + CRC_LEN;

/// Method codes are positions in this list (new methods go at the end, so
/// blocks written before keep their meaning); crc32c-intel is written as
/// crc32c, the same checksum.
const CODES: [VerifyMethod; 19] = [
    VerifyMethod::None,
    VerifyMethod::Crc32c,
    VerifyMethod::Crc32,
    VerifyMethod::Crc64,
    VerifyMethod::Md5,
    VerifyMethod::Sha1,
    VerifyMethod::Sha256,
    VerifyMethod::Sha512,
    VerifyMethod::Xxhash,
    VerifyMethod::Meta,
    VerifyMethod::Null,
    VerifyMethod::Pattern,
    VerifyMethod::Crc16,
    VerifyMethod::Crc7,
    VerifyMethod::Sha3_224,
    VerifyMethod::Sha3_256,
    VerifyMethod::Sha3_384,
    VerifyMethod::Sha3_512,
    VerifyMethod::PatternHdr,
];

pub fn code(method: VerifyMethod) -> u8 {
    let method = match method {
        VerifyMethod::Crc32cIntel => VerifyMethod::Crc32c,
        m => m,
    };
    CODES
        .iter()
        .position(|&m| m == method)
        .expect("every method has a code") as u8
}

/// fio's name of the method a code stands for.
pub fn method_name(code: u8) -> &'static str {
    CODES.get(usize::from(code)).map_or("unknown", |m| m.name())
}

/// The method a code stands for (None for an unknown code).
pub fn method_of(code: u8) -> VerifyMethod {
    CODES
        .get(usize::from(code))
        .copied()
        .unwrap_or(VerifyMethod::None)
}

/// Which header a method writes: ioscope's own (above), or fio 3.42's
/// `struct verify_header` (verify=pattern_hdr, whose blocks hold fio's
/// bytes). Both read into a [`Header`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Ioscope,
    Fio,
}

impl Layout {
    pub fn of(method: VerifyMethod) -> Layout {
        match method {
            VerifyMethod::PatternHdr => Layout::Fio,
            _ => Layout::Ioscope,
        }
    }

    /// The header's length for a method.
    pub fn len(self, method: VerifyMethod) -> usize {
        match self {
            Layout::Ioscope => len(method),
            Layout::Fio => fio_header::LEN,
        }
    }

    /// Writes `h` (and the data checksum `sum`) into `interval`, which
    /// holds the interval's data already, the header at byte `at`
    /// (verify_offset). `thread` is fio's thread_number, for fio's header.
    pub fn write(self, h: &Header, interval: &mut [u8], at: usize, sum: &[u8], thread: u16) {
        match self {
            Layout::Ioscope => h.write(&mut interval[at..at + usize::from(h.len)], sum),
            Layout::Fio => fio_header::write(interval, at, h, thread),
        }
    }

    /// The whole header at the start of `bytes` (see [`read`]).
    pub fn read(self, bytes: &[u8]) -> Option<Header> {
        match self {
            Layout::Ioscope => read(bytes),
            Layout::Fio => fio_header::read(bytes),
        }
    }

    /// See [`read_unchecked`].
    pub fn read_unchecked(self, bytes: &[u8]) -> Option<Header> {
        match self {
            Layout::Ioscope => read_unchecked(bytes),
            Layout::Fio => fio_header::read_unchecked(bytes),
        }
    }

    /// Whether `bytes` start with the layout's magic.
    pub fn has_magic(self, bytes: &[u8]) -> bool {
        match self {
            Layout::Ioscope => has_magic(bytes),
            Layout::Fio => fio_header::has_magic(bytes),
        }
    }

    /// The header, in words: "an ioscope header", "a fio verify header".
    pub fn words(self) -> &'static str {
        match self {
            Layout::Ioscope => "an ioscope header",
            Layout::Fio => "a fio verify header",
        }
    }
}

/// The header length for a method.
pub fn len(method: VerifyMethod) -> usize {
    FIXED + checksum::len(method) + CRC_LEN
}

/// What a header says, less the data checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub method: u8,
    pub len: u16,
    pub interval: u32,
    pub file: u32,
    pub offset: u64,
    pub seq: u64,
    pub seed: u64,
}

impl Header {
    /// Whether `other` comes from the same job and run: the same layout,
    /// method and seed. Any other header is foreign.
    pub fn same_job(&self, other: &Header) -> bool {
        self.method == other.method
            && self.len == other.len
            && self.interval == other.interval
            && self.seed == other.seed
    }

    /// Writes the header and `sum` into `out`, which is `self.len` bytes.
    pub fn write(&self, out: &mut [u8], sum: &[u8]) {
        out[..4].copy_from_slice(&MAGIC);
        out[4] = VERSION;
        out[5] = self.method;
        out[6..8].copy_from_slice(&self.len.to_le_bytes());
        out[8..12].copy_from_slice(&self.interval.to_le_bytes());
        out[12..16].copy_from_slice(&self.file.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..32].copy_from_slice(&self.seq.to_le_bytes());
        out[32..40].copy_from_slice(&self.seed.to_le_bytes());
        let end = FIXED + sum.len();
        out[FIXED..end].copy_from_slice(sum);
        let crc = crc32c::crc32c(&out[..end]);
        out[end..end + CRC_LEN].copy_from_slice(&crc.to_le_bytes());
    }
}

/// The header at the start of `bytes` (which run to the end of the
/// interval), when its magic, version, length and crc say it is one. The
/// length is read from the header itself, so that a header written with
/// another method is still recognised, as foreign.
pub fn read(bytes: &[u8]) -> Option<Header> {
    let h = read_unchecked(bytes)?;
    let n = usize::from(h.len);
    let crc = u32::from_le_bytes(bytes[n - CRC_LEN..n].try_into().ok()?);
    (crc32c::crc32c(&bytes[..n - CRC_LEN]) == crc).then_some(h)
}

/// What a header with a good magic, version and length says, its crc
/// unchecked: a damaged header may still name the write it belonged to,
/// which is all a diagnosis has to go on when nobody remembers the write.
pub fn read_unchecked(bytes: &[u8]) -> Option<Header> {
    if bytes.len() < FIXED + CRC_LEN || bytes[..4] != MAGIC || bytes[4] != VERSION {
        return None;
    }
    let len = u16::from_le_bytes([bytes[6], bytes[7]]);
    let n = usize::from(len);
    if !(FIXED + CRC_LEN..=MAX_LEN.min(bytes.len())).contains(&n) {
        return None;
    }
    let u32_at =
        |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let u64_at = |i: usize| u64::from(u32_at(i)) | u64::from(u32_at(i + 4)) << 32;
    Some(Header {
        method: bytes[5],
        len,
        interval: u32_at(8),
        file: u32_at(12),
        offset: u64_at(16),
        seq: u64_at(24),
        seed: u64_at(32),
    })
}

/// Whether `bytes` start with the magic: a header, if perhaps a damaged one.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(method: VerifyMethod) -> Header {
        Header {
            method: code(method),
            len: len(method) as u16,
            interval: 4096,
            file: 3,
            offset: 0x1_2345_6000,
            seq: 77,
            seed: 0xdead_beef_cafe_f00d,
        }
    }

    #[test]
    fn every_header_fits_in_128_bytes_and_reads_back() {
        for m in CODES {
            assert!(len(m) <= 128, "{}: {}", m.name(), len(m));
            let h = sample(m);
            let mut bytes = vec![0u8; 200];
            let sum: Vec<u8> = (0..checksum::len(m) as u8).collect();
            h.write(&mut bytes[..len(m)], &sum);
            assert_eq!(read(&bytes), Some(h), "{}", m.name());
            assert_eq!(&bytes[FIXED..FIXED + sum.len()], &sum[..]);
            assert_eq!(method_name(h.method), m.name());
        }
        assert_eq!(len(VerifyMethod::Crc32c), 48);
        assert_eq!(len(VerifyMethod::Sha512), 108);
    }

    #[test]
    fn crc32c_intel_is_written_as_crc32c() {
        assert_eq!(code(VerifyMethod::Crc32cIntel), code(VerifyMethod::Crc32c));
    }

    #[test]
    fn any_flipped_bit_or_a_short_interval_spoils_it() {
        let h = sample(VerifyMethod::Crc32c);
        let mut bytes = [0u8; 48];
        h.write(&mut bytes, &[1, 2, 3, 4]);
        for bit in 0..48 * 8 {
            let mut b = bytes;
            b[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(read(&b), None, "bit {bit}");
        }
        assert_eq!(read(&bytes[..47]), None);
        assert!(has_magic(&bytes));
        // Past the length field, a flip leaves the fields readable.
        let mut b = bytes;
        b[45] ^= 1;
        assert_eq!(read_unchecked(&b), Some(h));
    }
}
