//! Moving a whole length with system calls that may move less (send,
//! recv, splice, vmsplice): call again from where the last call stopped.

use std::os::fd::RawFd;

use crate::syscall::io_result;

/// Calls `step(done)`, one system call moving bytes from offset `done` of
/// the transfer on, until `len` bytes moved or the source ended (a call
/// moved nothing). A result that `again` accepts (a timeout slice of a
/// socket that must be waited on) is tried again. Returns the bytes moved,
/// or the call's negative errno when none moved.
pub(crate) fn moved(
    len: usize,
    mut step: impl FnMut(usize) -> i64,
    mut again: impl FnMut(i64) -> bool,
) -> i64 {
    let mut done = 0;
    while done < len {
        let r = step(done);
        if again(r) {
            continue;
        }
        if r < 0 {
            return if done > 0 { done as i64 } else { r };
        }
        if r == 0 {
            break;
        }
        done += r as usize;
    }
    done as i64
}

/// splice(2) of `len` bytes between `from` and `to` (at the offsets given,
/// which advance; a pipe or socket end has none), looped as [`moved`] does.
pub(crate) fn splice(
    from: (RawFd, Option<&mut libc::off_t>),
    to: (RawFd, Option<&mut libc::off_t>),
    len: usize,
    flags: libc::c_uint,
    again: impl FnMut(i64) -> bool,
) -> i64 {
    let (from, mut from_off) = from;
    let (to, mut to_off) = to;
    moved(
        len,
        |done| {
            let fo = from_off
                .as_deref_mut()
                .map_or(std::ptr::null_mut(), |o| o as *mut _);
            let tof = to_off
                .as_deref_mut()
                .map_or(std::ptr::null_mut(), |o| o as *mut _);
            // SAFETY: the offsets, when given, are live for the call; both
            // descriptors are the caller's open ones.
            io_result(|| unsafe { libc::splice(from, fo, to, tof, len - done, flags) as isize })
        },
        again,
    )
}

/// vmsplice(2) of `len` bytes at `ptr` into the write end of a pipe, or
/// out of its read end into the buffer, looped as [`moved`] does.
pub(crate) fn vmsplice(pipe_end: RawFd, ptr: *mut u8, len: usize) -> i64 {
    moved(
        len,
        |done| {
            let iov = libc::iovec {
                // SAFETY: within the caller's `len` bytes at `ptr`.
                iov_base: unsafe { ptr.add(done) }.cast(),
                iov_len: len - done,
            };
            // SAFETY: the iovec addresses the caller's live buffer.
            io_result(|| unsafe { libc::vmsplice(pipe_end, &iov, 1, 0) })
        },
        |_| false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Short steps are continued from where they stopped; a step that moves
    /// nothing ends the transfer; an error after some bytes reports the
    /// bytes, before any the error.
    #[test]
    fn steps_continue_end_and_fail_as_documented() {
        let mut froms = vec![];
        let r = moved(
            10,
            |d| {
                froms.push(d);
                3
            },
            |_| false,
        );
        assert_eq!((r, froms), (12, vec![0, 3, 6, 9]));
        assert_eq!(moved(10, |d| if d == 0 { 4 } else { 0 }, |_| false), 4);
        assert_eq!(moved(10, |d| if d == 0 { 4 } else { -5 }, |_| false), 4);
        assert_eq!(moved(10, |_| -11, |_| false), -11);
        // Two timeout slices, then the bytes.
        let slices = std::cell::Cell::new(0);
        let r = moved(
            8,
            |_| if slices.get() < 2 { -11 } else { 8 },
            |r| {
                slices.set(slices.get() + 1);
                r == -11
            },
        );
        assert_eq!((r, slices.get()), (8, 3));
    }

    /// A pipe's worth goes in with vmsplice and back out through splice
    /// into a second pipe, and reads back the same.
    #[test]
    fn bytes_go_through_pipes_whole() {
        let pipe = || {
            let mut p = [0; 2];
            // SAFETY: `p` has room for the two descriptors.
            assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
            p
        };
        let (a, b) = (pipe(), pipe());
        let mut data: Vec<u8> = (0..4096u32).map(|i| i as u8).collect();
        assert_eq!(vmsplice(a[1], data.as_mut_ptr(), data.len()), 4096);
        assert_eq!(splice((a[0], None), (b[1], None), 4096, 0, |_| false), 4096);
        let mut back = vec![0u8; 4096];
        // SAFETY: `back` has room for 4096 bytes.
        let n = unsafe { libc::read(b[0], back.as_mut_ptr().cast(), 4096) };
        assert_eq!(n, 4096);
        assert_eq!(back, data);
        for fd in a.into_iter().chain(b) {
            // SAFETY: each descriptor is this test's own, closed once.
            unsafe { libc::close(fd) };
        }
    }
}
