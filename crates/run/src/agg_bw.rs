//! Sampling fio's aggregate bandwidth log (`--bandwidth-log`) while the
//! run goes on: a thread per phase reads the bytes every worker has
//! published for the status line, every bandwidth interval, and hands the
//! totals of the whole run so far to the sampler.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ioscope_job::JobSpec;
use ioscope_stats::AggBwSampler;

use crate::progress::WorkerProgress;

/// The aggregate log's state across the phases of a run.
pub(crate) struct AggBw {
    pub sampler: AggBwSampler,
    /// fio samples every bw_avg_time of the jobs (the shortest of them).
    interval: Duration,
    /// When the run began: the log's times count from here.
    run_start: Instant,
    /// Bytes moved by the phases that have ended, per direction.
    before: [u64; 3],
}

impl AggBw {
    pub fn new(prefix: String, jobs: &[JobSpec], run_start: Instant) -> AggBw {
        let ms = jobs
            .iter()
            .map(|j| crate::logs::rate_intervals(j).0)
            .min()
            .unwrap_or(crate::logs::SAMPLE_MS);
        AggBw {
            sampler: AggBwSampler::new(prefix),
            interval: Duration::from_millis(ms),
            run_start,
            before: [0; 3],
        }
    }

    /// Samples the phase whose workers publish in `workers` until `done`
    /// is set; none while any of them ramps up, as fio skips the log
    /// while any job ramps. At the end, the phase's bytes join those of
    /// the phases before.
    pub fn watch(&mut self, workers: &[WorkerProgress], done: &AtomicBool) {
        let ramping = || workers.iter().any(|p| p.ramping.load(Ordering::Relaxed));
        let mut next = self.next_tick(Instant::now());
        while !done.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now < next {
                std::thread::sleep((next - now).min(Duration::from_millis(50)));
                continue;
            }
            next = self.next_tick(now);
            if !ramping() {
                let ms = now.duration_since(self.run_start).as_millis() as u64;
                self.sampler.sample(ms, self.total(workers));
            }
        }
        // A tick that came due while this thread slept is still owed its
        // line: on a busy machine the thread may wake only after the
        // workers have stopped.
        let now = Instant::now();
        if now >= next && !ramping() {
            let ms = now.duration_since(self.run_start).as_millis() as u64;
            self.sampler.sample(ms, self.total(workers));
        }
        self.before = self.total(workers);
    }

    /// The first tick after `now` on the run's grid of intervals.
    fn next_tick(&self, now: Instant) -> Instant {
        let since = now.duration_since(self.run_start).as_nanos();
        let step = self.interval.as_nanos().max(1);
        let ticks = since / step + 1;
        self.run_start + Duration::from_nanos((ticks * step) as u64)
    }

    /// Bytes moved by the whole run so far.
    fn total(&self, workers: &[WorkerProgress]) -> [u64; 3] {
        let mut bytes = self.before;
        for p in workers {
            for (d, b) in bytes.iter_mut().enumerate() {
                *b += p.bytes[d].load(Ordering::Relaxed);
            }
        }
        bytes
    }
}
