//! Which write a block is.

/// One block as written: where, how long, and which write of this worker
/// it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockId {
    /// The file's number in the worker's file list.
    pub file: u32,
    /// File offset of the block's first byte.
    pub offset: u64,
    pub len: u32,
    /// The worker's write count when the block was written: a block written
    /// twice must hold the later write.
    pub seq: u64,
}
