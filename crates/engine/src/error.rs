//! Errors of this crate: each names the target and what to change.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{path}: cannot open: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("{path}: {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        source: io::Error,
    },
    #[error("{path}: {message}")]
    Target { path: PathBuf, message: String },
    /// The caller asked a long operation (a layout) to stop before its end.
    #[error("{path}: stopped before the layout was complete")]
    Stopped { path: PathBuf },
    #[error("{0}")]
    Setup(String),
    /// Polled completions asked of an engine on buffered I/O, which the
    /// kernel cannot poll.
    #[error("polled completions with {engine} need O_DIRECT: the kernel cannot poll buffered I/O")]
    PollNeedsDirect { engine: &'static str },
}
