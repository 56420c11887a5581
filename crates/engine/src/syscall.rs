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

/// Runs a transfer syscall, retrying EINTR, and gives its result the way a
/// [`crate::Completion`] carries it: bytes moved, or a negative errno.
#[inline]
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

/// A system call whose `syscall` instruction is inlined into the caller:
/// the kernel's own result, a negative errno on failure (errno untouched).
///
/// Why not `libc::syscall`: on this project's machine (an AMD guest with the
/// SRSO "Safe RET" mitigation) the first `ret` after the kernel returns to
/// user space mispredicts, and a call through a wrapper puts one on every
/// request: a C loop of io_uring NOPs at QD1 made 2.47 M calls a second
/// through glibc's `syscall()` and 3.43 M with the instruction inline
/// (110 ns a call). The hot paths inline this all the way into their loop.
///
/// # Safety
/// As for the system call `nr` with these arguments.
#[inline(always)]
pub(crate) unsafe fn syscall6(nr: libc::c_long, args: [libc::c_long; 6]) -> libc::c_long {
    #[cfg(target_arch = "x86_64")]
    {
        let ret: libc::c_long;
        // SAFETY: the caller vouches for the call; the kernel clobbers rcx
        // and r11 and may read or write any memory the arguments name.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") nr => ret,
                in("rdi") args[0],
                in("rsi") args[1],
                in("rdx") args[2],
                in("r10") args[3],
                in("r8") args[4],
                in("r9") args[5],
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        ret
    }
    #[cfg(target_arch = "aarch64")]
    {
        let ret: libc::c_long;
        // SAFETY: as above; the number goes in x8, the result comes in x0.
        unsafe {
            std::arch::asm!(
                "svc 0",
                in("x8") nr,
                inlateout("x0") args[0] => ret,
                in("x1") args[1],
                in("x2") args[2],
                in("x3") args[3],
                in("x4") args[4],
                in("x5") args[5],
                options(nostack),
            );
        }
        ret
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        // SAFETY: as the caller vouches.
        let r = unsafe { libc::syscall(nr, args[0], args[1], args[2], args[3], args[4], args[5]) };
        if r < 0 {
            -libc::c_long::from(errno())
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::syscall6;

    #[test]
    fn syscall6_returns_the_kernels_result_and_a_negative_errno() {
        // SAFETY: getpid and close touch no memory.
        let pid = unsafe { syscall6(libc::SYS_getpid, [0; 6]) };
        assert_eq!(pid, libc::c_long::from(unsafe { libc::getpid() }));
        let closed = unsafe { syscall6(libc::SYS_close, [-1, 0, 0, 0, 0, 0]) };
        assert_eq!(closed, -libc::c_long::from(libc::EBADF));
    }
}
