//! fsync= and fdatasync=: which sync, if any, comes before the next I/O
//! (fio's `get_rw_ddir`).

use ioscope_engine::Op;
use ioscope_job::JobSpec;

/// Every how many writes an fsync and an fdatasync follow; 0 for never.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SyncEvery {
    pub fsync: u32,
    pub fdatasync: u32,
}

impl SyncEvery {
    pub(crate) fn of(spec: &JobSpec) -> SyncEvery {
        SyncEvery {
            fsync: spec.fsync,
            fdatasync: spec.file_handling.fdatasync,
        }
    }

    /// Some sync follows some writes: the one test each write costs.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        (self.fsync | self.fdatasync) != 0
    }

    /// The sync due after the `writes`-th write: an fsync when `writes` is
    /// a multiple of fsync=, else an fdatasync when it is one of
    /// fdatasync= (fio asks in that order, and issues one sync at a time).
    #[inline]
    pub(crate) fn due(&self, writes: u64) -> Option<Op> {
        let every = |n: u32| n > 0 && writes.is_multiple_of(u64::from(n));
        if every(self.fsync) {
            Some(Op::Fsync)
        } else if every(self.fdatasync) {
            Some(Op::Fdatasync)
        } else {
            None
        }
    }
}

/// What the syncs depend on as the job goes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SyncState {
    /// Writes issued (fio's io_issues[DDIR_WRITE]).
    writes: u64,
    /// The file the last write went to: the one a sync flushes.
    file: u32,
    /// The last request was a sync (fio's `last_was_sync`).
    last_was_sync: bool,
}

impl SyncState {
    #[inline]
    pub(crate) fn wrote(&mut self, file: u32) {
        self.writes += 1;
        self.file = file;
    }

    /// The sync to issue before the next I/O, and its file: fio asks before
    /// each I/O whether the writes so far are a multiple of fsync= or
    /// fdatasync=, unless the last request was a sync, so a sync is
    /// repeated after each read while the writes stay at a multiple.
    /// `more` says whether an I/O follows (none is synced for after the
    /// last).
    #[inline]
    pub(crate) fn due(
        &mut self,
        every: &SyncEvery,
        more: impl FnOnce() -> bool,
    ) -> Option<(u32, Op)> {
        if std::mem::take(&mut self.last_was_sync) || self.writes == 0 {
            return None;
        }
        let op = every.due(self.writes)?;
        if !more() {
            return None;
        }
        self.last_was_sync = true;
        Some((self.file, op))
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
            fdatasync: 0,
        };
        let mut st = SyncState::default();
        for _ in 0..3 {
            st.wrote(1);
        }
        assert_eq!(st.due(&every, || true), Some((1, Op::Fsync)));
        assert_eq!(st.due(&every, || true), None);
        assert_eq!(st.due(&every, || true), Some((1, Op::Fsync)));
        st.last_was_sync = false;
        assert_eq!(st.due(&every, || false), None);
        assert_eq!(SyncEvery::default().due(5), None);
    }
}
