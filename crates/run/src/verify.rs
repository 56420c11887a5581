//! A worker's verify bookkeeping: which blocks it wrote (and as which
//! write), which checks are due, and what the checks found. The loop asks
//! it for the next check before it asks the workload for the next I/O, and
//! tells it about every completed write and check.
//!
//! With io_uring_cmd's `verify_mode=compare` the device makes the checks:
//! a check goes as an NVMe Compare of the block with what it must hold,
//! and the device's answer is the verdict.
//!
//! fio's order is kept: written blocks are checked after the write phase
//! (`do_verify`), or every `verify_backlog` writes; `trim_percentage` of
//! the written blocks are trimmed instead and must then read back zeroes
//! (`trim_verify_zero`), at verify time or every `trim_backlog` writes.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use ioscope_job::{JobSpec, RandomGenerator, VerifyMethod, VerifyMode};
use ioscope_workload::{
    check_zeroes, BlockId, Corruption, CorruptionKind, DataDir, Verifier, Workload,
};

/// At most this many bad blocks are described; the rest are counted.
const MESSAGES_KEPT: usize = 64;

/// What a slot's request is doing for verify.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum SlotWork {
    /// Nothing verify needs to know.
    #[default]
    Plain,
    /// A write of the workload, filled by the verifier.
    Write(BlockId),
    /// Reading a written block back to check it.
    Check(BlockId),
    /// A read of a read workload, checked against the headers it finds
    /// (the write number is unknown: seq is 0).
    ReadBack(BlockId),
    /// Trimming a written block (trim_percentage).
    Trim(BlockId),
    /// Reading a trimmed block back: it must be zeroes.
    ZeroCheck(BlockId),
    /// A [`SlotWork::Check`] the device makes (`verify_mode=compare`): the
    /// slot's buffer holds what the block must hold, sent with a Compare.
    Compared(BlockId),
    /// A [`SlotWork::ZeroCheck`] the device makes: compared with zeroes.
    ZeroCompared(BlockId),
}

impl SlotWork {
    /// The same check made by the device, for the checks it can make.
    pub(crate) fn in_device(self) -> Option<SlotWork> {
        match self {
            SlotWork::Check(b) => Some(SlotWork::Compared(b)),
            SlotWork::ZeroCheck(b) => Some(SlotWork::ZeroCompared(b)),
            _ => None,
        }
    }

    /// Whether the device made the check.
    pub(crate) fn compared(self) -> bool {
        matches!(self, SlotWork::Compared(_) | SlotWork::ZeroCompared(_))
    }
}

/// experimental_verify's verify phase: the workload replayed, `left` of
/// its writes still to check (as many as the write phase made), the next
/// one numbered `seq`.
struct Replay {
    workload: Workload,
    left: u64,
    seq: u64,
}

impl Replay {
    /// The next write of the replayed workload as a check, None once the
    /// writes the job made are all checked.
    fn next_check(&mut self) -> Option<SlotWork> {
        while self.left > 0 {
            let Some(unit) = self.workload.next() else {
                self.left = 0;
                break;
            };
            if unit.dir != DataDir::Write {
                continue;
            }
            let block = BlockId {
                file: unit.file,
                offset: unit.offset,
                len: unit.len,
                seq: self.seq,
            };
            self.seq += 1;
            self.left -= 1;
            return Some(SlotWork::Check(block));
        }
        None
    }
}

/// What the checks found, reported with the job.
#[derive(Clone, Debug, Default)]
pub(crate) struct VerifyOutcome {
    /// Blocks read back and checked (zero checks included).
    pub checked: u64,
    pub bad: u64,
    /// The first bad blocks, described.
    pub messages: Vec<String>,
    /// Why a job that was to check blocks checked none: a verify that
    /// checked nothing must not pass.
    pub nothing_checked: Option<String>,
}

/// The result of one check.
pub(crate) enum Verdict {
    Good,
    Bad(String),
}

pub(crate) struct VerifyLog {
    verifier: Verifier,
    /// Written and not yet checked (nor queued for a trim).
    written: Vec<BlockId>,
    /// Chosen for trimming and not yet trimmed.
    to_trim: Vec<BlockId>,
    /// Checks to issue before anything else.
    due: VecDeque<SlotWork>,
    /// experimental_verify: the workload again from its start, whose
    /// writes are the blocks to check, instead of a list of every write.
    replay: Option<Replay>,
    next_seq: u64,
    /// The number of the first write since the last verify phase.
    phase_seq: u64,
    /// verify_only: the workload's writes are recorded, not issued.
    pub only: bool,
    /// The workload only reads: each read is checked as it completes
    /// against the headers it finds (fio's verify of a read workload).
    pub reads_back: bool,
    /// `verify_mode=compare`: the checks of written and trimmed blocks go
    /// to the device as Compares (fio's IO_U_F_VER_LIST reads; a read
    /// workload's reads are still checked by the host, as in fio).
    pub compare: bool,
    /// The writes' files have a random map (fio's `file_randommap`: a
    /// random job without `norandommap` or the LFSR generator), so fio
    /// checks them in the order written; otherwise it checks them sorted
    /// by offset.
    in_write_order: bool,
    /// A time-based job: its random map starts over once every block is
    /// written, so the verify phase checks only each block's last write
    /// (fio, whose runtime covers its verify phase, checks none).
    time_based: bool,
    /// verify_state_load: the number of writes the interrupted run made.
    pub limit: Option<u64>,
    backlog: u64,
    backlog_batch: u64,
    /// Checks of the backlog batch under way still to issue.
    batch_left: u64,
    /// With `verify_backlog`: writes issued and not completed, which
    /// fio's list holds (and counts) from their issue.
    in_flight: Vec<BlockId>,
    /// The last read, write or trim to complete was a read (fio's
    /// `last_ddir`): no backlog batch starts right after one.
    pub last_read: bool,
    trim_percent: u32,
    trim_zero: bool,
    trim_backlog: u64,
    trim_batch: u64,
    /// Chooses the blocks to trim; seeded so a run repeats.
    trim_rand: u64,
    /// The verify phase began: everything written has been queued.
    pub phase_started: bool,
    pub do_verify: bool,
    /// `create_only`: the job lays its files out and does no I/O, so it
    /// has nothing to check (fio marks such a job done before its loop).
    create_only: bool,
    pub fatal: bool,
    dump_dir: Option<PathBuf>,
    state_path: PathBuf,
    state_save: bool,
    pub outcome: VerifyOutcome,
}

impl VerifyLog {
    /// The verify state of worker `number` (fio's thread_number less 1:
    /// the worker's place in the run, from 0), or None when the job does
    /// not verify. `writes`: whether the job writes
    /// (a replayed log's writes, whatever `rw` says); one that does not
    /// checks what it reads. `saved`: the state `verify_state_load`
    /// loaded ([`saved_state`]). `replay` makes the workload anew from its
    /// start, for experimental_verify.
    pub(crate) fn new(
        spec: &JobSpec,
        number: u32,
        writes: bool,
        aux_path: Option<&Path>,
        saved: Option<SavedState>,
        replay: impl FnOnce() -> Result<Workload, String>,
    ) -> Result<Option<Self>, String> {
        let v = &spec.verify;
        if v.method == VerifyMethod::None {
            return Ok(None);
        }
        let verifier = Verifier::new(spec, number)?;
        let state_path = state_file(spec, number, aux_path);
        let limit = saved.map(|s| s.writes);
        let t = &spec.trim_verify;
        let replay = match v.experimental {
            true => Some(Replay {
                workload: replay()?,
                left: 0,
                seq: 1,
            }),
            false => None,
        };
        Ok(Some(VerifyLog {
            verifier,
            written: Vec::new(),
            to_trim: Vec::new(),
            due: VecDeque::new(),
            replay,
            next_seq: 1,
            phase_seq: 1,
            only: v.only,
            reads_back: !writes,
            compare: spec.engine_options.verify_mode == VerifyMode::Compare,
            time_based: spec.time_based,
            in_write_order: spec.rw.kind.is_random()
                && !spec.norandommap
                && spec.random_generator != RandomGenerator::Lfsr,
            limit,
            // fio lists the writes its backlog checks only for a verify
            // phase that reads them back (do_verify, and not
            // experimental_verify, which replays the workload instead).
            backlog: match (v.do_verify || v.only) && !v.experimental {
                true => v.backlog,
                false => 0,
            },
            backlog_batch: v.backlog_batch.max(1),
            batch_left: 0,
            in_flight: Vec::new(),
            last_read: false,
            trim_percent: t.percentage,
            trim_zero: t.verify_zero,
            trim_backlog: t.backlog,
            trim_batch: t.backlog_batch.max(1),
            trim_rand: spec.randseed.unwrap_or(0x89) ^ (u64::from(number) << 32) ^ 0x7472_696d,
            phase_started: false,
            do_verify: v.do_verify || v.only,
            create_only: spec.file_handling.create_only,
            fatal: v.fatal,
            // fio writes dumps in --aux-path when given.
            dump_dir: v.dump.then(|| {
                aux_path.map(Path::to_path_buf).unwrap_or_else(|| {
                    spec.directory
                        .as_ref()
                        .map_or_else(|| PathBuf::from("."), PathBuf::from)
                })
            }),
            state_path,
            state_save: v.state_save && !v.only && spec.rw.kind.writes(),
            outcome: VerifyOutcome::default(),
        }))
    }

    /// The next check to issue, if one is due.
    #[inline]
    pub(crate) fn next_due(&mut self) -> Option<SlotWork> {
        self.due
            .pop_front()
            .or_else(|| self.replay.as_mut().and_then(Replay::next_check))
    }

    /// Whether no check waits to be issued.
    #[inline]
    pub(crate) fn nothing_due(&self) -> bool {
        self.due.is_empty() && self.replay.as_ref().is_none_or(|r| r.left == 0)
    }

    /// Numbers a write of the workload, or None when verify_state_load
    /// says the interrupted run made no more writes.
    pub(crate) fn number_write(&mut self, file: u32, offset: u64, len: u32) -> Option<BlockId> {
        if self.limit.is_some_and(|l| self.next_seq > l) {
            return None;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let block = BlockId {
            file,
            offset,
            len,
            seq,
        };
        if self.backlog > 0 {
            // fio lists a write as it issues it, and its tree (without a
            // random map) drops an older overlapped one then, in flight
            // or not. (verify_only's writes, never issued, are listed
            // done at once.)
            if !self.in_write_order {
                self.written.retain(|b| !overlaps(b, &block));
                self.in_flight.retain(|b| !overlaps(b, &block));
            }
            if !self.only {
                self.in_flight.push(block);
            }
        }
        Some(block)
    }

    /// A write that failed, or moved fewer bytes than asked: fio takes it
    /// off its list.
    pub(crate) fn write_failed(&mut self, block: BlockId) {
        self.in_flight.retain(|b| b.seq != block.seq);
    }

    /// Fills a write's buffer with what the block must hold.
    #[inline]
    pub(crate) fn fill(&self, buf: &mut [u8], block: &BlockId) {
        self.verifier.fill(buf, block);
    }

    /// A write completed: the block is to be checked (or trimmed).
    pub(crate) fn written(&mut self, block: BlockId) {
        if self.backlog > 0 && !self.only {
            let Some(i) = self.in_flight.iter().position(|b| b.seq == block.seq) else {
                // A later write overlapped it while it was in flight.
                return;
            };
            self.in_flight.swap_remove(i);
        }
        if self.trim_percent > 0 && self.choose_trim() {
            self.to_trim.push(block);
            if self.trim_backlog > 0 && self.to_trim.len() as u64 >= self.trim_backlog {
                let n = (self.trim_batch as usize).min(self.to_trim.len());
                self.due.extend(self.to_trim.drain(..n).map(SlotWork::Trim));
            }
            return;
        }
        if self.replay.is_some() {
            // The verify phase replays the workload: no list to keep.
            return;
        }
        // fio lists a write as it is issued: where it checks in the order
        // written, a write that completed before an earlier one still
        // goes after it (completions at depth come in any order).
        let at = match self.in_write_order {
            true => {
                self.written.len()
                    - self
                        .written
                        .iter()
                        .rev()
                        .take_while(|b| b.seq > block.seq)
                        .count()
            }
            false => self.written.len(),
        };
        self.written.insert(at, block);
    }

    /// Whether [`VerifyLog::backlog_check`] may have a check to give:
    /// fio's list (written blocks and writes in flight) is not empty, and
    /// a batch is under way or one starts.
    #[inline]
    pub(crate) fn backlog_due(&self) -> bool {
        let listed = (self.written.len() + self.in_flight.len()) as u64;
        self.backlog > 0
            && listed > 0
            && (self.batch_left > 0 || listed.is_multiple_of(self.backlog) && !self.last_read)
    }

    /// fio's `check_get_verify`, on its way to the workload's next I/O:
    /// with `verify_backlog`, a batch of `verify_backlog_batch` checks
    /// starts whenever the writes waiting to be checked are a multiple of
    /// the backlog and the last I/O to complete was not a read; the
    /// check to issue first, if one is due. The blocks go in the order
    /// the verify phase takes them: as written, or by offset.
    pub(crate) fn backlog_check(&mut self) -> Option<SlotWork> {
        if !self.backlog_due() {
            return None;
        }
        if self.batch_left == 0 {
            self.batch_left = self.backlog_batch;
        }
        // fio takes the first block of its list, or none while that one
        // is in flight (the batch waits: the workload's I/O goes).
        let next = match self.in_write_order {
            true => (!self.written.is_empty()).then_some(0),
            false => (0..self.written.len())
                .min_by_key(|&i| (self.written[i].file, self.written[i].offset)),
        }?;
        let first = &self.written[next];
        let ahead = |b: &BlockId| match self.in_write_order {
            true => b.seq < first.seq,
            false => (b.file, b.offset) < (first.file, first.offset),
        };
        if self.in_flight.iter().any(ahead) {
            return None;
        }
        self.batch_left -= 1;
        let block = self.written.remove(next);
        let cut = self.in_write_order
            && self
                .written
                .iter()
                .chain(&self.in_flight)
                .any(|b| b.seq > block.seq && overlaps(b, &block));
        Some(in_list_order(block, cut))
    }

    fn choose_trim(&mut self) -> bool {
        // splitmix64: the choice only has to be even and repeatable.
        self.trim_rand = self.trim_rand.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.trim_rand;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        z % 100 < u64::from(self.trim_percent)
    }

    /// The write phase is over: every block written and not yet checked is
    /// queued, trims first: in the order written where the files have a
    /// random map, as fio keeps them in a list then; otherwise sorted by
    /// offset, once per block (the latest write of a block wins where
    /// writes overlapped, as fio's tree drops the older of two
    /// overlapping pieces).
    pub(crate) fn start_phase(&mut self) {
        self.phase_started = true;
        if !self.do_verify {
            self.written.clear();
            self.to_trim.clear();
            return;
        }
        self.due.extend(self.to_trim.drain(..).map(SlotWork::Trim));
        if let Some(replay) = &mut self.replay {
            // The writes of this loop, replayed.
            replay.left = self.next_seq - self.phase_seq;
            self.phase_seq = self.next_seq;
            return;
        }
        let blocks = std::mem::take(&mut self.written);
        if self.in_write_order {
            // In the order written, as fio's list holds them; a block that
            // a later write overlapped is checked against its own headers.
            // A time-based job checks each block's last write only.
            let mut last = std::collections::HashMap::new();
            if self.time_based {
                for (i, b) in blocks.iter().enumerate() {
                    last.insert((b.file, b.offset), i);
                }
            }
            let cut = cut_later(&blocks);
            let checks = blocks
                .into_iter()
                .zip(cut)
                .enumerate()
                .filter(|(i, (b, _))| last.get(&(b.file, b.offset)).is_none_or(|l| l == i))
                .map(|(_, (b, cut))| in_list_order(b, cut));
            self.due.extend(checks);
            return;
        }
        self.due
            .extend(not_overwritten(blocks).into_iter().map(SlotWork::Check));
    }

    /// The next loop writes after this one's verify phase (fio verifies
    /// once per loop), which has checked everything written so far.
    /// experimental_verify's replay goes on loop by loop too, where fio
    /// 3.33 is irregular (`loops=2` writes and checks one loop; `loops=4`
    /// writes, checks, then writes two loops unchecked).
    pub(crate) fn next_loop(&mut self) {
        self.phase_started = false;
    }

    /// A trim completed: the block must now read back zeroes.
    pub(crate) fn trimmed(&mut self, block: BlockId) {
        if self.trim_zero && self.do_verify {
            self.due.push_front(SlotWork::ZeroCheck(block));
        }
    }

    /// Checks a block read back whole (a short read is an I/O error).
    pub(crate) fn check(&mut self, work: SlotWork, buf: &[u8], path: &Path) -> Verdict {
        let found = examine(&self.verifier, work, buf);
        self.record(work, buf, path, found)
    }

    /// The verifier, for checks made on other threads (verify_async).
    pub(crate) fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// Counts a check's outcome and, for a bad block, describes it (and
    /// dumps it when asked). `buf` holds the block as read.
    pub(crate) fn record(
        &mut self,
        work: SlotWork,
        buf: &[u8],
        path: &Path,
        found: Result<(), Corruption>,
    ) -> Verdict {
        let Some((block, zero)) = checked_block(work) else {
            return Verdict::Good;
        };
        self.outcome.checked += 1;
        let Err(what) = found else {
            return Verdict::Good;
        };
        let mut message = describe_bad(work, &block, path, &what);
        if let Some(dir) = &self.dump_dir {
            let len = block.len as usize;
            message.push_str(&self.dump(dir, path, &block, &buf[..len], zero));
        }
        self.bad(message)
    }

    /// Counts a check the device made (a Compare): `status` is the
    /// device's answer where the block differs, None where it matched.
    pub(crate) fn compared(
        &mut self,
        work: SlotWork,
        path: &Path,
        status: Option<&str>,
    ) -> Verdict {
        let Some((block, zero)) = checked_block(work) else {
            return Verdict::Good;
        };
        self.outcome.checked += 1;
        let Some(status) = status else {
            return Verdict::Good;
        };
        let (kind, expected) = match zero {
            true => (CorruptionKind::NotZeroed, "zeroes"),
            false => (CorruptionKind::PatternMismatch, "verify_pattern"),
        };
        let what = Corruption {
            kind,
            offset: block.offset,
            detail: format!(
                "the device's Compare (verify_mode=compare) found the block differs from \
                 {expected}: {status}; it does not say where (verify_mode=read does)"
            ),
        };
        let mut message = describe_bad(work, &block, path, &what);
        if self.dump_dir.is_some() {
            message.push_str("; not dumped: the device compared the block and read nothing back");
        }
        self.bad(message)
    }

    /// Counts a bad block and keeps its description.
    fn bad(&mut self, message: String) -> Verdict {
        self.outcome.bad += 1;
        if self.outcome.messages.len() < MESSAGES_KEPT {
            self.outcome.messages.push(message.clone());
        }
        Verdict::Bad(message)
    }

    /// verify_dump: the block as read and as expected, side by side in
    /// files named as fio names them. Returns what to add to the message.
    fn dump(&self, dir: &Path, path: &Path, block: &BlockId, got: &[u8], zero: bool) -> String {
        let base = path
            .file_name()
            .map_or_else(|| "block".into(), |n| n.to_string_lossy().into_owned());
        let name = |what: &str| dir.join(format!("{base}.{}.{what}", block.offset));
        let mut expected = vec![0u8; got.len()];
        if !zero {
            self.verifier.expected(block, &mut expected);
        }
        let received = name("received");
        let wanted = name("expected");
        let written =
            std::fs::write(&received, got).and_then(|()| std::fs::write(&wanted, &expected));
        match written {
            Ok(()) => format!(
                "; dumped to {} and {}",
                received.display(),
                wanted.display()
            ),
            Err(e) => format!("; could not dump the block to {}: {e}", dir.display()),
        }
    }

    /// The outcome, once the loop has ended (`stopped` early or not).
    pub(crate) fn finish(mut self, stopped: bool) -> VerifyOutcome {
        let must_check = (self.reads_back || self.do_verify) && !self.create_only;
        if must_check && self.outcome.checked == 0 {
            let writes = self.next_seq - 1;
            let why = if stopped {
                "the run was stopped before any block was checked".to_string()
            } else if self.reads_back {
                "the job read nothing (size or io_size is 0, or the file is empty)".to_string()
            } else if self.only && writes == 0 {
                "verify_only replays the job's writes, and it makes none (size or io_size is 0, or verify_state_load says the earlier run wrote nothing)".to_string()
            } else if writes == 0 {
                "the job wrote nothing to read back (size or io_size is 0, its offset leaves it no room, or its reads took every I/O)".to_string()
            } else if self.trim_percent > 0 && !self.trim_zero {
                format!(
                    "every block written was trimmed (trim_percentage={}) and trim_verify_zero=0 checks no trimmed block",
                    self.trim_percent
                )
            } else {
                format!("the job made {writes} writes and none was read back")
            };
            self.outcome.nothing_checked = Some(why);
        }
        self.outcome
    }

    /// At the end of the write phase, or when the run was stopped while
    /// writing: saves how many writes the job made (as fio does after each
    /// write phase), so that a later `verify_only=1 verify_state_load=1`
    /// checks no more, even if this run's own verify phase is cut short.
    pub(crate) fn save_state(&self, job: &str) -> Result<(), String> {
        if !self.state_save {
            return Ok(());
        }
        let writes = self.next_seq - 1;
        let text = format!("ioscope verify state 1\njob={job}\nwrites={writes}\n");
        std::fs::File::create(&self.state_path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| {
                format!(
                    "cannot save verify state to {}: {e}",
                    self.state_path.display()
                )
            })
    }
}

/// The blocks no later write overlapped, sorted by file and offset: what
/// fio's tree of writes keeps, as each write it lists drops every older
/// piece it overlaps, wholly or in part (so a block a later write cut into
/// is not checked at all, and the later write is, unless a still later one
/// cut into it).
fn not_overwritten(blocks: Vec<BlockId>) -> Vec<BlockId> {
    let cut = cut_later(&blocks);
    let mut kept: Vec<BlockId> = blocks
        .into_iter()
        .zip(cut)
        .filter_map(|(b, cut)| (!cut).then_some(b))
        .collect();
    kept.sort_unstable_by_key(|b| (b.file, b.offset));
    kept
}

/// For each block, whether a later write (a higher seq) overlapped it,
/// wholly or in part.
fn cut_later(blocks: &[BlockId]) -> Vec<bool> {
    // Newest first, with the bytes written after each: disjoint ranges
    // (file, start) -> end, merged where they touch.
    let mut newest_first: Vec<usize> = (0..blocks.len()).collect();
    newest_first.sort_unstable_by_key(|&i| std::cmp::Reverse(blocks[i].seq));
    let mut later: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut cut = vec![false; blocks.len()];
    for i in newest_first {
        let b = &blocks[i];
        let (file, start, end) = (b.file, b.offset, b.offset + u64::from(b.len));
        // Of the disjoint ranges that start before this block ends, the
        // last ends furthest: it alone can reach into the block.
        cut[i] = later
            .range((file, 0)..(file, end))
            .next_back()
            .is_some_and(|(_, &e)| e > start);
        let (mut lo, mut hi) = (start, end);
        if let Some((&(f, s), &e)) = later.range(..(file, start)).next_back() {
            if f == file && e >= start {
                lo = s;
                hi = hi.max(e);
            }
        }
        let merged: Vec<(u32, u64)> = later
            .range((file, lo)..=(file, hi))
            .map(|(&k, &e)| {
                hi = hi.max(e);
                k
            })
            .collect();
        for k in merged {
            later.remove(&k);
        }
        later.insert((file, lo), hi);
    }
    cut
}

/// The check of a block taken from fio's list of writes (where the files
/// have a random map): a block a later write overlapped (sequential
/// offsets of `percentage_random` or `rw=randwrite:N` crossing random
/// ones, blocks of several sizes) holds that write's data there, so each
/// of its intervals is checked against its own header, as fio does for
/// such a list (the seed from the header, no write number); otherwise as
/// the write it is.
fn in_list_order(block: BlockId, cut: bool) -> SlotWork {
    match cut {
        true => SlotWork::ReadBack(block),
        false => SlotWork::Check(block),
    }
}

/// Two blocks of one file share a byte.
fn overlaps(a: &BlockId, b: &BlockId) -> bool {
    a.file == b.file
        && a.offset < b.offset + u64::from(b.len)
        && b.offset < a.offset + u64::from(a.len)
}

/// What a failure says: the block, the write that should be there, what
/// was found instead.
fn describe_bad(work: SlotWork, block: &BlockId, path: &Path, what: &Corruption) -> String {
    let which = match work {
        SlotWork::ReadBack(_) => String::new(),
        _ => format!(" (write #{})", block.seq),
    };
    format!(
        "verify failed on {} at offset {}, length {}{which}: {what}",
        path.display(),
        block.offset,
        block.len,
    )
}

/// The block a check reads, and whether it must read back zeroes; None
/// for work that checks nothing.
fn checked_block(work: SlotWork) -> Option<(BlockId, bool)> {
    match work {
        SlotWork::Check(b) | SlotWork::ReadBack(b) | SlotWork::Compared(b) => Some((b, false)),
        SlotWork::ZeroCheck(b) | SlotWork::ZeroCompared(b) => Some((b, true)),
        SlotWork::Plain | SlotWork::Write(_) | SlotWork::Trim(_) => None,
    }
}

/// The check itself, on whichever thread makes it: Ok, or what the block
/// holds instead. `buf` starts with the block as read.
pub(crate) fn examine(verifier: &Verifier, work: SlotWork, buf: &[u8]) -> Result<(), Corruption> {
    let Some((block, zero)) = checked_block(work) else {
        return Ok(());
    };
    let buf = &buf[..block.len as usize];
    if verifier.method() == VerifyMethod::Null {
        // verify=null pretends: it measures the cost of the reads.
        return Ok(());
    }
    if zero {
        check_zeroes(buf, block.offset)
    } else if matches!(work, SlotWork::ReadBack(_)) {
        verifier.check_read(buf, block.file, block.offset)
    } else {
        verifier.check(buf, &block)
    }
}

/// fio's name for the state file of worker `number` (its place in the
/// run, from 0: fio's thread_number less 1, not the clone's number within
/// its job): in `--aux-path` or the current directory,
/// `local-<job>-<number>-verify.state`.
fn state_file(spec: &JobSpec, number: u32, aux_path: Option<&Path>) -> PathBuf {
    let name = format!("local-{}-{number}-verify.state", spec.name);
    aux_path.map_or_else(|| PathBuf::from(&name), |dir| dir.join(&name))
}

/// What a verify state file records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SavedState {
    /// The writes the job issued, which a verify_only run replays.
    pub writes: u64,
    /// Written by a fio that draws random offsets as 3.35 and later do.
    pub fio_335_seeds: bool,
}

/// The state worker `number` of `spec` loads (`verify_state_load`), None
/// where it loads none. Read before the workload is made, whose offsets
/// follow the fio that saved it.
pub(crate) fn saved_state(
    spec: &JobSpec,
    number: u32,
    aux_path: Option<&Path>,
) -> Result<Option<SavedState>, String> {
    let v = &spec.verify;
    if v.method == VerifyMethod::None || !v.state_load {
        return Ok(None);
    }
    load_state(&state_file(spec, number, aux_path)).map(Some)
}

fn load_state(path: &Path) -> Result<SavedState, String> {
    let bytes = std::fs::read(path).map_err(|e| {
        format!(
            "verify_state_load: cannot read {} ({e}); it is written when a verify job is stopped while writing",
            path.display()
        )
    })?;
    let Some(text) = bytes
        .strip_prefix(b"ioscope verify state 1\n")
        .and_then(|rest| std::str::from_utf8(rest).ok())
    else {
        // Not ioscope's: the state a fio write job saved.
        return crate::fio_verify_state::read(&bytes, path);
    };
    let writes = text
        .lines()
        .find_map(|l| l.strip_prefix("writes="))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("{} has no writes= line", path.display()))?;
    Ok(SavedState {
        writes,
        fio_335_seeds: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run that failed good data: write #17 cut into the end of #4, and
    /// #22, newer still, cut into #17 but not into #4. fio checks neither
    /// #4 nor #17.
    #[test]
    fn only_blocks_no_later_write_cut_into_are_checked() {
        let b = |seq, offset, len: u32, file| BlockId {
            file,
            offset,
            len,
            seq,
        };
        let writes = vec![
            b(4, 122_880, 8192, 0),
            b(7, 98_304, 16384, 0),
            b(17, 114_688, 12288, 0),
            b(19, 94_208, 16384, 0),
            b(22, 110_592, 12288, 0),
            // Another file's block at the same offsets is its own.
            b(5, 122_880, 8192, 1),
            // Touching, not overlapping: both kept.
            b(30, 200_704, 4096, 0),
            b(31, 204_800, 4096, 0),
            // Wholly inside a later write, and the same offset again.
            b(32, 300_000, 1000, 0),
            b(33, 299_000, 4096, 0),
            b(34, 299_000, 4096, 0),
        ];
        let kept: Vec<u64> = not_overwritten(writes).iter().map(|b| b.seq).collect();
        assert_eq!(kept, [19, 22, 30, 31, 34, 5]);
    }

    fn log(options: &[&str]) -> VerifyLog {
        let cli = ["--name=j", "--size=1m", "--bs=4k", "--verify=crc32c"]
            .iter()
            .chain(options)
            .map(|o| o.to_string())
            .collect();
        let input = ioscope_job::ParseInput {
            cli_options: cli,
            ..Default::default()
        };
        let spec = ioscope_job::parse(&input).unwrap().jobs.remove(0);
        VerifyLog::new(&spec, 0, spec.rw.kind.writes(), None, None, || {
            Err("no replay".into())
        })
        .unwrap()
        .unwrap()
    }

    fn checked_offsets(v: &mut VerifyLog) -> Vec<u64> {
        v.start_phase();
        std::iter::from_fn(|| v.next_due())
            .map(|w| checked_block(w).unwrap().0.offset)
            .collect()
    }

    #[test]
    fn a_random_map_checks_in_issue_order_whatever_the_completion_order() {
        let mut v = log(&["--rw=randwrite"]);
        let blocks: Vec<BlockId> = [8192, 0, 4096, 12288]
            .iter()
            .map(|&o| v.number_write(0, o, 4096).unwrap())
            .collect();
        for i in [1, 0, 3, 2] {
            v.written(blocks[i]);
        }
        assert_eq!(checked_offsets(&mut v), [8192, 0, 4096, 12288]);
    }

    /// verify_mode=compare: the checks of written and trimmed blocks go to
    /// the device, each counted as checked; a mismatch is a bad block
    /// named as a host check names it, with the device's status.
    #[test]
    fn checks_the_device_made_are_counted_and_named() {
        let mut v = log(&["--rw=write"]);
        let path = Path::new("/dev/ng0n1");
        let block = v.number_write(0, 4096, 4096).unwrap();
        let work = SlotWork::Check(block).in_device().unwrap();
        assert!(work.compared() && !SlotWork::Check(block).compared());
        assert!(matches!(v.compared(work, path, None), Verdict::Good));
        let Verdict::Bad(m) = v.compared(work, path, Some("Compare Failure")) else {
            panic!("a mismatch is a bad block");
        };
        assert!(
            m.starts_with(
                "verify failed on /dev/ng0n1 at offset 4096, length 4096 (write #1): \
                 pattern mismatch at offset 4096: the device's Compare"
            ) && m.contains(": Compare Failure;"),
            "{m}"
        );
        let zero = SlotWork::ZeroCheck(block).in_device().unwrap();
        let Verdict::Bad(m) = v.compared(zero, path, Some("Compare Failure")) else {
            panic!("a trimmed block that is not zeroes is bad");
        };
        assert!(
            m.contains("trimmed block not zeroed") && m.contains("from zeroes"),
            "{m}"
        );
        assert_eq!((v.outcome.checked, v.outcome.bad), (3, 2));
        for other in [
            SlotWork::ReadBack(block),
            SlotWork::Trim(block),
            SlotWork::Plain,
        ] {
            assert_eq!(other.in_device(), None, "{other:?}");
        }
    }

    /// With a random map every write is checked, in the order written;
    /// one a later write overlapped against its own headers.
    #[test]
    fn overlapped_writes_in_write_order_are_checked_by_their_headers() {
        let mut v = log(&["--rw=randwrite", "--bsrange=4k-16k"]);
        for (offset, len) in [(8192, 16384), (12288, 12288), (0, 4096), (12288, 4096)] {
            let block = v.number_write(0, offset, len).unwrap();
            v.written(block);
        }
        v.start_phase();
        let kinds: Vec<(u64, bool)> = std::iter::from_fn(|| v.next_due())
            .map(|w| {
                let by_headers = matches!(w, SlotWork::ReadBack(_));
                (checked_block(w).unwrap().0.offset, by_headers)
            })
            .collect();
        assert_eq!(
            kinds,
            [(8192, true), (12288, true), (0, false), (12288, false)]
        );
    }

    #[test]
    fn without_a_random_map_checks_go_by_offset() {
        let mut v = log(&["--rw=randwrite", "--norandommap"]);
        let blocks: Vec<BlockId> = [8192, 0, 4096]
            .iter()
            .map(|&o| v.number_write(0, o, 4096).unwrap())
            .collect();
        for i in [2, 0, 1] {
            v.written(blocks[i]);
        }
        assert_eq!(checked_offsets(&mut v), [0, 4096, 8192]);
    }
}
