//! The io_uring queue (fio's `io_uring` engine): requests turned into SQEs,
//! completions taken from the CQ ring.

use std::io;
use std::os::fd::RawFd;

use io_uring::{opcode, squeue, types};

use super::checks::check_iopoll_files;
use super::force_async::ForceAsync;
use super::ring::{Ring, MAX_FIXED_BUFFERS};
use super::setup_flags::RingMode;
use crate::buffer::SlotBuffers;
use crate::dontcache::{check_uncached, RWF_DONTCACHE};
use crate::error::{Advice, EngineError, Knob};
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Completion, Op, Request};
use crate::syscall::io_result;
use crate::trim::{trim, TrimMethod};

#[cold]
pub(super) fn queue_full(depth: u32) -> io::Error {
    io::Error::other(format!(
        "io_uring queue full: {depth} requests in flight at depth {depth}; reap before submitting more"
    ))
}

/// Builds one entry with either a plain fd or a registered-file index.
macro_rules! with_file {
    ($fixed:expr, $index:expr, $fd:expr, |$f:ident| $build:expr) => {
        if $fixed {
            let $f = types::Fixed($index);
            $build
        } else {
            let $f = types::Fd($fd);
            $build
        }
    };
}

/// fio's `io_uring` engine: reads, writes and fsyncs through an io_uring.
///
/// [`Queue::submit`] puts one SQE on the ring (user_data is the slot),
/// [`Queue::commit`] hands the batch over with one io_uring_enter (none with
/// SQPOLL while the SQ thread is awake), and [`Queue::reap`] takes CQEs off
/// the ring, entering the kernel only to wait, to poll (IOPOLL) or to run
/// deferred completions. A completion's result is the CQE's: bytes moved,
/// or a negative errno. Nothing is allocated and no lock is taken per I/O.
///
/// With hipri (IOPOLL) an fsync cannot go through the ring (the kernel
/// refuses non-pollable opcodes there with EINVAL), so it runs as fsync(2)
/// inside `submit` and completes at once.
///
/// A trim runs inside `submit` too and completes there, as in fio's
/// io_uring engine (`do_io_u_trim`, then FIO_Q_COMPLETED): a hole punched
/// in a regular file, BLKDISCARD on a block device.
///
/// Not `Send`; see [`UringQueue::new`].
pub struct UringQueue {
    ring: Ring,
    fds: Box<[RawFd]>,
    /// One per descriptor.
    trims: Box<[TrimMethod]>,
    /// One iovec per slot, pointing at the slot's buffer, for READV/WRITEV:
    /// the kernel reads it while it prepares the request, and the slot is
    /// not used again before the request completes.
    iovecs: Box<[libc::iovec]>,
    buffers: SlotBuffers,
    fixed_files: bool,
    fixed_buffers: bool,
    vectored: bool,
    rw_flags: i32,
    /// The ioprio the next reads and writes carry (`set_ioprio`); 0, the
    /// thread's own priority, unless cmdprio chose one.
    ioprio: u16,
    force_async: ForceAsync,
    note: String,
}

impl UringQueue {
    /// A queue over `fds` (indexed by [`Request::file`]), which must stay open
    /// as long as the queue is used. Everything the options need from the
    /// kernel is checked here, so no option fails at the first I/O.
    ///
    /// The ring is made with SINGLE_ISSUER where the kernel has it, so the
    /// queue must be used on the thread that built it; the type is not
    /// `Send`, which makes the compiler hold to that.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<UringQueue, EngineError> {
        let opts = &config.uring;
        crate::queue::check_fds("io_uring", fds)?;
        if config.hipri {
            check_iopoll_files(fds)?;
        }
        if opts.uncached {
            check_uncached(fds)?;
        }
        let trims = TrimMethod::for_fds(fds)?;
        let mut buffers = SlotBuffers::new(config)?;
        let ring = Ring::<squeue::Entry>::new(config.depth, RingMode::of(config))?;
        let probe = ring.probe();
        let has = |code: u8| probe.as_ref().map(|p| p.is_supported(code));
        let vectored = match opts.nonvectored {
            Some(nonvectored) => !nonvectored,
            None => has(opcode::Read::CODE) != Some(true) || has(opcode::Write::CODE) != Some(true),
        };
        let mut need: Vec<(u8, &str)> = vec![(opcode::Fsync::CODE, "FSYNC")];
        if opts.fixed_buffers {
            need.push((opcode::ReadFixed::CODE, "READ_FIXED"));
            need.push((opcode::WriteFixed::CODE, "WRITE_FIXED"));
        } else if vectored {
            need.push((opcode::Readv::CODE, "READV"));
            need.push((opcode::Writev::CODE, "WRITEV"));
        } else {
            need.push((opcode::Read::CODE, "READ"));
            need.push((opcode::Write::CODE, "WRITE"));
        }
        for (code, name) in need {
            match has(code) {
                Some(true) => {}
                Some(false) => {
                    return Err(EngineError::Setup(format!(
                        "this kernel's io_uring has no IORING_OP_{name}; {}",
                        if name == "READ" || name == "WRITE" {
                            "set nonvectored=0"
                        } else {
                            "use a newer kernel"
                        }
                    )))
                }
                // No probe (before 5.6): READV/WRITEV, the fixed opcodes and
                // FSYNC date from 5.1; READ/WRITE and IOSQE_ASYNC need 5.6.
                None if name == "READ" || name == "WRITE" => {
                    return Err(EngineError::Setup(format!(
                        "this kernel cannot tell whether io_uring has IORING_OP_{name} \
                         (Linux 5.6); set nonvectored=0"
                    )))
                }
                None => {}
            }
        }
        if opts.force_async > 0 && probe.is_none() {
            return Err(EngineError::Setup(
                "force_async needs IOSQE_ASYNC (Linux 5.6), which this kernel lacks; \
                 drop force_async"
                    .into(),
            ));
        }
        let fixed_files = opts.register_files || opts.sqpoll;
        if fixed_files {
            ring.submitter().register_files(fds).map_err(|e| {
                let what = format!("cannot register {} files with the io_uring: {e}", fds.len());
                let limit = Advice::Other("raise the open file limit (ulimit -n)".into());
                if opts.sqpoll {
                    EngineError::Refused {
                        what: format!("{what} ({} registers the files, as fio does)", Knob::SqPoll),
                        fix: vec![limit],
                    }
                } else {
                    EngineError::Refused {
                        what,
                        fix: vec![Advice::Drop(Knob::RegisterFiles), limit],
                    }
                }
            })?;
        }
        let depth = config.depth as usize;
        let mut iovecs = Vec::with_capacity(depth);
        for slot in 0..config.depth {
            let base = buffers
                .io_ptr(slot, 0)
                .expect("every slot below the depth has a buffer");
            iovecs.push(libc::iovec {
                iov_base: base.cast(),
                iov_len: config.buffer_size,
            });
        }
        let iovecs = iovecs.into_boxed_slice();
        if opts.fixed_buffers {
            if config.depth > MAX_FIXED_BUFFERS {
                return Err(EngineError::Refused {
                    what: format!(
                        "registered buffers are one per slot, and io_uring takes at most \
                         {MAX_FIXED_BUFFERS}: queue depth {} is too deep",
                        config.depth
                    ),
                    fix: vec![Advice::Lower(Knob::Depth), Advice::Drop(Knob::FixedBuffers)],
                });
            }
            // SAFETY: the iovecs name the queue's buffers, which live as long
            // as the ring (the ring is dropped first).
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                let what = format!(
                    "cannot register {} buffers of {} bytes with the io_uring: {e}",
                    config.depth, config.buffer_size,
                );
                if e.raw_os_error() == Some(libc::ENOMEM) {
                    EngineError::Refused {
                        what,
                        fix: vec![
                            Advice::Other("raise the locked-memory limit (ulimit -l)".into()),
                            Advice::Lower(Knob::Depth),
                            Advice::Lower(Knob::BlockSize),
                        ],
                    }
                } else {
                    EngineError::Refused {
                        what: format!("{what}: each buffer must be at most 1 GiB"),
                        fix: vec![
                            Advice::Lower(Knob::BlockSize),
                            Advice::Drop(Knob::FixedBuffers),
                        ],
                    }
                }
            })?;
        }
        let mut rw_flags = 0;
        if opts.nowait {
            rw_flags |= libc::RWF_NOWAIT;
        }
        if opts.uncached {
            rw_flags |= RWF_DONTCACHE;
        }
        let note = format!(
            "{}; {}{}{}",
            ring.note(),
            if opts.fixed_buffers {
                "fixed buffers"
            } else if vectored {
                "vectored"
            } else {
                "non-vectored"
            },
            if fixed_files {
                ", registered files"
            } else {
                ""
            },
            if config.hipri {
                ", fsync runs synchronously (IOPOLL)"
            } else {
                ""
            },
        );
        Ok(UringQueue {
            ring,
            fds: fds.into(),
            trims,
            iovecs,
            buffers,
            fixed_files,
            fixed_buffers: opts.fixed_buffers,
            vectored,
            rw_flags,
            ioprio: 0,
            force_async: ForceAsync::every(opts.force_async),
            note,
        })
    }

    /// The IORING_SETUP_* flags the kernel accepted (see [`setup_flag_names`](crate::setup_flag_names)).
    pub fn setup_flags(&self) -> u32 {
        self.ring.flags()
    }

    /// True when requests move data with READV/WRITEV.
    pub fn is_vectored(&self) -> bool {
        self.vectored && !self.fixed_buffers
    }
}

impl Queue for UringQueue {
    const COMPLETES_IN_SUBMIT: bool = false;
    const WAITS_IN_SUBMIT: bool = true;

    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let Some(&fd) = self.fds.get(req.file as usize) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        let fixed = self.fixed_files;
        let index = req.file;
        let sqe = match req.op {
            Op::Fsync | Op::Fdatasync if self.ring.iopoll() => {
                let data = req.op == Op::Fdatasync;
                // SAFETY: fsync and fdatasync touch no memory.
                return Ok(Submitted::Completed(io_result(|| {
                    (if data {
                        unsafe { libc::fdatasync(fd) }
                    } else {
                        unsafe { libc::fsync(fd) }
                    }) as isize
                })));
            }
            // The ring is polled, or the range empty: the sync goes
            // straight to the kernel, or nowhere (0 would reach the end).
            Op::SyncFileRange { flags } if self.ring.iopoll() || req.len == 0 => {
                return Ok(Submitted::Completed(crate::syscall::sync_file_range(
                    fd, req.offset, req.len, flags,
                )));
            }
            Op::SyncFileRange { flags } => with_file!(fixed, index, fd, |f| {
                opcode::SyncFileRange::new(f, req.len)
                    .offset(req.offset)
                    .flags(flags)
                    .build()
            }),
            Op::Fsync => with_file!(fixed, index, fd, |f| opcode::Fsync::new(f).build()),
            Op::Fdatasync => with_file!(fixed, index, fd, |f| opcode::Fsync::new(f)
                .flags(types::FsyncFlags::DATASYNC)
                .build()),
            // Synchronous, as in fio's io_uring engine: the same on every
            // kernel, whether or not its ring has IORING_OP_FALLOCATE (5.6)
            // and the block discard command (6.12).
            Op::Trim => {
                let method = self.trims[req.file as usize];
                return Ok(Submitted::Completed(trim(fd, method, req.offset, req.len)));
            }
            Op::WriteZeroes { .. }
            | Op::WriteUncorrectable
            | Op::DeviceVerify
            | Op::TrimRanges { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
            Op::Read | Op::Write => {
                let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
                    return Err(bad_request(
                        req,
                        "lies outside the queue's buffers (slot >= depth or len > buffer size)",
                    ));
                };
                let (len, off, flags, prio) = (req.len, req.offset, self.rw_flags, self.ioprio);
                let read = req.op == Op::Read;
                if self.fixed_buffers {
                    // The slot's buffer is registered at the slot's index.
                    let buf = req.slot as u16;
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::ReadFixed::new(f, ptr, len, buf)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    } else {
                        opcode::WriteFixed::new(f, ptr, len, buf)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    })
                } else if self.vectored {
                    let iov = &mut self.iovecs[req.slot as usize];
                    iov.iov_len = len as usize;
                    let iov: *const libc::iovec = iov;
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::Readv::new(f, iov, 1)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    } else {
                        opcode::Writev::new(f, iov, 1)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    })
                } else {
                    with_file!(fixed, index, fd, |f| if read {
                        opcode::Read::new(f, ptr, len)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    } else {
                        opcode::Write::new(f, ptr, len)
                            .offset(off)
                            .rw_flags(flags)
                            .ioprio(prio)
                            .build()
                    })
                }
            }
        };
        let mut sqe = sqe.user_data(u64::from(req.slot));
        if self.force_async.this_one() {
            sqe = sqe.flags(squeue::Flags::ASYNC);
        }
        // SAFETY: the buffer (checked by `io_ptr`), the slot's iovec and the
        // descriptor (which the caller keeps open) outlive the request: the
        // queue waits for every request before its memory is freed.
        unsafe { self.ring.push(&sqe)? };
        Ok(Submitted::Queued)
    }

    #[inline]
    fn set_ioprio(&mut self, ioprio: u16) {
        self.ioprio = ioprio;
    }

    #[inline(always)]
    fn commit(&mut self) -> io::Result<u32> {
        self.ring.commit()
    }

    #[inline(always)]
    fn submit_and_wait(&mut self, want: u32) -> io::Result<u32> {
        self.ring.submit_and_wait(want)
    }

    #[inline(always)]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        self.ring.reap(min, max, |slot, res| {
            on_complete(Completion {
                slot: slot as u32,
                result: i64::from(res),
            })
        })
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.ring.in_flight()
    }

    fn setup_note(&self) -> Option<&str> {
        Some(&self.note)
    }

    fn refused_setup_flags(&self) -> Option<String> {
        self.ring.refused_flags()
    }

    fn calls(&self) -> (u64, u64) {
        self.ring.calls()
    }
}
