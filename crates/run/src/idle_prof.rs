//! fio's `--idle-prof`: how idle each CPU stayed while the jobs ran,
//! measured as fio's idletime.c measures it. A thread on each CPU times a
//! unit of work (writing a page byte by byte) while nothing else runs,
//! then drops to SCHED_IDLE, so that it runs only when the CPU would
//! otherwise be idle, and counts the units it gets through until the run
//! ends. A CPU's idleness is the time those units would take at the mean
//! calibrated pace, over the time they had.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use ioscope_stats::{Idleness, ThreadCpu};

/// What `--idle-prof` reports after the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleProf {
    /// The mean over the CPUs (`system`).
    System,
    /// Each CPU too (`percpu`).
    PerCpu,
}

/// fio's CALIBRATE_RUNS and CALIBRATE_SCALE: the pace is the best of 10
/// timings of 1000 units.
const CALIBRATE_RUNS: usize = 10;
const CALIBRATE_SCALE: usize = 1000;

/// What one CPU's thread measured.
struct Counted {
    /// Units of work done, the last one in part.
    loops: f64,
    /// How long it had, in µs.
    runtime_us: f64,
    /// Its CPU time, which is not the run's.
    cpu: ThreadCpu,
}

/// The idle threads, running until `stop`.
pub struct IdleProfiler {
    report: IdleProf,
    stop: Arc<AtomicBool>,
    /// Per CPU, the time one unit of work took, in µs.
    unit_us: Vec<f64>,
    threads: Vec<JoinHandle<Option<Counted>>>,
}

impl IdleProfiler {
    /// Starts a thread on every CPU the system has (fio's
    /// cpus_configured), and returns once each has timed its unit of work:
    /// the jobs start after that, as in fio. A CPU that cannot take its
    /// thread refuses the profile, since the mean would leave it out.
    pub fn start(report: IdleProf) -> Result<IdleProfiler, String> {
        // SAFETY: sysconf has no preconditions.
        let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as u32;
        let stop = Arc::new(AtomicBool::new(false));
        let gate = Arc::new(Gate::default());
        let (tx, rx) = mpsc::channel();
        let mut profiler = IdleProfiler {
            report,
            stop: stop.clone(),
            unit_us: vec![0.0; cpus as usize],
            threads: Vec::with_capacity(cpus as usize),
        };
        for cpu in 0..cpus {
            let (its_stop, its_gate, its_tx) = (stop.clone(), gate.clone(), tx.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("idle-prof.{cpu}"))
                .spawn(move || {
                    let mut page = vec![0u8; ioscope_engine::page_size()];
                    let ready = get_ready(cpu, &mut page, &its_stop);
                    let _ = its_tx.send((cpu, ready));
                    // The main thread reads until every sender is gone.
                    drop(its_tx);
                    its_gate.passed().then(|| count_units(&mut page, &its_stop))
                });
            match spawned {
                Ok(t) => profiler.threads.push(t),
                Err(e) => {
                    // Dropping the profiler ends the threads started.
                    gate.open(false);
                    return Err(format!("--idle-prof: cannot start a thread: {e}"));
                }
            }
        }
        drop(tx);
        let mut failed = None;
        for (cpu, ready) in rx.iter() {
            match ready {
                Ok(us) => profiler.unit_us[cpu as usize] = us,
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        gate.open(failed.is_none());
        match failed {
            Some(e) => Err(e),
            None => Ok(profiler),
        }
    }

    /// The mean and the standard deviation over the CPUs of the time a
    /// unit of work took, in µs (fio's calibration_stats: the sample
    /// deviation, 0 for one CPU where fio prints nan).
    pub fn unit(&self) -> (f64, f64) {
        let n = self.unit_us.len() as f64;
        let mean = self.unit_us.iter().sum::<f64>() / n;
        let var = self.unit_us.iter().map(|u| (u - mean).powi(2)).sum::<f64>();
        let stddev = if n > 1.0 {
            (var / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        (mean, stddev)
    }

    /// Stops the threads: how idle each CPU was, and the CPU time the
    /// threads took, to leave out of the run's.
    pub fn stop(mut self) -> (Idleness, ThreadCpu) {
        self.stop.store(true, Ordering::Relaxed);
        let (mean, stddev) = self.unit();
        let mut spent = ThreadCpu::default();
        let per_cpu = std::mem::take(&mut self.threads)
            .into_iter()
            .map(|t| match t.join() {
                Ok(Some(c)) => {
                    spent.add(&c.cpu);
                    if c.runtime_us > 0.0 {
                        c.loops * mean / c.runtime_us
                    } else {
                        0.0
                    }
                }
                _ => 0.0,
            })
            .collect();
        let idleness = Idleness {
            per_cpu,
            listed: self.report == IdleProf::PerCpu,
            unit_mean_us: mean,
            unit_stddev_us: stddev,
        };
        (idleness, spent)
    }
}

impl Drop for IdleProfiler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Where the threads wait until every CPU is ready: then they go on, or
/// end when one could not get ready.
#[derive(Default)]
struct Gate {
    go: Mutex<Option<bool>>,
    opened: Condvar,
}

impl Gate {
    fn open(&self, go: bool) {
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(go);
        self.opened.notify_all();
    }

    /// Waits for the gate: whether to go on.
    fn passed(&self) -> bool {
        let mut go = self.go.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(go) = *go {
                return go;
            }
            go = self.opened.wait(go).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// On `cpu`, times the unit of work, then drops to SCHED_IDLE (after the
/// timing, as fio does, for a steadier one): the time of one unit, in µs.
fn get_ready(cpu: u32, page: &mut [u8], stop: &AtomicBool) -> Result<f64, String> {
    crate::affinity::pin_current_thread(&[cpu]).map_err(|e| {
        format!(
            "--idle-prof: cannot run a thread on CPU {cpu}: {e}; it measures every CPU \
                 the system has, so bring the CPU online or run outside the cpuset that \
                 leaves it out"
        )
    })?;
    let mut best = f64::MAX;
    for _ in 0..CALIBRATE_RUNS {
        let start = Instant::now();
        for j in 0..CALIBRATE_SCALE {
            // The same check of `stop` as the counting loop's, which it
            // never finds set here.
            let _ = unit_of_work(page, j, stop);
        }
        let us = start.elapsed().as_secs_f64() * 1e6;
        if us > 0.0 {
            best = best.min(us);
        }
    }
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "--idle-prof: cannot make CPU {cpu}'s thread SCHED_IDLE: {e}"
        ));
    }
    Ok(best / CALIBRATE_SCALE as f64)
}

/// Units of work until `stop`, and the time they had.
fn count_units(page: &mut [u8], stop: &AtomicBool) -> Counted {
    let start = Instant::now();
    let mut j = 0usize;
    let k = loop {
        match unit_of_work(page, j, stop) {
            Ok(()) => j += 1,
            Err(k) => break k,
        }
    };
    Counted {
        loops: j as f64 + k as f64 / page.len() as f64,
        runtime_us: start.elapsed().as_secs_f64() * 1e6,
        cpu: ThreadCpu::now(),
    }
}

/// fio's unit of work: every byte of the page written once, starting at
/// byte `j`, with `stop` read after each; Err(k) when it was set after k
/// bytes.
fn unit_of_work(page: &mut [u8], j: usize, stop: &AtomicBool) -> Result<(), usize> {
    let n = page.len();
    for k in 0..n {
        // SAFETY: the index is below the page's length. Volatile, so that
        // the writes are done one by one, as fio's are.
        unsafe { std::ptr::write_volatile(page.as_mut_ptr().add((k + j) % n), k as u8) };
        if stop.load(Ordering::Relaxed) {
            return Err(k);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_stops_where_it_is_told() {
        let mut page = vec![0u8; 64];
        let stop = AtomicBool::new(false);
        assert_eq!(unit_of_work(&mut page, 3, &stop), Ok(()));
        // Byte k of the unit that starts at 3 is (k + 3) % 64.
        assert_eq!(page[3], 0);
        assert_eq!(page[2], 63);
        stop.store(true, Ordering::Relaxed);
        assert_eq!(unit_of_work(&mut page, 0, &stop), Err(0));
    }

    #[test]
    fn every_cpu_is_measured_and_its_thread_charged() {
        let profiler = IdleProfiler::start(IdleProf::PerCpu).expect("idle threads");
        let (mean, _) = profiler.unit();
        assert!(mean > 0.0, "a unit of work took no time");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let (idle, spent) = profiler.stop();
        assert_eq!(idle.per_cpu.len(), {
            // SAFETY: sysconf has no preconditions.
            unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) as usize }
        });
        // Other tests run beside this one and may take every idle moment:
        // only that each share is a share, and that the threads' timing
        // of their unit of work is charged to them.
        assert!(
            idle.per_cpu.iter().all(|p| (0.0..1.5).contains(p)),
            "{idle:?}"
        );
        assert!(spent.user_ns + spent.sys_ns > 0);
    }
}
