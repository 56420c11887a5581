//! The logs fio writes beside its report: bandwidth, IOPS, latency and
//! latency histogram logs, and how their lines are made.

use super::{Kind, OptionDef, Value};
use crate::log_spec::LogWindowValue;

const LOGGING: OptionDef = OptionDef::of("Logs");

const WINDOW_VALUES: &[(&str, &str)] = &[
    ("avg", "Log average value over the window"),
    ("max", "Log maximum value in the window"),
    (
        "both",
        "Log both average and maximum values over the window",
    ),
    ("0", "Alias for 'avg'"),
    ("1", "Alias for 'max'"),
];

/// A log's file name prefix: the value, or empty (the job's name) when
/// the option is given bare.
fn prefix(v: &Value) -> Option<String> {
    Some(v.text.to_string())
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "write_bw_log",
        kind: Kind::OptionalText,
        help: "Write log of bandwidth during run (PREFIX_bw.N.log; the job's name when no prefix is given)",
        apply: |s, v| {
            s.spec.logs.bw = prefix(v);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "write_lat_log",
        kind: Kind::OptionalText,
        help: "Write log of latency during run (PREFIX_slat.N.log, PREFIX_clat.N.log, PREFIX_lat.N.log)",
        apply: |s, v| {
            s.spec.logs.lat = prefix(v);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "write_iops_log",
        kind: Kind::OptionalText,
        help: "Write log of IOPS during run (PREFIX_iops.N.log)",
        apply: |s, v| {
            s.spec.logs.iops = prefix(v);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "write_hist_log",
        kind: Kind::OptionalText,
        help: "Write log of completion latency histograms during run (PREFIX_clat_hist.N.log)",
        apply: |s, v| {
            s.spec.logs.hist = prefix(v);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_entries",
        kind: Kind::Int,
        default: "1024",
        help: "Initial number of entries in a log buffer (it grows as needed)",
        // fio's range: DEF_LOG_ENTRIES to MAX_LOG_ENTRIES (1024 to 1 Mi).
        apply: |s, v| {
            let n = v.uint(1024)?;
            if n > 1 << 20 {
                return Err(format!("'{}' is above the maximum of {}", v.text, 1 << 20));
            }
            s.spec.logs.entries = n;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_avg_msec",
        kind: Kind::Int,
        default: "0",
        help: "Average bw/iops/lat logs over this period of time, in ms (0 logs every I/O)",
        apply: |s, v| {
            s.spec.logs.avg_msec = u64::from(v.uint(0)?);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_window_value",
        aliases: &["log_max_value"],
        kind: Kind::Choice(WINDOW_VALUES),
        default: "avg",
        help: "Log max, average or both sample in a window (with log_avg_msec)",
        apply: |s, v| {
            s.spec.logs.window_value = v.pick(&[
                ("avg", LogWindowValue::Avg),
                ("max", LogWindowValue::Max),
                ("both", LogWindowValue::Both),
                ("0", LogWindowValue::Avg),
                ("1", LogWindowValue::Max),
            ])?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_hist_msec",
        kind: Kind::Int,
        default: "0",
        help: "Dump completion latency histograms at frequency of this time value, in ms",
        apply: |s, v| {
            s.spec.logs.hist_msec = u64::from(v.uint(0)?);
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_hist_coarseness",
        kind: Kind::Int,
        default: "0",
        help: "Integer in range [0,6]: the histogram log sums 2^N buckets into one column",
        apply: |s, v| {
            let n = v.uint(0)?;
            if n > 6 {
                return Err(format!("'{n}' is above 6 (expected 0 to 6)"));
            }
            s.spec.logs.hist_coarseness = n;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_offset",
        kind: Kind::Bool,
        default: "0",
        help: "Include offset of IO for each log entry",
        apply: |s, v| {
            s.spec.logs.offset = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_prio",
        kind: Kind::Bool,
        default: "0",
        help: "Include IO priority value for each log entry (16-bit hexadecimal)",
        apply: |s, v| {
            s.spec.logs.prio = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_issue_time",
        kind: Kind::Bool,
        default: "0",
        help: "Include IO issue time (ns since the job started) in the clat and slat logs (needs write_lat_log and log_offset)",
        apply: |s, v| {
            s.spec.logs.issue_time = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "per_job_logs",
        kind: Kind::Bool,
        default: "1",
        help: "Include job number in generated log files or not",
        apply: |s, v| {
            s.spec.logs.per_job = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_compression",
        kind: Kind::Size,
        default: "0",
        help: "Log in compressed chunks of this size (1k to 512m; with log_store_compressed, the size of each zlib stream's samples)",
        apply: |s, v| {
            let n = v.size()?;
            if n != 0 && !(1024..=512 << 20).contains(&n) {
                return Err(format!("{n} is outside 1024 to 536870912 bytes"));
            }
            s.spec.logs.compression = n;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_store_compressed",
        kind: Kind::Bool,
        default: "0",
        help: "Store logs in a compressed format (PREFIX_TYPE.N.log.fz; read them with --inflate-log)",
        apply: |s, v| {
            s.spec.logs.store_compressed = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_alternate_epoch",
        aliases: &["log_unix_epoch"],
        kind: Kind::Bool,
        default: "0",
        help: "Use alternate epoch time in log files: that of clock_gettime with log_alternate_epoch_clock_id",
        apply: |s, v| {
            s.spec.logs.alternate_epoch = v.bool()?;
            Ok(())
        },
        ..LOGGING
    },
    OptionDef {
        name: "log_alternate_epoch_clock_id",
        kind: Kind::Int,
        default: "0",
        help: "The clock_gettime clock id whose epoch log_alternate_epoch uses (0 is CLOCK_REALTIME)",
        apply: |s, v| {
            s.spec.logs.alternate_epoch_clock_id =
                i32::try_from(v.uint(0)?).map_err(|_| "too large for a clock id".to_string())?;
            Ok(())
        },
        ..LOGGING
    },
];
