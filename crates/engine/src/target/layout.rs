//! Laying regular files out before they are read, as fio does: written
//! through, in blocks, so they are really allocated.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use super::open::{io_error, open_error, refuse_creating_in_dev, target_error};
use super::probe::{c_path, stat_path};
use super::{OpenOptions, TargetKind};
use crate::error::EngineError;
use crate::syscall::retry_eintr;

/// Makes `path` a regular file of at least `size` bytes whose blocks are
/// really allocated, writing it in `block`-sized pieces, as fio does before
/// a job reads a file that is missing or too short.
///
/// The pieces hold pseudo-random bytes, as fio's default buffers do, so
/// storage that compresses or deduplicates cannot skip them. See
/// [`layout_file_with`] for other contents.
pub fn layout_file(path: &Path, size: u64, block: usize) -> Result<(), EngineError> {
    layout(path, size, block, &mut fill_pseudo_random, &|| false)
}

/// [`layout_file`] that asks `stopped` before each piece and gives up with
/// [`EngineError::Stopped`] once it says so, so a long layout can be
/// interrupted (Ctrl-C) instead of running to its end. The file is cut back
/// to what was written, as after any failed layout. Without `fsync` the
/// written file is not synced at the end (fio's `create_fsync=0`).
pub fn layout_file_until(
    path: &Path,
    size: u64,
    block: usize,
    fsync: bool,
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    layout_synced(path, size, block, fsync, &mut fill_pseudo_random, stopped)
}

/// How [`preallocate_file`] reserves a file's blocks (fio's `fallocate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preallocate {
    /// Nothing: the file is created, left as it is.
    None,
    /// fallocate(2) without flags; nothing where the filesystem cannot.
    Native,
    /// posix_fallocate(3): the C library writes zeroes where fallocate
    /// is not supported.
    Posix,
    /// fallocate(FALLOC_FL_KEEP_SIZE): blocks reserved, size unchanged.
    KeepSize,
    /// ftruncate to the size: no blocks, a sparse file.
    Truncate,
}

/// Creates `path` (when missing) without writing it, for a job that only
/// writes, and reserves `size` bytes as `how` says (fio's `fallocate`), so
/// the job's writes do not also pay for allocation. Never creates a file
/// under /dev, where a missing name is a mistyped device.
pub fn preallocate_file(path: &Path, size: u64, how: Preallocate) -> Result<(), EngineError> {
    let cpath = c_path(path)?;
    match stat_path(&cpath) {
        Ok(_) => {}
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => refuse_creating_in_dev(path)?,
        Err(e) => return Err(io_error(path, "stat", e)),
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| io_error(path, "cannot create", e))?;
    let fd = file.as_raw_fd();
    let len = size as libc::off_t;
    // SAFETY (all three): the fd is open for writing; the calls only
    // change the file.
    match how {
        Preallocate::None => Ok(()),
        // As fio's native mode, which only notes a failure in its debug
        // log: where the filesystem cannot allocate (or has no room for the
        // whole file), the file is left as it is and the job's own writes
        // allocate, or fail, as they go.
        Preallocate::Native => {
            let _ = retry_eintr(|| unsafe { libc::fallocate(fd, 0, 0, len) });
            Ok(())
        }
        Preallocate::Posix => match unsafe { libc::posix_fallocate(fd, 0, len) } {
            0 => Ok(()),
            rc => Err(io_error(
                path,
                "posix_fallocate",
                io::Error::from_raw_os_error(rc),
            )),
        },
        Preallocate::KeepSize => {
            retry_eintr(|| unsafe { libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, len) })
                .map(drop)
                .map_err(|e| io_error(path, "fallocate(FALLOC_FL_KEEP_SIZE)", e))
        }
        Preallocate::Truncate => file
            .set_len(size)
            .map_err(|e| io_error(path, "ftruncate", e)),
    }
}

/// [`layout_file`] with the contents chosen by `fill`, which is called with
/// the file offset and the bytes of each piece before the piece is written.
///
/// A file already `size` bytes or longer is left alone. A shorter one is
/// rewritten from the start, as fio does: a prefix written some other way
/// may have holes, and reading holes measures nothing. The steps follow fio's
/// `extend_file`: truncate, fallocate the whole size (ignored where the
/// filesystem cannot), write every piece, fsync. If a step fails the file is
/// cut back to what was written, so the next run lays it out again instead of
/// reading unwritten blocks.
pub fn layout_file_with<F: FnMut(u64, &mut [u8])>(
    path: &Path,
    size: u64,
    block: usize,
    mut fill: F,
) -> Result<(), EngineError> {
    layout(path, size, block, &mut fill, &|| false)
}

pub(super) fn layout(
    path: &Path,
    size: u64,
    block: usize,
    fill: &mut dyn FnMut(u64, &mut [u8]),
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    layout_synced(path, size, block, true, fill, stopped)
}

fn layout_synced(
    path: &Path,
    size: u64,
    block: usize,
    fsync: bool,
    fill: &mut dyn FnMut(u64, &mut [u8]),
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    if block == 0 {
        return Err(target_error(
            path,
            "layout block size is 0; give a block size of 1 byte or more",
        ));
    }
    let cpath = c_path(path)?;
    match stat_path(&cpath) {
        Ok(st) => match TargetKind::from_mode(st.st_mode) {
            Ok(TargetKind::RegularFile) if st.st_size as u64 >= size => return Ok(()),
            Ok(TargetKind::RegularFile) => {}
            Ok(kind) => {
                return Err(target_error(
                    path,
                    &format!(
                        "is a {}, not a regular file; only regular files are laid out",
                        kind.describe()
                    ),
                ))
            }
            Err(m) => return Err(target_error(path, m)),
        },
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => refuse_creating_in_dev(path)?,
        Err(e) => return Err(io_error(path, "stat", e)),
    }

    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC;
    let fd = retry_eintr(|| unsafe { libc::open(cpath.as_ptr(), flags, 0o644 as libc::c_uint) })
        .map_err(|e| {
            open_error(
                path,
                e,
                &OpenOptions {
                    write: true,
                    ..Default::default()
                },
            )
        })?;
    // SAFETY: `open` just returned this descriptor and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };

    let mut written = 0u64;
    let result = write_layout(
        path,
        fd.as_raw_fd(),
        size,
        block,
        &mut written,
        fill,
        stopped,
    )
    .and_then(|()| {
        if fsync {
            retry_eintr(|| unsafe { libc::fsync(fd.as_raw_fd()) })
                .map(drop)
                .map_err(|e| io_error(path, "fsync", e))
        } else {
            Ok(())
        }
    });
    if result.is_err() {
        // Best effort: the error being reported matters more than this one.
        unsafe { libc::ftruncate(fd.as_raw_fd(), written as libc::off_t) };
    }
    result
}

pub(super) fn write_layout(
    path: &Path,
    fd: RawFd,
    size: u64,
    block: usize,
    written: &mut u64,
    fill: &mut dyn FnMut(u64, &mut [u8]),
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    let out_of_space = |done: u64| {
        target_error(
            path,
            &format!(
                "not enough space to lay out {size} bytes (stopped after {done}); \
                 free some space or ask for a smaller size"
            ),
        )
    };
    if size > 0 {
        // Allocating the whole extent first gives the filesystem the chance
        // to place it contiguously, as fio's default fallocate=native does.
        match retry_eintr(|| unsafe { libc::fallocate(fd, 0, 0, size as libc::off_t) }) {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOSYS)) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                return Err(out_of_space(0))
            }
            Err(e) => return Err(io_error(path, "fallocate", e)),
        }
    }
    let mut buf = vec![0u8; block.min(usize::try_from(size).unwrap_or(usize::MAX))];
    while *written < size {
        if stopped() {
            return Err(EngineError::Stopped {
                path: path.to_path_buf(),
            });
        }
        let piece = (size - *written).min(buf.len() as u64) as usize;
        let chunk = &mut buf[..piece];
        fill(*written, chunk);
        let mut done = 0;
        while done < piece {
            let rest = &chunk[done..];
            match retry_eintr(|| unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) }) {
                Ok(0) => {
                    return Err(io_error(
                        path,
                        "write",
                        io::Error::new(io::ErrorKind::WriteZero, "the file took no more bytes"),
                    ))
                }
                Ok(n) => {
                    done += n as usize;
                    *written += n as u64;
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                    return Err(out_of_space(*written))
                }
                Err(e) => return Err(io_error(path, "write", e)),
            }
        }
    }
    Ok(())
}

/// Fills a piece with bytes that depend on its offset (xorshift64*), cheap
/// and incompressible.
pub(super) fn fill_pseudo_random(offset: u64, buf: &mut [u8]) {
    let mut state = offset ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let tail = chunks.into_remainder();
    let last = next().to_le_bytes();
    tail.copy_from_slice(&last[..tail.len()]);
}
