//! Choosing a backend by name, once, and handing its concrete queue to the caller.

use std::os::fd::RawFd;

use crate::error::EngineError;
use crate::faulty::FaultyQueue;
use crate::libaio::LibaioQueue;
use crate::mmap::MmapQueue;
use crate::nop::NopQueue;
use crate::null::NullQueue;
use crate::queue::Queue;
use crate::queue_config::{FaultConfig, QueueConfig};
use crate::request::Op;
use crate::sync::{SyncMode, SyncQueue};
use crate::uring::UringQueue;
use crate::uring_cmd::UringCmdQueue;

/// The I/O paths this crate implements, named as fio names its ioengines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// read/write after lseek (fio `sync`).
    Sync,
    /// pread/pwrite (fio `psync`).
    Psync,
    /// preadv2/pwritev2, with RWF_HIPRI when `hipri` is set (fio `pvsync2`).
    Pvsync2,
    /// No I/O at all: measures the caller (fio `null`).
    Null,
    /// Linux native AIO through io_submit/io_getevents (fio `libaio`),
    /// with the options in [`QueueConfig::aio`].
    Libaio,
    /// memcpy to and from a shared mapping of each file (fio `mmap`).
    Mmap,
    /// io_uring (fio `io_uring`), with the options in [`QueueConfig::uring`]
    /// and `hipri` for polled completions.
    IoUring,
    /// io_uring NOP requests: no I/O, measures the ring itself. fio has no
    /// such engine; the name is `nop`.
    Nop,
    /// NVMe passthrough through io_uring (fio `io_uring_cmd`, `cmd_type=nvme`)
    /// on /dev/ngXnY, with the io_uring options in [`QueueConfig::uring`] and
    /// the NVMe ones in [`UringOptions::nvme`](crate::UringOptions::nvme).
    UringCmd,
}

impl Backend {
    /// The backend fio calls `name`, if this crate has it.
    pub fn from_name(name: &str) -> Option<Backend> {
        match name {
            "sync" => Some(Backend::Sync),
            "psync" => Some(Backend::Psync),
            "pvsync2" => Some(Backend::Pvsync2),
            "null" => Some(Backend::Null),
            "libaio" => Some(Backend::Libaio),
            "mmap" => Some(Backend::Mmap),
            "io_uring" => Some(Backend::IoUring),
            "nop" => Some(Backend::Nop),
            "io_uring_cmd" => Some(Backend::UringCmd),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Sync => "sync",
            Backend::Psync => "psync",
            Backend::Pvsync2 => "pvsync2",
            Backend::Null => "null",
            Backend::Libaio => "libaio",
            Backend::Mmap => "mmap",
            Backend::IoUring => "io_uring",
            Backend::Nop => "nop",
            Backend::UringCmd => "io_uring_cmd",
        }
    }

    /// True when the backend touches no file, so no target needs to exist.
    pub fn is_diskless(self) -> bool {
        matches!(self, Backend::Null | Backend::Nop)
    }

    /// True when requests go through an io_uring, which may hand them to
    /// its io-wq worker threads instead of completing them inline.
    pub fn uses_io_uring(self) -> bool {
        matches!(self, Backend::IoUring | Backend::Nop | Backend::UringCmd)
    }

    /// True when requests complete inside `submit`.
    pub fn is_sync(self) -> bool {
        !matches!(
            self,
            Backend::Null | Backend::Libaio | Backend::IoUring | Backend::Nop | Backend::UringCmd
        )
    }

    /// Whether the backend can carry `op` at all, asked before a run so a
    /// command it cannot send is refused up front rather than at the first
    /// I/O. (Whether the device takes it is the device's business: for
    /// NVMe see [`crate::nvme::Controller`]'s ONCS.) `null` and `nop` do no
    /// I/O and take everything. Every backend trims: `io_uring_cmd` with
    /// NVMe Dataset Management, the others by punching a hole in a file or
    /// discarding a block device's range (the queueing ones, libaio and
    /// io_uring, do that inside `submit`, as fio does). Several ranges in
    /// one request ([`Op::TrimRanges`]) need a command that carries a range
    /// list, which only `io_uring_cmd` has.
    pub fn supports(self, op: Op) -> bool {
        match op {
            Op::Read | Op::Write | Op::Fsync | Op::Trim => true,
            Op::WriteZeroes { .. } | Op::TrimRanges { .. } => {
                matches!(self, Backend::UringCmd | Backend::Null | Backend::Nop)
            }
        }
    }
}

/// Code that runs against a queue whose concrete type is chosen at run time.
pub trait QueueUser {
    type Output;
    fn run<Q: Queue>(self, queue: Q) -> Self::Output;
}

/// Builds the queue for `backend` over the open file descriptors `fds`
/// (indexed by [`crate::Request::file`]) and runs `user` with it, wrapped
/// in a [`FaultyQueue`] when `config.fault` asks for one.
pub fn open_queue<U: QueueUser>(
    backend: Backend,
    config: &QueueConfig,
    fds: &[RawFd],
    user: U,
) -> Result<U::Output, EngineError> {
    match config.fault {
        None => run_backend(backend, config, fds, user),
        Some(fault) => {
            let faulty = WithFaults {
                fault,
                depth: config.depth,
                synchronous: backend.is_sync(),
                user,
            };
            run_backend(backend, config, fds, faulty)?
        }
    }
}

fn run_backend<U: QueueUser>(
    backend: Backend,
    config: &QueueConfig,
    fds: &[RawFd],
    user: U,
) -> Result<U::Output, EngineError> {
    match backend {
        Backend::Null => Ok(user.run(NullQueue::new(config)?)),
        Backend::Sync => Ok(user.run(SyncQueue::new(SyncMode::Sync, config, fds)?)),
        Backend::Psync => Ok(user.run(SyncQueue::new(SyncMode::Psync, config, fds)?)),
        Backend::Pvsync2 => Ok(user.run(SyncQueue::new(SyncMode::Pvsync2, config, fds)?)),
        Backend::Libaio => Ok(user.run(LibaioQueue::new(config, fds)?)),
        Backend::Mmap => Ok(user.run(MmapQueue::new(config, fds)?)),
        Backend::IoUring => Ok(user.run(UringQueue::new(config, fds)?)),
        Backend::Nop => Ok(user.run(NopQueue::new(config)?)),
        Backend::UringCmd => Ok(user.run(UringCmdQueue::new(config, fds)?)),
    }
}

/// Runs the caller's user on the backend's queue wrapped in a
/// [`FaultyQueue`], so the caller's loop is monomorphised for the wrapper
/// and the unwrapped run pays nothing for it.
struct WithFaults<U> {
    fault: FaultConfig,
    depth: u32,
    synchronous: bool,
    user: U,
}

impl<U: QueueUser> QueueUser for WithFaults<U> {
    type Output = Result<U::Output, EngineError>;

    fn run<Q: Queue>(self, queue: Q) -> Self::Output {
        let faulty = FaultyQueue::new(queue, self.fault, self.depth, self.synchronous)?;
        Ok(self.user.run(faulty))
    }
}
