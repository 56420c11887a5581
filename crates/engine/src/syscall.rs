//! Small helpers shared by the code that calls into the kernel.

use std::io;

/// Runs a syscall wrapper until it does not fail with EINTR; the wrapper's
/// failure value is -1, as for every libc call used here.
pub(crate) fn retry_eintr<T: Copy + PartialEq + From<i8>>(
    mut f: impl FnMut() -> T,
) -> io::Result<T> {
    loop {
        let r = f();
        if r != T::from(-1) {
            return Ok(r);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// The calling thread's errno (positive). Reading it through `io::Error`
/// allocates nothing for an OS error.
#[inline]
pub(crate) fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// Runs a transfer syscall, retrying EINTR, and gives its result the way a
/// [`crate::Completion`] carries it: bytes moved, or a negative errno.
#[inline]
/// sync_file_range(2) of `len` bytes from `offset` with `flags`, as a
/// [`crate::Completion`] carries its result; nothing for an empty range
/// (fio's `do_sync_file_range`: 0 would mean "to the end of the file").
pub(crate) fn sync_file_range(fd: libc::c_int, offset: u64, len: u32, flags: u32) -> i64 {
    if len == 0 {
        return 0;
    }
    // SAFETY: sync_file_range touches no memory.
    io_result(|| unsafe {
        libc::sync_file_range(fd, offset as libc::off64_t, libc::off64_t::from(len), flags) as isize
    })
}

pub(crate) fn io_result(mut f: impl FnMut() -> isize) -> i64 {
    loop {
        let r = f();
        if r >= 0 {
            return r as i64;
        }
        let e = errno();
        if e != libc::EINTR {
            return -i64::from(e);
        }
    }
}
