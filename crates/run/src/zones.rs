//! What the runner does with zones: `zonemode=strided` is the workload's
//! walk and needs nothing here; `zonemode=zbd` is emulated on regular
//! files, block devices without zones and NVMe namespaces that are not
//! zoned (the workload keeps the write pointers, one set per file for
//! every job that names it), with fio's checks before the run and on the
//! opened targets.
//! On a zoned block device, or a zoned namespace's NVMe generic char
//! device, the zones are the device's, read once for the run, and a reset
//! or a finish is the device's.

use ioscope_engine::nvme::ZonedNamespaceIo;
use ioscope_engine::{
    finish_zones, max_open_zones, move_write_pointer, report_zone, report_zones, reset_zones,
    zoned_model, NvmeIdentity, Target, Zone, ZonedModel,
};
use ioscope_job::{JobSpec, VerifyMethod, ZoneMode};
use ioscope_workload::{DeviceZone, DeviceZones, ZoneBook, ZoneDevice};

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;

use crate::files::{file_paths, WorkerFile};

/// fio's zbd checks that need no target (zbd.c `init_zone_info`,
/// `zbd_setup_files`, `zbd_verify_bs`, `zbd_adjust_block`), and what
/// ioscope's emulation does not do yet.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let z = &spec.zones;
    if z.mode != ZoneMode::Zbd {
        return Ok(());
    }
    let paths = file_paths(spec, 0);
    if z.size == 0 {
        // A zoned device gives its own zone size, which the target check
        // reads (and there the other size checks are made).
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
/// against the block sizes (zbd.c `zbd_verify_bs`, `zbd_verify_sizes`).
fn check_sizes(spec: &JobSpec, size: u64) -> Result<(), String> {
    let z = &spec.zones;
    if spec.rw.kind.trims() && spec.bs.trim.min() != size {
        return Err(format!(
            "trim block size {} is not the zone size {size}",
            spec.bs.trim.min()
        ));
    }
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

/// What ioscope's zbd mode does not do yet, whatever the zones, what a
/// trim (a zone reset) needs, what verify cannot have with zones, and what
/// recover_zbd_write_error needs.
fn check_ops(spec: &JobSpec) -> Result<(), String> {
    let kind = spec.rw.kind;
    if spec.zones.recover_write_error && kind.writes() {
        // fio 3.42's zbd_setup_files, in its words: without
        // continue_on_error the first failed write ends the job.
        if !spec.errors.any() {
            return Err(
                "recover_zbd_write_error works only when continue_on_error is set".to_string(),
            );
        }
        // With writes in flight a write pointer is moved with zeroes,
        // which would fail the blocks verify checks.
        if spec.verify.method != VerifyMethod::None && !crate::plan::backend(spec).is_sync() {
            return Err(
                "recover_zbd_write_error for async IO engines does not support verify".to_string(),
            );
        }
    }
    if kind.trims() && spec.bs.trim.min() != spec.bs.trim.max() {
        // fio's zbd_verify_bs: a trim is a zone reset, one zone each.
        return Err("bsrange and bssplit are not allowed for trim with zonemode=zbd".to_string());
    }
    if spec.verify.method != VerifyMethod::None {
        if spec.verify.experimental {
            // fio 3.33 replays the write order zone by zone; later fio
            // refuses it, as ioscope does.
            return Err("zonemode=zbd does not support experimental verify".to_string());
        }
        if spec.zones.reset_frequency.is_some_and(|f| f != 0.0) {
            // fio 3.33 stops on an assertion (zbd.c): a reset during the
            // writes would lose blocks that are yet to be checked.
            return Err(
                "zone_reset_frequency with verify: a zone reset during the writes would lose \
                 blocks before they are checked (fio 3.33 aborts on an assertion)"
                    .to_string(),
            );
        }
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
) -> Result<Option<u64>, String> {
    if spec.zones.mode != ZoneMode::Zbd {
        return Ok(None);
    }
    let mut device_zone = None;
    for f in files {
        let Some(target) = &f.target else { continue };
        let path = f.path.display();
        let source = match zone_source(target) {
            Ok(source) => source,
            Err(e) => return Err(format!("{path}: zone model: {e}")),
        };
        let zone = match source {
            Source::Emulated if spec.zones.size == 0 => {
                return Err(format!(
                    "{path}: Specifying the zone size is mandatory for regular file/block \
                     device with --zonemode=zbd"
                ))
            }
            Source::Emulated => spec.zones.size,
            source => {
                let size = book.device(&f.path, || read_device(spec, target, source))?;
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

/// Where a target's zones come from (fio's `zbd_get_zoned_model`: the
/// block layer's zone model, or for an NVMe generic char device the
/// Zoned Namespace command set's Identify).
#[derive(Clone, Copy)]
enum Source<'a> {
    /// No zones of its own: ioscope cuts it into zones as fio does.
    Emulated,
    /// A zoned block device (host-managed or host-aware).
    Block(ZonedModel),
    /// A zoned namespace behind its generic char device, which fio treats
    /// as host-managed.
    Namespace(&'a NvmeIdentity),
}

fn zone_source(target: &Target) -> std::io::Result<Source<'_>> {
    if let Some(id) = target.nvme() {
        return Ok(match id.zoned {
            Some(_) => Source::Namespace(id),
            None => Source::Emulated,
        });
    }
    Ok(match zoned_model(target.path())? {
        ZonedModel::None => Source::Emulated,
        model => Source::Block(model),
    })
}

/// The zones of the zoned device `target` and the open-zone limit the
/// jobs on it use, with fio's checks (zbd.c `zbd_using_direct_io`,
/// `parse_zone_info`, `zbd_set_max_open_zones`).
fn read_device(spec: &JobSpec, target: &Target, source: Source) -> Result<DeviceZones, String> {
    let path = target.path();
    let name = path.display();
    let writes = spec.rw.kind.writes();
    if writes && !spec.direct && matches!(source, Source::Block(ZonedModel::HostManaged)) {
        // fio asks it of block devices only: a char device has no page
        // cache.
        return Err("Using direct I/O is mandatory for writing to ZBD drives".to_string());
    }
    // A descriptor of the run's own: resets and finishes need one open
    // for writing.
    let dev = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("{name}: cannot open it to reset zones: {e}"))?;
    let (reported, device_limit, device): (_, _, Arc<dyn ZoneDevice>) = match source {
        Source::Namespace(id) => {
            let block = id
                .geometry(spec.engine_options.pi.pi_act)
                .map_or(id.namespace.block_size(), |g| u64::from(g.block()));
            let io = ZonedNamespaceIo {
                fd: dev.as_raw_fd(),
                nsid: id.nsid,
                block,
                zone_blocks: id.zone_blocks().unwrap_or(0),
            };
            if io.zone_blocks == 0 {
                return Err(format!(
                    "{name}: the zoned namespace reports a zone size of 0 for its LBA format"
                ));
            }
            let zones = io
                .report_zones(target.size())
                .map_err(|e| format!("{name}: report zones failed: {e}"))?;
            let limit = id.zoned.as_ref().map_or(0, |z| z.max_open_zones());
            let device = Arc::new(NamespaceZones {
                path: path.to_path_buf(),
                io,
                _dev: dev,
            });
            (zones, limit, device)
        }
        _ => {
            let zones = report_zones(dev.as_raw_fd(), target.size())
                .map_err(|e| format!("{name}: report zones failed: {e}"))?;
            let limit = max_open_zones(path)
                .map_err(|e| format!("{name}: get max open zones failed: {e}"))?;
            let device = Arc::new(BlockZones {
                path: path.to_path_buf(),
                dev,
            });
            (zones, limit, device)
        }
    };
    let Some(first) = reported.first() else {
        return Err(format!("{name}: the device reported no zones"));
    };
    let zone_size = first.len;
    let mut zones = Vec::with_capacity(reported.len());
    for (i, z) in reported.iter().enumerate() {
        // fio 3.33 (oslib/linux-blkzoned.c, zbd.c parse_zone_info): only a
        // sequential-write-required zone has a write pointer to follow; a
        // conventional or sequential-write-preferred one takes any I/O as
        // chosen; a read-only zone is offline, which no I/O uses.
        let has_wp = match z.kind {
            Zone::CONVENTIONAL | Zone::SEQ_WRITE_PREFERRED => false,
            Zone::SEQ_WRITE_REQUIRED => true,
            kind => {
                return Err(format!(
                    "{name}: invalid type {kind} for zone {i} (at {})",
                    z.start
                ))
            }
        };
        let offline = matches!(z.cond, Zone::COND_OFFLINE | Zone::COND_READONLY);
        if z.start != i as u64 * zone_size {
            return Err(format!(
                "{name}: invalid zone data (zone {i} at {})",
                z.start
            ));
        }
        zones.push(DeviceZone {
            start: z.start,
            capacity: z.capacity,
            wp: match z.cond {
                _ if offline => z.start,
                Zone::COND_NOT_WP | Zone::COND_FULL => z.start + z.capacity,
                _ => z.wp,
            },
            open: matches!(z.cond, Zone::COND_IMP_OPEN | Zone::COND_EXP_OPEN),
            has_wp,
            offline,
        });
    }
    let host_managed = !matches!(source, Source::Block(ZonedModel::HostAware));
    let max_open = open_limit(spec, host_managed.then_some(device_limit))?;
    Ok(DeviceZones {
        zones,
        zone_size,
        max_open,
        device,
    })
}

/// fio's `zbd_set_max_open_zones`: the job's limit, within a host-managed
/// device's own `device` limit (0: none; unless `ignore_zone_limits`), or
/// the device's when the job sets none. A host-aware device has no limit
/// of its own (None).
fn open_limit(spec: &JobSpec, device: Option<u32>) -> Result<u32, String> {
    let asked = spec.zones.max_open_zones;
    let device = match device {
        Some(limit) if !spec.zones.ignore_zone_limits => limit,
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

/// A zoned block device's zone resets and finishes, on a descriptor of
/// its own kept for the run (the zone ioctls need one open for writing).
#[derive(Debug)]
struct BlockZones {
    path: PathBuf,
    dev: File,
}

impl ZoneDevice for BlockZones {
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

    fn finish(&self, start: u64, len: u64) -> Result<(), String> {
        finish_zones(self.dev.as_raw_fd(), start, len).map_err(|e| {
            format!(
                "{}: finish zone at sector {} failed: {e}",
                self.path.display(),
                start / 512
            )
        })
    }

    fn write_pointer(&self, start: u64) -> Result<u64, String> {
        report_zone(self.dev.as_raw_fd(), start)
            .map(|z| z.wp)
            .map_err(|e| format!("{}: report zone failed: {e}", self.path.display()))
    }

    fn move_write_pointer(&self, wp: u64, len: u64, data: Option<&[u8]>) -> Result<(), String> {
        move_write_pointer(&self.path, wp, len, data).map_err(|e| {
            format!(
                "{}: moving wp for {} sectors at sector {} failed: {e}",
                self.path.display(),
                len / 512,
                wp / 512
            )
        })
    }
}

/// A zoned namespace's zone resets and finishes (Zone Management Send),
/// on a descriptor of its own kept for the run.
#[derive(Debug)]
struct NamespaceZones {
    path: PathBuf,
    /// Sends on `_dev`'s descriptor.
    io: ZonedNamespaceIo,
    _dev: File,
}

impl ZoneDevice for NamespaceZones {
    fn reset(&self, start: u64, len: u64) -> Result<(), String> {
        self.io.reset_zones(start, len).map_err(|e| {
            format!(
                "{}: resetting wp for {} bytes at {start} failed: {e}",
                self.path.display(),
                len
            )
        })
    }

    fn finish(&self, start: u64, len: u64) -> Result<(), String> {
        self.io.finish_zones(start, len).map_err(|e| {
            format!(
                "{}: finish zone at {start} failed: {e}",
                self.path.display()
            )
        })
    }

    fn write_pointer(&self, start: u64) -> Result<u64, String> {
        self.io
            .report_zone(start)
            .map(|z| z.wp)
            .map_err(|e| format!("{}: report zone failed: {e}", self.path.display()))
    }

    fn move_write_pointer(&self, wp: u64, len: u64, data: Option<&[u8]>) -> Result<(), String> {
        self.io.write_at(wp, len, data).map_err(|e| {
            format!(
                "{}: moving wp for {len} bytes at {wp} failed: {e}",
                self.path.display()
            )
        })
    }
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

    /// fio 3.42's refusals of recover_zbd_write_error, for jobs that
    /// write: without continue_on_error, and with verify on an engine
    /// whose writes are in flight together.
    #[test]
    fn write_error_recovery_needs_continue_on_error_and_no_async_verify() {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = 1 << 20;
        spec.zones.recover_write_error = true;
        assert!(check(&spec).is_ok(), "a reader");
        spec.rw.kind = ioscope_job::RwKind::Write;
        let err = check(&spec).unwrap_err();
        assert!(err.contains("works only when continue_on_error"), "{err}");
        spec.errors.continue_on[1] = true;
        spec.verify.method = VerifyMethod::Crc32c;
        assert!(check(&spec).is_ok(), "psync verifies");
        spec.ioengine = ioscope_engine::Backend::IoUring;
        let err = check(&spec).unwrap_err();
        assert!(
            err.contains("async IO engines does not support verify"),
            "{err}"
        );
        spec.verify.method = VerifyMethod::None;
        assert!(check(&spec).is_ok());
    }

    /// A device may give its own zone size (checked once it is open),
    /// whether a block device or an NVMe generic char device; a file may
    /// not.
    #[test]
    fn devices_defer_the_zone_size() {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        for dev in ["/dev/nvme0n2", "/dev/ng0n2"] {
            spec.filenames = vec![dev.into()];
            assert!(check(&spec).is_ok(), "{dev}");
        }
        spec.filenames = vec!["/tmp/zoned".into()];
        assert!(check(&spec).is_err());
    }
}
