//! Which file the next I/O goes to (fio 3.33's `__get_next_file`, with
//! `file_service_type` and `openfiles`).
//!
//! fio opens files lazily: a file is opened when it is first chosen, if
//! fewer than `openfiles` are open, and closed when it is done. A choice
//! that lands on a closed file while `openfiles` are open is given up
//! (fio's -EBUSY) and made again: round robin moves on to the next file,
//! random draws again. This keeps fio's order of files with `openfiles`
//! below `nrfiles`; ioscope's descriptors all stay open for the run.
//!
//! With zipf, pareto or normal (fio's non-uniform service) the file is
//! the distribution's draw over `nrfiles << 10` ranges, shifted back down
//! (fio's `__get_next_fileno_rand`), and no file is ever done: one run
//! out is closed and starts over.

use ioscope_job::{Distribution, FileServiceKind, JobSpec, RandomGenerator};

use crate::distribution::FileDist;
use crate::rand::{seed_slot, FioRand};

/// fio's `FIO_FSERVICE_SHIFT`: each file is 1024 ranges of the
/// distribution, so a few files still get a smooth curve.
const FSERVICE_SHIFT: u32 = 10;

pub(crate) struct FileService {
    kind: FileServiceKind,
    /// I/Os to a file before the next choice (`:N`).
    batch: u32,
    /// Of the current file's batch, the I/Os still to go.
    left: u32,
    current: Option<usize>,
    /// Round robin's next file.
    next: usize,
    open: Vec<bool>,
    open_count: u32,
    max_open: u32,
    done_count: usize,
    /// `random`: fio's `next_file_state`, and its seed for a new pass.
    rand: Option<(FioRand, FioRand)>,
    /// zipf, pareto, normal: fio's `next_file_zipf` or `next_file_gauss`,
    /// and the generator as seeded for a new pass.
    dist: Option<(FileDist, FileDist)>,
}

impl FileService {
    /// The service of `files` files for a worker seeded with `seeds`.
    pub(crate) fn new(spec: &JobSpec, files: usize, seeds: &[u64]) -> FileService {
        let fh = &spec.file_handling;
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        let rand = (fh.service.kind == FileServiceKind::Random).then(|| {
            let r = FioRand::new(seeds[seed_slot::FILE], use64);
            (r.clone(), r)
        });
        let dist = file_distribution(fh.service.kind).and_then(|d| {
            let nranges = (files as u64) << FSERVICE_SHIFT;
            // fio seeds it with FIO_RAND_FILE_OFF's seed as an unsigned int.
            let d = FileDist::new(&d, nranges, seeds[seed_slot::FILE] as u32)?.unhashed();
            Some((d.clone(), d))
        });
        // fio's default openfiles is nrfiles: all of them.
        let max_open = match fh.openfiles {
            0 => u32::MAX,
            n => n,
        };
        FileService {
            kind: fh.service.kind,
            batch: fh.service.batch.max(1),
            left: 0,
            current: None,
            next: 0,
            open: vec![false; files],
            open_count: 0,
            max_open,
            done_count: 0,
            rand,
            dist,
        }
    }

    /// fio's non-uniform service: a file run out starts over.
    pub(crate) fn nonuniform(&self) -> bool {
        self.dist.is_some()
    }

    /// Whether [`FileService::next`] gives file `f` of one file without
    /// changing anything: the file is open, chosen and not done.
    #[inline]
    pub(crate) fn keeps_only(&self, f: usize) -> bool {
        self.open.len() == 1 && self.done_count == 0 && self.current == Some(f) && self.open[f]
    }

    /// The file the next I/O goes to; None when every file is done.
    /// `done` says whether a file is done in this pass.
    #[inline]
    pub(crate) fn next(&mut self, done: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.open.len();
        if self.done_count >= n {
            return None;
        }
        if let Some(f) = self.current {
            if self.open[f] {
                // With one file every service chooses it; what a random or
                // non-uniform service would draw feeds only its own
                // generator, which chooses nothing else.
                if n == 1 || self.kind == FileServiceKind::Sequential {
                    return Some(f);
                }
                if self.left > 0 {
                    self.left -= 1;
                    return Some(f);
                }
            }
        }
        let f = match self.rand.is_some() || self.dist.is_some() {
            false => self.next_round_robin(&done)?,
            true => loop {
                // Not all files are done, so one of them is drawn in time.
                let f = self.draw(n);
                if !done(f) && self.usable(f) {
                    break f;
                }
            },
        };
        if !self.open[f] {
            self.open[f] = true;
            self.open_count += 1;
        }
        self.current = Some(f);
        self.left = self.batch - 1;
        Some(f)
    }

    /// fio's `get_next_file_rr`: the next file from the round robin's
    /// place that is not done and is open or can be opened.
    fn next_round_robin(&mut self, done: &impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.open.len();
        for _ in 0..n {
            let f = self.next;
            self.next = if f + 1 == n { 0 } else { f + 1 };
            if !done(f) && self.usable(f) {
                return Some(f);
            }
        }
        None
    }

    /// fio's `__get_next_fileno_rand`: a file in `[0, n)`.
    fn draw(&mut self, n: usize) -> usize {
        match (&mut self.rand, &mut self.dist) {
            (Some((r, _)), _) => r.below(n as u64) as usize,
            (None, Some((d, _))) => (d.next() >> FSERVICE_SHIFT) as usize,
            (None, None) => 0,
        }
    }

    /// Open, or openable within `openfiles`.
    #[inline]
    fn usable(&self, f: usize) -> bool {
        self.open[f] || self.open_count < self.max_open
    }

    /// File `f` is done for this pass: fio closes it.
    pub(crate) fn done(&mut self, f: usize) {
        if std::mem::take(&mut self.open[f]) {
            self.open_count -= 1;
        }
        self.done_count += 1;
    }

    /// File `f` ran out under a non-uniform service: fio closes it and
    /// resets it, and it may be chosen again.
    pub(crate) fn close(&mut self, f: usize) {
        if std::mem::take(&mut self.open[f]) {
            self.open_count -= 1;
        }
    }

    /// A new pass: every file closed and not done (fio's
    /// `clear_io_state`); with `randrepeat`, the random choice starts over.
    pub(crate) fn restart(&mut self, randrepeat: bool) {
        self.open.iter_mut().for_each(|o| *o = false);
        self.open_count = 0;
        self.done_count = 0;
        if let (true, Some((r, seed))) = (randrepeat, &mut self.rand) {
            *r = seed.clone();
        }
        if let (true, Some((d, seed))) = (randrepeat, &mut self.dist) {
            *d = seed.clone();
        }
    }
}

/// The distribution a non-uniform `file_service_type` draws files from.
fn file_distribution(kind: FileServiceKind) -> Option<Distribution> {
    Some(match kind {
        FileServiceKind::Zipf { theta, center } => Distribution::Zipf { theta, center },
        FileServiceKind::Pareto { h, center } => Distribution::Pareto { h, center },
        FileServiceKind::Gauss { dev, center } => Distribution::Normal { dev, center },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_job::FileService as Service;

    fn service(kind: FileServiceKind, batch: u32, openfiles: u32, files: usize) -> FileService {
        let mut spec = JobSpec::fio_defaults("t");
        spec.file_handling.service = Service { kind, batch };
        spec.file_handling.openfiles = openfiles;
        FileService::new(&spec, files, &[1; seed_slot::COUNT])
    }

    /// The files chosen for `ios` I/Os, file `f` done after `per_file` I/Os.
    fn order(s: &mut FileService, files: usize, per_file: usize, ios: usize) -> Vec<usize> {
        let mut count = vec![0; files];
        let mut out = Vec::new();
        while out.len() < ios {
            let Some(f) = s.next(|f| count[f] >= per_file) else {
                break;
            };
            if count[f] >= per_file {
                s.done(f);
                continue;
            }
            count[f] += 1;
            out.push(f);
            if count[f] == per_file {
                // fio finds a file done when it next tries to fill from it;
                // the tests mark it at once, which chooses the same files.
                s.done(f);
            }
        }
        out
    }

    #[test]
    fn round_robin_takes_turns_and_batches() {
        let mut s = service(FileServiceKind::RoundRobin, 1, 0, 3);
        assert_eq!(order(&mut s, 3, 2, 6), [0, 1, 2, 0, 1, 2]);
        let mut s = service(FileServiceKind::RoundRobin, 2, 0, 3);
        assert_eq!(
            order(&mut s, 3, 4, 12),
            [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]
        );
    }

    #[test]
    fn sequential_finishes_each_file_first() {
        let mut s = service(FileServiceKind::Sequential, 1, 0, 3);
        assert_eq!(order(&mut s, 3, 2, 6), [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn openfiles_limits_round_robin_to_the_open_files() {
        // One open file: round robin stays on it until it is done.
        let mut s = service(FileServiceKind::RoundRobin, 1, 1, 3);
        assert_eq!(order(&mut s, 3, 2, 6), [0, 0, 1, 1, 2, 2]);
        // Two of four: files 0 and 1 alternate, then 2 and 3.
        let mut s = service(FileServiceKind::RoundRobin, 1, 2, 4);
        assert_eq!(order(&mut s, 4, 2, 8), [0, 1, 0, 1, 2, 3, 2, 3]);
    }

    #[test]
    fn random_stays_within_the_open_files_and_ends() {
        let mut s = service(FileServiceKind::Random, 1, 2, 5);
        let got = order(&mut s, 5, 3, 100);
        assert_eq!(got.len(), 15);
        // At most two files are in use at a time: a file's first I/O comes
        // only after some earlier file has had all of its I/Os.
        let mut seen = Vec::new();
        for (i, f) in got.iter().enumerate() {
            if !seen.contains(f) {
                let finished = seen
                    .iter()
                    .filter(|g| got[..i].iter().filter(|x| x == g).count() == 3)
                    .count();
                assert!(seen.len() - finished < 2, "{got:?}");
                seen.push(*f);
            }
        }
    }
}
