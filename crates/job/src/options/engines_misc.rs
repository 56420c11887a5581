//! Options of the smaller engines ported from fio: filestat's
//! `stat_type`, cpuio's, exec's and e4defrag's.

use super::{Kind, OptionDef};
use ioscope_engine::StatType;

const ENGINE: OptionDef = OptionDef::of("I/O engine");

const STAT_TYPE_VALUES: &[(&str, &str)] = &[
    ("stat", "Use stat(2)"),
    ("lstat", "Use lstat(2)"),
    ("statx", "Use statx(2) if exists"),
];

const CPUMODE_VALUES: &[(&str, &str)] = &[
    ("noop", "NOOP instructions"),
    ("qsort", "QSORT computation"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "stat_type",
        kind: Kind::Choice(STAT_TYPE_VALUES),
        default: "stat",
        help: "Specify stat system call type to measure lookup/getattr performance",
        apply: |s, v| {
            s.spec.engines_misc.stat_type = v.pick(&[
                ("stat", StatType::Stat),
                ("lstat", StatType::Lstat),
                ("statx", StatType::Statx),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cpuload",
        kind: Kind::Int,
        help: "Use this percentage of CPU",
        apply: |s, v| {
            s.spec.engines_misc.cpuload = v.uint(0)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cpumode",
        kind: Kind::Choice(CPUMODE_VALUES),
        default: "noop",
        help: "Stress mode",
        apply: |s, v| {
            s.spec.engines_misc.cpu_qsort = v.pick(&[("noop", false), ("qsort", true)])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cpuchunks",
        kind: Kind::Int,
        default: "50000",
        help: "Length of the CPU burn cycles (usecs)",
        apply: |s, v| {
            s.spec.engines_misc.cpuchunks = v.uint(1)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "exit_on_io_done",
        kind: Kind::Bool,
        default: "0",
        help: "Exit when IO threads finish",
        apply: |s, v| {
            s.spec.engines_misc.exit_on_io_done = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "program",
        kind: Kind::Text,
        help: "Program to execute",
        apply: |s, v| {
            s.spec.engines_misc.program = Some(v.text.to_string());
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "arguments",
        kind: Kind::Text,
        help: "Arguments to pass",
        apply: |s, v| {
            s.spec.engines_misc.arguments = Some(v.text.to_string());
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "grace_time",
        kind: Kind::Int,
        default: "1",
        help: "Grace time before sending a SIGKILL",
        apply: |s, v| {
            s.spec.engines_misc.grace_time = std::time::Duration::from_secs(u64::from(v.uint(0)?));
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "std_redirect",
        kind: Kind::Bool,
        default: "1",
        help: "Redirect stdout & stderr to files",
        apply: |s, v| {
            s.spec.engines_misc.std_redirect = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "donorname",
        kind: Kind::Text,
        help: "File used as a block donor",
        apply: |s, v| {
            s.spec.engines_misc.donorname = Some(v.text.to_string());
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "inplace",
        kind: Kind::Int,
        help: "Alloc and free space inside defrag event",
        apply: |s, v| {
            s.spec.engines_misc.inplace = match v.uint(0)? {
                0 => false,
                1 => true,
                n => return Err(format!("{n}: expected 0 or 1")),
            };
            Ok(())
        },
        ..ENGINE
    },
];
