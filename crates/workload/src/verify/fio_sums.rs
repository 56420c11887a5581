//! The checksums fio puts after its verify headers, byte for byte as fio
//! 3.33 and 3.42 write them: ioscope writes fio 3.42's (so that fio checks
//! what ioscope wrote) and checks either (so that ioscope checks what fio
//! wrote). They are fio's own variants of the catalogue algorithms:
//!
//! | method  | what fio stores                                                     |
//! | ------- | ------------------------------------------------------------------- |
//! | crc32c  | CRC-32C without its final inversion                                 |
//! | crc32   | CRC-32/CKSUM without its final inversion (and no length appended)   |
//! | crc64   | CRC-64/REDIS (Jones polynomial, from 0, no final xor)               |
//! | crc16   | CRC-16/ARC; crc7: CRC-7/MMC (the kernel's, as ioscope's)            |
//! | md5     | MD5                                                                 |
//! | sha1    | SHA-1 with each 32-bit word in the CPU's (little-endian) order      |
//! | sha256  | 64 bytes: fio's last block buffer after its final round, the first  |
//! |         | 8 bytes the low byte of each state word; the length it pads with is |
//! |         | little-endian, so the state is not SHA-256's                        |
//! | sha512  | 128 bytes. fio 3.33 never finishes the hash: its block buffer (the  |
//! |         | data's last bytes over its first 128). fio 3.39 on: SHA-512, then   |
//! |         | the rest of the last block buffer                                   |
//! | sha3-*  | SHA3                                                                |
//! | xxhash  | XXH32 with seed 1                                                   |
//!
//! The odd ones (sha256, sha512) are fio's code run as fio runs it
//! (crc/sha256.c, crc/sha512.c): the buffer the digest is read from is
//! the one the rounds were fed from.

use crc::{Crc, Table, CRC_16_ARC, CRC_32_CKSUM, CRC_64_REDIS, CRC_7_MMC};
use ioscope_job::VerifyMethod;
use sha2::digest::generic_array::GenericArray;
use sha2::Digest;

use super::md5::Md5;

static CRC64: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_REDIS);
static CRC32: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_CKSUM);
static CRC16: Crc<u16, Table<16>> = Crc::<u16, Table<16>>::new(&CRC_16_ARC);
static CRC7: Crc<u8, Table<16>> = Crc::<u8, Table<16>>::new(&CRC_7_MMC);

/// Which fio wrote the block: the two differ in their header and in
/// sha512.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioVersion {
    /// fio before 3.42 (3.33 is Debian's): a 40-byte header with no version
    /// byte. sha512 as fio before 3.39 writes it.
    Before342,
    /// fio 3.42 on: a 48-byte header with version byte 0x81.
    From342,
}

/// The longest checksum fio stores (sha512's block buffer).
pub const MAX_LEN: usize = 128;

/// Bytes of checksum after fio's header (`__hdr_size` less the header):
/// fio keeps 64 bytes for sha256's 32 and 128 for sha512's 64.
pub fn len(method: VerifyMethod) -> usize {
    match method {
        VerifyMethod::Crc7 => 1,
        VerifyMethod::Crc16 => 2,
        VerifyMethod::Crc32
        | VerifyMethod::Crc32c
        | VerifyMethod::Crc32cIntel
        | VerifyMethod::Xxhash => 4,
        VerifyMethod::Crc64 => 8,
        VerifyMethod::Md5 => 16,
        VerifyMethod::Sha1 => 20,
        VerifyMethod::Sha3_224 => 28,
        VerifyMethod::Sha3_256 => 32,
        VerifyMethod::Sha3_384 => 48,
        VerifyMethod::Sha256 | VerifyMethod::Sha3_512 => 64,
        VerifyMethod::Sha512 => 128,
        VerifyMethod::None
        | VerifyMethod::Meta
        | VerifyMethod::Pattern
        | VerifyMethod::PatternHdr
        | VerifyMethod::Null => 0,
    }
}

/// A checksum as fio stores it, `len(method)` bytes, kept on the stack: a
/// verify makes one per interval.
#[derive(Clone, Copy)]
pub struct Sum {
    bytes: [u8; MAX_LEN],
    len: usize,
}

impl std::ops::Deref for Sum {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// What fio `version` stores after its header for `data` (an interval's
/// bytes after header and checksum), `len(method)` bytes.
pub fn sum(method: VerifyMethod, version: FioVersion, data: &[u8]) -> Sum {
    let mut s = Sum {
        bytes: [0; MAX_LEN],
        len: len(method),
    };
    let out = &mut s.bytes[..s.len];
    match method {
        VerifyMethod::Crc32c | VerifyMethod::Crc32cIntel => {
            out.copy_from_slice(&(!crc32c::crc32c(data)).to_le_bytes())
        }
        VerifyMethod::Crc32 => out.copy_from_slice(&(!CRC32.checksum(data)).to_le_bytes()),
        VerifyMethod::Crc64 => out.copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        VerifyMethod::Crc16 => out.copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        VerifyMethod::Crc7 => out[0] = CRC7.checksum(data),
        VerifyMethod::Md5 => {
            let mut h = Md5::new();
            h.update(data);
            out.copy_from_slice(&h.finish());
        }
        VerifyMethod::Sha1 => {
            for (o, w) in out
                .chunks_exact_mut(4)
                .zip(sha1::Sha1::digest(data).chunks_exact(4))
            {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        VerifyMethod::Sha256 => out.copy_from_slice(&sha256(data)),
        VerifyMethod::Sha512 => out.copy_from_slice(&sha512(data, version)),
        VerifyMethod::Sha3_224 => out.copy_from_slice(&sha3::Sha3_224::digest(data)),
        VerifyMethod::Sha3_256 => out.copy_from_slice(&sha3::Sha3_256::digest(data)),
        VerifyMethod::Sha3_384 => out.copy_from_slice(&sha3::Sha3_384::digest(data)),
        VerifyMethod::Sha3_512 => out.copy_from_slice(&sha3::Sha3_512::digest(data)),
        VerifyMethod::Xxhash => {
            out.copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes())
        }
        VerifyMethod::None
        | VerifyMethod::Meta
        | VerifyMethod::Pattern
        | VerifyMethod::PatternHdr
        | VerifyMethod::Null => {}
    }
    s
}

/// fio's crc/sha256.c: `fio_sha256_update` then `fio_sha256_final`, whose
/// "digest" is the 64-byte block buffer with the low byte of each state
/// word over its first 8 bytes.
fn sha256(data: &[u8]) -> [u8; 64] {
    struct Ctx {
        state: [u32; 8],
        count: u32,
        buf: [u8; 64],
    }
    impl Ctx {
        fn update(&mut self, data: &[u8]) {
            let partial = (self.count & 0x3f) as usize;
            self.count = self.count.wrapping_add(data.len() as u32);
            let mut done = 0;
            if partial + data.len() > 63 {
                if partial > 0 {
                    done = 64 - partial;
                    self.buf[partial..].copy_from_slice(&data[..done]);
                    sha2::compress256(&mut self.state, &[self.buf.into()]);
                }
                while done + 64 <= data.len() {
                    let block = GenericArray::clone_from_slice(&data[done..done + 64]);
                    sha2::compress256(&mut self.state, &[block]);
                    done += 64;
                }
                self.buf[..data.len() - done].copy_from_slice(&data[done..]);
            } else {
                self.buf[partial..partial + data.len()].copy_from_slice(data);
            }
        }
    }
    let mut ctx = Ctx {
        state: [
            0x6a09_e667,
            0xbb67_ae85,
            0x3c6e_f372,
            0xa54f_f53a,
            0x510e_527f,
            0x9b05_688c,
            0x1f83_d9ab,
            0x5be0_cd19,
        ],
        count: 0,
        buf: [0; 64],
    };
    ctx.update(data);
    let bits = u64::from(ctx.count) << 3;
    let index = (ctx.count & 0x3f) as usize;
    let pad_len = if index < 56 { 56 - index } else { 120 - index };
    let mut padding = [0u8; 64];
    padding[0] = 0x80;
    ctx.update(&padding[..pad_len]);
    ctx.update(&bits.to_le_bytes());
    for (b, w) in ctx.buf.iter_mut().zip(ctx.state) {
        *b = w as u8;
    }
    ctx.buf
}

/// fio's crc/sha512.c: the 128-byte block buffer after
/// `fio_sha512_update`, and from fio 3.39 on after `fio_sha512_final`,
/// which writes the digest over its first 64 bytes.
fn sha512(data: &[u8], version: FioVersion) -> [u8; 128] {
    struct Ctx {
        state: [u64; 8],
        /// Bits fed, as fio's four 32-bit words (lowest first).
        count: [u32; 4],
        buf: [u8; 128],
    }
    impl Ctx {
        fn update(&mut self, data: &[u8]) {
            let len = data.len() as u32;
            let mut idx = ((self.count[0] >> 3) & 0x7f) as usize;
            let bits = len.wrapping_shl(3);
            self.count[0] = self.count[0].wrapping_add(bits);
            if self.count[0] < bits {
                self.count[1] = self.count[1].wrapping_add(1);
                if self.count[1] < 1 {
                    self.count[2] = self.count[2].wrapping_add(1);
                    if self.count[2] < 1 {
                        self.count[3] = self.count[3].wrapping_add(1);
                    }
                }
                self.count[1] = self.count[1].wrapping_add(len >> 29);
            }
            let part_len = 128 - idx;
            let mut i = 0;
            if data.len() >= part_len {
                self.buf[idx..].copy_from_slice(&data[..part_len]);
                sha2::compress512(&mut self.state, &[self.buf.into()]);
                i = part_len;
                while i + 128 <= data.len() {
                    let block = GenericArray::clone_from_slice(&data[i..i + 128]);
                    sha2::compress512(&mut self.state, &[block]);
                    i += 128;
                }
                idx = 0;
            }
            self.buf[idx..idx + data.len() - i].copy_from_slice(&data[i..]);
        }
    }
    let mut ctx = Ctx {
        state: [
            0x6a09_e667_f3bc_c908,
            0xbb67_ae85_84ca_a73b,
            0x3c6e_f372_fe94_f82b,
            0xa54f_f53a_5f1d_36f1,
            0x510e_527f_ade6_82d1,
            0x9b05_688c_2b3e_6c1f,
            0x1f83_d9ab_fb41_bd6b,
            0x5be0_cd19_137e_2179,
        ],
        count: [0; 4],
        buf: [0; 128],
    };
    ctx.update(data);
    if version == FioVersion::Before342 {
        return ctx.buf;
    }
    // fio's bits[16]: the count's words, highest first, each big-endian.
    let mut bits = [0u8; 16];
    for (out, word) in bits.chunks_exact_mut(4).zip(ctx.count.iter().rev()) {
        out.copy_from_slice(&word.to_be_bytes());
    }
    let index = ((ctx.count[0] >> 3) & 0x7f) as usize;
    let pad_len = if index < 112 {
        112 - index
    } else {
        240 - index
    };
    let mut padding = [0u8; 128];
    padding[0] = 0x80;
    ctx.update(&padding[..pad_len]);
    ctx.update(&bits);
    for (out, word) in ctx.buf.chunks_exact_mut(8).zip(ctx.state) {
        out.copy_from_slice(&word.to_be_bytes());
    }
    ctx.buf
}

/// Every method with a data checksum (fio's verify types that have one),
/// for the tests.
#[cfg(test)]
pub fn methods() -> Vec<VerifyMethod> {
    super::fio_header::TYPES
        .into_iter()
        .filter(|&m| len(m) > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> Vec<u8> {
        (0..n as u32).map(|i| (i * 31 + i / 7) as u8).collect()
    }

    #[test]
    fn the_crcs_are_fios_variants_of_the_catalogue_ones() {
        let d = b"123456789";
        // crc32c and crc32 without their final inversion.
        assert_eq!(
            *sum(VerifyMethod::Crc32c, FioVersion::From342, d),
            (!0xe306_9283u32).to_le_bytes()
        );
        assert_eq!(
            *sum(VerifyMethod::Crc32, FioVersion::From342, d),
            (!0x765e_7680u32).to_le_bytes()
        );
        assert_eq!(
            *sum(VerifyMethod::Crc64, FioVersion::From342, d),
            0xe9c6_d914_c4b8_d9cau64.to_le_bytes()
        );
        assert_eq!(
            *sum(VerifyMethod::Crc16, FioVersion::From342, d),
            0xbb3du16.to_le_bytes()
        );
        assert_eq!(*sum(VerifyMethod::Crc7, FioVersion::From342, d), [0x75]);
        // XXH32 with seed 1, and MD5.
        assert_eq!(
            *sum(VerifyMethod::Xxhash, FioVersion::From342, d),
            xxhash_rust::xxh32::xxh32(d, 1).to_le_bytes()
        );
        assert_eq!(
            *sum(VerifyMethod::Md5, FioVersion::From342, b"abc"),
            [
                0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0, 0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1,
                0x7f, 0x72
            ]
        );
    }

    #[test]
    fn sha1_is_stored_word_by_word_in_the_cpus_order() {
        // SHA-1("abc") = a9993e36 4706816a ...
        let s = sum(VerifyMethod::Sha1, FioVersion::From342, b"abc");
        assert_eq!(s[..8], [0x36, 0x3e, 0x99, 0xa9, 0x6a, 0x81, 0x06, 0x47]);
    }

    #[test]
    fn fio_333s_sha512_is_its_block_buffer() {
        // 3928 bytes (a 4 KiB interval less fio's 40-byte header and 128
        // bytes of sha512): 88 bytes are left over after the last whole
        // block, over the first block's 128.
        let d = data(3928);
        let s = sum(VerifyMethod::Sha512, FioVersion::Before342, &d);
        assert_eq!(s[..88], d[3840..]);
        assert_eq!(s[88..], d[88..128]);
    }

    #[test]
    fn fio_342s_sha512_starts_with_the_digest() {
        for n in [0, 1, 100, 111, 112, 127, 128, 3920, 4000] {
            let d = data(n);
            let s = sum(VerifyMethod::Sha512, FioVersion::From342, &d);
            assert_eq!(s[..64], sha2::Sha512::digest(&d)[..], "{n} bytes");
            // The buffer's end holds the length in bits, big-endian.
            assert_eq!(s[112..], ((n as u128) << 3).to_be_bytes(), "{n} bytes");
        }
    }

    #[test]
    fn fios_sha256_pads_with_a_little_endian_length() {
        for n in [0, 5, 55, 56, 63, 64, 65, 4000] {
            let d = data(n);
            let s = sha256(&d);
            let tail = n % 64;
            assert_eq!(s[56..], ((n as u64) << 3).to_le_bytes(), "{n} bytes");
            if tail < 56 {
                // The data's last bytes, fio's 0x80, zeroes.
                let mut want = d[n - tail..].to_vec();
                want.push(0x80);
                want.resize(56, 0);
                assert_eq!(s[8..56], want[8..], "{n} bytes");
            } else {
                assert_eq!(s[8..56], [0; 48], "{n} bytes");
            }
            // Its state words are not SHA-256's (the length's byte order),
            // but where the length is 0 either way.
            if n == 0 {
                continue;
            }
            let real = sha2::Sha256::digest(&d);
            let low: Vec<u8> = real.chunks_exact(4).map(|w| w[3]).collect();
            assert_ne!(s[..8], low[..], "{n} bytes");
        }
    }

    #[test]
    fn every_method_gives_its_length() {
        for m in methods() {
            for v in [FioVersion::Before342, FioVersion::From342] {
                assert_eq!(sum(m, v, &data(777)).len(), len(m), "{m:?}");
            }
        }
    }
}
