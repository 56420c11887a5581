//! The sequence of I/Os of one worker.

use ioscope_job::{JobSpec, RandomGenerator, RwKind, RwSequencer, VerifyMethod};

use crate::block_size::BlockSizer;
use crate::distribution::{jhash, FileDist};
use crate::file_service::FileService;
use crate::iolog::Replay;
use crate::lfsr::Lfsr;
use crate::offset_mix::{SeqRandMix, Zoned};
use crate::rand::{job_seeds, seed_slot, FioRand};
use crate::random_map::RandomMap;
use crate::rwmix::RwMix;
use crate::sprandom::SpRandom;
use crate::zones::{Extent, Held, Strided, Zbd, ZoneBook, ZoneView};

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
    /// `file_append` on a regular file: the region starts at the file's
    /// end as it was. fio takes a file's start from its size again at
    /// every pass (`get_start_offset`), which is then the region's end,
    /// so only the first pass does I/O here and a sequential time-based
    /// pass does not start over within it.
    pub appends: bool,
}

/// Whose cached pages fio drops as the workload moves on (its
/// `invalidate`, at a file's reopen for a new pass and, within a
/// time-based pass, where a file's offsets start over).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheDrop {
    /// Every file: a new pass, for which fio reopens them.
    All,
    /// One file, by its index.
    File(u32),
}

/// What the workload's last I/Os call for on the files before the next
/// is issued, where fio does it (see [`Workload::take_file_events`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileEvents {
    /// `unlink_each_loop`: a new loop (pass) begins, whose files fio
    /// unlinks first, once every I/O of the last has completed.
    pub unlink: bool,
    /// `invalidate`: whose cached pages to drop (after the unlink).
    pub drop: Option<CacheDrop>,
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
    /// Where offsets count from (fio's `file_offset`): the extent's start,
    /// or with `zonemode=strided` the current zone's.
    start: u64,
    /// The extent's start (fio's `get_start_offset`).
    origin: u64,
    len: u64,
    /// The file's size: I/O may run past the extent up to here, as fio lets
    /// a whole block at the extent's end through when the file has it.
    real: u64,
    /// End of the last I/O per direction (fio's `last_pos`), absolute.
    last_pos: [u64; 3],
    /// Start of the last I/O per direction (fio's `last_start`), absolute;
    /// None at the start of a pass.
    last_start: [Option<u64>; 3],
    /// Blocks of the direction's smallest size in the extent (fio's
    /// `lastb` for random offsets), worked out once rather than divided
    /// per I/O.
    lastb: [u64; 3],
    map: Option<RandomMap>,
    lfsr: Option<Lfsr>,
    /// zipf, pareto or normal offsets (`random_distribution`).
    dist: Option<FileDist>,
    /// No further I/O fits in this pass.
    done: bool,
    /// No I/O since the file was last reset: a non-uniform file service
    /// that finds nothing fits even then gives the file up.
    fresh: bool,
    /// [`FileExtent::appends`].
    appends: bool,
}

impl FileState {
    fn end(&self) -> u64 {
        self.origin + self.len
    }

    /// The region the zones adjust an I/O within.
    fn extent(&self) -> Extent {
        Extent {
            start: self.start,
            len: self.len,
            real: self.real,
        }
    }

    /// fio's `fio_file_reset`.
    fn reset(&mut self) {
        self.last_pos = [self.start; 3];
        self.last_start = [None; 3];
        if let Some(m) = &mut self.map {
            m.reset();
        }
        if let Some(l) = &mut self.lfsr {
            l.reset();
        }
        self.done = false;
        self.fresh = true;
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
        // fio's td_fill_rand_seeds_internal: with verify, writes draw their
        // sizes as reads do, and a trimwrite's trims as its writes, so
        // that a block size range gives reads (trims) of the written
        // (to be written) blocks' sizes.
        let read = seeds[seed_slot::BS_READ];
        let write = match spec.verify.method {
            VerifyMethod::None => seeds[seed_slot::BS_WRITE],
            _ => read,
        };
        let trim = match spec.rw.kind.trims() && spec.rw.kind.writes() {
            true => write,
            false => seeds[seed_slot::BS_TRIM],
        };
        Seeded {
            offset: FioRand::new(seeds[seed_slot::BLOCK], use64),
            bs: [
                FioRand::new(read, use64),
                FioRand::new(write, use64),
                FioRand::new(trim, use64),
            ],
            // fio draws the mix from a 32-bit generator whatever the job's.
            mix: FioRand::new(seeds[seed_slot::MIX], false),
        }
    }
}

impl Rngs {
    fn new(spec: &JobSpec, s: &Seeded) -> Rngs {
        let mixed = matches!(spec.rw.kind, RwKind::ReadWrite | RwKind::RandRw);
        let un = spec.placement.bs_unaligned;
        Rngs {
            offset: s.offset.clone(),
            bs: [
                BlockSizer::new(&spec.bs.read, s.bs[0].clone()).unaligned(un),
                BlockSizer::new(&spec.bs.write, s.bs[1].clone()).unaligned(un),
                BlockSizer::new(&spec.bs.trim, s.bs[2].clone()).unaligned(un),
            ],
            mix: mixed.then(|| RwMix::new(spec.rwmixread, s.mix.clone())),
        }
    }
}

/// [`Workload::break_between_loops`]'s state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopBreak {
    Off,
    /// The workload stops at the next end of a pass that another may
    /// follow.
    Armed,
    /// Stopped at the end of a pass: gives nothing until resumed.
    Paused,
}

/// How a job that trims and writes takes turns (fio's trimwrite and
/// randtrimwrite, which differ in more than the offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TrimWrite {
    /// randtrimwrite: a random trim, then a write of the same offset and
    /// length (fio 3.33's get_next_offset and get_next_buflen copy the
    /// trim's for the write, and leave the random map alone).
    Pairs,
    /// trimwrite: trims and writes each go sequentially with their own
    /// block size, taking turns as fio's set_rw_ddir decides.
    Cursors,
}

pub struct Workload {
    files: Vec<FileState>,
    rngs: Rngs,
    seeded: Seeded,
    randrepeat: bool,
    /// The direction of a job that does not mix.
    only_dir: DataDir,
    /// How `rw=trimwrite` or `randtrimwrite` takes turns between trims
    /// and writes; None for every other job.
    trimwrite: Option<TrimWrite>,
    /// randtrimwrite: the write that follows the trim just issued.
    pending_write: Option<IoUnit>,
    /// trimwrite and randtrimwrite: the bytes trimmed. Only the writes
    /// count towards `io_size` (fio's io_bytes_exceeded looks at the write
    /// direction of a job that writes), but trims and writes together
    /// decide whether another pass follows.
    trimmed: u64,
    random: bool,
    /// The random map's block (fio's rw_min_bs).
    map_bs: u64,
    lfsr: bool,
    /// `rw=randread:N`: a new random offset every N I/Os, sequential between.
    seq_nr: u32,
    seq_nr_left: u32,
    /// `rw=read:N`: a hole of N bytes after each sequential I/O (fio's
    /// `ddir_seq_add`; negative goes backwards).
    seq_add: i64,
    /// `rw_sequencer=identical`: the I/Os between random ones repeat the
    /// last offset.
    identical: bool,
    /// The unit of random offsets per direction (fio's `ba`: `blockalign`,
    /// or the direction's minimum block size).
    ba: [u64; 3],
    /// `bs_is_seq_rand`: block sizes by randomness, not direction.
    bs_is_seq_rand: bool,
    zoned: Option<Zoned>,
    seq_rand: Option<SeqRandMix>,
    /// Which file each I/O goes to (`file_service_type`, `openfiles`).
    service: FileService,
    time_based: bool,
    /// Bytes all passes together may issue (`io_size * loops`).
    limit: u64,
    /// Bytes one pass may issue (see [`Workload::engine_queues`]);
    /// u64::MAX for no limit of its own.
    pass_limit: u64,
    /// What that limit is once asked for: fio's `total_bytes`.
    pass_bytes: u64,
    /// `io_size`, or the total of the extents.
    io_size: u64,
    io_size_set: bool,
    max_bs: u64,
    loops_left: u32,
    issued: u64,
    pass_issued: u64,
    finished: bool,
    /// Whether the workload stops between passes for its runner.
    loop_break: LoopBreak,
    /// A verify phase comes between passes (see `another_pass`).
    verify_between: bool,
    /// fio keeps its count of files done from one pass to the next
    /// (reset_io_counters clears it only for time_based, loops above 1
    /// or do_verify): once every file is done, a pass that `io_size` adds
    /// finds none to do I/O to and the job ends.
    keeps_done: bool,
    /// Loops begun after the first.
    loops_begun: u32,
    /// `read_iolog`: the log's I/Os in place of the generated ones.
    replay: Option<Replay>,
    /// `zonemode=strided`.
    strided: Option<Strided>,
    /// `zonemode=zbd`: the files' zones and write pointers.
    zbd: Option<Zbd>,
    /// `invalidate` (and no pre_read, which turns it off): fio drops a
    /// file's cached pages when it reopens it for a new pass.
    drops_at_pass: bool,
    /// ... and, without O_DIRECT, where a time-based pass starts a file's
    /// offsets over.
    drops_in_pass: bool,
    /// `unlink_each_loop`: fio unlinks the files before each new loop.
    unlinks_at_pass: bool,
    /// What is due and not yet taken by [`Workload::take_file_events`].
    events: Option<FileEvents>,
    /// `sprandom`: the writes' offsets, when the job preconditions (boxed:
    /// the test every random I/O makes reads one word).
    sprandom: Option<Box<SpRandom>>,
    /// `sprandom` has written everything: the job ends (fio's td->done).
    sprandom_over: bool,
    /// With [`Workload::record_closes`]: the files found done (or run out
    /// under a non-uniform service) since the last
    /// [`Workload::take_closed`], in order.
    closed: Option<Vec<u32>>,
    /// None of the options that change how an I/O is chosen beyond one
    /// file, one direction, one block size and uniform random or plain
    /// sequential offsets is set (see [`Workload::is_simple`]): `next`
    /// then takes a copy of its steps with theirs left out at compile
    /// time, the same steps otherwise.
    simple: bool,
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
        Workload::with_file_sizes(spec, files, &ends, worker, None)
    }

    /// As [`Workload::new`], for files whose current sizes are
    /// `file_sizes` (see [`crate::FilePlan::file_size`]). fio lets the last
    /// block of a sequential pass run past the extent when the file is
    /// longer (`size=10000,bs=4k` on a larger file reads 12288 bytes); a
    /// size below the extent's end counts as the extent's end.
    /// `zoned`: the run's zones and the files' paths, for `zonemode=zbd`
    /// on a zoned device, whose kinds of zone the extents are aligned to.
    pub fn with_file_sizes(
        spec: &JobSpec,
        files: &[FileExtent],
        file_sizes: &[u64],
        worker: u32,
        zoned: Option<(&ZoneBook, &[&std::path::Path])>,
    ) -> Workload {
        let seeds = job_seeds(spec, u64::from(worker) + 1);
        let seeded = Seeded::new(spec, &seeds);
        let rngs = Rngs::new(spec, &seeded);
        let kind = spec.rw.kind;
        let random = kind.is_random();
        let lfsr = random && spec.random_generator == RandomGenerator::Lfsr;
        let (min_r, min_w) = (spec.bs.read.min(), spec.bs.write.min());
        let trimwrite = match kind {
            _ if !(kind.trims() && kind.writes()) => None,
            _ if random => Some(TrimWrite::Pairs),
            _ => Some(TrimWrite::Cursors),
        };
        // fio's random map counts blocks of its rw_min_bs, the smallest
        // block size of the three directions whichever the job uses,
        // while each I/O marks it at its own direction's smallest size
        // (mark_random_map). A job whose block is larger than another
        // direction's default therefore finds the map's upper part out
        // of reach and ends its pass early (fio 3.33: randread bs=8k,4k
        // reads 6 of a 64k file's 8 blocks); so does ioscope.
        let map_bs = min_r.min(min_w).min(spec.bs.trim.min());
        let max_bs = match (kind.reads(), kind.writes()) {
            _ if kind.trims() && trimwrite != Some(TrimWrite::Cursors) => spec.bs.trim.max(),
            _ if kind.trims() => spec.bs.trim.max().max(spec.bs.write.max()),
            (true, false) => spec.bs.read.max(),
            (false, true) => spec.bs.write.max(),
            _ => spec.bs.read.max().max(spec.bs.write.max()),
        };
        let ba = {
            let a = &spec.placement.blockalign;
            let pick = |a: u64, bs: &ioscope_job::BlockSize| if a == 0 { bs.min() } else { a };
            [
                pick(a.read, &spec.bs.read),
                pick(a.write, &spec.bs.write),
                pick(a.trim, &spec.bs.trim),
            ]
        };
        let mins = [spec.bs.read.min(), spec.bs.write.min(), spec.bs.trim.min()];
        let service = FileService::new(spec, files.len(), &seeds);
        let strided = Strided::of(spec);
        let reals: Vec<u64> = files
            .iter()
            .enumerate()
            .map(|(i, e)| file_sizes.get(i).map_or(0, |&s| s).max(e.offset + e.len))
            .collect();
        let mut zbd = Zbd::of(spec, &reals);
        if let (Some(z), Some((book, paths))) = (&mut zbd, zoned) {
            book.mark_kinds(z, paths);
        }
        // fio keeps a sequential read's extent as it is and puts any other
        // job's on zone boundaries.
        let read_only = kind == RwKind::Read;
        let files: Vec<FileExtent> = files
            .iter()
            .enumerate()
            .map(|(i, e)| match &mut zbd {
                Some(z) => {
                    let x = Extent {
                        start: e.offset,
                        len: e.len,
                        real: reals[i],
                    };
                    let x = z.align(i, x, read_only);
                    FileExtent {
                        offset: x.start,
                        len: x.len,
                        appends: e.appends,
                    }
                }
                None => *e,
            })
            .collect();
        let files: Vec<FileState> = files
            .iter()
            .enumerate()
            .map(|(i, e)| {
                // Random offsets range over one zone in strided mode.
                let span = strided.as_ref().map_or(e.len, Strided::range);
                let blocks = span.checked_div(map_bs).unwrap_or(0);
                let real = reals[i];
                FileState {
                    start: e.offset,
                    origin: e.offset,
                    len: e.len,
                    real,
                    last_pos: [e.offset; 3],
                    last_start: [None; 3],
                    lastb: [0, 1, 2].map(|d| last_block(span.min(real), mins[d], ba[d])),
                    map: (random && !lfsr && !spec.norandommap && blocks > 0)
                        .then(|| RandomMap::new(blocks)),
                    lfsr: if lfsr {
                        Lfsr::new(blocks, seeds[seed_slot::BLOCK])
                    } else {
                        None
                    },
                    dist: None,
                    done: false,
                    fresh: true,
                    appends: e.appends,
                }
            })
            .collect();
        let io_size = spec.loop_bytes(files.iter().map(|f| f.len));
        // fio's `size` after setup_files: the files' bytes, scaled by an
        // io_size percentage (its total_size) unless io_size is in bytes.
        let size = match spec.io_size {
            Some(_) => files.iter().map(|f| f.len).sum(),
            None => io_size,
        };
        let loops = spec.loops.max(1);
        let seq_nr = if random { spec.rw.nr.max(1) } else { 1 };
        // fio's `rw=read:N` is a byte count; N = 1 is also what the spec
        // says when no suffix was given, so it is read as "no holes".
        let seq_add = if random { 0 } else { spec.placement.seq_add };
        let usable = min_r > 0 && min_w > 0 && max_bs <= u64::from(u32::MAX) && !files.is_empty();
        Workload {
            files,
            rngs,
            seeded,
            randrepeat: spec.randrepeat,
            only_dir: if kind.trims() {
                DataDir::Trim
            } else if kind.reads() {
                DataDir::Read
            } else {
                DataDir::Write
            },
            trimwrite,
            pending_write: None,
            trimmed: 0,
            random,
            map_bs,
            lfsr,
            seq_nr,
            // fio starts the countdown at 1 so the first I/O is random.
            seq_nr_left: 1,
            seq_add,
            identical: spec.placement.rw_sequencer == RwSequencer::Identical,
            ba,
            bs_is_seq_rand: spec.placement.bs_is_seq_rand,
            zoned: if random {
                Zoned::new(spec, &seeds)
            } else {
                None
            },
            seq_rand: if random {
                SeqRandMix::new(spec, &seeds)
            } else {
                None
            },
            service,
            time_based: spec.time_based,
            limit: io_size.saturating_mul(u64::from(loops)),
            pass_limit: u64::MAX,
            // fio's do_io: `size`, or for mapless random writes io_size if
            // larger; a trimwrite's trims and writes and verify_backlog's
            // reads come on top, which a pass reaching its end first
            // never needs.
            pass_bytes: if trimwrite.is_some() || spec.verify.backlog > 0 {
                u64::MAX
            } else if random && kind.writes() && spec.norandommap {
                size.max(io_size)
            } else {
                size
            },
            io_size,
            io_size_set: spec.io_size.is_some(),
            max_bs,
            loops_left: loops - 1,
            issued: 0,
            pass_issued: 0,
            finished: !usable,
            loop_break: LoopBreak::Off,
            verify_between: false,
            keeps_done: !spec.time_based && loops == 1 && !spec.verify.do_verify,
            loops_begun: 0,
            replay: None,
            strided,
            zbd,
            drops_at_pass: spec.invalidate && !spec.file_handling.pre_read,
            drops_in_pass: spec.invalidate && !spec.file_handling.pre_read && !spec.direct,
            unlinks_at_pass: spec.file_handling.unlink_each_loop,
            events: None,
            sprandom: None,
            sprandom_over: false,
            closed: None,
            simple: false,
        }
        .simplified()
    }

    /// Works out [`Workload::simple`] again; every step that sets one of
    /// the options it weighs ends with it.
    fn simplified(mut self) -> Workload {
        self.simple = self.is_simple();
        self
    }

    /// This workload on the general path whatever its options, to check
    /// that the simple path gives the same I/Os.
    #[cfg(test)]
    fn general(mut self) -> Workload {
        self.simple = false;
        self
    }

    /// Whether the options that [`Workload::next`]'s simple path leaves
    /// out are all unset: one file whose offsets are uniform (or
    /// sequential without holes), one direction at one block size, and
    /// no replay, trimwrite, zones, offset mixes, LFSR, sprandom,
    /// `bs_is_seq_rand` or non-uniform file service.
    fn is_simple(&self) -> bool {
        let d = self.only_dir as usize;
        self.files.len() == 1
            && self.files[0].dist.is_none()
            && self.replay.is_none()
            && self.trimwrite.is_none()
            && self.rngs.mix.is_none()
            && self.rngs.bs[d].is_fixed()
            // A map of smaller blocks than the job's has free blocks past
            // the last one an I/O may start at, which the general steps
            // refuse (see `map_bs`).
            && (!self.random || self.map_bs == self.rngs.bs[d].min())
            && self.zbd.is_none()
            && self.strided.is_none()
            && self.zoned.is_none()
            && self.seq_rand.is_none()
            && self.sprandom.is_none()
            && self.seq_nr == 1
            && self.seq_add == 0
            && !self.lfsr
            && !self.bs_is_seq_rand
            && !self.service.nonuniform()
    }

    /// This workload with `sprandom`'s writes, when the job asks for them
    /// (fio's `sprandom_init`): the file's blocks, `size` of them or its
    /// real size if smaller, written once through the LFSR and some again,
    /// `spr_op` more in all, which becomes the job's `io_size`. `worker`
    /// as for [`Workload::new`].
    pub fn with_sprandom(mut self, spec: &JobSpec, worker: u32) -> Result<Workload, String> {
        if !spec.placement.sprandom {
            return Ok(self);
        }
        let [file] = &self.files[..] else {
            return Err(
                "SPRandom supports only one file: give the job one filename (nrfiles=1)".into(),
            );
        };
        let logical = file.real.min(file.len);
        let seed = job_seeds(spec, u64::from(worker) + 1)[seed_slot::SPRANDOM];
        let (s, physical) = SpRandom::new(&spec.placement.spr, logical, spec.bs.write.min(), seed)?;
        self.sprandom = Some(Box::new(s));
        self.io_size = physical;
        self.io_size_set = true;
        self.limit = physical.saturating_mul(u64::from(spec.loops.max(1)));
        Ok(self.simplified())
    }

    /// Keep the files found done for [`Workload::take_closed`]: fio
    /// closes a file as soon as it finds nothing more to do in it (and
    /// its write_iolog says so then), not at the pass's end.
    pub fn record_closes(&mut self) {
        self.closed = Some(Vec::new());
    }

    /// The files closed since the last call, in order; empty unless
    /// [`Workload::record_closes`] was asked for.
    pub fn take_closed(&mut self) -> Vec<u32> {
        self.closed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// What the I/Os given since the last call call for on the files
    /// (see [`FileEvents`]), if anything; the caller does it.
    #[inline]
    pub fn take_file_events(&mut self) -> Option<FileEvents> {
        // Read first: nothing is written back for the I/Os that call for
        // nothing.
        match self.events {
            None => None,
            Some(_) => self.events.take(),
        }
    }

    /// Records a drop: two different ones before the caller takes them
    /// become one of every file.
    /// (A function of the field alone, so that it can be called while a
    /// file is borrowed.)
    #[cold]
    fn drop_cache(events: &mut Option<FileEvents>, drop: CacheDrop) {
        let due = events.get_or_insert_with(FileEvents::default);
        due.drop = match due.drop {
            Some(d) if d != drop => Some(CacheDrop::All),
            _ => Some(drop),
        };
    }

    /// Sets up the zipf, pareto and normal distributions, whose seeds
    /// depend on the files' names as fio spells them (`names[i]` for file
    /// i; fio's `__init_rand_distribution`). Nothing for other jobs.
    pub fn named(mut self, spec: &JobSpec, names: &[&[u8]], worker: u32) -> Workload {
        if !spec.rw.kind.is_random() {
            return self;
        }
        let seeds = job_seeds(spec, u64::from(worker) + 1);
        let range = spec.bs.read.min().min(spec.bs.write.min());
        for (f, name) in self.files.iter_mut().zip(names) {
            let fsize = f.len.min(f.real);
            let nranges = fsize.div_ceil(range);
            let seed = if spec.randrepeat {
                jhash(name, 0).wrapping_mul(worker + 1)
            } else {
                seeds[seed_slot::BLOCK] as u32
            };
            f.dist = FileDist::new(&spec.placement.distribution, nranges, seed);
        }
        self.simplified()
    }

    /// This workload replaying `replay` instead of generating its I/Os.
    pub fn replaying(mut self, replay: Replay) -> Workload {
        self.replay = Some(replay);
        self.simplified()
    }

    /// `zonemode=zbd`: the files, named `paths`, take the zones that
    /// other workers of the run share in `book` (see [`ZoneBook`]).
    pub fn share_zones(
        &mut self,
        book: &ZoneBook,
        paths: &[&std::path::Path],
    ) -> Result<(), String> {
        match &mut self.zbd {
            Some(z) => book.join(z, paths),
            None => Ok(()),
        }
    }

    /// `zonemode=zbd`'s trims are zone resets, which the workload makes
    /// as it gives the trim: nothing is to be sent. Whether the trim of
    /// file `file` at `offset` is at a zone's start (and so succeeds;
    /// elsewhere it fails, fio's "Trim offset not at zone start"); None
    /// without zones, or in a zone without a write pointer, where the
    /// trim goes to the device.
    pub fn zone_trim(&self, file: u32, offset: u64) -> Option<bool> {
        self.zbd.as_ref()?.zone_start(file as usize, offset)
    }

    /// `zonemode=zbd`: the device's zone resets and finishes the workload
    /// decided on since the last call, which the runner makes once its
    /// I/O in flight has completed; an empty list when it must only wait
    /// for that I/O (fio's `io_u_quiesce`) before issuing the I/O just
    /// chosen; None when there is nothing to wait for.
    #[inline]
    pub fn take_zone_commands(&mut self) -> Option<Vec<crate::zones::ZoneCommand>> {
        self.zbd.as_mut()?.take_commands()
    }

    /// A device's zone reset or finish failed: the job fails with `why`
    /// and its pass ends, as fio's does.
    pub fn zone_command_failed(&mut self, why: String) {
        if let Some(z) = &mut self.zbd {
            z.fail(why);
        }
    }

    /// Zones `zonemode=zbd` has reset so far (fio's `nr_zone_resets`).
    pub fn zone_resets(&self) -> u64 {
        self.zbd.as_ref().map_or(0, Zbd::resets)
    }

    /// Why a zone reset on a zoned block device failed, which ended the
    /// pass: the job's error.
    pub fn zone_failure(&self) -> Option<&str> {
        self.zbd.as_ref().and_then(Zbd::failure)
    }

    /// Whether the runner has work of the workload's with each I/O: a
    /// replay's times and flushes, or `zonemode=zbd`'s zone resets,
    /// completed writes and trims.
    pub fn runner_steps(&self) -> bool {
        self.replay.is_some() || self.zbd.is_some()
    }

    /// When a replay's next I/O is due (microseconds after the start); None
    /// when not replaying or at the log's end.
    #[inline]
    pub fn next_due_us(&self) -> Option<u64> {
        self.replay.as_ref().and_then(Replay::next_due_us)
    }

    /// A replay's flush of a file, when that is what its log has next.
    #[inline]
    pub fn next_sync(&mut self) -> Option<u32> {
        self.replay.as_mut().and_then(Replay::next_sync)
    }

    /// The file a sync due now flushes: fio chooses the next I/O's file
    /// before it finds that a sync is due (`set_io_u_file`, then
    /// `get_rw_ddir`), so the sync takes the file service's next turn,
    /// and the I/O after it the turn after. None when replaying (a
    /// replay's syncs are its log's) or when every file is done.
    pub fn sync_file(&mut self) -> Option<u32> {
        if self.replay.is_some() || self.finished {
            return None;
        }
        let files = &self.files;
        self.service.next(|f| files[f].done).map(|f| f as u32)
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
        match self.simple {
            true => self.next_simple(),
            false => self.next_as::<false>(|d| d),
        }
    }

    /// [`Workload::next`], with the direction a mixed job draws passed
    /// through `steer` first: a rated job may take the other direction
    /// when the drawn one is ahead of its rate (fio's `rate_ddir`), and
    /// the mix then goes on in that direction, as in fio.
    #[inline]
    pub fn next_steered(&mut self, steer: impl FnMut(DataDir) -> DataDir) -> Option<IoUnit> {
        // A simple workload has one direction: there is nothing to steer.
        match self.simple {
            true => self.next_simple(),
            false => self.next_as::<false>(steer),
        }
    }

    /// [`Workload::next`] of a simple workload, in a straight line for an
    /// I/O inside a pass: the I/O the general steps give, and the state
    /// they leave. At a pass's start or end, where an offset could fall
    /// outside the extent (random offsets aligned other than to the block
    /// size, a full random map, the sequential end) it takes the general
    /// steps.
    #[inline(always)]
    fn next_simple(&mut self) -> Option<IoUnit> {
        let in_pass = !self.finished
            && (self.time_based
                || (self.issued < self.limit && self.pass_issued < self.pass_limit));
        if !in_pass || !self.service.keeps_only(0) {
            return self.next_as::<true>(|d| d);
        }
        let d = self.only_dir as usize;
        let bs = self.rngs.bs[d].min();
        let file = &mut self.files[0];
        let rel = if self.random {
            // Below `lastb` blocks of the block size, a block and its
            // bytes lie in the extent (see `last_block`); a map that is
            // not full has a free one there.
            let lastb = file.lastb[d];
            let full = file.map.as_ref().is_some_and(RandomMap::is_full);
            if lastb == 0 || full || self.ba[d] != bs {
                return self.next_as::<true>(|d| d);
            }
            let b = self.rngs.offset.below(lastb);
            let b = match &mut file.map {
                Some(map) => {
                    let b = match map.is_set(b) {
                        // Never None: the map is not full.
                        true => map.next_free(b).unwrap_or(b),
                        false => b,
                    };
                    map.set_nr(b, 1);
                    b
                }
                None => b,
            };
            b * bs
        } else {
            // Up to the extent's end, a block that the file holds whole.
            let pos = file.last_pos[d];
            if pos >= file.end() || pos + bs > file.real {
                return self.next_as::<true>(|d| d);
            }
            pos - file.start
        };
        let offset = file.start + rel;
        file.last_pos[d] = offset + bs;
        file.last_start[d] = Some(offset);
        file.fresh = false;
        self.issued += bs;
        self.pass_issued += bs;
        Some(IoUnit {
            dir: self.only_dir,
            file: 0,
            offset,
            len: bs as u32,
        })
    }

    /// [`Workload::next_steered`]; `SIMPLE` when [`Workload::simple`], to
    /// leave out the steps of the options a simple workload has not set.
    #[inline]
    fn next_as<const SIMPLE: bool>(
        &mut self,
        mut steer: impl FnMut(DataDir) -> DataDir,
    ) -> Option<IoUnit> {
        if let (false, Some(r)) = (SIMPLE, &mut self.replay) {
            return r.next_io();
        }
        // A trimmed block is written whatever the limits say since.
        if let (false, Some(write)) = (SIMPLE, self.pending_write.take()) {
            return match self.zbd.is_some() {
                true => self.zoned_pair_write(write),
                false => Some(write),
            };
        }
        loop {
            if self.finished {
                return None;
            }
            // A pass ends when no file has room left, when the job's bytes
            // are issued, or (for an engine that queues, see
            // `engine_queues`) when the pass's are: fio's sync engines
            // (psync, sync, pvsync2, null at depth 1) never add to that
            // count, so there a pass of a mixed or mapless random job runs
            // on past `size` (checked against fio 3.33's logs for psync,
            // null, io_uring and libaio).
            let spent = !self.time_based
                && (self.issued >= self.limit || self.pass_issued >= self.pass_limit);
            if !spent {
                if let Some(io) = self.next_io::<SIMPLE>(&mut steer) {
                    if let (false, Some(tw)) = (SIMPLE, self.trimwrite) {
                        return Some(self.trim_or_write(tw, io));
                    }
                    self.issued += u64::from(io.len);
                    self.pass_issued += u64::from(io.len);
                    if let (false, Some(m)) = (SIMPLE, &mut self.rngs.mix) {
                        m.issued(io.dir);
                    }
                    return Some(io);
                }
            }
            if self.loop_break == LoopBreak::Armed && !self.time_based && self.another_pass(None) {
                // Finished until resumed: the one test each call makes.
                self.loop_break = LoopBreak::Paused;
                self.finished = true;
                return None;
            }
            if !self.start_pass(None) {
                self.finished = true;
            }
        }
    }

    /// A trimwrite's I/O: the trims are counted apart from the writes, and
    /// a randtrimwrite's trim is followed by a write of its block.
    #[cold]
    fn trim_or_write(&mut self, tw: TrimWrite, io: IoUnit) -> IoUnit {
        let len = u64::from(io.len);
        if io.dir == DataDir::Trim {
            self.trimmed += len;
            if tw == TrimWrite::Pairs {
                self.pending_write = Some(IoUnit {
                    dir: DataDir::Write,
                    ..io
                });
                // The pair's write is counted now: once the trim is out,
                // the write follows whatever the limits say.
                self.issued += len;
                self.pass_issued += len;
            }
        } else {
            self.issued += len;
            self.pass_issued += len;
        }
        io
    }

    /// randtrimwrite's write with zonemode=zbd: fio takes it through
    /// zbd_adjust_block and zbd_queue_io as any write, so it moves the
    /// zone's write pointer (and a later random trim may find the zone
    /// again). None ends the pass, as fio's io_u_eof.
    #[cold]
    fn zoned_pair_write(&mut self, io: IoUnit) -> Option<IoUnit> {
        let mut zbd = self.zbd.take()?;
        let f = io.file as usize;
        let extent = self.files[f].extent();
        let mut held = zbd.hold(f);
        let write = held
            .adjust(DataDir::Write, &extent, io.offset, u64::from(io.len))
            .map(|(offset, len)| {
                held.issued(DataDir::Write, offset, len);
                IoUnit {
                    offset,
                    len: len as u32,
                    ..io
                }
            });
        drop(held);
        self.zbd = Some(zbd);
        if write.is_none() {
            self.files.iter_mut().for_each(|f| f.done = true);
        }
        write
    }

    /// The engine queues its I/Os (fio's FIO_Q_QUEUED), which changes two
    /// things in fio:
    ///
    /// - Each pass ends once it has issued the job's `size` (for mapless
    ///   random writes, `io_size` if larger): `do_io` counts the bytes of
    ///   the I/Os its engine queued, and none of a synchronous engine's,
    ///   whose passes end only where the files have no room left. A mixed
    ///   or mapless random job therefore makes passes of `size` on
    ///   io_uring and one long pass on psync, with the random offsets
    ///   starting over at each pass. Not for a time-based job, whose
    ///   passes are the files' wrap-arounds.
    /// - With `zonemode=zbd`, a zone a write fills closes as that write
    ///   completes ([`Workload::zone_writes_done`]), not as it is issued;
    ///   a write that finds the open zones at their limit waits for the
    ///   writes in flight ([`Workload::take_zone_commands`] asks for that).
    pub fn engine_queues(&mut self) {
        self.pass_limit = self.pass_bytes;
        if let Some(z) = &mut self.zbd {
            z.close_at_completion();
        }
    }

    /// Whether the runner is to hand the workload its completed writes
    /// ([`Workload::zone_writes_done`]).
    pub fn wants_zone_writes(&self) -> bool {
        self.zbd.as_ref().is_some_and(Zbd::wants_writes)
    }

    /// Whether a failed write comes back with the bytes it carried
    /// (`recover_zbd_write_error` writes them).
    pub fn wants_failed_zone_write_bytes(&self) -> bool {
        self.zbd.as_ref().is_some_and(Zbd::wants_failed_bytes)
    }

    /// Writes that completed, failed or not, in completion order
    /// (emptied): `zonemode=zbd` closes the zones they filled (fio's
    /// `zbd_put_io`), and undoes or recovers the failed ones.
    pub fn zone_writes_done(&mut self, done: &mut Vec<crate::zones::ZoneWrite>) {
        if let Some(z) = &mut self.zbd {
            z.writes_done(done);
        }
        done.clear();
    }

    /// Failed writes whose zone's write pointer recover_zbd_write_error
    /// could not move: the file (the worker's index) and why.
    pub fn zone_writes_unrecovered(&self) -> &[(u32, String)] {
        self.zbd.as_ref().map_or(&[], Zbd::unrecovered)
    }

    /// Stop at the end of each pass that may be followed by another (a
    /// loop of `loops`, or a pass towards `io_size`; not the wrap-around
    /// of a time-based job) until [`Workload::resume_loop`]: fio's
    /// `thread_main` runs `do_io` once per pass, which waits for the
    /// pass's I/O in flight and syncs its files (`end_fsync`), then
    /// `do_verify`, which checks what the pass wrote; a zoned file's zones
    /// must not be reset for the next pass before that, and a sync due at
    /// the next pass's start takes that pass's first file.
    /// `verify_phase`: a verify phase comes between passes.
    pub fn break_between_loops(&mut self, verify_phase: bool) {
        self.loop_break = LoopBreak::Armed;
        self.verify_between = verify_phase;
    }

    /// How many passes have begun after the first (loops, or passes
    /// towards `io_size`; a time-based job's wrap-arounds are none): fio
    /// closes and opens the files again at each, and starts its sync
    /// bookkeeping over.
    pub fn loops_begun(&self) -> u32 {
        self.loops_begun
    }

    /// Whether the job has I/O left to issue, in this pass or a later one
    /// (fio's do_io loop condition: a time-based job, or bytes issued
    /// short of the job's total), without drawing it.
    pub fn io_left(&self) -> bool {
        !self.finished && (self.time_based || self.issued < self.limit)
    }

    /// Whether the workload is stopped at the end of a pass, with another
    /// to come unless what verify read back makes up `io_size`.
    pub fn paused_at_loop(&self) -> bool {
        self.loop_break == LoopBreak::Paused
    }

    /// Starts the next pass after a break: whether the workload was
    /// stopped at one and another pass follows. `moved` is what the job
    /// has moved in all directions so far, verify's reads among them,
    /// which fio's `keep_running` weighs against `io_size` (its
    /// `io_bytes`); None counts what the workload issued.
    pub fn resume_loop(&mut self, moved: Option<u64>) -> bool {
        if self.loop_break != LoopBreak::Paused {
            return false;
        }
        self.loop_break = LoopBreak::Armed;
        self.finished = !self.start_pass(moved);
        !self.finished
    }

    /// Whether another pass over the files follows the one that just
    /// ended (fio's `keep_running`), `moved` as in
    /// [`Workload::resume_loop`].
    fn another_pass(&self, moved: Option<u64>) -> bool {
        if self.pass_issued == 0 || self.sprandom_over {
            // Nothing fits at all: another pass would issue nothing either.
            return false;
        }
        if self.time_based || self.loops_left > 0 {
            return true;
        }
        // fio counts a trimwrite's writes against io_size within a pass,
        // but adds trims and writes together when it asks whether io_size
        // calls for another pass (fio 3.33: size=64k io_size=96k trims and
        // writes 64k each, io_size=160k 128k each).
        // After a verify phase, whose clear_io_state has fio find no file
        // done, a pass that wrote less than `size` (the holes of
        // `rw=write:8k`) has another, until the writes and the reads
        // together make `size`.
        let done = moved.unwrap_or(self.issued + self.trimmed);
        let all_done = || !self.verify_between && self.files.iter().all(|f| f.done);
        done < self.io_size
            && (self.io_size_set || !all_done())
            && self.io_size - done >= self.max_bs
    }

    /// Sets up the next pass if [`Workload::another_pass`] says one
    /// follows, and says so.
    fn start_pass(&mut self, moved: Option<u64>) -> bool {
        let more = self.another_pass(moved);
        if more && !self.time_based {
            self.loops_left = self.loops_left.saturating_sub(1);
            self.loops_begun += 1;
        }
        if more {
            let stay_done = self.keeps_done && self.files.iter().all(|f| f.done);
            for f in &mut self.files {
                f.start = f.origin;
                f.reset();
                f.done = f.appends || stay_done;
            }
            self.service.restart(self.randrepeat);
            if let Some(z) = &mut self.strided {
                z.restart();
            }
            if let Some(z) = &mut self.zbd {
                z.restart();
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
            if self.drops_at_pass {
                Self::drop_cache(&mut self.events, CacheDrop::All);
            }
            if self.unlinks_at_pass {
                self.events.get_or_insert_with(FileEvents::default).unlink = true;
            }
        }
        more
    }

    /// The next I/O of this pass, in the file the service chooses (fio's
    /// `set_io_u_file`); None when every file is done.
    #[inline]
    fn next_io<const SIMPLE: bool>(
        &mut self,
        steer: &mut impl FnMut(DataDir) -> DataDir,
    ) -> Option<IoUnit> {
        loop {
            let files = &self.files;
            let f = self.service.next(|f| files[f].done)?;
            let dir = match &mut self.rngs.mix {
                Some(m) if !SIMPLE => m.steer(steer),
                // fio's set_rw_ddir for trimwrite: a trim when the last
                // write began where the last trim did (at the start, and
                // after each write of a trimmed block of the same size),
                // a write otherwise. Each direction has its own block
                // size and sequential position, so with a trim block
                // larger than the write's the trims run ahead.
                _ if !SIMPLE && self.trimwrite == Some(TrimWrite::Cursors) => {
                    let last = &self.files[f].last_start;
                    if last[DataDir::Write as usize] == last[DataDir::Trim as usize] {
                        DataDir::Trim
                    } else {
                        DataDir::Write
                    }
                }
                _ => self.only_dir,
            };
            let io = match SIMPLE {
                true => self.fill_held::<true>(f, dir, None),
                false => self.fill(f, dir),
            };
            match io {
                Some(io) => {
                    self.files[f].fresh = false;
                    return Some(io);
                }
                // fio's non-uniform file service closes a file run out and
                // resets it; it may be chosen again.
                None if self.service.nonuniform() && !self.files[f].fresh => {
                    self.files[f].reset();
                    self.service.close(f);
                    self.note_closed(f);
                }
                None => {
                    self.files[f].done = true;
                    self.service.done(f);
                    self.note_closed(f);
                }
            }
        }
    }

    #[cold]
    fn note_closed(&mut self, f: usize) {
        if let Some(c) = &mut self.closed {
            c.push(f as u32);
        }
    }

    /// fio's `fill_io_u` for file `f`: offset, then length; None when
    /// nothing more fits in this file.
    #[inline]
    fn fill(&mut self, f: usize, dir: DataDir) -> Option<IoUnit> {
        if self.zbd.is_some() {
            if let Some(mut z) = self.zbd.take() {
                // The file's zones stay locked for the whole choice, as
                // other workers may share them.
                let io = self.fill_held::<false>(f, dir, Some(&mut z.hold(f)));
                self.zbd = Some(z);
                return io;
            }
        }
        self.fill_held::<false>(f, dir, None)
    }

    /// [`Workload::fill`] with file `f`'s zones `held` (zonemode=zbd).
    /// Inlined into both of its callers, so that the common one (no zones)
    /// drops the zone steps and pays no call.
    #[inline(always)]
    fn fill_held<const SIMPLE: bool>(
        &mut self,
        f: usize,
        dir: DataDir,
        mut held: Option<&mut Held>,
    ) -> Option<IoUnit> {
        let dir = match &mut held {
            Some(z) if !SIMPLE => {
                let dir = z.direction(dir);
                let file = &mut self.files[f];
                let d = dir as usize;
                z.before(
                    dir,
                    ZoneView {
                        start: &mut file.start,
                        last_pos: &mut file.last_pos[d],
                        origin: file.origin,
                        real: file.real,
                    },
                );
                dir
            }
            _ => dir,
        };
        let d = dir as usize;
        if let (false, Some(z)) = (SIMPLE, &mut self.strided) {
            let file = &mut self.files[f];
            let view = ZoneView {
                start: &mut file.start,
                last_pos: &mut file.last_pos[d],
                origin: file.origin,
                real: file.real,
            };
            if z.before(view) {
                file.reset();
            }
        }
        let min_bs = self.rngs.bs[d].min();
        let ba = self.ba[d];
        // `marks`: a random I/O, which marks the map; sequential I/Os of
        // a random job do not (fio's IO_U_F_BUSY_OK).
        let (rel, marks) = if SIMPLE && self.random {
            // Every I/O is random (rw's `:N` is 1, and no percentage_random).
            (self.rand_block::<true>(f, d)? * ba, true)
        } else if self.random {
            self.seq_nr_left -= 1;
            if self.seq_nr_left == 0 {
                self.seq_nr_left = self.seq_nr;
                let random = self.seq_rand.as_mut().is_none_or(|m| m.random(d));
                if random {
                    (self.rand_block::<false>(f, d)? * ba, true)
                } else {
                    self.seq_or_rand(f, d)?
                }
            } else if self.identical {
                let file = &self.files[f];
                (file.last_start[d].map_or(0, |s| s - file.start), false)
            } else {
                self.seq_or_rand(f, d)?
            }
        } else {
            (self.seq_offset(f, d)?, false)
        };
        // bs_is_seq_rand: the write size for random I/Os, the read size
        // for sequential ones.
        let sizer = match self.bs_is_seq_rand {
            true if marks && !SIMPLE => 1,
            true if !SIMPLE => 0,
            _ => d,
        };
        let file = &self.files[f];
        if rel >= file.len || file.start + rel >= file.real {
            return None;
        }
        let mut offset = file.start + rel;
        let mut len = match SIMPLE {
            // One size, which draws nothing (see `BlockSizer::next`).
            true => self.rngs.bs[d].min(),
            false => self.rngs.bs[sizer].next(file.end().saturating_sub(offset)),
        };
        if len == 0 {
            return None;
        }
        if let (false, Some(z)) = (SIMPLE, &mut held) {
            let Some((o, l)) = z.adjust(dir, &file.extent(), offset, len) else {
                // fio's io_u_eof: the pass ends for every file.
                self.files.iter_mut().for_each(|f| f.done = true);
                return None;
            };
            (offset, len) = (o, l);
        }
        let file = &mut self.files[f];
        if offset + len > file.real {
            return None;
        }
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
        file.last_start[d] = Some(offset);
        if let (false, Some(z)) = (SIMPLE, &mut self.strided) {
            z.issued(len);
        }
        if let (false, Some(z)) = (SIMPLE, held) {
            z.issued(dir, offset, len);
        }
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
        if self.time_based && single && !file.appends && file.last_pos[d] >= file.end() {
            file.last_pos[d] = file.start;
            if self.drops_in_pass {
                Self::drop_cache(&mut self.events, CacheDrop::File(f as u32));
            }
        }
        if file.last_pos[d] >= file.real {
            return None;
        }
        // Backwards I/O in a region that does not start the file begins at
        // the region's end (fio: "only rewind if we already hit the end").
        if file.last_pos[d] == file.start && file.start != 0 && self.seq_add < 0 {
            file.last_pos[d] = file.len.min(file.real);
        }
        let mut pos = file.last_pos[d].wrapping_sub(file.start);
        if pos != 0 && self.seq_add != 0 {
            pos = pos.wrapping_add(self.seq_add as u64);
            // fio compares this relative position with the file's size:
            // past it (or below 0, which wraps high), holes restart at the
            // extent's start taken as a relative position, backwards I/O
            // at the end.
            if pos >= file.real {
                pos = if self.seq_add > 0 {
                    file.start
                } else {
                    file.len.min(file.real).wrapping_add(self.seq_add as u64)
                };
            }
        }
        Some(pos)
    }

    /// A sequential offset for a random job, or a random one where none
    /// is left (fio's rw_sequencer=sequential); neither marks the map.
    #[inline]
    fn seq_or_rand(&mut self, f: usize, d: usize) -> Option<(u64, bool)> {
        match self.seq_offset(f, d) {
            Some(rel) => Some((rel, false)),
            None => Some((self.rand_block::<false>(f, d)? * self.ba[d], false)),
        }
    }

    /// fio's `get_next_rand_block`: a block number in units of the
    /// direction's minimum block size. Time-based jobs start the file's map
    /// over when it is full.
    #[inline]
    fn rand_block<const SIMPLE: bool>(&mut self, f: usize, d: usize) -> Option<u64> {
        if let Some(b) = self.rand_offset::<SIMPLE>(f, d) {
            return Some(b);
        }
        if (self.time_based || self.service.nonuniform()) && !self.sprandom_over {
            self.files[f].reset();
            if self.drops_in_pass {
                Self::drop_cache(&mut self.events, CacheDrop::File(f as u32));
            }
            return self.rand_offset::<SIMPLE>(f, d);
        }
        None
    }

    #[inline]
    fn rand_offset<const SIMPLE: bool>(&mut self, f: usize, d: usize) -> Option<u64> {
        // sprandom chooses every write, whatever the distribution.
        if let (false, Some(s), true) = (SIMPLE, &mut self.sprandom, d == DataDir::Write as usize) {
            let b = self.files[f].lfsr.as_mut().and_then(|l| s.next(l));
            self.sprandom_over = b.is_none();
            return b;
        }
        let file = &mut self.files[f];
        if let (false, Some(dist)) = (SIMPLE, &mut file.dist) {
            return Some(dist.next());
        }
        let lastb = file.lastb[d];
        if lastb == 0 {
            return None;
        }
        if let (false, Some(z)) = (SIMPLE, &mut self.zoned) {
            if let Some((start, end)) = z.next_zone(d) {
                return self.zoned_offset(f, d, start, end);
            }
        }
        self.uniform_offset::<SIMPLE>(f, lastb)
    }

    /// fio's `__get_next_rand_offset_zoned` and `_zoned_abs`: a uniform
    /// block of the zone `start..end` (percent of the region, or bytes).
    fn zoned_offset(&mut self, f: usize, d: usize, start: u64, end: u64) -> Option<u64> {
        let lastb = self.files[f].lastb[d];
        let absolute = self.zoned.as_ref().is_some_and(|z| z.absolute);
        if absolute {
            let ba = self.ba[d];
            let (first, last) = (start / ba, end / ba);
            // fio: "zoned_abs sizes exceed file size", and no more I/O.
            if last > lastb {
                return None;
            }
            Some(self.uniform_offset::<false>(f, last - first)? + first)
        } else {
            let first = start * lastb / 100;
            Some(self.uniform_offset::<false>(f, lastb * (end - start) / 100)? + first)
        }
    }

    /// fio's `__get_next_rand_offset`: a uniform block below `lastb` (or
    /// the LFSR's next), moved to the next free one in the random map.
    #[inline]
    fn uniform_offset<const SIMPLE: bool>(&mut self, f: usize, lastb: u64) -> Option<u64> {
        let file = &mut self.files[f];
        let b = if !SIMPLE && self.lfsr {
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

/// fio's `last_block`: the random blocks of `ba` bytes a region of
/// `size` bytes holds, leaving room for a whole minimum-size block.
fn last_block(size: u64, min_bs: u64, ba: u64) -> u64 {
    let size = if min_bs > ba {
        size.saturating_sub(min_bs - ba)
    } else {
        size
    };
    size.checked_div(ba).unwrap_or(0)
}

#[cfg(test)]
mod tests;
