//! fio's `ftruncate`: every write truncates the file to the request's
//! offset (its length is ignored), as fio's `fio_ftruncate_queue`; a read
//! fails with EINVAL, as in fio. Trims are refused before the run (fio
//! fails each with EINVAL).

use std::os::fd::RawFd;

use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::queue_config::QueueConfig;
use crate::request::Op;
use crate::sync::SyncCalls;

pub(crate) static FTRUNCATE: EngineDesc = EngineDesc {
    name: "ftruncate",
    aliases: &[],
    help: "ftruncate(2) to each write's offset; the block size is not used",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: truncates,
    options: &[],
    check: any_shape,
};

/// What a job may ask of it: writes (truncates), and fsync. Reads are
/// carried only to fail with EINVAL, as fio's do.
fn truncates(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write | Op::Fsync)
}

/// ftruncate(2) instead of a transfer.
pub struct Ftruncate;

impl SyncCalls for Ftruncate {
    const NAME: &'static str = "ftruncate";

    fn new(_: &QueueConfig) -> Self {
        Ftruncate
    }

    #[inline]
    unsafe fn transfer(
        &self,
        fd: RawFd,
        write: bool,
        _: *mut u8,
        len: usize,
        offset: libc::off_t,
    ) -> isize {
        if !write {
            *libc::__errno_location() = libc::EINVAL;
            return -1;
        }
        match libc::ftruncate(fd, offset) {
            // fio counts the request's length as done.
            0 => len as isize,
            r => r as isize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{Queue, Submitted};
    use crate::request::Request;
    use crate::sync::SyncQueue;
    use crate::target::{OpenOptions, Target};

    #[test]
    fn a_write_truncates_to_its_offset_and_a_read_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; 10000]).unwrap();
        let target = Target::open(
            &path,
            &OpenOptions {
                read: true,
                write: true,
                ..OpenOptions::default()
            },
        )
        .unwrap();
        let config = QueueConfig {
            depth: 1,
            buffer_size: 4096,
            buffer_align: 4096,
            ..QueueConfig::default()
        };
        let mut q = SyncQueue::<Ftruncate>::new(&config, &[target.fd()]).unwrap();
        let mut req = Request {
            op: Op::Write,
            file: 0,
            offset: 4096,
            len: 4096,
            slot: 0,
        };
        assert_eq!(q.submit(&req).unwrap(), Submitted::Completed(4096));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096);
        req.offset = 20000;
        q.submit(&req).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 20000);
        req.op = Op::Read;
        assert_eq!(
            q.submit(&req).unwrap(),
            Submitted::Completed(-i64::from(libc::EINVAL))
        );
        assert!(!(FTRUNCATE.carries)(Op::Trim));
    }
}
