//! Trims for the backends that move data with plain system calls (sync,
//! psync, pvsync2, libaio, posixaio, io_uring, mmap): a hole punched in a
//! regular file, a discard on a block device. (fio's `do_io_u_trim` sends
//! BLKDISCARD to both, so its trims of a regular file fail with ENOTTY.)

use std::os::fd::RawFd;

use crate::error::EngineError;
use crate::ioctl::BLKDISCARD;
use crate::syscall::io_result;
use crate::target::fstat;

/// How one descriptor's ranges are trimmed. Chosen once, when the queue is
/// built, so a trim costs one system call and no fstat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TrimMethod {
    /// fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE): the blocks are
    /// freed, the range reads back as zeroes and the file keeps its size.
    /// Anything that is not a block device gets this too, so the kernel
    /// gives its own answer for it (ENODEV for a char device, ESPIPE for a
    /// pipe, EOPNOTSUPP for a filesystem without holes).
    PunchHole,
    /// ioctl(BLKDISCARD). The kernel drops the range from the page cache
    /// and needs it aligned to the logical block size (EINVAL otherwise).
    Discard,
}

impl TrimMethod {
    /// The method for a file of mode `st_mode` (from stat).
    pub(crate) fn for_mode(st_mode: libc::mode_t) -> TrimMethod {
        if st_mode & libc::S_IFMT == libc::S_IFBLK {
            TrimMethod::Discard
        } else {
            TrimMethod::PunchHole
        }
    }

    /// One method per descriptor, in the order of `fds`.
    pub(crate) fn for_fds(fds: &[RawFd]) -> Result<Box<[TrimMethod]>, EngineError> {
        fds.iter()
            .map(|&fd| {
                fstat(fd)
                    .map(|st| TrimMethod::for_mode(st.st_mode))
                    .map_err(|e| EngineError::Setup(format!("file descriptor {fd}: fstat: {e}")))
            })
            .collect()
    }
}

/// Trims `len` bytes at `offset` of `fd`: `len` when done, or a negative
/// errno, as a [`crate::Completion`] carries it.
#[inline]
pub(crate) fn trim(fd: RawFd, method: TrimMethod, offset: u64, len: u32) -> i64 {
    let r = match method {
        // SAFETY: fallocate touches no memory of ours.
        TrimMethod::PunchHole => io_result(|| unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                libc::off_t::from(len),
            )
        } as isize),
        TrimMethod::Discard => {
            let range = [offset, u64::from(len)];
            // SAFETY: BLKDISCARD reads two u64s (start, length) through
            // the pointer, which addresses `range`.
            io_result(|| unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) } as isize)
        }
    };
    if r < 0 {
        r
    } else {
        i64::from(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::open_queue;
    use crate::queue::QueueUser;
    use crate::queue::{Queue, Submitted};
    use crate::queue_config::QueueConfig;
    use crate::registry::Backend;
    use crate::request::{Op, Request};
    use crate::target::{OpenOptions, Target};
    use crate::test_io::complete_one;
    use ioscope_testutil::{o_direct, require};
    use std::path::Path;

    const BS: u64 = 4096;
    /// Big enough that a file system allocates real blocks for it.
    const BLOCKS: u64 = 64;

    /// The backends that trim with [`trim`].
    const BACKENDS: [Backend; 6] = [
        Backend::Sync,
        Backend::Psync,
        Backend::Pvsync2,
        Backend::Libaio,
        Backend::IoUring,
        Backend::Mmap,
    ];

    fn config() -> QueueConfig {
        QueueConfig {
            depth: 2,
            buffer_size: BS as usize,
            buffer_align: 4096,
            ..QueueConfig::default()
        }
    }

    /// Trims `len` bytes at `offset` and, when that worked, reads the
    /// trimmed range back through the same queue. Gives the trim's result
    /// and whether every byte read back was zero; `None` when the backend
    /// did not complete the trim inside `submit`.
    struct TrimAndRead {
        offset: u64,
        len: u32,
    }

    impl QueueUser for TrimAndRead {
        type Output = Option<(i64, bool)>;

        fn run<Q: Queue>(self, mut q: Q) -> Self::Output {
            let req = Request {
                op: Op::Trim,
                file: 0,
                offset: self.offset,
                len: self.len,
                slot: 1,
            };
            let Submitted::Completed(trimmed) = q.submit(&req).unwrap() else {
                return None;
            };
            assert_eq!(q.in_flight(), 0, "a trim never stays in flight");
            let mut zero = trimmed > 0;
            let mut at = self.offset;
            while zero && at < self.offset + u64::from(self.len) {
                q.buffer(0).fill(0xff);
                assert_eq!(complete_one(&mut q, Op::Read, at, BS as u32), BS as i64);
                zero = q.buffer(0).iter().all(|&b| b == 0);
                at += BS;
            }
            Some((trimmed, zero))
        }
    }

    fn open(path: &Path, direct: bool) -> Target {
        Target::open(
            path,
            &OpenOptions {
                read: true,
                write: true,
                create: false,
                direct,
                pi_in_data: false,
            },
        )
        .unwrap()
    }

    fn allocated_bytes(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).unwrap().blocks() * 512
    }

    /// Punching a hole frees the file's blocks (st_blocks falls), keeps its
    /// size, and the range reads back as zeroes through the same queue,
    /// while the data around it stays.
    #[test]
    fn punching_a_hole_in_a_file_frees_blocks_and_reads_back_zeroes() {
        for backend in BACKENDS {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, vec![0xa5; (BLOCKS * BS) as usize]).unwrap();
            std::fs::File::open(&path).unwrap().sync_all().unwrap();
            let before = allocated_bytes(&path);
            assert!(before >= BLOCKS * BS, "{backend:?}: the file is allocated");

            let t = open(&path, false);
            let hole = TrimAndRead {
                offset: 8 * BS,
                len: (32 * BS) as u32,
            };
            let r = open_queue(backend, &config(), &[t.fd()], hole).unwrap();
            assert_eq!(
                r,
                Some((32 * BS as i64, true)),
                "{backend:?}: the trim completes inside submit and reads back as zeroes"
            );

            let after = allocated_bytes(&path);
            assert!(
                after <= before - 32 * BS,
                "{backend:?}: {before} bytes allocated before the trim, {after} after"
            );
            let data = std::fs::read(&path).unwrap();
            assert_eq!(data.len() as u64, BLOCKS * BS, "{backend:?} keeps the size");
            for (i, block) in data.chunks(BS as usize).enumerate() {
                let want = if (8..40).contains(&i) { 0 } else { 0xa5 };
                assert!(block.iter().all(|&b| b == want), "{backend:?} block {i}");
            }
        }
    }

    /// The queue's own reads see the hole even with O_DIRECT, where they
    /// bypass the page cache the hole was punched through.
    #[test]
    fn punching_a_hole_with_o_direct() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        require!(o_direct(dir.path()));
        std::fs::write(&path, vec![0x5a; (BLOCKS * BS) as usize]).unwrap();
        let t = Target::open(
            &path,
            &OpenOptions {
                read: true,
                write: true,
                create: false,
                direct: true,
                pi_in_data: false,
            },
        )
        .unwrap();
        for backend in [Backend::Psync, Backend::Libaio, Backend::IoUring] {
            let hole = TrimAndRead {
                offset: 0,
                len: (4 * BS) as u32,
            };
            let r = open_queue(backend, &config(), &[t.fd()], hole).unwrap();
            assert_eq!(r, Some((4 * BS as i64, true)), "{backend:?}");
        }
    }

    /// Per-I/O failures of a trim are results: a read-only descriptor
    /// cannot be trimmed (EBADF), nor can a char device (ENODEV).
    #[test]
    fn trims_the_kernel_refuses_are_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; BS as usize]).unwrap();
        let read_only = Target::open(
            &path,
            &OpenOptions {
                read: true,
                ..Default::default()
            },
        )
        .unwrap();
        let null = open(Path::new("/dev/null"), false);
        let whole_block = || TrimAndRead {
            offset: 0,
            len: BS as u32,
        };
        for backend in BACKENDS {
            let r = open_queue(backend, &config(), &[read_only.fd()], whole_block()).unwrap();
            assert_eq!(r, Some((-i64::from(libc::EBADF), false)), "{backend:?}");
            // /dev/null cannot be mapped, so the mmap queue refuses it when
            // it is built.
            if backend != Backend::Mmap {
                let r = open_queue(backend, &config(), &[null.fd()], whole_block()).unwrap();
                assert_eq!(r, Some((-i64::from(libc::ENODEV), false)), "{backend:?}");
            }
        }
        assert_eq!(
            TrimMethod::for_mode(libc::S_IFBLK | 0o660),
            TrimMethod::Discard
        );
        assert_eq!(
            TrimMethod::for_mode(libc::S_IFREG | 0o644),
            TrimMethod::PunchHole
        );
    }
}
