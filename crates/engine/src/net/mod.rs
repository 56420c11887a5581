//! fio's network engines: `net` (send/recv on a socket: TCP, UDP, Unix or
//! vsock) and `netsplice` (the same, with TCP and vsock data moved through
//! a pipe by splice/vmsplice).
//!
//! The target is a connection, not a file: [`NetLink`] sets the socket up
//! (binds and listens before the run, so a sender started at once finds
//! the receiver; accepts or connects once the job starts), and the queue
//! ([`NetQueue`]) sends the writes and receives the reads of one job over
//! it, synchronously. A job either receives (`rw=read`) or sends
//! (`rw=write`), as in fio.
//!
//! The wire is fio 3.33's, so either end may be fio: a UDP sender opens the
//! link with an 8-byte message the receiver waits for, every sender ends it
//! with an 8-byte close message (on a stream too, where a receiver that
//! reads exactly that at the end drops it), and a UDP sender keeps a
//! sequence number in the last 24 bytes of each datagram.

mod halt;
mod link;
mod queue;
mod vsock;
mod wire;

pub use link::{Connection, NetEndpoint, NetLink};
pub use queue::NetQueue;
pub use vsock::vsock_cid;

use std::os::fd::RawFd;

use crate::descriptor::{EngineDesc, EngineKind, Shape};
use crate::error::EngineError;
use crate::queue_config::QueueConfig;
use crate::request::Op;

/// The options both engines take (fio's `options[]` of engines/net.c).
const OPTIONS: &[&str] = &[
    "hostname",
    "port",
    "protocol",
    "listen",
    "pingpong",
    "nodelay",
    "window_size",
    "mss",
    "interface",
    "ttl",
];

/// Reads and writes only: a socket has nothing to flush or trim.
fn stream_ops(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write)
}

fn check(shape: &Shape) -> Result<(), EngineError> {
    if shape.direct {
        return Err(EngineError::Setup(
            "direct=1: a socket cannot be opened with O_DIRECT; leave direct at 0 with \
             ioengine=net"
                .into(),
        ));
    }
    if shape.hipri {
        return Err(EngineError::Setup(
            "hipri: a socket has no polled completions".into(),
        ));
    }
    Ok(())
}

pub(crate) static NET: EngineDesc = EngineDesc {
    name: "net",
    aliases: &[],
    help: "send/recv over a TCP, UDP, Unix or vsock socket",
    kind: EngineKind::Network,
    fio: true,
    ring: false,
    carries: stream_ops,
    options: OPTIONS,
    check,
};

pub(crate) static NETSPLICE: EngineDesc = EngineDesc {
    name: "netsplice",
    help: "net, with TCP and vsock data moved by splice/vmsplice through a pipe",
    ..NET
};

/// The `net` queue over the one connected socket in `fds`.
pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<NetQueue, EngineError> {
    NetQueue::new(config, fds, false)
}

/// The `netsplice` queue: splice for TCP and vsock, plain send/recv for UDP
/// and Unix sockets, as fio's.
pub(crate) fn open_splice(config: &QueueConfig, fds: &[RawFd]) -> Result<NetQueue, EngineError> {
    NetQueue::new(config, fds, true)
}

#[cfg(test)]
mod tests;
