//! The block layer's ioctl numbers that libc does not define, encoded as
//! <asm-generic/ioctl.h> does. powerpc, mips and sparc use a three-bit
//! direction field with other values, so the direction bits are chosen per
//! architecture.

#[cfg(any(
    target_arch = "powerpc",
    target_arch = "powerpc64",
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
))]
mod dir {
    pub const NONE: u64 = 1 << 29;
    pub const READ: u64 = 2 << 29;
    pub const WRITE: u64 = 4 << 29;
}
#[cfg(not(any(
    target_arch = "powerpc",
    target_arch = "powerpc64",
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
)))]
mod dir {
    pub const NONE: u64 = 0;
    pub const READ: u64 = 2 << 30;
    pub const WRITE: u64 = 1 << 30;
}

/// `_IO(ty, nr)`.
const fn io(ty: u8, nr: u8) -> libc::Ioctl {
    (dir::NONE | (ty as u64) << 8 | nr as u64) as libc::Ioctl
}

/// `_IOR(ty, nr, size)`.
const fn ior(ty: u8, nr: u8, size: usize) -> libc::Ioctl {
    (dir::READ | (size as u64) << 16 | (ty as u64) << 8 | nr as u64) as libc::Ioctl
}

/// `_IOW(ty, nr, size)`.
const fn iow(ty: u8, nr: u8, size: usize) -> libc::Ioctl {
    (dir::WRITE | (size as u64) << 16 | (ty as u64) << 8 | nr as u64) as libc::Ioctl
}

/// `_IOWR(ty, nr, size)`.
const fn iowr(ty: u8, nr: u8, size: usize) -> libc::Ioctl {
    (dir::READ | dir::WRITE | (size as u64) << 16 | (ty as u64) << 8 | nr as u64) as libc::Ioctl
}

/// `_IO(0x12, 97)`: write back and drop a block device's buffer cache.
pub(crate) const BLKFLSBUF: libc::Ioctl = io(0x12, 97);
/// `_IOR(0x12, 114, size_t)`: a block device's size in bytes.
pub(crate) const BLKGETSIZE64: libc::Ioctl = ior(0x12, 114, std::mem::size_of::<usize>());
/// `_IO(0x12, 119)`: discard a range (start and length, two u64s).
pub(crate) const BLKDISCARD: libc::Ioctl = io(0x12, 119);
/// `_IOWR(0x12, 130, struct blk_zone_report)`: report a zoned block
/// device's zones (a 16-byte header, then the zones).
pub(crate) const BLKREPORTZONE: libc::Ioctl = iowr(0x12, 130, 16);
/// `_IOW(0x12, 131, struct blk_zone_range)`: reset the write pointers of
/// the zones of a range (start and length in sectors, two u64s).
pub(crate) const BLKRESETZONE: libc::Ioctl = iow(0x12, 131, 16);
/// `_IOW(0x12, 136, struct blk_zone_range)`: finish the zones of a range
/// (Linux 5.5 on).
pub(crate) const BLKFINISHZONE: libc::Ioctl = iow(0x12, 136, 16);

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn numbers_match_the_kernel_headers() {
        // The values <linux/fs.h> gives on x86-64.
        let expected: [libc::Ioctl; 6] = [
            0x1261,
            0x8008_1272,
            0x1277,
            0xc010_1282,
            0x4010_1283,
            0x4010_1288,
        ];
        assert_eq!(
            [
                BLKFLSBUF,
                BLKGETSIZE64,
                BLKDISCARD,
                BLKREPORTZONE,
                BLKRESETZONE,
                BLKFINISHZONE
            ],
            expected
        );
    }
}
