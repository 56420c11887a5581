//! The per-I/O loop of one worker, generic over the queue type so each
//! backend gets its own monomorphised copy: no virtual call, allocation, lock
//! or unneeded clock read per I/O.
//!
//! Timing follows fio: `lat` runs from when the request starts being
//! prepared to its completion, `slat` from preparation to submission
//! (asynchronous backends only: a synchronous call has no separate
//! submission), `clat` from submission to completion. Preparation starts at
//! the latest clock reading — the completion of the I/O before, which is when
//! fio takes its start time too — so it costs no read of its own. A submit
//! batch shares one submission timestamp and a reap batch one completion
//! timestamp: a synchronous I/O costs two clock reads, an asynchronous one a
//! share of two.

//!
//! The loop itself is here; `fill` decides what each free slot is given,
//! `ledger` settles completions, `config` and `results` are what goes in
//! and what comes out.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use ioscope_engine::{Op, Queue, QueueUser, Submitted};
use ioscope_stats::{current_tid, Clock, HelperTracker, PuntTally, ThreadCpu};
use ioscope_workload::{BufferFiller, Workload};

use crate::file_lock::WorkerLocks;
use crate::files::WorkerFile;
use crate::progress::WorkerProgress;
use crate::ramp::RampSize;
use crate::signal;
use crate::start_gate::Ticket;
use crate::trace::IoTrace;
use crate::verify::VerifyLog;
use crate::verify_async::AsyncChecks;
use crate::worker::WorkerOutcome;

mod cmdprio;
mod config;
mod engine_timed;
mod file_events;
mod fill;
mod iolog;
mod latencies;
mod latency_target;
mod ledger;
mod pace;
mod pass_end;
mod results;
mod serialize;
mod stream_end;
mod syncs;
mod write_mix;
mod zone_commands;

pub(crate) use cmdprio::PerIoPrio;
pub(crate) use config::{LoopConfig, Tracking};
pub(crate) use engine_timed::EngineTimed;
use file_events::Batches;
use fill::{commit, commit_and_wait, dir_index, Fill, Next, Pace, Slot};
pub(crate) use iolog::IologWriter;
use latencies::Run;
pub(crate) use latency_target::Params as LatencyTarget;
use ledger::{job_failure, Ledger};
pub(crate) use pass_end::EndSync;
pub(crate) use results::{DirStats, IoFailure, LoopStats};
pub(crate) use syncs::SyncEvery;
pub(crate) use write_mix::{write_op, writes_carry_data, WriteMix};

/// The loop of one worker, run by the engine with its concrete queue.
pub(crate) struct IoLoop<'a> {
    pub config: &'a LoopConfig,
    pub clock: Clock,
    pub workload: Workload,
    pub filler: BufferFiller,
    pub progress: &'a WorkerProgress,
    /// Set by another worker's `exitall`.
    pub stop: &'a AtomicBool,
    /// Read once more at the end, while the queue (and so its helper
    /// threads) still exists. None when the queue is not a ring.
    pub helpers: Option<&'a HelperTracker>,
    /// Where the worker waits for the others of its phase before its clock
    /// starts.
    pub ticket: Ticket<'a>,
    /// Counts the punts of this thread's ring (opened before the ring).
    pub punts: PuntTally,
    /// The job's verify bookkeeping, when it verifies.
    pub verify: Option<VerifyLog>,
    /// The worker's files, for messages.
    pub paths: Vec<PathBuf>,
    /// The job's name, for the verify state file.
    pub job: &'a str,
    /// `write_iolog`'s writer, opened with the worker's files.
    pub iolog: Option<IologWriter>,
    /// `--debug=io`'s lines of this worker; None, a branch that always
    /// goes the same way, when not traced.
    pub trace: Option<IoTrace>,
    /// Rate, think time, number_ios and flow; None when the job sets none.
    pub pacer: Option<crate::pacing::Pacer>,
    /// Per-I/O priorities (cmdprio, hipri_percentage); None when unused.
    pub prio: Option<PerIoPrio>,
    /// A `write_mode` mix: each write's command drawn; None otherwise.
    pub write_mix: Option<WriteMix>,
    /// `lockfile`: held from each I/O's preparation to its submission.
    pub locks: WorkerLocks,
    /// The worker's files, whose cached pages `invalidate` drops.
    pub files: &'a [WorkerFile],
    /// `ramp_size`: the bytes that end the ramp; None when the ramp, if
    /// any, is `ramp_time`'s.
    pub ramp_size: Option<RampSize<'a>>,
}

impl QueueUser for IoLoop<'_> {
    type Output = io::Result<LoopStats>;

    fn run<Q: Queue>(self, q: Q) -> io::Result<LoopStats> {
        match self.plain() {
            true => self.drive::<Q, false>(q),
            false => self.drive::<Q, true>(q),
        }
    }
}

impl IoLoop<'_> {
    /// Whether the job uses none of the options that add steps to each
    /// I/O beyond choosing it, sending it and measuring it: verify, a
    /// write_iolog, `--debug=io`, pacing, per-I/O priorities, lockfile,
    /// syncs, replays, zones, serialize_overlap, latency_target, logs,
    /// max_latency, act, block_error_percentiles, num_range, an engine
    /// that times its own operations. Such a job's loop is a copy with
    /// those steps left out at compile time (`EXTRAS` false): every step
    /// that is not for all jobs is written `EXTRAS && ...`, and the option
    /// behind it must be one this weighs.
    fn plain(&self) -> bool {
        let cfg = self.config;
        self.verify.is_none()
            && self.iolog.is_none()
            && self.trace.is_none()
            && self.pacer.is_none()
            && self.prio.is_none()
            && self.write_mix.is_none()
            && !self.locks.any()
            && !cfg.syncs.any()
            && cfg.end_sync.is_none()
            && !cfg.close_fsync
            && !cfg.replay_paced
            && !self.workload.runner_steps()
            && !cfg.serialize_overlap
            && cfg.latency_target.is_none()
            && cfg.engine_timed.is_none()
            && cfg.block_life.is_none()
            && cfg.max_latency_ns == [0; 3]
            && cfg.act.is_none()
            && !cfg.clat_sums
            && !cfg.logs.any()
            && cfg.trim_ranges <= 1
    }

    /// The loop, with the steps of the per-I/O options when `EXTRAS`
    /// (see [`IoLoop::plain`]).
    fn drive<Q: Queue, const EXTRAS: bool>(mut self, mut q: Q) -> io::Result<LoopStats> {
        let cfg = self.config;
        let clock = self.clock;
        let timing = cfg.tracking.any();
        // At iodepth 1 a queue that can wait as it submits sends each I/O
        // and waits for it in one call: there is no submission time to
        // read, and the I/O is timed from its start, as a synchronous
        // engine's (one clock read per I/O, no slat).
        let stamp = timing && !(Q::WAITS_IN_SUBMIT && cfg.depth <= 1);
        let depth = cfg.depth.max(1);
        if cfg.data_buffers {
            for slot in 0..depth {
                self.filler.init(q.buffer(slot));
            }
        }
        let mut free: Vec<u32> = (0..depth).rev().collect();
        let mut slots = vec![Slot::default(); depth as usize];
        let mut pending: Vec<u32> = Vec::with_capacity(depth as usize);
        let mut reaped = Vec::with_capacity(depth as usize);

        self.ticket.wait();
        let mut cpu_start = ThreadCpu::now();
        let start = clock.now();
        let verify = self.verify.take();
        // Verify checks each pass's writes before the next pass starts;
        // without it, the next pass starts once this one's I/O is done.
        let verify_breaks = verify
            .as_ref()
            .is_some_and(|v| v.do_verify && !v.reads_back);
        let checks = match verify.as_ref().filter(|_| cfg.verify_async > 0) {
            Some(v) => Some(AsyncChecks::start(
                v.verifier(),
                cfg.verify_async,
                &cfg.verify_async_cpus,
            )?),
            None => None,
        };
        let mut ledger = Ledger {
            stats: LoopStats::new(cfg, &clock, start),
            // Bytes and I/Os for the status line, which ignores the ramp reset.
            shown: [(0, 0); 3],
            progress: self.progress,
            clock,
            cfg,
            verify,
            checks,
            paths: std::mem::take(&mut self.paths),
            trace: self.trace.take(),
            lat_target: cfg
                .latency_target
                .map(|p| latency_target::LatTarget::new(p, start)),
            zone_writes: self.workload.wants_zone_writes().then(Vec::new),
            zone_write_bytes: self.workload.wants_failed_zone_write_bytes(),
            slat: cfg.tracking.slat && stamp,
            clat_shown: (0, 0),
            run: Run::default(),
            batch_dirs: 0,
        };
        ledger.stats.prio = self.prio.as_ref().and_then(PerIoPrio::tally);
        let ramp_end = start + cfg.ramp_ticks;
        // Whether the job ramps (ramp_time or ramp_size) is decided where
        // the worker's progress is made, which shows it to the others.
        let mut ramping = self.progress.ramping.load(Ordering::Relaxed);
        // The runtime counts from the ramp's end, which sets it.
        let mut deadline = cfg.runtime_ticks.filter(|_| !ramping).map(|r| start + r);
        // Slots kept free below the depth latency_target's search allows.
        let mut reserve = 0;

        let mut now = start;
        let pace = cfg.replay_paced.then_some(Pace { clock, start });
        let mut fill = Fill::new(
            self.iolog.take(),
            pace,
            self.pacer.take(),
            self.write_mix.take(),
            cfg.syncs.any(),
            cfg.close_fsync,
        );
        // Every pass's I/O is done before the next begins, as fio's do_io
        // waits for what is in flight at its end; its syncs come then.
        self.workload.break_between_loops(verify_breaks);
        if fill.wants_closes() {
            self.workload.record_closes();
        }
        if let Some(p) = &mut fill.pacer {
            p.restart(start);
        }
        // The pacer holds the worker back (fill gave Next::Hold).
        let mut held = false;
        // When a paced replay's next I/O is due.
        let mut due = None;
        let mut stopped = false;
        let mut refill = true;
        // The pass's end syncs are done (or none is due yet).
        let mut pass_synced = false;

        'main: loop {
            if !timing {
                now = clock.now();
            }
            if signal::interrupted() || self.stop.load(Ordering::Relaxed) {
                stopped = true;
                break;
            }
            if self.progress.status.asked() {
                self.answer_status(&mut ledger, cpu_start);
            }
            if fill.writing && deadline.is_some_and(|d| now >= d) {
                // The runtime bounds the workload; a verify phase still
                // follows, as in fio.
                if ledger.verify.as_ref().is_none_or(|v| !v.do_verify) {
                    break;
                }
                fill.writing = false;
            }
            if EXTRAS && ledger.checks.is_some() {
                // Verdicts back from verify_async free their slots; with
                // every slot held and nothing in flight, wait for one.
                let wait = free.is_empty() && q.in_flight() == 0;
                if !ledger.take_verdicts(&mut q, &slots, &mut free, wait) {
                    break 'main;
                }
            }
            if ramping && self.ramp_over(now, ramp_end) {
                ramping = false;
                self.progress.ramping.store(false, Ordering::Relaxed);
                self.progress.restart_epoch();
                cpu_start = self.end_ramp(&mut ledger, now);
                // As fio restarts the job's epoch: a runtime is measured
                // from here, however long the ramp took.
                deadline = cfg.runtime_ticks.map(|r| now + r);
                if let Some(p) = &mut fill.pacer {
                    p.restart(now);
                }
            }
            if EXTRAS && ledger.lat_target.is_some() {
                use latency_target::{between, Verdict};
                match between(&mut q, &mut ledger, &mut reaped, &slots, &mut free, ramping)? {
                    Verdict::Go => {}
                    Verdict::Stop => break 'main,
                    Verdict::Restart => {
                        now = clock.now();
                        cpu_start = self.end_ramp(&mut ledger, now);
                        deadline = cfg.runtime_ticks.map(|r| now + r);
                    }
                }
                reserve = ledger
                    .lat_target
                    .as_ref()
                    .map_or(0, |t| depth.saturating_sub(t.depth()))
                    as usize;
            }
            if let Some(p) = fill.pacer.as_mut().filter(|_| EXTRAS && !ramping) {
                if !pace::min_rate_met(p, &mut ledger, now) {
                    break 'main;
                }
            }

            // Fill the queue (below the low watermark, as fio refills).
            while let Some(slot) = (refill && free.len() > reserve && !q.busy())
                .then(|| free.pop())
                .flatten()
            {
                let mut t_start = now;
                if let Some(done) = ledger
                    .zone_writes
                    .as_mut()
                    .filter(|d| EXTRAS && !d.is_empty())
                {
                    self.workload.zone_writes_done(done);
                }
                let next = fill.next::<Q, EXTRAS>(
                    &mut q,
                    slot,
                    &mut self.workload,
                    &mut self.filler,
                    ledger.verify.as_mut(),
                    cfg,
                );
                if let Some(events) = self.workload.take_file_events() {
                    if events.unlink {
                        let go_on = file_events::new_loop(
                            &mut q,
                            &mut ledger,
                            Batches {
                                pending: &mut pending,
                                slots: &mut slots,
                                free: &mut free,
                                reaped: &mut reaped,
                            },
                            self.files,
                            stamp,
                        )?;
                        if !go_on {
                            free.push(slot);
                            break 'main;
                        }
                        // The I/O starts once its file is there.
                        now = clock.now();
                        t_start = now;
                    }
                    if let Some(drop) = events.drop {
                        file_events::drop_caches(self.files, drop, ledger.trace.as_mut());
                    }
                }
                // The zone commands of the choice, made whatever it gave: a
                // zone finished as the pass ends is finished on the device.
                if let Some(commands) = EXTRAS.then(|| self.workload.take_zone_commands()).flatten()
                {
                    let io = Batches {
                        pending: &mut pending,
                        slots: &mut slots,
                        free: &mut free,
                        reaped: &mut reaped,
                    };
                    let go_on = zone_commands::make(
                        commands,
                        &mut q,
                        &mut ledger,
                        &mut self.workload,
                        io,
                        stamp,
                    )?;
                    if !go_on {
                        free.push(slot);
                        break 'main;
                    }
                    now = clock.now();
                    t_start = now;
                }
                let (req, work) = match next {
                    Next::Issue(req, work) => (req, work),
                    Next::Skip => {
                        free.push(slot);
                        continue;
                    }
                    Next::Stop => {
                        free.push(slot);
                        break;
                    }
                    Next::Wait(at) => {
                        free.push(slot);
                        due = Some(at);
                        break;
                    }
                    Next::Hold => {
                        free.push(slot);
                        held = true;
                        break;
                    }
                };
                // fio takes the lock in td_io_prep, before the issue time.
                let lock = EXTRAS.then(|| self.locks.take(req.file, req.op)).flatten();
                ledger.stats.issued[dir_index(req.op).unwrap_or(0)] += u64::from(!req.op.is_sync());
                // A queued request's submission time is stamped at commit;
                // only a backend that completes in `submit` needs one here.
                // (A queued backend's rare request that does complete in
                // `submit`, such as io_uring's sync_file_range, is timed
                // from its start.)
                let t_issue = if timing && Q::COMPLETES_IN_SUBMIT {
                    clock.now()
                } else {
                    now
                };
                slots[slot as usize] = Slot {
                    op: Some(req.op),
                    file: req.file,
                    offset: req.offset,
                    len: req.len,
                    start: t_start,
                    issue: t_issue,
                    queued: false,
                    work,
                    prio: 0,
                };
                if let Some(p) = self.prio.as_mut().filter(|_| EXTRAS) {
                    slots[slot as usize].prio = p.apply(&mut q, &req);
                }
                if let Some(t) = ledger.trace.as_mut().filter(|_| EXTRAS) {
                    let path = ledger.paths.get(req.file as usize);
                    t.io_u(
                        "queue",
                        slot,
                        req.op,
                        req.offset,
                        req.len,
                        path.map(PathBuf::as_path),
                    );
                }
                // serialize_overlap: what it overlaps completes first (fio
                // answers FIO_Q_BUSY, commits and reaps).
                while EXTRAS
                    && cfg.serialize_overlap
                    && q.in_flight() > 0
                    && serialize::overlaps(&slots, &free, slot, req.offset, req.len)
                {
                    if !pending.is_empty() {
                        let stats = &mut ledger.stats;
                        commit(&mut q, &mut pending, &mut slots, stats, &clock, stamp)?;
                    }
                    let max = cfg.complete_max.max(1);
                    let (n, ok, t_done) =
                        ledger.reap(&mut q, 1, max, &mut reaped, &slots, &mut free)?;
                    now = if n > 0 { t_done } else { now };
                    if !ok {
                        break 'main;
                    }
                }
                // zonemode=zbd: the workload reset the zone as it gave the
                // trim (fio's zbd_do_io_u_trim, in the engine's queue);
                // nothing goes to the device. (One call of `submit` below,
                // which the compiler then inlines.)
                let zone_trim = match req.op {
                    Op::Trim if EXTRAS => self.workload.zone_trim(req.file, req.offset),
                    _ => None,
                };
                let submitted = match zone_trim {
                    None => q.submit(&req)?,
                    Some(true) => Submitted::Completed(i64::from(req.len)),
                    Some(false) => Submitted::Completed(-i64::from(libc::EINVAL)),
                };
                // A synchronous I/O ends as its call returns: the clock is
                // read before the lock lets the next I/O on the file in,
                // whose thread may take this one's CPU.
                let t_done = match submitted {
                    Submitted::Completed(_) if timing => clock.now(),
                    _ => t_issue,
                };
                drop(lock);
                match submitted {
                    Submitted::Completed(result) => {
                        now = t_done;
                        ledger.stats.depth.add_depth(1, 1);
                        ledger.stats.submit.add_batch(1);
                        ledger.stats.complete.add_batch(1);
                        let s = &slots[slot as usize];
                        let (ok, held) =
                            ledger.settle_as::<Q, EXTRAS, false>(&mut q, slot, s, result, t_done);
                        if !held {
                            free.push(slot);
                        }
                        if !ok {
                            break 'main;
                        }
                        // Back to the top: a synchronous queue never fills,
                        // and the deadline must be checked between I/Os.
                        continue 'main;
                    }
                    Submitted::Queued => {
                        slots[slot as usize].queued = true;
                        pending.push(slot);
                        // A full batch goes now if more are to be filled;
                        // the last goes with the wait below.
                        if pending.len() as u32 >= cfg.batch_submit && free.len() > reserve {
                            commit(
                                &mut q,
                                &mut pending,
                                &mut slots,
                                &mut ledger.stats,
                                &clock,
                                stamp,
                            )?;
                        }
                    }
                }
            }
            if let Some(p) = fill.pacer.as_mut().filter(|_| EXTRAS && held) {
                // What is queued runs while the pacer holds the worker.
                if !pending.is_empty() {
                    let stats = &mut ledger.stats;
                    commit(&mut q, &mut pending, &mut slots, stats, &clock, stamp)?;
                }
                held = false;
                let ok = pace::hold(
                    p,
                    &mut q,
                    &mut ledger,
                    &mut reaped,
                    &slots,
                    &mut free,
                    deadline,
                )?;
                if !ok {
                    break 'main;
                }
                now = clock.now();
                refill = true;
                continue;
            }
            if free.len() <= reserve && cfg.depth_low < depth - reserve as u32 {
                refill = false;
            }

            let nothing_due = !EXTRAS || ledger.verify.as_ref().is_none_or(VerifyLog::nothing_due);
            let in_flight = q.in_flight();
            if let Some(at) = due.take().filter(|_| in_flight == 0) {
                // Nothing to reap meanwhile: sleep until the replay's next
                // I/O, a little at a time so that a stop is seen.
                now = sleep_until(&clock, at, deadline);
                continue;
            }
            if in_flight == 0 && !fill.writing {
                if !pass_synced {
                    // The pass's I/O is done: its syncs come before its
                    // verify phase, or the next pass.
                    pass_synced = true;
                    // A verify phase or another pass follows: fio closes
                    // the files still open first (`clear_io_state`).
                    let more = verify_breaks || self.workload.paused_at_loop();
                    if !self.end_pass(&mut q, &mut ledger, &mut fill, free.last().copied(), more) {
                        break 'main;
                    }
                }
                if let Some(done) = ledger.zone_writes.as_mut() {
                    // The pass's writes have completed: their zones close
                    // before the next pass (or its verify phase) starts.
                    self.workload.zone_writes_done(done);
                }
                if !verify_breaks
                    && self.workload.paused_at_loop()
                    && ledger.stats.failure.is_none()
                    && self.workload.resume_loop(None)
                {
                    // No verify phase between passes: the next starts.
                    fill.writing = true;
                    pass_synced = false;
                    continue;
                }
            }
            if in_flight == 0 {
                let verifying = ledger.verify.as_ref().is_some_and(|v| v.phase_started);
                let go_on = ledger.when_drained(
                    &mut q,
                    &slots,
                    &mut free,
                    fill.writing,
                    nothing_due,
                    self.job,
                );
                if !verifying
                    && ledger
                        .verify
                        .as_ref()
                        .is_some_and(|v| v.phase_started && v.do_verify)
                {
                    // fio closes the files after the writes and opens them
                    // again for the verify phase.
                    if let Some(log) = &mut fill.iolog {
                        log.close_files();
                    }
                }
                if go_on {
                    continue;
                }
                // A pass's verify phase is over: the next pass writes, if
                // one follows (fio counts the reads made towards io_size).
                let moved = ledger.shown.iter().map(|(bytes, _)| bytes).sum();
                if self.config.close_fsync && ledger.verify.as_ref().is_some_and(|v| v.do_verify) {
                    // fio closes the files it read with an fsync, the
                    // reads having left no sync last.
                    let all: Vec<u32> = (0..self.files.len() as u32).collect();
                    if let Err(failure) = pass_end::close_fsyncs(self.files, &all) {
                        ledger.stats.failure.get_or_insert(failure);
                        break 'main;
                    }
                }
                if ledger.stats.failure.is_none() && self.workload.resume_loop(Some(moved)) {
                    if let Some(v) = ledger.verify.as_mut() {
                        v.next_loop();
                    }
                    ledger.switch_phase();
                    fill.writing = true;
                    pass_synced = false;
                    continue;
                }
                break;
            }
            // The pass has issued its last I/O and nothing else is due:
            // as fio's loop ends, everything in flight is waited for in
            // one reap (io_u_queued_complete of cur_depth).
            let (min, max) = if !fill.writing && nothing_due {
                (in_flight, in_flight)
            } else {
                let must_wait = free.len() <= reserve || !refill || q.busy();
                (reap_min(cfg, must_wait, in_flight), cfg.complete_max.max(1))
            };
            if !pending.is_empty() {
                // What was queued above (nothing is in flight otherwise, so
                // the branches before cannot have skipped it), sent with
                // the wait for `min` completions: one io_uring_enter per
                // I/O at QD1, as t/io_uring makes.
                let stats = &mut ledger.stats;
                commit_and_wait(&mut q, &mut pending, &mut slots, stats, &clock, stamp, min)?;
            }
            let (n, ok, t_done) =
                ledger.reap_as::<Q, EXTRAS>(&mut q, min, max, &mut reaped, &slots, &mut free)?;
            if n > 0 {
                now = t_done;
            }
            if !ok {
                break 'main;
            }
            refill = q.in_flight() <= cfg.depth_low;
        }

        // Whatever is still in flight completes and is counted.
        if !pending.is_empty() {
            commit(
                &mut q,
                &mut pending,
                &mut slots,
                &mut ledger.stats,
                &clock,
                stamp,
            )?;
        }
        while q.in_flight() > 0 {
            ledger.reap(&mut q, 1, depth, &mut reaped, &slots, &mut free)?;
        }
        // Blocks handed to verify_async are checked and counted too.
        while ledger.checks.as_ref().is_some_and(|c| c.pending > 0) {
            if !ledger.take_verdicts(&mut q, &slots, &mut free, true) {
                break;
            }
        }
        // A pass cut short (by the runtime, a stop) ends as any other; one
        // that failed does not sync (fio syncs only without an error).
        if !pass_synced && ledger.stats.failure.is_none() {
            self.end_pass(&mut q, &mut ledger, &mut fill, free.last().copied(), false);
        }
        if let Some(log) = fill.iolog.take() {
            if let Err(m) = log.close() {
                ledger.stats.failure.get_or_insert(job_failure(m));
            }
        }
        ledger.stats.loop_start = start;
        ledger.stats.faults_injected = q.faults_injected();
        ledger.stats.zone_resets = self.workload.zone_resets();
        ledger.stats.zone_unrecovered = self
            .workload
            .zone_writes_unrecovered()
            .iter()
            .map(|(f, why)| {
                let path = ledger::file_path(&ledger.paths, *f);
                (path.display().to_string(), why.clone())
            })
            .collect();
        if let Some(m) = self.workload.zone_failure() {
            ledger
                .stats
                .failure
                .get_or_insert(job_failure(m.to_string()));
        }
        ledger.stats.refused_setup_flags = q.refused_setup_flags();
        ledger.stats.latency_depth = ledger.lat_target.as_ref().map(|t| t.depth());
        Ok(self.finish(ledger, cpu_start, stopped))
    }

    /// The end of a pass's I/O, nothing in flight: the syncs the job asks
    /// for, unless its last request was a sync; with `fsync_on_close`,
    /// first the fsyncs of the files found done in the pass and, when
    /// `more` (a verify phase or another pass) follows, then those of the
    /// files still open, which fio closes before it goes on. Returns
    /// false when one failed, which is the job's failure.
    #[cold]
    fn end_pass<Q: Queue>(
        &self,
        q: &mut Q,
        ledger: &mut Ledger,
        fill: &mut Fill,
        slot: Option<u32>,
        more: bool,
    ) -> bool {
        let closed = fill.closed_unsynced.as_mut().map(std::mem::take);
        let Some(how) = self.config.end_sync.filter(|_| !fill.last_was_sync()) else {
            return true;
        };
        let closed = closed.unwrap_or_default();
        let still_open: Vec<u32> = match self.config.close_fsync && more {
            true => (0..self.files.len() as u32)
                .filter(|f| !closed.contains(f))
                .collect(),
            false => Vec::new(),
        };
        let synced = pass_end::close_fsyncs(self.files, &closed)
            .and_then(|()| pass_end::sync_files(q, how, self.files, slot, fill.iolog.as_mut()))
            .and_then(|()| pass_end::close_fsyncs(self.files, &still_open));
        match synced {
            Ok(()) => true,
            Err(failure) => {
                ledger.stats.failure.get_or_insert(failure);
                false
            }
        }
    }

    /// Whether the ramp is over at `now`: ramp_size's bytes completed, or
    /// else ramp_time's end (tick `ramp_end`) reached.
    #[inline]
    fn ramp_over(&self, now: u64, ramp_end: u64) -> bool {
        match &self.ramp_size {
            Some(r) => r.reached(),
            None => now >= ramp_end,
        }
    }

    /// The ramp is over: measurements start again from `now`, and so does
    /// the CPU charged to this thread and to the ring's helper threads.
    /// Returns the thread's CPU time at the restart.
    #[cold]
    fn end_ramp(&mut self, ledger: &mut Ledger, now: u64) -> ThreadCpu {
        // fio prints error_dump's lines as the errors happen, ramp or not.
        let errors = std::mem::take(&mut ledger.stats.errors);
        let block_life = ledger.stats.block_life.take();
        ledger.stats = LoopStats::new(self.config, &self.clock, now);
        // fio's reset_all_stats leaves the trim counts of
        // block_error_percentiles alone.
        ledger.stats.block_life = block_life;
        ledger.stats.errors.dumped = errors.dumped;
        ledger.stats.errors.dumped_more = errors.dumped_more;
        // fio's reset_all_stats restarts latency_target's search too.
        if let Some(t) = &mut ledger.lat_target {
            t.restart(now);
        }
        ledger.stats.prio = self.prio.as_ref().and_then(PerIoPrio::tally);
        let cpu_start = ThreadCpu::now();
        // Helper threads, like this one, are charged from here on.
        if let Some(helpers) = self.helpers {
            helpers.sample();
            ledger.stats.helpers_at_start = helpers.for_owner(current_tid());
        }
        self.punts.restart();
        cpu_start
    }

    /// Hands the status thread a copy of the stats so far, as the end of
    /// the loop would report them (sampling intervals still open stay
    /// out, as in fio's reports while it runs).
    #[cold]
    fn answer_status(&mut self, ledger: &mut Ledger, cpu_start: ThreadCpu) {
        // The records kept for the logs (one per I/O without
        // log_avg_msec) stay out: a report does not show them, and copying
        // them at every report would cost as much as the run's memory.
        let logs = ledger.stats.logs.take();
        let mut stats = ledger.stats.clone();
        ledger.stats.logs = logs;
        stats.end = self.clock.now();
        stats.cpu = ThreadCpu::now().since(&cpu_start);
        stats.punts = self.punts.punts();
        self.progress.status.answer(WorkerOutcome {
            tid: current_tid(),
            errno: stats.failure.as_ref().map_or(0, |f| f.errno),
            stats: Some(stats),
            message: None,
        });
    }

    /// The loop's totals once nothing is in flight: the end time, the CPU
    /// of this thread and of the ring's helpers, the punts, and verify's
    /// result (saving its state when a stop cut the write phase short).
    fn finish(mut self, mut ledger: Ledger, cpu_start: ThreadCpu, stopped: bool) -> LoopStats {
        ledger.checks = None;
        ledger.stats.end = self.clock.now();
        if let Some(helpers) = self.helpers {
            helpers.sample();
        }
        ledger.stats.punts = self.punts.punts();
        for dir in &mut ledger.stats.dirs {
            dir.rate.finish(ledger.stats.end);
        }
        if let Some(logs) = &mut ledger.stats.logs {
            logs.finish(ledger.stats.end);
        }
        ledger.stats.cpu = ThreadCpu::now().since(&cpu_start);
        if let Some(v) = ledger.verify.take() {
            // Stopped while writing: the write phase's end never came.
            if stopped && !v.phase_started {
                if let Err(e) = v.save_state(self.job) {
                    ledger.stats.failure.get_or_insert(job_failure(e));
                }
            }
            ledger.stats.verify = Some(v.finish(stopped));
        }
        ledger.stats
    }
}

/// Sleeps until tick `at` (or the runtime's end, when sooner) in steps of
/// at most 10 ms, returning early on a stop; returns the time it woke.
fn sleep_until(clock: &Clock, at: u64, deadline: Option<u64>) -> u64 {
    let until = deadline.map_or(at, |d| d.min(at));
    loop {
        let now = clock.now();
        if now >= until || signal::interrupted() {
            return now;
        }
        let left = clock.elapsed_ns(now, until).min(10_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(left));
    }
}

/// How many completions a reap must wait for: none when the queue can
/// still take requests, otherwise at least `complete_min` and enough to
/// bring the queue down to its low watermark.
#[inline]
fn reap_min(cfg: &LoopConfig, must_wait: bool, in_flight: u32) -> u32 {
    if must_wait {
        cfg.complete_min
            .max(in_flight.saturating_sub(cfg.depth_low))
            .clamp(1, in_flight)
    } else {
        0
    }
}
