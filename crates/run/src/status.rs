//! Reports while the run goes on: fio's `--status-interval` and SIGUSR1.
//!
//! Each worker owns its stats, and taking a lock or an atomic
//! read-modify-write per I/O to share them would cost more than some I/Os.
//! Instead the status thread raises a worker's `asked` generation; the
//! worker compares it with its own `answered` once per loop iteration (two
//! relaxed loads of a line only this exchange writes), and when they differ
//! clones its stats into the slot and answers. The status thread waits a
//! bounded time for the answers (a worker blocked in a slow I/O or a think
//! time must not hang the report; it is shown as of its last answer) and
//! merges the snapshots with the code that merges the final results.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ioscope_job::Parsed;
use ioscope_stats::{process_cpu, Clock, HelperCpu, HelperTracker, Notice, RunResult, ThreadCpu};

use crate::collect::{self, Finished};
use crate::disks::DiskTracker;
use crate::progress::{Phase, WorkerProgress};
use crate::worker::WorkerOutcome;
use crate::{signal, warn};

/// `answered` of a worker that has finished: its slot holds its final stats.
const FINAL: u64 = u64::MAX;

/// How long a report waits for a worker's answer.
const ANSWER_WAIT: Duration = Duration::from_millis(250);

/// How often the status thread looks for a SIGUSR1 between reports.
const POLL: Duration = Duration::from_millis(50);

/// One worker's side of the exchange.
#[derive(Default)]
pub(crate) struct StatusSlot {
    asked: AtomicU64,
    answered: AtomicU64,
    /// The worker as of its last answer; once it has finished, its
    /// outcome, which the run takes back from here.
    snapshot: Mutex<Option<WorkerOutcome>>,
}

impl StatusSlot {
    /// Whether the status thread wants a snapshot: the worker's per-iteration
    /// check.
    #[inline]
    pub fn asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed) != self.answered.load(Ordering::Relaxed)
    }

    /// The worker answers with its stats so far.
    #[cold]
    pub fn answer(&self, snapshot: WorkerOutcome) {
        let generation = self.asked.load(Ordering::Relaxed);
        *self.lock() = Some(snapshot);
        self.answered.store(generation, Ordering::Release);
    }

    /// The worker is done: every later report shows `outcome`, and none
    /// waits for it.
    pub fn close(&self, outcome: WorkerOutcome) {
        *self.lock() = Some(outcome);
        self.answered.store(FINAL, Ordering::Release);
    }

    /// The outcome of a finished worker, taken back once its thread ended.
    pub fn take_outcome(&self) -> Option<WorkerOutcome> {
        self.lock().take()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<WorkerOutcome>> {
        // A panic while holding it cannot leave a half-written Option.
        self.snapshot.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answered(&self, generation: u64) -> bool {
        let a = self.answered.load(Ordering::Acquire);
        a == generation || a == FINAL
    }
}

/// When the next periodic report is due, across the phases of a run.
pub(crate) struct StatusTimer {
    interval: Option<Duration>,
    next: Instant,
    /// fio's status file, whose appearance asks for a report; None once
    /// it could not be removed (fio then stops looking, as here).
    dump_file: Option<PathBuf>,
}

/// fio's status file: `fio-dump-status` in `$TMPDIR` (else `$TEMP`, else
/// /tmp). Creating it asks a running fio for a report, as SIGUSR1 does;
/// fio removes it when it has seen it.
fn dump_file() -> PathBuf {
    let dir = std::env::var_os("TMPDIR")
        .or_else(|| std::env::var_os("TEMP"))
        .unwrap_or_else(|| "/tmp".into());
    Path::new(&dir).join("fio-dump-status")
}

impl StatusTimer {
    /// A report every `interval` from now (fio starts its timer before the
    /// jobs start, too); none when None.
    pub fn new(interval: Option<Duration>) -> StatusTimer {
        let now = Instant::now();
        StatusTimer {
            interval,
            next: interval.map_or(now, |i| now + i),
            dump_file: Some(dump_file()),
        }
    }

    /// Whether fio's status file has appeared; it is removed, as fio
    /// removes it, so one file asks for one report.
    fn dump_file_asked(&mut self) -> bool {
        let Some(path) = &self.dump_file else {
            return false;
        };
        if !path.exists() {
            return false;
        }
        if let Err(e) = std::fs::remove_file(path) {
            warn(format_args!(
                "ioscope: cannot remove {}: {e}; no longer watching for it",
                path.display()
            ));
            self.dump_file = None;
        }
        true
    }

    /// Whether a report is due now; if so, schedules the next one (missed
    /// ones are skipped, not caught up on).
    fn due(&mut self, now: Instant) -> bool {
        let Some(interval) = self.interval else {
            return false;
        };
        if now < self.next {
            return false;
        }
        while self.next <= now {
            self.next += interval;
        }
        true
    }

    /// How long to sleep before looking again.
    fn pause(&self, now: Instant) -> Duration {
        match self.interval {
            Some(_) => self.next.saturating_duration_since(now).min(POLL),
            None => POLL,
        }
    }
}

/// What a report of the current phase is made of.
pub(crate) struct PhaseView<'a> {
    pub parsed: &'a Parsed,
    /// The workers of earlier phases, as reported at the end.
    pub earlier: &'a [Finished],
    /// This phase's workers: job index, group id, and what they publish.
    pub workers: Vec<(usize, u32, &'a WorkerProgress)>,
    /// The workers of later phases: job index and group id.
    pub later: Vec<(usize, u32)>,
    pub helpers: &'a HelperTracker,
    pub disks: &'a DiskTracker,
    pub clock: Clock,
    pub phase_start: Instant,
    pub cpu_start: ThreadCpu,
    pub notices: &'a [Notice],
}

impl PhaseView<'_> {
    /// Prints (through `report`) a report whenever one is due or SIGUSR1
    /// or fio's status file asks for one, until `done` is set.
    pub fn watch(
        &self,
        done: &AtomicBool,
        timer: &mut StatusTimer,
        report: &mut (dyn FnMut(&RunResult) + Send),
    ) {
        let mut generation = 0;
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(timer.pause(Instant::now()));
            if done.load(Ordering::Relaxed) {
                break;
            }
            // All are consumed: one report answers a signal, the status
            // file and a due interval that coincide.
            let signalled = signal::take_status_request() | timer.dump_file_asked();
            if timer.due(Instant::now()) | signalled {
                generation += 1;
                report(&self.snapshot(generation));
            }
        }
    }

    /// The run so far: earlier phases as they ended, this phase's workers
    /// as they answer request `generation`.
    fn snapshot(&self, generation: u64) -> RunResult {
        let asked: Vec<bool> = self
            .workers
            .iter()
            .map(|(_, _, p)| {
                // A worker not running yet has nothing to show and would
                // not answer.
                let ask = p.phase() == Phase::Running && !p.status.answered(FINAL);
                if ask {
                    p.status.asked.store(generation, Ordering::Relaxed);
                }
                ask
            })
            .collect();
        let deadline = Instant::now() + ANSWER_WAIT;
        for ((_, _, p), ask) in self.workers.iter().zip(&asked) {
            while *ask && !p.status.answered(generation) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let elapsed_ms = self.phase_start.elapsed().as_millis() as u64;
        let nothing = WorkerOutcome {
            tid: 0,
            errno: 0,
            stats: None,
            message: None,
        };
        let mut current: Vec<Finished> = self
            .workers
            .iter()
            .map(|&(job, groupid, p)| {
                let snap = p.status.lock().clone().unwrap_or(nothing.clone());
                let stats = snap.stats.as_ref();
                let mut helper_cpu = self
                    .helpers
                    .for_owner(snap.tid)
                    .since(&stats.map(|s| s.helpers_at_start).unwrap_or_default());
                helper_cpu.punts = stats.map(|s| s.punts).unwrap_or_default();
                Finished {
                    job,
                    groupid,
                    helper_cpu,
                    outcome: snap,
                    elapsed_ms,
                    // The record is read when the phase ends.
                    steadystate: None,
                }
            })
            .collect();
        current.extend(self.later.iter().map(|&(job, groupid)| Finished {
            job,
            groupid,
            outcome: nothing.clone(),
            helper_cpu: HelperCpu::default(),
            elapsed_ms: 0,
            steadystate: None,
        }));
        let mut result = collect::build(
            self.parsed,
            self.earlier.iter().chain(&current),
            self.disks.so_far(),
            &self.clock,
            process_cpu().since(&self.cpu_start),
        );
        result.notices = self.notices.to_vec();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(errno: i32) -> WorkerOutcome {
        WorkerOutcome {
            tid: 1,
            errno,
            stats: None,
            message: None,
        }
    }

    #[test]
    fn a_slot_is_asked_until_it_answers() {
        let slot = StatusSlot::default();
        assert!(!slot.asked());
        slot.asked.store(1, Ordering::Relaxed);
        assert!(slot.asked());
        assert!(!slot.answered(1));
        slot.answer(snapshot(0));
        assert!(!slot.asked());
        assert!(slot.answered(1));
        assert!(!slot.answered(2));
    }

    #[test]
    fn a_closed_slot_answers_every_request_with_its_final_stats() {
        let slot = StatusSlot::default();
        slot.close(snapshot(5));
        assert!(slot.answered(7));
        assert_eq!(slot.lock().as_ref().map(|s| s.errno), Some(5));
    }

    #[test]
    fn the_timer_skips_missed_reports_rather_than_catching_up() {
        let mut timer = StatusTimer::new(Some(Duration::from_secs(1)));
        let start = timer.next - Duration::from_secs(1);
        assert!(!timer.due(start + Duration::from_millis(999)));
        assert!(timer.due(start + Duration::from_millis(3500)));
        assert!(!timer.due(start + Duration::from_millis(3900)));
        assert!(timer.due(start + Duration::from_secs(4)));
        assert!(!StatusTimer::new(None).due(start + Duration::from_secs(9)));
    }
}
