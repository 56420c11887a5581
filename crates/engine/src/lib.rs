//! ioscope's I/O backend library.
//!
//! A [`Target`] is a file or device opened once. A backend turns a set of open
//! targets into a [`Queue`]: the caller hands it [`Request`]s and gets
//! [`Completion`]s back. Timing, pinning and choosing what to issue next are
//! the caller's business, so this crate can be used without the rest of
//! ioscope.
//!
//! The queue trait is used generically: [`open_queue`] picks the backend once
//! and hands the concrete queue type to a [`QueueUser`], so the caller's hot
//! loop is monomorphised per backend with no virtual call per I/O.

mod backend;
mod buffer;
mod error;
mod null;
mod queue;
mod request;
mod sync;
mod syscall;
mod target;

pub use backend::{open_queue, Backend, QueueConfig, QueueUser};
pub use buffer::AlignedBuffer;
pub use error::EngineError;
pub use null::NullQueue;
pub use queue::{Queue, Submitted};
pub use request::{Completion, Op, Request};
pub use sync::{SyncMode, SyncQueue};
pub use target::{
    layout_file, layout_file_with, mounted_use, needs_layout, OpenOptions, Target, TargetKind,
};
