//! The logs a job writes (fio's `write_*_log` family and their `log_*`
//! companions), as parsed.

/// What an averaged log line (`log_avg_msec`) shows of its window: fio's
/// `log_window_value`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogWindowValue {
    /// The window's mean, rounded to the nearest integer.
    #[default]
    Avg,
    /// The window's largest value.
    Max,
    /// Both: the mean, then the maximum, as two value columns.
    Both,
}

/// The logs of one job (fio's names in each field's doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSpec {
    /// `write_bw_log`: the file name prefix, empty for the job's name; None
    /// when the log is off.
    pub bw: Option<String>,
    /// `write_iops_log`, as `bw`.
    pub iops: Option<String>,
    /// `write_lat_log` (the slat, clat and lat files), as `bw`.
    pub lat: Option<String>,
    /// `write_hist_log` (the clat_hist file), as `bw`.
    pub hist: Option<String>,
    /// `log_avg_msec`: average over windows of this many ms; 0 (the
    /// default) logs every I/O.
    pub avg_msec: u64,
    /// `log_window_value` (alias `log_max_value`), default avg.
    pub window_value: LogWindowValue,
    /// `log_hist_msec`: one histogram line per direction per this many ms.
    pub hist_msec: u64,
    /// `log_hist_coarseness`: buckets summed 2^n at a time, 0 to 6.
    pub hist_coarseness: u32,
    /// `log_offset`: a column with each I/O's offset.
    pub offset: bool,
    /// `log_prio`: the priority column as fio's 16-bit ioprio value rather
    /// than 0/1 for the real-time class.
    pub prio: bool,
    /// `log_issue_time`: a column with each I/O's issue time (ns since the
    /// job started) in the clat and slat logs.
    pub issue_time: bool,
    /// `per_job_logs`, default true: the job's number in each file name.
    pub per_job: bool,
    /// `log_alternate_epoch` (alias `log_unix_epoch`): times count from the
    /// epoch of `alternate_epoch_clock_id` rather than the job's start.
    pub alternate_epoch: bool,
    /// `log_alternate_epoch_clock_id`, default 0 (CLOCK_REALTIME).
    pub alternate_epoch_clock_id: i32,
    /// `log_entries`, default 1024: the samples the first log buffer holds.
    pub entries: u32,
    /// `log_compression`: bytes of samples per compressed chunk, 0 for
    /// none. ioscope keeps its compact per-I/O records as they are while
    /// the job runs; the size sets the chunks of a stored compressed log.
    pub compression: u64,
    /// `log_store_compressed`: write fio's compressed `.log.fz` files
    /// (zlib streams of fio 3.33's binary samples, which `fio
    /// --inflate-log` and `ioscope --inflate-log` turn back into text).
    pub store_compressed: bool,
}

impl LogSpec {
    /// Whether the job writes any log.
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }
}
