//! What is measured and how it is reported: units, percentiles, which
//! latencies are clocked, the clock, and group reports.

use super::{Kind, OptionDef};
use crate::misc_spec::UnifiedRw;
use crate::spec::ClockSourceOpt;
use crate::values;

const REPORTING: OptionDef = OptionDef::of("Measurements and reporting");

const CLOCK_VALUES: &[(&str, &str)] = &[
    ("gettimeofday", "Use gettimeofday(2) for timing (ioscope reads CLOCK_MONOTONIC instead: wall-clock time can jump during a run)"),
    ("clock_gettime", "Use clock_gettime(2) for timing"),
    ("cpu", "Use the CPU's time stamp counter"),
];
const UNIFIED_VALUES: &[(&str, &str)] = &[
    ("none", "Normal statistics reporting"),
    (
        "mixed",
        "Statistics are summed per data direction and reported together",
    ),
    (
        "both",
        "Statistics are reported normally, followed by the mixed statistics",
    ),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'mixed'"),
    ("2", "Alias for 'both'"),
];
const KB_BASE_VALUES: &[(&str, &str)] = &[
    (
        "1024",
        "Inputs invert IEC and SI prefixes (fio's compatibility mode)",
    ),
    ("1000", "Inputs use IEC and SI prefixes as defined"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "kb_base",
        kind: Kind::Choice(KB_BASE_VALUES),
        default: "1024",
        help: "Unit prefix interpretation for quantities of data (IEC and SI)",
        // A job file section applies it before its other options (jobs.rs).
        apply: |s, v| {
            s.spec.kb_base = v.pick(&[("1024", 1024), ("1000", 1000)])?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "percentile_list",
        kind: Kind::FloatList,
        default: "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99",
        help: "Specify a custom list of percentiles to report for completion latency",
        apply: |s, v| {
            s.spec.percentile_list = values::percentile_list(v.text)?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "clat_percentiles",
        kind: Kind::Bool,
        default: "1",
        help: "Enable the reporting of completion latency percentiles",
        apply: |s, v| {
            s.spec.clat_percentiles = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "lat_percentiles",
        kind: Kind::Bool,
        default: "0",
        help: "Enable the reporting of I/O latency percentiles",
        apply: |s, v| {
            s.spec.lat_percentiles = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "slat_percentiles",
        kind: Kind::Bool,
        default: "0",
        help: "Enable the reporting of submission latency percentiles",
        apply: |s, v| {
            s.spec.slat_percentiles = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "disable_lat",
        kind: Kind::Bool,
        default: "0",
        help: "Disable latency numbers",
        apply: |s, v| {
            s.spec.disable_lat = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "disable_clat",
        kind: Kind::Bool,
        default: "0",
        help: "Disable completion latency numbers",
        apply: |s, v| {
            s.spec.disable_clat = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "disable_slat",
        kind: Kind::Bool,
        default: "0",
        help: "Disable submission latency numbers",
        apply: |s, v| {
            s.spec.disable_slat = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "gtod_reduce",
        kind: Kind::Bool,
        default: "0",
        help: "Greatly reduce number of clock reads (sets the disable_* options)",
        // fio's gtod_reduce switches the latency clocks, the bandwidth
        // samples and the percentiles off; gtod_reduce=0 leaves them as
        // they are (str_gtod_reduce_cb), so a later option still sets each.
        apply: |s, v| {
            let on = v.bool()?;
            s.spec.gtod_reduce = on;
            if on {
                s.spec.disable_lat = true;
                s.spec.disable_clat = true;
                s.spec.disable_slat = true;
                s.spec.misc.disable_bw = true;
                s.spec.clat_percentiles = false;
                s.spec.lat_percentiles = false;
                s.spec.slat_percentiles = false;
            }
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "clocksource",
        kind: Kind::Choice(CLOCK_VALUES),
        // fio 3.33 shows no default and picks one when it starts (the CPU's
        // counter where it is reliable); ioscope's clock does the same
        // under this name.
        default: "cpu",
        help: "What type of timing source to use",
        apply: |s, v| {
            s.spec.clocksource = v.pick(&[
                ("gettimeofday", ClockSourceOpt::Gettimeofday),
                ("clock_gettime", ClockSourceOpt::ClockGettime),
                ("cpu", ClockSourceOpt::Cpu),
            ])?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "group_reporting",
        kind: Kind::Flag,
        help: "Do reporting on a per-group basis",
        apply: |s, v| {
            s.spec.group_reporting = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "unified_rw_reporting",
        kind: Kind::Choice(UNIFIED_VALUES),
        default: "none",
        help: "Unify reporting across data direction",
        apply: |s, v| {
            s.spec.misc.unified_rw = v.pick(&[
                ("none", UnifiedRw::Split),
                ("mixed", UnifiedRw::Mixed),
                ("both", UnifiedRw::Both),
                ("0", UnifiedRw::Split),
                ("1", UnifiedRw::Mixed),
                ("2", UnifiedRw::Both),
            ])?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "stats",
        kind: Kind::Bool,
        default: "1",
        help: "Enable collection of stats (0: the job is in no report)",
        apply: |s, v| {
            s.spec.misc.stats = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "block_error_percentiles",
        kind: Kind::Bool,
        default: "0",
        help: "Record trim block errors and make a histogram",
        apply: |s, v| {
            s.spec.misc.block_error_hist = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "disk_util",
        kind: Kind::Bool,
        default: "1",
        help: "Log disk utilization statistics",
        apply: |s, v| {
            s.spec.misc.disk_util = v.bool()?;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "bwavgtime",
        kind: Kind::Int,
        help: "Time window over which to calculate bandwidth (msec), default 500 \
               (with an averaged write_bw_log, the smaller of this and log_avg_msec)",
        apply: |s, v| {
            s.spec.misc.bw_avg_ms = Some(u64::from(v.uint(1)?));
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "iopsavgtime",
        kind: Kind::Int,
        help: "Time window over which to calculate IOPS (msec), default 500 \
               (with an averaged write_iops_log, the smaller of this and log_avg_msec)",
        apply: |s, v| {
            s.spec.misc.iops_avg_ms = Some(u64::from(v.uint(1)?));
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "significant_figures",
        kind: Kind::Int,
        default: "4",
        help: "Significant figures for output-format set to normal",
        apply: |s, v| {
            let n = v.uint(1)?;
            if n > 10 {
                return Err("expected 1 to 10".to_string());
            }
            s.spec.misc.sig_figs = n as u8;
            Ok(())
        },
        ..REPORTING
    },
    OptionDef {
        name: "unit_base",
        kind: Kind::Choice(UNIT_BASE_VALUES),
        default: "0",
        help: "Bit multiple of result summary data (8 for byte, 1 for bit)",
        apply: |s, v| {
            s.spec.misc.unit_bits = v.pick(&[("0", false), ("8", false), ("1", true)])?;
            Ok(())
        },
        ..REPORTING
    },
];

const UNIT_BASE_VALUES: &[(&str, &str)] = &[
    ("0", "Auto-detect"),
    ("8", "Normal (byte based)"),
    ("1", "Bit based"),
];
