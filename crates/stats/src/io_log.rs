//! What fio's per-job logs (bandwidth, IOPS, latency, latency histogram)
//! need recorded while a job runs, kept off the I/O path's costs: per I/O at
//! most one fixed-size record written into a chunk allocated ahead, or a
//! few additions to an averaging window. The text is made from these when
//! the job is over (the report crate's `logs`).

use crate::hist_log::{HistLine, HistLog};
use crate::log_window::{LogWindows, WindowLine};
use crate::Clock;

/// One completed read, write or trim, for the logs that have a line per
/// I/O (no `log_avg_msec`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoRecord {
    /// Ticks: when its preparation began, when it was submitted and when
    /// it completed.
    pub start: u64,
    pub issue: u64,
    pub done: u64,
    pub offset: u64,
    /// Bytes it moved.
    pub bytes: u32,
    /// 0 read, 1 write, 2 trim.
    pub dir: u8,
    /// Whether its submission was timed apart from its completion (an
    /// asynchronous queue): only then has it a submission latency.
    pub slat: bool,
    /// The I/O priority it was sent at when the job chose one per I/O
    /// (cmdprio), else 0. Fits the record's padding.
    pub prio: u16,
}

/// The largest chunk, in records (fio's MAX_LOG_ENTRIES).
const MAX_CHUNK: usize = 1024 * 1024;

/// Records in chunks that are never moved once allocated: a push allocates
/// only when the current chunk is full, and each new chunk is twice the
/// last (up to 1 Mi records), as fio regrows its logs.
#[derive(Clone, Debug, Default)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    next: usize,
}

impl<T> Chunked<T> {
    /// A first chunk of `first` records, allocated now.
    pub fn with_capacity(first: usize) -> Chunked<T> {
        let first = first.clamp(1, MAX_CHUNK);
        Chunked {
            chunks: vec![Vec::with_capacity(first)],
            next: (first * 2).min(MAX_CHUNK),
        }
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < c.capacity() => c.push(value),
            _ => self.grow(value),
        }
    }

    #[cold]
    fn grow(&mut self, value: T) {
        let mut chunk = Vec::with_capacity(self.next.max(1));
        populate(&mut chunk);
        self.next = (self.next * 2).min(MAX_CHUNK);
        chunk.push(value);
        self.chunks.push(chunk);
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which of the latency logs a job writes (fio's `write_lat_log` minus
/// the `disable_*lat` ones).
/// Asks the kernel for every page of `chunk`'s buffer at once
/// (MADV_POPULATE_WRITE, Linux 5.14): one system call per chunk instead of
/// a page fault every 100 records while the I/O runs. Where the kernel
/// lacks it the pages fault in as they are first written, as before.
fn populate<T>(chunk: &mut Vec<T>) {
    let bytes = chunk.capacity() * std::mem::size_of::<T>();
    let start = chunk.as_mut_ptr() as usize;
    let page = 4096;
    let first = start.next_multiple_of(page);
    let end = (start + bytes) & !(page - 1);
    if end > first {
        // SAFETY: the range lies inside the chunk's own allocation, and
        // populating pages changes no byte of it.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                end - first,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatLogs {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
}

/// What a worker records for its logs: set up from the job before it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogPlan {
    pub lat: LatLogs,
    /// A bandwidth or IOPS log with a line per I/O.
    pub rate_per_io: bool,
    /// `log_avg_msec`; 0 for a line per I/O.
    pub avg_msec: u64,
    /// `log_hist_msec` when a histogram log is written, else 0.
    pub hist_msec: u64,
    /// `log_entries`: records in the first chunk.
    pub entries: u32,
}

impl LogPlan {
    fn per_io(&self) -> bool {
        let lat = self.lat.slat || self.lat.clat || self.lat.lat;
        self.rate_per_io || (lat && self.avg_msec == 0)
    }

    pub fn any(&self) -> bool {
        self.per_io()
            || (self.avg_msec > 0 && (self.lat.slat || self.lat.clat || self.lat.lat))
            || self.hist_msec > 0
    }
}

/// A worker's log recording while it runs.
#[derive(Clone, Debug)]
pub struct LogRecorder {
    /// The job's start, in ticks: every log time counts from it.
    pub epoch: u64,
    pub records: Option<Chunked<IoRecord>>,
    /// Averaged slat, clat and lat lines.
    pub windows: [Option<LogWindows>; 3],
    pub hist: Option<HistLog>,
}

impl LogRecorder {
    pub fn new(plan: &LogPlan, clock: Clock, epoch: u64) -> LogRecorder {
        let averaged = |on: bool| {
            (on && plan.avg_msec > 0).then(|| LogWindows::new(clock, epoch, plan.avg_msec))
        };
        LogRecorder {
            epoch,
            records: plan
                .per_io()
                .then(|| Chunked::with_capacity(plan.entries as usize)),
            windows: [
                averaged(plan.lat.slat),
                averaged(plan.lat.clat),
                averaged(plan.lat.lat),
            ],
            hist: (plan.hist_msec > 0).then(|| HistLog::new(clock, epoch, plan.hist_msec)),
        }
    }

    /// Records a completed I/O; `slat_ns`, `clat_ns` and `lat_ns` are its
    /// latencies (slat None when it has none).
    #[inline]
    pub fn record(&mut self, r: IoRecord, slat_ns: Option<u64>, clat_ns: u64, lat_ns: u64) {
        if let Some(records) = &mut self.records {
            records.push(r);
        }
        let dir = usize::from(r.dir);
        if let Some(w) = &mut self.windows[0] {
            if let Some(v) = slat_ns {
                w.add(dir, v, r.issue);
            }
        }
        if let Some(w) = &mut self.windows[1] {
            w.add(dir, clat_ns, r.done);
        }
        if let Some(w) = &mut self.windows[2] {
            w.add(dir, lat_ns, r.done);
        }
        if let Some(h) = &mut self.hist {
            h.add(dir, clat_ns, r.bytes, r.done);
        }
    }

    /// The job ended at `end` (ticks): the averaging windows still open
    /// give their lines.
    pub fn finish(&mut self, end: u64) {
        for w in self.windows.iter_mut().flatten() {
            w.finish(end);
        }
    }
}

/// Names of the files a worker writes and how their lines look: fio's
/// log options, resolved for one worker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFiles {
    /// File name prefixes (the job's name when the option had no value);
    /// None when that log is off.
    pub bw: Option<String>,
    pub iops: Option<String>,
    pub lat: Option<String>,
    pub hist: Option<String>,
    pub lat_logs: LatLogs,
    /// fio's thread number: the worker's place in the run, from 1.
    pub number: u32,
    /// `per_job_logs`: the number in the names, a file per worker (else
    /// every worker appends to the one file).
    pub per_job: bool,
    pub offset: bool,
    pub prio: bool,
    pub issue_time: bool,
    /// `log_avg_msec` above 0: averaged lines, with `window_value`.
    pub averaged: bool,
    /// `log_window_value`: 0 avg, 1 max, 2 both.
    pub window_value: u8,
    pub hist_coarseness: u32,
    /// Added to every time (`log_alternate_epoch`): the chosen clock's
    /// reading at the job's start, in ms; 0 otherwise.
    pub time_offset_ms: u64,
    /// `log_store_compressed`: the files are fio's `.log.fz`, zlib streams
    /// of binary samples, each of up to this many bytes of samples (0: one
    /// stream per file).
    pub compressed_chunk: Option<usize>,
    /// A per-I/O bandwidth (IOPS) log gets no lines: fio skips those
    /// samples under disable_bw (and the IOPS ones under gtod_reduce).
    pub bw_unsampled: bool,
    pub iops_unsampled: bool,
    /// `uid`/`gid`: the user and group the files are given to, as fio's
    /// job writes them as its user (None: left to their creator's).
    pub owner: (Option<u32>, Option<u32>),
}

/// One worker's logs, recorded, to be written out.
#[derive(Clone, Debug)]
pub struct WorkerLogs {
    pub files: LogFiles,
    pub clock: Clock,
    pub recorder: LogRecorder,
    /// Averaged bandwidth and IOPS lines (from the rate sampler), in time
    /// order.
    pub bw: Vec<WindowLine>,
    pub iops: Vec<WindowLine>,
}

impl WorkerLogs {
    /// The histogram lines, if the worker kept a histogram log.
    pub fn hist_lines(&self) -> &[HistLine] {
        self.recorder.hist.as_ref().map_or(&[], |h| &h.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_double_and_keep_order() {
        let mut c = Chunked::with_capacity(2);
        for i in 0..11u32 {
            c.push(i);
        }
        assert_eq!(c.len(), 11);
        assert!(c.iter().copied().eq(0..11));
        // 2 + 4 + 8 records: three chunks.
        assert_eq!(c.chunks.len(), 3);
    }

    #[test]
    fn a_full_chunk_is_never_moved() {
        let mut c = Chunked::with_capacity(4);
        for i in 0..4u64 {
            c.push(i);
        }
        let first = c.chunks[0].as_ptr();
        for i in 4..100u64 {
            c.push(i);
        }
        assert_eq!(c.chunks[0].as_ptr(), first);
    }
}
