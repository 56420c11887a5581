//! The plain data that crosses the queue boundary.

/// What a request asks the target to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    /// Flush the file's data (fsync). Carries no buffer.
    Fsync,
}

/// One I/O handed to a queue.
///
/// `slot` names both the buffer the data lives in and the request while it is
/// in flight: the queue hands it back in the matching [`Completion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    /// Index into the targets the queue was opened with.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub slot: u32,
}

/// The outcome of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    /// Bytes transferred, or a negative errno.
    pub result: i64,
}
