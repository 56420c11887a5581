//! The mmap backend (fio `mmap`): each file is mapped once, shared, and
//! reads and writes are memcpy between the mapping and the slot buffers.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

use crate::buffer::{page_size, SlotBuffers};
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Op, Request};
use crate::sigbus::{self, Guard};
use crate::target::{block_device_size, fstat};
use crate::trim::{trim, TrimMethod};

use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};

pub(crate) static MMAP: EngineDesc = EngineDesc {
    name: "mmap",
    aliases: &[],
    help: "Memory mapped I/O (memcpy to and from a mapping of the file)",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &["thp"],
    check: any_shape,
};

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<MmapQueue, EngineError> {
    MmapQueue::new(config, fds)
}

/// fio's `mmap` engine: requests complete inside [`Queue::submit`].
///
/// Each regular file or block device is mapped whole, once, when the queue
/// is built (fio maps per I/O range and remaps when a request falls
/// outside; on a 64-bit machine the whole file fits in the address space,
/// so one mapping per file saves a munmap and an mmap per miss). The
/// mapping is shared and as long as the file was at that moment, never
/// longer, because touching a page past the end of a file raises SIGBUS:
///
/// - a read that runs past the end returns the bytes that exist (0 at or
///   past the end), as pread does;
/// - a write that runs past the end fails with -EINVAL: a mapping cannot
///   extend a file (fio's mmap engine never extends files either);
/// - a file shrunk by someone else while the queue lives raises SIGBUS at
///   the next access to a lost page. A process-wide SIGBUS handler
///   maps a zero page over it so the copy completes, and the request fails
///   with -EIO; every later request to that file fails the same way, since
///   the mapping no longer shows the file there. Checking for it costs one
///   atomic load per request.
///
/// The protection follows the descriptor's open mode: read-only
/// descriptors are mapped PROT_READ and writes through them fail with
/// -EBADF (as pwrite would) instead of faulting. A write-only descriptor
/// cannot be mapped at all (the kernel needs read access for a shared
/// mapping), so writing jobs must open their files read-write.
///
/// Fsync is msync(MS_SYNC) over the file's whole mapping, as in fio. On a
/// descriptor opened with O_DIRECT every transfer is followed, as fio does,
/// by msync(MS_SYNC) and madvise(MADV_DONTNEED) of its pages, which writes
/// them back and drops them from the process's page tables.
///
/// A trim punches a hole in a file or discards a block device's range
/// (fio's mmap engine does the same), through a duplicate of each writable
/// descriptor that the queue keeps for it. The kernel takes the trimmed
/// pages out of the mapping, so later reads through it see zeroes. A trim
/// through a read-only descriptor fails with -EBADF, as fallocate would.
pub struct MmapQueue {
    maps: Box<[Mapping]>,
    buffers: SlotBuffers,
}

struct Mapping {
    /// Start of the mapping; dangling when `len` is 0 (an empty file,
    /// which cannot be mapped).
    ptr: *mut u8,
    len: usize,
    writable: bool,
    /// O_DIRECT: push each transfer out and drop its pages.
    direct: bool,
    /// The queue's own descriptor for trims, so the caller may close
    /// theirs; none for a read-only file, which cannot be trimmed.
    trim_fd: Option<OwnedFd>,
    trim_method: TrimMethod,
    /// Turns a fault on a page the file lost into an error; None when the
    /// mapping is empty or could not be guarded.
    guard: Option<Guard>,
}

// SAFETY: the mappings belong to the process and are used through
// `&mut self` only; the queue owns them and unmaps them on drop.
unsafe impl Send for MmapQueue {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // Unguarded first: once unmapped, the addresses may be reused by
        // a mapping whose faults are not ours to handle.
        self.guard = None;
        if self.len != 0 {
            // SAFETY: mapped in `Mapping::new` with exactly this length.
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
        }
    }
}

impl Mapping {
    fn new(fd: RawFd, thp: bool) -> Result<Mapping, EngineError> {
        let fail = |what: &str, e: io::Error| {
            EngineError::Setup(format!("mmap backend, file descriptor {fd}: {what}: {e}"))
        };
        // SAFETY: F_GETFL reads the descriptor's flags and touches no memory.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags == -1 {
            return Err(fail("fcntl(F_GETFL)", io::Error::last_os_error()));
        }
        let (prot, writable) = match flags & libc::O_ACCMODE {
            libc::O_RDONLY => (libc::PROT_READ, false),
            libc::O_RDWR => (libc::PROT_READ | libc::PROT_WRITE, true),
            _ => {
                return Err(EngineError::Setup(format!(
                    "mmap backend, file descriptor {fd}: opened write-only, but a shared \
                     mapping needs read access; open the file for reading and writing"
                )))
            }
        };
        let st = fstat(fd).map_err(|e| fail("fstat", e))?;
        let size = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => st.st_size as u64,
            libc::S_IFBLK => {
                block_device_size(fd).map_err(|e| fail("BLKGETSIZE64 (device size)", e))?
            }
            _ => {
                return Err(EngineError::Setup(format!(
                    "mmap backend, file descriptor {fd}: not a regular file or block device, \
                     so it cannot be mapped; use ioengine=psync"
                )))
            }
        };
        let len = usize::try_from(size).map_err(|_| {
            EngineError::Setup(format!(
                "mmap backend, file descriptor {fd}: {size} bytes do not fit in this machine's \
                 address space; use ioengine=psync or a smaller file"
            ))
        })?;
        let direct = flags & libc::O_DIRECT != 0;
        let trim_fd = if writable {
            // SAFETY: `fd` is open (fstat succeeded) for the duration of
            // this call, which is all the borrow lasts.
            let fd = unsafe { BorrowedFd::borrow_raw(fd) };
            Some(fd.try_clone_to_owned().map_err(|e| fail("dup", e))?)
        } else {
            None
        };
        let trim_method = TrimMethod::for_mode(st.st_mode);
        if len == 0 {
            return Ok(Mapping {
                ptr: std::ptr::NonNull::dangling().as_ptr(),
                len,
                writable,
                direct,
                trim_fd,
                trim_method,
                guard: None,
            });
        }
        // fio's thp maps the file private (so writes stay in this mapping
        // and never reach the file, as in fio) and advises huge pages.
        let share = if thp {
            libc::MAP_PRIVATE
        } else {
            libc::MAP_SHARED
        };
        // SAFETY: a new mapping of `len` bytes of the file, which is at
        // least that long; nothing else is at the address the kernel picks.
        let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, share, fd, 0) };
        if ptr == libc::MAP_FAILED {
            return Err(fail(
                &format!("mmap of {len} bytes (does the filesystem support mmap?)"),
                io::Error::last_os_error(),
            ));
        }
        if thp {
            // Advice only: fio ignores its failure (no THP in the kernel).
            // SAFETY: the range is the mapping just made.
            unsafe { libc::madvise(ptr, len, libc::MADV_HUGEPAGE) };
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
            writable,
            direct,
            trim_fd,
            trim_method,
            guard: sigbus::guard(ptr.cast(), len),
        })
    }

    /// msync(MS_SYNC) of `len` bytes from `offset`, widened to whole pages
    /// as msync requires; 0 or a negative errno.
    fn sync(&self, offset: usize, len: usize, drop_pages: bool) -> i64 {
        if len == 0 {
            return 0;
        }
        let page = page_size();
        let start = offset & !(page - 1);
        let len = offset + len - start;
        // SAFETY: the range lies inside the mapping (callers check), and
        // msync and madvise(MADV_DONTNEED) on a shared file mapping change
        // no data: dropped pages are read back from the file.
        unsafe {
            let addr = self.ptr.add(start).cast();
            if libc::msync(addr, len, libc::MS_SYNC) == -1 {
                return -i64::from(crate::syscall::errno());
            }
            if drop_pages && libc::madvise(addr, len, libc::MADV_DONTNEED) == -1 {
                return -i64::from(crate::syscall::errno());
            }
        }
        0
    }
}

impl MmapQueue {
    /// Maps every descriptor in `fds` (indexed by [`Request::file`]). The
    /// descriptors may be closed afterwards: the mappings keep the files.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<MmapQueue, EngineError> {
        crate::queue::check_fds("mmap", fds)?;
        let buffers = SlotBuffers::new(config)?;
        let maps = fds
            .iter()
            .map(|&fd| Mapping::new(fd, config.thp))
            .collect::<Result<Box<[Mapping]>, _>>()?;
        Ok(MmapQueue { maps, buffers })
    }
}

impl Queue for MmapQueue {
    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let Some(map) = self.maps.get(req.file as usize) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        let write = match req.op {
            Op::Read => false,
            Op::Write => true,
            // fio's mmap engine msyncs the whole map for any sync.
            Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. } => {
                return Ok(Submitted::Completed(map.sync(0, map.len, false)))
            }
            Op::Trim => {
                let r = match &map.trim_fd {
                    Some(fd) => trim(fd.as_raw_fd(), map.trim_method, req.offset, req.len),
                    None => -i64::from(libc::EBADF),
                };
                return Ok(Submitted::Completed(r));
            }
            Op::WriteZeroes { .. }
            | Op::WriteUncorrectable
            | Op::DeviceVerify
            | Op::TrimRanges { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
        };
        let Some(buf) = self.buffers.io_ptr(req.slot, req.len) else {
            return Err(bad_request(
                req,
                "lies outside the queue's buffers (slot >= depth or len > buffer size)",
            ));
        };
        let len = req.len as usize;
        let start = usize::try_from(req.offset).unwrap_or(usize::MAX);
        let fits = start.checked_add(len).is_some_and(|end| end <= map.len);
        let n = if write {
            if !map.writable {
                return Ok(Submitted::Completed(-i64::from(libc::EBADF)));
            }
            if !fits {
                return Ok(Submitted::Completed(-i64::from(libc::EINVAL)));
            }
            len
        } else if fits {
            len
        } else {
            map.len.saturating_sub(start)
        };
        // SAFETY: `start..start + n` lies inside the mapping (checked
        // above), which is writable for writes; `buf` addresses `n` bytes of
        // this queue's buffers (checked by `io_ptr`), which never overlap a
        // file mapping.
        unsafe {
            let file = map.ptr.add(start.min(map.len));
            if write {
                std::ptr::copy_nonoverlapping(buf, file, n);
            } else {
                std::ptr::copy_nonoverlapping(file, buf, n);
            }
        }
        if map.guard.as_ref().is_some_and(Guard::faulted) {
            return Ok(Submitted::Completed(-i64::from(libc::EIO)));
        }
        if map.direct {
            let r = map.sync(start.min(map.len), n, true);
            if r < 0 {
                return Ok(Submitted::Completed(r));
            }
        }
        Ok(Submitted::Completed(n as i64))
    }

    /// # Panics
    ///
    /// When `slot` is not below the queue depth.
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{OpenOptions, Target};
    use crate::test_io::{completed, req};
    use std::path::Path;

    const BS: usize = 4096;

    fn config(depth: u32) -> QueueConfig {
        QueueConfig {
            depth,
            buffer_size: BS,
            buffer_align: 4096,
            ..QueueConfig::default()
        }
    }

    fn open(path: &Path, read: bool, write: bool, direct: bool) -> Target {
        Target::open(
            path,
            &OpenOptions {
                read,
                write,
                create: false,
                direct,
                pi_in_data: false,
            },
        )
        .unwrap()
    }

    /// Writes four blocks out of order through the mapping, msyncs, reads
    /// them back through another slot and checks the file through read(2).
    #[test]
    fn reads_back_what_it_wrote() {
        for direct in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, vec![0u8; 4 * BS]).unwrap();
            let t = open(&path, true, true, direct);
            let mut q = MmapQueue::new(&config(2), &[t.fd()]).unwrap();
            assert_eq!(q.maps[0].len, 4 * BS);
            assert_eq!(q.maps[0].direct, direct);
            for block in [2u64, 0, 3, 1] {
                q.buffer(0).fill(block as u8 + 0x10);
                let n = completed(&mut q, req(Op::Write, block * BS as u64, BS as u32, 0));
                assert_eq!(n, BS as i64, "direct {direct} write block {block}");
            }
            assert_eq!(completed(&mut q, req(Op::Fsync, 0, 0, 0)), 0);
            for block in [1u64, 2, 3, 0] {
                q.buffer(1).fill(0);
                let n = completed(&mut q, req(Op::Read, block * BS as u64, BS as u32, 1));
                assert_eq!(n, BS as i64);
                assert!(q.buffer(1).iter().all(|&b| b == block as u8 + 0x10));
            }
            // Unaligned and short requests are plain copies.
            q.buffer(0)[..10].copy_from_slice(b"0123456789");
            assert_eq!(completed(&mut q, req(Op::Write, 4093, 10, 0)), 10);
            assert_eq!(q.in_flight(), 0);
            assert_eq!(q.commit().unwrap(), 0);
            assert_eq!(q.reap(1, 8, |_| panic!("nothing to reap")).unwrap(), 0);
            let on_disk = std::fs::read(&path).unwrap();
            assert_eq!(&on_disk[4093..4103], b"0123456789");
            assert!(on_disk[..4093].iter().all(|&b| b == 0x10));
            assert!(on_disk[4103..2 * BS].iter().all(|&b| b == 0x11));
            assert!(on_disk[3 * BS..].iter().all(|&b| b == 0x13));
        }
    }

    /// A file cut short by someone else while mapped: the next touch of a
    /// lost page fails the request with -EIO instead of killing the process
    /// with SIGBUS, and so does every later request; the pages that remain
    /// in the file were read and written as usual before.
    #[test]
    fn a_file_shrunk_under_the_mapping_fails_requests_not_the_process() {
        for write in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, vec![7u8; 4 * BS]).unwrap();
            let t = open(&path, true, true, false);
            let mut q = MmapQueue::new(&config(1), &[t.fd()]).unwrap();
            let op = if write { Op::Write } else { Op::Read };
            assert_eq!(completed(&mut q, req(op, 0, BS as u32, 0)), BS as i64);
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(BS as u64)
                .unwrap();
            let lost = completed(&mut q, req(op, 2 * BS as u64, BS as u32, 0));
            assert_eq!(lost, -i64::from(libc::EIO), "write {write}");
            if !write {
                assert!(
                    q.buffer(0).iter().all(|&b| b == 0),
                    "a lost page reads as zeroes"
                );
            }
            let kept = completed(&mut q, req(op, 0, BS as u32, 0));
            assert_eq!(
                kept,
                -i64::from(libc::EIO),
                "write {write}: the fault sticks"
            );
            assert_eq!(std::fs::metadata(&path).unwrap().len(), BS as u64);
        }
    }

    /// The mapping ends where the file does: reads past the end are short,
    /// as with pread, writes past the end fail, and the file keeps its size.
    #[test]
    fn never_touches_past_the_end_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![5u8; BS + 100]).unwrap();
        let t = open(&path, true, true, false);
        let mut q = MmapQueue::new(&config(1), &[t.fd()]).unwrap();
        assert_eq!(q.maps[0].len, BS + 100);
        let einval = -i64::from(libc::EINVAL);
        assert_eq!(
            completed(&mut q, req(Op::Read, BS as u64, BS as u32, 0)),
            100
        );
        assert!(q.buffer(0)[..100].iter().all(|&b| b == 5));
        assert_eq!(
            completed(&mut q, req(Op::Read, 2 * BS as u64, BS as u32, 0)),
            0
        );
        assert_eq!(completed(&mut q, req(Op::Read, u64::MAX, BS as u32, 0)), 0);
        assert_eq!(
            completed(&mut q, req(Op::Write, BS as u64, BS as u32, 0)),
            einval
        );
        assert_eq!(
            completed(&mut q, req(Op::Write, 1 << 40, BS as u32, 0)),
            einval
        );
        assert_eq!(completed(&mut q, req(Op::Write, u64::MAX, 1, 0)), einval);
        assert_eq!(completed(&mut q, req(Op::Write, BS as u64, 100, 0)), 100);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), BS as u64 + 100);

        // An empty file has no mapping: nothing to read, nowhere to write.
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        let t = open(&empty, true, true, false);
        let mut q = MmapQueue::new(&config(1), &[t.fd()]).unwrap();
        assert_eq!(completed(&mut q, req(Op::Read, 0, BS as u32, 0)), 0);
        assert_eq!(completed(&mut q, req(Op::Write, 0, 1, 0)), einval);
        assert_eq!(completed(&mut q, req(Op::Fsync, 0, 0, 0)), 0);
    }

    #[test]
    fn read_only_files_are_mapped_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![3u8; BS]).unwrap();
        let t = open(&path, true, false, false);
        let mut q = MmapQueue::new(&config(1), &[t.fd()]).unwrap();
        assert!(!q.maps[0].writable);
        assert_eq!(completed(&mut q, req(Op::Read, 0, BS as u32, 0)), BS as i64);
        assert!(q.buffer(0).iter().all(|&b| b == 3));
        assert_eq!(
            completed(&mut q, req(Op::Write, 0, BS as u32, 0)),
            -i64::from(libc::EBADF)
        );
        assert_eq!(completed(&mut q, req(Op::Fsync, 0, 0, 0)), 0);

        let t = open(&path, false, true, false);
        let e = MmapQueue::new(&config(1), &[t.fd()]).err().unwrap();
        assert!(
            e.to_string()
                .contains("open the file for reading and writing"),
            "{e}"
        );
    }

    #[test]
    fn requests_pick_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, vec![0u8; 512]).unwrap();
        std::fs::write(&b, vec![0u8; 1024]).unwrap();
        let (ta, tb) = (open(&a, true, true, false), open(&b, true, true, false));
        let mut q = MmapQueue::new(&config(1), &[ta.fd(), tb.fd()]).unwrap();
        q.buffer(0).fill(0xaa);
        assert_eq!(completed(&mut q, req(Op::Write, 0, 512, 0)), 512);
        q.buffer(0).fill(0xbb);
        let to_b = Request {
            file: 1,
            ..req(Op::Write, 512, 512, 0)
        };
        assert_eq!(completed(&mut q, to_b), 512);
        assert_eq!(
            completed(
                &mut q,
                Request {
                    file: 1,
                    ..req(Op::Fsync, 0, 0, 0)
                }
            ),
            0
        );
        assert_eq!(std::fs::read(&a).unwrap(), vec![0xaa; 512]);
        let mut want = vec![0; 512];
        want.extend([0xbb; 512]);
        assert_eq!(std::fs::read(&b).unwrap(), want);
    }

    #[test]
    fn setup_and_request_errors() {
        let e = MmapQueue::new(&config(1), &[]).err().unwrap();
        assert!(e.to_string().contains("at least one open file"), "{e}");
        let e = MmapQueue::new(&config(1), &[-1]).err().unwrap();
        assert!(e.to_string().contains("not valid"), "{e}");
        let null = open(Path::new("/dev/null"), true, true, false);
        let e = MmapQueue::new(&config(1), &[null.fd()]).err().unwrap();
        assert!(
            e.to_string().contains("not a regular file or block device"),
            "{e}"
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; BS]).unwrap();
        let t = open(&path, true, true, false);
        let e = MmapQueue::new(&config(0), &[t.fd()]).err().unwrap();
        assert!(e.to_string().contains("queue depth 0"), "{e}");
        let mut q = MmapQueue::new(&config(2), &[t.fd()]).unwrap();
        for r in [
            req(Op::Read, 0, BS as u32, 2),
            req(Op::Write, 0, BS as u32 + 1, 0),
            Request {
                file: 1,
                ..req(Op::Read, 0, 512, 0)
            },
        ] {
            let e = q.submit(&r).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
        }
    }
}
