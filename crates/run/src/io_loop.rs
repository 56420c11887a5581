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

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ioscope_engine::{Completion, Op, Queue, QueueUser, Request, Submitted, TrimRange};
use ioscope_job::{ErrorClass, ErrorPolicy};
use ioscope_stats::{
    current_tid, Clock, DepthDist, HelperCpu, HelperTracker, LatencyBuckets, LatencyHistogram,
    PuntTally, Punts, RateSampler, Summary, ThreadCpu,
};
use ioscope_workload::{BlockId, BufferFiller, DataDir, IoUnit, Workload};

use crate::progress::WorkerProgress;
use crate::signal;
use crate::start_gate::Ticket;
use crate::verify::{SlotWork, Verdict, VerifyLog, VerifyOutcome};
use crate::verify_async::AsyncChecks;

/// Which latencies to measure and which get histograms.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tracking {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub slat_hist: bool,
    pub clat_hist: bool,
    pub lat_hist: bool,
}

impl Tracking {
    fn any(&self) -> bool {
        self.slat || self.clat || self.lat
    }
}

/// The knobs of the loop, resolved from the job.
#[derive(Clone, Debug)]
pub(crate) struct LoopConfig {
    pub depth: u32,
    pub batch_submit: u32,
    pub complete_min: u32,
    pub complete_max: u32,
    pub depth_low: u32,
    /// fsync after this many writes; 0 for never.
    pub fsync_every: u32,
    /// What a write becomes: Write, or a command without data (NVMe Write
    /// Zeroes with io_uring_cmd's write_mode=zeroes).
    pub write_op: Op,
    /// `num_range`: above 1, a trim goes out with the workload's next
    /// trims as one request of up to this many ranges ([`Op::TrimRanges`]).
    pub trim_ranges: u16,
    /// Some request moves data, so the buffers are filled once at the
    /// start. A job whose commands carry no data leaves them untouched.
    pub data_buffers: bool,
    pub tracking: Tracking,
    /// Ramp and run durations in clock ticks; `runtime` None means size-bound.
    pub ramp_ticks: u64,
    pub runtime_ticks: Option<u64>,
    /// Interval of the bandwidth/IOPS samples.
    pub sample_ms: u64,
    /// Which errors the job counts and goes on after.
    pub errors: ErrorPolicy,
    /// verify_async: threads that check blocks read back; 0 checks them
    /// in the worker.
    pub verify_async: u32,
}

/// One direction's measurements.
#[derive(Clone, Debug)]
pub(crate) struct DirStats {
    pub bytes: u64,
    pub ios: u64,
    pub short: u64,
    pub slat: Summary,
    pub clat: Summary,
    pub lat: Summary,
    pub slat_hist: Option<LatencyHistogram>,
    pub clat_hist: Option<LatencyHistogram>,
    pub lat_hist: Option<LatencyHistogram>,
    pub rate: RateSampler,
}

impl DirStats {
    fn new(tracking: &Tracking, clock: &Clock, sample_ms: u64, start: u64) -> DirStats {
        let hist = |on: bool| on.then(LatencyHistogram::new);
        DirStats {
            bytes: 0,
            ios: 0,
            short: 0,
            slat: Summary::default(),
            clat: Summary::default(),
            lat: Summary::default(),
            slat_hist: hist(tracking.slat && tracking.slat_hist),
            clat_hist: hist(tracking.clat && tracking.clat_hist),
            lat_hist: hist(tracking.lat && tracking.lat_hist),
            rate: RateSampler::new(clock, sample_ms, start),
        }
    }
}

/// The first I/O error of a worker, with what fio prints about it.
#[derive(Clone, Debug)]
pub(crate) struct IoFailure {
    pub errno: i32,
    pub op: Op,
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    /// What a failed verify found, which says more than the errno.
    pub detail: Option<String>,
}

/// Errors the job went on after (continue_on_error).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ErrorCount {
    pub total: u64,
    /// errno of the first, 0 when none.
    pub first: i32,
}

impl ErrorCount {
    fn add(&mut self, errno: i32) {
        self.total += 1;
        if self.first == 0 {
            self.first = errno;
        }
    }
}

/// Everything one worker measured.
#[derive(Clone, Debug)]
pub(crate) struct LoopStats {
    /// [read, write, trim].
    pub dirs: [DirStats; 3],
    pub sync_ios: u64,
    pub sync_lat: Summary,
    pub sync_hist: Option<LatencyHistogram>,
    pub depth: DepthDist,
    pub submit: DepthDist,
    pub complete: DepthDist,
    /// Requests issued: [read, write, trim].
    pub issued: [u64; 3],
    pub lat_buckets: LatencyBuckets,
    pub failure: Option<IoFailure>,
    pub errors: ErrorCount,
    /// What verify found, when the job verifies.
    pub verify: Option<VerifyOutcome>,
    /// When the verify phase began, and the I/Os of each direction by then:
    /// fio charges the phase's time to the directions it uses.
    pub verify_phase: Option<(u64, [u64; 3])>,
    /// Faults the faulty engine injected.
    pub faults_injected: u64,
    /// Ticks when measuring began (after the ramp) and when the loop ended.
    pub measure_start: u64,
    pub end: u64,
    pub loop_start: u64,
    /// CPU of this thread over the measured period.
    pub cpu: ThreadCpu,
    /// The helper threads' CPU when measuring began (after the ramp).
    pub helpers_at_start: HelperCpu,
    /// Requests punted to io-wq while measuring.
    pub punts: Punts,
}

impl LoopStats {
    fn new(config: &LoopConfig, clock: &Clock, now: u64) -> LoopStats {
        let t = &config.tracking;
        LoopStats {
            dirs: [
                DirStats::new(t, clock, config.sample_ms, now),
                DirStats::new(t, clock, config.sample_ms, now),
                DirStats::new(t, clock, config.sample_ms, now),
            ],
            sync_ios: 0,
            sync_lat: Summary::default(),
            sync_hist: (t.lat && t.clat_hist).then(LatencyHistogram::new),
            depth: DepthDist::default(),
            submit: DepthDist::default(),
            complete: DepthDist::default(),
            issued: [0; 3],
            lat_buckets: LatencyBuckets::default(),
            failure: None,
            errors: ErrorCount::default(),
            verify: None,
            verify_phase: None,
            faults_injected: 0,
            measure_start: now,
            end: now,
            loop_start: now,
            cpu: ThreadCpu::default(),
            helpers_at_start: HelperCpu::default(),
            punts: Punts::default(),
        }
    }
}

/// Where each in-flight request came from.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    op: Option<Op>,
    file: u32,
    offset: u64,
    len: u32,
    /// Ticks when preparation began and when submitted.
    start: u64,
    issue: u64,
    /// Submitted to an asynchronous queue, so it has a submission latency.
    queued: bool,
    work: SlotWork,
}

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
}

impl QueueUser for IoLoop<'_> {
    type Output = io::Result<LoopStats>;

    fn run<Q: Queue>(mut self, mut q: Q) -> io::Result<LoopStats> {
        let cfg = self.config;
        let clock = self.clock;
        let timing = cfg.tracking.any();
        let depth = cfg.depth.max(1);
        if cfg.data_buffers {
            for slot in 0..depth {
                self.filler.init(q.buffer(slot));
            }
        }
        let mut free: Vec<u32> = (0..depth).rev().collect();
        let mut slots = vec![Slot::default(); depth as usize];
        let mut pending: Vec<u32> = Vec::with_capacity(depth as usize);
        let mut reaped: Vec<Completion> = Vec::with_capacity(depth as usize);

        self.ticket.wait();
        let mut cpu_start = ThreadCpu::now();
        let start = clock.now();
        let verify = self.verify.take();
        let checks = match verify.as_ref().filter(|_| cfg.verify_async > 0) {
            Some(v) => Some(AsyncChecks::start(v.verifier(), cfg.verify_async)?),
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
        };
        let ramp_end = start + cfg.ramp_ticks;
        let mut ramping = cfg.ramp_ticks > 0;
        let deadline = cfg.runtime_ticks.map(|r| ramp_end + r);

        let mut now = start;
        // The workload still has I/O to give.
        let mut writing = true;
        let mut stopped = false;
        let mut refill = true;
        let mut writes_since_fsync = 0u32;
        let mut fsync_due: Option<u32> = None;
        // An I/O the workload gave while trims were being gathered that
        // could not join them: it is the next one issued.
        let mut held: Option<IoUnit> = None;

        'main: loop {
            if !timing {
                now = clock.now();
            }
            if signal::interrupted() || self.stop.load(Ordering::Relaxed) {
                stopped = true;
                break;
            }
            if writing && deadline.is_some_and(|d| now >= d) {
                // The runtime bounds the workload; a verify phase still
                // follows, as in fio.
                if ledger.verify.as_ref().is_none_or(|v| !v.do_verify) {
                    break;
                }
                writing = false;
            }
            if ledger.checks.is_some() {
                // Verdicts back from verify_async free their slots; with
                // every slot held and nothing in flight, wait for one.
                let wait = free.is_empty() && q.in_flight() == 0;
                if !ledger.take_verdicts(&mut q, &slots, &mut free, wait) {
                    break 'main;
                }
            }
            if ramping && now >= ramp_end {
                ramping = false;
                ledger.stats = LoopStats::new(cfg, &clock, now);
                cpu_start = ThreadCpu::now();
                // Helper threads, like this one, are charged from here on.
                if let Some(helpers) = self.helpers {
                    helpers.sample();
                    ledger.stats.helpers_at_start = helpers.for_owner(current_tid());
                }
                self.punts.restart();
            }

            // Fill the queue (below the low watermark, as fio refills).
            while let Some(slot) = refill.then(|| free.pop()).flatten() {
                let t_start = now;
                let mut work = SlotWork::Plain;
                let req = if let Some(file) = fsync_due.take() {
                    Request {
                        op: Op::Fsync,
                        file,
                        offset: 0,
                        len: 0,
                        slot,
                    }
                } else if let Some(due) = ledger.verify.as_mut().and_then(VerifyLog::next_due) {
                    work = due;
                    check_request(due, slot)
                } else if !writing {
                    free.push(slot);
                    break;
                } else if let Some(unit) = held.take().or_else(|| self.workload.next()) {
                    let op = match unit.dir {
                        DataDir::Read => Op::Read,
                        DataDir::Write => cfg.write_op,
                        DataDir::Trim => Op::Trim,
                    };
                    if let Some(v) = ledger.verify.as_mut() {
                        if op == Op::Write {
                            let Some(block) = v.number_write(unit.file, unit.offset, unit.len)
                            else {
                                // verify_state_load: the run that wrote
                                // made no more writes than these.
                                writing = false;
                                free.push(slot);
                                break;
                            };
                            if v.only {
                                // verify_only: what would have been written
                                // is recorded and checked, nothing is sent.
                                v.written(block);
                                free.push(slot);
                                continue;
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
                            // verify_only replays a mixed workload's
                            // writes; its reads are not made.
                            free.push(slot);
                            continue;
                        }
                    }
                    if op.modifies() {
                        // Only a command that sends data gets its buffer
                        // filled: scrambling buffers for Write Zeroes costs
                        // time that grows with the depth and moves nothing.
                        if op.carries_data() && work == SlotWork::Plain {
                            let buf = &mut q.buffer(slot)[..unit.len as usize];
                            self.filler.prepare_write(buf, unit.offset);
                        }
                        writes_since_fsync += 1;
                        if cfg.fsync_every > 0 && writes_since_fsync >= cfg.fsync_every {
                            writes_since_fsync = 0;
                            fsync_due = Some(unit.file);
                        }
                    }
                    if op == Op::Trim && cfg.trim_ranges > 1 {
                        gather_trims(
                            &mut self.workload,
                            &mut held,
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
                    }
                } else {
                    free.push(slot);
                    writing = false;
                    break;
                };
                ledger.stats.issued[dir_index(req.op).unwrap_or(0)] +=
                    u64::from(req.op != Op::Fsync);
                let t_issue = if timing { clock.now() } else { now };
                slots[slot as usize] = Slot {
                    op: Some(req.op),
                    file: req.file,
                    offset: req.offset,
                    len: req.len,
                    start: t_start,
                    issue: t_issue,
                    queued: false,
                    work,
                };
                match q.submit(&req)? {
                    Submitted::Completed(result) => {
                        let t_done = if timing { clock.now() } else { t_issue };
                        now = t_done;
                        ledger.stats.depth.add_depth(1, 1);
                        ledger.stats.submit.add_batch(1);
                        ledger.stats.complete.add_batch(1);
                        let (ok, held) =
                            ledger.settle(&mut q, slot, &slots[slot as usize], result, t_done);
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
                        if pending.len() as u32 >= cfg.batch_submit {
                            commit(
                                &mut q,
                                &mut pending,
                                &mut slots,
                                &mut ledger.stats,
                                &clock,
                                timing,
                            )?;
                        }
                    }
                }
            }
            if !pending.is_empty() {
                commit(
                    &mut q,
                    &mut pending,
                    &mut slots,
                    &mut ledger.stats,
                    &clock,
                    timing,
                )?;
            }
            if free.is_empty() && cfg.depth_low < depth {
                refill = false;
            }

            let nothing_due = ledger.verify.as_ref().is_none_or(VerifyLog::nothing_due);
            let in_flight = q.in_flight();
            if in_flight == 0 {
                let checking = ledger.checks.as_ref().is_some_and(|c| c.pending > 0);
                if checking && !ledger.take_verdicts(&mut q, &slots, &mut free, true) {
                    break 'main;
                }
                if writing || !nothing_due || checking {
                    continue;
                }
                // Every write has completed (and so is logged): the verify
                // phase can begin.
                match ledger.verify.as_mut() {
                    Some(v) if !v.phase_started => {
                        v.start_phase();
                        if let Err(e) = v.save_state(self.job) {
                            ledger.stats.failure.get_or_insert(verify_failure(e));
                            break 'main;
                        }
                        let ios = ledger.stats.dirs.each_ref().map(|d| d.ios);
                        ledger.stats.verify_phase = Some((clock.now(), ios));
                        continue;
                    }
                    _ => break,
                }
            }
            let must_wait = free.is_empty() || (!writing && nothing_due) || !refill;
            let min = if must_wait {
                cfg.complete_min
                    .max(in_flight.saturating_sub(cfg.depth_low))
                    .clamp(1, in_flight)
            } else {
                0
            };
            let (n, ok, t_done) = ledger.reap(
                &mut q,
                min,
                cfg.complete_max.max(1),
                &mut reaped,
                &slots,
                &mut free,
            )?;
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
                timing,
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
        ledger.checks = None;
        ledger.stats.end = clock.now();
        if let Some(helpers) = self.helpers {
            helpers.sample();
        }
        ledger.stats.punts = self.punts.punts();
        for dir in &mut ledger.stats.dirs {
            dir.rate.finish(ledger.stats.end);
        }
        ledger.stats.loop_start = start;
        ledger.stats.cpu = ThreadCpu::now().since(&cpu_start);
        ledger.stats.faults_injected = q.faults_injected();
        if let Some(v) = ledger.verify.take() {
            // Stopped while writing: the write phase's end never came.
            if stopped && !v.phase_started {
                if let Err(e) = v.save_state(self.job) {
                    ledger.stats.failure.get_or_insert(verify_failure(e));
                }
            }
            ledger.stats.verify = Some(v.finish(stopped));
        }
        Ok(ledger.stats)
    }
}

/// The path of file `file` of the worker, for messages.
fn file_path(paths: &[PathBuf], file: u32) -> &Path {
    paths
        .get(file as usize)
        .map_or(Path::new(""), PathBuf::as_path)
}

/// Whether a read or write moved fewer bytes than it asked for.
#[inline]
fn is_short(slot: &Slot, result: i64) -> bool {
    matches!(slot.op, Some(Op::Read | Op::Write))
        && result >= 0
        && (result as u64) < u64::from(slot.len)
}

/// A failure of verify itself (a state that could not be saved, so a
/// later verify_state_load would check the wrong writes; checker threads
/// gone) fails the job with EIO and `detail`.
fn verify_failure(detail: String) -> IoFailure {
    IoFailure {
        errno: libc::EIO,
        op: Op::Write,
        file: 0,
        offset: 0,
        len: 0,
        detail: Some(detail),
    }
}

/// The request a verify check issues.
fn check_request(work: SlotWork, slot: u32) -> Request {
    let (op, b) = match work {
        SlotWork::Trim(b) => (Op::Trim, b),
        SlotWork::Check(b) | SlotWork::ZeroCheck(b) => (Op::Read, b),
        SlotWork::Write(_) | SlotWork::ReadBack(_) | SlotWork::Plain => {
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

fn dir_index(op: Op) -> Option<usize> {
    match op {
        Op::Read => Some(0),
        Op::Write | Op::WriteZeroes { .. } => Some(1),
        Op::Trim | Op::TrimRanges { .. } => Some(2),
        Op::Fsync => None,
    }
}

/// fio's `num_range`: the trim `first` and up to `max - 1` trims the
/// workload gives after it, laid as ranges in the slot's buffer `buf` and
/// sent as one request. Gathering stops at the workload's end, or at an
/// I/O that cannot join (another direction or file, or one that would take
/// the total past a request's 32-bit length), which is held in `held` for
/// the next request. fio's io_u carries the ranges' total as its length,
/// and fio counts it as one trim of that many bytes; so does this loop (one
/// issued trim, one completion, the summed bytes).
fn gather_trims(
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

/// Sends the pending requests and stamps their submission time.
fn commit<Q: Queue>(
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

/// What completing a request updates: the measurements, the counters the
/// status line reads, and the verify bookkeeping.
struct Ledger<'a> {
    stats: LoopStats,
    shown: [(u64, u64); 3],
    progress: &'a WorkerProgress,
    clock: Clock,
    cfg: &'a LoopConfig,
    verify: Option<VerifyLog>,
    /// verify_async's checkers, when the job has them.
    checks: Option<AsyncChecks>,
    paths: Vec<PathBuf>,
}

impl Ledger<'_> {
    /// Reaps between `min` and `max` completions, accounts them at one
    /// completion time, and frees their slots. Returns how many were
    /// reaped, false when the worker must stop, and the completion time.
    fn reap<Q: Queue>(
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
        let mut ok = true;
        for c in reaped.iter() {
            let (settled, held) = self.settle(q, c.slot, &slots[c.slot as usize], c.result, t_done);
            ok &= settled;
            if !held {
                free.push(c.slot);
            }
        }
        Ok((n, ok, t_done))
    }

    /// Accounts one completion and does what verify needs done with it.
    /// Returns false when the worker must stop, and whether the slot is
    /// held (its block handed to a verify_async checker).
    #[inline]
    fn settle<Q: Queue>(
        &mut self,
        q: &mut Q,
        slot_id: u32,
        slot: &Slot,
        result: i64,
        t_done: u64,
    ) -> (bool, bool) {
        if !self.finish(slot, result, t_done) {
            return (false, false);
        }
        // A failed or short transfer was an error (counted, or the end of
        // the job): there is nothing to check or log.
        if slot.work == SlotWork::Plain || result < 0 || is_short(slot, result) {
            return (true, false);
        }
        let Some(v) = self.verify.as_mut() else {
            return (true, false);
        };
        match slot.work {
            SlotWork::Write(block) => v.written(block),
            SlotWork::Trim(block) => v.trimmed(block),
            work => {
                if let Some(checks) = &mut self.checks {
                    if checks.send(slot_id, work, q.buffer(slot_id)) {
                        return (true, true);
                    }
                    self.stats.failure.get_or_insert(verify_failure(
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
    fn judge(&mut self, verdict: Verdict, slot: &Slot) -> bool {
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
    fn take_verdicts<Q: Queue>(
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
                    self.stats.failure.get_or_insert(verify_failure(
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
    #[inline]
    fn finish(&mut self, slot: &Slot, result: i64, t_done: u64) -> bool {
        let Ledger {
            stats,
            shown,
            progress,
            clock,
            cfg,
            paths,
            ..
        } = self;
        let Some(op) = slot.op else { return true };
        // A read or write that moved fewer bytes than asked (a file that
        // shrank under the job, a device that ended) is an error, as fio's
        // "full resid" EIO: counting it as an I/O would report empty reads
        // as IOPS.
        let short = is_short(slot, result);
        if result < 0 || short {
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
            return false;
        }
        let t = &cfg.tracking;
        let lat_ns = clock.to_ns(t_done.saturating_sub(slot.start));
        let Some(d) = dir_index(op) else {
            stats.sync_ios += 1;
            if t.lat {
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
        // fio's coarse buckets count completion latency (submission to
        // completion), not the total.
        let clat_ns = clock.to_ns(t_done.saturating_sub(slot.issue));
        if t.clat {
            dir.clat.add(clat_ns);
            if let Some(h) = &mut dir.clat_hist {
                h.add(clat_ns);
            }
        }
        if t.slat && slot.queued {
            let v = clock.to_ns(slot.issue - slot.start);
            dir.slat.add(v);
            if let Some(h) = &mut dir.slat_hist {
                h.add(v);
            }
        }
        if t.lat {
            dir.lat.add(lat_ns);
            if let Some(h) = &mut dir.lat_hist {
                h.add(lat_ns);
            }
        }
        if t.slat || t.clat || t.lat {
            stats.lat_buckets.add(clat_ns);
        }
        dir.rate.tick(t_done, dir.bytes, dir.ios);
        let s = &mut shown[d];
        s.0 += bytes;
        s.1 += 1;
        // The status line shows reads and writes only.
        if d < 2 {
            progress.bytes[d].store(s.0, Ordering::Relaxed);
            progress.ios[d].store(s.1, Ordering::Relaxed);
        }
        true
    }
}
