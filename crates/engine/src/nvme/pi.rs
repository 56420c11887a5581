//! NVMe end-to-end protection information (NVM command set specification,
//! "End-to-end Data Protection"), as fio's io_uring_cmd engine drives it
//! (engines/nvme.c): the PRINFO bits of a read or write, the protection
//! information the host writes into each block's metadata when it does not
//! ask the controller to (PRACT clear), and the host's own check of what a
//! read brought back.
//!
//! Each block's protection information is a guard (CRC-16/T10-DIF of the
//! block's data, or CRC-64/NVME with the 64-bit guard format), an
//! application tag and a reference tag (the block's LBA for types 1 and 2),
//! big-endian, in the first or the last bytes of the block's metadata. The
//! metadata follows each block's data in the data buffer (an extended LBA)
//! or lies in a buffer of its own.

use crc::{Crc, CRC_16_T10_DIF, CRC_64_NVME};

/// Command dword 12 of Read and Write: check the reference tag.
pub const PRCHK_REF: u32 = 1 << 26;
/// Check the application tag.
pub const PRCHK_APP: u32 = 1 << 27;
/// Check the guard.
pub const PRCHK_GUARD: u32 = 1 << 28;
/// Protection Information Action: the controller inserts the protection
/// information on writes and strips it on reads.
pub const PRACT: u32 = 1 << 29;

const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_T10_DIF);
const CRC64: Crc<u64> = Crc::<u64>::new(&CRC_64_NVME);

/// An application tag that turns checking off for the block (with types 1
/// and 2; with type 3 the reference tag must be all ones too).
const APP_ESCAPE: u16 = 0xffff;

/// The guard's size, from the LBA format's protection information format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// 16-bit CRC guard, 32-bit reference tag: 8 bytes.
    Crc16,
    /// 64-bit CRC guard, 48-bit reference tag: 16 bytes.
    Crc64,
}

/// How a namespace is formatted for protection information.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Protection information type: 1, 2 or 3.
    pub pi_type: u8,
    pub guard: Guard,
    /// In the first bytes of the metadata (DPS bit 3), else the last.
    pub first: bool,
}

impl Format {
    /// Bytes of protection information in each block's metadata.
    pub fn size(&self) -> usize {
        match self.guard {
            Guard::Crc16 => 8,
            Guard::Crc64 => 16,
        }
    }
}

/// Where each block's data and metadata lie in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Data bytes per block.
    pub lba: usize,
    /// Metadata bytes per block.
    pub ms: usize,
    /// Metadata right after each block's data in the data buffer (an
    /// extended LBA), rather than in a buffer of its own.
    pub extended: bool,
}

/// What the host asks checked and which application tag it uses (fio's
/// `pi_chk`, `apptag`, `apptag_mask`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// [`PRCHK_GUARD`], [`PRCHK_APP`], [`PRCHK_REF`].
    pub flags: u32,
    pub apptag: u16,
    pub apptag_mask: u16,
}

/// What failed a host check, in fio's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    Guard,
    AppTag,
    RefTag,
}

impl Mismatch {
    /// Its code in a completion's result (see [`crate::PI_CHECK_BIAS`]).
    pub fn code(self) -> i64 {
        match self {
            Mismatch::Guard => 1,
            Mismatch::AppTag => 2,
            Mismatch::RefTag => 3,
        }
    }

    pub fn from_code(code: i64) -> Option<Mismatch> {
        match code {
            1 => Some(Mismatch::Guard),
            2 => Some(Mismatch::AppTag),
            3 => Some(Mismatch::RefTag),
            _ => None,
        }
    }

    /// fio's name of the field.
    pub fn name(self) -> &'static str {
        match self {
            Mismatch::Guard => "GUARD",
            Mismatch::AppTag => "APPTAG",
            Mismatch::RefTag => "REFTAG",
        }
    }
}

/// fio's `pi_chk`: GUARD, REFTAG and APPTAG wherever they appear in it.
pub fn parse_checks(text: &str) -> u32 {
    [
        ("GUARD", PRCHK_GUARD),
        ("REFTAG", PRCHK_REF),
        ("APPTAG", PRCHK_APP),
    ]
    .iter()
    .filter(|(name, _)| text.contains(name))
    .fold(0, |flags, (_, bit)| flags | bit)
}

impl Layout {
    /// Bytes of one block in the data buffer.
    pub fn block(&self) -> usize {
        if self.extended {
            self.lba + self.ms
        } else {
            self.lba
        }
    }

    /// Where a block's protection information starts: from the block's
    /// start in an extended LBA, in its metadata otherwise (fio's
    /// `interval`, which is also how many bytes before it the guard
    /// covers).
    fn interval(&self, f: &Format) -> usize {
        match (f.first, self.extended) {
            (true, true) => self.lba,
            (true, false) => 0,
            (false, true) => self.lba + self.ms - f.size(),
            (false, false) => self.ms - f.size(),
        }
    }

    /// Block `i`'s bytes the guard covers (data, then the metadata before
    /// the protection information) and the protection information itself.
    fn split<'a>(
        &self,
        f: &Format,
        data: &'a mut [u8],
        md: &'a mut [u8],
        i: usize,
    ) -> (&'a [u8], &'a [u8], &'a mut [u8]) {
        let at = self.interval(f);
        if self.extended {
            let block = &mut data[i * self.block()..(i + 1) * self.block()];
            let (covered, rest) = block.split_at_mut(at);
            (covered, &[], &mut rest[..f.size()])
        } else {
            let data = &data[i * self.lba..(i + 1) * self.lba];
            let meta = &mut md[i * self.ms..(i + 1) * self.ms];
            let (covered, rest) = meta.split_at_mut(at);
            (data, covered, &mut rest[..f.size()])
        }
    }
}

impl Format {
    fn guard_of(&self, data: &[u8], meta: &[u8]) -> u64 {
        match self.guard {
            Guard::Crc16 => {
                let mut d = CRC16.digest();
                d.update(data);
                d.update(meta);
                u64::from(d.finalize())
            }
            Guard::Crc64 => {
                let mut d = CRC64.digest();
                d.update(data);
                d.update(meta);
                d.finalize()
            }
        }
    }

    /// The reference tag of the block at `lba`: its low 32 or 48 bits.
    fn ref_tag(&self, lba: u64) -> u64 {
        match self.guard {
            Guard::Crc16 => lba & 0xffff_ffff,
            Guard::Crc64 => lba & ((1 << 48) - 1),
        }
    }

    /// (guard, application tag, reference tag) as stored in `pi`.
    fn read(&self, pi: &[u8]) -> (u64, u16, u64) {
        let be = |b: &[u8]| b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x));
        match self.guard {
            Guard::Crc16 => (be(&pi[0..2]), be(&pi[2..4]) as u16, be(&pi[4..8])),
            Guard::Crc64 => (be(&pi[0..8]), be(&pi[8..10]) as u16, be(&pi[10..16])),
        }
    }

    /// Stores the fields of `checks` into `pi`, leaving the others.
    fn write(&self, pi: &mut [u8], guard: u64, checks: &Checks, reftag: Option<u64>) {
        let (g, a) = match self.guard {
            Guard::Crc16 => (2, 4),
            Guard::Crc64 => (8, 10),
        };
        if checks.flags & PRCHK_GUARD != 0 {
            pi[..g].copy_from_slice(&guard.to_be_bytes()[8 - g..]);
        }
        if checks.flags & PRCHK_APP != 0 {
            pi[g..a].copy_from_slice(&checks.apptag.to_be_bytes());
        }
        if let Some(r) = reftag.filter(|_| checks.flags & PRCHK_REF != 0) {
            let n = pi.len() - a;
            pi[a..].copy_from_slice(&r.to_be_bytes()[8 - n..]);
        }
    }

    /// Types 1 and 2 tag each block with its LBA; type 3 does not.
    fn tags_lba(&self) -> bool {
        self.pi_type != 3
    }

    /// The host writes the protection information of the `blocks` blocks
    /// from `slba` (fio's generate_pi, when PRACT is clear): the fields
    /// `checks` names, into `data` (extended LBAs) or `md`.
    pub fn generate(
        &self,
        layout: &Layout,
        checks: &Checks,
        slba: u64,
        blocks: usize,
        data: &mut [u8],
        md: &mut [u8],
    ) {
        for i in 0..blocks {
            let (covered_data, covered_meta, pi) = layout.split(self, data, md, i);
            let guard = if checks.flags & PRCHK_GUARD != 0 {
                self.guard_of(covered_data, covered_meta)
            } else {
                0
            };
            let reftag = self.tags_lba().then(|| self.ref_tag(slba + i as u64));
            self.write(pi, guard, checks, reftag);
        }
    }

    /// The host's check of what a read of `blocks` blocks from `slba`
    /// brought back (fio's verify_pi, when PRACT is clear): the first
    /// block whose protection information does not match, by field.
    /// Blocks whose application tag (and for type 3, reference tag) is all
    /// ones are not checked, as the controller does not check them.
    pub fn verify(
        &self,
        layout: &Layout,
        checks: &Checks,
        slba: u64,
        blocks: usize,
        data: &mut [u8],
        md: &mut [u8],
    ) -> Result<(), (Mismatch, u64, u64)> {
        for i in 0..blocks {
            let (covered_data, covered_meta, pi) = layout.split(self, data, md, i);
            let (guard, app, reftag) = self.read(pi);
            let ref_ones = reftag == self.ref_tag(u64::MAX);
            if app == APP_ESCAPE && (self.tags_lba() || ref_ones) {
                continue;
            }
            if checks.flags & PRCHK_GUARD != 0 {
                let want = self.guard_of(covered_data, covered_meta);
                if guard != want {
                    return Err((Mismatch::Guard, want, guard));
                }
            }
            if checks.flags & PRCHK_APP != 0 {
                let (got, want) = (app & checks.apptag_mask, checks.apptag & checks.apptag_mask);
                if got != want {
                    return Err((Mismatch::AppTag, u64::from(want), u64::from(got)));
                }
            }
            if checks.flags & PRCHK_REF != 0 && self.tags_lba() {
                let want = self.ref_tag(slba + i as u64);
                if reftag != want {
                    return Err((Mismatch::RefTag, want, reftag));
                }
            }
        }
        Ok(())
    }

    /// Command dwords 3, 14 and 15 of a read or write from `slba` (fio's
    /// fio_nvme_pi_fill): the initial reference tag where it is checked
    /// (types 1 and 2), the application tag and mask where that is.
    pub fn dwords(&self, checks: &Checks, slba: u64) -> (u32, u32, u32) {
        let mut cdw3 = 0;
        let mut cdw14 = 0;
        if self.tags_lba() && checks.flags & PRCHK_REF != 0 {
            cdw14 = slba as u32;
            if self.guard == Guard::Crc64 {
                cdw3 = ((slba >> 32) & 0xffff) as u32;
            }
        }
        let cdw15 = if checks.flags & PRCHK_APP != 0 {
            u32::from(checks.apptag_mask) << 16 | u32::from(checks.apptag)
        } else {
            0
        };
        (cdw3, cdw14, cdw15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Checks = Checks {
        flags: PRCHK_GUARD | PRCHK_APP | PRCHK_REF,
        apptag: 0x1234,
        apptag_mask: 0xffff,
    };

    #[test]
    fn the_guards_are_the_standard_crcs() {
        // The catalogue's check values, and fio's chaining over data then
        // metadata is one CRC over both.
        assert_eq!(CRC16.checksum(b"123456789"), 0xd0db);
        assert_eq!(CRC64.checksum(b"123456789"), 0xae8b_1486_0a79_9888);
        let f = Format {
            pi_type: 1,
            guard: Guard::Crc64,
            first: false,
        };
        assert_eq!(f.guard_of(b"1234", b"56789"), 0xae8b_1486_0a79_9888);
    }

    #[test]
    fn pi_is_placed_where_the_format_says() {
        // 512-byte blocks, 16 bytes of metadata, 16-bit guard at the end
        // of the metadata, in a separate buffer.
        let f = Format {
            pi_type: 1,
            guard: Guard::Crc16,
            first: false,
        };
        let sep = Layout {
            lba: 512,
            ms: 16,
            extended: false,
        };
        let mut data = vec![0x5a; 1024];
        let mut md = vec![0; 32];
        f.generate(&sep, &ALL, 0x1_0000_0007, 2, &mut data, &mut md);
        let guard = CRC16.checksum(&[&[0x5au8; 512][..], &[0u8; 8][..]].concat());
        assert_eq!(&md[8..10], &guard.to_be_bytes());
        assert_eq!(&md[10..12], &[0x12, 0x34]);
        // The reference tag is the LBA's low 32 bits, one more per block.
        assert_eq!(&md[12..16], &7u32.to_be_bytes());
        assert_eq!(&md[28..32], &8u32.to_be_bytes());
        assert_eq!(
            f.verify(&sep, &ALL, 0x1_0000_0007, 2, &mut data, &mut md),
            Ok(())
        );
        // Extended LBA, PI first: right after each block's data.
        let ext = Layout {
            lba: 512,
            ms: 8,
            extended: true,
        };
        let mut data = vec![0x5a; 2 * 520];
        f.generate(&ext, &ALL, 3, 2, &mut data, &mut []);
        assert_eq!(&data[520 + 512 + 4..520 + 520], &4u32.to_be_bytes());
        let first = Format { first: true, ..f };
        assert_eq!(ext.interval(&first), 512);
        assert_eq!(ext.interval(&f), 512);
        assert_eq!(sep.interval(&first), 0);
    }

    #[test]
    fn a_changed_byte_fails_the_check_it_belongs_to() {
        let f = Format {
            pi_type: 2,
            guard: Guard::Crc64,
            first: true,
        };
        let l = Layout {
            lba: 4096,
            ms: 16,
            extended: false,
        };
        let mut data = vec![7; 3 * 4096];
        let mut md = vec![0; 3 * 16];
        f.generate(&l, &ALL, 1 << 40, 3, &mut data, &mut md);
        // The 48-bit reference tag of the third block, and dword 3 holding
        // the initial reference tag's bits 47:32.
        assert_eq!(&md[32 + 10..48], &((1u64 << 40) + 2).to_be_bytes()[2..]);
        assert_eq!(f.dwords(&ALL, 1 << 40), (0x100, 0, 0xffff_1234));
        let check = |data: &mut [u8], md: &mut [u8]| f.verify(&l, &ALL, 1 << 40, 3, data, md);
        data[4096 + 9] ^= 1;
        assert_eq!(check(&mut data, &mut md).unwrap_err().0, Mismatch::Guard);
        data[4096 + 9] ^= 1;
        md[16 + 9] ^= 1;
        assert_eq!(check(&mut data, &mut md).unwrap_err().0, Mismatch::AppTag);
        md[16 + 9] ^= 1;
        md[16 + 15] ^= 1;
        assert_eq!(check(&mut data, &mut md).unwrap_err().0, Mismatch::RefTag);
        // An application tag of all ones turns checking off for the block.
        md[16 + 8] = 0xff;
        md[16 + 9] = 0xff;
        assert_eq!(check(&mut data, &mut md), Ok(()));
        // Unchecked fields are neither written nor checked.
        let guard_only = Checks {
            flags: PRCHK_GUARD,
            ..ALL
        };
        let mut md = vec![0xee; 16];
        f.generate(&l, &guard_only, 0, 1, &mut data, &mut md);
        assert_eq!(&md[8..], &[0xee; 8]);
        assert_eq!(f.dwords(&guard_only, 5), (0, 0, 0));
        assert_eq!(parse_checks("GUARD,REFTAG"), PRCHK_GUARD | PRCHK_REF);
        assert_eq!(parse_checks("APPTAG"), PRCHK_APP);
    }
}
