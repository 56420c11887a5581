//! Disk statistics from /proc/diskstats, as fio's disk_util reports them.

use std::io;

/// One reading of a block device's counters.
#[derive(Clone, Debug, Default)]
pub struct DiskSnapshot {
    pub name: String,
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_ticks: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_ticks: u64,
    pub io_ticks: u64,
    pub in_queue: u64,
}

impl DiskSnapshot {
    /// Reads the counters of the device called `name` (e.g. "zram0").
    pub fn read(_name: &str) -> io::Result<DiskSnapshot> {
        todo!()
    }
    /// The /proc/diskstats name of the block device with this dev_t.
    pub fn name_of_dev(_rdev: u64) -> Option<String> {
        todo!()
    }
}

/// What happened on a device during the run (fio's "disk_util" entry).
#[derive(Clone, Debug, Default)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    /// Percent of the elapsed time the device was busy.
    pub util: f64,
}

impl DiskUtil {
    pub fn between(_before: &DiskSnapshot, _after: &DiskSnapshot, _elapsed_ms: u64) -> DiskUtil {
        todo!()
    }
}
