//! fio's `splice` engine (engines/splice.c): data moves between the file
//! and the buffer through a pipe. A read splices the file's bytes into the
//! pipe and vmsplices them out into the buffer; a write vmsplices the
//! buffer into the pipe and splices the pipe into the file. 64 KiB at a
//! time (fio's SPLICE_DEF_SIZE), which a pipe holds at its default size, so
//! neither end ever waits on the other. Trims and fsyncs are the
//! synchronous engines'.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::descriptor::EngineDesc;
use crate::queue_config::QueueConfig;
use crate::sync::SyncCalls;
use crate::whole;

/// fio's SPLICE_DEF_SIZE: the most one splice moves.
const CHUNK: usize = 64 << 10;

pub(crate) static SPLICE: EngineDesc = EngineDesc {
    name: "splice",
    help: "splice/vmsplice through a pipe",
    ..crate::sync::SYNC
};

/// The splice engine's transfers, over a pipe of its own.
pub struct SpliceCalls {
    /// (read end, write end), or the errno that pipe(2) failed with
    /// (descriptors run out): every transfer then fails with it, as the
    /// [`SyncCalls`] interface builds the calls without a way to fail.
    pipe: Result<(OwnedFd, OwnedFd), i32>,
}

impl SyncCalls for SpliceCalls {
    const NAME: &'static str = "splice";

    fn new(_: &QueueConfig) -> Self {
        let mut p = [0; 2];
        // SAFETY: `p` has room for the two descriptors.
        let pipe = if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            Err(crate::syscall::errno())
        } else {
            // SAFETY: descriptors just made and owned by no one else.
            Ok(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) })
        };
        SpliceCalls { pipe }
    }

    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        ptr: *mut u8,
        len: usize,
        offset: libc::off_t,
    ) -> isize {
        let (r, w) = match &self.pipe {
            Ok((r, w)) => (r.as_raw_fd(), w.as_raw_fd()),
            Err(e) => {
                // SAFETY: errno is the thread's own.
                unsafe { *libc::__errno_location() = *e };
                return -1;
            }
        };
        let mut off = offset;
        let mut done = 0;
        while done < len {
            let n = CHUNK.min(len - done);
            // SAFETY: within the caller's `len` bytes at `ptr`.
            let at = unsafe { ptr.add(done) };
            let moved = if write {
                let put = whole::vmsplice(w, at, n);
                if put <= 0 {
                    return fail_or(done, put);
                }
                let out =
                    whole::splice((r, None), (fd, Some(&mut off)), put as usize, 0, |_| false);
                if out < put {
                    return fail_or(done, out);
                }
                out
            } else {
                let got = whole::splice((fd, Some(&mut off)), (w, None), n, 0, |_| false);
                if got <= 0 {
                    return fail_or(done, got);
                }
                let out = whole::vmsplice(r, at, got as usize);
                if out < got {
                    return fail_or(done, out);
                }
                out
            };
            done += moved as usize;
            if (moved as usize) < n {
                // The file ended.
                break;
            }
        }
        done as isize
    }
}

/// What a transfer that stopped early returns: the bytes moved so far, or
/// the failure (with errno set) when none moved.
fn fail_or(done: usize, r: i64) -> isize {
    if done > 0 || r >= 0 {
        return (done as i64 + r.max(0)) as isize;
    }
    // SAFETY: errno is the thread's own.
    unsafe { *libc::__errno_location() = (-r) as i32 };
    -1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Queue;
    use crate::request::Op;
    use crate::sync::SyncQueue;
    use crate::target::{OpenOptions, Target};
    use crate::test_io::{completed, req};

    /// Blocks larger than a pipe's worth go in several splices; each lands
    /// at its own offset and reads back the same, and a read past the end
    /// of the file comes back short.
    #[test]
    fn writes_read_back_through_the_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let t = Target::open(
            &path,
            &OpenOptions {
                read: true,
                write: true,
                create: true,
                direct: false,
                pi_in_data: false,
            },
        )
        .unwrap();
        let bs: u32 = 192 << 10;
        let config = QueueConfig {
            depth: 1,
            buffer_size: bs as usize,
            buffer_align: 4096,
            ..QueueConfig::default()
        };
        let mut q = SyncQueue::<SpliceCalls>::new(&config, &[t.fd()]).unwrap();
        for block in [1u64, 0] {
            for (i, b) in q.buffer(0).iter_mut().enumerate() {
                *b = (i as u64 % 251 + block) as u8;
            }
            assert_eq!(
                completed(&mut q, req(Op::Write, block * u64::from(bs), bs, 0)),
                i64::from(bs)
            );
        }
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(on_disk.len(), 2 * bs as usize);
        for block in [0u64, 1] {
            q.buffer(0).fill(0);
            assert_eq!(
                completed(&mut q, req(Op::Read, block * u64::from(bs), bs, 0)),
                i64::from(bs)
            );
            let want: Vec<u8> = (0..bs as u64).map(|i| (i % 251 + block) as u8).collect();
            assert!(q.buffer(0) == want.as_slice(), "block {block}");
        }
        assert_eq!(
            completed(&mut q, req(Op::Read, u64::from(bs) + 4096, bs, 0)),
            i64::from(bs) - 4096
        );
        assert_eq!(
            completed(&mut q, req(Op::Read, 2 * u64::from(bs), bs, 0)),
            0
        );
    }
}
