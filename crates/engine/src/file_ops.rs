//! fio's file engines (its `engines/fileoperations.c`): `filecreate`,
//! `filestat` and `filedelete` time one operation on each file — create
//! (open with O_CREAT), stat, unlink — and move no data; a newer fio's
//! `dircreate`, `dirstat` and `dirdelete` (3.36) do the same with
//! directories — mkdir (mode 0700), stat, rmdir. As in fio, the
//! operation happens when the job first turns to the file (fio's
//! `open_file` hook), its latency is the job's completion latency, and
//! the job's requests are counted (bytes and I/Os) but not timed: a
//! request that finds its file done completes at once.
//!
//! The queue is built over the files' paths ([`QueueConfig::file_paths`]),
//! not over descriptors: the caller must not create (filecreate,
//! dircreate) or open them, and makes the directories dirstat and
//! dirdelete work on (fio's `setup_dirs`: mkdir, mode 0700). [`Queue::op_latency`] hands the caller each operation's time.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::time::Instant;

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::engine_options::StatType;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Op, Request};

/// What a request of a file engine can be: anything, as nothing moves.
/// Commands without data stay with the engines that send them.
fn counted(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write | Op::Fsync | Op::Trim)
}

pub(crate) static FILECREATE: EngineDesc = EngineDesc {
    name: "filecreate",
    aliases: &[],
    help: "Times the creation (open with O_CREAT) of each file; no I/O",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: counted,
    options: &[],
    check: any_shape,
};

pub(crate) static FILESTAT: EngineDesc = EngineDesc {
    name: "filestat",
    help: "Times a stat (stat_type) of each file; no I/O",
    options: &["stat_type"],
    ..FILECREATE
};

pub(crate) static FILEDELETE: EngineDesc = EngineDesc {
    name: "filedelete",
    help: "Times the unlink of each file; no I/O",
    ..FILECREATE
};

pub(crate) static DIRCREATE: EngineDesc = EngineDesc {
    name: "dircreate",
    help: "Times the creation (mkdir) of each directory; no I/O",
    ..FILECREATE
};

pub(crate) static DIRSTAT: EngineDesc = EngineDesc {
    name: "dirstat",
    help: "Times a stat (stat_type) of each directory; no I/O",
    options: &["stat_type"],
    ..DIRCREATE
};

pub(crate) static DIRDELETE: EngineDesc = EngineDesc {
    name: "dirdelete",
    help: "Times the removal (rmdir) of each directory; no I/O",
    ..DIRCREATE
};

/// The operation a [`FileOpQueue`] times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileOp {
    Create,
    Stat(StatType),
    Delete,
    Mkdir,
    Rmdir,
}

pub(crate) fn open_create(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<FileOpQueue, EngineError> {
    FileOpQueue::new(config, FileOp::Create)
}

pub(crate) fn open_stat(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<FileOpQueue, EngineError> {
    FileOpQueue::new(config, FileOp::Stat(config.stat_type))
}

pub(crate) fn open_delete(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<FileOpQueue, EngineError> {
    FileOpQueue::new(config, FileOp::Delete)
}

pub(crate) fn open_mkdir(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<FileOpQueue, EngineError> {
    FileOpQueue::new(config, FileOp::Mkdir)
}

pub(crate) fn open_rmdir(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<FileOpQueue, EngineError> {
    FileOpQueue::new(config, FileOp::Rmdir)
}

/// The queue of the file engines: each request completes in `submit`; the
/// first on each file does the file's operation.
pub struct FileOpQueue {
    op: FileOp,
    paths: Box<[CString]>,
    /// Whether each file's operation was done.
    done: Box<[bool]>,
    /// The time of the operation the last request did, until taken.
    last_ns: Option<u64>,
    buffers: SlotBuffers,
}

impl FileOpQueue {
    fn new(config: &QueueConfig, op: FileOp) -> Result<FileOpQueue, EngineError> {
        if config.file_paths.is_empty() {
            return Err(EngineError::Setup(
                "the file engines need the paths of the files (QueueConfig::file_paths)".into(),
            ));
        }
        let paths = config
            .file_paths
            .iter()
            .map(|p| {
                CString::new(p.as_os_str().as_bytes()).map_err(|_| {
                    EngineError::Setup(format!("{}: a path with a NUL byte", p.display()))
                })
            })
            .collect::<Result<Box<[_]>, _>>()?;
        Ok(FileOpQueue {
            op,
            done: vec![false; paths.len()].into_boxed_slice(),
            paths,
            last_ns: None,
            buffers: SlotBuffers::new(config)?,
        })
    }

    /// Does the operation on `path`: a negative errno, the descriptor of a
    /// created file, or 0.
    fn operate(op: FileOp, path: &CString) -> i64 {
        // SAFETY (every call below): `path` is NUL-terminated and the
        // buffers written are locals of the right type.
        let r = unsafe {
            match op {
                FileOp::Create => {
                    let fd = libc::open(path.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600);
                    if fd >= 0 {
                        return i64::from(fd);
                    }
                    fd
                }
                FileOp::Stat(StatType::Stat) => {
                    let mut st = std::mem::zeroed::<libc::stat>();
                    libc::stat(path.as_ptr(), &mut st)
                }
                FileOp::Stat(StatType::Lstat) => {
                    let mut st = std::mem::zeroed::<libc::stat>();
                    libc::lstat(path.as_ptr(), &mut st)
                }
                FileOp::Stat(StatType::Statx) => {
                    let abs = libc::realpath(path.as_ptr(), std::ptr::null_mut());
                    if abs.is_null() {
                        -1
                    } else {
                        let mut st = std::mem::zeroed::<libc::statx>();
                        let r = libc::statx(-1, abs, 0, libc::STATX_ALL, &mut st);
                        libc::free(abs.cast());
                        r
                    }
                }
                FileOp::Delete => libc::unlink(path.as_ptr()),
                FileOp::Mkdir => libc::mkdir(path.as_ptr(), 0o700),
                FileOp::Rmdir => libc::rmdir(path.as_ptr()),
            }
        };
        if r < 0 {
            -i64::from(crate::syscall::errno())
        } else {
            0
        }
    }
}

impl Queue for FileOpQueue {
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let file = req.file as usize;
        let Some(done) = self.done.get_mut(file) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        if !*done {
            *done = true;
            let start = Instant::now();
            let r = Self::operate(self.op, &self.paths[file]);
            let ns = start.elapsed().as_nanos() as u64;
            if self.op == FileOp::Create && r >= 0 {
                // Closed outside the timed part. fio closes the file once
                // its I/O is done; with thousands of files (its example
                // makes 31250) keeping them open would run out of
                // descriptors.
                // SAFETY: the descriptor was just opened here.
                unsafe { libc::close(r as i32) };
            }
            if r < 0 {
                return Ok(Submitted::Completed(r));
            }
            self.last_ns = Some(ns);
        }
        Ok(Submitted::Completed(match req.op {
            Op::Fsync => 0,
            _ => i64::from(req.len),
        }))
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn op_latency(&mut self) -> Option<u64> {
        self.last_ns.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(paths: &[std::path::PathBuf], stat_type: StatType) -> QueueConfig {
        QueueConfig {
            depth: 1,
            buffer_size: 4096,
            buffer_align: 4096,
            file_paths: paths.to_vec(),
            stat_type,
            ..QueueConfig::default()
        }
    }

    fn req(file: u32) -> Request {
        Request {
            op: Op::Write,
            file,
            offset: 0,
            len: 4096,
            slot: 0,
        }
    }

    /// Each file's operation happens once, on its first request, and is
    /// timed; later requests complete untimed with their length.
    #[test]
    fn create_stat_delete_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<_> = (0..3).map(|i| dir.path().join(format!("f{i}"))).collect();
        let mut q = open_create(&config(&paths, StatType::Stat), &[]).unwrap();
        for (file, timed) in [(0, true), (0, false), (1, true), (2, true)] {
            assert_eq!(q.submit(&req(file)).unwrap(), Submitted::Completed(4096));
            assert_eq!(q.op_latency().is_some(), timed, "file {file}");
        }
        assert!(paths
            .iter()
            .all(|p| std::fs::metadata(p).unwrap().len() == 0));

        for stat_type in [StatType::Stat, StatType::Lstat, StatType::Statx] {
            let mut q = open_stat(&config(&paths, stat_type), &[]).unwrap();
            assert_eq!(q.submit(&req(2)).unwrap(), Submitted::Completed(4096));
            assert!(q.op_latency().is_some());
            assert_eq!(q.op_latency(), None, "taken once");
        }

        let mut q = open_delete(&config(&paths, StatType::Stat), &[]).unwrap();
        for file in 0..3 {
            q.submit(&req(file)).unwrap();
        }
        assert!(paths.iter().all(|p| !p.exists()));
        // A file that is gone: its stat fails with ENOENT, as the request's result.
        let mut q = open_stat(&config(&paths, StatType::Statx), &[]).unwrap();
        assert_eq!(
            q.submit(&req(0)).unwrap(),
            Submitted::Completed(-i64::from(libc::ENOENT))
        );
    }
}
