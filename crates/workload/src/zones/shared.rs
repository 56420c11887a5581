//! One set of zones per file for the whole run, as fio keeps it: fio's
//! `zbd_init_zone_info` looks for the file's name among every job's files
//! and shares the zones (write pointers, open zones, bytes with data) it
//! finds there, so that `numjobs` clones and separate jobs write one
//! file's zones together, and a later job reads what an earlier one wrote.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::zbd::{DeviceZones, SharedZones, Zbd, ZonedFile};

/// The run's zoned files by name, filled as workers start.
#[derive(Debug, Default)]
pub struct ZoneBook {
    files: Mutex<HashMap<PathBuf, SharedZones>>,
}

impl ZoneBook {
    /// The zones of the zoned block device `path`: the ones the book holds,
    /// or those `report` reads from the device (once for the run, as fio
    /// reads them for the first job that names the device). Returns the
    /// device's zone size.
    pub fn device(
        &self,
        path: &Path,
        report: impl FnOnce() -> Result<DeviceZones, String>,
    ) -> Result<u64, String> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = files.get(path) {
            return Ok(known.lock().unwrap_or_else(|e| e.into_inner()).zone_size());
        }
        let zf = ZonedFile::of_device(report()?)?;
        let size = zf.zone_size();
        files.insert(path.to_path_buf(), Arc::new(Mutex::new(zf)));
        Ok(size)
    }

    /// Before the job's extents are put on zone boundaries: where the
    /// book already holds a file's zones (a zoned device's), `zbd`'s own
    /// zones of that file take their kinds, which decide that alignment
    /// (fio's `zbd_is_seq_job`). The zones themselves are shared at
    /// [`ZoneBook::join`]; a workload that never joins (verify's replay
    /// of the writes) keeps zones of the same kinds, empty.
    pub(crate) fn mark_kinds(&self, zbd: &mut Zbd, paths: &[&Path]) {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        for (f, path) in paths.iter().enumerate() {
            if let Some(known) = files.get(*path) {
                zbd.take_kinds(f, &known.lock().unwrap_or_else(|e| e.into_inner()));
            }
        }
    }

    /// `zbd`'s files take the zones the book holds for their paths; the
    /// book takes the zones of files it does not know yet. Fails when a
    /// job's extent reaches past the zones an earlier job cut the file
    /// into (the file grew in between).
    pub(crate) fn join(&self, zbd: &mut Zbd, paths: &[&Path]) -> Result<(), String> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        for (f, path) in paths.iter().enumerate() {
            let Some(known) = files.get(*path) else {
                files.insert(path.to_path_buf(), Arc::clone(zbd.zones(f)));
                continue;
            };
            let known = Arc::clone(known);
            {
                let mut theirs = known.lock().unwrap_or_else(|e| e.into_inner());
                let ours = zbd.zones(f).lock().unwrap_or_else(|e| e.into_inner());
                // The plan step allows one nonzero max_open_zones per
                // file; a job without one inherits it, as in fio.
                if theirs.max_open == 0 {
                    theirs.max_open = ours.max_open;
                }
            }
            let need = zbd.zone_counts(f).0;
            zbd.share(f, known);
            let have = zbd.zone_counts(f).1;
            if need > have {
                return Err(format!(
                    "{}: zonemode=zbd: the job's extent needs {need} zones, but an earlier \
                     job cut the file into {have} zones (the file grew in between)",
                    path.display()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::DataDir;
    use crate::zones::Extent;
    use ioscope_job::{JobSpec, ZoneMode};

    const ALL: Extent = Extent {
        start: 0,
        len: 256 << 10,
        real: 256 << 10,
    };

    fn worker(max_open: u32) -> Zbd {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = 64 << 10;
        spec.zones.max_open_zones = max_open;
        spec.rw.kind = ioscope_job::RwKind::RandWrite;
        let mut z = Zbd::of(&spec, &[256 << 10]).unwrap();
        z.align(0, ALL, false);
        z
    }

    fn write(z: &mut Zbd, offset: u64) -> Option<(u64, u64)> {
        let mut held = z.hold(0);
        let (o, l) = held.adjust(DataDir::Write, &ALL, offset, 4096)?;
        held.issued(DataDir::Write, o, l);
        Some((o, l))
    }

    #[test]
    fn workers_on_one_file_share_write_pointers_and_open_zones() {
        let book = ZoneBook::default();
        let path = Path::new("/f");
        let (mut a, mut b) = (worker(1), worker(0));
        book.join(&mut a, &[path]).unwrap();
        book.join(&mut b, &[path]).unwrap();
        assert_eq!(write(&mut a, 0), Some((0, 4096)));
        // b writes after a in zone 0: the write pointer is shared.
        assert_eq!(write(&mut b, 100), Some((4096, 4096)));
        // b inherited the file's limit of one open zone: a write chosen
        // in zone 2 goes to open zone 0.
        assert_eq!(write(&mut b, 130 << 10), Some((8192, 4096)));
        // A worker on another file has zones of its own.
        let mut c = worker(1);
        book.join(&mut c, &[Path::new("/g")]).unwrap();
        assert_eq!(write(&mut c, 130 << 10), Some((128 << 10, 4096)));
    }

    #[test]
    fn a_file_that_grew_past_its_zones_is_refused() {
        let book = ZoneBook::default();
        let path = Path::new("/f");
        let mut small = worker(0);
        book.join(&mut small, &[path]).unwrap();
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = 64 << 10;
        let mut big = Zbd::of(&spec, &[512 << 10]).unwrap();
        let all = Extent {
            start: 0,
            len: 512 << 10,
            real: 512 << 10,
        };
        big.align(0, all, false);
        let err = book.join(&mut big, &[path]).unwrap_err();
        assert!(err.contains("needs 8 zones"), "{err}");
    }
}
