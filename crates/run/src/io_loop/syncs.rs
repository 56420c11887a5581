//! fsync=, fdatasync= and sync_file_range=: which sync, if any, comes
//! before the next I/O (fio's `get_rw_ddir`), and the range of a file
//! sync_file_range flushes (fio's `first_write`..`last_write`, kept from
//! the writes issued since the file's last sync).

use ioscope_engine::Op;
use ioscope_job::JobSpec;

/// Every how many writes an fsync, an fdatasync and a sync_file_range
/// follow; 0 for never.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SyncEvery {
    pub fsync: u32,
    pub fdatasync: u32,
    pub range: u32,
    /// sync_file_range's SYNC_FILE_RANGE_* flags.
    pub range_flags: u32,
}

impl SyncEvery {
    pub(crate) fn of(spec: &JobSpec) -> SyncEvery {
        let range = spec.file_handling.sync_file_range;
        SyncEvery {
            fsync: spec.fsync,
            fdatasync: spec.file_handling.fdatasync,
            range: range.map_or(0, |r| r.every),
            range_flags: range.map_or(0, |r| r.flags),
        }
    }

    /// Some sync follows some writes: the one test each write costs.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        (self.fsync | self.fdatasync | self.range) != 0
    }

    /// The sync due after the `writes`-th write: an fsync when `writes` is
    /// a multiple of fsync=, else an fdatasync when it is one of
    /// fdatasync=, else a sync_file_range (fio asks in that order, and
    /// issues one sync at a time).
    #[inline]
    pub(crate) fn due(&self, writes: u64) -> Option<Op> {
        let every = |n: u32| n > 0 && writes.is_multiple_of(u64::from(n));
        if every(self.fsync) {
            Some(Op::Fsync)
        } else if every(self.fdatasync) {
            Some(Op::Fdatasync)
        } else if every(self.range) {
            Some(Op::SyncFileRange {
                flags: self.range_flags,
            })
        } else {
            None
        }
    }
}

/// What the syncs depend on as the job goes.
#[derive(Clone, Debug, Default)]
pub(crate) struct SyncState {
    /// Writes issued (fio's io_issues[DDIR_WRITE]).
    writes: u64,
    /// The last request was a sync (fio's `last_was_sync`).
    last_was_sync: bool,
    /// With sync_file_range: per file, the start and end of what was
    /// written since its last sync; (u64::MAX, 0) for nothing. Before a
    /// file's first sync its range starts at 0, as fio's zeroed
    /// `first_write` does (it is set to "none" only by a sync).
    ranges: Vec<(u64, u64)>,
}

impl SyncState {
    #[inline]
    pub(crate) fn wrote(&mut self, file: u32, offset: u64, len: u32, every: &SyncEvery) {
        self.writes += 1;
        if every.range > 0 {
            self.widen(file as usize, offset, offset + u64::from(len));
        }
    }

    /// fio's `file_log_write_comp`: the file's range takes in `start..end`.
    fn widen(&mut self, file: usize, start: u64, end: u64) {
        if self.ranges.len() <= file {
            self.ranges.resize(file + 1, (0, 0));
        }
        let r = &mut self.ranges[file];
        *r = (r.0.min(start), r.1.max(end));
    }

    /// The range sync_file_range flushes for `file` (offset, length): the
    /// length 0 when nothing was written, at most u32::MAX bytes (a
    /// request's length; fio's io_uring truncates it to 32 bits as well).
    /// Any sync clears it, as fio's completion of a sync does.
    fn take_range(&mut self, file: u32) -> (u64, u32) {
        match self.ranges.get_mut(file as usize) {
            Some(r) if r.1 > r.0 => {
                let (start, end) = std::mem::replace(r, (u64::MAX, 0));
                (start, u32::try_from(end - start).unwrap_or(u32::MAX))
            }
            _ => (0, 0),
        }
    }

    /// A new loop starts: fio forgets that the last request was a sync
    /// (`reset_io_counters`), so a sync due after the last loop's writes
    /// comes again before the new loop's first I/O.
    pub(crate) fn loop_started(&mut self) {
        self.last_was_sync = false;
    }

    /// The sync to issue before the next I/O, its file and (for
    /// sync_file_range) its range: fio asks before
    /// each I/O whether the writes so far are a multiple of fsync= or
    /// fdatasync=, unless the last request was a sync, so a sync is
    /// repeated after each read while the writes stay at a multiple.
    /// `target` gives the file to sync, or None where no I/O follows
    /// (none is synced for after the last).
    #[inline]
    pub(crate) fn due(
        &mut self,
        every: &SyncEvery,
        target: impl FnOnce() -> Option<u32>,
    ) -> Option<(u32, Op, (u64, u32))> {
        if std::mem::take(&mut self.last_was_sync) || self.writes == 0 {
            return None;
        }
        let op = every.due(self.writes)?;
        let file = target()?;
        self.last_was_sync = true;
        // Every sync clears the file's range; only sync_file_range uses it.
        let range = self.take_range(file);
        let range = match op {
            Op::SyncFileRange { .. } => range,
            _ => (0, 0),
        };
        Some((file, op, range))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsync_goes_first_when_both_are_due() {
        let s = SyncEvery {
            fsync: 4,
            fdatasync: 2,
            ..SyncEvery::default()
        };
        let due: Vec<_> = (1..=8).map(|w| s.due(w)).collect();
        assert_eq!(
            due,
            [
                None,
                Some(Op::Fdatasync),
                None,
                Some(Op::Fsync),
                None,
                Some(Op::Fdatasync),
                None,
                Some(Op::Fsync)
            ]
        );
        assert!(!SyncEvery::default().any());
        // After write 3 of fsync=3: a sync, then none before the next
        // I/O, then again (fio's last_was_sync clears on the read).
        let every = SyncEvery {
            fsync: 3,
            ..SyncEvery::default()
        };
        let mut st = SyncState::default();
        for _ in 0..3 {
            st.wrote(1, 0, 4096, &every);
        }
        assert_eq!(st.due(&every, || Some(1)), Some((1, Op::Fsync, (0, 0))));
        assert_eq!(st.due(&every, || Some(1)), None);
        assert_eq!(st.due(&every, || Some(1)), Some((1, Op::Fsync, (0, 0))));
        st.last_was_sync = false;
        assert_eq!(st.due(&every, || None), None);
        // A new loop forgets the sync just made: it comes again before the
        // loop's first I/O, as fio's reset_io_counters lets it.
        assert!(st.due(&every, || Some(1)).is_some());
        st.loop_started();
        assert_eq!(st.due(&every, || Some(1)), Some((1, Op::Fsync, (0, 0))));
        assert_eq!(SyncEvery::default().due(5), None);
    }

    #[test]
    fn sync_file_range_flushes_what_was_written_since_the_last_sync() {
        let every = SyncEvery {
            range: 2,
            range_flags: 2,
            ..SyncEvery::default()
        };
        let op = Op::SyncFileRange { flags: 2 };
        let mut st = SyncState::default();
        st.wrote(0, 8192, 4096, &every);
        assert_eq!(st.due(&every, || Some(0)), None);
        st.wrote(0, 20480, 4096, &every);
        // Before the first sync the range starts at 0 (fio's zeroed
        // first_write), up to the end of the last write.
        assert_eq!(st.due(&every, || Some(0)), Some((0, op, (0, 24576))));
        // Again after a read while the writes stay at a multiple: nothing
        // was written since, so the range is empty (fio makes no call).
        assert_eq!(st.due(&every, || Some(0)), None);
        assert_eq!(st.due(&every, || Some(0)), Some((0, op, (0, 0))));
        st.last_was_sync = false;
        st.wrote(0, 16384, 4096, &every);
        st.wrote(0, 8192, 4096, &every);
        // Writes 8k..12k and 16k..20k since the sync: the range spans both.
        assert_eq!(st.due(&every, || Some(0)), Some((0, op, (8192, 12288))));
        // fsync goes first and clears the range too.
        let both = SyncEvery { fsync: 2, ..every };
        st.last_was_sync = false;
        st.wrote(1, 4096, 4096, &both);
        st.wrote(1, 16384, 4096, &both);
        assert_eq!(st.due(&both, || Some(1)), Some((1, Op::Fsync, (0, 0))));
        st.last_was_sync = false;
        assert_eq!(st.due(&every, || Some(1)), Some((1, op, (0, 0))));
        // A sync flushes the range of the file it is given, not of the
        // file last written (fio syncs the file its service picks next).
        st.last_was_sync = false;
        st.wrote(1, 0, 4096, &every);
        st.wrote(1, 8192, 4096, &every);
        assert_eq!(st.due(&every, || Some(0)), Some((0, op, (0, 0))));
        st.last_was_sync = false;
        assert_eq!(st.due(&every, || Some(1)), Some((1, op, (0, 12288))));
    }
}
