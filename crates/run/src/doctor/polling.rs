//! Polled completions asked for where the device has no poll queues.

use std::path::Path;

use ioscope_engine::nvme::nvme_names;
use ioscope_engine::{cannot_poll, Backend, EngineError, TargetKind};
use ioscope_job::JobSpec;
use ioscope_stats::Notice;

use crate::error::RunError;

/// Polled completions need a device with poll queues. io_uring refuses
/// IOPOLL without them (every polled read would fail), so the job is
/// refused here, before the run; preadv2 quietly completes RWF_HIPRI I/O by
/// interrupt instead, so a pvsync2 job runs, with a notice that it did not
/// poll.
pub(crate) fn check_polling(
    spec: &JobSpec,
    backend: Backend,
    path: &Path,
    found: &mut Vec<Notice>,
) -> Result<(), RunError> {
    // Passthrough polls the queues of the namespace's block device.
    let block = match backend {
        Backend::IoUringCmd => nvme_names(path, TargetKind::CharDevice).1,
        _ => None,
    };
    let Some(refusal) = cannot_poll(block.as_deref().unwrap_or(path)) else {
        return Ok(());
    };
    match backend {
        Backend::IoUring | Backend::IoUringCmd => Err(RunError::job(
            &spec.name,
            format!("hipri=1 cannot poll: {refusal}"),
        )),
        _ => {
            let why = match &refusal {
                EngineError::CannotPoll { why, .. } => why.reason(),
                other => other.to_string(),
            };
            found.push(Notice::PolledWithoutPollQueues {
                job: spec.name.clone(),
                path: path.display().to_string(),
                why,
            });
            Ok(())
        }
    }
}
