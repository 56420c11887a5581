//! `verify_async=N`: blocks read back are checked by N threads instead of
//! the worker, as fio's offload threads do, so the worker keeps I/O in
//! flight while checksums are computed. A slot whose block is being checked
//! stays out of use until its verdict comes back; the worker records the
//! verdict (counts, messages, dumps) itself, so the bookkeeping stays on one
//! thread.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use ioscope_workload::{Corruption, Verifier};

use crate::verify::{examine, SlotWork};

/// A block to check: the slot's buffer, which stays untouched (the slot is
/// held) until the verdict for it is taken back.
struct Job {
    slot: u32,
    work: SlotWork,
    block: Block,
}

/// The read bytes of a held slot.
struct Block {
    ptr: *const u8,
    len: usize,
}

// SAFETY: the bytes belong to a slot that is neither reused nor freed
// until its verdict is received (the queue that owns them outlives the
// checker threads, which `AsyncChecks` joins when dropped), and nothing
// writes them meanwhile.
unsafe impl Send for Block {}

/// A check done off the worker thread.
pub(crate) struct Verdict {
    pub slot: u32,
    pub work: SlotWork,
    pub found: Result<(), Corruption>,
}

pub(crate) struct AsyncChecks {
    jobs: Option<Sender<Job>>,
    verdicts: Receiver<Verdict>,
    threads: Vec<JoinHandle<()>>,
    /// Checks sent and not yet taken back.
    pub pending: u32,
}

impl AsyncChecks {
    /// Starts `threads` checkers with copies of the worker's verifier.
    /// Each runs on `cpus` (verify_async_cpus) when given. fio 3.33 sets
    /// that mask on the job's pid rather than on its verify threads (a
    /// slip: the HOWTO says the threads); ioscope places the threads.
    pub(crate) fn start(
        verifier: &Verifier,
        threads: u32,
        cpus: &[u32],
    ) -> std::io::Result<AsyncChecks> {
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let (done_tx, verdicts) = mpsc::channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let mut handles = Vec::with_capacity(threads as usize);
        for i in 0..threads {
            let verifier = verifier.clone();
            let job_rx = Arc::clone(&job_rx);
            let done_tx = done_tx.clone();
            let cpus = cpus.to_vec();
            let handle = std::thread::Builder::new()
                .name(format!("ioscope-verify-{i}"))
                .spawn(move || {
                    // A checker that cannot be placed stops, as fio's
                    // does; the worker then reports the checks missing.
                    if crate::affinity::pin_current_thread(&cpus).is_err() {
                        return;
                    }
                    loop {
                        let job = match job_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        // SAFETY: see `Block`.
                        let buf =
                            unsafe { std::slice::from_raw_parts(job.block.ptr, job.block.len) };
                        let found = examine(&verifier, job.work, buf);
                        let verdict = Verdict {
                            slot: job.slot,
                            work: job.work,
                            found,
                        };
                        if done_tx.send(verdict).is_err() {
                            return;
                        }
                    }
                })?;
            handles.push(handle);
        }
        Ok(AsyncChecks {
            jobs: Some(job_tx),
            verdicts,
            threads: handles,
            pending: 0,
        })
    }

    /// Hands the block in `buf` (slot `slot`, held until its verdict is
    /// taken) to a checker. False when no checker is left to take it.
    pub(crate) fn send(&mut self, slot: u32, work: SlotWork, buf: &[u8]) -> bool {
        let job = Job {
            slot,
            work,
            block: Block {
                ptr: buf.as_ptr(),
                len: buf.len(),
            },
        };
        // A send fails only when every checker thread has ended.
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        self.pending += u32::from(sent);
        sent
    }

    /// A verdict, waiting for one when `wait` (and one is pending).
    pub(crate) fn take(&mut self, wait: bool) -> Option<Verdict> {
        if self.pending == 0 {
            return None;
        }
        let v = if wait {
            self.verdicts.recv().ok()
        } else {
            self.verdicts.try_recv().ok()
        };
        if v.is_some() {
            self.pending -= 1;
        }
        v
    }
}

impl Drop for AsyncChecks {
    fn drop(&mut self) {
        // Closing the channel ends each checker after its current block.
        self.jobs = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
