//! What the runner does with zones: `zonemode=strided` is the workload's
//! walk and needs nothing here; `zonemode=zbd` is emulated on regular
//! files and block devices without zones (the workload keeps the write
//! pointers, one set per file for every job that names it), with fio's
//! checks before the run and on the opened targets.
//! Zoned block devices are refused.

use ioscope_engine::{zoned_model, TargetKind, ZonedModel};
use ioscope_job::{JobSpec, VerifyMethod, ZoneMode};

use std::collections::HashMap;
use std::path::PathBuf;

use crate::files::{file_paths, WorkerFile};

/// fio's zbd checks that need no target (zbd.c `init_zone_info`,
/// `zbd_setup_files`, `zbd_verify_bs`, `zbd_adjust_block`), and what
/// ioscope's emulation does not do yet.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let z = &spec.zones;
    if z.mode != ZoneMode::Zbd {
        return Ok(());
    }
    if z.size == 0 {
        let paths = file_paths(spec, 0);
        if let Some(dev) = paths.iter().find(|p| p.starts_with("/dev/")) {
            // fio reads a zoned device's zones (and their size) from the
            // device: a zone report, or NVMe passthrough for /dev/ngXnY.
            let nvme = dev
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("ng"));
            let what = match nvme {
                true => "an NVMe generic character device",
                false => "a zoned block device",
            };
            return Err(format!(
                "{}: zonemode=zbd without zonesize takes the zones from the device ({what}), \
                 which is not supported by ioscope yet; a device without zones needs zonesize",
                dev.display()
            ));
        }
        return Err(
            "zonemode=zbd needs zonesize: specifying the zone size is mandatory for \
             a regular file or a block device without zones (reading a zoned block \
             device's own zone size is not supported by ioscope yet)"
                .to_string(),
        );
    }
    if z.size < 512 {
        return Err(format!(
            "zonesize={} is too small: the zone size must be at least 512 bytes for zonemode=zbd",
            z.size
        ));
    }
    if z.capacity > z.size {
        return Err(format!(
            "zonecapacity={} is larger than zonesize={}",
            z.capacity, z.size
        ));
    }
    if z.job_max_open_zones > 0 && z.max_open_zones == 0 {
        return Err(
            "job_max_open_zones cannot be used without a global open zones limit (max_open_zones)"
                .to_string(),
        );
    }
    let kind = spec.rw.kind;
    if kind.writes() {
        let (min, max) = (spec.bs.write.min(), spec.bs.write.max());
        if max > z.size {
            return Err(format!(
                "bs={max} is larger than zonesize={}: with zonemode=zbd a write must fit in a zone",
                z.size
            ));
        }
        let capacity = if z.capacity == 0 { z.size } else { z.capacity };
        if capacity < min {
            return Err(format!(
                "zonecapacity={capacity} is smaller than the smallest write block size {min}"
            ));
        }
    }
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

/// fio's zbd checks on the opened files: a zoned block device is refused,
/// and a file must hold at least one zone.
pub(crate) fn check_targets(spec: &JobSpec, files: &[WorkerFile]) -> Result<(), String> {
    if spec.zones.mode != ZoneMode::Zbd {
        return Ok(());
    }
    let zone = spec.zones.size;
    for f in files.iter().filter(|f| f.target.is_some()) {
        let path = f.path.display();
        if f.target.as_ref().map(|t| t.kind()) == Some(TargetKind::CharDevice) {
            return Err(format!(
                "{path}: zonemode=zbd on a character device (an NVMe generic device, whose \
                 namespace may be zoned) is not supported by ioscope yet"
            ));
        }
        match zoned_model(&f.path) {
            Ok(ZonedModel::None) => {}
            Ok(model) => {
                return Err(format!(
                    "{path}: zonemode=zbd on a zoned block device ({}) is not supported by \
                     ioscope yet",
                    model.name()
                ))
            }
            Err(e) => return Err(format!("{path}: zone model: {e}")),
        }
        if f.file_size < zone {
            return Err(format!(
                "{path}: file/device size {} is smaller than zone size {zone} (zonemode=zbd)",
                f.file_size
            ));
        }
    }
    Ok(())
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
}
