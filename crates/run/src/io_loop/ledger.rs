//! Completions: what settling a request updates (measurements, the status
//! line's counters, verify), reaping a batch, and verify_async's verdicts.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use ioscope_engine::{Completion, Op, Queue};
use ioscope_job::ErrorClass;
use ioscope_stats::{Clock, IoRecord};
use ioscope_workload::ZoneWrite;

use super::config::LoopConfig;
use super::fill::{dir_index, Slot};
use super::latencies::{Run, Timer, Times};
use super::results::{IoFailure, LoopStats};
use crate::progress::WorkerProgress;
use crate::trace::IoTrace;
use crate::verify::{SlotWork, Verdict, VerifyLog};
use crate::verify_async::AsyncChecks;

/// What completing a request updates: the measurements, the counters the
/// status line reads, and the verify bookkeeping.
pub(super) struct Ledger<'a> {
    pub(super) stats: LoopStats,
    pub(super) shown: [(u64, u64); 3],
    pub(super) progress: &'a WorkerProgress,
    pub(super) clock: Clock,
    pub(super) cfg: &'a LoopConfig,
    pub(super) verify: Option<VerifyLog>,
    /// verify_async's checkers, when the job has them.
    pub(super) checks: Option<AsyncChecks>,
    pub(super) paths: Vec<PathBuf>,
    /// `--debug=io`'s lines, when traced.
    pub(super) trace: Option<IoTrace>,
    /// `latency_target`'s search, when the job has a target.
    pub(super) lat_target: Option<super::latency_target::LatTarget>,
    /// `zonemode=zbd` on an engine that queues, or a job that goes on
    /// after failed writes: the writes completed since the workload last
    /// saw them, which close the zones they filled, and where they failed
    /// are undone or recovered.
    pub(super) zone_writes: Option<Vec<ZoneWrite>>,
    /// A failed write in `zone_writes` carries its bytes
    /// (recover_zbd_write_error moves a write pointer with them).
    pub(super) zone_write_bytes: bool,
    /// Submission latencies are measured: `slat` is tracked and the loop
    /// reads the clock as it submits (not at iodepth 1 on a queue that
    /// submits and waits in one call).
    pub(super) slat: bool,
    /// With [`LoopConfig::clat_sums`]: the completion latencies summed
    /// and counted so far (what the progress counters publish).
    pub(super) clat_shown: (u64, u64),
    /// The plain loop's completions whose latencies are still to be added.
    pub(super) run: Run,
    /// The directions (bit `d`) of those completions, whose rate ticks and
    /// status counts wait for the batch's end too.
    pub(super) batch_dirs: u8,
}

impl Ledger<'_> {
    /// Nothing is in flight. Waits for verify_async's verdicts, if any
    /// are due; starts the verify phase once every write has completed
    /// (and so is logged). Returns false when the loop is done (or must
    /// stop), true when it goes on.
    pub(super) fn when_drained<Q: Queue>(
        &mut self,
        q: &mut Q,
        slots: &[Slot],
        free: &mut Vec<u32>,
        writing: bool,
        nothing_due: bool,
        job: &str,
    ) -> bool {
        let checking = self.checks.as_ref().is_some_and(|c| c.pending > 0);
        if checking && !self.take_verdicts(q, slots, free, true) {
            return false;
        }
        if writing || !nothing_due || checking {
            return true;
        }
        match self.verify.as_mut() {
            Some(v) if !v.phase_started => {
                v.start_phase();
                if let Err(e) = v.save_state(job) {
                    self.stats.failure.get_or_insert(job_failure(e));
                    return false;
                }
                self.switch_phase();
                true
            }
            _ => false,
        }
    }

    /// A verify phase begins, or the write phase of the next loop after
    /// one: the time and each direction's I/Os so far, to charge each
    /// phase's time to the directions it used.
    pub(super) fn switch_phase(&mut self) {
        let ios = self.stats.dirs.each_ref().map(|d| d.ios);
        self.stats.phase_switches.push((self.clock.now(), ios));
    }

    /// Reaps between `min` and `max` completions, accounts them at one
    /// completion time, and frees their slots. Returns how many were
    /// reaped, false when the worker must stop, and the completion time.
    pub(super) fn reap<Q: Queue>(
        &mut self,
        q: &mut Q,
        min: u32,
        max: u32,
        reaped: &mut Vec<Completion>,
        slots: &[Slot],
        free: &mut Vec<u32>,
    ) -> io::Result<(u32, bool, u64)> {
        self.reap_as::<Q, true>(q, min, max, reaped, slots, free)
    }

    /// [`Ledger::reap`], without the steps of the per-I/O options unless
    /// `EXTRAS` (see `IoLoop::plain`). Inlined into the loop, as `commit`
    /// is.
    #[inline(always)]
    pub(super) fn reap_as<Q: Queue, const EXTRAS: bool>(
        &mut self,
        q: &mut Q,
        min: u32,
        max: u32,
        reaped: &mut Vec<Completion>,
        slots: &[Slot],
        free: &mut Vec<u32>,
    ) -> io::Result<(u32, bool, u64)> {
        reaped.clear();
        let n = q.reap(min, max, |c| reaped.push(c))?;
        if n == 0 {
            return Ok((0, true, 0));
        }
        let t_done = self.clock.now();
        self.stats.complete.add_batch(n);
        // One completion (QD1) has no run to gather.
        let ok = if n == 1 {
            self.settle_all::<Q, EXTRAS, false>(q, reaped, slots, free, t_done)
        } else {
            let ok = self.settle_all::<Q, EXTRAS, true>(q, reaped, slots, free, t_done);
            self.add_held(t_done);
            ok
        };
        Ok((n, ok, t_done))
    }

    /// Settles the `reaped` completions and frees their slots (those not
    /// held). Returns false when the worker must stop.
    #[inline(always)]
    fn settle_all<Q: Queue, const EXTRAS: bool, const BATCH: bool>(
        &mut self,
        q: &mut Q,
        reaped: &[Completion],
        slots: &[Slot],
        free: &mut Vec<u32>,
        t_done: u64,
    ) -> bool {
        let mut ok = true;
        for c in reaped {
            let slot = &slots[c.slot as usize];
            let (settled, held) =
                self.settle_as::<Q, EXTRAS, BATCH>(q, c.slot, slot, c.result, t_done);
            ok &= settled;
            if !held {
                free.push(c.slot);
            }
        }
        ok
    }

    /// Accounts one completion and does what verify needs done with it.
    /// Returns false when the worker must stop, and whether the slot is
    /// held (its block handed to a verify_async checker). Without the
    /// steps of the per-I/O options unless `EXTRAS`; `BATCH`: one of a
    /// reaped batch, whose latencies, rate tick and status counts may
    /// wait for the batch's end ([`Ledger::add_held`]).
    #[inline(always)]
    pub(super) fn settle_as<Q: Queue, const EXTRAS: bool, const BATCH: bool>(
        &mut self,
        q: &mut Q,
        slot_id: u32,
        slot: &Slot,
        result: i64,
        t_done: u64,
    ) -> (bool, bool) {
        if !EXTRAS {
            if let Some(go_on) = self.stream_ended(q, slot, result, t_done) {
                return (go_on, false);
            }
            return (self.finish_as::<false, BATCH>(slot, result, t_done), false);
        }
        if let (Some(t), Some(op)) = (&mut self.trace, slot.op) {
            let path = self.paths.get(slot.file as usize);
            t.io_u(
                "complete",
                slot_id,
                op,
                slot.offset,
                slot.len,
                path.map(PathBuf::as_path),
            );
        }
        if let Some(done) = &mut self.zone_writes {
            if slot.op.and_then(dir_index) == Some(1) {
                // Failed or not, as fio's zbd_put_io. (A failed write is
                // rare: its bytes are copied out, not its slot held.)
                let failed = (result < 0).then(|| match self.zone_write_bytes {
                    true => q.buffer(slot_id)[..slot.len as usize].to_vec(),
                    false => Vec::new(),
                });
                done.push(ZoneWrite {
                    file: slot.file,
                    offset: slot.offset,
                    len: slot.len,
                    failed,
                });
            }
        }
        if let Some(go_on) = self.stream_ended(q, slot, result, t_done) {
            return (go_on, false);
        }
        if let Some(timed) = self.cfg.engine_timed {
            return (
                super::engine_timed::settle(self, q, slot, result, t_done, timed),
                false,
            );
        }
        // verify_mode=compare: the device's Compare Failure is its verdict
        // on a block it read whole, not an I/O error; the read counts as
        // done, as one the host finds bad does.
        let answer = result;
        let mismatch = slot.work.compared() && Q::compare_mismatch(answer);
        let result = if mismatch {
            i64::from(slot.len)
        } else {
            answer
        };
        if !self.finish(slot, result, t_done) {
            return (false, false);
        }
        if let (Some(v), Some(op)) = (self.verify.as_mut(), slot.op) {
            if !op.is_sync() {
                v.last_read = op == Op::Read;
            }
        }
        // A failed or short transfer was an error (counted, or the end of
        // the job): there is nothing to check or log.
        if slot.work == SlotWork::Plain || result < 0 || is_short(slot, result) {
            if let (SlotWork::Write(block), Some(v)) = (slot.work, self.verify.as_mut()) {
                v.write_failed(block);
            }
            return (true, false);
        }
        let Some(v) = self.verify.as_mut() else {
            return (true, false);
        };
        match slot.work {
            SlotWork::Write(block) => v.written(block),
            SlotWork::Trim(block) => v.trimmed(block),
            work if work.compared() => {
                let path = file_path(&self.paths, slot.file);
                let status = mismatch.then(|| ioscope_engine::describe_error(-answer));
                let verdict = v.compared(work, path, status.as_deref());
                return (self.judge(verdict, slot), false);
            }
            work => {
                if let Some(checks) = &mut self.checks {
                    if checks.send(slot_id, work, q.buffer(slot_id)) {
                        return (true, true);
                    }
                    self.stats.failure.get_or_insert(job_failure(
                        "the verify_async threads stopped before checking every block".into(),
                    ));
                    return (false, false);
                }
                let path = file_path(&self.paths, slot.file);
                let verdict = v.check(work, q.buffer(slot_id), path);
                return (self.judge(verdict, slot), false);
            }
        }
        (true, false)
    }

    /// Acts on a bad block: counted when the job goes on after verify
    /// errors, the job's failure otherwise. Returns false when the worker
    /// must stop.
    pub(super) fn judge(&mut self, verdict: Verdict, slot: &Slot) -> bool {
        let Verdict::Bad(message) = verdict else {
            return true;
        };
        let fatal = self.verify.as_ref().is_some_and(|v| v.fatal);
        if !fatal && self.cfg.errors.tolerates(ErrorClass::Verify, libc::EILSEQ) {
            self.stats.errors.add(libc::EILSEQ);
            return true;
        }
        self.stats.failure.get_or_insert(IoFailure {
            errno: libc::EILSEQ,
            op: Op::Read,
            file: slot.file,
            offset: slot.offset,
            len: slot.len,
            detail: Some(message),
        });
        false
    }

    /// Takes back the verdicts of verify_async checks (waiting for one when
    /// `wait`), records them and frees their slots. Returns false when the
    /// worker must stop.
    pub(super) fn take_verdicts<Q: Queue>(
        &mut self,
        q: &mut Q,
        slots: &[Slot],
        free: &mut Vec<u32>,
        mut wait: bool,
    ) -> bool {
        let mut ok = true;
        loop {
            let Some(checks) = self.checks.as_mut() else {
                return ok;
            };
            let pending = checks.pending;
            let Some(done) = checks.take(wait) else {
                if wait && pending > 0 {
                    // Every checker is gone with blocks unchecked.
                    self.stats.failure.get_or_insert(job_failure(
                        "the verify_async threads stopped before checking every block".into(),
                    ));
                    return false;
                }
                return ok;
            };
            wait = false;
            let slot = &slots[done.slot as usize];
            let path = file_path(&self.paths, slot.file);
            if let Some(v) = self.verify.as_mut() {
                let verdict = v.record(done.work, q.buffer(done.slot), path, done.found);
                ok &= self.judge(verdict, slot);
            }
            free.push(done.slot);
        }
    }

    /// Accounts one completion. Returns false when the worker must stop (an
    /// I/O error that continue_on_error does not cover: fio's default is to
    /// end the job on the first one).
    pub(super) fn finish(&mut self, slot: &Slot, result: i64, t_done: u64) -> bool {
        self.finish_as::<true, false>(slot, result, t_done)
    }

    /// [`Ledger::finish`], without the steps of the per-I/O options
    /// unless `EXTRAS`; `BATCH` as for [`Ledger::settle_as`].
    #[inline(always)]
    pub(super) fn finish_as<const EXTRAS: bool, const BATCH: bool>(
        &mut self,
        slot: &Slot,
        result: i64,
        t_done: u64,
    ) -> bool {
        let Ledger {
            stats,
            shown,
            progress,
            clock,
            cfg,
            paths,
            lat_target,
            verify,
            slat,
            run,
            batch_dirs,
            ..
        } = self;
        let Some(op) = slot.op else { return true };
        // A read or write that moved fewer bytes than asked (a file that
        // shrank under the job, a device that ended) is an error, as fio's
        // "full resid" EIO: counting it as an I/O would report empty reads
        // as IOPS.
        let short = is_short(slot, result);
        if result < 0 || short {
            if let Some(b) = &mut stats.block_life {
                // fio unlogs the piece of a failed write it keeps for
                // verify, and of a synchronous one that moved nothing.
                let unlogged = match result {
                    0 => !slot.queued,
                    r => r < 0 && verify.is_some(),
                };
                if op == Op::Write && unlogged {
                    b.write_failed(slot.offset);
                }
            }
            return failed(stats, cfg, paths, slot, op, result, short);
        }
        let t = &cfg.tracking;
        let Some(d) = dir_index(op) else {
            // fio counts fsyncs alone in its issued syncs (its total_io_u
            // has no slot for fdatasync or sync_file_range); the latencies
            // take them all.
            stats.sync_ios += u64::from(op == Op::Fsync);
            if t.lat {
                let lat_ns = clock.to_ns(t_done.saturating_sub(slot.start));
                stats.sync_lat.add(lat_ns);
                if let Some(h) = &mut stats.sync_hist {
                    h.add(lat_ns);
                }
            }
            return true;
        };
        let dir = &mut stats.dirs[d];
        let bytes = (result as u64).min(u64::from(slot.len));
        dir.bytes += bytes;
        dir.ios += 1;
        if bytes < u64::from(slot.len) {
            dir.short += 1;
        }
        let timer = Timer {
            clock,
            tracking: t,
            slat: *slat,
        };
        let times = Times::of(slot, d);
        if !EXTRAS {
            if BATCH {
                // The plain loop adds a batch's equal latencies together
                // (see `latencies`); nothing reads them before its end.
                // Nor its rate samples and the status line's counts: the
                // batch's completions share one time, so a tick and a
                // publication at its end are what one per I/O would leave.
                let buckets = &mut stats.lat_buckets;
                run.push(times, t_done, &timer, &mut stats.dirs, buckets);
                shown[d].0 += bytes;
                shown[d].1 += 1;
                *batch_dirs |= 1 << d;
                return true;
            }
            timer.add(dir, &mut stats.lat_buckets, times, t_done, 1);
            let dir = &mut stats.dirs[d];
            dir.rate.tick(t_done, dir.bytes, dir.ios);
            show(&mut shown[d], progress, d, bytes);
            return true;
        }
        // A request of several ranges counts at its first, as in fio.
        if matches!(op, Op::Trim | Op::TrimRanges { .. }) {
            if let Some(b) = &mut stats.block_life {
                b.trimmed(slot.offset);
            }
        }
        let (lat_ns, clat_ns) = timer.add(dir, &mut stats.lat_buckets, times, t_done, 1);
        if t.lat {
            if cfg.max_latency_ns[d] != 0 && lat_ns > cfg.max_latency_ns[d] {
                let path = file_path(paths, slot.file);
                stats.failure.get_or_insert(super::pace::too_late(
                    slot,
                    op,
                    lat_ns,
                    cfg.max_latency_ns[d],
                    path,
                ));
                return false;
            }
            if let Some(act) = stats.act.as_mut() {
                if let Err(m) = act.add(lat_ns / 1000, t_done) {
                    // fio fails the I/O that closed the slice (its hook
                    // returns 1, EPERM) and so the job.
                    crate::warn(format_args!("{m}"));
                    stats.failure.get_or_insert(IoFailure {
                        errno: libc::EPERM,
                        op,
                        file: slot.file,
                        offset: slot.offset,
                        len: slot.len,
                        detail: None,
                    });
                    return false;
                }
            }
        }
        if let Some(p) = stats.prio.as_mut() {
            p.add(d, slot.prio, clat_ns, lat_ns);
        }
        if cfg.clat_sums {
            let c = &mut self.clat_shown;
            *c = (c.0 + clat_ns, c.1 + 1);
            progress.clat[0].store(c.0, Ordering::Relaxed);
            progress.clat[1].store(c.1, Ordering::Relaxed);
        }
        if let Some(lt) = lat_target.as_mut() {
            if !lt.completed(t.lat.then_some(lat_ns)) {
                let path = file_path(paths, slot.file);
                let target = cfg.latency_target.map_or(0, |p| p.target_ns);
                let late = super::pace::too_late(slot, op, lat_ns, target, path);
                stats.failure.get_or_insert(late);
                return false;
            }
        }
        if let Some(logs) = stats.logs.as_mut() {
            let slat = (*slat && slot.queued).then(|| clock.to_ns(slot.issue - slot.start));
            let record = IoRecord {
                start: slot.start,
                issue: slot.issue,
                done: t_done,
                offset: slot.offset,
                bytes: bytes as u32,
                dir: d as u8,
                slat: slat.is_some(),
                prio: stats.prio.as_ref().map_or(0, |p| p.ioprio(d, slot.prio)),
            };
            logs.record(record, slat, clat_ns, lat_ns);
        }
        let dir = &mut stats.dirs[d];
        dir.rate.tick(t_done, dir.bytes, dir.ios);
        show(&mut shown[d], progress, d, bytes);
        true
    }

    /// Adds what the plain loop holds back from a batch of completions
    /// done at `t_done`: their latencies (see `latencies`), and for each
    /// direction they moved, its rate tick and the status line's counts.
    #[inline]
    pub(super) fn add_held(&mut self, t_done: u64) {
        let timer = Timer {
            clock: &self.clock,
            tracking: &self.cfg.tracking,
            slat: self.slat,
        };
        let stats = &mut self.stats;
        self.run
            .add(&timer, &mut stats.dirs, &mut stats.lat_buckets);
        let moved = std::mem::take(&mut self.batch_dirs);
        for d in (0..3).filter(|d| moved & (1 << d) != 0) {
            let dir = &mut stats.dirs[d];
            dir.rate.tick(t_done, dir.bytes, dir.ios);
            publish(self.shown[d], self.progress, d);
        }
    }
}

/// The bytes and I/Os of direction `d` the status line shows, one I/O of
/// `bytes` more.
#[inline]
fn show(shown: &mut (u64, u64), progress: &WorkerProgress, d: usize, bytes: u64) {
    shown.0 += bytes;
    shown.1 += 1;
    publish(*shown, progress, d);
}

/// Publishes direction `d`'s bytes and I/Os `shown` to the status line.
#[inline]
fn publish(shown: (u64, u64), progress: &WorkerProgress, d: usize) {
    progress.bytes[d].store(shown.0, Ordering::Relaxed);
    progress.ios[d].store(shown.1, Ordering::Relaxed);
}

/// A failed or short transfer: counted and let pass where the job's error
/// policy tolerates it (true), otherwise the job's failure (false). Out of
/// line, so that settling a good completion carries none of it.
#[cold]
#[inline(never)]
fn failed(
    stats: &mut LoopStats,
    cfg: &LoopConfig,
    paths: &[PathBuf],
    slot: &Slot,
    op: Op,
    result: i64,
    short: bool,
) -> bool {
    let errno = if short {
        libc::EIO
    } else {
        i32::try_from(-result).unwrap_or(i32::MAX)
    };
    let class = if op == Op::Read {
        ErrorClass::Read
    } else {
        ErrorClass::Write
    };
    if cfg.errors.tolerates(class, errno) {
        stats.errors.add(errno);
        if cfg.error_dump {
            stats.errors.dump(IoFailure {
                errno,
                op,
                file: slot.file,
                offset: slot.offset,
                len: slot.len,
                detail: None,
            });
        }
        return true;
    }
    if stats.failure.is_none() {
        let detail = short.then(|| {
                let path = file_path(paths, slot.file);
                format!(
                    "short {} on {} at offset {}: {result} of {} bytes (did the file shrink, or the device end?): {}",
                    op.name(),
                    path.display(),
                    slot.offset,
                    slot.len,
                    ioscope_engine::describe_error(i64::from(libc::EIO))
                )
            });
        stats.failure = Some(IoFailure {
            errno,
            op,
            file: slot.file,
            offset: slot.offset,
            len: slot.len,
            detail,
        });
    }
    false
}

/// The path of file `file` of the worker, for messages.
pub(super) fn file_path(paths: &[PathBuf], file: u32) -> &Path {
    paths
        .get(file as usize)
        .map_or(Path::new(""), PathBuf::as_path)
}

/// Whether a read or write moved fewer bytes than it asked for.
#[inline]
pub(super) fn is_short(slot: &Slot, result: i64) -> bool {
    matches!(slot.op, Some(Op::Read | Op::Write))
        && result >= 0
        && (result as u64) < u64::from(slot.len)
}

/// A failure of the job's machinery rather than of an I/O (a verify
/// state that could not be saved, so a later verify_state_load would
/// check the wrong writes; verify's checker threads gone; an iolog that
/// could not be written; a zone reset the device refused) fails the job
/// with EIO and `detail`.
pub(super) fn job_failure(detail: String) -> IoFailure {
    IoFailure {
        errno: libc::EIO,
        op: Op::Write,
        file: 0,
        offset: 0,
        len: 0,
        detail: Some(detail),
    }
}
