//! Signatures: the magic numbers that filesystems, partition tables, volume
//! managers, RAID, encryption and swap write at fixed places on a device.
//! Finding one tells a caller that the device holds something a write would
//! destroy, even when nothing has it mounted.

use std::fmt;
use std::io;
use std::os::fd::RawFd;

use crate::buffer::AlignedBuffer;
use crate::syscall::retry_eintr;

/// A recognised on-disk format and where its magic number lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// What the device holds, e.g. "ext4 filesystem", "GPT partition table".
    pub kind: &'static str,
    /// The byte offset of the magic number on the device.
    pub offset: u64,
}

/// Reads as a noun phrase, to follow "it holds": "an ext4 filesystem
/// (signature at byte 1080)".
impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} (signature at byte {})",
            article(self.kind),
            self.kind,
            self.offset
        )
    }
}

/// "a" or "an" for the kinds this module names: the choice goes by how the
/// first word is spoken ("an XFS", "an LVM2", but "a LUKS"), which no
/// spelling rule gets right for every acronym.
fn article(kind: &str) -> &'static str {
    match kind.split(' ').next().unwrap_or_default() {
        "ext2" | "ext3" | "ext3/4" | "ext4" | "exFAT" | "XFS" | "LVM2" | "ISO" | "F2FS"
        | "NTFS" => "an",
        _ => "a",
    }
}

/// Every signature this module knows lies in the first 256 KiB (the last
/// is ZFS's uberblock ring, 128-256 KiB), or in the last 128 KiB (the old
/// Linux MD superblocks).
const HEAD: u64 = 256 << 10;
const TAIL: u64 = 128 << 10;

/// Reads are whole, aligned 4 KiB blocks, so a descriptor opened with
/// O_DIRECT works as well as a buffered one (on devices whose logical block
/// is at most 4 KiB).
const ALIGN: u64 = 4096;

/// Looks for the signature of a known on-disk format on the file or device
/// open (for reading) at `fd`, whose size is `size` bytes.
///
/// It reads the first 256 KiB and the last 128 KiB and recognises: ext2,
/// ext3 and ext4 (told apart by their feature flags) and ext3/4 external
/// journals, XFS, btrfs, bcachefs and bcache, F2FS, FAT12/16/32, exFAT,
/// NTFS, ISO 9660, ZFS, Linux swap, LUKS, LVM2 physical volumes, Linux MD
/// RAID members (metadata 0.90, 1.0, 1.1 and 1.2), GPT and DOS/MBR
/// partition tables. Where several are present, the first in that order of
/// specificity is reported: a GPT disk's protective MBR reads as GPT.
///
/// Each check also asks the format's header to be plausible (a sane block
/// size, valid partition entries), so data that happens to carry two magic
/// bytes is not mistaken for a format.
pub fn find_signature(fd: RawFd, size: u64) -> io::Result<Option<Signature>> {
    let head = Region::read(fd, 0, size.min(HEAD))?;
    if let Some(found) = HEAD_PROBES.iter().find_map(|probe| probe(&head)) {
        return Ok(Some(found));
    }
    // A device no larger than the head was read whole.
    let tail = if size > HEAD {
        let start = size.saturating_sub(TAIL) / ALIGN * ALIGN;
        Some(Region::read(fd, start, size - start)?)
    } else {
        None
    };
    let tail = tail.as_ref().unwrap_or(&head);
    Ok(md_0_90(tail, size).or_else(|| md_1_0(tail, size)))
}

/// Bytes read from one place of the device.
struct Region {
    start: u64,
    buf: AlignedBuffer,
    /// How much of `buf` the device filled: less than asked at its end.
    filled: usize,
}

impl Region {
    /// Reads `len` bytes from `start`, which is aligned; the buffer is
    /// rounded up to whole blocks for O_DIRECT, whose last read may come
    /// back short at the end of the device.
    fn read(fd: RawFd, start: u64, len: u64) -> io::Result<Region> {
        let want = len as usize;
        let mut buf = AlignedBuffer::new(want.next_multiple_of(ALIGN as usize), ALIGN as usize);
        let mut filled = 0;
        while filled < want {
            let rest = &mut buf.as_mut_slice()[filled..];
            // SAFETY: pread writes at most `rest.len()` bytes into `rest`.
            let n = retry_eintr(|| unsafe {
                libc::pread(
                    fd,
                    rest.as_mut_ptr().cast(),
                    rest.len(),
                    (start + filled as u64) as libc::off_t,
                )
            })?;
            if n == 0 {
                break;
            }
            filled += n as usize;
        }
        Ok(Region { start, buf, filled })
    }

    /// `len` bytes at device offset `offset`, if all of them were read.
    fn bytes(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let from = usize::try_from(offset.checked_sub(self.start)?).ok()?;
        self.buf.as_slice()[..self.filled].get(from..from.checked_add(len)?)
    }

    fn has(&self, offset: u64, magic: &[u8]) -> bool {
        self.bytes(offset, magic.len()) == Some(magic)
    }

    fn array<const N: usize>(&self, offset: u64) -> Option<[u8; N]> {
        self.bytes(offset, N)?.try_into().ok()
    }

    fn le16(&self, offset: u64) -> Option<u16> {
        self.array(offset).map(u16::from_le_bytes)
    }

    fn le32(&self, offset: u64) -> Option<u32> {
        self.array(offset).map(u32::from_le_bytes)
    }

    fn be32(&self, offset: u64) -> Option<u32> {
        self.array(offset).map(u32::from_be_bytes)
    }

    fn le64(&self, offset: u64) -> Option<u64> {
        self.array(offset).map(u64::from_le_bytes)
    }

    fn be64(&self, offset: u64) -> Option<u64> {
        self.array(offset).map(u64::from_be_bytes)
    }
}

fn sig(kind: &'static str, offset: u64) -> Signature {
    Signature { kind, offset }
}

/// The checks on the device's first 256 KiB, most specific first: the
/// containers (encryption, RAID, LVM) before what may sit inside them,
/// filesystems before partition tables (a FAT or NTFS boot sector ends with
/// the same 0x55AA as an MBR).
const HEAD_PROBES: &[fn(&Region) -> Option<Signature>] = &[
    luks, md_1_x, lvm2, xfs, ext, btrfs, bcachefs, f2fs, swap, exfat, ntfs, fat, iso9660, zfs, gpt,
    mbr,
];

fn luks(r: &Region) -> Option<Signature> {
    r.has(0, b"LUKS\xba\xbe")
        .then_some(sig("LUKS encrypted volume", 0))
}

const MD_MAGIC: u32 = 0xa92b4efc;

/// MD metadata 1.1 (superblock at the start) and 1.2 (4 KiB in).
fn md_1_x(r: &Region) -> Option<Signature> {
    let is_md1 = |at| r.le32(at) == Some(MD_MAGIC) && r.le32(at + 4) == Some(1);
    if is_md1(0) {
        return Some(sig("Linux MD RAID member (metadata 1.1)", 0));
    }
    if is_md1(4096) {
        return Some(sig("Linux MD RAID member (metadata 1.2)", 4096));
    }
    None
}

/// MD metadata 1.0: 8 KiB before the end, rounded down to 4 KiB.
fn md_1_0(r: &Region, size: u64) -> Option<Signature> {
    let at = size.checked_sub(8192)? & !4095;
    (r.le32(at) == Some(MD_MAGIC) && r.le32(at + 4) == Some(1))
        .then_some(sig("Linux MD RAID member (metadata 1.0)", at))
}

/// MD metadata 0.90: the last 64 KiB-aligned 64 KiB, in the byte order of
/// the machine that wrote it.
fn md_0_90(r: &Region, size: u64) -> Option<Signature> {
    let at = (size & !0xffff).checked_sub(0x10000)?;
    let little = r.le32(at) == Some(MD_MAGIC) && r.le32(at + 4) == Some(0);
    let big = r.be32(at) == Some(MD_MAGIC) && r.be32(at + 4) == Some(0);
    (little || big).then_some(sig("Linux MD RAID member (metadata 0.90)", at))
}

/// The label is in one of the first four 512-byte sectors.
fn lvm2(r: &Region) -> Option<Signature> {
    (0..4)
        .map(|sector| sector * 512)
        .find(|&at| r.has(at, b"LABELONE") && r.has(at + 24, b"LVM2 001"))
        .map(|at| sig("LVM2 physical volume", at))
}

fn xfs(r: &Region) -> Option<Signature> {
    let block = r.be32(4)?;
    (r.has(0, b"XFSB") && block.is_power_of_two() && (512..=65536).contains(&block))
        .then_some(sig("XFS filesystem", 0))
}

/// The ext superblock starts at 1024; its magic is 56 bytes in. ext3 adds a
/// journal to ext2; ext4 is any feature ext3 does not know.
fn ext(r: &Region) -> Option<Signature> {
    const SB: u64 = 1024;
    const MAGIC_AT: u64 = SB + 56;
    const HAS_JOURNAL: u32 = 0x4;
    const JOURNAL_DEV: u32 = 0x8;
    // filetype, recover, meta_bg
    const EXT3_INCOMPAT: u32 = 0x2 | 0x4 | 0x10;
    // sparse_super, large_file, btree_dir
    const EXT3_RO_COMPAT: u32 = 0x1 | 0x2 | 0x4;
    // s_log_block_size: blocks of 1 KiB << n, at most 64 KiB.
    if r.le16(MAGIC_AT) != Some(0xEF53) || r.le32(SB + 24)? > 6 {
        return None;
    }
    let compat = r.le32(SB + 0x5C)?;
    let incompat = r.le32(SB + 0x60)?;
    let ro_compat = r.le32(SB + 0x64)?;
    let kind = if incompat & JOURNAL_DEV != 0 {
        "ext3/4 external journal"
    } else if incompat & !EXT3_INCOMPAT != 0 || ro_compat & !EXT3_RO_COMPAT != 0 {
        "ext4 filesystem"
    } else if compat & HAS_JOURNAL != 0 {
        "ext3 filesystem"
    } else {
        "ext2 filesystem"
    };
    Some(sig(kind, MAGIC_AT))
}

/// The superblock is at 64 KiB; its magic is 64 bytes in.
fn btrfs(r: &Region) -> Option<Signature> {
    const AT: u64 = 65536 + 64;
    r.has(AT, b"_BHRfS_M")
        .then_some(sig("btrfs filesystem", AT))
}

/// bcache and bcachefs superblocks are at 4 KiB, with a 16-byte magic 24
/// bytes in. bcachefs moved to a magic of its own; older bcachefs shares
/// bcache's.
fn bcachefs(r: &Region) -> Option<Signature> {
    const AT: u64 = 4096 + 24;
    const BCACHE: [u8; 16] = [
        0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d,
        0x81,
    ];
    const BCACHEFS: [u8; 16] = [
        0xc6, 0x85, 0x73, 0xf6, 0x66, 0xce, 0x90, 0xa9, 0xd9, 0x6a, 0x60, 0xcf, 0x80, 0x3d, 0xf7,
        0xef,
    ];
    if r.has(AT, &BCACHEFS) {
        return Some(sig("bcachefs filesystem", AT));
    }
    r.has(AT, &BCACHE)
        .then_some(sig("bcache or bcachefs device", AT))
}

fn f2fs(r: &Region) -> Option<Signature> {
    (r.le32(1024)? == 0xF2F5_2010).then_some(sig("F2FS filesystem", 1024))
}

/// The magic ends the first page, whose size is the writer's: 4 KiB on
/// x86, up to 64 KiB elsewhere.
fn swap(r: &Region) -> Option<Signature> {
    [4096, 8192, 16384, 65536]
        .into_iter()
        .map(|page| page - 10)
        .find(|&at| r.has(at, b"SWAPSPACE2") || r.has(at, b"SWAP-SPACE"))
        .map(|at| sig("Linux swap area", at))
}

fn exfat(r: &Region) -> Option<Signature> {
    r.has(3, b"EXFAT   ").then_some(sig("exFAT filesystem", 3))
}

fn ntfs(r: &Region) -> Option<Signature> {
    r.has(3, b"NTFS    ").then_some(sig("NTFS filesystem", 3))
}

fn boot_signature(r: &Region) -> bool {
    r.has(510, &[0x55, 0xAA])
}

/// The FAT type string of a boot sector: at 54 for FAT12/16, at 82 (after
/// the longer FAT32 BPB) for FAT32.
fn fat(r: &Region) -> Option<Signature> {
    if !boot_signature(r) {
        return None;
    }
    [
        (54, b"FAT12", "FAT12 filesystem"),
        (54, b"FAT16", "FAT16 filesystem"),
        (82, b"FAT32", "FAT32 filesystem"),
    ]
    .into_iter()
    .find(|(at, magic, _)| r.has(*at, *magic))
    .map(|(at, _, kind)| sig(kind, at))
}

/// The primary volume descriptor is in sector 16 of 2 KiB; its identifier
/// is one byte in.
fn iso9660(r: &Region) -> Option<Signature> {
    const AT: u64 = 16 * 2048 + 1;
    r.has(AT, b"CD001")
        .then_some(sig("ISO 9660 filesystem", AT))
}

/// ZFS's first vdev label holds its uberblock ring at 128 KiB, one
/// uberblock per 1 KiB (or more, by the pool's ashift), each starting with
/// the magic in the writer's byte order.
fn zfs(r: &Region) -> Option<Signature> {
    const MAGIC: u64 = 0x00ba_b10c;
    (0..128)
        .map(|i| (128 << 10) + i * 1024)
        .find(|&at| r.le64(at) == Some(MAGIC) || r.be64(at) == Some(MAGIC))
        .map(|at| sig("ZFS pool member", at))
}

/// The GPT header is in the second logical block: at 512 or at 4096.
fn gpt(r: &Region) -> Option<Signature> {
    [512, 4096]
        .into_iter()
        .find(|&at| r.has(at, b"EFI PART"))
        .map(|at| sig("GPT partition table", at))
}

/// An MBR: the boot signature, four partition entries whose boot flags are
/// all valid, at least one of them in use, and not a boot sector of a
/// filesystem (whose BIOS parameter block sits where boot code would).
fn mbr(r: &Region) -> Option<Signature> {
    if !boot_signature(r) || looks_like_bpb(r) {
        return None;
    }
    let entries = [446, 462, 478, 494];
    let flags_valid = entries
        .iter()
        .all(|&e| matches!(r.bytes(e, 1), Some([0x00 | 0x80])));
    // An entry is in use when it has a type and a length.
    let one_used = entries.iter().any(|&e| {
        r.bytes(e + 4, 1).is_some_and(|t| t[0] != 0) && r.le32(e + 12).is_some_and(|n| n != 0)
    });
    (flags_valid && one_used).then_some(sig("DOS/MBR partition table", 510))
}

/// A filesystem boot sector: a jump instruction, then a BIOS parameter
/// block with a valid sector size and a power-of-two cluster size.
fn looks_like_bpb(r: &Region) -> bool {
    let jump = matches!(r.bytes(0, 1), Some([0xEB | 0xE9]));
    let sector = r
        .le16(11)
        .is_some_and(|s| matches!(s, 512 | 1024 | 2048 | 4096));
    let cluster = r.bytes(13, 1).is_some_and(|c| c[0].is_power_of_two());
    jump && sector && cluster
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_testutil::{o_direct, part, program, require};
    use std::fs::File;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    use std::process::{Command, Stdio};

    const SIZE: u64 = 1 << 20;

    /// Bytes to write into a test file, each at its offset.
    type Patches<'a> = &'a [(u64, &'a [u8])];

    /// A zeroed temporary file of `size` bytes with `patches` written into
    /// it, and what find_signature says of it.
    fn probe_sized(size: u64, patches: Patches) -> Option<Signature> {
        let file = tempfile::tempfile().unwrap();
        file.set_len(size).unwrap();
        for (at, bytes) in patches {
            file.write_all_at(bytes, *at).unwrap();
        }
        find_signature(file.as_raw_fd(), size).unwrap()
    }

    fn probe(patches: Patches) -> Option<Signature> {
        probe_sized(SIZE, patches)
    }

    fn kind(patches: Patches) -> Option<(&'static str, u64)> {
        probe(patches).map(|s| (s.kind, s.offset))
    }

    /// An ext superblock with the given feature words (compat, incompat,
    /// ro_compat) and 4 KiB blocks.
    fn ext_superblock(compat: u32, incompat: u32, ro_compat: u32) -> Vec<u8> {
        let mut sb = vec![0u8; 1024];
        sb[24..28].copy_from_slice(&2u32.to_le_bytes());
        sb[56..58].copy_from_slice(&0xEF53u16.to_le_bytes());
        sb[0x5C..0x60].copy_from_slice(&compat.to_le_bytes());
        sb[0x60..0x64].copy_from_slice(&incompat.to_le_bytes());
        sb[0x64..0x68].copy_from_slice(&ro_compat.to_le_bytes());
        sb
    }

    #[test]
    fn ext_kinds_are_told_apart_by_features() {
        let ext2 = ext_superblock(0, 0x2, 0x1 | 0x2);
        let ext3 = ext_superblock(0x4, 0x2, 0x1 | 0x2);
        // extents, 64bit, flex_bg; metadata_csum
        let ext4 = ext_superblock(0x4, 0x40 | 0x80 | 0x200, 0x400);
        let journal = ext_superblock(0, 0x8, 0);
        assert_eq!(kind(&[(1024, &ext2)]), Some(("ext2 filesystem", 1080)));
        assert_eq!(kind(&[(1024, &ext3)]), Some(("ext3 filesystem", 1080)));
        assert_eq!(kind(&[(1024, &ext4)]), Some(("ext4 filesystem", 1080)));
        assert_eq!(
            kind(&[(1024, &journal)]),
            Some(("ext3/4 external journal", 1080))
        );
        // The two magic bytes alone, with an impossible block size, are data.
        let mut junk = ext4.clone();
        junk[24..28].copy_from_slice(&40u32.to_le_bytes());
        assert_eq!(kind(&[(1024, &junk)]), None);
    }

    #[test]
    fn each_format_is_found_where_it_puts_its_magic() {
        let md1 = [MD_MAGIC.to_le_bytes(), 1u32.to_le_bytes()].concat();
        let xfs = [&b"XFSB"[..], &4096u32.to_be_bytes()].concat();
        let bcachefs = [
            0xc6, 0x85, 0x73, 0xf6, 0x66, 0xce, 0x90, 0xa9, 0xd9, 0x6a, 0x60, 0xcf, 0x80, 0x3d,
            0xf7, 0xef,
        ];
        let bcache = [
            0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba,
            0x6d, 0x81,
        ];
        let f2fs = 0xF2F5_2010u32.to_le_bytes();
        let zfs_le = 0x00ba_b10cu64.to_le_bytes();
        let zfs_be = 0x00ba_b10cu64.to_be_bytes();
        let cases: &[(Patches, &str, u64)] = &[
            (&[(0, b"LUKS\xba\xbe")], "LUKS encrypted volume", 0),
            (&[(0, &md1)], "Linux MD RAID member (metadata 1.1)", 0),
            (&[(4096, &md1)], "Linux MD RAID member (metadata 1.2)", 4096),
            (
                &[(512, b"LABELONE"), (536, b"LVM2 001")],
                "LVM2 physical volume",
                512,
            ),
            (&[(0, &xfs)], "XFS filesystem", 0),
            (&[(65600, b"_BHRfS_M")], "btrfs filesystem", 65600),
            (&[(4120, &bcachefs)], "bcachefs filesystem", 4120),
            (&[(4120, &bcache)], "bcache or bcachefs device", 4120),
            (&[(1024, &f2fs)], "F2FS filesystem", 1024),
            (&[(4086, b"SWAPSPACE2")], "Linux swap area", 4086),
            (&[(4086, b"SWAP-SPACE")], "Linux swap area", 4086),
            (&[(65526, b"SWAPSPACE2")], "Linux swap area", 65526),
            (&[(3, b"EXFAT   ")], "exFAT filesystem", 3),
            (&[(3, b"NTFS    ")], "NTFS filesystem", 3),
            (
                &[(54, b"FAT12   "), (510, &[0x55, 0xAA])],
                "FAT12 filesystem",
                54,
            ),
            (
                &[(54, b"FAT16   "), (510, &[0x55, 0xAA])],
                "FAT16 filesystem",
                54,
            ),
            (
                &[(82, b"FAT32   "), (510, &[0x55, 0xAA])],
                "FAT32 filesystem",
                82,
            ),
            (&[(32769, b"CD001")], "ISO 9660 filesystem", 32769),
            (&[(131072, &zfs_le)], "ZFS pool member", 131072),
            (&[(135168, &zfs_be)], "ZFS pool member", 135168),
            (&[(512, b"EFI PART")], "GPT partition table", 512),
            (&[(4096, b"EFI PART")], "GPT partition table", 4096),
        ];
        for (patches, want, at) in cases {
            assert_eq!(kind(patches), Some((*want, *at)), "{want} at {at}");
        }
    }

    /// A classic MBR: one Linux partition (type 0x83) from sector 2048.
    fn mbr_sector() -> Vec<u8> {
        let mut s = vec![0u8; 512];
        let e = &mut s[446..462];
        e[0] = 0x80;
        e[4] = 0x83;
        e[8..12].copy_from_slice(&2048u32.to_le_bytes());
        e[12..16].copy_from_slice(&4096u32.to_le_bytes());
        s[510] = 0x55;
        s[511] = 0xAA;
        s
    }

    #[test]
    fn an_mbr_needs_valid_entries_and_no_boot_sector() {
        let mbr = mbr_sector();
        assert_eq!(kind(&[(0, &mbr)]), Some(("DOS/MBR partition table", 510)));

        let mut empty = mbr.clone();
        empty[446..510].fill(0);
        assert_eq!(kind(&[(0, &empty)]), None, "no partition in use");

        let mut bad_flag = mbr.clone();
        bad_flag[446 + 16] = 0x13;
        assert_eq!(kind(&[(0, &bad_flag)]), None, "a boot flag not 0 or 0x80");

        // A filesystem boot sector without a FAT type string: jump, 512-byte
        // sectors, 8 sectors a cluster.
        let mut boot = mbr.clone();
        boot[0] = 0xEB;
        boot[11..13].copy_from_slice(&512u16.to_le_bytes());
        boot[13] = 8;
        assert_eq!(kind(&[(0, &boot)]), None);

        // A GPT disk's protective MBR reads as GPT.
        let mut protective = mbr.clone();
        protective[446] = 0;
        protective[446 + 4] = 0xEE;
        assert_eq!(
            kind(&[(0, &protective), (512, b"EFI PART")]),
            Some(("GPT partition table", 512))
        );
    }

    #[test]
    fn md_metadata_at_the_end_of_the_device_is_found() {
        let size = 10 << 20;
        let md1 = [MD_MAGIC.to_le_bytes(), 1u32.to_le_bytes()].concat();
        let md090 = [MD_MAGIC.to_le_bytes(), 0u32.to_le_bytes()].concat();
        let at_1_0 = (size - 8192) & !4095;
        let found = probe_sized(size, &[(at_1_0, &md1)]).unwrap();
        assert_eq!(found.kind, "Linux MD RAID member (metadata 1.0)");
        assert_eq!(found.offset, at_1_0);
        let at_0_90 = (size & !0xffff) - 0x10000;
        let found = probe_sized(size, &[(at_0_90, &md090)]).unwrap();
        assert_eq!(found.kind, "Linux MD RAID member (metadata 0.90)");
        assert_eq!(found.offset, at_0_90);
        // Small devices: the end lies within the first 256 KiB, or just
        // past it.
        for size in [200 << 10, 300 << 10] {
            let at = (size - 8192) & !4095;
            assert_eq!(
                probe_sized(size, &[(at, &md1)]).map(|s| s.offset),
                Some(at),
                "size {size}"
            );
        }
    }

    #[test]
    fn zeroes_random_data_and_tiny_files_hold_nothing() {
        assert_eq!(probe(&[]), None);
        // xorshift64: random enough, and the same on every run.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let random: Vec<u8> = (0..SIZE / 8)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect();
        assert_eq!(probe(&[(0, &random)]), None);
        assert_eq!(probe_sized(100, &[(0, &[0xff; 100])]), None);
        assert_eq!(probe_sized(0, &[]), None);
    }

    #[test]
    fn a_short_file_is_read_to_its_end() {
        let ext4 = ext_superblock(0x4, 0x40, 0);
        let found = probe_sized(2048, &[(1024, &ext4)]).unwrap();
        assert_eq!(found.kind, "ext4 filesystem");
        // A magic cut off by the end of the file is not there.
        assert_eq!(probe_sized(1081, &[(1024, &ext4[..57])]), None);
    }

    #[test]
    fn an_o_direct_descriptor_of_an_odd_size_is_read() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        require!(o_direct(dir.path()));
        let path = dir.path().join("f");
        let size = SIZE + 100;
        let file = File::create(&path).unwrap();
        file.set_len(size).unwrap();
        file.write_all_at(&ext_superblock(0x4, 0x40, 0), 1024)
            .unwrap();
        let direct = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap();
        let found = find_signature(direct.as_raw_fd(), size).unwrap();
        assert_eq!(found.map(|s| s.kind), Some("ext4 filesystem"));
    }

    #[test]
    fn display_reads_as_a_noun_phrase() {
        let s = |kind| Signature { kind, offset: 1080 }.to_string();
        assert_eq!(
            s("ext4 filesystem"),
            "an ext4 filesystem (signature at byte 1080)"
        );
        assert_eq!(
            s("XFS filesystem"),
            "an XFS filesystem (signature at byte 1080)"
        );
        assert_eq!(
            s("LUKS encrypted volume"),
            "a LUKS encrypted volume (signature at byte 1080)"
        );
        assert_eq!(
            s("GPT partition table"),
            "a GPT partition table (signature at byte 1080)"
        );
    }

    /// Formats made by the real tools (.ci/run installs every one).
    #[test]
    fn formats_made_by_their_tools_are_found() {
        let tools: &[(&str, &[&str], &str)] = &[
            ("mkfs.ext2", &["-q", "-F"], "ext2 filesystem"),
            ("mkfs.ext3", &["-q", "-F"], "ext3 filesystem"),
            ("mkfs.ext4", &["-q", "-F"], "ext4 filesystem"),
            ("mkfs.xfs", &["-q", "-f"], "XFS filesystem"),
            ("mkfs.btrfs", &["-q", "-f"], "btrfs filesystem"),
            ("mkfs.vfat", &["-F", "32"], "FAT32 filesystem"),
            ("mkfs.exfat", &[], "exFAT filesystem"),
            ("mkfs.f2fs", &["-q", "-f"], "F2FS filesystem"),
            ("mkswap", &[], "Linux swap area"),
        ];
        let dir = tempfile::tempdir().unwrap();
        for (tool, args, want) in tools {
            let Some(exe) = part!(&format!("the {want}"), program(tool)) else {
                continue;
            };
            let path = dir.path().join(tool);
            let file = File::create(&path).unwrap();
            // Large enough for every tool's minimum (xfs asks 300 MiB; the
            // file is sparse).
            let size = 512 << 20;
            file.set_len(size).unwrap();
            let made = Command::new(&exe)
                .args(*args)
                .arg(&path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
            assert!(
                made.status.success(),
                "{tool} failed ({}): {}",
                made.status,
                String::from_utf8_lossy(&made.stderr).trim()
            );
            let file = File::open(&path).unwrap();
            let found = find_signature(file.as_raw_fd(), size).unwrap();
            assert_eq!(found.map(|s| s.kind), Some(*want), "{tool}");
        }
    }

    /// Partition tables made by sfdisk (.ci/run installs it).
    #[test]
    fn partition_tables_made_by_sfdisk_are_found() {
        let sfdisk = require!(program("sfdisk"));
        let dir = tempfile::tempdir().unwrap();
        for (label, want) in [
            ("dos", "DOS/MBR partition table"),
            ("gpt", "GPT partition table"),
        ] {
            let path = dir.path().join(label);
            let size = 64 << 20;
            File::create(&path).unwrap().set_len(size).unwrap();
            let mut child = Command::new(&sfdisk)
                .arg("-q")
                .arg(&path)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("running {}: {e}", sfdisk.display()));
            let script = format!("label: {label}\n,8M,L\n");
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), script.as_bytes()).unwrap();
            assert!(child.wait().unwrap().success(), "sfdisk label: {label}");
            let file = File::open(&path).unwrap();
            let found = find_signature(file.as_raw_fd(), size).unwrap();
            assert_eq!(found.map(|s| s.kind), Some(want), "label: {label}");
        }
    }
}
