//! How the jobs stand while they run, as fio's calc_thread_status and
//! thread_eta tell it: the figures of its status line (`Jobs: 1 (f=1):
//! [R(1)][45.0%][r=...][eta ...]`), which a local run prints and a server
//! sends its client. The text is the report's.
//!
//! Workers publish cumulative counters with plain relaxed stores (each worker
//! owns its counters, so no read-modify-write per I/O); a reporter thread
//! reads them every `--eta-interval`.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ioscope_stats::{condensed, JobsEta, ETA_UNKNOWN};

use crate::status::StatusSlot;

/// Where the status goes: a local run's status line, a server's replies.
pub trait EtaSink: Send + Sync {
    /// The jobs' status, every `--eta-interval` while they run.
    fn show(&self, eta: &JobsEta);
    /// The phase's workers are done (after at least one `show`).
    fn end(&self);
}

/// A [`RunOptions`](crate::RunOptions) field: the sink the status goes to.
#[derive(Clone)]
pub struct EtaShow(pub Arc<dyn EtaSink>);

impl std::fmt::Debug for EtaShow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EtaShow")
    }
}

/// What a worker is doing, for the status letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Phase {
    Starting = 0,
    Running = 1,
    Done = 2,
}

/// Counters one worker publishes.
#[derive(Default)]
pub(crate) struct WorkerProgress {
    /// Bytes and I/Os completed: [read, write, trim].
    pub bytes: [AtomicU64; 3],
    pub ios: [AtomicU64; 3],
    /// The completion latencies (ns) summed, and counted, over every
    /// direction: only for steady state's latency criterion
    /// ([`crate::io_loop::LoopConfig::clat_sums`]).
    pub clat: [AtomicU64; 2],
    phase: AtomicU8,
    /// fio's `in_ramp_period`: set from the worker's creation when its job
    /// ramps (ramp_time or ramp_size), until its loop ends the ramp; a
    /// worker that stops before its ramp ends stays ramping, as in fio.
    pub ramping: AtomicBool,
    /// fio's `td->terminate`: the worker stops at its next check (its
    /// I/O loop's stop flag; see job_control). Shared with the engines
    /// that wait on a peer ([`QueueConfig::stop`](ioscope_engine::QueueConfig::stop)).
    pub terminate: Arc<AtomicBool>,
    /// Where the worker answers requests for its stats so far.
    pub status: StatusSlot,
    /// fio's `td->epoch`: when the worker began, and again when its ramp
    /// ended (monotonic ms); and when it finished (0 until then).
    epoch_ms: AtomicU64,
    ended_ms: AtomicU64,
}

impl WorkerProgress {
    /// The counters of a worker of `spec`, none counted yet.
    pub fn new(spec: &ioscope_job::JobSpec) -> WorkerProgress {
        let ramps = !spec.ramp_time.is_zero() || spec.ramp_size != 0;
        WorkerProgress {
            ramping: AtomicBool::new(ramps),
            ..WorkerProgress::default()
        }
    }

    pub fn set_phase(&self, phase: Phase) {
        match phase {
            Phase::Running => self.restart_epoch(),
            Phase::Done => self.ended_ms.store(monotonic_ms(), Ordering::Relaxed),
            Phase::Starting => {}
        }
        self.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// The ramp is over: times count from here, as fio's reset_all_stats
    /// restarts the epoch.
    pub fn restart_epoch(&self) {
        self.epoch_ms.store(monotonic_ms(), Ordering::Relaxed);
    }

    fn epoch(&self) -> u64 {
        self.epoch_ms.load(Ordering::Relaxed)
    }

    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Starting,
            1 => Phase::Running,
            _ => Phase::Done,
        }
    }
}

/// What the status needs to know about one worker beyond its counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct WorkerShape {
    /// fio's state letter while running: R, W, r, w, M, m, D, d.
    pub letter: char,
    /// fio's `total_io_size`: what the worker will move, twice (or by
    /// the write share) when its writes are read back after.
    pub total_bytes: u64,
    /// `runtime`, `ramp_time` and `startdelay`.
    pub runtime: Duration,
    pub ramp: Duration,
    pub start_delay: Duration,
    pub time_based: bool,
    pub stonewall: bool,
    /// fio's `exitall`: the shortest worker's ETA is the run's.
    pub exitall: bool,
    /// The directions it moves: read, write, trim.
    pub dirs: [bool; 3],
    /// `rate`, `rate_min` (bytes/s), `rate_iops`, `rate_iops_min`.
    pub rate: [u64; 3],
    pub rate_min: [u64; 3],
    pub rate_iops: [u32; 3],
    pub rate_iops_min: [u32; 3],
    /// The files it holds open.
    pub files: u32,
    /// `unified_rw_reporting=mixed`: every direction counts as reads.
    pub mixed: bool,
    pub kb_base: u32,
    /// fio's n2s_unit of its rates, and `significant_figures`.
    pub unit_base: u32,
    pub sig_figs: u32,
}

/// How often the status is taken (fio's `--eta-interval`) and where it
/// goes.
#[derive(Clone, Debug)]
pub(crate) struct Pace {
    pub interval: Duration,
    pub sink: EtaShow,
}

/// Hands the sink the status every `pace.interval` until `done` is set.
/// `genesis` is when the run began.
pub(crate) fn report_loop(
    workers: &[(WorkerShape, &WorkerProgress)],
    done: &AtomicBool,
    genesis: Instant,
    pace: &Pace,
) {
    let mut calc = Calc::new(genesis);
    let mut last = Instant::now();
    let mut shown = false;
    // fio draws once 95% of the interval has passed (its
    // eta_time_within_slack), so its draws fall just short of each whole
    // second, which its rounded-up elapsed seconds count.
    let slack = pace.interval * 95 / 100;
    while !done.load(Ordering::Relaxed) {
        let due = slack.saturating_sub(last.elapsed());
        if !due.is_zero() {
            std::thread::sleep(due.min(Duration::from_millis(100)));
            continue;
        }
        last = Instant::now();
        pace.sink.0.show(&calc.status(workers));
        shown = true;
    }
    if shown {
        pace.sink.0.end();
    }
}

/// fio's calc_thread_status, with what it keeps between calls: the
/// counts at the last one, which the rates are taken since.
pub(crate) struct Calc {
    genesis: Instant,
    prev: (Instant, [u64; 3], [u64; 3]),
}

impl Calc {
    pub fn new(genesis: Instant) -> Calc {
        Calc {
            genesis,
            prev: (genesis, [0; 3], [0; 3]),
        }
    }

    /// The workers' status now.
    pub fn status(&mut self, workers: &[(WorkerShape, &WorkerProgress)]) -> JobsEta {
        let now = Instant::now();
        let now_ms = monotonic_ms();
        let mut je = JobsEta {
            elapsed_sec: secs_up(now.duration_since(self.genesis).as_millis() as u64),
            ..JobsEta::default()
        };
        let done_secs: u64 = (workers.iter())
            .filter(|(_, p)| p.phase() == Phase::Done)
            .map(|(_, p)| p.ended_ms.load(Ordering::Relaxed).saturating_sub(p.epoch()) / 1000)
            .sum();
        let mut bytes = [0u64; 3];
        let mut ios = [0u64; 3];
        let mut letters = String::new();
        let mut etas = Vec::with_capacity(workers.len());
        for (shape, p) in workers {
            je.is_pow2 |= shape.kb_base.is_power_of_two();
            je.unit_base = shape.unit_base;
            je.sig_figs = shape.sig_figs;
            let phase = p.phase();
            let ramping = phase == Phase::Running && p.ramping.load(Ordering::Relaxed);
            match phase {
                Phase::Running if ramping => {
                    je.nr_running += 1;
                    je.nr_ramp += 1;
                }
                Phase::Running => {
                    je.nr_running += 1;
                    for d in (0..3).filter(|&d| shape.dirs[d]) {
                        je.t_rate[d] += shape.rate[d];
                        je.t_iops[d] += shape.rate_iops[d];
                        je.m_rate[d] += shape.rate_min[d];
                        je.m_iops[d] += shape.rate_iops_min[d];
                    }
                    je.files_open += shape.files;
                }
                Phase::Starting => je.nr_pending += 1,
                Phase::Done => {}
            }
            etas.push(if je.elapsed_sec >= 3 {
                thread_eta(shape, p, ramping, now_ms, done_secs)
            } else {
                ETA_UNKNOWN
            });
            letters.push(match phase {
                Phase::Starting => 'P',
                Phase::Running if ramping => '/',
                Phase::Running => shape.letter,
                Phase::Done => '_',
            });
            if phase != Phase::Starting {
                for d in 0..3 {
                    let to = if shape.mixed { 0 } else { d };
                    bytes[to] += p.bytes[d].load(Ordering::Relaxed);
                    ios[to] += p.ios[d].load(Ordering::Relaxed);
                }
            }
        }
        je.eta_sec = if workers.iter().any(|(s, _)| s.exitall) {
            etas.iter().copied().min().unwrap_or(ETA_UNKNOWN)
        } else {
            // A stonewalled worker not yet started runs after the others.
            let mut eta = 0;
            let mut stone = 0u64;
            for ((shape, p), &e) in workers.iter().zip(&etas) {
                if p.phase() == Phase::Starting && shape.stonewall {
                    stone = stone.saturating_add(e);
                } else {
                    eta = eta.max(e);
                }
            }
            eta.saturating_add(stone)
        };
        let ms = now.duration_since(self.prev.0).as_millis() as u64;
        for d in 0..3 {
            let (db, di) = (
                bytes[d].saturating_sub(self.prev.1[d]),
                ios[d].saturating_sub(self.prev.2[d]),
            );
            if let (Some(bps), Some(iops)) =
                ((db * 1000).checked_div(ms), (di * 1000).checked_div(ms))
            {
                je.rate[d] = bps / 1024;
                je.iops[d] = iops as u32;
            }
        }
        self.prev = (now, bytes, ios);
        je.nr_threads = workers.len() as u32;
        je.run_str = condensed(letters.chars());
        je
    }
}

/// fio's thread_eta: the seconds a worker has left, from how much of its
/// size it has moved or, time-based, how much of its runtime has passed;
/// before it runs, its runtime (and ramp and start delay) or its size at
/// its rate.
fn thread_eta(
    shape: &WorkerShape,
    p: &WorkerProgress,
    ramping: bool,
    now_ms: u64,
    done_secs: u64,
) -> u64 {
    let elapsed = secs_up(now_ms.saturating_sub(p.epoch()));
    let timeout = shape.runtime.as_secs();
    let total = shape.total_bytes;
    match p.phase() {
        Phase::Running if !ramping => {
            let moved: u64 = p.bytes.iter().map(|b| b.load(Ordering::Relaxed)).sum();
            let mut perc = if total > 0 {
                (moved as f64 / total as f64).min(1.0)
            } else {
                0.0
            };
            if shape.time_based {
                perc = match timeout {
                    0 => 0.0,
                    t => perc.min(elapsed as f64 / t as f64),
                };
            }
            let mut eta = if perc == 0.0 {
                timeout
            } else {
                ((elapsed as f64 * (1.0 / perc)) as u64).saturating_sub(elapsed)
            };
            if !shape.runtime.is_zero() {
                eta = eta.min((timeout + done_secs).saturating_sub(elapsed));
            }
            eta
        }
        Phase::Starting | Phase::Running => {
            // fio can only guess: the whole runtime, or the size at the rate.
            let mut t_eta = 0;
            if !shape.runtime.is_zero() {
                let mut us = shape.runtime.as_micros() + shape.start_delay.as_micros();
                if phase_ramps(shape, p) {
                    us += shape.ramp.as_micros();
                }
                t_eta = (us / 1_000_000) as u64;
                if ramping {
                    let ramp_left = elapsed;
                    if ramp_left <= t_eta {
                        t_eta -= ramp_left;
                    }
                }
            }
            let rate: u64 = (0..3)
                .filter(|&d| shape.dirs[d])
                .map(|d| shape.rate[d])
                .sum();
            let r_eta = match rate {
                0 => 0,
                r => total / r + shape.start_delay.as_secs(),
            };
            match (r_eta, t_eta) {
                (0, t) => t,
                (r, 0) => r,
                (r, t) => r.min(t),
            }
        }
        Phase::Done => 0,
    }
}

/// Whether the ramp is still ahead of or under way for the worker (fio's
/// `!td->ramp_time_over`).
fn phase_ramps(shape: &WorkerShape, p: &WorkerProgress) -> bool {
    !shape.ramp.is_zero() && (p.phase() == Phase::Starting || p.ramping.load(Ordering::Relaxed))
}

/// Milliseconds as whole seconds, rounded up (fio's `(ms + 999) / 1000`).
fn secs_up(ms: u64) -> u64 {
    ms.div_ceil(1000)
}

/// CLOCK_MONOTONIC in ms: the workers' epochs, comparable across threads.
fn monotonic_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> WorkerShape {
        WorkerShape {
            letter: 'r',
            total_bytes: 1 << 30,
            runtime: Duration::from_secs(10),
            time_based: true,
            dirs: [true, false, false],
            files: 1,
            kb_base: 1024,
            unit_base: ioscope_stats::UNIT_BYTES,
            sig_figs: 4,
            ..WorkerShape::default()
        }
    }

    /// A worker that began `secs` ago and has moved `bytes`.
    fn running_for(secs: u64, bytes: u64) -> WorkerProgress {
        let p = WorkerProgress::default();
        p.set_phase(Phase::Running);
        p.epoch_ms
            .store(monotonic_ms() - secs * 1000, Ordering::Relaxed);
        p.bytes[0].store(bytes, Ordering::Relaxed);
        p
    }

    #[test]
    fn a_time_based_worker_has_its_runtime_left() {
        let p = running_for(4, 1 << 20);
        // 4 s into 10: 6 left (the first ms rounds elapsed up to 5 at most).
        let eta = thread_eta(&shape(), &p, false, monotonic_ms(), 0);
        assert!((5..=6).contains(&eta), "{eta}");
    }

    #[test]
    fn a_sized_worker_is_judged_by_what_it_moved() {
        let s = WorkerShape {
            time_based: false,
            runtime: Duration::ZERO,
            ..shape()
        };
        // A quarter moved in 4 s: 12 s to go.
        let p = running_for(4, 1 << 28);
        let eta = thread_eta(&s, &p, false, monotonic_ms(), 0);
        assert!((12..=15).contains(&eta), "{eta}");
    }

    #[test]
    fn a_worker_not_started_expects_its_runtime_and_ramp() {
        let s = WorkerShape {
            ramp: Duration::from_secs(2),
            start_delay: Duration::from_secs(1),
            ..shape()
        };
        let p = WorkerProgress::default();
        assert_eq!(thread_eta(&s, &p, false, monotonic_ms(), 0), 13);
    }

    #[test]
    fn the_first_three_seconds_have_no_estimate_and_states_condense() {
        let (a, b) = (running_for(1, 0), WorkerProgress::default());
        let workers = [(shape(), &a), (shape(), &b)];
        let mut calc = Calc::new(Instant::now());
        let je = calc.status(&workers);
        assert_eq!(je.eta_sec, ETA_UNKNOWN);
        assert_eq!((je.nr_running, je.nr_pending, je.nr_threads), (1, 1, 2));
        assert_eq!(je.run_str, "r(1),P(1)");
        assert_eq!(je.files_open, 1);
    }

    #[test]
    fn rates_are_taken_since_the_last_status_in_kib() {
        let p = running_for(5, 0);
        let workers = [(shape(), &p)];
        let mut calc = Calc::new(Instant::now() - Duration::from_secs(5));
        let _ = calc.status(&workers);
        p.bytes[0].store(100 << 20, Ordering::Relaxed);
        p.ios[0].store(25_600, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(200));
        let je = calc.status(&workers);
        // 100 MiB in about 0.2 s: about 500 MiB/s, in KiB/s.
        let kib = je.rate[0];
        assert!((350_000..=512_000).contains(&kib), "{kib}");
        assert!(
            je.iops[0] > 80_000 && je.iops[0] <= 128_000,
            "{}",
            je.iops[0]
        );
        assert!(je.eta_sec <= 6, "{}", je.eta_sec);
    }
}
