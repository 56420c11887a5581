//! The sequence of I/Os of one worker.

use ioscope_job::JobSpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataDir {
    Read,
    Write,
}

/// The part of one file a worker does I/O to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileExtent {
    /// First byte of the region (the job's `offset` resolved).
    pub offset: u64,
    /// Bytes in the region.
    pub len: u64,
}

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoUnit {
    pub dir: DataDir,
    /// Index into the worker's files.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
}

pub struct Workload {
    _todo: (),
}

impl Workload {
    /// The I/O sequence of worker `worker` (0-based clone index of the job)
    /// over `files`.
    pub fn new(_spec: &JobSpec, _files: &[FileExtent], _worker: u32) -> Workload {
        todo!()
    }
    /// The next I/O, or None when a size-bound job has issued everything
    /// (all loops). Time-based jobs wrap around and never end here.
    #[inline]
    pub fn next(&mut self) -> Option<IoUnit> {
        todo!()
    }
}
