//! The sequence of I/Os of one worker.

use ioscope_job::{JobSpec, RandomGenerator, RwKind};

use crate::block_size::BlockSizer;
use crate::lfsr::Lfsr;
use crate::rand::{fio_seeds, seed_slot, FioRand};
use crate::random_map::RandomMap;
use crate::rwmix::RwMix;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataDir {
    Read,
    Write,
    /// Deallocation (`rw=trim`), with `bs`'s trim block sizes.
    Trim,
}

/// The part of one file a worker does I/O to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileExtent {
    /// First byte of the region (the job's `offset` resolved).
    pub offset: u64,
    /// Bytes in the region.
    pub len: u64,
}

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoUnit {
    pub dir: DataDir,
    /// Index into the worker's files.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
}

/// Where one file stands in the current pass.
#[derive(Clone, Debug)]
struct FileState {
    start: u64,
    len: u64,
    /// The file's size: I/O may run past the extent up to here, as fio lets
    /// a whole block at the extent's end through when the file has it.
    real: u64,
    /// End of the last I/O per direction (fio's `last_pos`), absolute.
    last_pos: [u64; 3],
    /// Blocks of the direction's smallest size in the extent (fio's
    /// `lastb` for random offsets), worked out once rather than divided
    /// per I/O.
    lastb: [u64; 3],
    map: Option<RandomMap>,
    lfsr: Option<Lfsr>,
    /// No further I/O fits in this pass.
    done: bool,
}

impl FileState {
    fn end(&self) -> u64 {
        self.start + self.len
    }

    /// fio's `fio_file_reset`.
    fn reset(&mut self) {
        self.last_pos = [self.start; 3];
        if let Some(m) = &mut self.map {
            m.reset();
        }
        if let Some(l) = &mut self.lfsr {
            l.reset();
        }
        self.done = false;
    }
}

/// The random states fio keeps per worker.
#[derive(Clone, Debug)]
struct Rngs {
    offset: FioRand,
    bs: [BlockSizer; 3],
    mix: Option<RwMix>,
}

/// The generators as seeded, to start each loop over from when
/// `randrepeat` is set (fio re-seeds in `clear_io_state`).
#[derive(Clone, Debug)]
struct Seeded {
    offset: FioRand,
    bs: [FioRand; 3],
    mix: FioRand,
}

impl Seeded {
    fn new(spec: &JobSpec, seeds: &[u64; seed_slot::COUNT]) -> Seeded {
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        Seeded {
            offset: FioRand::new(seeds[seed_slot::BLOCK], use64),
            bs: [
                FioRand::new(seeds[seed_slot::BS_READ], use64),
                FioRand::new(seeds[seed_slot::BS_WRITE], use64),
                FioRand::new(seeds[seed_slot::BS_TRIM], use64),
            ],
            // fio draws the mix from a 32-bit generator whatever the job's.
            mix: FioRand::new(seeds[seed_slot::MIX], false),
        }
    }
}

impl Rngs {
    fn new(spec: &JobSpec, s: &Seeded) -> Rngs {
        let mixed = matches!(spec.rw.kind, RwKind::ReadWrite | RwKind::RandRw);
        Rngs {
            offset: s.offset.clone(),
            bs: [
                BlockSizer::new(&spec.bs.read, s.bs[0].clone()),
                BlockSizer::new(&spec.bs.write, s.bs[1].clone()),
                BlockSizer::new(&spec.bs.trim, s.bs[2].clone()),
            ],
            mix: mixed.then(|| RwMix::new(spec.rwmixread, s.mix.clone())),
        }
    }
}

pub struct Workload {
    files: Vec<FileState>,
    rngs: Rngs,
    seeded: Seeded,
    randrepeat: bool,
    /// The direction of a job that does not mix.
    only_dir: DataDir,
    /// `rw=trimwrite`: every block is trimmed, then written.
    trim_first: bool,
    /// The write that follows the trim just issued.
    pending_write: Option<IoUnit>,
    random: bool,
    lfsr: bool,
    /// `rw=randread:N`: a new random offset every N I/Os, sequential between.
    seq_nr: u32,
    seq_nr_left: u32,
    /// `rw=read:N`: a hole of N bytes after each sequential I/O.
    seq_add: u64,
    next_file: usize,
    time_based: bool,
    /// Bytes all passes together may issue (`io_size * loops`).
    limit: u64,
    /// `io_size`, or the total of the extents.
    io_size: u64,
    io_size_set: bool,
    max_bs: u64,
    loops_left: u32,
    issued: u64,
    pass_issued: u64,
    finished: bool,
}

impl Workload {
    /// The I/O sequence of worker `worker` (0-based clone index of the job)
    /// over `files`, each file ending where its extent ends.
    ///
    /// Seeds follow fio's for thread number `worker + 1`. fio numbers every
    /// worker of a job file in order (a job's clones follow it), so passing
    /// that file-wide 0-based index reproduces fio's sequences in files
    /// with several jobs too; the clone index gives the same for the first
    /// job, and different sequences per clone in any case.
    pub fn new(spec: &JobSpec, files: &[FileExtent], worker: u32) -> Workload {
        let ends: Vec<u64> = files.iter().map(|e| e.offset + e.len).collect();
        Workload::with_file_sizes(spec, files, &ends, worker)
    }

    /// As [`Workload::new`], for files whose current sizes are
    /// `file_sizes` (see [`crate::FilePlan::file_size`]). fio lets the last
    /// block of a sequential pass run past the extent when the file is
    /// longer (`size=10000,bs=4k` on a larger file reads 12288 bytes); a
    /// size below the extent's end counts as the extent's end.
    pub fn with_file_sizes(
        spec: &JobSpec,
        files: &[FileExtent],
        file_sizes: &[u64],
        worker: u32,
    ) -> Workload {
        let seeds = fio_seeds(spec.randrepeat, spec.randseed, u64::from(worker) + 1);
        let seeded = Seeded::new(spec, &seeds);
        let rngs = Rngs::new(spec, &seeded);
        let kind = spec.rw.kind;
        let random = kind.is_random();
        let lfsr = random && spec.random_generator == RandomGenerator::Lfsr;
        let (min_r, min_w) = (spec.bs.read.min(), spec.bs.write.min());
        // trimwrite picks each block as a write would (fio 3.33 trims and
        // then writes with the write block size) and trims it first.
        let trim_first = kind.trims() && kind.writes();
        let map_bs = match (kind.reads(), kind.writes()) {
            _ if kind.trims() && !trim_first => spec.bs.trim.min(),
            (true, false) => min_r,
            (false, true) => min_w,
            _ => min_r.min(min_w),
        };
        let max_bs = match (kind.reads(), kind.writes()) {
            _ if kind.trims() && !trim_first => spec.bs.trim.max(),
            (true, false) => spec.bs.read.max(),
            (false, true) => spec.bs.write.max(),
            _ => spec.bs.read.max().max(spec.bs.write.max()),
        };
        let files: Vec<FileState> = files
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let blocks = e.len.checked_div(map_bs).unwrap_or(0);
                FileState {
                    start: e.offset,
                    len: e.len,
                    real: file_sizes.get(i).map_or(0, |&s| s).max(e.offset + e.len),
                    last_pos: [e.offset; 3],
                    lastb: [&spec.bs.read, &spec.bs.write, &spec.bs.trim]
                        .map(|bs| e.len.checked_div(bs.min()).unwrap_or(0)),
                    map: (random && !lfsr && !spec.norandommap && blocks > 0)
                        .then(|| RandomMap::new(blocks)),
                    lfsr: if lfsr {
                        Lfsr::new(blocks, seeds[seed_slot::BLOCK])
                    } else {
                        None
                    },
                    done: false,
                }
            })
            .collect();
        let total: u64 = files.iter().map(|f| f.len).sum();
        let io_size = spec.io_size.unwrap_or(total);
        let loops = spec.loops.max(1);
        let seq_nr = if random { spec.rw.nr.max(1) } else { 1 };
        // fio's `rw=read:N` is a byte count; N = 1 is also what the spec
        // says when no suffix was given, so it is read as "no holes".
        let seq_add = if random || spec.rw.nr <= 1 {
            0
        } else {
            u64::from(spec.rw.nr)
        };
        let usable = min_r > 0 && min_w > 0 && max_bs <= u64::from(u32::MAX) && !files.is_empty();
        Workload {
            files,
            rngs,
            seeded,
            randrepeat: spec.randrepeat,
            only_dir: if kind.trims() && !trim_first {
                DataDir::Trim
            } else if kind.reads() {
                DataDir::Read
            } else {
                DataDir::Write
            },
            trim_first,
            pending_write: None,
            random,
            lfsr,
            seq_nr,
            // fio starts the countdown at 1 so the first I/O is random.
            seq_nr_left: 1,
            seq_add,
            next_file: 0,
            time_based: spec.time_based,
            limit: io_size.saturating_mul(u64::from(loops)),
            io_size,
            io_size_set: spec.io_size.is_some(),
            max_bs,
            loops_left: loops - 1,
            issued: 0,
            pass_issued: 0,
            finished: !usable,
        }
    }

    /// The next I/O, or None when a size-bound job has issued everything
    /// (all loops). Time-based jobs wrap around and never end here.
    ///
    /// `rw=trimwrite` gives a trim and then a write of the same block; the
    /// pair counts once against `io_size` and `size`, as fio trims
    /// `io_size` bytes and writes `io_size` bytes.
    // The runner's interface names it `next`; an Iterator would add nothing.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Option<IoUnit> {
        // A trimmed block is written whatever the limits say since.
        if let Some(write) = self.pending_write.take() {
            return Some(write);
        }
        loop {
            if self.finished {
                return None;
            }
            // A pass ends when no file has room left, or when the job's bytes
            // are issued. fio also stops a pass at `size` bytes, but counts
            // them only for engines that queue: its sync engines (psync,
            // sync, pvsync2, and null as ioscope runs it) never add to that
            // count, so a pass of a mixed or mapless random job runs on past
            // `size` (checked against fio 3.33's logs for psync and null).
            let spent = !self.time_based && self.issued >= self.limit;
            if !spent {
                if let Some(io) = self.next_io() {
                    self.issued += u64::from(io.len);
                    self.pass_issued += u64::from(io.len);
                    if let Some(m) = &mut self.rngs.mix {
                        m.issued(io.dir);
                    }
                    if self.trim_first {
                        self.pending_write = Some(io);
                        return Some(IoUnit {
                            dir: DataDir::Trim,
                            ..io
                        });
                    }
                    return Some(io);
                }
            }
            if !self.start_pass() {
                self.finished = true;
            }
        }
    }

    /// Whether another pass over the files follows the one that just
    /// ended (fio's `keep_running`), and if so sets it up.
    fn start_pass(&mut self) -> bool {
        if self.pass_issued == 0 {
            // Nothing fits at all: another pass would issue nothing either.
            return false;
        }
        // fio limits each direction of a trimwrite to io_size within a
        // pass, but adds trims and writes together when it asks whether
        // io_size calls for another pass (fio 3.33: size=64k io_size=96k
        // trims and writes 64k each, io_size=160k 128k each).
        let done = if self.trim_first {
            self.issued.saturating_mul(2)
        } else {
            self.issued
        };
        let more = if self.time_based {
            true
        } else if self.loops_left > 0 {
            self.loops_left -= 1;
            true
        } else if done < self.io_size {
            let all_done = self.files.iter().all(|f| f.done);
            (self.io_size_set || !all_done) && self.io_size - done >= self.max_bs
        } else {
            false
        };
        if more {
            for f in &mut self.files {
                f.reset();
            }
            let s = &self.seeded;
            if self.randrepeat {
                self.rngs.offset = s.offset.clone();
                self.rngs.bs[0].reseed(s.bs[0].clone());
                self.rngs.bs[1].reseed(s.bs[1].clone());
                self.rngs.bs[2].reseed(s.bs[2].clone());
            }
            if let Some(m) = &mut self.rngs.mix {
                m.restart(self.randrepeat.then(|| s.mix.clone()));
            }
            self.pass_issued = 0;
        }
        more
    }

    /// The next I/O of this pass, trying files round robin (fio's default
    /// `file_service_type=roundrobin`); None when every file is done.
    #[inline]
    fn next_io(&mut self) -> Option<IoUnit> {
        let n = self.files.len();
        for _ in 0..n {
            let f = self.next_file;
            self.next_file = if f + 1 == n { 0 } else { f + 1 };
            if self.files[f].done {
                continue;
            }
            let dir = match &mut self.rngs.mix {
                Some(m) => m.next(),
                None => self.only_dir,
            };
            match self.fill(f, dir) {
                Some(io) => return Some(io),
                None => self.files[f].done = true,
            }
        }
        None
    }

    /// fio's `fill_io_u` for file `f`: offset, then length; None when
    /// nothing more fits in this file.
    #[inline]
    fn fill(&mut self, f: usize, dir: DataDir) -> Option<IoUnit> {
        let d = dir as usize;
        let min_bs = self.rngs.bs[d].min();
        let (rel, marks) = if self.random {
            self.seq_nr_left -= 1;
            if self.seq_nr_left == 0 {
                self.seq_nr_left = self.seq_nr;
                (self.rand_block(f, d)? * min_bs, true)
            } else {
                // Sequential I/O between random ones does not mark the map.
                match self.seq_offset(f, d) {
                    Some(rel) => (rel, false),
                    None => (self.rand_block(f, d)? * min_bs, false),
                }
            }
        } else {
            (self.seq_offset(f, d)?, false)
        };
        let file = &self.files[f];
        if rel >= file.len || file.start + rel >= file.real {
            return None;
        }
        let offset = file.start + rel;
        let mut len = self.rngs.bs[d].next(file.end() - offset);
        if len == 0 || offset + len > file.real {
            return None;
        }
        let file = &mut self.files[f];
        if marks {
            if let Some(map) = &mut file.map {
                let nr = len.div_ceil(min_bs);
                let set = map.set_nr(rel / min_bs, nr);
                // fio shortens the I/O to the blocks that were still free.
                if set > 0 && set * min_bs < len {
                    len = set * min_bs;
                }
            }
        }
        file.last_pos[d] = offset + len;
        Some(IoUnit {
            dir,
            file: f as u32,
            offset,
            len: len as u32,
        })
    }

    /// fio's `get_next_seq_offset`: relative offset of the next sequential
    /// I/O in direction `d`.
    #[inline]
    fn seq_offset(&mut self, f: usize, d: usize) -> Option<u64> {
        let single = self.files.len() == 1;
        let file = &mut self.files[f];
        if self.time_based && single && file.last_pos[d] >= file.end() {
            file.last_pos[d] = file.start;
        }
        if file.last_pos[d] >= file.real {
            return None;
        }
        let mut pos = file.last_pos[d] - file.start;
        if pos != 0 && self.seq_add != 0 {
            pos += self.seq_add;
            // fio compares this relative position with the file's size and
            // restarts at the extent's start taken as a relative position.
            if pos >= file.real {
                pos = file.start;
            }
        }
        Some(pos)
    }

    /// fio's `get_next_rand_block`: a block number in units of the
    /// direction's minimum block size. Time-based jobs start the file's map
    /// over when it is full.
    #[inline]
    fn rand_block(&mut self, f: usize, d: usize) -> Option<u64> {
        if let Some(b) = self.rand_offset(f, d) {
            return Some(b);
        }
        if self.time_based {
            self.files[f].reset();
            return self.rand_offset(f, d);
        }
        None
    }

    #[inline]
    fn rand_offset(&mut self, f: usize, d: usize) -> Option<u64> {
        let file = &mut self.files[f];
        let lastb = file.lastb[d];
        if lastb == 0 {
            return None;
        }
        let b = if self.lfsr {
            file.lfsr.as_mut()?.next()?
        } else {
            self.rngs.offset.below(lastb)
        };
        match &mut file.map {
            Some(map) if map.is_set(b) => map.next_free(b),
            _ => Some(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::plan_files;
    use crate::test_spec::spec;
    use ioscope_job::{BlockSize, PerDir, SizeSpec};

    fn extents(spec: &JobSpec) -> Vec<FileExtent> {
        let files = plan_files(spec, &vec![None; spec.nrfiles as usize]).unwrap();
        files.iter().map(|p| p.extent).collect()
    }

    fn all(spec: &JobSpec, worker: u32) -> Vec<IoUnit> {
        let mut w = Workload::new(spec, &extents(spec), worker);
        std::iter::from_fn(|| w.next()).collect()
    }

    fn offsets(ios: &[IoUnit]) -> Vec<u64> {
        let mut v: Vec<u64> = ios.iter().map(|io| io.offset).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn trim_jobs_issue_trims_of_the_trim_block_size() {
        let mut s = spec(RwKind::Trim, 1 << 20, 4096);
        s.bs.trim = BlockSize::Fixed(65536);
        let ios = all(&s, 0);
        assert!(ios
            .iter()
            .all(|io| io.dir == DataDir::Trim && io.len == 65536));
        let want: Vec<u64> = (0..16).map(|i| i * 65536).collect();
        assert_eq!(ios.iter().map(|io| io.offset).collect::<Vec<_>>(), want);
        // randtrim covers every block once, in some order.
        let ios = all(&spec(RwKind::RandTrim, 1 << 20, 4096), 0);
        assert!(ios.iter().all(|io| io.dir == DataDir::Trim));
        let want: Vec<u64> = (0..256).map(|i| i * 4096).collect();
        assert_eq!(offsets(&ios), want);
        assert_ne!(ios.iter().map(|io| io.offset).collect::<Vec<_>>(), want);
    }

    /// `(dir, offset, len)` of every I/O, with `t`/`w` for trim and write.
    fn steps(ios: &[IoUnit]) -> Vec<(char, u64, u32)> {
        ios.iter()
            .map(|io| {
                let d = match io.dir {
                    DataDir::Trim => 't',
                    DataDir::Write => 'w',
                    DataDir::Read => 'r',
                };
                (d, io.offset, io.len)
            })
            .collect()
    }

    /// Checks that `ios` is trim/write pairs of the same block, and returns
    /// the blocks as `(offset, len)`.
    fn trimwrite_pairs(ios: &[IoUnit]) -> Vec<(u64, u32)> {
        assert_eq!(ios.len() % 2, 0, "{:?}", steps(ios));
        ios.chunks(2)
            .map(|p| {
                assert_eq!(p[0].dir, DataDir::Trim, "{:?}", steps(p));
                assert_eq!(
                    p[1],
                    IoUnit {
                        dir: DataDir::Write,
                        ..p[0]
                    }
                );
                (p[0].offset, p[0].len)
            })
            .collect()
    }

    #[test]
    fn trimwrite_trims_each_block_then_writes_it() {
        let s = spec(RwKind::TrimWrite, 64 << 10, 4096);
        let ios = all(&s, 0);
        let want: Vec<(u64, u32)> = (0..16).map(|i| (i * 4096, 4096)).collect();
        assert_eq!(trimwrite_pairs(&ios), want);
        // The write block size sets both halves, whatever the trim's
        // (fio 3.33 draws the length from the write sizes, then repeats it).
        let mut s = spec(RwKind::TrimWrite, 64 << 10, 4096);
        s.bs.write = BlockSize::Fixed(16384);
        s.bs.trim = BlockSize::Fixed(512);
        let want: Vec<(u64, u32)> = (0..4).map(|i| (i * 16384, 16384)).collect();
        assert_eq!(trimwrite_pairs(&all(&s, 0)), want);
    }

    #[test]
    fn trimwrite_matches_fio() {
        // fio 3.33 --name=t --ioengine=null --write_iolog=log --bs=4k
        //   --rw=trimwrite <options>: the trim/write pairs of the log.
        type Tweak = fn(&mut JobSpec);
        let cases: [(Tweak, usize, u64); 8] = [
            // --size=64k: (pairs, offset of the last)
            (|_| {}, 16, 61440),
            // --size=64k --io_size=32k
            (|s| s.io_size = Some(32 << 10), 8, 28672),
            // --size=64k --loops=2
            (|s| s.loops = 2, 32, 61440),
            // --size=64k --io_size=32k --loops=3
            (
                |s| {
                    s.io_size = Some(32 << 10);
                    s.loops = 3;
                },
                24,
                28672,
            ),
            // --size=64k --io_size=96k: trims and writes add up to 96k
            // after one pass, so there is no second.
            (|s| s.io_size = Some(96 << 10), 16, 61440),
            // --size=64k --io_size=160k: they do not, so a second pass.
            (|s| s.io_size = Some(160 << 10), 32, 61440),
            // --size=64k --io_size=96k --loops=2
            (
                |s| {
                    s.io_size = Some(96 << 10);
                    s.loops = 2;
                },
                32,
                61440,
            ),
            // --size=64k --io_size=40k --bs=16k: each direction's 40k is
            // rounded up to whole blocks.
            (
                |s| {
                    s.io_size = Some(40 << 10);
                    s.bs = PerDir::all(BlockSize::Fixed(16384));
                },
                3,
                32768,
            ),
        ];
        for (i, (tweak, pairs, last)) in cases.iter().enumerate() {
            let mut s = spec(RwKind::TrimWrite, 64 << 10, 4096);
            tweak(&mut s);
            let got = trimwrite_pairs(&all(&s, 0));
            assert_eq!(got.len(), *pairs, "case {i}");
            assert_eq!(got.last().map(|p| p.0), Some(*last), "case {i}");
        }
        // --size=256k --bsrange=4k-64k: the lengths rw=write draws.
        let mut s = spec(RwKind::TrimWrite, 256 << 10, 4096);
        s.bs = PerDir::all(BlockSize::Range {
            min: 4096,
            max: 65536,
        });
        let want = [
            (0, 16384),
            (16384, 4096),
            (20480, 28672),
            (49152, 36864),
            (86016, 36864),
            (122880, 20480),
            (143360, 53248),
            (196608, 12288),
            (208896, 45056),
            (253952, 8192),
        ];
        assert_eq!(trimwrite_pairs(&all(&s, 0)), want);
        // --rw=randtrimwrite --size=256k --bsrange=4k-64k
        s.rw.kind = RwKind::RandTrimWrite;
        let want = [
            (12288, 16384),
            (192512, 4096),
            (217088, 28672),
            (122880, 36864),
            (102400, 20480),
            (245760, 12288),
            (98304, 4096),
            (90112, 8192),
            (258048, 4096),
            (28672, 8192),
            (0, 12288),
            (167936, 24576),
            (36864, 36864),
            (73728, 16384),
            (159744, 8192),
            (196608, 20480),
        ];
        assert_eq!(trimwrite_pairs(&all(&s, 0)), want);
    }

    #[test]
    fn randtrimwrite_covers_every_block_once() {
        let s = spec(RwKind::RandTrimWrite, 64 << 10, 4096);
        let pairs = trimwrite_pairs(&all(&s, 0));
        // fio 3.33: trim 0, write 0, trim 45056, write 45056, trim 53248, ...
        let first: Vec<u64> = pairs.iter().take(3).map(|p| p.0).collect();
        assert_eq!(first, [0, 45056, 53248]);
        let mut offsets: Vec<u64> = pairs.iter().map(|p| p.0).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
    }

    #[test]
    fn a_time_based_trimwrite_keeps_its_pairs_across_the_wrap() {
        let mut s = spec(RwKind::TrimWrite, 16 << 10, 4096);
        s.time_based = true;
        let mut w = Workload::new(&s, &extents(&s), 0);
        let ios: Vec<IoUnit> = (0..40).map(|_| w.next().unwrap()).collect();
        let pairs = trimwrite_pairs(&ios);
        let want: Vec<(u64, u32)> = (0..20).map(|i| (i % 4 * 4096, 4096)).collect();
        assert_eq!(pairs, want);
    }

    #[test]
    fn random_map_visits_every_block_once_per_loop() {
        for generator in [
            RandomGenerator::Tausworthe,
            RandomGenerator::Tausworthe64,
            RandomGenerator::Lfsr,
        ] {
            let mut s = spec(RwKind::RandRead, 1000 * 4096, 4096);
            s.random_generator = generator;
            s.loops = 3;
            let ios = all(&s, 0);
            assert_eq!(ios.len(), 3000, "{generator:?}");
            let every: Vec<u64> = (0..1000).map(|b| b * 4096).collect();
            for pass in ios.chunks(1000) {
                assert_eq!(offsets(pass), every, "{generator:?}");
            }
            // Not simply sequential.
            assert_ne!(
                ios[..1000].iter().map(|io| io.offset).collect::<Vec<_>>(),
                every
            );
        }
    }

    #[test]
    fn without_a_map_blocks_repeat() {
        let mut s = spec(RwKind::RandRead, 1000 * 4096, 4096);
        s.norandommap = true;
        let ios = all(&s, 0);
        assert_eq!(ios.len(), 1000);
        let mut o = offsets(&ios);
        o.dedup();
        assert!(
            o.len() < 900,
            "uniform draws over 1000 blocks repeat: {}",
            o.len()
        );
    }

    #[test]
    fn seeds_repeat_and_differ_per_worker() {
        let s = spec(RwKind::RandRw, 1 << 20, 4096);
        assert_eq!(all(&s, 0), all(&s, 0));
        assert_eq!(all(&s, 3), all(&s, 3));
        assert_ne!(all(&s, 0), all(&s, 1));
        // fio --name=t --size=1m --bs=4k --rw=randread --numjobs=2
        //   --write_iolog=log: the second clone (t.1.0) starts 266240 188416 626688
        let r = spec(RwKind::RandRead, 1 << 20, 4096);
        let first: Vec<u64> = all(&r, 1).iter().take(3).map(|io| io.offset).collect();
        assert_eq!(first, [266240, 188416, 626688]);
        let mut other = r.clone();
        other.randrepeat = false;
        other.randseed = Some(7);
        assert_ne!(all(&r, 0), all(&other, 0));
        assert_eq!(all(&other, 0), all(&other, 0));
    }

    /// FNV-1a over `"<file> <r|w> <offset> <len>\n"` of the first `n` I/Os.
    fn prefix_hash(w: &mut Workload, n: usize) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for _ in 0..n {
            let io = w.next().expect("time-based jobs never end");
            let d = if io.dir == DataDir::Read { 'r' } else { 'w' };
            for b in format!("{} {d} {} {}\n", io.file, io.offset, io.len).bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x100_0000_01b3);
            }
        }
        h
    }

    #[test]
    fn time_based_wraps_like_fio() {
        // fio --name=t --filename_format='f.$filenum' --ioengine=psync
        //   --time_based --runtime=1 --write_iolog=log <options>: hash of the
        //   first 300 I/Os of the log, as in fio_cases.rs.
        type Tweak = fn(&mut JobSpec);
        let cases: [(Tweak, u64); 6] = [
            // --size=64k --bs=4k --rw=read
            (
                |s| s.size = Some(SizeSpec::Bytes(64 << 10)),
                0x4cdc27583a3ecc16,
            ),
            // --size=64k --bs=4k --rw=randread
            (
                |s| {
                    s.size = Some(SizeSpec::Bytes(64 << 10));
                    s.rw.kind = RwKind::RandRead;
                },
                0x2980dcfe728a3186,
            ),
            // --size=64k --bs=4k --rw=randrw
            (
                |s| {
                    s.size = Some(SizeSpec::Bytes(64 << 10));
                    s.rw.kind = RwKind::RandRw;
                },
                0x8502c7068ab1e4f6,
            ),
            // --size=96k --bs=4k --rw=read --nrfiles=2
            (
                |s| {
                    s.size = Some(SizeSpec::Bytes(96 << 10));
                    s.nrfiles = 2;
                },
                0xb38dad0bebf234db,
            ),
            // --size=10000 --bs=4k --rw=randwrite --random_generator=lfsr
            (
                |s| {
                    s.size = Some(SizeSpec::Bytes(10000));
                    s.rw.kind = RwKind::RandWrite;
                    s.random_generator = RandomGenerator::Lfsr;
                },
                0xdd1d2bec8b5af4f3,
            ),
            // --size=64k --bs=4k --rw=rw
            (
                |s| {
                    s.size = Some(SizeSpec::Bytes(64 << 10));
                    s.rw.kind = RwKind::ReadWrite;
                },
                0x927ba7ac2027d47e,
            ),
        ];
        for (i, (tweak, want)) in cases.iter().enumerate() {
            let mut s = spec(RwKind::Read, 1 << 20, 4096);
            s.time_based = true;
            tweak(&mut s);
            let mut w = Workload::new(&s, &extents(&s), 0);
            assert_eq!(prefix_hash(&mut w, 300), *want, "case {i}");
        }
    }

    #[test]
    fn time_based_never_ends() {
        let mut s = spec(RwKind::RandRw, 10 * 4096, 4096);
        s.time_based = true;
        s.bs = PerDir::all(BlockSize::Range {
            min: 4096,
            max: 16384,
        });
        let mut w = Workload::new(&s, &extents(&s), 0);
        let mut at_zero = 0;
        for _ in 0..10_000 {
            let io = w.next().unwrap();
            assert!(io.offset + u64::from(io.len) <= 10 * 4096);
            at_zero += usize::from(io.offset == 0);
        }
        // Each round over the 10 blocks has at most 10 I/Os and exactly one
        // that starts at block 0.
        assert!(at_zero >= 1000, "{at_zero}");
    }

    #[test]
    fn sequential_covers_the_extent_once_per_loop() {
        let mut s = spec(RwKind::Write, 1 << 20, 4096);
        s.offset = SizeSpec::Bytes(1 << 20);
        s.loops = 2;
        let ios = all(&s, 0);
        let want: Vec<u64> = (0..256).map(|b| (1 << 20) + b * 4096).collect();
        assert_eq!(
            ios.iter().take(256).map(|io| io.offset).collect::<Vec<_>>(),
            want
        );
        assert_eq!(
            ios.iter().skip(256).map(|io| io.offset).collect::<Vec<_>>(),
            want
        );
    }

    #[test]
    fn last_block_runs_past_the_extent_on_a_longer_file() {
        // fio --name=t --filename=F --bs=4k --write_iolog=log <options>, F an
        // existing 10 MiB file: (read bytes, read I/Os)
        type Tweak = fn(&mut JobSpec);
        let cases: [(Tweak, (u64, usize)); 6] = [
            // --size=10000 --rw=read
            (|_| {}, (12288, 3)),
            // --size=10000 --rw=randread
            (|s| s.rw.kind = RwKind::RandRead, (8192, 2)),
            // --size=10000 --rw=read --io_size=30000
            (|s| s.io_size = Some(30000), (32768, 8)),
            // --size=10000 --rw=read --loops=2
            (|s| s.loops = 2, (20480, 5)),
            // --size=10000 --rw=read --bsrange=4k-8k
            (
                |s| {
                    s.bs = PerDir::all(BlockSize::Range {
                        min: 4096,
                        max: 8192,
                    })
                },
                (8192, 2),
            ),
            // --size=10000 --rw=rw: the first three draws are reads
            (|s| s.rw.kind = RwKind::ReadWrite, (12288, 3)),
        ];
        for (i, (tweak, want)) in cases.iter().enumerate() {
            let mut s = spec(RwKind::Read, 10000, 4096);
            tweak(&mut s);
            let plans = plan_files(&s, &[Some(10 << 20)]).unwrap();
            assert_eq!(plans[0].file_size, 10 << 20);
            let extents: Vec<FileExtent> = plans.iter().map(|p| p.extent).collect();
            let sizes: Vec<u64> = plans.iter().map(|p| p.file_size).collect();
            let mut w = Workload::with_file_sizes(&s, &extents, &sizes, 0);
            let ios: Vec<IoUnit> = std::iter::from_fn(|| w.next()).collect();
            assert!(ios.iter().all(|io| io.dir == DataDir::Read), "case {i}");
            let bytes: u64 = ios.iter().map(|io| u64::from(io.len)).sum();
            assert_eq!((bytes, ios.len()), *want, "case {i}");
        }
    }

    #[test]
    fn odd_inputs_end_cleanly() {
        let s = spec(RwKind::RandRw, 1 << 20, 4096);
        // Extent smaller than one block, empty extent, no files.
        for files in [
            &[FileExtent {
                offset: 0,
                len: 100,
            }][..],
            &[FileExtent { offset: 0, len: 0 }],
            &[],
        ] {
            assert_eq!(Workload::new(&s, files, 0).next(), None, "{files:?}");
            let mut t = s.clone();
            t.time_based = true;
            assert_eq!(Workload::new(&t, files, 0).next(), None, "{files:?}");
        }
        // A zero block size issues nothing rather than dividing by zero.
        let mut z = s.clone();
        z.bs = PerDir::all(BlockSize::Fixed(0));
        assert_eq!(
            Workload::new(
                &z,
                &[FileExtent {
                    offset: 0,
                    len: 4096
                }],
                0
            )
            .next(),
            None
        );
        // One file too small, the other fine: the small one is skipped.
        let ios: Vec<_> = {
            let mut w = Workload::new(
                &s,
                &[
                    FileExtent {
                        offset: 0,
                        len: 100,
                    },
                    FileExtent {
                        offset: 0,
                        len: 8192,
                    },
                ],
                0,
            );
            std::iter::from_fn(|| w.next()).collect()
        };
        assert!(ios.iter().all(|io| io.file == 1));
        assert_eq!(ios.len(), 2);
    }
}
