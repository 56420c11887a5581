//! Filling the queue: what each free slot is given next (an fsync that is
//! due, a verify check, the workload's next I/O, gathered trims), and
//! committing a batch.

use std::io;

use ioscope_engine::{Op, Queue, Request, TrimRange};
use ioscope_stats::Clock;
use ioscope_workload::{BlockId, BufferFiller, DataDir, IoUnit, Workload};

use super::config::LoopConfig;
use super::iolog::IologWriter;
use super::results::LoopStats;
use super::syncs::SyncState;
use super::write_mix::WriteMix;
use crate::pacing::Pacer;
use crate::verify::{SlotWork, VerifyLog};

/// Where each in-flight request came from.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slot {
    pub(super) op: Option<Op>,
    pub(super) file: u32,
    pub(super) offset: u64,
    pub(super) len: u32,
    /// Ticks when preparation began and when submitted.
    pub(super) start: u64,
    pub(super) issue: u64,
    /// Submitted to an asynchronous queue, so it has a submission latency.
    pub(super) queued: bool,
    pub(super) work: SlotWork,
    /// The priority it went at, as an index into the direction's
    /// priorities (per-I/O priorities only; 0 otherwise).
    pub(super) prio: u8,
}

/// What filling the queue carries from one request to the next.
pub(super) struct Fill {
    /// The workload still has I/O to give.
    pub writing: bool,
    /// fsync= and fdatasync=: the writes issued and whether the last
    /// request was a sync.
    syncs: SyncState,
    /// An I/O the workload gave ahead of its turn (to see whether one
    /// follows a due sync, or held back by the pacer): it is the next one
    /// issued.
    held: Option<IoUnit>,
    /// The files found done as `held` was chosen, to be logged closed
    /// after the sync that went before it.
    held_closed: Vec<u32>,
    /// `write_iolog`: where every issued request is logged.
    pub iolog: Option<IologWriter>,
    /// `fsync_on_close`: the files found done this pass, each to be
    /// fsynced as it closes (once the pass's I/O is done); None without.
    pub closed_unsynced: Option<Vec<u32>>,
    /// The workload's loops begun after the first, as last seen.
    loops_seen: u32,
    /// Whether a new pass matters here: syncs or a log to keep.
    watch_loops: bool,
    /// The last request given was a sync (fio's `last_was_sync`, as the
    /// end of a pass sees it).
    last_was_sync: bool,
    /// A replay that follows its log's times.
    pace: Option<Pace>,
    /// Rate, think time, number_ios and flow; None when the job sets none.
    pub pacer: Option<Pacer>,
    /// A `write_mode` mix: the command of each write is drawn.
    write_mix: Option<WriteMix>,
}

/// The start of a paced replay: a logged I/O is due this long after it.
pub(super) struct Pace {
    pub clock: Clock,
    pub start: u64,
}

/// What a free slot is given.
pub(super) enum Next {
    /// This request, with what verify needs to know of it.
    Issue(Request, SlotWork),
    /// Nothing this time (verify_only recorded a write, or skips a read);
    /// the slot is free again and filling goes on.
    Skip,
    /// Nothing: the workload has ended, or there is nothing to issue until
    /// something completes. The slot is free again and filling stops.
    Stop,
    /// Nothing until this tick, when a replay's next I/O is due. The slot
    /// is free again and filling stops.
    Wait(u64),
    /// Nothing until the pacer's hold is over. The slot is free again and
    /// filling stops.
    Hold,
}

/// A sync (`op`: fsync or fdatasync) of `file` in `slot`.
/// A sync of `file`; `range` is sync_file_range's (offset, length).
fn sync(file: u32, op: Op, slot: u32, (offset, len): (u64, u32)) -> Next {
    let req = Request {
        op,
        file,
        offset,
        len,
        slot,
    };
    Next::Issue(req, SlotWork::Plain)
}

impl Fill {
    /// A new loop of the workload began (fio's `clear_io_state` between
    /// loops): its files are closed and opened again in the log, and the
    /// sync bookkeeping starts over.
    #[inline]
    fn note_loops(&mut self, workload: &Workload) {
        if !self.watch_loops {
            return;
        }
        let begun = workload.loops_begun();
        if begun != self.loops_seen {
            self.loops_seen = begun;
            self.syncs.loop_started();
            if let Some(log) = &mut self.iolog {
                log.close_files();
            }
        }
    }

    /// Whether the last request given was a sync.
    pub(super) fn last_was_sync(&self) -> bool {
        self.last_was_sync
    }

    /// The files found done as `held` was chosen, closed in the log now
    /// that the sync before it is logged: off the path of every I/O, as
    /// only an I/O chosen ahead of its turn (or a pass's end) has them.
    #[cold]
    fn log_held_closed(&mut self) {
        for f in std::mem::take(&mut self.held_closed) {
            self.closed(f);
        }
    }

    /// File `f` was found done: fio closes it, in the log, and with
    /// `fsync_on_close` after an fsync.
    fn closed(&mut self, f: u32) {
        if let Some(log) = &mut self.iolog {
            log.close_file(f);
        }
        if let Some(c) = &mut self.closed_unsynced {
            c.push(f);
        }
    }

    /// Whether the workload is to keep the files it finds done for this.
    pub(super) fn wants_closes(&self) -> bool {
        self.iolog.is_some() || self.closed_unsynced.is_some()
    }

    /// The fill stops at each pass's end; the runner resumes the workload
    /// once the pass's I/O is done (and verified).
    pub(super) fn new(
        iolog: Option<IologWriter>,
        pace: Option<Pace>,
        pacer: Option<Pacer>,
        write_mix: Option<WriteMix>,
        syncs: bool,
        close_fsync: bool,
    ) -> Fill {
        let watch_loops = syncs || iolog.is_some();
        Fill {
            watch_loops,
            last_was_sync: false,
            writing: true,
            syncs: SyncState::default(),
            held: None,
            held_closed: Vec::new(),
            iolog,
            closed_unsynced: close_fsync.then(Vec::new),
            loops_seen: 0,
            pace,
            pacer,
            write_mix,
        }
    }

    /// What free `slot` is given (see [`Fill::pick`]), logged to the
    /// `write_iolog` when it is a request. Without the steps of the
    /// per-I/O options unless `EXTRAS` (see `IoLoop::plain`).
    #[inline]
    pub(super) fn next<Q: Queue, const EXTRAS: bool>(
        &mut self,
        q: &mut Q,
        slot: u32,
        workload: &mut Workload,
        filler: &mut BufferFiller,
        verify: Option<&mut VerifyLog>,
        cfg: &LoopConfig,
    ) -> Next {
        let next = self.pick::<Q, EXTRAS>(q, slot, workload, filler, verify, cfg);
        if !EXTRAS {
            return next;
        }
        if let Next::Issue(req, _) = &next {
            self.last_was_sync = req.op.is_sync();
        }
        if self.wants_closes() {
            // Files found done on the way to this request: fio closes each
            // as it finds it done, before the request it goes on to.
            for f in workload.take_closed() {
                self.closed(f);
            }
            if let (Some(log), Next::Issue(req, _)) = (&mut self.iolog, &next) {
                log.log(req);
            }
        }
        next
    }

    /// The request for free `slot`: an fsync that is due, else a verify
    /// check or trim that is due, else the workload's next I/O (numbered
    /// and filled for verify, its buffer prepared when it sends data). A
    /// replay gives its log's flushes, and waits for its log's times.
    #[inline]
    fn pick<Q: Queue, const EXTRAS: bool>(
        &mut self,
        q: &mut Q,
        slot: u32,
        workload: &mut Workload,
        filler: &mut BufferFiller,
        mut verify: Option<&mut VerifyLog>,
        cfg: &LoopConfig,
    ) -> Next {
        if EXTRAS {
            self.note_loops(workload);
        }
        let io_left = !EXTRAS || self.pacer.as_ref().is_none_or(Pacer::io_left);
        if !io_left {
            // number_ios is reached: fio's loop asks that first, so no
            // backlog check or sync is due after it either.
            self.writing = false;
        }
        if let Some(v) = verify.as_deref_mut().filter(|v| EXTRAS && v.backlog_due()) {
            // fio looks for a backlog check first on its way to the
            // workload's next I/O (check_get_verify, before a sync is
            // due), so only while the job has I/O to do: at its end the
            // rest is the verify phase's. (A pass's end with another to
            // come is not the job's; number_ios reached is the job's end.)
            if io_left && (self.held.is_some() || (self.writing && workload.io_left())) {
                if let Some(due) = v.backlog_check() {
                    if let Some(p) = &mut self.pacer {
                        p.checked();
                    }
                    return issue_check(q, v, due, slot);
                }
            }
        }
        if EXTRAS && cfg.syncs.any() {
            if let Some((file, op, range)) = self.syncs.due(&cfg.syncs, || {
                // fio asks for a sync on its way to the next I/O, whose
                // file the sync takes: none follows the job's last
                // write, one follows a loop's last write where another
                // loop comes.
                let file = workload.sync_file()?;
                if self.held.is_none() && self.writing {
                    self.held = workload.next();
                    // fio finds them done after the sync, as it goes on.
                    self.held_closed.extend(workload.take_closed());
                }
                let more = self.held.is_some() || (self.writing && workload.paused_at_loop());
                more.then_some(file)
            }) {
                return sync(file, op, slot, range);
            }
        }
        if let Some(v) = verify.as_deref_mut().filter(|_| EXTRAS) {
            if let Some(due) = v.next_due() {
                return issue_check(q, v, due, slot);
            }
        }
        if !self.writing {
            return Next::Stop;
        }
        if let Some(p) = self.pace.as_ref().filter(|_| EXTRAS) {
            if let Some(due) = workload.next_due_us() {
                let at = p.start + p.clock.ticks_for_ns(due.saturating_mul(1000));
                if p.clock.now() < at {
                    return Next::Wait(at);
                }
            }
        }
        if let Some(file) = EXTRAS.then(|| workload.next_sync()).flatten() {
            return sync(file, Op::Fsync, slot, (0, 0));
        }
        if let Some(p) = self.pacer.as_mut().filter(|_| EXTRAS) {
            if !p.before_next(q.in_flight()) {
                self.writing = false;
                return Next::Stop;
            }
            if p.held().is_some() {
                return Next::Hold;
            }
        }
        // Only the pacer, a due sync and gathered trims hold an I/O back.
        let held = if EXTRAS { self.held.take() } else { None };
        let unit = match held {
            Some(unit) => {
                self.log_held_closed();
                Some(unit)
            }
            None => match self.pacer.as_ref().filter(|_| EXTRAS) {
                Some(p) => workload.next_steered(|d| p.rate_ddir(d)),
                None => workload.next(),
            },
        };
        let Some(unit) = unit else {
            // The workload ended, or stopped at a pass's end for the runner
            // to start the next once this one's I/O is done; the next pick
            // then sees it begin.
            if EXTRAS {
                self.log_held_closed();
            }
            self.writing = false;
            return Next::Stop;
        };
        if let Some(p) = self.pacer.as_mut().filter(|_| EXTRAS) {
            let d = unit.dir as usize;
            if p.gate(d) {
                // The I/O is the next one issued once the rate allows.
                self.held = Some(unit);
                return Next::Hold;
            }
            p.issued(d, unit.len);
        }
        let op = match unit.dir {
            DataDir::Read => Op::Read,
            DataDir::Write => match self.write_mix.as_mut().filter(|_| EXTRAS) {
                Some(mix) => mix.pick(),
                None => cfg.write_op,
            },
            DataDir::Trim => Op::Trim,
        };
        let mut work = SlotWork::Plain;
        if let Some(v) = verify.filter(|_| EXTRAS) {
            if op == Op::Write {
                let Some(block) = v.number_write(unit.file, unit.offset, unit.len) else {
                    // verify_state_load: the run that wrote made no more
                    // writes than these.
                    self.writing = false;
                    return Next::Stop;
                };
                if v.only {
                    // verify_only: what would have been written is
                    // recorded and checked, nothing is sent.
                    v.written(block);
                    return Next::Skip;
                }
                v.fill(&mut q.buffer(slot)[..unit.len as usize], &block);
                work = SlotWork::Write(block);
            } else if op == Op::Read && v.reads_back {
                work = SlotWork::ReadBack(BlockId {
                    file: unit.file,
                    offset: unit.offset,
                    len: unit.len,
                    seq: 0,
                });
            } else if v.only {
                // verify_only replays a mixed workload's writes; its reads
                // are not made.
                return Next::Skip;
            }
        }
        // Only a Write gets its buffer filled: scrambling buffers for a
        // command without data (Write Zeroes) costs time that grows with
        // the depth and moves nothing.
        if op == Op::Write && work == SlotWork::Plain {
            let buf = &mut q.buffer(slot)[..unit.len as usize];
            filler.prepare_write(buf, unit.offset);
        }
        // Every command a write becomes counts towards fsync=, as fio
        // counts its writes.
        if EXTRAS && unit.dir == DataDir::Write {
            self.syncs
                .wrote(unit.file, unit.offset, unit.len, &cfg.syncs);
        }
        let req = if EXTRAS && op == Op::Trim && cfg.trim_ranges > 1 {
            gather_trims(
                workload,
                &mut self.held,
                unit,
                cfg.trim_ranges,
                q.buffer(slot),
                slot,
            )
        } else {
            Request {
                op,
                file: unit.file,
                offset: unit.offset,
                len: unit.len,
                slot,
            }
        };
        Next::Issue(req, work)
    }
}

/// The check `due` as the request for `slot`.
fn issue_check<Q: Queue>(q: &mut Q, v: &VerifyLog, due: SlotWork, slot: u32) -> Next {
    let req = check_request(due, slot);
    let work = if v.compare {
        compare_in_device(q, v, req, due)
    } else {
        due
    };
    Next::Issue(req, work)
}

/// `verify_mode=compare`: the check `due` of `req` goes to the device as a
/// Compare with what the block must hold (fio's populate_verify_io_u
/// before its Compare), where the queue can send one; otherwise it stays
/// a read the host checks.
fn compare_in_device<Q: Queue>(q: &mut Q, v: &VerifyLog, req: Request, due: SlotWork) -> SlotWork {
    let Some(work) = due.in_device() else {
        return due;
    };
    if !q.compare_in_device(&req) {
        return due;
    }
    let buf = &mut q.buffer(req.slot)[..req.len as usize];
    match work {
        SlotWork::Compared(block) => v.fill(buf, &block),
        // A trimmed block must hold zeroes.
        _ => buf.fill(0),
    }
    work
}

/// The request a verify check issues.
pub(super) fn check_request(work: SlotWork, slot: u32) -> Request {
    let (op, b) = match work {
        SlotWork::Trim(b) => (Op::Trim, b),
        SlotWork::Check(b) | SlotWork::ReadBack(b) | SlotWork::ZeroCheck(b) => (Op::Read, b),
        SlotWork::Write(_)
        | SlotWork::Plain
        | SlotWork::Compared(_)
        | SlotWork::ZeroCompared(_) => {
            unreachable!("only checks and trims are due")
        }
    };
    Request {
        op,
        file: b.file,
        offset: b.offset,
        len: b.len,
        slot,
    }
}

#[inline]
pub(super) fn dir_index(op: Op) -> Option<usize> {
    let d = op.fio_ddir();
    (d < 3).then_some(usize::from(d))
}

/// fio's `num_range`: the trim `first` and up to `max - 1` trims the
/// workload gives after it, laid as ranges in the slot's buffer `buf` and
/// sent as one request. Gathering stops at the workload's end, or at an
/// I/O that cannot join (another direction or file, or one that would take
/// the total past a request's 32-bit length), which is held in `held` for
/// the next request. fio's io_u carries the ranges' total as its length,
/// and fio counts it as one trim of that many bytes; so does this loop (one
/// issued trim, one completion, the summed bytes).
pub(super) fn gather_trims(
    workload: &mut Workload,
    held: &mut Option<IoUnit>,
    first: IoUnit,
    max: u16,
    buf: &mut [u8],
    slot: u32,
) -> Request {
    let range = |unit: IoUnit| TrimRange {
        offset: unit.offset,
        len: unit.len,
    };
    range(first).store(buf, 0);
    let mut count = 1;
    let mut total = first.len;
    while count < max {
        let Some(next) = workload.next() else { break };
        match total.checked_add(next.len) {
            Some(sum) if next.dir == DataDir::Trim && next.file == first.file => {
                range(next).store(buf, usize::from(count));
                count += 1;
                total = sum;
            }
            _ => {
                *held = Some(next);
                break;
            }
        }
    }
    Request {
        op: Op::TrimRanges { count },
        file: first.file,
        offset: first.offset,
        len: total,
        slot,
    }
}

/// Sends the pending requests and stamps their submission time. Inlined
/// into the loop, so that no return follows the system call (see the
/// engine's `syscall6`).
#[inline(always)]
pub(super) fn commit<Q: Queue>(
    q: &mut Q,
    pending: &mut Vec<u32>,
    slots: &mut [Slot],
    stats: &mut LoopStats,
    clock: &Clock,
    timing: bool,
) -> io::Result<()> {
    // fio marks a batch's depth when it commits it, at the depth the batch
    // brings the queue to (td_io_commit).
    stats.depth.add_depth(q.in_flight(), pending.len() as u64);
    let n = q.commit()?;
    stats.submit.add_batch(n);
    if timing {
        let t = clock.now();
        for &slot in pending.iter() {
            slots[slot as usize].issue = t;
        }
    }
    pending.clear();
    Ok(())
}

/// [`commit`] for a loop that waits for `want` completions next: a ring
/// submits and waits in one io_uring_enter (see
/// [`Queue::submit_and_wait`]). That call returns once requests may have
/// completed, so their submission time is read before it: the kernel's
/// submission path, which fio's separate submit call puts in slat, is
/// then in clat. With nothing to wait for, or a queue that cannot wait
/// as it submits, it is [`commit`].
#[inline(always)]
pub(super) fn commit_and_wait<Q: Queue>(
    q: &mut Q,
    pending: &mut Vec<u32>,
    slots: &mut [Slot],
    stats: &mut LoopStats,
    clock: &Clock,
    timing: bool,
    want: u32,
) -> io::Result<()> {
    if want == 0 || !Q::WAITS_IN_SUBMIT {
        return commit(q, pending, slots, stats, clock, timing);
    }
    stats.depth.add_depth(q.in_flight(), pending.len() as u64);
    if timing {
        let t = clock.now();
        for &slot in pending.iter() {
            slots[slot as usize].issue = t;
        }
    }
    let n = q.submit_and_wait(want)?;
    stats.submit.add_batch(n);
    pending.clear();
    Ok(())
}
