//! fio's `falloc`: every request is a fallocate(2) of its range, as fio's
//! `fio_fallocate_queue`: a read reserves the blocks without changing the
//! size (FALLOC_FL_KEEP_SIZE), a write allocates them and extends the file
//! (mode 0), a trim punches a hole (the synchronous queue's trim, with
//! FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, as fio's). No data moves.

use std::os::fd::RawFd;

use crate::descriptor::{any_shape, data_ops, EngineDesc, EngineKind};
use crate::queue_config::QueueConfig;
use crate::sync::SyncCalls;

pub(crate) static FALLOC: EngineDesc = EngineDesc {
    name: "falloc",
    aliases: &[],
    help: "fallocate(2) per request: read keeps the size, write extends, trim punches a hole",
    kind: EngineKind::Synchronous,
    fio: true,
    ring: false,
    carries: data_ops,
    options: &[],
    check: any_shape,
};

/// fallocate(2) instead of a transfer.
pub struct Fallocate;

impl SyncCalls for Fallocate {
    const NAME: &'static str = "falloc";

    fn new(_: &QueueConfig) -> Self {
        Fallocate
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
        let mode = if write { 0 } else { libc::FALLOC_FL_KEEP_SIZE };
        match libc::fallocate(fd, mode, offset, len as libc::off_t) {
            // The whole range counts as done, as fio counts it.
            0 => len as isize,
            r => r as isize,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;
    use crate::queue::{Queue, Submitted};
    use crate::request::{Op, Request};
    use crate::sync::SyncQueue;
    use crate::target::{OpenOptions, Target};

    fn run(q: &mut SyncQueue<Fallocate>, op: Op, offset: u64, len: u32) {
        let req = Request {
            op,
            file: 0,
            offset,
            len,
            slot: 0,
        };
        assert_eq!(
            q.submit(&req).unwrap(),
            Submitted::Completed(i64::from(len))
        );
    }

    #[test]
    fn read_keeps_the_size_write_extends_trim_frees() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let target = Target::open(
            &path,
            &OpenOptions {
                read: true,
                write: true,
                create: true,
                ..OpenOptions::default()
            },
        )
        .unwrap();
        let config = QueueConfig {
            depth: 1,
            buffer_size: 65536,
            buffer_align: 4096,
            ..QueueConfig::default()
        };
        let mut q = SyncQueue::<Fallocate>::new(&config, &[target.fd()]).unwrap();
        run(&mut q, Op::Read, 0, 65536);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.len(), 0, "KEEP_SIZE leaves the size");
        assert!(meta.blocks() * 512 >= 65536, "the blocks are reserved");
        run(&mut q, Op::Write, 65536, 65536);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 131072);
        run(&mut q, Op::Trim, 0, 131072);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!((meta.len(), meta.blocks()), (131072, 0));
    }
}
