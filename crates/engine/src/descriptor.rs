//! What an engine says about itself: the [`EngineDesc`] each engine module
//! exports and the registry lists.

use crate::error::EngineError;
use crate::request::Op;

/// How an engine completes what it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// Each request completes inside [`crate::Queue::submit`].
    Synchronous,
    /// Requests are queued, sent by [`crate::Queue::commit`] and come back from
    /// [`crate::Queue::reap`].
    Queued,
    /// No target at all: the engine measures its caller or its own queue.
    Diskless,
    /// Each request completes inside [`crate::Queue::submit`], on a socket
    /// connected once the job starts ([`crate::NetLink`]), not on a file.
    Network,
    /// Another engine's queue with something added; it has no queue of its
    /// own ([`crate::FaultyQueue`]).
    Wrapper,
}

/// What a job asks of its engine, as far as an engine can judge it without
/// a target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    /// Targets are opened with O_DIRECT.
    pub direct: bool,
    /// Polled completions ([`crate::QueueConfig::hipri`]).
    pub hipri: bool,
}

/// One engine, described once.
#[derive(Debug)]
pub struct EngineDesc {
    /// The name `ioengine=` takes: fio's, where fio has the engine.
    pub name: &'static str,
    /// Other names fio accepts for it.
    pub aliases: &'static [&'static str],
    /// One line, as `--cmdhelp=ioengine` lists it.
    pub help: &'static str,
    pub kind: EngineKind,
    /// Whether fio has an engine of this name that means the same.
    pub fio: bool,
    /// Whether requests go through an io_uring, whose helper threads
    /// (SQ poll, io-wq workers) may serve them.
    pub ring: bool,
    /// Whether the engine can carry an operation at all, asked before a run
    /// so that a command it cannot send is refused up front. (Whether the
    /// device takes it is the device's business.)
    pub carries: fn(Op) -> bool,
    /// The job options this engine takes (its rows of the option table).
    pub options: &'static [&'static str],
    /// Refuses, before any target is opened, what the engine cannot do for
    /// a job of this shape.
    pub check: fn(&Shape) -> Result<(), EngineError>,
}

impl EngineDesc {
    /// Whether `name` is this engine's, or one of fio's aliases for it.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// The [`EngineDesc::carries`] of an engine that reads, writes, flushes
/// (fsync, fdatasync, sync_file_range) and trims one range at a time, and
/// has no command without data.
pub(crate) fn data_ops(op: Op) -> bool {
    matches!(
        op,
        Op::Read | Op::Write | Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. } | Op::Trim
    )
}

/// The [`EngineDesc::carries`] of an engine that does no I/O: it takes
/// everything.
pub(crate) fn every_op(_: Op) -> bool {
    true
}

/// The [`EngineDesc::check`] of an engine that refuses no shape.
pub(crate) fn any_shape(_: &Shape) -> Result<(), EngineError> {
    Ok(())
}
