//! fio's `vsync`: requests that continue one another (same file, same
//! direction, each starting where the last ended) are gathered, up to the
//! queue depth, and sent as one readv(2)/writev(2) after an lseek(2) to the
//! first one's offset, as fio's `fio_vsyncio_queue`/`_commit` do. A request
//! that does not continue the gathered ones sends them first. fsync and
//! trims also send what was gathered first, then run synchronously.

use std::io;
use std::os::fd::RawFd;

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Completion, Op, Request};
use crate::syscall::{errno, io_result};
use crate::trim::{trim, TrimMethod};

pub(crate) static VSYNC: EngineDesc = EngineDesc {
    name: "vsync",
    aliases: &[],
    help: "readv/writev/lseek, contiguous requests gathered into one call",
    kind: EngineKind::Queued,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &[],
    check: any_shape,
};

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<VsyncQueue, EngineError> {
    VsyncQueue::new(config, fds)
}

/// The requests being gathered: all on `file`, in one direction, the
/// first at `start`, each where the one before ended.
struct Gathered {
    file: usize,
    write: bool,
    start: u64,
    /// Where the next request must start to join.
    end: u64,
    /// One per request: its slot and length, in order.
    slots: Vec<(u32, u32)>,
    iov: Vec<libc::iovec>,
}

/// fio's `vsync` queue: see the module documentation.
pub struct VsyncQueue {
    fds: Box<[RawFd]>,
    trims: Box<[TrimMethod]>,
    buffers: SlotBuffers,
    depth: usize,
    gathered: Gathered,
    /// Completions of sent requests, waiting to be reaped.
    done: Vec<Completion>,
}

// SAFETY: the iovecs point into `buffers`, which the queue owns and moves
// with it; nothing else holds them.
unsafe impl Send for VsyncQueue {}

impl VsyncQueue {
    /// A queue over `fds` (indexed by [`Request::file`]), which must stay
    /// open as long as the queue is used.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<VsyncQueue, EngineError> {
        crate::queue::check_fds("vsync", fds)?;
        let depth = config.depth as usize;
        Ok(VsyncQueue {
            fds: fds.into(),
            trims: TrimMethod::for_fds(fds)?,
            buffers: SlotBuffers::new(config)?,
            depth,
            gathered: Gathered {
                file: 0,
                write: false,
                start: 0,
                end: 0,
                slots: Vec::with_capacity(depth),
                iov: Vec::with_capacity(depth),
            },
            done: Vec::with_capacity(depth),
        })
    }

    /// Sends what was gathered as one call and keeps each request's share
    /// of the result for [`Queue::reap`]. Returns how many were sent.
    fn send(&mut self) -> u32 {
        let g = &mut self.gathered;
        let n = g.slots.len();
        if n == 0 {
            return 0;
        }
        let fd = self.fds[g.file];
        // SAFETY: lseek touches no memory.
        let result = if unsafe { libc::lseek(fd, g.start as libc::off_t, libc::SEEK_SET) } == -1 {
            -i64::from(errno())
        } else {
            // SAFETY: each iovec addresses a slot of `self.buffers`
            // (checked by `SlotBuffers::io_ptr` when it was gathered) that
            // the caller leaves alone until the request is reaped.
            io_result(|| unsafe {
                if g.write {
                    libc::writev(fd, g.iov.as_ptr(), n as libc::c_int)
                } else {
                    libc::readv(fd, g.iov.as_ptr(), n as libc::c_int)
                }
            })
        };
        // A failed call fails every request; a short one is shared out in
        // order, as fio hands out the bytes moved (fio_vsyncio_end).
        let mut left = result;
        for &(slot, len) in &g.slots {
            let share = if result < 0 {
                result
            } else {
                let share = left.min(i64::from(len));
                left -= share;
                share
            };
            self.done.push(Completion {
                slot,
                result: share,
            });
        }
        g.slots.clear();
        g.iov.clear();
        n as u32
    }
}

impl Queue for VsyncQueue {
    const COMPLETES_IN_SUBMIT: bool = false;

    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let file = req.file as usize;
        let Some(&fd) = self.fds.get(file) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        let write = match req.op {
            Op::Read => false,
            Op::Write => true,
            Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. } | Op::Trim => {
                // fio answers FIO_Q_BUSY so that what was gathered goes
                // first; sending it here keeps that order.
                self.send();
                let result = match req.op {
                    // SAFETY: fsync touches no memory.
                    Op::Fsync => io_result(|| unsafe { libc::fsync(fd) } as isize),
                    // SAFETY: fdatasync touches no memory.
                    Op::Fdatasync => io_result(|| unsafe { libc::fdatasync(fd) } as isize),
                    Op::SyncFileRange { flags } => {
                        crate::syscall::sync_file_range(fd, req.offset, req.len, flags)
                    }
                    _ => trim(fd, self.trims[file], req.offset, req.len),
                };
                return Ok(Submitted::Completed(result));
            }
            Op::WriteZeroes { .. }
            | Op::WriteUncorrectable
            | Op::DeviceVerify
            | Op::TrimRanges { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
        };
        let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
            return Err(bad_request(
                req,
                "lies outside the queue's buffers (slot >= depth or len > buffer size)",
            ));
        };
        let g = &self.gathered;
        let joins = !g.slots.is_empty()
            && g.file == file
            && g.write == write
            && g.end == req.offset
            && g.slots.len() < self.depth;
        if !joins {
            self.send();
            let g = &mut self.gathered;
            g.file = file;
            g.write = write;
            g.start = req.offset;
            g.end = req.offset;
        }
        let g = &mut self.gathered;
        g.end += u64::from(req.len);
        g.slots.push((req.slot, req.len));
        g.iov.push(libc::iovec {
            iov_base: ptr.cast(),
            iov_len: req.len as usize,
        });
        Ok(Submitted::Queued)
    }

    fn commit(&mut self) -> io::Result<u32> {
        Ok(self.send())
    }

    /// Everything sent has completed; what is still gathered is sent first
    /// when the caller waits for more than is done.
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        if (self.done.len() as u32) < min {
            self.send();
        }
        let n = self.done.len().min(max as usize);
        for c in self.done.drain(..n) {
            on_complete(c);
        }
        Ok(n as u32)
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        (self.gathered.slots.len() + self.done.len()) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{OpenOptions, Target};

    const BS: u32 = 4096;

    fn queue(depth: u32, t: &Target) -> VsyncQueue {
        let config = QueueConfig {
            depth,
            buffer_size: BS as usize,
            buffer_align: 4096,
            ..QueueConfig::default()
        };
        VsyncQueue::new(&config, &[t.fd()]).unwrap()
    }

    fn open(path: &std::path::Path) -> Target {
        let options = OpenOptions {
            read: true,
            write: true,
            create: true,
            direct: false,
            pi_in_data: false,
        };
        Target::open(path, &options).unwrap()
    }

    fn req(op: Op, offset: u64, slot: u32) -> Request {
        Request {
            op,
            file: 0,
            offset,
            len: BS,
            slot,
        }
    }

    fn reap_all(q: &mut VsyncQueue) -> Vec<Completion> {
        let mut out = Vec::new();
        q.reap(0, u32::MAX, |c| out.push(c)).unwrap();
        out
    }

    #[test]
    fn contiguous_requests_go_out_as_one_call() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"));
        let mut q = queue(4, &t);
        for slot in 0..4 {
            q.buffer(slot).fill(0x30 + slot as u8);
            let r = q
                .submit(&req(Op::Write, u64::from(slot * BS), slot))
                .unwrap();
            assert!(matches!(r, Submitted::Queued));
        }
        assert_eq!(q.in_flight(), 4);
        // Nothing reached the file before the commit: one writev sends all.
        assert_eq!(std::fs::metadata(t.path()).unwrap().len(), 0);
        assert_eq!(q.commit().unwrap(), 4);
        let done = reap_all(&mut q);
        assert_eq!(done.len(), 4);
        assert!(done.iter().all(|c| c.result == i64::from(BS)));
        let on_disk = std::fs::read(t.path()).unwrap();
        for (i, block) in on_disk.chunks(BS as usize).enumerate() {
            assert!(block.iter().all(|&b| b == 0x30 + i as u8), "block {i}");
        }
    }

    #[test]
    fn a_request_elsewhere_sends_the_gathered_ones_first() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"));
        let mut q = queue(4, &t);
        q.buffer(0).fill(1);
        q.submit(&req(Op::Write, 0, 0)).unwrap();
        q.buffer(1).fill(2);
        // Not where the last one ended: block 0 is written now.
        q.submit(&req(Op::Write, u64::from(3 * BS), 1)).unwrap();
        assert_eq!(std::fs::metadata(t.path()).unwrap().len(), u64::from(BS));
        assert_eq!(q.commit().unwrap(), 1);
        assert_eq!(reap_all(&mut q).len(), 2);
        assert_eq!(
            std::fs::metadata(t.path()).unwrap().len(),
            u64::from(4 * BS)
        );
    }

    #[test]
    fn a_short_read_is_shared_out_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; BS as usize + 100]).unwrap();
        let t = open(&path);
        let mut q = queue(3, &t);
        for slot in 0..3 {
            q.submit(&req(Op::Read, u64::from(slot * BS), slot))
                .unwrap();
        }
        q.commit().unwrap();
        let results: Vec<i64> = reap_all(&mut q).iter().map(|c| c.result).collect();
        assert_eq!(results, vec![i64::from(BS), 100, 0]);
        assert!(q.buffer(1)[..100].iter().all(|&b| b == 7));
    }

    #[test]
    fn errors_fail_every_gathered_request_and_reap_sends_what_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; BS as usize]).unwrap();
        let read_only = OpenOptions {
            read: true,
            ..Default::default()
        };
        let t = Target::open(&path, &read_only).unwrap();
        let mut q = queue(2, &t);
        q.submit(&req(Op::Write, 0, 0)).unwrap();
        q.submit(&req(Op::Write, u64::from(BS), 1)).unwrap();
        // No commit: a reap that waits for one sends them.
        let mut results = Vec::new();
        assert_eq!(q.reap(1, 8, |c| results.push(c.result)).unwrap(), 2);
        assert_eq!(results, vec![-i64::from(libc::EBADF); 2]);
        assert_eq!(q.in_flight(), 0);
    }

    #[test]
    fn fsync_goes_after_what_was_gathered() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"));
        let mut q = queue(2, &t);
        q.buffer(0).fill(9);
        q.submit(&req(Op::Write, 0, 0)).unwrap();
        let r = q.submit(&req(Op::Fsync, 0, 0)).unwrap();
        assert!(matches!(r, Submitted::Completed(0)));
        assert_eq!(std::fs::read(t.path()).unwrap(), vec![9u8; BS as usize]);
        assert_eq!(reap_all(&mut q).len(), 1);
    }
}
