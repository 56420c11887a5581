//! How many copies of a job run, and how jobs wait for each other.

use super::{Kind, OptionDef};

const THREADS: OptionDef = OptionDef::of("Threads, processes and job synchronization");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "numjobs",
        kind: Kind::Int,
        default: "1",
        help: "Duplicate this job this many times",
        apply: |s, v| {
            s.spec.numjobs = v.uint(1)?;
            Ok(())
        },
        ..THREADS
    },
    OptionDef {
        name: "thread",
        kind: Kind::Flag,
        help: "Use threads instead of processes",
        apply: |s, v| {
            s.spec.thread = v.bool()?;
            Ok(())
        },
        ..THREADS
    },
    OptionDef {
        name: "stonewall",
        aliases: &["wait_for_previous"],
        kind: Kind::Flag,
        help: "Insert a hard barrier between this job and previous",
        apply: |s, v| {
            s.spec.stonewall = v.bool()?;
            Ok(())
        },
        ..THREADS
    },
    OptionDef {
        name: "new_group",
        kind: Kind::Flag,
        help: "Mark the start of a new group (for reporting)",
        apply: |s, v| {
            s.spec.new_group = v.bool()?;
            Ok(())
        },
        ..THREADS
    },
    OptionDef {
        name: "exitall",
        kind: Kind::Flag,
        help: "Terminate all jobs when one exits",
        apply: |s, v| {
            s.spec.exitall = v.bool()?;
            Ok(())
        },
        ..THREADS
    },
];
