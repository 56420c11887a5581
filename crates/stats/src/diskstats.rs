//! Disk statistics from /proc/diskstats, as fio's disk_util reports them.
//!
//! Each line of /proc/diskstats is `major minor name` followed by the
//! counters described in the kernel's Documentation/admin-guide/iostats.rst:
//! reads completed, reads merged, sectors read, ms reading, writes completed,
//! writes merged, sectors written, ms writing, I/Os in flight, ms doing I/O,
//! weighted ms doing I/O, then (newer kernels) discard and flush counters,
//! which fio does not report.

use std::io;

/// One reading of a block device's counters.
#[derive(Clone, Debug, Default)]
pub struct DiskSnapshot {
    pub name: String,
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_sectors: u64,
    pub read_ticks: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_sectors: u64,
    pub write_ticks: u64,
    /// Milliseconds the device had I/O in flight.
    pub io_ticks: u64,
    /// Weighted milliseconds (time in flight times requests in flight).
    pub in_queue: u64,
}

impl DiskSnapshot {
    /// Reads the counters of the device called `name` (e.g. "zram0").
    pub fn read(name: &str) -> io::Result<DiskSnapshot> {
        let text = std::fs::read_to_string("/proc/diskstats")?;
        parse_diskstats(&text, name).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no device {name:?} in /proc/diskstats"),
            )
        })
    }

    /// The /proc/diskstats name of the block device with this dev_t. Like
    /// fio, a partition is reported as the whole disk it belongs to, since
    /// that is what the scheduler and the utilisation figure describe.
    pub fn name_of_dev(rdev: u64) -> Option<String> {
        let dev = rdev as libc::dev_t;
        let sys = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
        // The link points into /sys/devices/.../block/<disk>[/<partition>].
        let target = std::fs::read_link(&sys).ok()?;
        let is_partition = std::path::Path::new(&sys).join("partition").exists();
        let dir = if is_partition {
            target.parent()?
        } else {
            target.as_path()
        };
        // Device names in sysfs use '!' where /proc/diskstats has '/'
        // (e.g. cciss!c0d0).
        Some(dir.file_name()?.to_str()?.replace('!', "/"))
    }
}

/// The counters of `name` in a /proc/diskstats text, if listed and well formed.
fn parse_diskstats(text: &str, name: &str) -> Option<DiskSnapshot> {
    text.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (_major, _minor, dev) = (fields.next()?, fields.next()?, fields.next()?);
        if dev != name {
            return None;
        }
        let mut n = [0u64; 11];
        for slot in n.iter_mut() {
            *slot = fields.next()?.parse().ok()?;
        }
        Some(DiskSnapshot {
            name: name.to_string(),
            read_ios: n[0],
            read_merges: n[1],
            read_sectors: n[2],
            read_ticks: n[3],
            write_ios: n[4],
            write_merges: n[5],
            write_sectors: n[6],
            write_ticks: n[7],
            // n[8] is the number of I/Os in flight right now.
            io_ticks: n[9],
            in_queue: n[10],
        })
    })
}

/// What happened on a device during the run (fio's "disk_util" entry).
#[derive(Clone, Debug, Default)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_sectors: u64,
    pub write_sectors: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    /// Milliseconds the device was busy.
    pub io_ticks: u64,
    /// Percent of the elapsed time the device was busy.
    pub util: f64,
}

/// The kernel prints the millisecond counters as 32-bit values, which wrap
/// after about 49 days of busy time; the I/O counts are 64-bit.
fn ms_delta(before: u64, after: u64) -> u64 {
    if before <= u32::MAX as u64 && after <= u32::MAX as u64 {
        (after as u32).wrapping_sub(before as u32) as u64
    } else {
        after.wrapping_sub(before)
    }
}

impl DiskUtil {
    /// The change from `before` to `after`, over `elapsed_ms` of wall time.
    /// util is fio's `100 * io_ticks / msec`, capped at 100 (io_ticks can
    /// run slightly ahead of the wall clock), and 0 when no time passed.
    pub fn between(before: &DiskSnapshot, after: &DiskSnapshot, elapsed_ms: u64) -> DiskUtil {
        let io_ticks = ms_delta(before.io_ticks, after.io_ticks);
        let util = if elapsed_ms == 0 {
            0.0
        } else {
            (100.0 * io_ticks as f64 / elapsed_ms as f64).min(100.0)
        };
        DiskUtil {
            name: after.name.clone(),
            read_ios: after.read_ios.wrapping_sub(before.read_ios),
            write_ios: after.write_ios.wrapping_sub(before.write_ios),
            read_merges: after.read_merges.wrapping_sub(before.read_merges),
            write_merges: after.write_merges.wrapping_sub(before.write_merges),
            read_sectors: after.read_sectors.wrapping_sub(before.read_sectors),
            write_sectors: after.write_sectors.wrapping_sub(before.write_sectors),
            read_ticks: ms_delta(before.read_ticks, after.read_ticks),
            write_ticks: ms_delta(before.write_ticks, after.write_ticks),
            in_queue: ms_delta(before.in_queue, after.in_queue),
            io_ticks,
            util,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 201641 4606 3914866 18126 24865 12201 2196936 19857 0 10316 38367 3932 44 528416 355 1085 27
 254       1 vda1 1000 2 8000 30 40 5 320 6 1 70 80
 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
   8       0 sdb 5 6 7
";

    #[test]
    fn parses_the_fields_iostats_rst_describes() {
        let d = parse_diskstats(SAMPLE, "vda").unwrap();
        assert_eq!(d.name, "vda");
        assert_eq!(
            (d.read_ios, d.read_merges, d.read_sectors, d.read_ticks),
            (201641, 4606, 3914866, 18126)
        );
        assert_eq!(
            (d.write_ios, d.write_merges, d.write_sectors, d.write_ticks),
            (24865, 12201, 2196936, 19857)
        );
        assert_eq!((d.io_ticks, d.in_queue), (10316, 38367));
    }

    #[test]
    fn old_kernels_with_eleven_fields_parse() {
        let d = parse_diskstats(SAMPLE, "vda1").unwrap();
        assert_eq!(
            (d.read_ios, d.write_ios, d.io_ticks, d.in_queue),
            (1000, 40, 70, 80)
        );
    }

    #[test]
    fn names_match_exactly_and_short_lines_are_rejected() {
        assert!(parse_diskstats(SAMPLE, "vd").is_none());
        assert!(parse_diskstats(SAMPLE, "sdb").is_none());
        assert!(parse_diskstats(SAMPLE, "nvme0n1").is_none());
        assert!(parse_diskstats(SAMPLE, "zram0").is_some());
    }

    #[test]
    fn util_is_busy_time_over_elapsed_capped() {
        let before = DiskSnapshot {
            name: "vda".into(),
            read_ios: 10,
            io_ticks: 1000,
            read_ticks: 50,
            ..Default::default()
        };
        let after = DiskSnapshot {
            read_ios: 110,
            io_ticks: 1500,
            read_ticks: 80,
            ..before.clone()
        };
        let u = DiskUtil::between(&before, &after, 2000);
        assert_eq!((u.read_ios, u.read_ticks, u.io_ticks), (100, 30, 500));
        assert_eq!(u.util, 25.0);
        assert_eq!(DiskUtil::between(&before, &after, 400).util, 100.0);
        assert_eq!(DiskUtil::between(&before, &after, 0).util, 0.0);
    }

    #[test]
    fn millisecond_counters_wrap_at_32_bits() {
        let before = DiskSnapshot {
            io_ticks: u32::MAX as u64 - 9,
            ..Default::default()
        };
        let after = DiskSnapshot {
            io_ticks: 10,
            ..Default::default()
        };
        assert_eq!(DiskUtil::between(&before, &after, 1000).io_ticks, 20);
    }

    /// This machine's disks from /sys/block: (name as /proc/diskstats
    /// spells it, its device number, its partitions' device numbers).
    fn sys_block_disks() -> Vec<(String, u64, Vec<u64>)> {
        let number = |dir: &std::path::Path| -> Option<u64> {
            let text = std::fs::read_to_string(dir.join("dev")).ok()?;
            let (major, minor) = text.trim().split_once(':')?;
            Some(libc::makedev(major.parse().ok()?, minor.parse().ok()?))
        };
        let Ok(entries) = std::fs::read_dir("/sys/block") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|disk| {
                let name = disk.file_name().into_string().ok()?.replace('!', "/");
                let partitions = std::fs::read_dir(disk.path())
                    .ok()?
                    .flatten()
                    .filter(|p| p.path().join("partition").exists())
                    .filter_map(|p| number(&p.path()))
                    .collect();
                Some((name, number(&disk.path())?, partitions))
            })
            .collect()
    }

    /// Every machine lists some block device (a loop device at least): read
    /// the first one /proc/diskstats names.
    #[test]
    fn reads_a_real_device() {
        let text = std::fs::read_to_string("/proc/diskstats").unwrap();
        let name = text
            .lines()
            .find_map(|l| l.split_whitespace().nth(2))
            .expect("/proc/diskstats lists no device");
        let snap = DiskSnapshot::read(name).unwrap();
        assert_eq!(snap.name, name);
        assert!(DiskSnapshot::read("no-such-disk").is_err());
    }

    /// Each disk in /sys/block is named from its device number, and each
    /// of its partitions maps to it.
    #[test]
    fn finds_the_name_of_a_device_number() {
        let disks = sys_block_disks();
        assert!(!disks.is_empty(), "/sys/block lists no disk");
        for (name, dev, partitions) in disks {
            assert_eq!(DiskSnapshot::name_of_dev(dev).as_deref(), Some(&*name));
            for part in partitions {
                assert_eq!(
                    DiskSnapshot::name_of_dev(part).as_deref(),
                    Some(&*name),
                    "a partition of {name}"
                );
            }
        }
        // 0:0 is never a block device.
        assert_eq!(DiskSnapshot::name_of_dev(0), None);
    }
}
