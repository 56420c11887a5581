//! fio's `latency_target`: the search for the deepest queue whose I/Os
//! keep `latency_percentile` of their latencies under the target over a
//! `latency_window` (io_u.c lat_target_*, fio 3.33).
//!
//! The search starts at depth 1 and doubles while windows succeed, until a
//! window fails; from then it bisects between the deepest depth that
//! succeeded (`low`) and the shallowest that failed (`high`). When a
//! success leaves the depth where it was, the search has settled: fio
//! drains the queue, restarts the job's measurements and runs one more
//! window at that depth, which ends the job (unless `latency_run`, which
//! keeps searching until the job ends otherwise).
//!
//! At `latency_percentile=100` a single late I/O fails the window there and
//! then; at depth 1 it fails the job, as fio's lat_fatal. Below 100 the
//! late I/Os are counted and judged when the window ends.
//!
//! The loop asks [`LatTarget::depth`] how many requests it may keep in
//! flight; a job without a target has no `LatTarget` at all.

use std::io;

use ioscope_engine::{Completion, Queue};

use super::fill::Slot;
use super::ledger::Ledger;

/// The job's settings for the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Params {
    pub target_ns: u64,
    /// fio compares whole microseconds.
    pub window_us: u64,
    pub percentile: f64,
    /// `latency_run`: never settle.
    pub run: bool,
    /// The job's `iodepth`, the deepest the search may go.
    pub iodepth: u32,
}

/// The state of the search (fio's td->latency_* fields).
#[derive(Debug)]
pub(crate) struct LatTarget {
    p: Params,
    qd: u32,
    high: u32,
    low: u32,
    /// Successes in a row just below `high` (fio's latency_stable_count).
    stable: u32,
    /// The final window at the settled depth is running.
    end_run: bool,
    /// When the current window began, in clock ticks.
    window_start: u64,
    /// Completions and late completions in the current window.
    ios: u64,
    failed: u64,
    /// A late I/O at percentile 100 lowered the depth: what is in flight
    /// at the old depth must complete before the next window starts.
    quiesce: bool,
}

/// What the loop must do after a window is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The window goes on.
    Wait,
    /// Judged a success: a new window at the new depth starts now.
    Next,
    /// The depth went down: drain what is in flight, then a new window.
    Drain,
    /// Settled: drain, restart the job's measurements and its time limit,
    /// then one last window.
    FinalRun,
    /// The last window succeeded at the settled depth: the job is done.
    Done,
}

impl LatTarget {
    /// fio's lat_target_init at the start of the job.
    pub(crate) fn new(p: Params, now: u64) -> LatTarget {
        let mut t = LatTarget {
            p,
            qd: 1,
            high: p.iodepth,
            low: 1,
            stable: 0,
            end_run: false,
            window_start: now,
            ios: 0,
            failed: 0,
            quiesce: false,
        };
        t.init(now);
        t
    }

    /// The depth the loop may use now.
    #[inline]
    pub(crate) fn depth(&self) -> u32 {
        self.qd
    }

    fn init(&mut self, now: u64) {
        // fio's lat_target_init leaves latency_failed and the stable count
        // as they were.
        self.end_run = false;
        self.qd = 1;
        self.high = self.p.iodepth;
        self.low = 1;
        self.window_start = now;
        self.ios = 0;
    }

    /// fio's lat_target_reset, when the ramp ends: the search starts over
    /// unless its final window is running.
    pub(crate) fn restart(&mut self, now: u64) {
        if !self.end_run {
            self.init(now);
        }
    }

    fn new_cycle(&mut self, now: u64) {
        self.window_start = now;
        self.ios = 0;
        self.failed = 0;
    }

    /// One I/O completed with total latency `lat_ns` (None when latencies
    /// are not measured, as fio's disable_lat). Returns false when the job
    /// must fail: a late I/O at depth 1 with percentile 100.
    #[inline]
    pub(crate) fn completed(&mut self, lat_ns: Option<u64>) -> bool {
        self.ios += 1;
        if lat_ns.is_none_or(|l| l <= self.p.target_ns) {
            return true;
        }
        if self.p.percentile != 100.0 {
            self.failed += 1;
            return true;
        }
        if !self.ramp_down() {
            return false;
        }
        self.quiesce = true;
        true
    }

    /// fio's __lat_target_failed without its drain and new window, which
    /// the caller does. False at depth 1, where nothing changes.
    fn ramp_down(&mut self) -> bool {
        if self.qd == 1 {
            return false;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = (self.qd + self.low) / 2;
        self.stable = 0;
        true
    }

    /// fio's lat_target_success, without its drain and new window.
    fn ramp_up(&mut self) -> Step {
        let qd = self.qd;
        self.low = qd;
        if qd + 1 == self.high {
            // The bisection cannot go higher: after three such successes
            // in a row fio lets the ceiling up by one.
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        // Doubling until the first failure; bisecting from then on.
        if self.high != self.p.iodepth {
            self.qd = (self.qd + self.high) / 2;
        } else {
            self.qd *= 2;
        }
        self.qd = self.qd.min(self.p.iodepth);
        if self.p.run || self.qd != qd {
            Step::Next
        } else if self.end_run {
            Step::Done
        } else {
            self.end_run = true;
            Step::FinalRun
        }
    }

    /// fio's lat_target_check: judges the window once `latency_window` has
    /// passed since it began (`elapsed_us`).
    fn check(&mut self, elapsed_us: u64) -> Step {
        if elapsed_us < self.p.window_us {
            return Step::Wait;
        }
        // No completion in the window: 0/0, which fio's comparison counts
        // as a failure.
        let success = (self.ios - self.failed) as f64 / self.ios as f64 * 100.0;
        if success >= self.p.percentile {
            self.ramp_up()
        } else if self.ramp_down() {
            Step::Drain
        } else {
            // At depth 1 fio neither lowers the depth nor starts a new
            // window: the same window is judged again after the next I/O.
            Step::Wait
        }
    }
}

/// What the loop does next.
pub(super) enum Verdict {
    Go,
    /// The search settled: the measurements and the time limit restart.
    Restart,
    /// The job is done, or failed.
    Stop,
}

/// Between the loop's rounds: drains the queue after a percentile-100
/// ramp-down, and judges the window (not while ramping, as fio).
pub(super) fn between<Q: Queue>(
    q: &mut Q,
    ledger: &mut Ledger,
    reaped: &mut Vec<Completion>,
    slots: &[Slot],
    free: &mut Vec<u32>,
    ramping: bool,
) -> io::Result<Verdict> {
    let Some(t) = ledger.lat_target.as_mut() else {
        return Ok(Verdict::Go);
    };
    let mut step = if t.quiesce { Step::Drain } else { Step::Wait };
    if !ramping && step == Step::Wait {
        let now = ledger.clock.now();
        let t = ledger.lat_target.as_mut().expect("checked above");
        step = t.check(ledger.clock.elapsed_ns(t.window_start, now) / 1_000);
    }
    if step == Step::Done {
        return Ok(Verdict::Stop);
    }
    if step == Step::Wait {
        return Ok(Verdict::Go);
    }
    if step == Step::Next {
        let now = ledger.clock.now();
        ledger
            .lat_target
            .as_mut()
            .expect("checked above")
            .new_cycle(now);
        return Ok(Verdict::Go);
    }
    // What is in flight completes first; at percentile 100 its late I/Os
    // lower the depth further, as in fio, where the drain runs inside the
    // completion that failed.
    while q.in_flight() > 0 {
        let (_, ok, _) = ledger.reap(q, 1, slots.len() as u32, reaped, slots, free)?;
        if !ok {
            return Ok(Verdict::Stop);
        }
    }
    let now = ledger.clock.now();
    let t = ledger.lat_target.as_mut().expect("checked above");
    t.quiesce = false;
    t.new_cycle(now);
    Ok(if step == Step::FinalRun {
        Verdict::Restart
    } else {
        Verdict::Go
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(percentile: f64, iodepth: u32) -> Params {
        Params {
            target_ns: 1000,
            window_us: 10,
            percentile,
            run: false,
            iodepth,
        }
    }

    /// A window of `ios` completions, `late` of them over the target, then
    /// judged; returns the step and the depth after it.
    fn window(t: &mut LatTarget, ios: u64, late: u64) -> (Step, u32) {
        for i in 0..ios {
            assert!(t.completed(Some(if i < late { 5000 } else { 10 })));
        }
        let step = t.check(10);
        if step != Step::Wait {
            t.new_cycle(0);
        }
        (step, t.depth())
    }

    #[test]
    fn doubles_then_bisects_and_settles() {
        // A device that meets the target up to depth 12 and misses it
        // beyond, as io_u.c's arithmetic walks it with iodepth=32.
        let mut t = LatTarget::new(params(99.0, 32), 0);
        let mut trail = vec![t.depth()];
        loop {
            let late = if t.depth() > 12 { 50 } else { 0 };
            let (step, qd) = window(&mut t, 100, late);
            trail.push(qd);
            if step == Step::Done {
                break;
            }
            assert!(trail.len() < 40, "no end: {trail:?}");
        }
        // Doubling to 16, which fails; bisecting 12 (ok), 14 and 13 (late),
        // back to 12: a success just below high=13 leaves the depth where
        // it was, so a final window runs there, and its success ends it.
        assert_eq!(trail, [1, 2, 4, 8, 16, 12, 14, 13, 12, 12, 12]);
    }

    #[test]
    fn settles_at_iodepth_when_every_window_succeeds() {
        let mut t = LatTarget::new(params(100.0, 8), 0);
        let steps: Vec<(Step, u32)> = (0..5).map(|_| window(&mut t, 10, 0)).collect();
        assert_eq!(
            steps,
            [
                (Step::Next, 2),
                (Step::Next, 4),
                (Step::Next, 8),
                (Step::FinalRun, 8),
                (Step::Done, 8),
            ]
        );
    }

    #[test]
    fn percentile_100_ramps_down_on_the_late_io_and_fails_at_depth_1() {
        let mut t = LatTarget::new(params(100.0, 16), 0);
        window(&mut t, 5, 0);
        window(&mut t, 5, 0);
        assert_eq!(t.depth(), 4);
        // One late I/O: down to (4 + low 2) / 2 = 3 at once, with a drain.
        assert!(t.completed(Some(5000)));
        assert_eq!((t.depth(), t.quiesce, t.high, t.low), (3, true, 4, 2));
        // Late again while draining: (3 + 2) / 2 = 2, then 2 == low so
        // low drops to 1 and (2 + 1) / 2 = 1.
        assert!(t.completed(Some(5000)));
        assert_eq!(t.depth(), 2);
        assert!(t.completed(Some(5000)));
        assert_eq!(t.depth(), 1);
        // At depth 1 a late I/O fails the job.
        assert!(!t.completed(Some(5000)));
    }

    #[test]
    fn below_100_a_failed_window_at_depth_1_is_judged_again() {
        let mut t = LatTarget::new(params(90.0, 4), 0);
        for _ in 0..10 {
            t.completed(Some(5000));
        }
        assert_eq!(t.check(10), Step::Wait);
        assert_eq!((t.depth(), t.ios, t.failed), (1, 10, 10));
        // The window was not restarted: its counts go on accumulating.
        for _ in 0..200 {
            t.completed(Some(10));
        }
        assert_eq!(t.check(11), Step::Next);
        assert_eq!(t.depth(), 2);
    }

    #[test]
    fn an_empty_window_fails_and_a_short_one_is_not_judged() {
        let mut t = LatTarget::new(params(99.0, 4), 0);
        window(&mut t, 3, 0);
        assert_eq!(t.depth(), 2);
        assert_eq!(t.check(9), Step::Wait);
        assert_eq!(t.depth(), 2);
        // 0/0 is NaN in fio, and NaN >= percentile is false.
        assert_eq!(t.check(10), Step::Drain);
        assert_eq!((t.depth(), t.high, t.low), (1, 2, 1));
    }

    #[test]
    fn latency_run_never_settles() {
        let mut t = LatTarget::new(
            Params {
                run: true,
                ..params(100.0, 2)
            },
            0,
        );
        for _ in 0..5 {
            assert_eq!(window(&mut t, 3, 0), (Step::Next, 2));
        }
    }

    #[test]
    fn the_ramp_end_restarts_the_search_unless_in_the_final_window() {
        let mut t = LatTarget::new(params(100.0, 2), 0);
        window(&mut t, 3, 0);
        t.restart(5);
        assert_eq!((t.depth(), t.window_start), (1, 5));
        window(&mut t, 3, 0);
        assert_eq!(window(&mut t, 3, 0), (Step::FinalRun, 2));
        t.restart(7);
        assert_eq!(t.depth(), 2);
    }
}
