//! fio's `pvsync`: preadv(2)/pwritev(2) with one iovec at the request's
//! offset, one system call per request, as fio's `fio_pvsyncio_queue`.
//! Trims and fsync are the synchronous queue's, as for `psync`.

use std::os::fd::RawFd;

use crate::descriptor::EngineDesc;
use crate::queue_config::QueueConfig;
use crate::sync::{SyncCalls, PSYNC};

pub(crate) static PVSYNC: EngineDesc = EngineDesc {
    name: "pvsync",
    help: "preadv/pwritev",
    ..PSYNC
};

/// preadv(2)/pwritev(2) with one iovec.
pub struct PreadvPwritev;

impl SyncCalls for PreadvPwritev {
    const NAME: &'static str = "pvsync";

    fn new(_: &QueueConfig) -> Self {
        PreadvPwritev
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
        // On the stack, as pvsync2's: two stores per request.
        let iov = libc::iovec {
            iov_base: ptr.cast(),
            iov_len: len,
        };
        if write {
            libc::pwritev(fd, &iov, 1, offset)
        } else {
            libc::preadv(fd, &iov, 1, offset)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Queue;
    use crate::request::Op;
    use crate::sync::SyncQueue;
    use crate::target::{OpenOptions, Target};
    use crate::test_io::{completed, req};

    fn config() -> QueueConfig {
        QueueConfig {
            depth: 2,
            buffer_size: 4096,
            buffer_align: 4096,
            ..QueueConfig::default()
        }
    }

    #[test]
    fn writes_land_at_their_offsets_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let options = OpenOptions {
            read: true,
            write: true,
            create: true,
            direct: false,
            pi_in_data: false,
        };
        let t = Target::open(&path, &options).unwrap();
        let mut q = SyncQueue::<PreadvPwritev>::new(&config(), &[t.fd()]).unwrap();
        for block in [1u64, 0] {
            q.buffer(0).fill(0x40 + block as u8);
            assert_eq!(
                completed(&mut q, req(Op::Write, block * 4096, 4096, 0)),
                4096
            );
        }
        let on_disk = std::fs::read(&path).unwrap();
        assert!(on_disk[..4096].iter().all(|&b| b == 0x40));
        assert!(on_disk[4096..].iter().all(|&b| b == 0x41));
        q.buffer(0).fill(0);
        assert_eq!(completed(&mut q, req(Op::Read, 4096, 4096, 0)), 4096);
        assert!(q.buffer(0).iter().all(|&b| b == 0x41));
        // Past the end: a short read of nothing, not an error.
        assert_eq!(completed(&mut q, req(Op::Read, 8192, 4096, 0)), 0);
    }
}
