//! `lockfile`: the lock an I/O holds on its file while it is prepared and
//! handed to the engine (fio's `lock_file` in `td_io_prep` to `unlock_file`
//! at the end of `td_io_queue`). With a synchronous engine that is the
//! whole I/O; with a queued one only its submission.
//!
//! fio shares the lock of a file name among every job that opens it (its
//! file hash), so the locks of a phase are kept by path here, and each
//! worker takes the ones of its files before it starts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use ioscope_engine::Op;
use ioscope_job::FileLock;

/// The locks of one phase's files, by path.
#[derive(Default)]
pub(crate) struct FileLocks {
    by_path: Mutex<HashMap<PathBuf, Arc<RwLock<()>>>>,
}

impl FileLocks {
    /// The locks of a worker's `paths` under `mode`: empty for
    /// `lockfile=none`, so that an unlocked job looks nothing up per I/O.
    pub(crate) fn for_worker<'p>(
        &self,
        mode: FileLock,
        paths: impl Iterator<Item = &'p Path>,
    ) -> WorkerLocks {
        if mode == FileLock::None {
            return WorkerLocks {
                mode,
                files: Vec::new(),
            };
        }
        let mut by_path = self.by_path.lock().unwrap_or_else(PoisonError::into_inner);
        let files = paths
            .map(|p| Arc::clone(by_path.entry(p.to_path_buf()).or_default()))
            .collect();
        WorkerLocks { mode, files }
    }
}

/// One worker's file locks, indexed as its files.
pub(crate) struct WorkerLocks {
    mode: FileLock,
    files: Vec<Arc<RwLock<()>>>,
}

/// A lock held by one I/O; dropping it lets the others in.
pub(crate) enum Held<'a> {
    Shared { _guard: RwLockReadGuard<'a, ()> },
    Alone { _guard: RwLockWriteGuard<'a, ()> },
}

impl WorkerLocks {
    /// Whether the job locks its files at all (`lockfile`).
    pub(crate) fn any(&self) -> bool {
        !self.files.is_empty()
    }

    /// Waits for and takes the lock an `op` on file `file` needs: shared
    /// for a read under `readwrite`, alone for anything else (a write, a
    /// trim, a sync, or any I/O under `exclusive`). None without locks.
    #[inline]
    pub(crate) fn take(&self, file: u32, op: Op) -> Option<Held<'_>> {
        let lock = self.files.get(file as usize)?;
        let shared = self.mode == FileLock::ReadWrite && matches!(op, Op::Read);
        Some(if shared {
            Held::Shared {
                _guard: lock.read().unwrap_or_else(PoisonError::into_inner),
            }
        } else {
            Held::Alone {
                _guard: lock.write().unwrap_or_else(PoisonError::into_inner),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    fn locks(mode: FileLock, paths: &[&str]) -> (FileLocks, WorkerLocks, WorkerLocks) {
        let all = FileLocks::default();
        let a = all.for_worker(mode, paths.iter().map(Path::new));
        let b = all.for_worker(mode, paths.iter().map(Path::new));
        (all, a, b)
    }

    /// Whether `second` gets its lock while `first` is held by another
    /// thread (it is given 50 ms, and is let go once `first` is released).
    fn overlaps(a: &WorkerLocks, first: Op, b: &WorkerLocks, second: Op) -> bool {
        let got = AtomicBool::new(false);
        std::thread::scope(|s| {
            let held = a.take(0, first);
            s.spawn(|| {
                let _h = b.take(0, second);
                got.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(50));
            let during = got.load(Ordering::SeqCst);
            drop(held);
            during
        })
    }

    #[test]
    fn exclusive_lets_one_io_at_a_time_whatever_its_direction() {
        let (_all, a, b) = locks(FileLock::Exclusive, &["/f"]);
        assert!(!overlaps(&a, Op::Read, &b, Op::Read));
        assert!(!overlaps(&a, Op::Write, &b, Op::Read));
    }

    #[test]
    fn readwrite_lets_reads_share_and_writes_be_alone() {
        let (_all, a, b) = locks(FileLock::ReadWrite, &["/f"]);
        assert!(overlaps(&a, Op::Read, &b, Op::Read));
        assert!(!overlaps(&a, Op::Read, &b, Op::Write));
        assert!(!overlaps(&a, Op::Write, &b, Op::Read));
        assert!(!overlaps(&a, Op::Fsync, &b, Op::Read));
    }

    #[test]
    fn different_files_do_not_lock_each_other() {
        let all = FileLocks::default();
        let a = all.for_worker(FileLock::Exclusive, [Path::new("/f")].into_iter());
        let b = all.for_worker(FileLock::Exclusive, [Path::new("/g")].into_iter());
        assert!(overlaps(&a, Op::Write, &b, Op::Write));
    }

    #[test]
    fn none_takes_nothing() {
        let (_all, a, _b) = locks(FileLock::None, &["/f"]);
        assert!(a.take(0, Op::Write).is_none());
    }
}
