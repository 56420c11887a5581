//! Handing the chosen backend's concrete queue to the caller, wrapped for
//! fault injection when asked.

use std::os::fd::RawFd;

use crate::error::EngineError;
use crate::faulty::FaultyQueue;
use crate::queue::{Queue, QueueUser};
use crate::queue_config::{FaultConfig, QueueConfig};
use crate::registry::{run_backend, Backend};

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
