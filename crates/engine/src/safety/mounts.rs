//! Whether the system is using a block device: mounted, holding a mounted
//! filesystem through a device built on it, or active as swap.

use std::ffi::CString;
use std::path::{Path, PathBuf};

use crate::error::EngineError;
use crate::target::{c_path, io_error, stat_path};

/// Whether `path` is a block device that is in use by the system: the device
/// itself, one of its partitions, or a device built on any of them (device
/// mapper, md, ...) mounted, or any of them active as swap. Writing to such a
/// device destroys the filesystem on it, so callers refuse to unless told to.
///
/// Returns a description such as "/dev/zram0 is mounted on /mnt/x", or
/// `None` for a device nothing uses, a path that is not a block device, or a
/// path that does not exist.
pub fn mounted_use(path: &Path) -> Result<Option<String>, EngineError> {
    let cpath = c_path(path)?;
    let st = match stat_path(&cpath) {
        Ok(st) => st,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(e) => return Err(io_error(path, "stat", e)),
    };
    if st.st_mode & libc::S_IFMT != libc::S_IFBLK {
        return Ok(None);
    }
    let related = related_devices(st.st_rdev, &path.display().to_string());
    let mut uses = Vec::new();

    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| io_error(Path::new("/proc/self/mountinfo"), "read", e))?;
    for line in mountinfo.lines() {
        let Some(mount) = parse_mountinfo_line(line) else {
            continue;
        };
        // Some filesystems (btrfs) report an anonymous device number, so
        // the device they were mounted from is compared as well. Only /dev
        // paths are looked at: stat on a network or FUSE source can hang.
        let source_dev = if mount.source.starts_with("/dev/") {
            CString::new(mount.source.as_str())
                .ok()
                .and_then(|c| stat_path(&c).ok())
                .filter(|s| s.st_mode & libc::S_IFMT == libc::S_IFBLK)
                .map(|s| s.st_rdev)
        } else {
            None
        };
        if let Some(dev) = related
            .iter()
            .find(|d| d.dev == mount.dev || Some(d.dev) == source_dev)
        {
            uses.push(format!(
                "{} is mounted on {}",
                dev.description, mount.mount_point
            ));
        }
    }

    // /proc/swaps may be absent (no swap support); that means no swap.
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for name in swaps
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
        {
            let name = unescape_octal(name);
            let Some(st) = CString::new(name.as_str())
                .ok()
                .and_then(|c| stat_path(&c).ok())
            else {
                continue;
            };
            if st.st_mode & libc::S_IFMT != libc::S_IFBLK {
                continue;
            }
            if let Some(dev) = related.iter().find(|d| d.dev == st.st_rdev) {
                uses.push(format!("{} is in use as swap", dev.description));
            }
        }
    }

    Ok(if uses.is_empty() {
        None
    } else {
        Some(uses.join("; "))
    })
}

/// A device whose use makes writing to the asked-for device unsafe.
struct RelatedDevice {
    dev: libc::dev_t,
    description: String,
}

/// The device, its partitions and, transitively, the devices that hold any
/// of them, as listed under /sys/dev/block. Without sysfs only the device
/// itself is known.
fn related_devices(dev: libc::dev_t, shown_as: &str) -> Vec<RelatedDevice> {
    let mut out = vec![RelatedDevice {
        dev,
        description: shown_as.to_string(),
    }];
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    let Ok(sys) = std::fs::canonicalize(sys) else {
        return out;
    };
    // Partitions are subdirectories of the whole device that carry a
    // "partition" attribute.
    let mut bases = vec![(sys.clone(), shown_as.to_string())];
    if let Ok(entries) = std::fs::read_dir(&sys) {
        for entry in entries.flatten() {
            let p = entry.path();
            if p.join("partition").exists() {
                if let Some(d) = sysfs_dev(&p) {
                    let name = format!("/dev/{}", entry.file_name().to_string_lossy());
                    out.push(RelatedDevice {
                        dev: d,
                        description: format!("{name} (a partition of {shown_as})"),
                    });
                    bases.push((p, name));
                }
            }
        }
    }
    // Holders: device-mapper, md, bcache... built on the device or a
    // partition, possibly stacked. Bounded so a sysfs loop cannot hang us.
    let mut pending: Vec<(PathBuf, String, u32)> =
        bases.into_iter().map(|(p, n)| (p, n, 0)).collect();
    while let Some((dir, name, depth)) = pending.pop() {
        if depth >= 8 {
            continue;
        }
        let Ok(holders) = std::fs::read_dir(dir.join("holders")) else {
            continue;
        };
        for holder in holders.flatten() {
            let hname = holder.file_name().to_string_lossy().into_owned();
            let hdir = PathBuf::from(format!("/sys/class/block/{hname}"));
            let Some(d) = sysfs_dev(&hdir) else {
                continue;
            };
            if out.iter().any(|r| r.dev == d) {
                continue;
            }
            let hpath = format!("/dev/{hname}");
            out.push(RelatedDevice {
                dev: d,
                description: format!("{hpath} (built on {name})"),
            });
            pending.push((hdir, hpath, depth + 1));
        }
    }
    out
}

/// The device number in a sysfs block directory's "dev" file ("major:minor").
fn sysfs_dev(dir: &Path) -> Option<libc::dev_t> {
    let text = std::fs::read_to_string(dir.join("dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    Some(libc::makedev(major.parse().ok()?, minor.parse().ok()?))
}

struct Mount {
    dev: libc::dev_t,
    mount_point: String,
    source: String,
}

/// One line of /proc/self/mountinfo: "id parent major:minor root mountpoint
/// options [optional fields] - fstype source superoptions".
fn parse_mountinfo_line(line: &str) -> Option<Mount> {
    let mut fields = line.split(' ');
    let (major, minor) = fields.nth(2)?.split_once(':')?;
    let mount_point = unescape_octal(fields.nth(1)?);
    let source = line.split(" - ").nth(1)?.split(' ').nth(1)?;
    Some(Mount {
        dev: libc::makedev(major.parse().ok()?, minor.parse().ok()?),
        mount_point,
        source: unescape_octal(source),
    })
}

/// The kernel writes space, tab, newline and backslash in mount points and
/// swap file names as `\ooo` octal escapes.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let digits = &b[i + 1..i + 4];
            if digits.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = digits
                    .iter()
                    .fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
                if let Ok(byte) = u8::try_from(v) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use ioscope_testutil::{skip, Missing};

    use super::*;

    #[test]
    fn mountinfo_lines_parse_with_escapes() {
        let line =
            "36 35 98:0 / /mnt/my\\040disk rw,noatime master:1 - ext3 /dev/root rw,errors=continue";
        let m = parse_mountinfo_line(line).unwrap();
        assert_eq!(m.dev, libc::makedev(98, 0));
        assert_eq!(m.mount_point, "/mnt/my disk");
        assert_eq!(m.source, "/dev/root");
        assert!(parse_mountinfo_line("garbage").is_none());
        assert_eq!(unescape_octal("a\\134b\\011"), "a\\b\t");
        assert_eq!(unescape_octal("trailing\\04"), "trailing\\04");
    }

    #[test]
    fn mounted_use_is_none_for_files_and_missing_paths() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert_eq!(mounted_use(&path).unwrap(), None);
        std::fs::write(&path, b"x").unwrap();
        assert_eq!(mounted_use(&path).unwrap(), None);
        assert_eq!(mounted_use(Path::new("/dev/null")).unwrap(), None);
    }

    #[test]
    fn mounted_use_reports_the_root_filesystem_device() {
        // The device "/" is mounted from, when it is a block device node
        // here (not in containers on overlayfs).
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(root) = mountinfo
            .lines()
            .filter_map(parse_mountinfo_line)
            .find(|m| m.mount_point == "/")
        else {
            skip!(Missing::soft("no mount on / in /proc/self/mountinfo"));
        };
        let source = Path::new(&root.source);
        let is_block = std::fs::metadata(source)
            .map(|m| m.mode() & libc::S_IFMT == libc::S_IFBLK)
            .unwrap_or(false);
        if !is_block {
            skip!(Missing::soft(format!(
                "/ is mounted from {}, not a block device",
                root.source
            )));
        }
        let use_ = mounted_use(source)
            .unwrap()
            .expect("the root device is in use");
        assert!(use_.contains("is mounted on /"), "{use_}");
    }
}
