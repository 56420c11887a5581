//! Target-free refusals of the general options of no other family, made
//! in the plan step so that `--parse-only` refuses the same.

use ioscope_job::{DedupeMode, JobSpec, SizeSpec};

/// fio's checks of `dedupe_mode=working_set` (init.c fixup_options): the
/// working set is a share of the job's size, of one file, and leaves room
/// for the unique buffers.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let d = &spec.misc.dedupe;
    if spec.dedupe_percentage == 0 || d.mode != DedupeMode::WorkingSet {
        return Ok(());
    }
    if !matches!(spec.size, Some(SizeSpec::Bytes(_))) {
        return Err(
            "dedupe_mode=working_set needs size set in bytes (the working set is a share of it)"
                .into(),
        );
    }
    if spec.nrfiles != 1 {
        return Err(format!(
            "dedupe_mode=working_set works with one file per job, but nrfiles={}",
            spec.nrfiles
        ));
    }
    if d.working_set_percentage + spec.dedupe_percentage > 100 {
        return Err(format!(
            "dedupe_percentage={} cannot be reached: dedupe_working_set_percentage={} of the size \
             is unique pages",
            spec.dedupe_percentage, d.working_set_percentage
        ));
    }
    Ok(())
}

/// Clock `id`'s time in ms at tick `ticks` of the run's clock: what fio's
/// set_epoch_time reads for job_start with job_start_clock_id.
pub(crate) fn clock_ms_of(id: u32, clock: &ioscope_stats::Clock, ticks: u64) -> u64 {
    let ago_ms = clock.to_ns(clock.now().saturating_sub(ticks)) / 1_000_000;
    ioscope_job::clock_ms(id).saturating_sub(ago_ms)
}

/// fio's gtod_reduce(): the option, or every per-I/O clock it guards
/// switched off one by one (disable_clat, disable_slat, disable_bw).
pub(crate) fn gtod_reduced(spec: &JobSpec) -> bool {
    spec.gtod_reduce || (spec.disable_clat && spec.disable_slat && spec.misc.disable_bw)
}

/// Whether the loop checks serialize_overlap: fio (init.c) drops it where
/// nothing can collide, a job that neither writes nor trims (unless it
/// replays a log) or one at depth 1.
pub(crate) fn serializes(spec: &JobSpec, depth: u32, replay: bool) -> bool {
    let changes = spec.rw.kind.writes() || spec.rw.kind.trims();
    spec.misc.serialize_overlap && (replay || changes) && depth > 1
}

/// `dedupe_global`: the jobs that draw their dedupe working set from every
/// thread of the run get the threads' buffer seeds (fio's
/// init_global_dedupe_working_set_seeds, after every job's seeds are set).
pub(crate) fn share_dedupe(parsed: &ioscope_job::Parsed, jobs: &mut [crate::plan::JobPlan]) {
    let global = |s: &JobSpec| {
        s.misc.dedupe_global
            && s.dedupe_percentage > 0
            && s.misc.dedupe.mode == DedupeMode::WorkingSet
    };
    if !parsed.jobs.iter().any(global) {
        return;
    }
    let peers = ioscope_workload::DedupePeers::of_run(&parsed.jobs);
    for (spec, plan) in parsed.jobs.iter().zip(jobs.iter_mut()) {
        if global(spec) {
            plan.dedupe_peers = Some(peers.clone());
        }
    }
}
