//! CPU time, context switches and faults of the calling thread.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadCpu {
    pub user_ns: u64,
    pub sys_ns: u64,
    /// Voluntary plus involuntary context switches.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

impl ThreadCpu {
    /// getrusage(RUSAGE_THREAD) of the calling thread.
    pub fn now() -> ThreadCpu {
        todo!()
    }
    /// What was spent between `earlier` and `self`.
    pub fn since(&self, _earlier: &ThreadCpu) -> ThreadCpu {
        todo!()
    }
    pub fn add(&mut self, _other: &ThreadCpu) {
        todo!()
    }
}
