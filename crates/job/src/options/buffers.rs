//! What the I/O buffers hold: zeroes, scrambled or refilled data, a
//! pattern, compressible or dedupable contents. Which of these are on
//! together is settled in the resolve step (fio's rules).

use super::{Kind, OptionDef};
use crate::misc_spec::DedupeMode;
use crate::pattern;

const BUFFERS: OptionDef = OptionDef::of("Buffers and memory");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "zero_buffers",
        kind: Kind::Flag,
        help: "Init I/O buffers to all zeroes",
        apply: |s, v| {
            s.spec.zero_buffers = v.bool()?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "scramble_buffers",
        kind: Kind::Bool,
        default: "1",
        help: "Slightly scramble buffers on every I/O submit",
        // Off with zero_buffers unless given (the resolve step).
        apply: |s, v| {
            s.spec.scramble_buffers = v.bool()?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "refill_buffers",
        kind: Kind::Flag,
        help: "Refill I/O buffers on every I/O submit",
        // On with compression or dedupe unless given (the resolve step).
        apply: |s, v| {
            s.spec.refill_buffers = v.bool()?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "buffer_pattern",
        help: "Fill pattern for I/O buffers: 0xhex, decimal, \"string\", 'file', %o (block offset)",
        apply: |s, v| {
            s.spec.buffer_pattern = Some(pattern::parse(v.text)?);
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "buffer_compress_percentage",
        kind: Kind::Int,
        help: "How compressible the buffers should be (turns refill_buffers on)",
        apply: |s, v| {
            s.spec.buffer_compress_percentage = Some(v.percent()?);
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "buffer_compress_chunk",
        kind: Kind::Size,
        default: "512",
        help: "Size of compressible region in buffer",
        // 0 is a chunk of the smallest write (fio's min_not_zero in
        // fill_io_buffer).
        apply: |s, v| {
            s.spec.buffer_compress_chunk = v.size()?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "dedupe_percentage",
        kind: Kind::Int,
        default: "0",
        help: "Percentage of buffers that are dedupable (turns refill_buffers on)",
        apply: |s, v| {
            s.spec.dedupe_percentage = v.percent()?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "dedupe_mode",
        kind: Kind::Choice(DEDUPE_MODES),
        default: "repeat",
        help: "Mode for the deduplication buffer generation",
        apply: |s, v| {
            s.spec.misc.dedupe.mode = v.pick(&[
                ("repeat", DedupeMode::Repeat),
                ("working_set", DedupeMode::WorkingSet),
            ])?;
            Ok(())
        },
        ..BUFFERS
    },
    OptionDef {
        name: "dedupe_working_set_percentage",
        kind: Kind::Int,
        default: "5",
        help: "Dedupe working set size in percentages from file or device size used to generate dedupe patterns from",
        apply: |s, v| {
            s.spec.misc.dedupe.working_set_percentage = v.percent()?;
            Ok(())
        },
        ..BUFFERS
    },
];

const DEDUPE_MODES: &[(&str, &str)] = &[
    ("repeat", "repeat previous page"),
    (
        "working_set",
        "choose a page randomly from limited working set defined in dedupe_working_set_percentage",
    ),
];
