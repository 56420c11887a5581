//! Syncs beyond `fsync` and `end_fsync` (in io_type.rs): open flags,
//! fdatasync, and syncs when files close and when the job ends.

use super::{Kind, OptionDef};
use crate::file_handling::SyncMode;

const IO_TYPE: OptionDef = OptionDef::of("I/O type");

const SYNC_VALUES: &[(&str, &str)] = &[
    ("none", "Buffered writes (no O_SYNC)"),
    ("0", "Alias for 'none'"),
    ("sync", "Open files with O_SYNC"),
    ("1", "Alias for 'sync'"),
    ("dsync", "Open files with O_DSYNC"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "sync",
        kind: Kind::Choice(SYNC_VALUES),
        default: "none",
        help: "Use synchronous write IO",
        apply: |s, v| {
            s.spec.file_handling.sync = v.pick(&[
                ("none", SyncMode::None),
                ("0", SyncMode::None),
                ("sync", SyncMode::Sync),
                ("1", SyncMode::Sync),
                ("dsync", SyncMode::Dsync),
            ])?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "fdatasync",
        kind: Kind::Int,
        default: "0",
        help: "Issue fdatasync for writes every given number of blocks",
        apply: |s, v| {
            s.spec.file_handling.fdatasync = v.uint(0)?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "fsync_on_close",
        kind: Kind::Bool,
        default: "0",
        help: "fsync files on close",
        apply: |s, v| {
            s.spec.file_handling.fsync_on_close = v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "end_syncfs",
        kind: Kind::Bool,
        default: "0",
        help: "Include sync of FS at the end of job (a newer fio's option)",
        apply: |s, v| {
            s.spec.file_handling.end_syncfs = v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "write_barrier",
        kind: Kind::Int,
        default: "0",
        // fio marks barrier writes only for engines that take barriers
        // (libpmem alone in fio 3.33); ioscope's engines, as fio's
        // others, write them as plain writes.
        help: "Make every Nth write a barrier write (no effect on ioscope's engines, as on most of fio's)",
        apply: |s, v| {
            s.spec.file_handling.write_barrier = v.uint(0)?;
            Ok(())
        },
        ..IO_TYPE
    },
];
