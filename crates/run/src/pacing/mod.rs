//! Pacing a worker's I/O as fio does: rate caps (`rate`, `rate_iops`,
//! linear or poisson), think time, `number_ios`, flows between jobs and
//! the `rate_min` floor. The loop asks the [`Pacer`] before each I/O of
//! the workload whether it may go, and holds back as told; a job with
//! none of these options has no pacer, so the loop pays one branch.
//!
//! The arithmetic follows fio 3.33: `usec_for_io` and `handle_thinktime`
//! (backend.c), `rate_ddir` (io_u.c), `__check_min_rate` (backend.c) and
//! flow.c.

mod flows;

use std::time::Duration;

use ioscope_job::{JobSpec, PacingSpec, RateProcess, RwKind, SubmitMode, ThinkBlocks};
use ioscope_stats::Clock;
use ioscope_workload::{fio_seeds, DataDir, FioRand};

pub(crate) use flows::{FlowMember, Flows};

/// fio's `FIO_RAND_POISSON_OFF`, `FIO_RAND_POISSON2_OFF` and
/// `FIO_RAND_POISSON3_OFF`: the seeds of the read, write and trim poisson
/// generators among a worker's `rand_seeds`.
const POISSON_SEEDS: [usize; 3] = [15, 17, 18];

/// What the pacer holds the worker back for; the loop waits for in-flight
/// I/O as [`Hold::quiesces`] says, then calls [`Pacer::wait`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Hold {
    /// The rate's next I/O is due at this tick.
    Until(u64),
    /// A think-time stall is due.
    Think,
    /// `thinkcycles` spins are due after a read, write or trim.
    Cycles,
    /// The flow is ahead of its share: sleep this long, then ask again.
    Flow(Duration),
}

/// The rate cap of each direction.
struct Rate {
    /// Bytes per second; 0 for a direction without a cap.
    bps: [u64; 3],
    /// The smallest block size of each direction (fio's `min_bs`).
    min_bs: [u64; 3],
    /// Bytes issued since the epoch (fio's `rate_io_issue_bytes`).
    issued: [u64; 3],
    /// When the next I/O of each direction is due, µs after the epoch
    /// (fio's `rate_next_io_time`).
    next_us: [u64; 3],
    /// `rate_process=poisson`: the generators and the running sum of the
    /// gaps drawn (fio's `last_usec`).
    poisson: Option<([FioRand; 3], [u64; 3])>,
    /// Inline mode waits for in-flight I/O before sleeping (fio's
    /// io_u_quiesce in rate_ddir); offload does not.
    quiesce: bool,
    ignore_think: bool,
}

impl Rate {
    /// fio's usec_for_io: when the next I/O of direction `d` is due.
    fn usec_for_io(&mut self, d: usize) -> u64 {
        let bps = self.bps[d];
        if let Some((rands, last)) = &mut self.poisson {
            let iops = (bps / self.min_bs[d].max(1)).max(1);
            // fio: (int64_t)(1000000 / iops) * -logf(__rand_0_1(...)), in
            // float arithmetic, truncated to an integer.
            let r = rands[d].next_u64() as f64;
            let u = ((r + 1.0) * rands[d].inv_max_plus_one()) as f32;
            let gap = ((1_000_000 / iops) as f32 * -u.ln()) as u64;
            last[d] += gap;
            return last[d];
        }
        if bps == 0 {
            return 0;
        }
        let bytes = self.issued[d];
        (bytes % bps) * 1_000_000 / bps + (bytes / bps) * 1_000_000
    }
}

/// `thinktime` and its companions.
struct Think {
    think_us: u64,
    spin_us: u64,
    blocks: u64,
    /// thinktime_blocks was written (with thinktime_iotime, fio then
    /// stalls on either; otherwise on time only).
    blocks_set: bool,
    on_issue: bool,
    iotime_us: u64,
    /// The block count and the tick of the last stall.
    last_blocks: u64,
    last_time: u64,
}

/// `rate_min` / `rate_iops_min`: the floor of each direction, checked
/// once per `rate_cycle`.
struct MinRate {
    bytes: [u64; 3],
    ios: [u64; 3],
    cycle_ms: u64,
    /// The checks start 2 s after the loop's start (fio's settle period).
    start: u64,
    /// Completed bytes and I/Os, and when, at the last check of each
    /// direction; None before the first.
    last: [Option<(u64, u64, u64)>; 3],
}

/// One worker's pacing state.
pub(crate) struct Pacer {
    clock: Clock,
    /// The zero of the rate's times: the loop's start, then the ramp's end.
    epoch: u64,
    rate: Option<Rate>,
    think: Option<Think>,
    /// `number_ios` times the loops (doubled for trimwrite, which issues a
    /// trim and a write per block); 0 for no limit.
    io_limit: u64,
    /// Reads, writes and trims issued.
    issued: u64,
    /// verify_backlog's checks issued. fio counts them among its blocks
    /// done (`io_blocks`: number_ios, thinktime_blocks_type=complete) but
    /// not among its issues (the rate, thinktime_blocks_type=issue).
    checks: u64,
    /// `rwmixread` and `rwmixwrite`: a mixed job may switch to a direction
    /// with a share.
    mix: [u32; 2],
    last_dir: usize,
    flow: Option<(FlowMember, Duration)>,
    min_rate: Option<MinRate>,
    /// `thinkcycles`, and whether a read, write or trim was issued since
    /// the last spin.
    cycles: u32,
    spin_due: bool,
    /// Why the worker is held back, between [`Pacer::before_next`] or
    /// [`Pacer::gate`] and [`Pacer::wait`].
    hold: Option<Hold>,
}

impl Pacer {
    /// The pacer of worker `worker` (0-based) of `spec`, or None when the
    /// job sets no pacing option.
    pub(crate) fn new(spec: &JobSpec, worker: u32, clock: Clock, flows: &Flows) -> Option<Pacer> {
        let p = &spec.pacing;
        let min_bs = [spec.bs.read.min(), spec.bs.write.min(), spec.bs.trim.min()];
        let rate = p.rated().then(|| rate(p, spec, worker, min_bs));
        let think = (!p.thinktime.is_zero()).then(|| Think {
            think_us: micros(p.thinktime),
            spin_us: micros(p.thinktime_spin),
            blocks: p.thinktime_blocks.unwrap_or(1),
            blocks_set: p.thinktime_blocks.is_some(),
            on_issue: p.thinktime_blocks_type == ThinkBlocks::Issue,
            iotime_us: micros(p.thinktime_iotime),
            last_blocks: 0,
            last_time: 0,
        });
        // fio ignores number_ios in a time-based job (its I/O loop runs
        // on while the time lasts; checked with fio 3.33).
        let trimwrite = matches!(spec.rw.kind, RwKind::TrimWrite | RwKind::RandTrimWrite);
        let io_limit = if spec.time_based {
            0
        } else {
            p.number_ios * u64::from(spec.loops.max(1)) * if trimwrite { 2 } else { 1 }
        };
        let flow = (p.flow > 0).then(|| (flows.join(p.flow_id, p.flow), p.flow_sleep));
        let floors = |b: &ioscope_job::PerDir<u64>| [b.read, b.write, b.trim];
        let min_rate = [&p.rate_min, &p.rate_iops_min]
            .iter()
            .any(|m| m.read + m.write + m.trim > 0)
            .then(|| MinRate {
                bytes: floors(&p.rate_min),
                ios: floors(&p.rate_iops_min),
                cycle_ms: p.rate_cycle_ms,
                start: 0,
                last: [None; 3],
            });
        if rate.is_none()
            && p.thinkcycles == 0
            && think.is_none()
            && io_limit == 0
            && flow.is_none()
            && min_rate.is_none()
        {
            return None;
        }
        Some(Pacer {
            clock,
            epoch: 0,
            rate,
            think,
            io_limit,
            issued: 0,
            checks: 0,
            mix: [spec.rwmixread, 100 - spec.rwmixread.min(100)],
            last_dir: 0,
            flow,
            min_rate,
            cycles: p.thinkcycles,
            spin_due: false,
            hold: None,
        })
    }

    /// The loop starts (or its ramp ends) at tick `now`: the rate starts
    /// again from zero, as fio's reset of the I/O counters does.
    pub(crate) fn restart(&mut self, now: u64) {
        self.epoch = now;
        if let Some(r) = &mut self.rate {
            r.issued = [0; 3];
            r.next_us = [0; 3];
            if let Some((_, last)) = &mut r.poisson {
                *last = [0; 3];
            }
        }
        if let Some(t) = &mut self.think {
            t.last_time = now;
        }
        if let Some(m) = &mut self.min_rate {
            m.last = [None; 3];
            if m.start == 0 {
                m.start = now;
            }
        }
    }

    /// Before the workload's next I/O, with `in_flight` requests out:
    /// false when `number_ios` I/Os have been issued (the workload ends),
    /// otherwise true, with [`Pacer::held`] set when the worker must hold
    /// back first (a think-time stall, or a flow ahead of its share).
    #[inline]
    pub(crate) fn before_next(&mut self, in_flight: u32) -> bool {
        self.hold = None;
        if !self.io_left() {
            return false;
        }
        // fio spins after each read, write or trim is submitted, then
        // asks whether to think: a hold of its own, outside any I/O's
        // latency, then the think test on the next call.
        if self.spin_due {
            self.spin_due = false;
            self.hold = Some(Hold::Cycles);
        } else if self.think_due(in_flight) {
            self.hold = Some(Hold::Think);
        } else if let Some((member, sleep)) = &mut self.flow {
            if member.ahead() {
                self.hold = Some(Hold::Flow(*sleep));
            }
        }
        true
    }

    /// Whether a think-time stall is due (fio's handle_thinktime test).
    /// When it is, the count and time of the test are kept: fio's next
    /// stall counts from them, not from the end of the quiesce.
    fn think_due(&mut self, in_flight: u32) -> bool {
        let Some(t) = &mut self.think else {
            return false;
        };
        let blocks = if t.on_issue {
            self.issued
        } else {
            // Completed reads, writes, trims and checks: those issued
            // less those still out.
            (self.issued + self.checks).saturating_sub(u64::from(in_flight))
        };
        let mut stall = false;
        let mut now = 0;
        if t.iotime_us > 0 {
            now = self.clock.now();
            let since = self.clock.elapsed_ns(t.last_time, now) / 1000;
            if since >= t.iotime_us + t.think_us {
                stall = true;
            } else if !t.blocks_set {
                return false;
            }
        }
        stall |= blocks >= t.last_blocks + t.blocks;
        if stall {
            t.last_blocks = blocks;
            if t.iotime_us > 0 {
                t.last_time = now;
            }
        }
        stall
    }

    /// An I/O of direction `d` (0 read, 1 write, 2 trim) is next: true when
    /// the rate says it is not due yet ([`Pacer::held`] then says until
    /// when).
    #[inline]
    pub(crate) fn gate(&mut self, d: usize) -> bool {
        let Some(r) = &self.rate else { return false };
        let next = r.next_us[d];
        if next == 0 {
            return false;
        }
        let now_us = self.clock.elapsed_ns(self.epoch, self.clock.now()) / 1000;
        if next <= now_us {
            return false;
        }
        let at = self.epoch + self.clock.ticks_for_ns(next * 1000);
        self.hold = Some(Hold::Until(at));
        true
    }

    /// fio's rate_ddir for a mixed job that drew `dir`: when it is ahead
    /// of its rate, the other direction if that one is due, or else
    /// whichever is due first ([`Pacer::gate`] then waits for it).
    pub(crate) fn rate_ddir(&self, dir: DataDir) -> DataDir {
        let Some(r) = &self.rate else { return dir };
        let d = dir as usize;
        let o = d ^ 1;
        if d > 1 || self.mix[o] == 0 {
            return dir;
        }
        let now_us = self.clock.elapsed_ns(self.epoch, self.clock.now()) / 1000;
        if r.next_us[d] <= now_us {
            return dir;
        }
        if r.next_us[o] <= now_us || r.next_us[o] < r.next_us[d] {
            return if o == 0 {
                DataDir::Read
            } else {
                DataDir::Write
            };
        }
        dir
    }

    /// An I/O of direction `d` and `len` bytes is issued.
    #[inline]
    pub(crate) fn issued(&mut self, d: usize, len: u32) {
        self.issued += 1;
        self.last_dir = d;
        self.spin_due = self.cycles > 0;
        if let Some(r) = &mut self.rate {
            if r.bps[d] > 0 {
                r.issued[d] += u64::from(len);
                r.next_us[d] = r.usec_for_io(d);
            }
        }
    }

    /// Whether `number_ios` leaves I/O to issue (fio's exceeds_number_ios,
    /// which its loop asks before anything else, a backlog check too).
    #[inline]
    pub(crate) fn io_left(&self) -> bool {
        self.io_limit == 0 || self.issued + self.checks < self.io_limit
    }

    /// A verify_backlog check is issued.
    #[inline]
    pub(crate) fn checked(&mut self) {
        self.checks += 1;
    }

    /// Why the worker is held back, if it is.
    pub(crate) fn held(&self) -> Option<Hold> {
        self.hold
    }

    /// Whether the loop must wait for every in-flight I/O before the hold
    /// (fio's io_u_quiesce): always before a think, before a rate sleep in
    /// inline mode, and before a flow sleep.
    pub(crate) fn quiesces(&self) -> bool {
        match self.hold {
            Some(Hold::Think) => true,
            Some(Hold::Until(_)) => self.rate.as_ref().is_some_and(|r| r.quiesce),
            Some(Hold::Flow(sleep)) => !sleep.is_zero(),
            Some(Hold::Cycles) | None => false,
        }
    }

    /// Sleeps through the hold (not past `deadline`, the runtime's end,
    /// nor past `at_most` from now when given) and clears it unless
    /// `at_most` cut it short. `sleep_until` is the loop's own sleep,
    /// which watches for a stop.
    pub(crate) fn wait(
        &mut self,
        deadline: Option<u64>,
        at_most: Option<Duration>,
        sleep_until: impl Fn(u64, Option<u64>) -> u64,
    ) {
        let clock = self.clock;
        let now = clock.now();
        let cap = |at: u64| match at_most {
            Some(d) => at.min(now + clock.ticks_for_ns(d.as_nanos() as u64)),
            None => at,
        };
        match self.hold {
            Some(Hold::Until(at)) => {
                let woke = sleep_until(cap(at), deadline);
                if woke >= at || at_most.is_none() {
                    self.hold = None;
                }
            }
            Some(Hold::Flow(sleep)) => {
                if !sleep.is_zero() {
                    sleep_until(now + clock.ticks_for_ns(sleep.as_nanos() as u64), deadline);
                }
                self.hold = None;
            }
            Some(Hold::Think) => {
                self.think(now, deadline, sleep_until);
                self.hold = None;
            }
            Some(Hold::Cycles) => {
                // fio's cycles_spin: `rep; nop`, which is `pause`.
                for _ in 0..self.cycles {
                    std::hint::spin_loop();
                }
                self.hold = None;
            }
            None => {}
        }
    }

    /// fio's think: spin, then sleep the rest; with rate_ignore_thinktime
    /// the time counts as issued at the rate.
    fn think(
        &mut self,
        now: u64,
        deadline: Option<u64>,
        sleep_until: impl Fn(u64, Option<u64>) -> u64,
    ) {
        let clock = self.clock;
        let Some(t) = &self.think else { return };
        let ticks = |us: u64| clock.ticks_for_ns(us * 1000);
        let spin_end = now + ticks(t.spin_us);
        while clock.now() < spin_end {
            std::hint::spin_loop();
        }
        let rest = t.think_us.saturating_sub(t.spin_us);
        let end = if rest > 0 {
            sleep_until(spin_end + ticks(rest), deadline)
        } else {
            clock.now()
        };
        let total = clock.elapsed_ns(now, end) / 1000;
        let d = self.last_dir;
        if let Some(r) = self
            .rate
            .as_mut()
            .filter(|r| r.ignore_think && r.bps[d] > 0)
        {
            if total > 0 {
                // fio adds the bytes the rate would have issued meanwhile,
                // less one block when a whole block's time passed, so the
                // next I/O goes at once.
                let bps = r.bps[d];
                let missed = bps * total / 1_000_000;
                let bs = r.min_bs[d];
                let per_op = bs * 1_000_000 / bps;
                let over = if per_op <= total { bs } else { 0 };
                r.issued[d] += missed.saturating_sub(over);
                if let Some((_, last)) = &mut r.poisson {
                    last[d] += total;
                }
            }
        }
    }

    /// fio's check_min_rate, at tick `now` with each direction's completed
    /// bytes and I/Os: the message of the first floor not met, once a
    /// `rate_cycle` has passed since the last check.
    pub(crate) fn check_min_rate(&mut self, now: u64, done: [(u64, u64); 3]) -> Option<String> {
        let m = self.min_rate.as_mut()?;
        let clock = self.clock;
        if clock.elapsed_ns(m.start, now) < 2_000_000_000 {
            return None;
        }
        for (d, &(bytes, ios)) in done.iter().enumerate() {
            if bytes == 0 || (m.bytes[d] == 0 && m.ios[d] == 0) {
                continue;
            }
            if let Some((last_bytes, last_ios, at)) = m.last[d] {
                // fio checks right after an I/O completes: with nothing
                // completed since the last check, there is no check.
                if ios == last_ios {
                    continue;
                }
                let spent = clock.elapsed_ns(at, now) / 1_000_000;
                if spent < m.cycle_ms || spent == 0 {
                    continue;
                }
                if m.bytes[d] > 0 {
                    let got = (bytes - last_bytes) * 1000 / spent;
                    if got < m.bytes[d] {
                        return Some(format!("rate_min={}B/s not met, got {got}B/s", m.bytes[d]));
                    }
                } else {
                    let got = (ios - last_ios) * 1000 / spent;
                    if got < m.ios[d] {
                        return Some(format!(
                            "rate_iops_min={} not met, got {got} IOPS",
                            m.ios[d]
                        ));
                    }
                }
            }
            m.last[d] = Some((bytes, ios, now));
        }
        None
    }
}

/// The rate caps of `p` for worker `worker`, with its poisson generators
/// seeded as fio seeds them.
fn rate(p: &PacingSpec, spec: &JobSpec, worker: u32, min_bs: [u64; 3]) -> Rate {
    let caps = [
        (p.rate.read, p.rate_iops.read),
        (p.rate.write, p.rate_iops.write),
        (p.rate.trim, p.rate_iops.trim),
    ];
    // fio's __setup_rate: rate wins over rate_iops, which counts blocks
    // of the smallest size.
    let bps = std::array::from_fn(|d| {
        let (bytes, iops) = caps[d];
        if bytes > 0 {
            bytes
        } else {
            iops * min_bs[d]
        }
    });
    let poisson = (p.rate_process == RateProcess::Poisson).then(|| {
        let seeds = fio_seeds(spec.randrepeat, spec.randseed, u64::from(worker) + 1);
        (POISSON_SEEDS.map(|s| FioRand::new(seeds[s], false)), [0; 3])
    });
    Rate {
        bps,
        min_bs,
        issued: [0; 3],
        next_us: [0; 3],
        poisson,
        quiesce: p.submit_mode == SubmitMode::Inline,
        ignore_think: p.rate_ignore_thinktime,
    }
}

fn micros(d: Duration) -> u64 {
    d.as_micros() as u64
}

/// What the report's latency line says of a job: its `latency_target`
/// (ns), `latency_window` (µs) and `latency_percentile`, which fio prints
/// even without a target, and the depth it ran at.
pub(crate) fn latency_profile(spec: &JobSpec) -> ioscope_stats::LatencyProfile {
    let p = &spec.pacing;
    ioscope_stats::LatencyProfile {
        target_ns: p.latency_target.as_nanos() as u64,
        window_us: p.latency_window.as_micros() as u64,
        percentile: p.latency_percentile,
        depth: spec.iodepth,
    }
}

/// `latency_target`'s search, when the job sets a target.
pub(crate) fn latency_target(spec: &JobSpec) -> Option<crate::io_loop::LatencyTarget> {
    let p = &spec.pacing;
    (!p.latency_target.is_zero()).then(|| crate::io_loop::LatencyTarget {
        target_ns: p.latency_target.as_nanos() as u64,
        window_us: p.latency_window.as_micros() as u64,
        percentile: p.latency_percentile,
        run: p.latency_run,
        iodepth: spec.iodepth.max(1),
    })
}

/// The pacing options a job cannot run with, found without its target
/// (fio's init.c fixup_options checks, and what ioscope lacks).
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let p = &spec.pacing;
    let any = |v: &ioscope_job::PerDir<u64>| v.read + v.write + v.trim > 0;
    if (any(&p.rate) && any(&p.rate_iops)) || (any(&p.rate_min) && any(&p.rate_iops_min)) {
        return Err(
            "rate and rate_iops are mutually exclusive (and so are rate_min and rate_iops_min)"
                .into(),
        );
    }
    let dirs = |v: &ioscope_job::PerDir<u64>| [v.read, v.write, v.trim];
    let pairs = [
        (&p.rate, &p.rate_min, "rate", "rate_min"),
        (&p.rate_iops, &p.rate_iops_min, "rate_iops", "rate_iops_min"),
    ];
    for (cap, floor, cap_name, floor_name) in pairs {
        for (d, (c, f)) in dirs(cap).into_iter().zip(dirs(floor)).enumerate() {
            if c > 0 && c < f {
                let dir = ["read", "write", "trim"][d];
                return Err(format!("{floor_name}={f} is above {cap_name}={c} for {dir}s (fio: minimum rate exceeds rate)"));
            }
        }
    }
    if p.rate_process == RateProcess::Poisson {
        let min_bs = [spec.bs.read.min(), spec.bs.write.min(), spec.bs.trim.min()];
        for (d, bytes) in dirs(&p.rate).into_iter().enumerate() {
            if bytes > 0 && bytes < min_bs[d] {
                return Err(format!(
                    "rate_process=poisson needs a rate of at least one block per second ({bytes} B/s is below the {} B block size)",
                    min_bs[d]
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::ClockSource;

    fn rate(bps: u64, poisson: bool) -> Rate {
        let seeds = fio_seeds(true, None, 1);
        Rate {
            bps: [bps, bps, 0],
            min_bs: [4096; 3],
            issued: [0; 3],
            next_us: [0; 3],
            poisson: poisson
                .then(|| (POISSON_SEEDS.map(|s| FioRand::new(seeds[s], false)), [0; 3])),
            quiesce: true,
            ignore_think: false,
        }
    }

    #[test]
    fn linear_rate_spaces_io_by_bytes_issued() {
        let mut r = rate(1 << 20, false);
        r.issued[0] = 4096;
        // fio: 4096 B at 1 MiB/s is due after 3906 µs (integer µs).
        assert_eq!(r.usec_for_io(0), 3906);
        r.issued[0] = (1 << 20) * 3 + 4096;
        assert_eq!(r.usec_for_io(0), 3_003_906);
    }

    #[test]
    fn poisson_gaps_average_the_rate_and_repeat_with_the_seed() {
        // 1000 IOPS: gaps of 1000 µs on average.
        let mut a = rate(1000 * 4096, true);
        let mut b = rate(1000 * 4096, true);
        let n = 20_000;
        let mut last = 0;
        for _ in 0..n {
            last = a.usec_for_io(0);
            assert_eq!(last, b.usec_for_io(0));
        }
        let mean = last as f64 / f64::from(n);
        assert!((970.0..1030.0).contains(&mean), "mean gap {mean} µs");
    }

    fn pacer(rate: Option<Rate>) -> Pacer {
        Pacer {
            clock: Clock::new(ClockSource::ClockGettime),
            epoch: 0,
            rate,
            think: None,
            io_limit: 0,
            issued: 0,
            checks: 0,
            mix: [50, 50],
            last_dir: 0,
            flow: None,
            min_rate: None,
            cycles: 0,
            spin_due: false,
            hold: None,
        }
    }

    #[test]
    fn a_direction_ahead_of_its_rate_gives_way_to_the_other() {
        let mut p = pacer(Some(rate(4096, false)));
        p.restart(p.clock.now());
        // Reads 10 s ahead, writes due: a drawn read becomes a write.
        p.issued(0, 40960);
        assert_eq!(p.rate_ddir(DataDir::Read), DataDir::Write);
        assert_eq!(p.rate_ddir(DataDir::Write), DataDir::Write);
        // Both ahead: whichever is due first, and the gate holds it.
        p.issued(1, 4096);
        assert_eq!(p.rate_ddir(DataDir::Read), DataDir::Write);
        assert!(p.gate(1));
        assert!(matches!(p.held(), Some(Hold::Until(_))));
        // Without a share for the other direction there is no switch.
        p.mix = [100, 0];
        assert_eq!(p.rate_ddir(DataDir::Read), DataDir::Read);
    }

    #[test]
    fn a_think_is_due_every_thinktime_blocks_completions() {
        let mut p = pacer(None);
        p.think = Some(Think {
            think_us: 1,
            spin_us: 0,
            blocks: 2,
            blocks_set: true,
            on_issue: false,
            iotime_us: 0,
            last_blocks: 0,
            last_time: 0,
        });
        p.issued(0, 4096);
        assert!(!p.think_due(0));
        p.issued(0, 4096);
        // One of the two still in flight: one completed.
        assert!(!p.think_due(1));
        assert!(p.think_due(0));
        // The next stall counts from this one.
        assert!(!p.think_due(0));
    }

    #[test]
    fn number_ios_ends_the_workload() {
        let mut p = pacer(None);
        p.io_limit = 2;
        assert!(p.before_next(0));
        p.issued(0, 4096);
        assert!(p.before_next(0));
        p.issued(0, 4096);
        assert!(!p.before_next(0));
        // verify_backlog's checks count too, as fio's io_blocks do.
        let mut p = pacer(None);
        p.io_limit = 2;
        p.issued(1, 4096);
        p.checked();
        assert!(!p.before_next(0));
    }
}
