//! One thread's loop: keep the queue full of reads, hand them over in
//! batches, reap in batches, and publish the counts once per batch.
//!
//! The loop is generic over the queue, so each backend gets its own
//! monomorphised copy. Per request it does no allocation, takes no lock and
//! reads no clock; per batch it makes one relaxed load (the stop flag), and
//! every 64 batches four relaxed stores (the counts the reporter reads).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::Sender;
use std::sync::Barrier;

use anyhow::bail;
use ioscope_engine::{Op, Queue, QueueUser, Request};

use super::offsets::Offsets;

/// One thread's running totals, written by the thread only and read by the
/// reporter. Aligned to its own cache lines so threads do not share one.
#[derive(Default)]
#[repr(align(128))]
pub struct Progress {
    submitted: AtomicU64,
    completed: AtomicU64,
    submit_calls: AtomicU64,
    reap_calls: AtomicU64,
}

/// A snapshot of [`Progress`], added up over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub submitted: u64,
    pub completed: u64,
    /// System calls made to submit and to reap.
    pub submit_calls: u64,
    pub reap_calls: u64,
}

impl Progress {
    pub fn read(&self) -> Counts {
        Counts {
            submitted: self.submitted.load(Relaxed),
            completed: self.completed.load(Relaxed),
            submit_calls: self.submit_calls.load(Relaxed),
            reap_calls: self.reap_calls.load(Relaxed),
        }
    }

    #[inline]
    fn publish(&self, c: &Counts) {
        self.submitted.store(c.submitted, Relaxed);
        self.completed.store(c.completed, Relaxed);
        self.submit_calls.store(c.submit_calls, Relaxed);
        self.reap_calls.store(c.reap_calls, Relaxed);
    }
}

impl std::ops::Add for Counts {
    type Output = Counts;
    fn add(self, o: Counts) -> Counts {
        Counts {
            submitted: self.submitted + o.submitted,
            completed: self.completed + o.completed,
            submit_calls: self.submit_calls + o.submit_calls,
            reap_calls: self.reap_calls + o.reap_calls,
        }
    }
}

/// What a thread tells the main thread once its queue is built, so the
/// header is printed before the first second starts: its index and the
/// queue's setup note, or `Err` when it could not start (the error itself
/// comes back when the thread is joined).
pub type Ready = (usize, Result<Option<String>, ()>);

/// The loop, with everything it needs; run by [`ioscope_engine::open_queue`]
/// on the thread that built the queue.
pub struct Worker<'a> {
    pub index: usize,
    /// Where reads go; `None` for NOPs, which go nowhere.
    pub offsets: Option<Offsets>,
    pub depth: u32,
    pub submit_batch: u32,
    pub complete_batch: u32,
    pub block_size: u32,
    pub polled: bool,
    pub progress: &'a Progress,
    pub stop: &'a AtomicBool,
    /// Where the setup note goes, and the barrier every thread and the main
    /// thread pass before the clock starts.
    pub ready: Sender<Ready>,
    pub start: &'a Barrier,
    /// Names of the files, for error messages (none for NOPs).
    pub names: &'a [String],
}

impl QueueUser for Worker<'_> {
    type Output = anyhow::Result<()>;

    fn run<Q: Queue>(self, mut queue: Q) -> anyhow::Result<()> {
        // A closed channel means the main thread gave up; it still waits
        // at the barrier, and the stop flag is already set.
        let note = queue.setup_note().map(str::to_string);
        let _ = self.ready.send((self.index, Ok(note)));
        self.start.wait();
        let Worker {
            mut offsets,
            depth,
            submit_batch,
            complete_batch,
            block_size,
            polled,
            progress,
            stop,
            names,
            ..
        } = self;
        let want = i64::from(block_size);
        // Free slots (a stack: `free[..free_len]`), and where each slot's
        // read went, for error messages.
        let mut free: Box<[u32]> = (0..depth).rev().collect();
        let mut free_len = depth as usize;
        let mut target = vec![(0u32, 0u64); depth as usize];
        // Slots of requests a synchronous backend completed inside the
        // batch, put back on `free` after it.
        let mut returned = Vec::with_capacity(depth as usize);
        let mut counts = Counts::default();
        // A request a synchronous backend completes inside `submit` is one
        // system call that both submits and reaps.
        let mut sync_calls = 0u64;
        let mut failed = None;
        let mut batches = 0u32;
        while !stop.load(Relaxed) {
            let room = depth - queue.in_flight();
            let count = submit_batch.min(room);
            queue.submit_batch(
                count,
                || {
                    free_len -= 1;
                    let slot = free[free_len];
                    // NOPs go nowhere: nothing to note for an error message.
                    let (file, offset) = match &mut offsets {
                        Some(offsets) => {
                            let next = offsets.next();
                            target[slot as usize] = next;
                            next
                        }
                        None => (0, 0),
                    };
                    Request {
                        op: Op::Read,
                        file,
                        offset,
                        len: block_size,
                        slot,
                    }
                },
                |slot, result| {
                    returned.push(slot);
                    if result != want {
                        note_failure(&mut failed, slot, result);
                    }
                },
            )?;
            counts.submitted += u64::from(count);
            sync_calls += returned.len() as u64;
            counts.completed += returned.len() as u64;
            for slot in returned.drain(..) {
                free[free_len] = slot;
                free_len += 1;
            }
            let in_flight = queue.in_flight();
            if in_flight > 0 && failed.is_none() {
                // Wait only once the queue is full, as t/io_uring does;
                // before that, take whatever has already completed. The
                // batch goes out in the same system call (io_uring).
                let min = if in_flight < depth {
                    0
                } else {
                    complete_batch.min(in_flight)
                };
                let reaped = queue.commit_and_reap(min, depth, |c| {
                    free[free_len] = c.slot;
                    free_len += 1;
                    if c.result != want {
                        note_failure(&mut failed, c.slot, c.result);
                    }
                })?;
                counts.completed += u64::from(reaped);
            } else {
                queue.commit()?;
            }
            // The reporter reads the counts once a second: publishing them
            // every PUBLISH_EVERY batches costs no request anything, and
            // the last ones are published when the loop ends.
            batches = batches.wrapping_add(1);
            if batches.is_multiple_of(PUBLISH_EVERY) {
                publish(&queue, &mut counts, sync_calls, progress);
            }
            if let Some((slot, result)) = failed {
                publish(&queue, &mut counts, sync_calls, progress);
                stop.store(true, Relaxed);
                let (file, offset) = target[slot as usize];
                let name = names.get(file as usize).map_or("NOP", String::as_str);
                bail!("{}", bad_read(name, offset, block_size, result, polled));
            }
        }
        publish(&queue, &mut counts, sync_calls, progress);
        Ok(())
    }
}

/// Batches between two publications of a thread's counts.
const PUBLISH_EVERY: u32 = 64;

/// Hands the thread's counts, with the queue's system calls, to the
/// reporter.
fn publish<Q: Queue>(queue: &Q, counts: &mut Counts, sync_calls: u64, progress: &Progress) {
    let (submit_calls, reap_calls) = queue.calls();
    counts.submit_calls = submit_calls + sync_calls;
    counts.reap_calls = reap_calls;
    progress.publish(counts);
}

/// Keeps the first failed read. Out of line, so the reap loop keeps a
/// branch that is never taken instead of storing `failed` on every
/// completion.
#[cold]
#[inline(never)]
fn note_failure(failed: &mut Option<(u32, i64)>, slot: u32, result: i64) {
    failed.get_or_insert((slot, result));
}

/// What went wrong with one read, and what to change where that is known.
#[cold]
fn bad_read(name: &str, offset: u64, block_size: u32, result: i64, polled: bool) -> String {
    let what = if result < 0 {
        let errno = i32::try_from(-result).unwrap_or(i32::MAX);
        std::io::Error::from_raw_os_error(errno).to_string()
    } else {
        format!("a short read of {result} bytes")
    };
    let hint = if polled && result == -i64::from(libc::EOPNOTSUPP) {
        "; the device, filesystem or kernel cannot poll for completions: drop -p1"
    } else if result == -i64::from(libc::EINVAL) {
        "; with O_DIRECT the block size must suit the device: try -O0 or another -b"
    } else {
        ""
    };
    format!("{name}: read of {block_size} bytes at offset {offset} failed: {what}{hint}")
}
