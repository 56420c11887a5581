//! The null backend: no I/O, every request completes with its full length.

use std::io;

use crate::backend::QueueConfig;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::request::{Completion, Request};

pub struct NullQueue {
    _todo: (),
}

impl NullQueue {
    pub fn new(_config: &QueueConfig) -> Result<NullQueue, EngineError> {
        todo!()
    }
}

impl Queue for NullQueue {
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
