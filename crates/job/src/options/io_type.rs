//! What kind of I/O a job does: direction and pattern, the read/write mix,
//! buffered or direct, syncs and cache hints, and trim ranges.

use super::{Kind, OptionDef};
use crate::spec::{FadviseHint, RwKind, RwMode};
use crate::values;

const IO_TYPE: OptionDef = OptionDef::of("I/O type");

/// The most ranges `num_range` may ask for in one trim: what one NVMe
/// Dataset Management command carries, and fio's MAX_TRIM_RANGE.
const MAX_NUM_RANGE: u32 = 256;

const RW_VALUES: &[(&str, &str)] = &[
    ("read", "Sequential read"),
    ("write", "Sequential write"),
    ("randread", "Random read"),
    ("randwrite", "Random write"),
    ("rw", "Sequential read and write mix"),
    ("readwrite", "Sequential read and write mix"),
    ("randrw", "Random read and write mix"),
    (
        "trim",
        "Sequential trim (io_uring_cmd: NVMe Dataset Management deallocate)",
    ),
    ("randtrim", "Random trim"),
    ("trimwrite", "Trim and write mix, trims preceding writes"),
    (
        "randtrimwrite",
        "Random trim and write mix, trims preceding writes",
    ),
];

const FADVISE_VALUES: &[(&str, &str)] = &[
    ("0", "Don't issue fadvise/madvise"),
    ("1", "Advise using fio IO pattern"),
    ("random", "Advise using FADV_RANDOM"),
    ("sequential", "Advise using FADV_SEQUENTIAL"),
    ("noreuse", "Advise using FADV_NOREUSE"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "rw",
        aliases: &["readwrite"],
        kind: Kind::Choice(RW_VALUES),
        default: "read",
        help: "I/O direction and pattern; randread:N takes N I/Os per random offset",
        apply: |s, v| {
            s.spec.rw = rw_mode(v.text, v.kb)?;
            s.spec.placement.seq_add = seq_add(v.text, v.kb)?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "rwmixread",
        kind: Kind::Int,
        default: "50",
        help: "Percentage of mixed workload that is reads",
        apply: |s, v| {
            s.spec.rwmixread = v.percent()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "rwmixwrite",
        kind: Kind::Int,
        default: "50",
        help: "Percentage of mixed workload that is writes",
        apply: |s, v| {
            s.spec.rwmixread = 100 - v.percent()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "direct",
        kind: Kind::Bool,
        default: "0",
        help: "Use O_DIRECT I/O (negates buffered)",
        apply: |s, v| {
            s.spec.direct = v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "atomic",
        kind: Kind::Bool,
        default: "0",
        help: "Use atomic direct I/O (fio 3.33: O_DIRECT plus O_ATOMIC, which Linux ignores)",
        // fio 3.33 opens the files with O_DIRECT and its own O_ATOMIC bit
        // (040000000), which no Linux kernel defines and open(2) ignores:
        // the I/O is direct I/O and nothing more. ioscope does the same;
        // the RWF_ATOMIC writes of later fio versions are not issued.
        apply: |s, v| {
            if v.bool()? {
                s.spec.direct = true;
            }
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "buffered",
        kind: Kind::Bool,
        default: "1",
        help: "Use buffered I/O (negates direct)",
        apply: |s, v| {
            s.spec.direct = !v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "fsync",
        kind: Kind::Int,
        default: "0",
        help: "Issue fsync for writes every given number of blocks",
        apply: |s, v| {
            s.spec.fsync = v.uint(0)?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "end_fsync",
        kind: Kind::Bool,
        default: "0",
        help: "Include fsync at the end of job",
        apply: |s, v| {
            s.spec.end_fsync = v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "fadvise_hint",
        kind: Kind::Choice(FADVISE_VALUES),
        default: "1",
        help: "Use fadvise() to advise the kernel on IO pattern",
        apply: |s, v| {
            s.spec.fadvise_hint = v.pick(&[
                ("0", FadviseHint::None),
                ("1", FadviseHint::Workload),
                ("random", FadviseHint::Random),
                ("sequential", FadviseHint::Sequential),
                ("noreuse", FadviseHint::NoReuse),
            ])?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "invalidate",
        kind: Kind::Bool,
        default: "1",
        help: "Invalidate buffer/page cache prior to running job",
        apply: |s, v| {
            s.spec.invalidate = v.bool()?;
            Ok(())
        },
        ..IO_TYPE
    },
    OptionDef {
        name: "num_range",
        kind: Kind::Int,
        default: "1",
        help:
            "Number of ranges per trim command (1 to 256; above 1 only with ioengine=io_uring_cmd)",
        apply: |s, v| {
            let n = v.uint(1)?;
            if n > MAX_NUM_RANGE {
                return Err(format!(
                    "num_range={n}: one trim carries at most {MAX_NUM_RANGE} ranges \
                     (an NVMe Dataset Management command's limit)"
                ));
            }
            s.spec.num_range = n;
            Ok(())
        },
        ..IO_TYPE
    },
];

/// `rw=randread:8`; a sequential pattern's `:N` is read by [`seq_add`].
pub(crate) fn rw_mode(text: &str, kb: u32) -> Result<RwMode, String> {
    let (kind, suffix) = match text.split_once(':') {
        Some((k, n)) => (k, Some(n)),
        None => (text, None),
    };
    let kind = match kind {
        "read" => RwKind::Read,
        "write" => RwKind::Write,
        "randread" => RwKind::RandRead,
        "randwrite" => RwKind::RandWrite,
        "rw" | "readwrite" => RwKind::ReadWrite,
        "randrw" => RwKind::RandRw,
        "trim" => RwKind::Trim,
        "randtrim" => RwKind::RandTrim,
        "trimwrite" => RwKind::TrimWrite,
        "randtrimwrite" => RwKind::RandTrimWrite,
        _ => {
            return Err(
                "expected one of: read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim"
                    .to_string(),
            )
        }
    };
    let nr = match suffix {
        None => 1,
        Some(_) if !kind.is_random() => 1,
        Some(n) => values::uint(n, kb, 1)?,
    };
    Ok(RwMode { kind, nr })
}

/// `rw=read:8k`, `rw=write:-4k`: the bytes a sequential pattern skips
/// after each I/O, negative to go backwards (fio's `ddir_seq_add`); 0 for
/// a random pattern or no suffix.
pub(crate) fn seq_add(text: &str, kb: u32) -> Result<i64, String> {
    match text.split_once(':') {
        Some((kind, n)) if !kind.starts_with("rand") => {
            let (neg, n) = match n.trim().strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, n),
            };
            let v = i64::try_from(values::size(n, kb)?)
                .map_err(|_| format!("'{n}' is too large an offset"))?;
            Ok(if neg { -v } else { v })
        }
        _ => Ok(0),
    }
}
