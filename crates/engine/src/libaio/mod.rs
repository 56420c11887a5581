//! Linux native AIO (fio `libaio`), through the raw io_setup, io_submit,
//! io_getevents and io_destroy system calls: no C library is needed to build
//! or to run.
//!
//! Everything a request needs is allocated once per queue: one iocb per
//! slot, the iocb pointer array io_submit reads, one iovec per slot for
//! vectored requests and the io_event array io_getevents fills.
//!
//! Kernel behaviour this backend relies on (Linux 6.18, ext4):
//! - Only O_DIRECT I/O is asynchronous. Buffered reads and writes run to
//!   completion inside io_submit and their events are ready at once; the
//!   results are still right, only the submission cost is larger.
//! - IOCB_CMD_FSYNC is asynchronous since Linux 4.18 (the fsync runs on a
//!   kernel worker) and works on every file that has fsync(2). It does not
//!   wait for writes still in flight: like io_uring's fsync it covers the
//!   writes that completed before it started. fio's libaio engine issues it
//!   the same way.
//! - RWF_HIPRI is accepted in `aio_rw_flags` and then cleared: fs/aio.c
//!   drops IOCB_HIPRI on every request because nobody polls an AIO context.
//!   Asking for polled completions is therefore refused up front.
//! - AIO has no trim command. A trim runs synchronously inside `submit`
//!   (a hole punched in a file, BLKDISCARD on a block device) and completes
//!   there, as fio's libaio engine does (`do_io_u_trim`, then
//!   FIO_Q_COMPLETED).

mod abi;
mod queue;
#[cfg(test)]
mod tests;

pub use queue::LibaioQueue;

use std::os::fd::RawFd;

use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::error::EngineError;
use crate::queue_config::QueueConfig;

pub(crate) static LIBAIO: EngineDesc = EngineDesc {
    name: "libaio",
    aliases: &[],
    help: "Linux native asynchronous I/O (io_submit/io_getevents)",
    kind: EngineKind::Queued,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &[
        "nowait",
        "userspace_reap",
        "libaio_vectored",
        "cmdprio_percentage",
        "cmdprio_class",
        "cmdprio",
        "cmdprio_hint",
        "cmdprio_bssplit",
    ],
    check: any_shape,
};

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<LibaioQueue, EngineError> {
    LibaioQueue::new(config, fds)
}
