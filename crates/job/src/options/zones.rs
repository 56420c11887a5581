//! Zones: `zonemode` and its companions (fio's "Zone" group).

use super::{Kind, OptionDef, Value};
use crate::zones::{zone_count, ZoneMode};

const ZONES: OptionDef = OptionDef::of("Zones");

const MODE_VALUES: &[(&str, &str)] = &[
    ("none", "no zoning"),
    (
        "strided",
        "strided mode - random I/O is restricted to a single zone",
    ),
    (
        "zbd",
        "zoned block device mode - random I/O selects one of multiple zones randomly",
    ),
];

/// fio's `ZBD_MAX_OPEN_ZONES`, the largest open-zone limit it takes.
const MAX_OPEN_ZONES: u32 = 4096;

fn open_zones(v: &Value) -> Result<u32, String> {
    let n = v.uint(0)?;
    if n > MAX_OPEN_ZONES {
        return Err(format!(
            "'{}' is above the maximum of {MAX_OPEN_ZONES}",
            v.text
        ));
    }
    Ok(n)
}

/// A fraction from 0 to 1 (fio's float list of one value, bounded 0..1).
fn fraction(v: &Value) -> Result<f64, String> {
    let f = v.float()?;
    if !(0.0..=1.0).contains(&f) {
        return Err(format!("'{}' is not between 0 and 1", v.text));
    }
    Ok(f)
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "zonemode",
        kind: Kind::Choice(MODE_VALUES),
        default: "none",
        help: "Mode for the zonesize, zonerange and zoneskip parameters",
        apply: |s, v| {
            s.spec.zones.mode = v.pick(&[
                ("none", ZoneMode::None),
                ("strided", ZoneMode::Strided),
                ("zbd", ZoneMode::Zbd),
            ])?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zonesize",
        kind: Kind::Size,
        default: "0",
        help: "Amount of data to read per zone",
        apply: |s, v| {
            s.spec.zones.size = v.size()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zonecapacity",
        kind: Kind::Size,
        default: "0",
        help: "Capacity per zone",
        apply: |s, v| {
            s.spec.zones.capacity = v.size()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zonerange",
        kind: Kind::Size,
        default: "0",
        help: "Give size of an IO zone",
        apply: |s, v| {
            s.spec.zones.range = v.size()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zoneskip",
        kind: Kind::Size,
        default: "0",
        help: "Space between IO zones (bytes, or zones with a z suffix: 2z)",
        apply: |s, v| {
            let zones = &mut s.spec.zones;
            match zone_count(v.text) {
                Some(n) => {
                    zones.skip = 0;
                    zones.counts.skip = n?;
                }
                None => {
                    zones.skip = v.size()?;
                    zones.counts.skip = 0;
                }
            }
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "read_beyond_wp",
        kind: Kind::Bool,
        default: "0",
        help: "Allow reads beyond the zone write pointer",
        apply: |s, v| {
            s.spec.zones.read_beyond_wp = v.bool()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "max_open_zones",
        kind: Kind::Int,
        default: "0",
        help: "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd",
        apply: |s, v| {
            s.spec.zones.max_open_zones = open_zones(v)?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "job_max_open_zones",
        kind: Kind::Int,
        default: "0",
        help: "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd by one thread/process",
        apply: |s, v| {
            s.spec.zones.job_max_open_zones = open_zones(v)?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "ignore_zone_limits",
        kind: Kind::Bool,
        default: "0",
        help: "Ignore the zone resource limits (max open/active zones) reported by the device",
        apply: |s, v| {
            s.spec.zones.ignore_zone_limits = v.bool()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zone_reset_threshold",
        kind: Kind::Float,
        help: "Zoned block device reset threshold",
        apply: |s, v| {
            s.spec.zones.reset_threshold = Some(fraction(v)?);
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "zone_reset_frequency",
        kind: Kind::Float,
        help: "Zoned block device zone reset frequency in HZ",
        apply: |s, v| {
            s.spec.zones.reset_frequency = Some(fraction(v)?);
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "write_zone_remainder",
        kind: Kind::Bool,
        default: "0",
        help: "When block size is unaligned, zones have small remainder write areas at ends. Fill them by write instead of zone finish operations for better performance.",
        apply: |s, v| {
            s.spec.zones.write_remainder = v.bool()?;
            Ok(())
        },
        ..ZONES
    },
    OptionDef {
        name: "recover_zbd_write_error",
        kind: Kind::Bool,
        default: "0",
        help: "Continue writes for sequential write required zones after recovering write errors with care for partial write pointer move",
        apply: |s, v| {
            s.spec.zones.recover_write_error = v.bool()?;
            Ok(())
        },
        ..ZONES
    },
];
