//! Zones: fio's `zonemode` and its companions (`zonesize`, `zonerange`,
//! `zoneskip`, `zonecapacity`, and the zoned block device limits), and
//! sizes given as a number of zones (`size=4z`).

use crate::spec::{JobSpec, SizeSpec};

/// fio's `zonemode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneMode {
    /// No zones: `zonesize` and the rest must not be given.
    None,
    /// I/O stays in one zone of `zonerange` bytes until `zonesize` bytes
    /// were transferred, then skips `zoneskip` bytes past the zone.
    Strided,
    /// Zoned block device: writes at write pointers, zone resets and
    /// open-zone limits.
    Zbd,
}

impl ZoneMode {
    /// fio's name for it.
    pub fn name(self) -> &'static str {
        match self {
            ZoneMode::None => "none",
            ZoneMode::Strided => "strided",
            ZoneMode::Zbd => "zbd",
        }
    }
}

/// Values given as a number of zones (`size=4z`), fio's `*_nz`: turned
/// into bytes once the zone size is known. 0 for not given in zones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZoneCounts {
    pub size: u32,
    pub io_size: u32,
    pub offset: u32,
    pub offset_increment: u32,
    pub skip: u32,
}

impl ZoneCounts {
    pub fn any(&self) -> bool {
        *self != ZoneCounts::default()
    }
}

/// A job's zone settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneSpec {
    /// `zonemode`, default none.
    pub mode: ZoneMode,
    /// `zonesize`: strided, bytes per zone visit; zbd, the zone size
    /// (0: the device's).
    pub size: u64,
    /// `zonerange`: strided, the size of a zone (defaults to `zonesize`).
    pub range: u64,
    /// `zoneskip`: strided, bytes skipped after each zone visit.
    pub skip: u64,
    /// `zonecapacity`: zbd on a device without zones, each zone's
    /// writable part (0: the zone size).
    pub capacity: u64,
    /// `read_beyond_wp`, default false.
    pub read_beyond_wp: bool,
    /// `max_open_zones`, 0 for the device's limit.
    pub max_open_zones: u32,
    /// `job_max_open_zones`, 0 for none.
    pub job_max_open_zones: u32,
    /// `ignore_zone_limits`, default false.
    pub ignore_zone_limits: bool,
    /// `zone_reset_threshold`, a fraction; None when not given.
    pub reset_threshold: Option<f64>,
    /// `zone_reset_frequency`, a fraction; None when not given.
    pub reset_frequency: Option<f64>,
    /// `write_zone_remainder` (fio 3.42), default false: the end of a zone
    /// too small for a block is written with a smaller write, not
    /// finished with a Zone Finish.
    pub write_remainder: bool,
    /// `recover_zbd_write_error` (fio 3.42), default false: after a failed
    /// write to a zone with a write pointer, the device's write pointer is
    /// moved to where the job's later writes expect it.
    pub recover_write_error: bool,
    /// Values given in zones that still await a zone size: only zbd on a
    /// real zoned device without `zonesize` leaves any here.
    pub counts: ZoneCounts,
}

impl ZoneSpec {
    /// Every field zero or off, as fio's options are before its defaults.
    pub(crate) fn blank() -> ZoneSpec {
        ZoneSpec {
            mode: ZoneMode::None,
            size: 0,
            range: 0,
            skip: 0,
            capacity: 0,
            read_beyond_wp: false,
            max_open_zones: 0,
            job_max_open_zones: 0,
            ignore_zone_limits: false,
            reset_threshold: None,
            reset_frequency: None,
            write_remainder: false,
            recover_write_error: false,
            counts: ZoneCounts::default(),
        }
    }
}

/// fio's zone fixups (init.c `fixup_options`, zbd.c
/// `zbd_recalc_options_with_zone_granularity`): the checks between
/// `zonemode` and `zonesize`, `zonerange`'s default, strided mode turned
/// off for a job of several open files, and values in zones turned into
/// bytes.
pub(crate) fn resolve(spec: &mut JobSpec) -> Result<(), String> {
    let open_files = spec.file_handling.openfiles;
    let z = &mut spec.zones;
    match z.mode {
        ZoneMode::None if z.size > 0 => {
            return Err(format!(
                "zonemode=none and zonesize={} are not compatible (give zonemode=strided or zonemode=zbd)",
                z.size
            ))
        }
        ZoneMode::Strided if z.size == 0 => {
            return Err("zonemode=strided needs zonesize".to_string());
        }
        // fio: "Strided zone mode only really works with 1 file", and
        // runs a job without zones where `openfiles` is set above 1. It
        // tests the option as given, before it defaults to `nrfiles`:
        // several files without it keep their zones (one count of zone
        // bytes for them all).
        ZoneMode::Strided if open_files > 1 => z.mode = ZoneMode::None,
        _ => {}
    }
    if z.mode == ZoneMode::Strided && z.range == 0 {
        z.range = z.size;
    }
    let counts = z.counts;
    if !counts.any() {
        return Ok(());
    }
    let zone = z.size;
    if zone == 0 {
        if z.mode == ZoneMode::Zbd {
            // The device's zone size, read once the target is open.
            return Ok(());
        }
        let (name, n) = [
            ("size", counts.size),
            ("io_size", counts.io_size),
            ("offset", counts.offset),
            ("offset_increment", counts.offset_increment),
            ("zoneskip", counts.skip),
        ]
        .into_iter()
        .find(|&(_, n)| n > 0)
        .unwrap_or(("size", 0));
        return Err(format!(
            "{name}={n}z is a number of zones, which needs a zone size (zonemode=strided with zonesize=, or zonemode=zbd)"
        ));
    }
    let bytes = |n: u32| {
        u64::from(n)
            .checked_mul(zone)
            .filter(|&b| b <= i64::MAX as u64)
    };
    let overflow =
        |name: &str, n: u32| format!("{name}={n}z is too large ({n} zones of {zone} bytes)");
    if counts.size > 0 {
        let b = bytes(counts.size).ok_or_else(|| overflow("size", counts.size))?;
        spec.size = Some(SizeSpec::Bytes(b));
    }
    if counts.io_size > 0 {
        let b = bytes(counts.io_size).ok_or_else(|| overflow("io_size", counts.io_size))?;
        spec.io_size = Some(b);
    }
    if counts.offset > 0 {
        let b = bytes(counts.offset).ok_or_else(|| overflow("offset", counts.offset))?;
        spec.offset = SizeSpec::Bytes(b);
    }
    if counts.offset_increment > 0 {
        let b = bytes(counts.offset_increment)
            .ok_or_else(|| overflow("offset_increment", counts.offset_increment))?;
        spec.offset_increment = SizeSpec::Bytes(b);
    }
    if counts.skip > 0 {
        spec.zones.skip = bytes(counts.skip).ok_or_else(|| overflow("zoneskip", counts.skip))?;
    }
    spec.zones.counts = ZoneCounts::default();
    Ok(())
}

/// A value written as a number of zones (`4z`): Some(count), or an error
/// for a malformed one (fio: "unexpected zone value"); None for a value
/// that does not end in `z`.
pub(crate) fn zone_count(text: &str) -> Option<Result<u32, String>> {
    let digits = text.trim().strip_suffix('z')?;
    Some(
        digits
            .parse::<u32>()
            .map_err(|_| format!("'{text}' is not a number of zones (e.g. 4z)")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(f: impl Fn(&mut JobSpec)) -> Result<JobSpec, String> {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Strided;
        spec.zones.size = 1 << 20;
        f(&mut spec);
        resolve(&mut spec).map(|()| spec)
    }

    #[test]
    fn fios_fixups_apply() {
        // zonerange defaults to zonesize; counts become zonesize multiples.
        let s = strided(|s| {
            s.zones.counts.size = 8;
            s.zones.counts.offset = 1;
            s.zones.counts.skip = 2;
        })
        .unwrap();
        assert_eq!(s.zones.range, 1 << 20);
        assert_eq!(s.size, Some(SizeSpec::Bytes(8 << 20)));
        assert_eq!(s.offset, SizeSpec::Bytes(1 << 20));
        assert_eq!(s.zones.skip, 2 << 20);
        // fio drops strided mode where openfiles is set above 1, and
        // keeps it for several files without it.
        let s = strided(|s| s.nrfiles = 2).unwrap();
        assert_eq!(s.zones.mode, ZoneMode::Strided);
        let s = strided(|s| {
            s.nrfiles = 2;
            s.file_handling.openfiles = 2;
        })
        .unwrap();
        assert_eq!(s.zones.mode, ZoneMode::None);
        assert!(strided(|s| s.zones.size = 0).is_err());
        let err = strided(|s| {
            s.zones.mode = ZoneMode::None;
            s.zones.size = 0;
            s.zones.counts.io_size = 3;
        })
        .unwrap_err();
        assert!(err.starts_with("io_size=3z is a number of zones"), "{err}");
    }

    #[test]
    fn zone_counts_are_whole_numbers_with_a_z() {
        assert_eq!(zone_count("4z"), Some(Ok(4)));
        assert_eq!(zone_count("0z"), Some(Ok(0)));
        assert_eq!(zone_count("4k"), None);
        assert!(matches!(zone_count("1.5z"), Some(Err(_))));
        assert!(matches!(zone_count("z"), Some(Err(_))));
    }
}
