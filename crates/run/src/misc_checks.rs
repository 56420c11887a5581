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
