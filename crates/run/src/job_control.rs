//! Job control within a phase, as fio's backend does it: `wait_for` (a
//! job starts once every worker of the named job has finished),
//! `exitall`/`exitall_on_error` with `exit_what` (which jobs a finishing
//! job stops), and steady-state detection (a job or group stops once its
//! IOPS, bandwidth or latency has settled).
//!
//! Each worker has its own stop flag (fio's `td->terminate`), which its
//! I/O loop reads where it read the run's: stopping some workers and not
//! others costs the loop nothing more. The run's own stop (the trigger's,
//! a failed start) reaches every worker through the phase's watcher.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ioscope_job::{ExitWhat, JobSpec, Parsed};
use ioscope_stats::SteadyStateResult;

use crate::error::RunError;
use crate::progress::{Phase, WorkerProgress};
use crate::ramp::RampSize;
use crate::signal;
use crate::steadystate::Detector;

/// One worker of the phase, as job control sees it.
pub(crate) struct Member<'a> {
    pub job: usize,
    pub groupid: u32,
    pub progress: &'a WorkerProgress,
}

/// A unit steady state is judged on: one worker, or (group_reporting) the
/// workers of a group, whose last worker holds the samples as in fio.
struct SteadyUnit {
    members: Vec<usize>,
    detector: Detector,
    /// `ss_interval`, and when the next sample is due.
    interval: Duration,
    next_sample: Instant,
    /// Per member: when it was first seen running, whether its ramp is
    /// over, and its counters at the last sample.
    seen: Vec<Option<MemberSamples>>,
}

#[derive(Clone, Copy)]
struct MemberSamples {
    prev_time: Instant,
    started: Instant,
    ramp_over: bool,
    prev: Counters,
}

/// What a worker has completed: I/Os, bytes, and the sum and count of
/// its completion latencies (ns).
#[derive(Clone, Copy, Default)]
struct Counters {
    ios: u64,
    bytes: u64,
    clat_sum: u64,
    clat_n: u64,
}

impl Counters {
    fn of(p: &WorkerProgress) -> Counters {
        let sum = |c: &[std::sync::atomic::AtomicU64]| -> u64 {
            c.iter().map(|c| c.load(Ordering::Relaxed)).sum()
        };
        Counters {
            ios: sum(&p.ios),
            bytes: sum(&p.bytes),
            clat_sum: p.clat[0].load(Ordering::Relaxed),
            clat_n: p.clat[1].load(Ordering::Relaxed),
        }
    }
}

/// Job control of one phase.
pub(crate) struct Control<'a> {
    parsed: &'a Parsed,
    members: Vec<Member<'a>>,
    /// fio's global `exitall_on_terminate`: any job's `exitall` makes every
    /// finishing job stop what its `exit_what` names.
    exitall: bool,
    /// The run's stop: `exit_what=all` sets it so later phases do not start.
    run_stop: &'a AtomicBool,
    steady: Mutex<Vec<SteadyUnit>>,
    /// cpuio's `exit_on_io_done`: the members that end when the I/O
    /// members are done (empty when none, or when a later phase has I/O
    /// jobs still to come, which fio counts as pending), and those.
    exit_on_io_done: Vec<usize>,
    io_members: Vec<usize>,
}

/// fio's checks of `wait_for` (init.c wait_for_ok): the waitee must be
/// exactly one earlier job, not the job itself.
pub(crate) fn check_wait_for(parsed: &Parsed) -> Result<(), RunError> {
    for (i, spec) in parsed.jobs.iter().enumerate() {
        let Some(waitee) = &spec.process.wait_for else {
            continue;
        };
        let refuse = |m: String| Err(RunError::job(&spec.name, m));
        if *waitee == spec.name {
            return refuse(format!(
                "wait_for: a job cannot wait for itself (wait_for={waitee})"
            ));
        }
        match parsed.jobs[..i].iter().filter(|j| j.name == *waitee).count() {
            0 => return refuse(format!("wait_for: waitee job {waitee} unknown (it must be defined before this job)")),
            1 => {}
            _ => return refuse(format!("wait_for: multiple waitees {waitee} found, please avoid duplicates when using wait_for option")),
        }
    }
    Ok(())
}

/// fio's check (td_steadystate_init): the jobs of a reporting group must
/// agree on their steady-state options; and `ss_dur` must hold at least
/// one `ss_interval`, where fio would divide by zero.
pub(crate) fn check_steadystate(jobs: &[JobSpec], groups: &[u32]) -> Result<(), RunError> {
    for (i, spec) in jobs.iter().enumerate() {
        let ss = &spec.process.steadystate;
        if ss.enabled() && ss.intervals() == 0 {
            return Err(RunError::job(
                &spec.name,
                format!(
                    "steadystate_duration ({} s) is shorter than steadystate_check_interval ({} ms): no sample to judge",
                    ss.duration_s, ss.interval_ms
                ),
            ));
        }
        let first = groups.iter().position(|&g| g == groups[i]).unwrap_or(i);
        let a = &jobs[first].process.steadystate;
        let b = &spec.process.steadystate;
        let differ = a.duration_s != b.duration_s
            || (b.enabled() && (a.ramp != b.ramp || a.limit != b.limit || a != b));
        if differ {
            return Err(RunError::job(
                &spec.name,
                "job rejected: steadystate options must be consistent within reporting groups"
                    .to_string(),
            ));
        }
    }
    Ok(())
}

impl<'a> Control<'a> {
    /// `later_io`: whether a later phase has jobs that do I/O.
    pub(crate) fn new(
        parsed: &'a Parsed,
        members: Vec<Member<'a>>,
        run_stop: &'a AtomicBool,
        later_io: bool,
    ) -> Control<'a> {
        let mut units: Vec<SteadyUnit> = Vec::new();
        let mut last_group: Option<u32> = None;
        for (i, m) in members.iter().enumerate() {
            let spec = &parsed.jobs[m.job];
            if !spec.process.steadystate.enabled() {
                last_group = None;
                continue;
            }
            if spec.group_reporting && last_group == Some(m.groupid) {
                let unit = units.last_mut().expect("a unit of this group exists");
                unit.members.push(i);
                unit.seen.push(None);
                continue;
            }
            last_group = spec.group_reporting.then_some(m.groupid);
            let ss = spec.process.steadystate;
            let interval = Duration::from_millis(ss.interval_ms);
            units.push(SteadyUnit {
                members: vec![i],
                detector: Detector::new(ss),
                interval,
                next_sample: Instant::now() + interval,
                seen: vec![None],
            });
        }
        // fio's fio_running_or_pending_io_threads: the jobs whose engine
        // does I/O; with none at all a cpuio job runs its course.
        let io_members: Vec<usize> = (0..members.len())
            .filter(|&i| crate::plan::does_io(&parsed.jobs[members[i].job]))
            .collect();
        let exit_on_io_done = match later_io || io_members.is_empty() {
            true => Vec::new(),
            false => (0..members.len())
                .filter(|&i| parsed.jobs[members[i].job].engines_misc.exit_on_io_done)
                .collect(),
        };
        Control {
            parsed,
            exitall: parsed.jobs.iter().any(|j| j.exitall),
            members,
            run_stop,
            steady: Mutex::new(units),
            exit_on_io_done,
            io_members,
        }
    }

    /// When worker `index`'s ramp_size ramp is over; None when its job
    /// has no ramp_size.
    pub(crate) fn ramp_size(&self, index: usize) -> Option<RampSize<'a>> {
        RampSize::of(self.parsed, &self.members, index)
    }

    /// The stop flag of worker `index` of the phase.
    pub(crate) fn stop_flag(&self, index: usize) -> &AtomicBool {
        &self.members[index].progress.terminate
    }

    /// Stops every worker of the phase (the run is being stopped).
    pub(crate) fn stop_all(&self) {
        for m in &self.members {
            m.progress.terminate.store(true, Ordering::Relaxed);
        }
    }

    /// For a `wait_for` job: waits until every worker of the waitee job in
    /// this phase has finished (one in an earlier phase has). False when
    /// the worker was stopped meanwhile.
    pub(crate) fn wait_for_waitee(&self, index: usize) -> bool {
        let parsed = self.parsed;
        let me = &self.members[index];
        let Some(waitee) = &parsed.jobs[me.job].process.wait_for else {
            return true;
        };
        let waitees: Vec<&Member> = self
            .members
            .iter()
            .filter(|m| parsed.jobs[m.job].name == *waitee)
            .collect();
        loop {
            if signal::interrupted() || me.progress.terminate.load(Ordering::Relaxed) {
                return false;
            }
            if waitees.iter().all(|m| m.progress.phase() == Phase::Done) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A worker has finished: with `exitall` (any job's) or, after an
    /// error, `exitall_on_error`, it stops the workers its `exit_what`
    /// names, as fio's fio_terminate_threads.
    pub(crate) fn finished(&self, spec: &JobSpec, index: usize, errored: bool) {
        if !(self.exitall || (spec.process.exitall_on_error && errored)) {
            return;
        }
        let group = self.members[index].groupid;
        for m in &self.members {
            let hit = match spec.process.exit_what {
                ExitWhat::Group => m.groupid == group,
                // Only jobs already running: one still waiting to start
                // (wait_for, startdelay) starts later.
                ExitWhat::Stonewall => m.progress.phase() != Phase::Starting,
                ExitWhat::All => true,
            };
            if hit {
                m.progress.terminate.store(true, Ordering::Relaxed);
            }
        }
        if spec.process.exit_what == ExitWhat::All {
            self.run_stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any job of the phase looks for steady state.
    pub(crate) fn has_steadystate(&self) -> bool {
        !self
            .steady
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Until `done`: passes the run's stop on to the workers and, every
    /// `ss_interval`, takes the steady-state samples (fio's helper
    /// thread).
    pub(crate) fn watch(&self, done: &AtomicBool) {
        let steady = self.has_steadystate();
        while !done.load(Ordering::Relaxed) {
            // A signal is caught by whichever thread the kernel picks: the
            // workers hear of it here too, engines waiting on a peer
            // included.
            if self.run_stop.load(Ordering::Relaxed) || signal::interrupted() {
                self.stop_all();
            }
            let now = Instant::now();
            if steady {
                self.note_starts(now);
                self.sample(now);
            }
            if !self.exit_on_io_done.is_empty() && self.io_done() {
                for &i in &self.exit_on_io_done {
                    self.members[i]
                        .progress
                        .terminate
                        .store(true, Ordering::Relaxed);
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether every member that does I/O has finished.
    fn io_done(&self) -> bool {
        self.io_members
            .iter()
            .all(|&i| self.members[i].progress.phase() == Phase::Done)
    }

    /// Marks when each worker was first seen running: its epoch, from
    /// which its ramp and first sample count.
    fn note_starts(&self, now: Instant) {
        let mut units = self.steady.lock().unwrap_or_else(|e| e.into_inner());
        for unit in units.iter_mut() {
            for (k, &i) in unit.members.iter().enumerate() {
                if unit.seen[k].is_none() && self.members[i].progress.phase() == Phase::Running {
                    unit.seen[k] = Some(MemberSamples {
                        prev_time: now,
                        started: now,
                        ramp_over: false,
                        prev: Counters::default(),
                    });
                }
            }
        }
    }

    /// The steady-state checks due at `now` (fio's steadystate_check, as
    /// fio 3.42 computes the rates: the counters' growth over the time
    /// since the last check, scaled by that time over the interval's
    /// square; the latency as the mean of the completions between).
    fn sample(&self, now: Instant) {
        let parsed = self.parsed;
        let mut units = self.steady.lock().unwrap_or_else(|e| e.into_inner());
        for unit in units.iter_mut() {
            if unit.detector.attained || now < unit.next_sample {
                continue;
            }
            unit.next_sample += unit.interval;
            let interval_ms = unit.interval.as_millis() as u64;
            let scale = (interval_ms * interval_ms / 1000).max(1);
            let (mut bw, mut iops, mut ramp_over) = (0u64, 0u64, 0);
            let (mut lat_sum, mut lat_n) = (0u64, 0u64);
            let mut owner_ran = false;
            let last = unit.members.len() - 1;
            for (k, &i) in unit.members.iter().enumerate() {
                let m = &self.members[i];
                let Some(s) = unit.seen[k].as_mut() else {
                    continue;
                };
                if m.progress.phase() != Phase::Running {
                    continue;
                }
                let ramp = parsed.jobs[m.job].process.steadystate.ramp;
                // fio starts counting one interval after ss_ramp.
                if !s.ramp_over && (ramp.is_zero() || now - s.started >= ramp + unit.interval) {
                    s.ramp_over = true;
                }
                let c = Counters::of(m.progress);
                let ms = (now - s.prev_time).as_millis() as u64;
                s.prev_time = now;
                if s.ramp_over {
                    bw += ms * c.bytes.saturating_sub(s.prev.bytes) / scale;
                    iops += ms * c.ios.saturating_sub(s.prev.ios) / scale;
                    lat_sum += c.clat_sum.saturating_sub(s.prev.clat_sum);
                    lat_n += c.clat_n.saturating_sub(s.prev.clat_n);
                    ramp_over += 1;
                }
                s.prev = c;
                owner_ran |= k == last;
            }
            if !owner_ran || ramp_over == 0 {
                continue;
            }
            let lat = lat_sum.checked_div(lat_n).unwrap_or(0);
            if unit.detector.sample(iops, bw, lat) {
                unit.detector.attained = true;
                for &i in &unit.members {
                    self.members[i]
                        .progress
                        .terminate
                        .store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// The steady-state record of worker `index`: its unit's, given to the
    /// unit's last worker (the one fio keeps the samples in); None for the
    /// others and for jobs without steady state.
    pub(crate) fn steady_result(&self, index: usize) -> Option<SteadyStateResult> {
        let units = self.steady.lock().unwrap_or_else(|e| e.into_inner());
        units
            .iter()
            .find(|u| u.members.last() == Some(&index))
            .map(|u| u.detector.result())
    }
}

/// The workers of `phases`, which the run stopped before they started
/// (`exit_what=all`): fio reports them too, with nothing done.
pub(crate) fn never_started(
    parsed: &Parsed,
    phases: &[Vec<usize>],
    groups: &[u32],
) -> Vec<crate::collect::Finished> {
    let nothing = crate::worker::WorkerOutcome {
        tid: 0,
        stats: None,
        errno: 0,
        message: None,
    };
    phases
        .iter()
        .flatten()
        .flat_map(|&j| std::iter::repeat_n(j, parsed.jobs[j].numjobs.max(1) as usize))
        .map(|job| crate::collect::Finished {
            job,
            groupid: groups[job],
            outcome: nothing.clone(),
            helper_cpu: Default::default(),
            elapsed_ms: 0,
            steadystate: None,
        })
        .collect()
}
