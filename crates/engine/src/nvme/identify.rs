//! Parsing the Identify Controller (CNS 1) and Identify Namespace (CNS 0)
//! data structures (NVMe base specification, figures "Identify Controller
//! Data Structure" and NVM command set "Identify Namespace"), and the NVM
//! command set's own Identify Controller (CNS 6, CSI 0: its size limits).

/// Optional NVM commands, the bits of the controller's ONCS field.
pub const ONCS_BITS: [(u16, &str); 9] = [
    (1 << 0, "Compare"),
    (1 << 1, "Write Uncorrectable"),
    (1 << 2, "Dataset Management"),
    (1 << 3, "Write Zeroes"),
    (1 << 4, "Save/Select in Set/Get Features"),
    (1 << 5, "Reservations"),
    (1 << 6, "Timestamp"),
    (1 << 7, "Verify"),
    (1 << 8, "Copy"),
];
pub const ONCS_COMPARE: u16 = 1 << 0;
pub const ONCS_DSM: u16 = 1 << 2;
pub const ONCS_WRITE_ZEROES: u16 = 1 << 3;

/// What ioscope uses from Identify Controller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Controller {
    pub vendor_id: u16,
    pub serial: String,
    pub model: String,
    pub firmware: String,
    /// Maximum Data Transfer Size as a power of two of the minimum memory
    /// page size; 0 means no limit.
    pub mdts: u8,
    pub controller_id: u16,
    /// Version (major in 31:16, minor in 15:8).
    pub version: u32,
    /// Number of namespaces.
    pub nn: u32,
    /// Optional NVM Command Support.
    pub oncs: u16,
    /// Volatile Write Cache present (bit 0).
    pub vwc: u8,
    /// Controller Attributes; bit 15 (ELBAS) says the NVM command set's
    /// Identify Namespace describes extended LBA formats.
    pub ctratt: u32,
}

impl Controller {
    /// Parses the 4096-byte Identify Controller data.
    pub fn parse(data: &[u8]) -> Controller {
        Controller {
            vendor_id: le16(data, 0),
            serial: ascii(&data[4..24]),
            model: ascii(&data[24..64]),
            firmware: ascii(&data[64..72]),
            mdts: data[77],
            controller_id: le16(data, 78),
            version: le32(data, 80),
            nn: le32(data, 516),
            oncs: le16(data, 520),
            vwc: data[525],
            ctratt: le32(data, 96),
        }
    }

    /// MDTS in bytes for a memory page size of `page_size` (CAP.MPSMIN;
    /// 4096 on every controller Linux drives), or `None` for no limit.
    pub fn max_transfer_bytes(&self, page_size: u64) -> Option<u64> {
        (self.mdts != 0).then(|| page_size << self.mdts)
    }

    /// The names of the optional commands ONCS says exist.
    pub fn optional_commands(&self) -> Vec<&'static str> {
        ONCS_BITS
            .iter()
            .filter(|(bit, _)| self.oncs & bit != 0)
            .map(|&(_, name)| name)
            .collect()
    }

    pub fn has_compare(&self) -> bool {
        self.oncs & ONCS_COMPARE != 0
    }

    pub fn has_write_zeroes(&self) -> bool {
        self.oncs & ONCS_WRITE_ZEROES != 0
    }

    pub fn has_dataset_management(&self) -> bool {
        self.oncs & ONCS_DSM != 0
    }

    /// The NVM command set's Identify Namespace gives each format's
    /// protection information format (CTRATT bit 15, ELBAS).
    pub fn has_extended_lba_formats(&self) -> bool {
        self.ctratt & (1 << 15) != 0
    }
}

/// The NVM command set's limits on Verify, Write Zeroes, Write
/// Uncorrectable and Dataset Management (I/O Command Set specific Identify Controller, CNS 6 with CSI 0, NVMe
/// 2.0; the kernel asks every controller of version 1.2 or later). 0 in
/// any field means no limit, and controllers that do not answer have none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvmLimits {
    /// Verify Size Limit: a power of two of the minimum memory page size
    /// (byte 0).
    pub vsl: u8,
    /// Write Zeroes Size Limit, as VSL (byte 1).
    pub wzsl: u8,
    /// Write Uncorrectable Size Limit, as VSL (byte 2).
    pub wusl: u8,
    /// Dataset Management Ranges Limit: ranges in one command (byte 3).
    pub dmrl: u8,
    /// Dataset Management Range Size Limit: logical blocks in one range
    /// (bytes 4-7).
    pub dmrsl: u32,
    /// Dataset Management Size Limit: logical blocks in one command, all
    /// ranges together (bytes 8-15).
    pub dmsl: u64,
}

impl NvmLimits {
    pub fn parse(data: &[u8]) -> NvmLimits {
        NvmLimits {
            vsl: data[0],
            wzsl: data[1],
            wusl: data[2],
            dmrl: data[3],
            dmrsl: le32(data, 4),
            dmsl: le64(data, 8),
        }
    }

    /// The most bytes one command of a size limit `limit` (VSL, WZSL,
    /// WUSL) may cover for a memory page size of `page_size` (as MDTS), or
    /// `None` for no limit.
    pub fn max_bytes(limit: u8, page_size: u64) -> Option<u64> {
        (limit != 0).then(|| page_size << limit)
    }

    /// [`NvmLimits::max_bytes`] of Write Zeroes.
    pub fn write_zeroes_max_bytes(&self, page_size: u64) -> Option<u64> {
        NvmLimits::max_bytes(self.wzsl, page_size)
    }
}

/// One LBA format of a namespace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LbaFormat {
    /// Metadata bytes per block.
    pub ms: u16,
    /// Block size as a power of two (9: 512 bytes); 0: format not usable.
    pub lbads: u8,
    /// Relative performance (0 best, 3 degraded).
    pub rp: u8,
}

impl LbaFormat {
    pub fn block_size(&self) -> u64 {
        1u64 << self.lbads
    }
}

/// What ioscope uses from Identify Namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Namespace {
    /// Namespace size in blocks.
    pub nsze: u64,
    /// Namespace capacity in blocks.
    pub ncap: u64,
    /// Blocks in use.
    pub nuse: u64,
    /// Formatted LBA size field.
    pub flbas: u8,
    /// End-to-end Data Protection Type Settings: bits 2:0 the protection
    /// information type (0: none), bit 3 that it is the first bytes of the
    /// metadata rather than the last.
    pub dps: u8,
    /// Deallocate Logical Block Features: bits 2:0 say what a deallocated
    /// block reads back as (1: zeroes, 2: ones), bit 3 that Write Zeroes
    /// with DEAC deallocates.
    pub dlfeat: u8,
    /// Every LBA format the namespace supports (NLBAF + 1 of them).
    pub formats: Vec<LbaFormat>,
}

impl Namespace {
    /// Parses the 4096-byte Identify Namespace data.
    pub fn parse(data: &[u8]) -> Namespace {
        // NLBAF is 0-based; the structure has room for 64 formats.
        let count = (usize::from(data[25]) + 1).min(64);
        let formats = (0..count)
            .map(|i| {
                let v = le32(data, 128 + 4 * i);
                LbaFormat {
                    ms: v as u16,
                    lbads: (v >> 16) as u8,
                    rp: ((v >> 24) & 0x3) as u8,
                }
            })
            .collect();
        Namespace {
            nsze: le64(data, 0),
            ncap: le64(data, 8),
            nuse: le64(data, 16),
            flbas: data[26],
            dps: data[29],
            dlfeat: data[33],
            formats,
        }
    }

    /// Index of the format in use: FLBAS bits 3:0, with bits 6:5 as the
    /// high bits when there are more than 16 formats.
    pub fn format_index(&self) -> usize {
        let low = usize::from(self.flbas & 0xf);
        if self.formats.len() > 16 {
            low | (usize::from((self.flbas >> 5) & 0x3) << 4)
        } else {
            low
        }
    }

    /// The format in use.
    pub fn format(&self) -> LbaFormat {
        self.formats
            .get(self.format_index())
            .copied()
            .unwrap_or_default()
    }

    /// Bytes per logical block of the format in use.
    pub fn block_size(&self) -> u64 {
        self.format().block_size()
    }

    /// The metadata travels at the end of each block in the data buffer
    /// (an extended LBA, FLBAS bit 4) rather than in a buffer of its own.
    pub fn extended_lba(&self) -> bool {
        self.flbas & 0x10 != 0
    }

    /// True when deallocated blocks read back as zeroes.
    pub fn deallocated_reads_zeroes(&self) -> bool {
        self.dlfeat & 0x7 == 1
    }
}

/// The NVM command set's Identify Namespace (CNS 5, CSI 0): the extended
/// LBA format of each LBA format, whose bits 8:7 give the protection
/// information format (0: 16-bit guard, 2: 64-bit guard) and bits 6:0 the
/// storage tag size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NvmNamespace {
    pub elbaf: Vec<u32>,
}

impl NvmNamespace {
    pub fn parse(data: &[u8]) -> NvmNamespace {
        NvmNamespace {
            elbaf: (0..64).map(|i| le32(data, 12 + 4 * i)).collect(),
        }
    }
}

/// The Zoned Namespace command set's Identify Namespace (CNS 5, CSI 2):
/// the open-zone limit and each LBA format's zone size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZonedNamespace {
    /// Maximum Open Resources, 0-based; `u32::MAX` for no limit.
    pub mor: u32,
    /// Zone Size of each LBA format, in blocks (the LBA Format Extensions
    /// at byte 2816, 16 bytes each).
    pub zsze: Vec<u64>,
}

impl ZonedNamespace {
    pub fn parse(data: &[u8]) -> ZonedNamespace {
        ZonedNamespace {
            mor: le32(data, 8),
            zsze: (0..64).map(|i| le64(data, 2816 + 16 * i)).collect(),
        }
    }

    /// The open-zone limit, 0 for none (fio's `mor + 1`, which wraps the
    /// no-limit value to 0).
    pub fn max_open_zones(&self) -> u32 {
        self.mor.wrapping_add(1)
    }
}

fn le16(d: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([d[at], d[at + 1]])
}

fn le32(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

/// A space-padded ASCII field, trimmed.
fn ascii(field: &[u8]) -> String {
    String::from_utf8_lossy(field)
        .trim_end_matches([' ', '\0'])
        .trim_start()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoned_namespace_fields() {
        let mut d = vec![0u8; 4096];
        d[8..12].copy_from_slice(&13u32.to_le_bytes());
        d[2816 + 16..2816 + 24].copy_from_slice(&0x8000u64.to_le_bytes());
        let z = ZonedNamespace::parse(&d);
        assert_eq!(z.max_open_zones(), 14);
        assert_eq!((z.zsze[0], z.zsze[1]), (0, 0x8000));
        d[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(ZonedNamespace::parse(&d).max_open_zones(), 0, "no limit");
    }

    fn controller_data() -> Vec<u8> {
        let mut d = vec![0u8; 4096];
        d[0..2].copy_from_slice(&0x1b36u16.to_le_bytes());
        d[4..24].copy_from_slice(b"deadbeef            ");
        d[24..64].copy_from_slice(b"QEMU NVMe Ctrl                          ");
        d[64..72].copy_from_slice(b"7.2.0   ");
        d[77] = 7;
        d[516..520].copy_from_slice(&256u32.to_le_bytes());
        d[520..522].copy_from_slice(&0x15du16.to_le_bytes());
        d
    }

    #[test]
    fn controller_fields() {
        let c = Controller::parse(&controller_data());
        assert_eq!(c.vendor_id, 0x1b36);
        assert_eq!(c.serial, "deadbeef");
        assert_eq!(c.model, "QEMU NVMe Ctrl");
        assert_eq!(c.firmware, "7.2.0");
        assert_eq!(c.max_transfer_bytes(4096), Some(512 * 1024));
        assert_eq!(c.nn, 256);
        assert_eq!(
            c.optional_commands(),
            [
                "Compare",
                "Dataset Management",
                "Write Zeroes",
                "Save/Select in Set/Get Features",
                "Timestamp",
                "Copy"
            ]
        );
        assert!(c.has_write_zeroes() && c.has_dataset_management());
        assert!(c.has_compare());
        assert!(!Controller::default().has_compare());
    }

    #[test]
    fn nvm_limits_fields() {
        let mut d = vec![0u8; 4096];
        assert_eq!(NvmLimits::parse(&d), NvmLimits::default());
        assert_eq!(NvmLimits::max_bytes(NvmLimits::default().wzsl, 4096), None);
        d[0] = 7;
        d[1] = 5;
        d[2] = 6;
        d[3] = 64;
        d[4..8].copy_from_slice(&4_194_303u32.to_le_bytes());
        d[8..16].copy_from_slice(&(1u64 << 33).to_le_bytes());
        let l = NvmLimits::parse(&d);
        assert_eq!(
            l,
            NvmLimits {
                vsl: 7,
                wzsl: 5,
                wusl: 6,
                dmrl: 64,
                dmrsl: 4_194_303,
                dmsl: 1 << 33
            }
        );
        assert_eq!(NvmLimits::max_bytes(l.wzsl, 4096), Some(128 * 1024));
    }

    #[test]
    fn namespace_fields_and_format_in_use() {
        let mut d = vec![0u8; 4096];
        d[0..8].copy_from_slice(&2_097_152u64.to_le_bytes());
        d[8..16].copy_from_slice(&2_097_152u64.to_le_bytes());
        d[25] = 1; // two formats
        d[26] = 1; // the second is in use
        d[33] = 0x9;
        d[128..132].copy_from_slice(&(9u32 << 16).to_le_bytes());
        d[132..136].copy_from_slice(&((12u32 << 16) | 8).to_le_bytes());
        let n = Namespace::parse(&d);
        assert_eq!(n.nsze, 2_097_152);
        assert_eq!(n.formats.len(), 2);
        assert_eq!(n.format_index(), 1);
        assert_eq!(n.block_size(), 4096);
        assert_eq!(n.format().ms, 8);
        assert!(n.deallocated_reads_zeroes());
    }
}
