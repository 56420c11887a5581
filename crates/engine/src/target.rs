//! Files and devices: opening them, learning their size and block size,
//! and laying regular files out before they are read.

use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

use crate::error::EngineError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    RegularFile,
    BlockDevice,
    CharDevice,
}

/// How to open a target.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    pub read: bool,
    pub write: bool,
    /// Create a regular file that does not exist.
    pub create: bool,
    /// O_DIRECT.
    pub direct: bool,
}

/// An open file or device.
pub struct Target {
    _todo: PathBuf,
}

impl Target {
    pub fn open(_path: &Path, _opts: &OpenOptions) -> Result<Target, EngineError> {
        todo!()
    }
    pub fn path(&self) -> &Path {
        todo!()
    }
    pub fn fd(&self) -> RawFd {
        todo!()
    }
    pub fn kind(&self) -> TargetKind {
        todo!()
    }
    /// Bytes: the file's length, or BLKGETSIZE64 for a block device.
    pub fn size(&self) -> u64 {
        todo!()
    }
    /// BLKSSZGET for a block device; the filesystem's block size otherwise.
    pub fn logical_block_size(&self) -> u32 {
        todo!()
    }
}

/// Makes `path` a regular file of at least `size` bytes whose blocks are
/// really allocated, writing it in `block`-sized pieces, as fio does before
/// a job reads a file that is missing or too short.
pub fn layout_file(_path: &Path, _size: u64, _block: usize) -> Result<(), EngineError> {
    todo!()
}
