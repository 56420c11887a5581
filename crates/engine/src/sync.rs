//! Synchronous backends: sync (lseek+read/write), psync (pread/pwrite),
//! pvsync2 (preadv2/pwritev2, RWF_HIPRI when asked).

use std::io;
use std::os::fd::RawFd;

use crate::backend::QueueConfig;
use crate::buffer::SlotBuffers;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::request::{Completion, Op, Request};
use crate::syscall::io_result;

/// Which system calls a [`SyncQueue`] moves data with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// lseek(2) then read(2)/write(2), as fio's `sync`. The queue remembers
    /// where each file's position was left and skips the lseek when a
    /// request starts there (sequential I/O), so it assumes it is the only
    /// user of the descriptors' file positions.
    Sync,
    /// pread(2)/pwrite(2), as fio's `psync`.
    Psync,
    /// preadv2(2)/pwritev2(2) with one iovec, as fio's `pvsync2` (Linux 4.6
    /// and later). With [`QueueConfig::hipri`] every transfer carries
    /// RWF_HIPRI: the kernel polls for the completion when the file is open
    /// with O_DIRECT on a block device that has poll queues, and otherwise
    /// accepts the flag and completes the I/O as usual (buffered files,
    /// devices without poll queues), so the flag never fails a transfer.
    Pvsync2,
}

/// A queue whose requests complete inside [`Queue::submit`]: one system call
/// per request (two for `Sync` when it must seek), nothing ever in flight.
/// A depth above 1 is allowed and gives that many buffer slots.
pub struct SyncQueue {
    mode: SyncMode,
    fds: Box<[RawFd]>,
    /// `Sync` only: where each descriptor's file position is known to be,
    /// or `UNKNOWN_POSITION` before the first transfer and after a failed
    /// seek.
    positions: Box<[u64]>,
    buffers: SlotBuffers,
    /// preadv2/pwritev2 flags.
    rw_flags: libc::c_int,
}

const UNKNOWN_POSITION: u64 = u64::MAX;

impl SyncQueue {
    /// A queue over `fds` (indexed by [`Request::file`]), which must stay
    /// open as long as the queue is used. `config.hipri` matters only to
    /// [`SyncMode::Pvsync2`], as fio's `hipri` option belongs to pvsync2.
    pub fn new(
        mode: SyncMode,
        config: &QueueConfig,
        fds: &[RawFd],
    ) -> Result<SyncQueue, EngineError> {
        if fds.is_empty() {
            return Err(EngineError::Setup(format!(
                "the {} backend needs at least one open file or device",
                mode_name(mode)
            )));
        }
        if let Some(fd) = fds.iter().find(|&&fd| fd < 0) {
            return Err(EngineError::Setup(format!(
                "file descriptor {fd} is not valid; open every target before building the queue"
            )));
        }
        let positions = match mode {
            SyncMode::Sync => vec![UNKNOWN_POSITION; fds.len()].into_boxed_slice(),
            SyncMode::Psync | SyncMode::Pvsync2 => Box::default(),
        };
        let rw_flags = if mode == SyncMode::Pvsync2 && config.hipri {
            libc::RWF_HIPRI
        } else {
            0
        };
        Ok(SyncQueue {
            mode,
            fds: fds.into(),
            positions,
            buffers: SlotBuffers::new(config)?,
            rw_flags,
        })
    }

    /// lseek (when the position is not already `offset`) and read/write.
    fn seek_and_transfer(
        &mut self,
        file: usize,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        offset: u64,
    ) -> i64 {
        let pos = &mut self.positions[file];
        if *pos != offset {
            // SAFETY: lseek touches no memory.
            if unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) } == -1 {
                *pos = UNKNOWN_POSITION;
                return -i64::from(crate::syscall::errno());
            }
            *pos = offset;
        }
        // SAFETY: `ptr` addresses `len` bytes of this queue's buffers
        // (checked by `SlotBuffers::io_ptr`), borrowed mutably by `self`.
        let r = io_result(|| unsafe {
            if write {
                libc::write(fd, ptr.cast_const().cast(), len)
            } else {
                libc::read(fd, ptr.cast(), len)
            }
        });
        if r >= 0 {
            *pos = offset + r as u64;
        }
        r
    }
}

impl Queue for SyncQueue {
    #[inline]
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
            // SAFETY: fsync touches no memory.
            Op::Fsync => {
                return Ok(Submitted::Completed(io_result(
                    || unsafe { libc::fsync(fd) } as isize,
                )))
            }
        };
        let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
            return Err(bad_request(
                req,
                "lies outside the queue's buffers (slot >= depth or len > buffer size)",
            ));
        };
        let len = req.len as usize;
        let offset = req.offset as libc::off_t;
        // SAFETY (all arms): `ptr` addresses `len` bytes of this queue's
        // buffers (checked by `SlotBuffers::io_ptr`), which `&mut self`
        // keeps from being used elsewhere during the call.
        let result = match self.mode {
            SyncMode::Psync => io_result(|| unsafe {
                if write {
                    libc::pwrite(fd, ptr.cast_const().cast(), len, offset)
                } else {
                    libc::pread(fd, ptr.cast(), len, offset)
                }
            }),
            SyncMode::Pvsync2 => {
                // On the stack: building it costs two stores and keeps the
                // queue free of raw pointers.
                let iov = libc::iovec {
                    iov_base: ptr.cast(),
                    iov_len: len,
                };
                let flags = self.rw_flags;
                io_result(|| unsafe {
                    if write {
                        libc::pwritev2(fd, &iov, 1, offset, flags)
                    } else {
                        libc::preadv2(fd, &iov, 1, offset, flags)
                    }
                })
            }
            SyncMode::Sync => self.seek_and_transfer(file, fd, write, ptr, len, req.offset),
        };
        Ok(Submitted::Completed(result))
    }

    /// Nothing is ever queued.
    fn commit(&mut self) -> io::Result<u32> {
        Ok(0)
    }

    /// Nothing is ever in flight: every request completed in `submit`.
    fn reap<F: FnMut(Completion)>(
        &mut self,
        _min: u32,
        _max: u32,
        _on_complete: F,
    ) -> io::Result<u32> {
        Ok(0)
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        0
    }
}

fn mode_name(mode: SyncMode) -> &'static str {
    match mode {
        SyncMode::Sync => "sync",
        SyncMode::Psync => "psync",
        SyncMode::Pvsync2 => "pvsync2",
    }
}

/// A request the queue cannot carry out: a bug in the caller, reported
/// rather than turned into I/O on memory or descriptors the queue does not own.
#[cold]
fn bad_request(req: &Request, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("request {req:?} {why}"),
    )
}
