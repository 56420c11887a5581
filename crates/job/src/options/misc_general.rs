//! fio's general options of no other family: the clock of `job_start`,
//! the CPUs of helper threads, the bandwidth samples' switch.

use super::{Kind, OptionDef};
use crate::values;

const GENERAL: OptionDef = OptionDef::of("Miscellaneous");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "error_dump",
        kind: Kind::Bool,
        // fio's options table says 0, which overrides the 1 its
        // def_thread is given before the defaults are filled in.
        default: "0",
        help: "Dump info on each error (each I/O error continue_on_error lets pass)",
        apply: |s, v| {
            s.spec.misc.error_dump = v.bool()?;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "disable_bw_measurement",
        aliases: &["disable_bw"],
        kind: Kind::Bool,
        default: "0",
        help: "Disable bandwidth logging (the samples of a per-I/O bandwidth log)",
        apply: |s, v| {
            s.spec.misc.disable_bw = v.bool()?;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "dedupe_global",
        kind: Kind::Bool,
        default: "0",
        help: "Deduplicate buffers across jobs (with dedupe_mode=working_set)",
        apply: |s, v| {
            s.spec.misc.dedupe_global = v.bool()?;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "serialize_overlap",
        kind: Kind::Bool,
        default: "0",
        help: "Wait for in-flight IOs that collide to complete",
        apply: |s, v| {
            s.spec.misc.serialize_overlap = v.bool()?;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "job_start_clock_id",
        kind: Kind::Int,
        default: "0",
        help: "The clock_id of clock_gettime for the JSON job_start (0: CLOCK_REALTIME)",
        apply: |s, v| {
            let id = v.uint(0)?;
            crate::misc_spec::check_clock(id)?;
            s.spec.misc.job_start_clock_id = id;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        // fio starts a thread on this CPU that keeps the time of day for
        // every job (gettime-thread.c) and keeps the CPU from the jobs.
        // ioscope's clock is read in each worker (the TSC, with a checked
        // fallback), so there is no such thread to place: the job's CPUs
        // are what changes, as in fio.
        name: "gtod_cpu",
        kind: Kind::Int,
        help: "Keep this CPU out of the job's cpus_allowed (fio's gettimeofday thread runs there)",
        apply: |s, v| {
            s.spec.misc.gtod_cpu = Some(v.uint(0)?);
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "verify_async_cpus",
        kind: Kind::CpuList,
        help: "Set CPUs allowed for async verify threads",
        apply: |s, v| {
            s.spec.misc.verify_async_cpus = values::cpu_list(v.text)?;
            Ok(())
        },
        ..GENERAL
    },
    OptionDef {
        name: "log_compression_cpus",
        kind: Kind::CpuList,
        // fio's gz workers compress the logs while the job runs; ioscope
        // compresses them in the main thread after every job has ended, so
        // the compression never takes a CPU from a job, which is what the
        // mask is for. The list is checked, as fio checks it.
        help: "Limit log compression to these CPUs (ioscope compresses after the run)",
        apply: |_, v| {
            values::cpu_list(v.text)?;
            Ok(())
        },
        ..GENERAL
    },
];
