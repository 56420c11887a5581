//! The queue depth and how requests are batched. The batch sizes and the
//! low watermark that are not given are derived from iodepth in the
//! resolve step, as fio does in init.c (their help says from what).

use super::{Kind, OptionDef};

const DEPTH: OptionDef = OptionDef::of("I/O depth");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "iodepth",
        kind: Kind::Int,
        default: "1",
        help: "Number of I/O buffers to keep in flight",
        apply: |s, v| {
            s.spec.iodepth = v.uint(1)?;
            Ok(())
        },
        ..DEPTH
    },
    OptionDef {
        name: "iodepth_batch",
        aliases: &["iodepth_batch_submit"],
        kind: Kind::Int,
        default: "1",
        help: "Number of I/O buffers to submit in one go",
        // 0 or more than iodepth means iodepth (the resolve step).
        apply: |s, v| {
            s.spec.iodepth_batch_submit = v.uint(0)?;
            Ok(())
        },
        ..DEPTH
    },
    OptionDef {
        name: "iodepth_batch_complete_min",
        aliases: &["iodepth_batch_complete"],
        kind: Kind::Int,
        default: "1",
        help: "Min number of I/O buffers to retrieve in one go",
        apply: |s, v| {
            s.spec.iodepth_batch_complete_min = v.uint(0)?;
            Ok(())
        },
        ..DEPTH
    },
    OptionDef {
        name: "iodepth_batch_complete_max",
        kind: Kind::Int,
        help:
            "Max number of I/O buffers to retrieve in one go (default: iodepth_batch_complete_min)",
        apply: |s, v| {
            s.iodepth_batch_complete_max = v.uint(0)?;
            Ok(())
        },
        ..DEPTH
    },
    OptionDef {
        name: "iodepth_low",
        kind: Kind::Int,
        help: "Low water mark for queuing depth (default: iodepth)",
        apply: |s, v| {
            s.iodepth_low = v.uint(0)?;
            Ok(())
        },
        ..DEPTH
    },
];
