//! Builders for the NVMe commands ioscope sends (NVMe base and NVM command
//! set specifications). Each returns a [`Command`] ready for the ioctl or
//! for a uring_cmd SQE; block counts are given as counts, and the builders
//! store them 0-based as the specification wants.

use super::abi::Command;

/// NVM command set opcodes.
pub mod opcode {
    pub const FLUSH: u8 = 0x00;
    pub const WRITE: u8 = 0x01;
    pub const READ: u8 = 0x02;
    pub const WRITE_UNCORRECTABLE: u8 = 0x04;
    pub const COMPARE: u8 = 0x05;
    pub const WRITE_ZEROES: u8 = 0x08;
    pub const DATASET_MANAGEMENT: u8 = 0x09;
    pub const VERIFY: u8 = 0x0c;
    /// Zoned Namespace command set.
    pub const ZONE_MANAGEMENT_SEND: u8 = 0x79;
    pub const ZONE_MANAGEMENT_RECEIVE: u8 = 0x7a;
    pub const ZONE_APPEND: u8 = 0x7d;
    /// Admin command set.
    pub const ADMIN_IDENTIFY: u8 = 0x06;
}

/// Identify's Controller or Namespace Structure (CNS) values.
pub mod cns {
    pub const NAMESPACE: u32 = 0x00;
    pub const CONTROLLER: u32 = 0x01;
    /// I/O Command Set specific Identify Controller; with CSI 0 (cdw11
    /// bits 31:24) the NVM command set's.
    pub const IO_COMMAND_SET_CONTROLLER: u32 = 0x06;
    /// I/O Command Set specific Identify Namespace; with CSI 0 the NVM
    /// command set's.
    pub const IO_COMMAND_SET_NAMESPACE: u32 = 0x05;
}

/// Command Set Identifiers, in Identify's cdw11 bits 31:24.
pub mod csi {
    pub const NVM: u32 = 0;
    pub const ZONED: u32 = 2;
}

/// Zone Management Send's actions (cdw13 bits 7:0): finish the zone (full,
/// whatever it holds); reset its write pointer.
pub const ZSA_FINISH: u32 = 0x02;
pub const ZSA_RESET: u32 = 0x04;
/// Zone Management Receive's cdw13: action Report Zones (bits 7:0 zero),
/// every zone (bits 15:8 zero), Partial Report (bit 16), so the count in
/// the report's header is of the zones in the buffer, not of all the
/// namespace's zones.
pub const ZRA_REPORT_ZONES_PARTIAL: u32 = 1 << 16;

/// Command dword 12 of Read, Compare, Write and Write Zeroes: Force Unit
/// Access.
pub const CDW12_FUA: u32 = 1 << 30;
/// Command dword 12 of Write Zeroes: deallocate the blocks if the namespace
/// reads deallocated blocks back as zeroes.
pub const CDW12_DEAC: u32 = 1 << 25;
/// Command dword 11 of Dataset Management: the ranges are to be deallocated.
pub const CDW11_DSM_DEALLOCATE: u32 = 1 << 2;
/// The most blocks one Read, Compare, Write or Write Zeroes can name (a
/// 16-bit 0-based count).
pub const MAX_BLOCKS: u32 = 1 << 16;
/// The most ranges one Dataset Management command can carry (an 8-bit
/// 0-based count).
pub const MAX_DSM_RANGES: usize = 256;
/// Identify data is always this long.
pub const IDENTIFY_LEN: u32 = 4096;

/// One range of a Dataset Management command. The device reads the ranges
/// from the command's data buffer, [`DsmRange::BYTES`] each, as
/// [`DsmRange::to_le_bytes`] lays them out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DsmRange {
    /// Context attributes (0: none).
    pub cattr: u32,
    /// Number of logical blocks (1-based, unlike the command's counts).
    pub nlb: u32,
    pub slba: u64,
}

impl DsmRange {
    /// Bytes one range takes in the range list.
    pub const BYTES: usize = 16;

    pub fn new(slba: u64, blocks: u32) -> DsmRange {
        DsmRange {
            cattr: 0,
            nlb: blocks,
            slba,
        }
    }

    /// The range as the device reads it: context attributes, block count,
    /// starting LBA, each little-endian.
    #[inline]
    pub fn to_le_bytes(self) -> [u8; DsmRange::BYTES] {
        let mut out = [0u8; DsmRange::BYTES];
        out[..4].copy_from_slice(&self.cattr.to_le_bytes());
        out[4..8].copy_from_slice(&self.nlb.to_le_bytes());
        out[8..].copy_from_slice(&self.slba.to_le_bytes());
        out
    }
}

/// Starting LBA in cdw10 (low) and cdw11 (high), block count (1..=65536)
/// 0-based in cdw12.
fn lba_command(opcode: u8, nsid: u32, slba: u64, blocks: u32, cdw12_flags: u32) -> Command {
    debug_assert!((1..=MAX_BLOCKS).contains(&blocks));
    Command {
        opcode,
        nsid,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: (blocks - 1) | cdw12_flags,
        ..Default::default()
    }
}

/// Read `blocks` blocks from `slba` into `len` bytes at `addr`.
pub fn read(nsid: u32, slba: u64, blocks: u32, addr: u64, len: u32, fua: bool) -> Command {
    let mut c = lba_command(opcode::READ, nsid, slba, blocks, fua_bit(fua));
    c.addr = addr;
    c.data_len = len;
    c
}

/// Compare `blocks` blocks from `slba` with `len` bytes at `addr`: the
/// device reads the blocks and checks them against the buffer, moving no
/// data back, and fails the command with Compare Failure where they differ
/// (fio's io_uring_cmd `verify_mode=compare`). Its dword 12 is a Read's.
pub fn compare(nsid: u32, slba: u64, blocks: u32, addr: u64, len: u32, fua: bool) -> Command {
    let mut c = lba_command(opcode::COMPARE, nsid, slba, blocks, fua_bit(fua));
    c.addr = addr;
    c.data_len = len;
    c
}

/// Write `blocks` blocks at `slba` from `len` bytes at `addr`.
pub fn write(nsid: u32, slba: u64, blocks: u32, addr: u64, len: u32, fua: bool) -> Command {
    let mut c = lba_command(opcode::WRITE, nsid, slba, blocks, fua_bit(fua));
    c.addr = addr;
    c.data_len = len;
    c
}

/// Append `blocks` blocks from `len` bytes at `addr` to the zone that
/// starts at `zslba`: the device writes them at the zone's write pointer
/// (and would return where in the completion, which is not read).
pub fn zone_append(nsid: u32, zslba: u64, blocks: u32, addr: u64, len: u32, fua: bool) -> Command {
    let mut c = lba_command(opcode::ZONE_APPEND, nsid, zslba, blocks, fua_bit(fua));
    c.addr = addr;
    c.data_len = len;
    c
}

/// Zero `blocks` blocks at `slba`, deallocating them with `deac`. Carries
/// no data.
pub fn write_zeroes(nsid: u32, slba: u64, blocks: u32, deac: bool, fua: bool) -> Command {
    let deac = if deac { CDW12_DEAC } else { 0 };
    lba_command(
        opcode::WRITE_ZEROES,
        nsid,
        slba,
        blocks,
        deac | fua_bit(fua),
    )
}

/// Mark `blocks` blocks at `slba` unreadable (Write Uncorrectable). Carries
/// no data; its dword 12 has no FUA or protection fields.
pub fn write_uncorrectable(nsid: u32, slba: u64, blocks: u32) -> Command {
    lba_command(opcode::WRITE_UNCORRECTABLE, nsid, slba, blocks, 0)
}

/// Have the device check `blocks` blocks at `slba` as a read would, without
/// returning them (Verify). Carries no data.
pub fn verify(nsid: u32, slba: u64, blocks: u32, fua: bool) -> Command {
    lba_command(opcode::VERIFY, nsid, slba, blocks, fua_bit(fua))
}

/// Deallocate the `count` ranges stored at `addr` (an array of
/// [`DsmRange`]; 1..=256 of them).
pub fn deallocate(nsid: u32, ranges_addr: u64, count: u32) -> Command {
    debug_assert!((1..=MAX_DSM_RANGES as u32).contains(&count));
    Command {
        opcode: opcode::DATASET_MANAGEMENT,
        nsid,
        addr: ranges_addr,
        data_len: count * DsmRange::BYTES as u32,
        cdw10: count - 1,
        cdw11: CDW11_DSM_DEALLOCATE,
        ..Default::default()
    }
}

/// Flush the namespace's volatile write cache.
pub fn flush(nsid: u32) -> Command {
    Command {
        opcode: opcode::FLUSH,
        nsid,
        ..Default::default()
    }
}

/// Identify Controller (CNS 1) into 4096 bytes at `addr`.
pub fn identify_controller(addr: u64) -> Command {
    identify(0, cns::CONTROLLER, addr)
}

/// The NVM command set's Identify Controller (CNS 6, CSI 0) into 4096
/// bytes at `addr`.
pub fn identify_nvm_controller(addr: u64) -> Command {
    identify(0, cns::IO_COMMAND_SET_CONTROLLER, addr)
}

/// The NVM command set's Identify Namespace (CNS 5, CSI 0) of `nsid` into
/// 4096 bytes at `addr`.
pub fn identify_nvm_namespace(nsid: u32, addr: u64) -> Command {
    identify(nsid, cns::IO_COMMAND_SET_NAMESPACE, addr)
}

/// Identify Namespace (CNS 0) of `nsid` into 4096 bytes at `addr`.
pub fn identify_namespace(nsid: u32, addr: u64) -> Command {
    identify(nsid, cns::NAMESPACE, addr)
}

/// The Zoned Namespace command set's Identify Controller (CNS 6, CSI 2)
/// into 4096 bytes at `addr`: a controller without that command set
/// refuses it.
pub fn identify_zoned_controller(addr: u64) -> Command {
    let mut c = identify(0, cns::IO_COMMAND_SET_CONTROLLER, addr);
    c.cdw11 = csi::ZONED << 24;
    c
}

/// The Zoned Namespace command set's Identify Namespace (CNS 5, CSI 2) of
/// `nsid` into 4096 bytes at `addr`: refused for a namespace that is not
/// zoned.
pub fn identify_zoned_namespace(nsid: u32, addr: u64) -> Command {
    let mut c = identify(nsid, cns::IO_COMMAND_SET_NAMESPACE, addr);
    c.cdw11 = csi::ZONED << 24;
    c
}

fn identify(nsid: u32, cns: u32, addr: u64) -> Command {
    Command {
        opcode: opcode::ADMIN_IDENTIFY,
        nsid,
        addr,
        data_len: IDENTIFY_LEN,
        cdw10: cns,
        ..Default::default()
    }
}

/// Report the zones from the one holding `slba` on into `len` bytes at
/// `addr` (a 64-byte header, then 64 bytes per zone).
pub fn report_zones(nsid: u32, slba: u64, addr: u64, len: u32) -> Command {
    Command {
        opcode: opcode::ZONE_MANAGEMENT_RECEIVE,
        nsid,
        addr,
        data_len: len,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        // Dwords, 0-based.
        cdw12: len / 4 - 1,
        cdw13: ZRA_REPORT_ZONES_PARTIAL,
        ..Default::default()
    }
}

/// Zone Management Send of `action` (`ZSA_*`) to the zone that starts at
/// `zslba`.
pub fn zone_send(nsid: u32, zslba: u64, action: u32) -> Command {
    Command {
        opcode: opcode::ZONE_MANAGEMENT_SEND,
        nsid,
        cdw10: zslba as u32,
        cdw11: (zslba >> 32) as u32,
        cdw13: action,
        ..Default::default()
    }
}

fn fua_bit(fua: bool) -> u32 {
    if fua {
        CDW12_FUA
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_and_write_put_the_lba_and_a_zero_based_count_in_place() {
        let c = read(1, 0x1_2345_6789, 8, 0x1000, 4096, false);
        assert_eq!(c.opcode, 0x02);
        assert_eq!(c.nsid, 1);
        assert_eq!((c.cdw10, c.cdw11, c.cdw12), (0x2345_6789, 0x1, 7));
        assert_eq!((c.addr, c.data_len), (0x1000, 4096));
        let w = write(2, 16, 1, 0x2000, 512, true);
        assert_eq!(w.opcode, 0x01);
        assert_eq!(w.cdw12, 1 << 30);
    }

    /// fio's nvme_cmd_compare: opcode 0x05, laid out as a Read (the LBA in
    /// dwords 10 and 11, the 0-based count and FUA in 12), the buffer to
    /// compare with as its data.
    #[test]
    fn compare_is_a_read_with_opcode_5() {
        let c = compare(1, 0x1_2345_6789, 8, 0x1000, 4096, false);
        let r = read(1, 0x1_2345_6789, 8, 0x1000, 4096, false);
        assert_eq!(c.opcode, 0x05);
        assert_eq!(
            Command {
                opcode: r.opcode,
                ..c
            },
            r
        );
        assert_eq!((c.cdw10, c.cdw11, c.cdw12), (0x2345_6789, 0x1, 7));
        assert_eq!((c.addr, c.data_len, c.nsid), (0x1000, 4096, 1));
        assert_eq!(compare(1, 0, 65536, 0, 0, true).cdw12, 0xffff | (1 << 30));
    }

    #[test]
    fn write_zeroes_carries_no_data_and_sets_deac_and_fua() {
        let c = write_zeroes(1, 100, 65536, true, false);
        assert_eq!(c.opcode, 0x08);
        assert_eq!((c.addr, c.data_len), (0, 0));
        assert_eq!(c.cdw12, 0xffff | (1 << 25));
        assert_eq!(write_zeroes(1, 0, 1, false, true).cdw12, 1 << 30);
    }

    /// The opcodes of fio's nvme_cmd_write_uncor and nvme_cmd_verify, laid
    /// out as Write Zeroes without its DEAC bit.
    #[test]
    fn write_uncorrectable_and_verify_carry_no_data() {
        let u = write_uncorrectable(2, 0x1_0000_0010, 16);
        assert_eq!((u.opcode, u.nsid), (0x04, 2));
        assert_eq!((u.cdw10, u.cdw11, u.cdw12), (0x10, 0x1, 15));
        assert_eq!((u.addr, u.data_len), (0, 0));
        let v = verify(1, 100, 65536, false);
        assert_eq!(v.opcode, 0x0c);
        assert_eq!((v.cdw10, v.cdw12, v.addr, v.data_len), (100, 0xffff, 0, 0));
        assert_eq!(verify(1, 0, 1, true).cdw12, 1 << 30);
    }

    #[test]
    fn deallocate_names_its_range_list() {
        let c = deallocate(1, 0x4000, 3);
        assert_eq!(c.opcode, 0x09);
        assert_eq!((c.cdw10, c.cdw11), (2, 1 << 2));
        assert_eq!((c.addr, c.data_len), (0x4000, 48));
        assert_eq!(deallocate(1, 0x4000, 256).cdw10, 255, "NR is 0-based");
        let bytes = DsmRange::new(0x1_0000_0002, 8).to_le_bytes();
        assert_eq!(&bytes[..4], &[0; 4], "no context attributes");
        assert_eq!(&bytes[4..8], &8u32.to_le_bytes());
        assert_eq!(&bytes[8..16], &0x1_0000_0002u64.to_le_bytes());
    }

    #[test]
    fn identify_asks_for_4096_bytes_with_the_cns() {
        let c = identify_controller(0x8000);
        assert_eq!((c.opcode, c.cdw10, c.nsid, c.data_len), (0x06, 1, 0, 4096));
        let n = identify_namespace(3, 0x8000);
        assert_eq!((n.cdw10, n.nsid), (0, 3));
        assert_eq!(flush(1).opcode, 0);
        let z = identify_zoned_namespace(2, 0x8000);
        assert_eq!((z.cdw10, z.cdw11, z.nsid), (5, 2 << 24, 2));
        assert_eq!(identify_zoned_controller(0).cdw11, 2 << 24);
    }

    #[test]
    fn zone_management_names_the_zone_and_the_action() {
        let r = report_zones(2, 0x1_0000_0800, 0x9000, 64 + 64 * 16);
        assert_eq!((r.opcode, r.nsid), (0x7a, 2));
        assert_eq!((r.cdw10, r.cdw11), (0x800, 1));
        assert_eq!(r.cdw12, (64 + 64 * 16) / 4 - 1, "dwords, 0-based");
        assert_eq!(r.cdw13, 1 << 16, "Report Zones, all zones, partial");
        let s = zone_send(2, 0x2_0000_1000, ZSA_RESET);
        assert_eq!((s.opcode, s.cdw10, s.cdw11, s.cdw13), (0x79, 0x1000, 2, 4));
        assert_eq!((s.addr, s.data_len), (0, 0));
        assert_eq!(zone_send(2, 0, ZSA_FINISH).cdw13, 2);
    }
}
