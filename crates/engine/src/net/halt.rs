//! When a queue that waits on its peer gives up waiting.
//!
//! A blocked send or receive would otherwise outlive its job: a UDP
//! datagram lost, a pingpong reply that never comes because the receiver
//! reached its runtime first, a signal caught by another thread. The
//! socket's send and receive timeouts (SO_SNDTIMEO, SO_RCVTIMEO) wake each
//! wait every [`SLICE`], which costs no system call while data flows; at
//! each wake the queue asks [`Halt::due`] whether to go on waiting.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::link::setopt;
use crate::error::EngineError;

/// How long one wait lasts before the queue looks at its stop conditions.
const SLICE: Duration = Duration::from_millis(100);

/// The stop conditions of one queue.
#[derive(Debug)]
pub(super) struct Halt {
    /// Set when the run stops the job (a signal, exitall, exit_what).
    stop: Option<Arc<AtomicBool>>,
    /// The job's time limit, counted from its first request.
    limit: Option<Duration>,
    started: Option<Instant>,
}

impl Halt {
    /// Arms the socket's timeouts and keeps what stops the waits.
    pub(super) fn new(
        fd: RawFd,
        stop: Option<Arc<AtomicBool>>,
        limit: Option<Duration>,
    ) -> Result<Halt, EngineError> {
        let slice = libc::timeval {
            tv_sec: 0,
            tv_usec: SLICE.as_micros() as libc::suseconds_t,
        };
        for (name, what) in [
            (libc::SO_RCVTIMEO, "setsockopt SO_RCVTIMEO"),
            (libc::SO_SNDTIMEO, "setsockopt SO_SNDTIMEO"),
        ] {
            setopt(fd, libc::SOL_SOCKET, name, &slice, what)?;
        }
        Ok(Halt {
            stop,
            limit,
            started: None,
        })
    }

    /// Marks the job's first request, from which its time limit counts.
    pub(super) fn begin(&mut self) {
        self.started.get_or_insert_with(Instant::now);
    }

    /// For the result of a send or receive: true when it is a timed-out
    /// wait (EAGAIN) and the job may still wait, so the call is to be
    /// made again.
    pub(super) fn again(&self, result: i64) -> bool {
        result == -i64::from(libc::EAGAIN) && !self.due()
    }

    /// Whether the job is to stop waiting: stopped by the run, or past its
    /// time limit.
    pub(super) fn due(&self) -> bool {
        if self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return true;
        }
        match (self.limit, self.started) {
            (Some(limit), Some(started)) => started.elapsed() >= limit,
            _ => false,
        }
    }
}
