//! Synchronous backends: sync (lseek+read/write), psync (pread/pwrite),
//! pvsync2 (preadv2/pwritev2, RWF_HIPRI when asked). Trims punch a hole
//! or discard (see `trim.rs`), as fio's sync engines do.

use std::io;
use std::os::fd::RawFd;

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Op, Request};
use crate::syscall::io_result;
use crate::trim::{trim, TrimMethod};

/// The system calls a [`SyncQueue`] moves data with: one implementation per
/// synchronous engine, so the queue is compiled for each with no branch on
/// the engine per request.
pub trait SyncCalls: Send + Sized + 'static {
    /// fio's name for the engine.
    const NAME: &'static str;
    /// Whether transfers happen at the descriptor's file position, which
    /// the queue moves with lseek(2) first, rather than at an offset.
    const SEEKS: bool = false;

    /// The calls of a queue built with `config`.
    fn new(config: &QueueConfig) -> Self;

    /// Whether the next transfers carry RWF_HIPRI (pvsync2's
    /// `hipri_percentage`); the other calls have no such flag.
    #[inline]
    fn set_hipri(&mut self, on: bool) {
        let _ = on;
    }

    /// Reads (`write` false) or writes `len` bytes at `ptr` from or to
    /// `fd`, at `offset` (ignored when [`SyncCalls::SEEKS`]); returns what
    /// the system call returns.
    ///
    /// # Safety
    ///
    /// `ptr` must address `len` bytes that nothing else uses during the call.
    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        offset: libc::off_t,
    ) -> isize;
}

/// lseek(2) then read(2)/write(2), as fio's `sync`. The queue remembers
/// where each file's position was left and skips the lseek when a request
/// starts there (sequential I/O), so it assumes it is the only user of the
/// descriptors' file positions.
pub struct ReadWrite;

impl SyncCalls for ReadWrite {
    const NAME: &'static str = "sync";
    const SEEKS: bool = true;

    fn new(_: &QueueConfig) -> Self {
        ReadWrite
    }

    #[inline]
    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        _: libc::off_t,
    ) -> isize {
        if write {
            libc::write(fd, ptr.cast_const().cast(), len)
        } else {
            libc::read(fd, ptr.cast(), len)
        }
    }
}

/// pread(2)/pwrite(2), as fio's `psync`.
pub struct PreadPwrite;

impl SyncCalls for PreadPwrite {
    const NAME: &'static str = "psync";

    fn new(_: &QueueConfig) -> Self {
        PreadPwrite
    }

    #[inline]
    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        offset: libc::off_t,
    ) -> isize {
        if write {
            libc::pwrite(fd, ptr.cast_const().cast(), len, offset)
        } else {
            libc::pread(fd, ptr.cast(), len, offset)
        }
    }
}

/// preadv2(2)/pwritev2(2) with one iovec, as fio's `pvsync2` (Linux 4.6 and
/// later). With [`QueueConfig::hipri`] every transfer carries RWF_HIPRI: the
/// kernel polls for the completion when the file is open with O_DIRECT on a
/// block device that has poll queues, and otherwise accepts the flag and
/// completes the I/O as usual (buffered files, devices without poll queues),
/// so the flag never fails a transfer.
pub struct Preadv2Pwritev2 {
    flags: libc::c_int,
}

impl SyncCalls for Preadv2Pwritev2 {
    const NAME: &'static str = "pvsync2";

    #[inline]
    fn set_hipri(&mut self, on: bool) {
        if on {
            self.flags |= libc::RWF_HIPRI;
        } else {
            self.flags &= !libc::RWF_HIPRI;
        }
    }

    fn new(config: &QueueConfig) -> Self {
        let mut flags = if config.hipri { libc::RWF_HIPRI } else { 0 };
        if config.pvsync2.nowait {
            flags |= libc::RWF_NOWAIT;
        }
        if config.pvsync2.uncached {
            flags |= crate::dontcache::RWF_DONTCACHE;
        }
        Preadv2Pwritev2 { flags }
    }

    #[inline]
    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        offset: libc::off_t,
    ) -> isize {
        // On the stack: building it costs two stores and keeps the queue
        // free of raw pointers.
        let iov = libc::iovec {
            iov_base: ptr.cast(),
            iov_len: len,
        };
        if write {
            libc::pwritev2(fd, &iov, 1, offset, self.flags)
        } else {
            libc::preadv2(fd, &iov, 1, offset, self.flags)
        }
    }
}

pub(crate) static SYNC: EngineDesc = EngineDesc {
    name: "sync",
    aliases: &[],
    help: "read/write/lseek",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &[],
    check: any_shape,
};

pub(crate) static PSYNC: EngineDesc = EngineDesc {
    name: "psync",
    help: "pread/pwrite",
    ..SYNC
};

pub(crate) static PVSYNC2: EngineDesc = EngineDesc {
    name: "pvsync2",
    help: "preadv2/pwritev2, with RWF_HIPRI when hipri is set",
    options: &["hipri", "hipri_percentage", "nowait", "uncached"],
    ..SYNC
};

/// Builds the queue of the synchronous engine whose calls are `C`.
pub(crate) fn open<C: SyncCalls>(
    config: &QueueConfig,
    fds: &[RawFd],
) -> Result<SyncQueue<C>, EngineError> {
    SyncQueue::new(config, fds)
}

/// A queue whose requests complete inside [`Queue::submit`]: one system call
/// per request (two for [`ReadWrite`] when it must seek), nothing ever in
/// flight. A depth above 1 is allowed and gives that many buffer slots.
pub struct SyncQueue<C: SyncCalls> {
    calls: C,
    fds: Box<[RawFd]>,
    /// [`SyncCalls::SEEKS`] only: where each descriptor's file position is
    /// known to be, or `UNKNOWN_POSITION` before the first transfer and
    /// after a failed seek.
    positions: Box<[u64]>,
    /// One per descriptor.
    trims: Box<[TrimMethod]>,
    buffers: SlotBuffers,
}

const UNKNOWN_POSITION: u64 = u64::MAX;

impl<C: SyncCalls> SyncQueue<C> {
    /// A queue over `fds` (indexed by [`Request::file`]), which must stay
    /// open as long as the queue is used. `config.hipri` matters only to
    /// [`Preadv2Pwritev2`], as fio's `hipri` option belongs to pvsync2.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<SyncQueue<C>, EngineError> {
        crate::queue::check_fds(C::NAME, fds)?;
        if config.pvsync2.uncached {
            crate::dontcache::check_uncached(fds)?;
        }
        let positions = if C::SEEKS {
            vec![UNKNOWN_POSITION; fds.len()].into_boxed_slice()
        } else {
            Box::default()
        };
        Ok(SyncQueue {
            calls: C::new(config),
            fds: fds.into(),
            positions,
            trims: TrimMethod::for_fds(fds)?,
            buffers: SlotBuffers::new(config)?,
        })
    }

    /// lseek (when the position is not already `offset`) and transfer.
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
        let calls = &self.calls;
        // SAFETY: `ptr` addresses `len` bytes of this queue's buffers
        // (checked by `SlotBuffers::io_ptr`), borrowed mutably by `self`.
        let r = io_result(|| unsafe { calls.transfer(fd, write, ptr, len, 0) });
        if r >= 0 {
            *pos = offset + r as u64;
        }
        r
    }
}

impl<C: SyncCalls> Queue for SyncQueue<C> {
    #[inline]
    fn set_hipri(&mut self, on: bool) {
        self.calls.set_hipri(on);
    }

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
            // SAFETY: fdatasync touches no memory.
            Op::Fdatasync => {
                return Ok(Submitted::Completed(io_result(
                    || unsafe { libc::fdatasync(fd) } as isize,
                )))
            }
            Op::SyncFileRange { flags } => {
                return Ok(Submitted::Completed(crate::syscall::sync_file_range(
                    fd, req.offset, req.len, flags,
                )))
            }
            Op::Trim => {
                return Ok(Submitted::Completed(trim(
                    fd,
                    self.trims[file],
                    req.offset,
                    req.len,
                )))
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
        let len = req.len as usize;
        let result = if C::SEEKS {
            self.seek_and_transfer(file, fd, write, ptr, len, req.offset)
        } else {
            let calls = &self.calls;
            // SAFETY: `ptr` addresses `len` bytes of this queue's buffers
            // (checked by `SlotBuffers::io_ptr`), which `&mut self` keeps
            // from being used elsewhere during the call.
            io_result(|| unsafe { calls.transfer(fd, write, ptr, len, req.offset as libc::off_t) })
        };
        Ok(Submitted::Completed(result))
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{OpenOptions, Target};
    use crate::test_io::{completed, req};
    use ioscope_testutil::{o_direct, require};
    use std::path::Path;

    const BS: usize = 4096;

    fn config(depth: u32, hipri: bool) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: BS,
            buffer_align: 4096,
            hipri,
            ..QueueConfig::default()
        }
    }

    fn open(path: &Path, direct: bool) -> Result<Target, EngineError> {
        Target::open(
            path,
            &OpenOptions {
                read: true,
                write: true,
                create: true,
                direct,
                pi_in_data: false,
            },
        )
    }

    /// Writes four blocks out of order, each filled with its own byte, reads
    /// them back through another slot, and checks the file on disk too.
    fn round_trip<C: SyncCalls>(target: &Target, hipri: bool) {
        let mode = C::NAME;
        let mut q = SyncQueue::<C>::new(&config(2, hipri), &[target.fd()]).unwrap();
        for block in [2u64, 0, 3, 1] {
            q.buffer(0).fill(block as u8 + 0x10);
            let n = completed(&mut q, req(Op::Write, block * BS as u64, BS as u32, 0));
            assert_eq!(n, BS as i64, "{mode:?} write block {block}");
        }
        assert_eq!(completed(&mut q, req(Op::Fsync, 0, 0, 0)), 0);
        for block in [1u64, 2, 3, 0] {
            q.buffer(1).fill(0);
            let n = completed(&mut q, req(Op::Read, block * BS as u64, BS as u32, 1));
            assert_eq!(n, BS as i64, "{mode:?} read block {block}");
            assert!(
                q.buffer(1).iter().all(|&b| b == block as u8 + 0x10),
                "{mode:?} block {block} read back wrong data"
            );
        }
        assert_eq!(q.in_flight(), 0);
        assert_eq!(q.commit().unwrap(), 0);
        assert_eq!(q.reap(1, 8, |_| panic!("nothing to reap")).unwrap(), 0);
        let on_disk = std::fs::read(target.path()).unwrap();
        for (i, block) in on_disk.chunks(BS).enumerate() {
            assert!(
                block.iter().all(|&b| b == i as u8 + 0x10),
                "{mode:?} file block {i}"
            );
        }
    }

    #[test]
    fn every_mode_reads_back_what_it_wrote() {
        fn fresh<C: SyncCalls>() {
            let dir = tempfile::tempdir().unwrap();
            let t = open(&dir.path().join("f"), false).unwrap();
            round_trip::<C>(&t, false);
        }
        fresh::<ReadWrite>();
        fresh::<PreadPwrite>();
        fresh::<Preadv2Pwritev2>();
    }

    #[test]
    fn every_mode_reads_back_what_it_wrote_with_o_direct() {
        let dir = tempfile::tempdir().unwrap();
        require!(o_direct(dir.path()));
        let t = open(&dir.path().join("f"), true).unwrap();
        t.check_direct_io(&[BS as u64], 0).unwrap();
        round_trip::<ReadWrite>(&t, false);
        round_trip::<PreadPwrite>(&t, false);
        round_trip::<Preadv2Pwritev2>(&t, false);
        // An unaligned O_DIRECT transfer is a per-I/O error, not a queue error.
        let mut q = SyncQueue::<PreadPwrite>::new(&config(1, false), &[t.fd()]).unwrap();
        assert_eq!(
            completed(&mut q, req(Op::Read, 1, BS as u32, 0)),
            -i64::from(libc::EINVAL)
        );
    }

    /// Linux accepts RWF_HIPRI on buffered I/O and ignores it (polling only
    /// applies to O_DIRECT on block devices with poll queues), so pvsync2
    /// with hipri works on any file rather than failing every I/O.
    #[test]
    fn hipri_on_a_buffered_file_transfers_normally() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        round_trip::<Preadv2Pwritev2>(&t, true);
        let q = SyncQueue::<Preadv2Pwritev2>::new(&config(1, true), &[t.fd()]).unwrap();
        assert_eq!(q.calls.flags, libc::RWF_HIPRI);
        let q = SyncQueue::<Preadv2Pwritev2>::new(&config(1, false), &[t.fd()]).unwrap();
        assert_eq!(q.calls.flags, 0);
    }

    #[test]
    fn hipri_with_o_direct_transfers() {
        let dir = tempfile::tempdir().unwrap();
        require!(o_direct(dir.path()));
        let t = open(&dir.path().join("f"), true).unwrap();
        round_trip::<Preadv2Pwritev2>(&t, true);
    }

    #[test]
    fn short_reads_are_returned_as_they_are() {
        fn short<C: SyncCalls>() {
            let mode = C::NAME;
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, vec![9u8; BS + 100]).unwrap();
            let t = open(&path, false).unwrap();
            let mut q = SyncQueue::<C>::new(&config(1, false), &[t.fd()]).unwrap();
            assert_eq!(
                completed(&mut q, req(Op::Read, BS as u64, BS as u32, 0)),
                100,
                "{mode:?}"
            );
            assert_eq!(
                completed(&mut q, req(Op::Read, 2 * BS as u64, BS as u32, 0)),
                0,
                "{mode:?}"
            );
        }
        short::<ReadWrite>();
        short::<PreadPwrite>();
        short::<Preadv2Pwritev2>();
    }

    #[test]
    fn sync_skips_the_seek_when_the_position_is_already_right() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut data = vec![1u8; BS];
        data.extend(vec![2u8; BS]);
        std::fs::write(&path, data).unwrap();
        let t = open(&path, false).unwrap();
        let mut q = SyncQueue::<ReadWrite>::new(&config(1, false), &[t.fd()]).unwrap();
        assert_eq!(completed(&mut q, req(Op::Read, 0, BS as u32, 0)), BS as i64);
        assert_eq!(q.positions[0], BS as u64);
        // Move the position behind the queue's back: the next sequential
        // read trusts its own record and does not seek, so it reads block 0
        // again. This is why the queue must own the descriptor's position.
        unsafe { libc::lseek(t.fd(), 0, libc::SEEK_SET) };
        assert_eq!(
            completed(&mut q, req(Op::Read, BS as u64, BS as u32, 0)),
            BS as i64
        );
        assert!(q.buffer(0).iter().all(|&b| b == 1));
        // A request elsewhere seeks.
        assert_eq!(
            completed(&mut q, req(Op::Read, BS as u64, BS as u32, 0)),
            BS as i64
        );
        assert!(q.buffer(0).iter().all(|&b| b == 2));
        assert_eq!(q.positions[0], 2 * BS as u64);
    }

    #[test]
    fn per_io_errors_are_results_not_queue_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; BS]).unwrap();
        let t = Target::open(
            &path,
            &OpenOptions {
                read: true,
                ..Default::default()
            },
        )
        .unwrap();
        fn refused<C: SyncCalls>(t: &Target) {
            let mut q = SyncQueue::<C>::new(&config(1, false), &[t.fd()]).unwrap();
            let n = completed(&mut q, req(Op::Write, 0, BS as u32, 0));
            assert_eq!(
                n,
                -i64::from(libc::EBADF),
                "{} write to a read-only descriptor",
                C::NAME
            );
        }
        refused::<ReadWrite>(&t);
        refused::<PreadPwrite>(&t);
        refused::<Preadv2Pwritev2>(&t);
    }

    #[test]
    fn requests_outside_the_queue_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let t = open(&dir.path().join("f"), false).unwrap();
        let mut q = SyncQueue::<PreadPwrite>::new(&config(2, false), &[t.fd()]).unwrap();
        let bad = [
            req(Op::Read, 0, BS as u32, 2),
            req(Op::Read, 0, BS as u32 + 1, 0),
            Request {
                file: 1,
                ..req(Op::Read, 0, 512, 0)
            },
        ];
        for r in bad {
            let e = q.submit(&r).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
        }
    }

    #[test]
    fn requests_pick_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = open(&dir.path().join("a"), false).unwrap();
        let b = open(&dir.path().join("b"), false).unwrap();
        let mut q = SyncQueue::<ReadWrite>::new(&config(1, false), &[a.fd(), b.fd()]).unwrap();
        q.buffer(0).fill(0xaa);
        assert_eq!(completed(&mut q, req(Op::Write, 0, 512, 0)), 512);
        q.buffer(0).fill(0xbb);
        assert_eq!(
            completed(
                &mut q,
                Request {
                    file: 1,
                    ..req(Op::Write, 0, 512, 0)
                }
            ),
            512
        );
        assert_eq!(std::fs::read(a.path()).unwrap(), vec![0xaa; 512]);
        assert_eq!(std::fs::read(b.path()).unwrap(), vec![0xbb; 512]);
    }

    #[test]
    fn setup_errors() {
        let e = SyncQueue::<PreadPwrite>::new(&config(1, false), &[])
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("needs at least one open file"),
            "{e}"
        );
        let e = SyncQueue::<PreadPwrite>::new(&config(1, false), &[-1])
            .err()
            .unwrap();
        assert!(e.to_string().contains("not valid"), "{e}");
        let e = SyncQueue::<PreadPwrite>::new(&config(0, false), &[0])
            .err()
            .unwrap();
        assert!(e.to_string().contains("queue depth 0"), "{e}");
    }
}
