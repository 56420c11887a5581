//! What the runner does with zones: `zonemode=strided` is the workload's
//! walk and needs nothing here; `zonemode=zbd` is emulated on regular
//! files and block devices without zones (the workload keeps the write
//! pointers, one set per file for every job that names it), with fio's
//! checks before the run and on the opened targets.
//! On a zoned block device the zones are the device's, read once for the
//! run, and a reset is the device's reset.

use ioscope_engine::{
    max_open_zones, report_zones, reset_zones, zoned_model, TargetKind, Zone, ZonedModel,
};
use ioscope_job::{JobSpec, VerifyMethod, ZoneMode};
use ioscope_workload::{DeviceZone, DeviceZones, ZoneBook, ZoneReset};

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::files::{file_paths, WorkerFile};

/// Why a zbd job on a character device is refused.
const CHAR_DEVICE: &str = "zonemode=zbd on a character device (an NVMe generic device, whose \
     namespace may be zoned: fio reads its zones with NVMe commands) is not supported by \
     ioscope yet; name the namespace's block device (/dev/nvmeXnY)";

/// fio's zbd checks that need no target (zbd.c `init_zone_info`,
/// `zbd_setup_files`, `zbd_verify_bs`, `zbd_adjust_block`), and what
/// ioscope's emulation does not do yet.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let z = &spec.zones;
    if z.mode != ZoneMode::Zbd {
        return Ok(());
    }
    let paths = file_paths(spec, 0);
    let generic = paths.iter().find(|p| {
        p.starts_with("/dev/")
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("ng"))
    });
    if let Some(dev) = generic {
        // fio reads such a namespace's zones with NVMe commands.
        return Err(format!("{}: {CHAR_DEVICE}", dev.display()));
    }
    if z.size == 0 {
        // A zoned block device gives its own zone size, which the target
        // check reads (and there the other size checks are made).
        if paths.iter().any(|p| p.starts_with("/dev/")) {
            return check_ops(spec);
        }
        return Err(
            "zonemode=zbd needs zonesize: specifying the zone size is mandatory for \
             a regular file or a block device without zones"
                .to_string(),
        );
    }
    if z.job_max_open_zones > 0 && z.max_open_zones == 0 {
        return Err(
            "job_max_open_zones cannot be used without a global open zones limit (max_open_zones)"
                .to_string(),
        );
    }
    check_sizes(spec, z.size)?;
    check_ops(spec)
}

/// fio's checks of the zone size (the job's, or a zoned device's own)
/// against the block sizes.
fn check_sizes(spec: &JobSpec, size: u64) -> Result<(), String> {
    let z = &spec.zones;
    if size < 512 {
        return Err(format!(
            "zonesize={size} is too small: the zone size must be at least 512 bytes for zonemode=zbd"
        ));
    }
    if z.capacity > size {
        return Err(format!(
            "zonecapacity={} is larger than zonesize={size}",
            z.capacity
        ));
    }
    if spec.rw.kind.writes() {
        let (min, max) = (spec.bs.write.min(), spec.bs.write.max());
        if max > size {
            return Err(format!(
                "bs={max} is larger than zonesize={size}: with zonemode=zbd a write must fit in a zone"
            ));
        }
        let capacity = if z.capacity == 0 { size } else { z.capacity };
        if capacity < min {
            return Err(format!(
                "zonecapacity={capacity} is smaller than the smallest write block size {min}"
            ));
        }
    }
    Ok(())
}

/// What ioscope's zbd mode does not do yet, whatever the zones.
fn check_ops(spec: &JobSpec) -> Result<(), String> {
    let kind = spec.rw.kind;
    if kind.trims() {
        return Err(format!(
            "rw={} with zonemode=zbd is not supported by ioscope yet (fio trims by resetting \
             whole zones)",
            kind.name()
        ));
    }
    if spec.verify.method != VerifyMethod::None {
        return Err(
            "verify with zonemode=zbd is not supported by ioscope yet (fio replays the write \
             order zone by zone)"
                .to_string(),
        );
    }
    Ok(())
}

/// fio keeps one set of zones per file for every job of the run that
/// names it (zbd.c `zbd_init_zone_info`; ioscope's `ZoneBook`): the zbd
/// jobs on one file must cut it into the same zones, and may set one
/// `max_open_zones` (fio's "Different 'max_open_zones' values"; a job
/// without one inherits the first job's). Returns the job's name and the
/// reason.
pub(crate) fn check_shared(jobs: &[JobSpec]) -> Result<(), (&str, String)> {
    let zbd = |s: &JobSpec| s.zones.mode == ZoneMode::Zbd;
    if !jobs.iter().any(zbd) {
        return Ok(());
    }
    // A map, not a list: jobs of many files (nrfiles=31250) are common.
    let mut first: HashMap<PathBuf, &JobSpec> = HashMap::new();
    for spec in jobs.iter().filter(|s| zbd(s)) {
        for path in file_paths(spec, 0) {
            let Some(other) = first.get(&path) else {
                first.insert(path, spec);
                continue;
            };
            let (a, b) = (&other.zones, &spec.zones);
            let capacity =
                |z: &ioscope_job::ZoneSpec| if z.capacity == 0 { z.size } else { z.capacity };
            let why = if a.size != b.size || capacity(a) != capacity(b) {
                format!(
                    "zonesize/zonecapacity {}/{} differ from job {}'s {}/{}: the jobs share the \
                     file's zones, which are cut one way",
                    b.size,
                    capacity(b),
                    other.name,
                    a.size,
                    capacity(a)
                )
            } else if b.max_open_zones > 0 && b.max_open_zones != a.max_open_zones {
                format!(
                    "Different 'max_open_zones' values: {} here, {} in job {} (the limit is the \
                     file's, shared by its jobs)",
                    b.max_open_zones, a.max_open_zones, other.name
                )
            } else {
                continue;
            };
            return Err((
                &spec.name,
                format!("{}: zonemode=zbd: {why}", path.display()),
            ));
        }
    }
    Ok(())
}

/// fio's zbd checks on the opened files, and a zoned block device's
/// zones read into `book` (once for the run: fio's `parse_zone_info` and
/// `zbd_set_max_open_zones`). A file must hold at least one zone. Returns
/// the zoned device's zone size when the job names one (fio sets the
/// job's `zonesize` to it).
pub(crate) fn check_targets(
    spec: &JobSpec,
    files: &[WorkerFile],
    book: &ZoneBook,
    queued: bool,
) -> Result<Option<u64>, String> {
    if spec.zones.mode != ZoneMode::Zbd {
        return Ok(None);
    }
    let mut device_zone = None;
    for f in files.iter().filter(|f| f.target.is_some()) {
        let path = f.path.display();
        if f.target.as_ref().map(|t| t.kind()) == Some(TargetKind::CharDevice) {
            return Err(format!("{path}: {CHAR_DEVICE}"));
        }
        let zone = match zoned_model(&f.path) {
            Ok(ZonedModel::None) if spec.zones.size == 0 => {
                return Err(format!(
                    "{path}: Specifying the zone size is mandatory for regular file/block \
                     device with --zonemode=zbd"
                ))
            }
            Ok(ZonedModel::None) => spec.zones.size,
            Ok(model) => {
                let size = book.device(&f.path, || read_device(spec, &f.path, model, queued))?;
                if spec.zones.size != 0 && spec.zones.size != size {
                    return Err(format!(
                        "{path}: job parameter zonesize {} does not match disk zone size {size}",
                        spec.zones.size
                    ));
                }
                check_sizes(spec, size)?;
                device_zone = Some(size);
                size
            }
            Err(e) => return Err(format!("{path}: zone model: {e}")),
        };
        if f.file_size < zone {
            return Err(format!(
                "{path}: file/device size {} is smaller than zone size {zone} (zonemode=zbd)",
                f.file_size
            ));
        }
    }
    Ok(device_zone)
}

/// The zones of the zoned block device `path` and the open-zone limit
/// the jobs on it use, with fio's checks (zbd.c `zbd_using_direct_io`,
/// `parse_zone_info`, `zbd_set_max_open_zones`) and what ioscope does
/// not do there yet.
fn read_device(
    spec: &JobSpec,
    path: &Path,
    model: ZonedModel,
    queued: bool,
) -> Result<DeviceZones, String> {
    let name = path.display();
    let writes = spec.rw.kind.writes();
    if writes && !spec.direct && model == ZonedModel::HostManaged {
        return Err("Using direct I/O is mandatory for writing to ZBD drives".to_string());
    }
    if writes && queued && spec.iodepth > 1 {
        // fio waits for a job's writes in flight before it resets a zone
        // (io_u_quiesce); ioscope's zone state moves at issue and cannot.
        return Err(format!(
            "{name}: zonemode=zbd writes on a zoned block device at iodepth={} on a queued \
             engine are not supported by ioscope yet (a zone reset must wait for the writes \
             in flight); use iodepth=1 or a synchronous engine",
            spec.iodepth
        ));
    }
    let dev = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("{name}: cannot open it to reset zones: {e}"))?;
    let size = device_size(&dev).map_err(|e| format!("{name}: size: {e}"))?;
    let reported = report_zones(dev.as_raw_fd(), size)
        .map_err(|e| format!("{name}: report zones failed: {e}"))?;
    let Some(first) = reported.first() else {
        return Err(format!("{name}: the device reported no zones"));
    };
    let zone_size = first.len;
    let mut zones = Vec::with_capacity(reported.len());
    for (i, z) in reported.iter().enumerate() {
        if z.kind != Zone::SEQ_WRITE_REQUIRED {
            return Err(format!(
                "{name}: zone {i} (at {}) is not sequential-write-required (type {}): \
                 conventional and sequential-write-preferred zones are not supported by \
                 ioscope yet",
                z.start, z.kind
            ));
        }
        if matches!(z.cond, Zone::COND_OFFLINE | Zone::COND_READONLY) {
            return Err(format!(
                "{name}: zone {i} (at {}) is offline or read-only, which ioscope's zbd mode \
                 does not handle yet",
                z.start
            ));
        }
        if z.start != i as u64 * zone_size {
            return Err(format!(
                "{name}: invalid zone data (zone {i} at {})",
                z.start
            ));
        }
        zones.push(DeviceZone {
            start: z.start,
            capacity: z.capacity,
            wp: if z.cond == Zone::COND_FULL {
                z.start + z.capacity
            } else {
                z.wp
            },
            open: matches!(z.cond, Zone::COND_IMP_OPEN | Zone::COND_EXP_OPEN),
        });
    }
    let max_open = open_limit(spec, path, model)?;
    Ok(DeviceZones {
        zones,
        zone_size,
        max_open,
        reset: Arc::new(Resetter {
            path: path.to_path_buf(),
            dev,
        }),
    })
}

/// fio's `zbd_set_max_open_zones`: the job's limit, within a host-managed
/// device's own (unless `ignore_zone_limits`), or the device's when the
/// job sets none.
fn open_limit(spec: &JobSpec, path: &Path, model: ZonedModel) -> Result<u32, String> {
    let asked = spec.zones.max_open_zones;
    let device = match model {
        ZonedModel::HostManaged if !spec.zones.ignore_zone_limits => max_open_zones(path)
            .map_err(|e| format!("{}: get max open zones failed: {e}", path.display()))?,
        _ => 0,
    };
    let limit = match (device, asked) {
        (0, _) => asked,
        (_, 0) => device,
        _ if asked <= device => asked,
        _ => {
            return Err(format!(
                "Specified --max_open_zones ({asked}) is larger than max ({device})"
            ))
        }
    };
    if spec.zones.job_max_open_zones > 0 && limit == 0 {
        return Err(
            "'job_max_open_zones' cannot be used without a global open zones limit".to_string(),
        );
    }
    Ok(limit)
}

/// A zoned block device's zone resets, on a descriptor of its own kept
/// for the run (the reset ioctl needs one open for writing).
#[derive(Debug)]
struct Resetter {
    path: PathBuf,
    dev: std::fs::File,
}

impl ZoneReset for Resetter {
    fn reset(&self, start: u64, len: u64) -> Result<(), String> {
        reset_zones(self.dev.as_raw_fd(), start, len).map_err(|e| {
            format!(
                "{}: resetting wp for {} sectors at sector {} failed: {e}",
                self.path.display(),
                len / 512,
                start / 512
            )
        })
    }
}

/// The size of the block device open as `dev`.
fn device_size(dev: &std::fs::File) -> std::io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut dev = dev;
    dev.seek(SeekFrom::End(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zbd_checks_follow_fio() {
        let mut spec = JobSpec::fio_defaults("z");
        assert!(check(&spec).is_ok());
        spec.zones.mode = ZoneMode::Strided;
        assert!(check(&spec).is_ok());
        spec.zones.mode = ZoneMode::Zbd;
        let err = check(&spec).unwrap_err();
        assert!(err.starts_with("zonemode=zbd needs zonesize"), "{err}");
        spec.zones.size = 1 << 20;
        assert!(check(&spec).is_ok());
        spec.zones.capacity = 2 << 20;
        assert!(check(&spec).unwrap_err().starts_with("zonecapacity="));
        spec.zones.capacity = 0;
        spec.zones.job_max_open_zones = 2;
        assert!(check(&spec).unwrap_err().starts_with("job_max_open_zones"));
        spec.zones.max_open_zones = 4;
        assert!(check(&spec).is_ok());
        spec.numjobs = 2;
        assert!(check(&spec).is_ok());
    }

    /// A block device may give its own zone size (checked once it is
    /// open); an NVMe generic device is refused before the run.
    #[test]
    fn devices_defer_the_zone_size_and_generic_ones_are_refused() {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.filenames = vec!["/dev/nvme0n2".into()];
        assert!(check(&spec).is_ok());
        spec.filenames = vec!["/dev/ng0n2".into()];
        let err = check(&spec).unwrap_err();
        assert!(
            err.starts_with("/dev/ng0n2: zonemode=zbd on a character device"),
            "{err}"
        );
        spec.zones.size = 1 << 20;
        assert!(check(&spec).is_err());
    }
}
