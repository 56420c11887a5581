//! Options of the smaller engines ported from fio: the file engines
//! (filestat's `stat_type`).

use super::{Kind, OptionDef};
use ioscope_engine::StatType;

const ENGINE: OptionDef = OptionDef::of("I/O engine");

const STAT_TYPE_VALUES: &[(&str, &str)] = &[
    ("stat", "Use stat(2)"),
    ("lstat", "Use lstat(2)"),
    ("statx", "Use statx(2) if exists"),
];

pub(super) const OPTIONS: &[OptionDef] = &[OptionDef {
    name: "stat_type",
    kind: Kind::Choice(STAT_TYPE_VALUES),
    default: "stat",
    help: "Specify stat system call type to measure lookup/getattr performance",
    apply: |s, v| {
        s.spec.engine_options.stat_type = v.pick(&[
            ("stat", StatType::Stat),
            ("lstat", StatType::Lstat),
            ("statx", StatType::Statx),
        ])?;
        Ok(())
    },
    ..ENGINE
}];
