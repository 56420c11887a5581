//! The checksum of an interval's data, one kind per verify method.

use crc::{Crc, Table, CRC_16_ARC, CRC_64_XZ, CRC_7_MMC};
use ioscope_job::VerifyMethod;
use sha2::Digest;
use xxhash_rust::xxh3::Xxh3Default;

/// crc64 is CRC-64/XZ: the ECMA-182 polynomial, reflected, with all-ones
/// start and final xor (xz's and Go's `crc64.ECMA`). The all-ones start
/// makes leading zero bytes count, which plain CRC-64/ECMA-182 ignores.
/// Slice-by-16 tables keep it near memory speed.
static CRC64: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_XZ);
/// fio's crc16 and crc7 are the Linux kernel's: CRC-16/ARC (polynomial
/// 0x8005, reflected, starting from 0) and CRC-7/MMC (polynomial 0x09,
/// starting from 0). Both are weak (a torn or stale block has a 1 in 65536
/// and a 1 in 128 chance of passing the data check); fio offers them, so
/// they are here for its job files.
static CRC16: Crc<u16, Table<16>> = Crc::<u16, Table<16>>::new(&CRC_16_ARC);
static CRC7: Crc<u8, Table<16>> = Crc::<u8, Table<16>>::new(&CRC_7_MMC);

/// The longest checksum (sha512, sha3-512).
pub const MAX_LEN: usize = 64;

/// Bytes of data checksum a header of this method carries.
pub fn len(method: VerifyMethod) -> usize {
    match method {
        VerifyMethod::Crc7 => 1,
        VerifyMethod::Crc16 => 2,
        VerifyMethod::Crc32 | VerifyMethod::Crc32c | VerifyMethod::Crc32cIntel => 4,
        VerifyMethod::Crc64 | VerifyMethod::Xxhash => 8,
        VerifyMethod::Md5 => 16,
        VerifyMethod::Sha1 => 20,
        VerifyMethod::Sha3_224 => 28,
        VerifyMethod::Sha256 | VerifyMethod::Sha3_256 => 32,
        VerifyMethod::Sha3_384 => 48,
        VerifyMethod::Sha512 | VerifyMethod::Sha3_512 => 64,
        VerifyMethod::None
        | VerifyMethod::Pattern
        | VerifyMethod::PatternHdr
        | VerifyMethod::Meta
        | VerifyMethod::Null => 0,
    }
}

/// A running checksum, fed the data of an interval piece by piece (the
/// header splits it in two, and `fill` hashes each piece while it is still
/// in cache).
pub enum Checksum {
    /// crc32c and crc32c-intel: the crate uses the CPU instruction when the
    /// CPU has it.
    Crc32c(u32),
    Crc32(crc32fast::Hasher),
    Crc16(crc::Digest<'static, u16, Table<16>>),
    Crc7(crc::Digest<'static, u8, Table<16>>),
    Crc64(crc::Digest<'static, u64, Table<16>>),
    Md5(super::md5::Md5),
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
    Sha3_224(sha3::Sha3_224),
    Sha3_256(sha3::Sha3_256),
    Sha3_384(sha3::Sha3_384),
    Sha3_512(sha3::Sha3_512),
    /// xxhash is XXH3-64, several times faster than fio's XXH32.
    Xxh3(Xxh3Default),
    /// meta, null and the patterns: the header carries no data checksum.
    Nothing,
}

impl Checksum {
    pub fn new(method: VerifyMethod) -> Checksum {
        match method {
            VerifyMethod::Crc32c | VerifyMethod::Crc32cIntel => Checksum::Crc32c(0),
            VerifyMethod::Crc32 => Checksum::Crc32(crc32fast::Hasher::new()),
            VerifyMethod::Crc16 => Checksum::Crc16(CRC16.digest()),
            VerifyMethod::Crc7 => Checksum::Crc7(CRC7.digest()),
            VerifyMethod::Crc64 => Checksum::Crc64(CRC64.digest()),
            VerifyMethod::Md5 => Checksum::Md5(super::md5::Md5::new()),
            VerifyMethod::Sha1 => Checksum::Sha1(sha1::Sha1::new()),
            VerifyMethod::Sha256 => Checksum::Sha256(sha2::Sha256::new()),
            VerifyMethod::Sha512 => Checksum::Sha512(sha2::Sha512::new()),
            VerifyMethod::Sha3_224 => Checksum::Sha3_224(sha3::Sha3_224::new()),
            VerifyMethod::Sha3_256 => Checksum::Sha3_256(sha3::Sha3_256::new()),
            VerifyMethod::Sha3_384 => Checksum::Sha3_384(sha3::Sha3_384::new()),
            VerifyMethod::Sha3_512 => Checksum::Sha3_512(sha3::Sha3_512::new()),
            VerifyMethod::Xxhash => Checksum::Xxh3(Xxh3Default::new()),
            VerifyMethod::None
            | VerifyMethod::Pattern
            | VerifyMethod::PatternHdr
            | VerifyMethod::Meta
            | VerifyMethod::Null => Checksum::Nothing,
        }
    }

    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Checksum::Crc32c(c) => *c = crc32c::crc32c_append(*c, data),
            Checksum::Crc32(h) => h.update(data),
            Checksum::Crc16(d) => d.update(data),
            Checksum::Crc7(d) => d.update(data),
            Checksum::Crc64(d) => d.update(data),
            Checksum::Md5(h) => h.update(data),
            Checksum::Sha1(h) => h.update(data),
            Checksum::Sha256(h) => h.update(data),
            Checksum::Sha512(h) => h.update(data),
            Checksum::Sha3_224(h) => h.update(data),
            Checksum::Sha3_256(h) => h.update(data),
            Checksum::Sha3_384(h) => h.update(data),
            Checksum::Sha3_512(h) => h.update(data),
            Checksum::Xxh3(h) => h.update(data),
            Checksum::Nothing => {}
        }
    }

    /// Writes the checksum into `out`, which is `len(method)` bytes.
    pub fn finish(self, out: &mut [u8]) {
        match self {
            Checksum::Crc32c(c) => out.copy_from_slice(&c.to_le_bytes()),
            Checksum::Crc32(h) => out.copy_from_slice(&h.finalize().to_le_bytes()),
            Checksum::Crc16(d) => out.copy_from_slice(&d.finalize().to_le_bytes()),
            Checksum::Crc7(d) => out.copy_from_slice(&d.finalize().to_le_bytes()),
            Checksum::Crc64(d) => out.copy_from_slice(&d.finalize().to_le_bytes()),
            Checksum::Md5(h) => out.copy_from_slice(&h.finish()),
            Checksum::Sha1(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha256(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha512(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha3_224(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha3_256(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha3_384(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Sha3_512(h) => out.copy_from_slice(&h.finalize()),
            Checksum::Xxh3(h) => out.copy_from_slice(&h.digest().to_le_bytes()),
            Checksum::Nothing => {}
        }
    }
}

/// Every method with a data checksum, for the tests.
#[cfg(test)]
pub const METHODS: [VerifyMethod; 15] = [
    VerifyMethod::Crc32c,
    VerifyMethod::Crc32cIntel,
    VerifyMethod::Crc32,
    VerifyMethod::Crc16,
    VerifyMethod::Crc7,
    VerifyMethod::Crc64,
    VerifyMethod::Md5,
    VerifyMethod::Sha1,
    VerifyMethod::Sha256,
    VerifyMethod::Sha512,
    VerifyMethod::Sha3_224,
    VerifyMethod::Sha3_256,
    VerifyMethod::Sha3_384,
    VerifyMethod::Sha3_512,
    VerifyMethod::Xxhash,
];

#[cfg(test)]
mod tests {
    use super::*;

    use super::METHODS as ALL;

    fn sum(method: VerifyMethod, parts: &[&[u8]]) -> Vec<u8> {
        let mut c = Checksum::new(method);
        for p in parts {
            c.update(p);
        }
        let mut out = vec![0; len(method)];
        c.finish(&mut out);
        out
    }

    #[test]
    fn each_method_gives_its_standard_check_value() {
        // The catalogue check value of each algorithm over "123456789".
        let check = |m| sum(m, &[b"123456789"]);
        assert_eq!(check(VerifyMethod::Crc32c), 0xe306_9283u32.to_le_bytes());
        assert_eq!(check(VerifyMethod::Crc32), 0xcbf4_3926u32.to_le_bytes());
        assert_eq!(check(VerifyMethod::Crc16), 0xbb3du16.to_le_bytes());
        assert_eq!(check(VerifyMethod::Crc7), [0x75]);
        assert_eq!(
            check(VerifyMethod::Crc64),
            0x995d_c9bb_df19_39fau64.to_le_bytes()
        );
        let hex = |m| {
            sum(m, &[b"abc"])
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert_eq!(hex(VerifyMethod::Md5), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(VerifyMethod::Sha1),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert!(hex(VerifyMethod::Sha256).starts_with("ba7816bf8f01cfea"));
        assert!(hex(VerifyMethod::Sha512).starts_with("ddaf35a193617aba"));
        assert_eq!(
            hex(VerifyMethod::Sha3_224),
            "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"
        );
        assert_eq!(
            hex(VerifyMethod::Sha3_256),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
        assert!(hex(VerifyMethod::Sha3_384).starts_with("ec01498288516fc9"));
        assert!(hex(VerifyMethod::Sha3_512).starts_with("b751850b1a57168a"));
        assert_eq!(
            sum(VerifyMethod::Xxhash, &[b"abc"]),
            xxhash_rust::xxh3::xxh3_64(b"abc").to_le_bytes()
        );
    }

    #[test]
    fn pieces_sum_like_the_whole() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for m in ALL {
            let whole = sum(m, &[&data]);
            assert_eq!(whole.len(), len(m));
            assert_eq!(sum(m, &[&data[..1], &data[1..4097], &data[4097..]]), whole);
        }
    }
}
