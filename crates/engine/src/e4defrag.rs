//! fio's `e4defrag`: each write moves the request's blocks into the file
//! from a donor file with ext4's EXT4_IOC_MOVE_EXT, as fio's
//! `engines/e4defrag.c`: the donor is preallocated over the job's range
//! once (or, with `inplace=1`, allocated before each move and truncated
//! after it). Reads fail with EINVAL, as in fio (defragmenting changes the
//! layout, so only writes do it); trims are refused before the run. Only
//! ext4 has the ioctl: elsewhere each move fails (ENOTTY or EOPNOTSUPP).
//! The moves are checked beside fio's in tests/engines_misc.rs (a unit
//! test on a freshly written file is at the mercy of the journal, which
//! keeps the pages busy (EBUSY) for a while).

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::error::EngineError;
use crate::queue::{check_fds, Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Op, Request};
use crate::syscall::{errno, io_result};

pub(crate) static E4DEFRAG: EngineDesc = EngineDesc {
    name: "e4defrag",
    aliases: &[],
    help: "Moves each write's blocks in from a donor file (ext4 EXT4_IOC_MOVE_EXT)",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: moves,
    options: &["donorname", "inplace"],
    check: any_shape,
};

/// Writes (moves) and fsync; reads are carried only to fail with EINVAL,
/// as fio's do.
fn moves(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write | Op::Fsync)
}

/// `struct move_extent` of linux/ext4.h.
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = (3 << 30)
    | ((std::mem::size_of::<MoveExtent>() as libc::c_ulong) << 16)
    | ((b'f' as libc::c_ulong) << 8)
    | 15;

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<E4defragQueue, EngineError> {
    check_fds("e4defrag", fds)?;
    let Some(donor) = &config.donor else {
        return Err(EngineError::Setup(
            "ioengine=e4defrag needs a donor file (donorname=)".into(),
        ));
    };
    let setup = |what: &str, e: io::Error| {
        EngineError::Setup(format!("donor file {}: {what}: {e}", donor.path.display()))
    };
    let path = CString::new(donor.path.as_os_str().as_bytes())
        .map_err(|_| setup("open", io::ErrorKind::InvalidInput.into()))?;
    // SAFETY: `path` is NUL-terminated.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644) };
    if fd < 0 {
        return Err(setup("open", io::Error::last_os_error()));
    }
    // Owned from here, so that a failure below closes it.
    let mut queue = E4defragQueue {
        donor_fd: fd,
        inplace: donor.inplace,
        block: 0,
        fds: fds.into(),
        buffers: SlotBuffers::new(config)?,
    };
    if !donor.inplace {
        let (offset, len) = donor.prealloc;
        // SAFETY: fallocate touches no memory.
        if unsafe { libc::fallocate(fd, 0, offset as libc::off_t, len as libc::off_t) } != 0 {
            return Err(setup("fallocate", io::Error::last_os_error()));
        }
    }
    // SAFETY: `st` is a local of the right type.
    let mut st = unsafe { std::mem::zeroed::<libc::stat>() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(setup("fstat", io::Error::last_os_error()));
    }
    queue.block = st.st_blksize as u64;
    Ok(queue)
}

/// The e4defrag queue: each write is a move, done inside `submit`.
pub struct E4defragQueue {
    donor_fd: RawFd,
    inplace: bool,
    /// The donor's block size: moves are in whole blocks.
    block: u64,
    fds: Box<[RawFd]>,
    buffers: SlotBuffers,
}

impl E4defragQueue {
    /// Moves the blocks of `len` bytes at `offset`; fio's result: the
    /// bytes moved (at most `len`), or a negative errno.
    fn move_range(&self, fd: RawFd, offset: u64, len: u64) -> i64 {
        if self.inplace {
            // SAFETY: fallocate touches no memory.
            let r = unsafe { libc::fallocate(self.donor_fd, 0, offset as i64, len as i64) };
            if r != 0 {
                return -i64::from(errno());
            }
        }
        let start = offset / self.block;
        let mut me = MoveExtent {
            donor_fd: self.donor_fd as u32,
            orig_start: start,
            donor_start: start,
            len: (offset + len).div_ceil(self.block) - start,
            ..MoveExtent::default()
        };
        // SAFETY: `me` is the struct the ioctl reads and writes.
        let r = unsafe { libc::ioctl(fd, EXT4_IOC_MOVE_EXT, &mut me) };
        let failed = (r != 0).then(errno);
        let moved = (me.moved_len * self.block).min(len);
        if self.inplace {
            // SAFETY: ftruncate touches no memory.
            unsafe { libc::ftruncate(self.donor_fd, 0) };
        }
        match failed {
            Some(e) => -i64::from(e),
            // Nothing moved: the range lies beyond the file's end.
            None if moved == 0 => -i64::from(libc::EINVAL),
            None => moved as i64,
        }
    }
}

impl Queue for E4defragQueue {
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let Some(&fd) = self.fds.get(req.file as usize) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        let result = match req.op {
            Op::Write => self.move_range(fd, req.offset, u64::from(req.len)),
            // SAFETY: fsync touches no memory.
            Op::Fsync => io_result(|| unsafe { libc::fsync(fd) } as isize),
            _ => -i64::from(libc::EINVAL),
        };
        Ok(Submitted::Completed(result))
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }
}

impl Drop for E4defragQueue {
    fn drop(&mut self) {
        // SAFETY: the donor was opened by this queue.
        unsafe { libc::close(self.donor_fd) };
    }
}
