//! Holds the workers of a phase until every one of them is ready to issue
//! its first I/O, then lets them all go at once.
//!
//! Without it a worker starts its clock as soon as its own queue is open,
//! while the others are still being started and opening theirs: on a
//! machine with fewer CPUs than workers the late ones set up on CPUs shared
//! with the busy early ones, and every lock they need (the mm's, the fd
//! table's, the allocator's) can be held by a thread that has lost its CPU
//! for a whole round of the scheduler. A thousand workers of a 1 s job then
//! ran one after another for 40 s instead of side by side.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

pub(crate) struct StartGate {
    /// Workers that have not yet arrived.
    missing: AtomicUsize,
    /// Set once the gate is open. Waiting on it takes no lock on the way
    /// out, so a thousand workers leave without queueing for a mutex.
    open: OnceLock<()>,
}

impl StartGate {
    /// A gate for `workers` workers, each to hold one [`Ticket`].
    pub fn new(workers: usize) -> StartGate {
        let gate = StartGate {
            missing: AtomicUsize::new(workers),
            open: OnceLock::new(),
        };
        if workers == 0 {
            gate.open();
        }
        gate
    }

    /// Opens the gate whoever is missing: for a worker that could not be
    /// started.
    pub fn open(&self) {
        // Already open is as good.
        let _ = self.open.set(());
    }

    pub fn ticket(&self) -> Ticket<'_> {
        Ticket { gate: Some(self) }
    }

    fn arrive(&self) {
        if self.missing.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.open();
        }
    }
}

/// One worker's place at the gate. A worker that ends before it is ready
/// (a failed setup, a stop) arrives when its ticket is dropped, so the
/// others never wait for it.
pub(crate) struct Ticket<'a> {
    gate: Option<&'a StartGate>,
}

impl Ticket<'_> {
    /// Arrives and waits until every worker has.
    pub fn wait(&mut self) {
        if let Some(gate) = self.gate.take() {
            gate.arrive();
            gate.open.wait();
        }
    }

    /// Arrives without waiting: this worker starts on its own time.
    pub fn leave(&mut self) {
        if let Some(gate) = self.gate.take() {
            gate.arrive();
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_opens_when_the_last_worker_arrives() {
        let gate = StartGate::new(3);
        let passed = &AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..2 {
                let mut ticket = gate.ticket();
                s.spawn(move || {
                    ticket.wait();
                    passed.fetch_add(1, Ordering::Relaxed);
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(passed.load(Ordering::Relaxed), 0, "passed a closed gate");
            // The third worker failed before it was ready.
            drop(gate.ticket());
        });
        assert_eq!(passed.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_worker_that_leaves_is_not_waited_for() {
        let gate = StartGate::new(2);
        let mut delayed = gate.ticket();
        delayed.leave();
        gate.ticket().wait();
    }

    #[test]
    fn opening_lets_through_whoever_is_missing() {
        let gate = StartGate::new(5);
        gate.open();
        gate.ticket().wait();
    }
}
