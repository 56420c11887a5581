//! Synchronous backends: sync (lseek+read/write), psync (pread/pwrite),
//! pvsync2 (preadv2/pwritev2, RWF_HIPRI when asked).

use std::io;
use std::os::fd::RawFd;

use crate::backend::QueueConfig;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::request::{Completion, Request};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    Sync,
    Psync,
    Pvsync2,
}

pub struct SyncQueue {
    _todo: (),
}

impl SyncQueue {
    pub fn new(
        _mode: SyncMode,
        _config: &QueueConfig,
        _fds: &[RawFd],
    ) -> Result<SyncQueue, EngineError> {
        todo!()
    }
}

impl Queue for SyncQueue {
    fn submit(&mut self, _req: &Request) -> io::Result<Submitted> {
        todo!()
    }
    fn commit(&mut self) -> io::Result<u32> {
        todo!()
    }
    fn reap<F: FnMut(Completion)>(&mut self, _min: u32, _max: u32, _f: F) -> io::Result<u32> {
        todo!()
    }
    fn buffer(&mut self, _slot: u32) -> &mut [u8] {
        todo!()
    }
    fn in_flight(&self) -> u32 {
        todo!()
    }
}
