//! What a worker issues next: the offset, length and direction of each I/O,
//! following fio's rules (sequential or random offsets, a random map that
//! visits every block once per loop, block-size choice, read/write mix,
//! loops and wrap-around for time-based jobs), and what goes in write buffers.

mod buffers;
mod generator;

pub use buffers::BufferFiller;
pub use generator::{DataDir, FileExtent, IoUnit, Workload};
