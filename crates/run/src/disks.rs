//! Disk statistics of the devices under the jobs' files, read before the
//! first phase that uses each device and after the last phase (or for a
//! report while the run goes on).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::time::Instant;

use ioscope_stats::{DiskSnapshot, DiskUtil};

#[derive(Default)]
pub(crate) struct DiskTracker {
    devices: Vec<(DiskSnapshot, Instant)>,
}

impl DiskTracker {
    /// Starts tracking the block devices holding (or being) these paths.
    pub fn track<'a>(&mut self, paths: impl Iterator<Item = &'a Path>) {
        for path in paths {
            let Ok(meta) = std::fs::metadata(path) else {
                continue;
            };
            let dev = if meta.file_type().is_block_device() {
                meta.rdev()
            } else {
                meta.dev()
            };
            let Some(name) = DiskSnapshot::name_of_dev(dev) else {
                continue;
            };
            if self.devices.iter().any(|(s, _)| s.name == name) {
                continue;
            }
            if let Ok(snapshot) = DiskSnapshot::read(&name) {
                self.devices.push((snapshot, Instant::now()));
            }
        }
    }

    /// What each tracked device did since it was first seen.
    pub fn so_far(&self) -> Vec<DiskUtil> {
        self.devices
            .iter()
            .filter_map(|(before, since)| {
                let after = DiskSnapshot::read(&before.name).ok()?;
                Some(DiskUtil::between(
                    before,
                    &after,
                    since.elapsed().as_millis() as u64,
                ))
            })
            .collect()
    }
}
