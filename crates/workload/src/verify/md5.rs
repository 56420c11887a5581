//! MD5 (RFC 1321) for verify=md5: padding and lengths here, the
//! compression function in C (csrc/md5.c, which says why).

extern "C" {
    fn ioscope_md5_blocks(state: *mut u32, data: *const u8, blocks: usize);
}

const BLOCK: usize = 64;

/// A running MD5.
#[derive(Clone)]
pub struct Md5 {
    state: [u32; 4],
    /// Bytes of a block not yet full.
    pending: [u8; BLOCK],
    pending_len: usize,
    /// Bytes fed so far.
    total: u64,
}

impl Md5 {
    pub fn new() -> Md5 {
        Md5 {
            state: [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476],
            pending: [0; BLOCK],
            pending_len: 0,
            total: 0,
        }
    }

    fn blocks(&mut self, data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(BLOCK));
        // SAFETY: `data` holds data.len() / 64 whole blocks and the state
        // is four words, as ioscope_md5_blocks reads and writes them.
        unsafe { ioscope_md5_blocks(self.state.as_mut_ptr(), data.as_ptr(), data.len() / BLOCK) }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.pending_len > 0 {
            let n = data.len().min(BLOCK - self.pending_len);
            self.pending[self.pending_len..self.pending_len + n].copy_from_slice(&data[..n]);
            self.pending_len += n;
            data = &data[n..];
            if self.pending_len < BLOCK {
                return;
            }
            let block = self.pending;
            self.blocks(&block);
            self.pending_len = 0;
        }
        let whole = data.len() / BLOCK * BLOCK;
        if whole > 0 {
            self.blocks(&data[..whole]);
        }
        let rest = &data[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The 16-byte digest.
    pub fn finish(mut self) -> [u8; 16] {
        let bits = self.total.wrapping_mul(8);
        // A 1 bit, zeroes up to 56 bytes into a block, the length in bits.
        let mut tail = [0u8; 2 * BLOCK];
        tail[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
        tail[self.pending_len] = 0x80;
        let end = if self.pending_len < BLOCK - 8 {
            BLOCK
        } else {
            2 * BLOCK
        };
        tail[end - 8..end].copy_from_slice(&bits.to_le_bytes());
        self.blocks(&tail[..end]);
        let mut out = [0u8; 16];
        for (o, w) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use md5_crate::Digest;

    fn hex(data: &[u8]) -> String {
        let mut h = Md5::new();
        h.update(data);
        h.finish().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 1321's test suite (appendix A.5).
    #[test]
    fn the_rfc_test_suite() {
        let cases = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(hex(text.as_bytes()), want, "{text:?}");
        }
    }

    /// Every length around the block and padding boundaries, in pieces of
    /// every size, against the md-5 crate.
    #[test]
    fn agrees_with_the_md5_crate_at_every_boundary() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 31 + i / 7) as u8).collect();
        for len in 0..data.len() {
            let want = md5_crate::Md5::digest(&data[..len]);
            for piece in [1, 7, 55, 56, 63, 64, 65, 200] {
                let mut h = Md5::new();
                for chunk in data[..len].chunks(piece) {
                    h.update(chunk);
                }
                assert_eq!(h.finish()[..], want[..], "len {len}, pieces of {piece}");
            }
        }
    }
}
