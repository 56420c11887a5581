//! A zoned namespace's zones through NVMe commands on its generic char
//! device (/dev/ngXnY), which has no block layer and so no zone ioctls:
//! Zone Management Receive to report them and Zone Management Send to
//! reset and finish them (fio's `fio_nvme_report_zones` and
//! `fio_nvme_reset_wp`; fio 3.42 has no NVMe finish, see
//! [`ZonedNamespaceIo::finish_zones`]), and Write or Write Zeroes to move
//! a write pointer after a failed write ([`ZonedNamespaceIo::write_at`]).

use std::os::fd::RawFd;

use super::admin::{io_command, AdminError};
use super::command::{
    report_zones as report_command, write, write_zeroes, zone_send, MAX_BLOCKS, ZSA_FINISH,
    ZSA_RESET,
};
use crate::buffer::AlignedBuffer;
use crate::zoned::Zone;

/// Zone descriptors asked for per command (fio asks for 1024).
const PER_REPORT: usize = 1024;
/// The report's header and each zone descriptor are 64 bytes.
const ENTRY: usize = 64;

/// NVMe's Zone Type of a sequential-write-required zone, the only type a
/// zoned namespace has.
const SEQUENTIAL_WRITE_REQUIRED: u8 = 0x2;

/// A zoned namespace `nsid` seen through `fd`: its blocks of `block` bytes
/// (as the job's offsets count them) and zones of `zone_blocks` blocks.
#[derive(Clone, Copy, Debug)]
pub struct ZonedNamespaceIo {
    pub fd: RawFd,
    pub nsid: u32,
    pub block: u64,
    pub zone_blocks: u64,
}

impl ZonedNamespaceIo {
    /// Every zone of the first `size` bytes, in order, in bytes. NVMe zone
    /// states have the kernel's `BLK_ZONE_COND_*` values; zone types other
    /// than sequential-write-required are reported as they are (the
    /// caller refuses them, as fio does).
    pub fn report_zones(&self, size: u64) -> Result<Vec<Zone>, AdminError> {
        let zone_bytes = self.zone_blocks * self.block;
        let total = size / zone_bytes;
        let mut zones = Vec::with_capacity(total as usize);
        let mut buf = AlignedBuffer::new(ENTRY * (1 + PER_REPORT), 4096);
        while (zones.len() as u64) < total {
            let want = (total - zones.len() as u64).min(PER_REPORT as u64) as usize;
            let len = ENTRY * (1 + want);
            let data = &mut buf.as_mut_slice()[..len];
            data.fill(0);
            let slba = zones.len() as u64 * self.zone_blocks;
            io_command(
                self.fd,
                "Zone Management Receive (Report Zones)",
                report_command(self.nsid, slba, 0, len as u32),
                data,
            )?;
            let nr = (le64(data, 0) as usize).min(want);
            if nr == 0 {
                break;
            }
            for d in data[ENTRY..ENTRY * (1 + nr)].chunks_exact(ENTRY) {
                zones.push(self.zone_of(d));
            }
        }
        Ok(zones)
    }

    /// The zone that starts at byte `start`, as the namespace reports it
    /// now.
    pub fn report_zone(&self, start: u64) -> Result<Zone, AdminError> {
        let mut buf = AlignedBuffer::new(2 * ENTRY, 4096);
        let data = buf.as_mut_slice();
        io_command(
            self.fd,
            "Zone Management Receive (Report Zones)",
            report_command(self.nsid, start / self.block, 0, data.len() as u32),
            data,
        )?;
        Ok(self.zone_of(&data[ENTRY..]))
    }

    /// Writes `data` at byte `at`, or zeroes `len` bytes there where there
    /// is none: fio's move of a write pointer after a failed write, which
    /// fio 3.42 tries with pwrite and fallocate, which a generic char
    /// device does not take. The data is at most a block of the job's,
    /// which fits one Write as the job's writes do; zeroes go 65536
    /// blocks a command.
    pub fn write_at(&self, at: u64, len: u64, data: Option<&[u8]>) -> Result<(), AdminError> {
        let slba = at / self.block;
        let Some(data) = data else {
            let mut blocks = len / self.block;
            let mut lba = slba;
            while blocks > 0 {
                let n = blocks.min(u64::from(MAX_BLOCKS)) as u32;
                let cmd = write_zeroes(self.nsid, lba, n, false, false);
                io_command(self.fd, "Write Zeroes", cmd, &mut [])?;
                blocks -= u64::from(n);
                lba += u64::from(n);
            }
            return Ok(());
        };
        let mut buf = AlignedBuffer::new(data.len(), 4096);
        buf.as_mut_slice().copy_from_slice(data);
        let blocks = (data.len() as u64 / self.block) as u32;
        let cmd = write(self.nsid, slba, blocks, 0, 0, false);
        io_command(self.fd, "Write", cmd, buf.as_mut_slice())?;
        Ok(())
    }

    /// One Zone Descriptor, in bytes.
    fn zone_of(&self, d: &[u8]) -> Zone {
        let bytes = |blocks: u64| blocks * self.block;
        Zone {
            start: bytes(le64(d, 16)),
            len: bytes(self.zone_blocks),
            capacity: bytes(le64(d, 8)),
            wp: bytes(le64(d, 24)),
            kind: match d[0] & 0x0f {
                SEQUENTIAL_WRITE_REQUIRED => Zone::SEQ_WRITE_REQUIRED,
                other => other,
            },
            cond: d[1] >> 4,
        }
    }

    /// Resets the write pointer of each zone in `len` bytes at `start` (a
    /// zone start), one command per zone as fio sends them.
    pub fn reset_zones(&self, start: u64, len: u64) -> Result<(), AdminError> {
        self.send(start, len, ZSA_RESET, "Zone Management Send (Reset Zone)")
    }

    /// Finishes each zone in `len` bytes at `start` (a zone start), one
    /// command per zone. (fio 3.42 asks a generic char device for a finish
    /// with the block layer's ioctl, which the char device refuses.)
    pub fn finish_zones(&self, start: u64, len: u64) -> Result<(), AdminError> {
        self.send(start, len, ZSA_FINISH, "Zone Management Send (Finish Zone)")
    }

    /// Zone Management Send of `action` to each zone in `len` bytes at
    /// `start`.
    fn send(
        &self,
        start: u64,
        len: u64,
        action: u32,
        name: &'static str,
    ) -> Result<(), AdminError> {
        let zone_bytes = self.zone_blocks * self.block;
        let first = start / self.block;
        for i in 0..len.div_ceil(zone_bytes) {
            io_command(
                self.fd,
                name,
                zone_send(self.nsid, first + i * self.zone_blocks, action),
                &mut [],
            )?;
        }
        Ok(())
    }
}

fn le64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor's fields land where the specification puts them, in
    /// bytes of the job's blocks.
    #[test]
    fn descriptors_become_zones_in_bytes() {
        let z = ZonedNamespaceIo {
            fd: -1,
            nsid: 1,
            block: 4096,
            zone_blocks: 256,
        };
        let mut d = [0u8; ENTRY];
        d[0] = 0x2;
        d[1] = 0xe << 4;
        d[8..16].copy_from_slice(&200u64.to_le_bytes());
        d[16..24].copy_from_slice(&512u64.to_le_bytes());
        d[24..32].copy_from_slice(&712u64.to_le_bytes());
        let zone = z.zone_of(&d);
        assert_eq!(
            zone,
            Zone {
                start: 512 * 4096,
                len: 256 * 4096,
                capacity: 200 * 4096,
                wp: 712 * 4096,
                kind: Zone::SEQ_WRITE_REQUIRED,
                cond: Zone::COND_FULL,
            }
        );
    }

    /// Without a namespace behind the descriptor both commands fail, and
    /// say which command it was.
    #[test]
    fn commands_on_a_non_nvme_descriptor_fail_by_name() {
        let f = tempfile::tempfile().unwrap();
        use std::os::fd::AsRawFd;
        let z = ZonedNamespaceIo {
            fd: f.as_raw_fd(),
            nsid: 1,
            block: 512,
            zone_blocks: 8,
        };
        let err = z.report_zones(4096 * 4).unwrap_err().to_string();
        assert!(err.starts_with("Zone Management Receive"), "{err}");
        let err = z.reset_zones(0, 4096).unwrap_err().to_string();
        assert!(
            err.starts_with("Zone Management Send (Reset Zone)"),
            "{err}"
        );
        let err = z.finish_zones(0, 4096).unwrap_err().to_string();
        assert!(
            err.starts_with("Zone Management Send (Finish Zone)"),
            "{err}"
        );
        let err = z.report_zone(0).unwrap_err().to_string();
        assert!(err.starts_with("Zone Management Receive"), "{err}");
        let err = z.write_at(0, 512, Some(&[0u8; 512])).unwrap_err();
        assert!(err.to_string().starts_with("Write"), "{err}");
        let err = z.write_at(0, 512, None).unwrap_err().to_string();
        assert!(err.starts_with("Write Zeroes"), "{err}");
    }
}
