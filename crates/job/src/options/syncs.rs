//! Syncs beyond `fsync` and `end_fsync` (in io_type.rs): open flags,
//! fdatasync, and syncs when files close and when the job ends.

use super::{Kind, OptionDef};
use crate::file_handling::{SyncFileRange, SyncMode};

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
        name: "sync_file_range",
        // A list of flags joined by ',': text, as Choice takes one value.
        kind: Kind::Text,
        help: "Use sync_file_range() (wait_before,write,wait_after joined by ',', then :N for every N writes, default 1)",
        apply: |s, v| {
            s.spec.file_handling.sync_file_range = Some(sync_file_range(v.text)?);
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

/// fio's `sync_file_range` (a multi-value string and `str_sfr_cb`): flags
/// joined by ',', each one's SYNC_FILE_RANGE_* bit OR'ed in; after
/// the first ':', N as fio's atoi reads it (what is not a number is 0:
/// never), 1 without one.
fn sync_file_range(text: &str) -> Result<SyncFileRange, String> {
    let (flags_text, nr) = match text.split_once(':') {
        Some((f, n)) => (f, Some(n)),
        None => (text, None),
    };
    let mut flags = 0;
    for name in flags_text.split(',') {
        flags |= match name.trim() {
            "wait_before" => 1,
            "write" => 2,
            "wait_after" => 4,
            other => {
                return Err(format!(
                    "'{other}' is not a sync_file_range flag: expected wait_before, write or \
                     wait_after, joined by ',' (then :N for every N writes)"
                ))
            }
        };
    }
    let every = nr.map_or(1, atoi);
    Ok(SyncFileRange { flags, every })
}

/// C's atoi for a count: the leading digits, 0 when there are none.
fn atoi(text: &str) -> u32 {
    let t = text.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    match digits {
        0 => 0,
        // Past u32: as many writes as can be counted.
        _ => t[..digits].parse().unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_file_range_reads_flags_and_count_as_fio() {
        let s = sync_file_range("wait_before,write,wait_after:8").unwrap();
        assert_eq!((s.flags, s.every), (7, 8));
        let s = sync_file_range("write").unwrap();
        assert_eq!((s.flags, s.every), (2, 1));
        assert_eq!(sync_file_range("write:x").unwrap().every, 0);
        assert_eq!(sync_file_range("wait_after:16k").unwrap().every, 16);
        let e = sync_file_range("flush:4").unwrap_err();
        assert!(e.contains("'flush'") && e.contains("wait_before"), "{e}");
    }
}
