//! Zoned block devices: the kernel's zone model of a block device, read
//! from `/sys/dev/block/MAJ:MIN/queue/zoned` (fio's
//! `blkzoned_get_zoned_model`), its open-zone limit, and the zone ioctls
//! (fio's `blkzoned_report_zones`, `blkzoned_reset_wp` and
//! `blkzoned_finish_zone`), and the write that moves a write pointer after
//! a failed write (`blkzoned_move_zone_wp`).

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::buffer::AlignedBuffer;
use crate::ioctl::{BLKFINISHZONE, BLKREPORTZONE, BLKRESETZONE};

/// fio's `enum zbd_zoned_model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZonedModel {
    /// A regular file, or a block device without zones.
    None,
    HostAware,
    HostManaged,
}

impl ZonedModel {
    /// The kernel's word for it in `queue/zoned`.
    pub fn name(self) -> &'static str {
        match self {
            ZonedModel::None => "none",
            ZonedModel::HostAware => "host-aware",
            ZonedModel::HostManaged => "host-managed",
        }
    }

    fn parse(text: &str) -> Option<ZonedModel> {
        match text.trim() {
            "none" => Some(ZonedModel::None),
            "host-aware" => Some(ZonedModel::HostAware),
            "host-managed" => Some(ZonedModel::HostManaged),
            _ => None,
        }
    }
}

/// The zone model of `path`: None for anything but a block device; for a
/// partition, its disk's (the partition's sysfs directory has no queue).
pub fn zoned_model(path: &Path) -> io::Result<ZonedModel> {
    let Some(dir) = queue_dir(path)? else {
        return Ok(ZonedModel::None);
    };
    // Kernels without zone support have no such attribute: no zones.
    let Ok(text) = std::fs::read_to_string(format!("{dir}/zoned")) else {
        return Ok(ZonedModel::None);
    };
    ZonedModel::parse(&text).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{dir}/zoned: unknown zone model '{}'", text.trim()),
        )
    })
}

/// The sysfs queue directory of the disk of block device `path` (a
/// partition's has none: its disk's), None for anything else.
fn queue_dir(path: &Path) -> io::Result<Option<String>> {
    let meta = std::fs::metadata(path)?;
    if !meta.file_type().is_block_device() {
        return Ok(None);
    }
    let rdev = meta.rdev();
    let dir = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    Ok(Some(if Path::new(&format!("{dir}/queue")).exists() {
        format!("{dir}/queue")
    } else {
        format!("{dir}/../queue")
    }))
}

/// A zoned block device's limit of open zones
/// (`queue/max_open_zones`); 0 when it has none (fio's
/// `blkzoned_get_max_open_zones`, which reads the same attribute).
pub fn max_open_zones(path: &Path) -> io::Result<u32> {
    let Some(dir) = queue_dir(path)? else {
        return Ok(0);
    };
    match std::fs::read_to_string(format!("{dir}/max_open_zones")) {
        Ok(text) => text.trim().parse().map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{dir}/max_open_zones: not a number: '{}'", text.trim()),
            )
        }),
        // Kernels before 5.9 do not say: no limit known.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

/// One zone as the device reports it, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    pub start: u64,
    pub len: u64,
    /// The bytes that can be written (at most `len`; less on ZNS drives).
    pub capacity: u64,
    pub wp: u64,
    /// The kernel's `BLK_ZONE_TYPE_*`: 1 conventional, 2 sequential write
    /// required, 3 sequential write preferred.
    pub kind: u8,
    /// The kernel's `BLK_ZONE_COND_*`: 0 no write pointer, 1 empty, 2
    /// implicitly open, 3 explicitly open, 4 closed, 0xd read-only, 0xe
    /// full, 0xf offline.
    pub cond: u8,
}

impl Zone {
    pub const CONVENTIONAL: u8 = 1;
    pub const SEQ_WRITE_REQUIRED: u8 = 2;
    pub const SEQ_WRITE_PREFERRED: u8 = 3;
    pub const COND_NOT_WP: u8 = 0;
    pub const COND_IMP_OPEN: u8 = 2;
    pub const COND_EXP_OPEN: u8 = 3;
    pub const COND_READONLY: u8 = 0xd;
    pub const COND_FULL: u8 = 0xe;
    pub const COND_OFFLINE: u8 = 0xf;
}

/// `struct blk_zone`: 64 bytes, lengths in 512-byte sectors.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct BlkZone {
    start: u64,
    len: u64,
    wp: u64,
    kind: u8,
    cond: u8,
    non_seq: u8,
    reset: u8,
    resv: [u8; 4],
    capacity: u64,
    reserved: [u8; 24],
}

/// `BLK_ZONE_REP_CAPACITY`: the report's zones carry their capacity.
const REP_CAPACITY: u32 = 1;

/// fio's `ZBD_REPORT_MAX_ZONES`: zones asked for per ioctl.
const PER_REPORT: usize = 8192;

/// Every zone of the zoned block device open at `fd`, whose size is
/// `size` bytes, in order.
pub fn report_zones(fd: RawFd, size: u64) -> io::Result<Vec<Zone>> {
    let mut zones = Vec::new();
    let mut sector = 0u64;
    while sector * 512 < size {
        let batch = report_from(fd, sector, PER_REPORT)?;
        let Some(last) = batch.last() else { break };
        sector = (last.start + last.len) / 512;
        zones.extend(batch);
    }
    Ok(zones)
}

/// The zone that starts at `start` of the zoned block device open at
/// `fd`, as the device reports it now (fio's `zbd_report_zones` of one
/// zone, which its write error recovery asks for).
pub fn report_zone(fd: RawFd, start: u64) -> io::Result<Zone> {
    report_from(fd, start / 512, 1)?
        .pop()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "the zone report is empty"))
}

/// At most `max` zones from the one holding `sector` on; fewer (or none)
/// past the device's end.
fn report_from(fd: RawFd, sector: u64, max: usize) -> io::Result<Vec<Zone>> {
    // The header (sector, nr_zones, flags: 16 bytes), then the zones, in
    // a buffer of u64s so the zones are aligned.
    let words = 2 + max * std::mem::size_of::<BlkZone>() / 8;
    let mut buf = vec![0u64; words];
    buf[0] = sector;
    buf[1] = max as u64; // nr_zones in the low half, flags 0
                         // SAFETY: the buffer holds the header and `max` zones, as nr_zones
                         // tells the kernel.
    if unsafe { libc::ioctl(fd, BLKREPORTZONE, buf.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    let nr = ((buf[1] & 0xffff_ffff) as usize).min(max);
    let flags = (buf[1] >> 32) as u32;
    // SAFETY: the kernel filled `nr` (at most `max`) zones after the
    // header; BlkZone is plain data, 8-byte aligned like `buf`.
    let reported = unsafe { std::slice::from_raw_parts(buf.as_ptr().add(2).cast::<BlkZone>(), nr) };
    Ok(reported
        .iter()
        .map(|z| {
            let capacity = if flags & REP_CAPACITY != 0 {
                z.capacity
            } else {
                z.len
            };
            Zone {
                start: z.start * 512,
                len: z.len * 512,
                capacity: capacity * 512,
                wp: z.wp * 512,
                kind: z.kind,
                cond: z.cond,
            }
        })
        .collect())
}

/// Moves the write pointer of a zone of the zoned block device at `path`
/// from `wp` by `len` bytes (fio's `blkzoned_move_zone_wp`): writes `data`
/// there, or zeroes where there is none (`FALLOC_FL_ZERO_RANGE`), through
/// a descriptor of its own opened with O_DIRECT.
pub fn move_write_pointer(path: &Path, wp: u64, len: u64, data: Option<&[u8]>) -> io::Result<()> {
    let dev = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)?;
    let fd = dev.as_raw_fd();
    let Some(data) = data else {
        // SAFETY: a plain syscall on a descriptor this function holds.
        let r = unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_ZERO_RANGE,
                wp as libc::off_t,
                len as libc::off_t,
            )
        };
        return if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        };
    };
    // O_DIRECT wants the memory aligned.
    let mut buf = AlignedBuffer::new(data.len(), 4096);
    buf.as_mut_slice().copy_from_slice(data);
    let mut done = 0;
    while done < data.len() {
        let rest = &buf.as_slice()[done..];
        // SAFETY: `rest` is valid for its length for the call.
        let n = unsafe {
            libc::pwrite(
                fd,
                rest.as_ptr().cast(),
                rest.len(),
                (wp + done as u64) as libc::off_t,
            )
        };
        match n {
            n if n > 0 => done += n as usize,
            0 => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            _ => return Err(io::Error::last_os_error()),
        }
    }
    Ok(())
}

/// Resets the write pointers of the zones in `len` bytes at `start` of the
/// zoned block device open at `fd`.
pub fn reset_zones(fd: RawFd, start: u64, len: u64) -> io::Result<()> {
    zone_range_ioctl(fd, BLKRESETZONE, start, len)
}

/// Finishes the zones in `len` bytes at `start` of the zoned block device
/// open at `fd`: full, their write pointers at their ends.
pub fn finish_zones(fd: RawFd, start: u64, len: u64) -> io::Result<()> {
    zone_range_ioctl(fd, BLKFINISHZONE, start, len)
}

/// A zone ioctl that takes a `struct blk_zone_range`.
fn zone_range_ioctl(fd: RawFd, request: libc::Ioctl, start: u64, len: u64) -> io::Result<()> {
    let range = [start / 512, len / 512];
    // SAFETY: `range` is the struct blk_zone_range the ioctl reads.
    if unsafe { libc::ioctl(fd, request, range.as_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_have_no_zones_and_models_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        assert_eq!(zoned_model(&path).unwrap(), ZonedModel::None);
        assert_eq!(
            ZonedModel::parse("host-managed\n"),
            Some(ZonedModel::HostManaged)
        );
        assert_eq!(ZonedModel::parse("host-aware"), Some(ZonedModel::HostAware));
        assert_eq!(ZonedModel::parse("odd"), None);
        assert_eq!(max_open_zones(&path).unwrap(), 0);
    }

    /// The kernel's struct is 64 bytes; a file is no zoned device.
    #[test]
    fn zone_reports_fit_the_kernels_struct_and_need_a_zoned_device() {
        assert_eq!(std::mem::size_of::<BlkZone>(), 64);
        let f = tempfile::tempfile().unwrap();
        use std::os::fd::AsRawFd;
        assert!(report_zones(f.as_raw_fd(), 4096).is_err());
        assert!(reset_zones(f.as_raw_fd(), 0, 4096).is_err());
        assert!(finish_zones(f.as_raw_fd(), 0, 4096).is_err());
        assert!(report_zone(f.as_raw_fd(), 0).is_err());
    }
}
