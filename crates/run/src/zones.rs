//! What the runner does with zones: `zonemode=strided` is the workload's
//! walk and needs nothing here; `zonemode=zbd` (write pointers, zone
//! resets, open-zone limits) is refused before any file is opened.

use ioscope_job::{JobSpec, ZoneMode};

/// The plan step's refusal of what ioscope's zones cannot do yet.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    if spec.zones.mode == ZoneMode::Zbd {
        return Err(
            "zonemode=zbd is not supported by ioscope yet: writes at zone write pointers, \
             zone resets and open-zone limits (emulated on files, or through the kernel's \
             zone ioctls on a zoned device) are not implemented; zonemode=strided and \
             zonemode=none are"
                .to_string(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zbd_is_refused_by_name_and_strided_passes() {
        let mut spec = JobSpec::fio_defaults("z");
        assert!(check(&spec).is_ok());
        spec.zones.mode = ZoneMode::Strided;
        assert!(check(&spec).is_ok());
        spec.zones.mode = ZoneMode::Zbd;
        let err = check(&spec).unwrap_err();
        assert!(err.starts_with("zonemode=zbd is not supported"), "{err}");
    }
}
