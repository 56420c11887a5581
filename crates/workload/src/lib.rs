//! What a worker issues next: the offset, length and direction of each I/O,
//! following fio's rules (sequential or random offsets, a random map that
//! visits every block once per loop, block-size choice, read/write mix,
//! loops and wrap-around for time-based jobs), and what goes in write buffers.

mod block_size;
mod buffers;
mod distribution;
mod file_service;
mod generator;
mod iolog;
mod layout;
mod lfsr;
mod offset_mix;
mod rand;
mod random_map;
mod rwmix;
mod sprandom;
mod verify;
mod zones;

pub use buffers::{BufferFiller, DedupePeers};
pub use generator::{CacheDrop, DataDir, FileEvents, FileExtent, IoUnit, Workload};
pub use iolog::{merge_blktraces, Iolog, IologSummary, LoggedDir, LoggedIo, Replay};
pub use layout::{diskless_files, min_bs, plan_files, FilePlan};
pub use rand::{fio_seeds, job_seeds, seed_slot, FioRand};
pub use verify::{
    check_zeroes, fio_checksum, BlockId, Corruption, CorruptionKind, FioVersion, Verifier,
};
pub use zones::{DeviceZone, DeviceZones, ZoneBook, ZoneCommand, ZoneDevice, ZoneOp, ZoneWrite};
#[cfg(test)]
mod fio_cases;
#[cfg(test)]
mod test_spec;
