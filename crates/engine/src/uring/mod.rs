//! The io_uring backend (fio's `io_uring` engine), and the ring that it and
//! the NOP backend share.
//!
//! The ring is built the way fio 3.x and t/io_uring build theirs: the CQ ring
//! sized to the queue depth, COOP_TASKRUN, SINGLE_ISSUER and DEFER_TASKRUN,
//! plus TASKRUN_FLAG, SUBMIT_ALL and NO_SQARRAY where the kernel has them.
//! Whichever of those optional flags the kernel refuses (EINVAL) is dropped,
//! one at a time, and the queue reports what it settled on. The ring fd is
//! registered with the kernel, so io_uring_enter skips the fd lookup, unless
//! [`UringOptions::skip_ring_registration`](crate::UringOptions::skip_ring_registration) asks for the plain fd.
//!
//! One file per concern: `setup_flags` (the flags a ring asks for and
//! which the kernel may refuse), `ring` (the ring itself), `queue` (the
//! `io_uring` queue) and `checks` (what is refused or warned about before
//! a run).

mod checks;
mod force_async;
mod queue;
mod ring;
mod setup_flags;
#[cfg(test)]
pub(crate) mod tests;

pub use checks::{cannot_poll, poll_queue_warning};
pub(crate) use force_async::ForceAsync;
pub use queue::UringQueue;
pub(crate) use ring::Ring;
pub use setup_flags::setup_flag_names;
pub(crate) use setup_flags::RingMode;

use std::os::fd::RawFd;

use crate::descriptor::{data_ops, EngineDesc, EngineKind, Shape};
use crate::error::{Advice, EngineError, Knob};
use crate::queue_config::QueueConfig;

pub(crate) static IO_URING: EngineDesc = EngineDesc {
    name: "io_uring",
    aliases: &[],
    help: "Fast Linux native asynchronous I/O",
    kind: EngineKind::Queued,
    fio: true,
    ring: true,
    carries: data_ops,
    options: &[
        "hipri",
        "sqthread_poll",
        "sqthread_poll_cpu",
        "fixedbufs",
        "registerfiles",
        "nonvectored",
        "count_punts",
        "force_async",
        "nowait",
        "uncached",
        "cmdprio_percentage",
        "cmdprio_class",
        "cmdprio",
        "cmdprio_hint",
        "cmdprio_bssplit",
        // fio's io_uring engines share one option table: a job that turns
        // io_uring_cmd into io_uring keeps its cmd_type, which io_uring
        // ignores, as fio's does.
        "cmd_type",
    ],
    check,
};

/// IOPOLL works only on I/O that bypasses the page cache: the kernel fails
/// every buffered polled request with EOPNOTSUPP.
fn check(shape: &Shape) -> Result<(), EngineError> {
    if shape.hipri && !shape.direct {
        return Err(EngineError::Refused {
            what: "polled completions with io_uring need O_DIRECT: the kernel cannot poll \
                   buffered I/O"
                .into(),
            fix: vec![Advice::Set(Knob::Direct), Advice::Drop(Knob::Polled)],
        });
    }
    Ok(())
}

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<UringQueue, EngineError> {
    UringQueue::new(config, fds)
}
