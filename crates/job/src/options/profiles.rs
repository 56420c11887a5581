//! The options fio's built-in profiles register among every job's options
//! (profiles/tiobench.c and act.c), and the `profile` job option. fio takes
//! them in any job and they change no job: tiobench's never reach its
//! profile (see `crate::profile`), act's feed only the jobs `--profile=act`
//! adds (read there, from the sections as written), and `profile=` in a
//! job is stored and not used (the
//! program option `--profile` is what adds a profile's jobs). fio's own
//! examples set `threads`. Each is checked as fio's parser checks its type.

use super::{Kind, OptionDef};

const TIOBENCH: OptionDef = OptionDef::of("Profiles (no effect on a job, as in fio)");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "profile",
        kind: Kind::Text,
        help: "Select a specific builtin performance test (the program option --profile \
               adds its jobs; as a job option it changes nothing, as in fio)",
        apply: |_, _| Ok(()),
        ..TIOBENCH
    },
    OptionDef {
        name: "block",
        kind: Kind::Int,
        default: "4096",
        help: "Block size in bytes (tiobench profile; fio's profile never reads it)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "numruns",
        kind: Kind::Int,
        help: "Number of runs (tiobench profile; fio's profile never reads it)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "dir",
        kind: Kind::Text,
        help: "Test directory (tiobench profile; fio's profile never reads it)",
        apply: |_, _| Ok(()),
        ..TIOBENCH
    },
    OptionDef {
        name: "threads",
        kind: Kind::Int,
        help: "Number of Threads (tiobench profile; fio's profile never reads it)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "device-names",
        kind: Kind::Text,
        help: "Devices to use (act profile)",
        apply: |_, _| Ok(()),
        ..TIOBENCH
    },
    OptionDef {
        name: "load",
        kind: Kind::Int,
        default: "1",
        help: "ACT load multipler (default 1x) (act profile)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "test-duration",
        kind: Kind::Time,
        // fio's 24h, in seconds: a default holds no unit (kb_base).
        default: "86400",
        help: "How long the entire test takes to run (act profile)",
        apply: |_, v| v.seconds().map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "threads-per-queue",
        kind: Kind::Int,
        default: "8",
        help: "Number of read IO threads per device (act profile)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "read-req-num-512-blocks",
        kind: Kind::Int,
        default: "3",
        help: "Number of 512B blocks to read at the time (act profile)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "large-block-op-kbytes",
        kind: Kind::Int,
        default: "131072",
        help: "Size of large block ops in KiB (writes) (act profile)",
        apply: |_, v| v.uint(0).map(drop),
        ..TIOBENCH
    },
    OptionDef {
        name: "prep",
        kind: Kind::Flag,
        help: "Set to run ACT prep phase (act profile)",
        apply: |_, v| v.bool().map(drop),
        ..TIOBENCH
    },
];
