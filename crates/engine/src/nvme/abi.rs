//! The kernel's NVMe passthrough ABI (include/uapi/linux/nvme_ioctl.h):
//! the command structures and the ioctl and uring_cmd numbers.

/// `struct nvme_uring_cmd`, the 72 bytes an IORING_OP_URING_CMD carries in
/// its big SQE. `struct nvme_passthru_cmd` (`nvme_admin_cmd`), the argument
/// of NVME_IOCTL_ADMIN_CMD and NVME_IOCTL_IO_CMD, has the same layout with
/// `result` where this has `rsvd2`, so [`Command`] serves both: after the
/// ioctl, `rsvd2` holds completion dword 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Command {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    /// User address of the metadata buffer.
    pub metadata: u64,
    /// User address of the data buffer.
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    /// 0: the driver's default timeout.
    pub timeout_ms: u32,
    pub rsvd2: u32,
}

/// `struct nvme_passthru_cmd64`, the argument of NVME_IOCTL_ADMIN64_CMD and
/// NVME_IOCTL_IO64_CMD: [`Command`] plus a 64-bit result (Linux 5.5).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Command64 {
    pub cmd: Command,
    /// Completion dwords 0 and 1.
    pub result: u64,
}

const _: () = assert!(std::mem::size_of::<Command>() == 72);
const _: () = assert!(std::mem::align_of::<Command>() == 8);
const _: () = assert!(std::mem::size_of::<Command64>() == 80);
const _: () = assert!(std::mem::offset_of!(Command, addr) == 24);
const _: () = assert!(std::mem::offset_of!(Command, cdw10) == 40);
const _: () = assert!(std::mem::offset_of!(Command, timeout_ms) == 64);
const _: () = assert!(std::mem::offset_of!(Command64, result) == 72);

impl Command {
    /// The command as the 80 command bytes of a big SQE: the 72 bytes of
    /// `struct nvme_uring_cmd`, then zeros.
    pub fn to_sqe_bytes(&self) -> [u8; 80] {
        let mut out = [0u8; 80];
        // SAFETY: Command is repr(C), 72 bytes, with no padding (the
        // assertions above pin every field's place), so every byte is
        // initialised.
        let bytes: &[u8; 72] = unsafe { &*(self as *const Command).cast() };
        out[..72].copy_from_slice(bytes);
        out
    }
}

// The ioctl number encoding of include/uapi/asm-generic/ioctl.h.
const IOC_NONE: u32 = 0;
const IOC_READ_WRITE: u32 = 3;
const fn ioc(dir: u32, ty: u8, nr: u8, size: usize) -> u32 {
    (dir << 30) | ((size as u32) << 16) | ((ty as u32) << 8) | nr as u32
}

/// `_IO('N', 0x40)`: the namespace id behind an NVMe block or char device.
pub const NVME_IOCTL_ID: u32 = ioc(IOC_NONE, b'N', 0x40, 0);
/// `_IOWR('N', 0x41, struct nvme_admin_cmd)`.
pub const NVME_IOCTL_ADMIN_CMD: u32 = ioc(IOC_READ_WRITE, b'N', 0x41, 72);
/// `_IOWR('N', 0x43, struct nvme_passthru_cmd)`.
pub const NVME_IOCTL_IO_CMD: u32 = ioc(IOC_READ_WRITE, b'N', 0x43, 72);
/// `_IOWR('N', 0x47, struct nvme_passthru_cmd64)`.
pub const NVME_IOCTL_ADMIN64_CMD: u32 = ioc(IOC_READ_WRITE, b'N', 0x47, 80);
/// `_IOWR('N', 0x48, struct nvme_passthru_cmd64)`.
pub const NVME_IOCTL_IO64_CMD: u32 = ioc(IOC_READ_WRITE, b'N', 0x48, 80);
/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: the `cmd_op` of an I/O
/// command sent with IORING_OP_URING_CMD (Linux 5.19).
pub const NVME_URING_CMD_IO: u32 = ioc(IOC_READ_WRITE, b'N', 0x80, 72);
/// `_IOWR('N', 0x81, struct nvme_uring_cmd)`: as NVME_URING_CMD_IO, with
/// `addr`/`data_len` naming an iovec array and its length.
pub const NVME_URING_CMD_IO_VEC: u32 = ioc(IOC_READ_WRITE, b'N', 0x81, 72);
/// `_IOWR('N', 0x82, struct nvme_uring_cmd)`: an admin command.
pub const NVME_URING_CMD_ADMIN: u32 = ioc(IOC_READ_WRITE, b'N', 0x82, 72);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_the_kernel_headers() {
        // Values as the C preprocessor computes them from nvme_ioctl.h.
        assert_eq!(NVME_IOCTL_ID, 0x4e40);
        assert_eq!(NVME_IOCTL_ADMIN_CMD, 0xc048_4e41);
        assert_eq!(NVME_IOCTL_IO_CMD, 0xc048_4e43);
        assert_eq!(NVME_IOCTL_ADMIN64_CMD, 0xc050_4e47);
        assert_eq!(NVME_IOCTL_IO64_CMD, 0xc050_4e48);
        assert_eq!(NVME_URING_CMD_IO, 0xc048_4e80);
        assert_eq!(NVME_URING_CMD_IO_VEC, 0xc048_4e81);
        assert_eq!(NVME_URING_CMD_ADMIN, 0xc048_4e82);
    }

    #[test]
    fn sqe_bytes_are_the_little_endian_fields_in_order() {
        let cmd = Command {
            opcode: 0x02,
            flags: 0,
            nsid: 1,
            addr: 0x1122_3344_5566_7788,
            data_len: 4096,
            cdw10: 0xaabb_ccdd,
            cdw12: 7,
            ..Default::default()
        };
        let b = cmd.to_sqe_bytes();
        assert_eq!(b[0], 0x02);
        assert_eq!(&b[4..8], &1u32.to_le_bytes());
        assert_eq!(&b[24..32], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&b[36..40], &4096u32.to_le_bytes());
        assert_eq!(&b[40..44], &0xaabb_ccddu32.to_le_bytes());
        assert_eq!(&b[48..52], &7u32.to_le_bytes());
        assert!(b[72..].iter().all(|&x| x == 0));
    }
}
