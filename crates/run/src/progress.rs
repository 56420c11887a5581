//! The live status line (fio's `Jobs: 1 (f=1): [R(1)][45.0%][r=...][eta ...]`).
//!
//! Workers publish cumulative counters with plain relaxed stores (each worker
//! owns its counters, so no read-modify-write per I/O); a reporter thread
//! reads them once a second.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::status::StatusSlot;

/// fio's `--eta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eta {
    Never,
    Always,
    /// Only when stdout is a terminal.
    Auto,
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
        self.phase.store(phase as u8, Ordering::Relaxed);
    }
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Starting,
            1 => Phase::Running,
            _ => Phase::Done,
        }
    }
}

/// What the status line needs to know about one worker beyond its counters.
pub(crate) struct WorkerShape {
    /// fio's status letter while running: R, W, r, w, M, m.
    pub letter: char,
    /// Bytes a size-bound worker will move; None for time-based ones.
    pub total_bytes: Option<u64>,
    /// Planned duration (ramp + runtime) when time-bound.
    pub duration: Option<Duration>,
}

/// How often the status line is drawn (fio's `--eta-interval`) and how
/// often a new one is started rather than the last redrawn
/// (`--eta-newline`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    pub interval: Duration,
    pub newline: Option<Duration>,
}

/// Prints the status line every `pace.interval` until `done` is set.
pub(crate) fn report_loop(
    workers: &[(WorkerShape, &WorkerProgress)],
    done: &AtomicBool,
    kb_base: u32,
    to_stderr: bool,
    pace: Pace,
) {
    let start = Instant::now();
    let mut last = (Instant::now(), [0u64; 2], [0u64; 2]);
    // As fio's display_thread_status: once `newline` has passed since the
    // last new line, the next status starts on a line of its own.
    let mut line_started = Instant::now();
    let mut new_line = false;
    let mut out: Box<dyn Write> = if to_stderr {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    };
    let mut printed = false;
    while !done.load(Ordering::Relaxed) {
        let due = pace.interval.saturating_sub(last.0.elapsed());
        if !due.is_zero() {
            std::thread::sleep(due.min(Duration::from_millis(100)));
            continue;
        }
        let now = Instant::now();
        let mut bytes = [0u64; 2];
        let mut ios = [0u64; 2];
        for (_, p) in workers {
            for d in 0..2 {
                bytes[d] += p.bytes[d].load(Ordering::Relaxed);
                ios[d] += p.ios[d].load(Ordering::Relaxed);
            }
        }
        let secs = now.duration_since(last.0).as_secs_f64();
        let rate = |d: usize| (bytes[d].saturating_sub(last.1[d])) as f64 / secs;
        let iops = |d: usize| (ios[d].saturating_sub(last.2[d])) as f64 / secs;
        let line = status_line(
            workers,
            start.elapsed(),
            [rate(0), rate(1)],
            [iops(0), iops(1)],
            kb_base,
        );
        let lead = if std::mem::take(&mut new_line) {
            "\n"
        } else {
            ""
        };
        let _ = write!(out, "{lead}\r{line}\x1b[K");
        let _ = out.flush();
        printed = true;
        if pace
            .newline
            .is_some_and(|every| line_started.elapsed() > every)
        {
            line_started = Instant::now();
            new_line = true;
        }
        last = (now, bytes, ios);
    }
    if printed {
        let _ = writeln!(out);
    }
}

fn status_line(
    workers: &[(WorkerShape, &WorkerProgress)],
    elapsed: Duration,
    rate: [f64; 2],
    iops: [f64; 2],
    kb_base: u32,
) -> String {
    let running = workers
        .iter()
        .filter(|(_, p)| p.phase() == Phase::Running)
        .count();
    let letters = run_length(workers.iter().map(|(s, p)| match p.phase() {
        Phase::Starting => 'P',
        Phase::Running => s.letter,
        Phase::Done => '_',
    }));
    let mut fraction = 0.0;
    for (shape, p) in workers {
        let f = match (shape.duration, shape.total_bytes) {
            (Some(d), _) if !d.is_zero() => elapsed.as_secs_f64() / d.as_secs_f64(),
            (_, Some(total)) if total > 0 => {
                let done = p.bytes[0].load(Ordering::Relaxed) + p.bytes[1].load(Ordering::Relaxed);
                done as f64 / total as f64
            }
            _ => 0.0,
        };
        fraction += f.min(1.0) / workers.len() as f64;
    }
    let eta = if fraction > 0.0 {
        elapsed.as_secs_f64() * (1.0 - fraction) / fraction
    } else {
        0.0
    };
    let mut s = format!(
        "Jobs: {running} (f={running}): [{letters}][{:.1}%]",
        fraction * 100.0
    );
    let bw = |v: f64| human_rate(v, kb_base);
    match (rate[0] > 0.0, rate[1] > 0.0) {
        (true, true) => {
            s += &format!(
                "[r={},w={}][r={},w={} IOPS]",
                bw(rate[0]),
                bw(rate[1]),
                human_count(iops[0]),
                human_count(iops[1])
            )
        }
        (true, false) => s += &format!("[r={}][r={} IOPS]", bw(rate[0]), human_count(iops[0])),
        (false, true) => s += &format!("[w={}][w={} IOPS]", bw(rate[1]), human_count(iops[1])),
        (false, false) => {}
    }
    let eta = eta.round() as u64;
    s += &format!("[eta {:02}m:{:02}s]", eta / 60, eta % 60);
    s
}

/// fio's compressed job-state string: `rrW` becomes `r(2),W(1)`.
fn run_length(letters: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    let mut current: Option<(char, usize)> = None;
    for c in letters {
        match current {
            Some((l, n)) if l == c => current = Some((l, n + 1)),
            Some((l, n)) => {
                out += &format!("{l}({n}),");
                current = Some((c, 1));
            }
            None => current = Some((c, 1)),
        }
    }
    if let Some((l, n)) = current {
        out += &format!("{l}({n})");
    }
    out
}

/// Bytes per second in fio's short form (`1234MiB/s`).
fn human_rate(bytes_per_sec: f64, kb_base: u32) -> String {
    let (units, base) = if kb_base == 1000 {
        (["B", "kB", "MB", "GB", "TB"], 1000.0)
    } else {
        (["B", "KiB", "MiB", "GiB", "TiB"], 1024.0)
    };
    let mut v = bytes_per_sec;
    let mut i = 0;
    while v >= 10_000.0 && i < units.len() - 1 {
        v /= base;
        i += 1;
    }
    format!("{}{}/s", v.round() as u64, units[i])
}

/// A count in fio's short form (`316k`).
fn human_count(v: f64) -> String {
    let units = ["", "k", "M", "G"];
    let mut v = v;
    let mut i = 0;
    while v >= 10_000.0 && i < units.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    format!("{}{}", v.round() as u64, units[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_shortened_like_fio() {
        assert_eq!(human_rate(1234.0 * 1024.0 * 1024.0, 1024), "1234MiB/s");
        assert_eq!(human_rate(512.0, 1024), "512B/s");
        assert_eq!(human_count(316_000.0), "316k");
        assert_eq!(human_count(999.0), "999");
    }

    #[test]
    fn job_states_are_run_length_encoded() {
        assert_eq!(run_length("rrW".chars()), "r(2),W(1)");
        assert_eq!(run_length("r".chars()), "r(1)");
    }

    #[test]
    fn a_half_done_time_based_job_shows_fifty_percent_and_its_eta() {
        let p = WorkerProgress::default();
        p.set_phase(Phase::Running);
        let shape = WorkerShape {
            letter: 'r',
            total_bytes: None,
            duration: Some(Duration::from_secs(10)),
        };
        let line = status_line(
            &[(shape, &p)],
            Duration::from_secs(5),
            [1024.0 * 1024.0 * 100.0, 0.0],
            [25600.0, 0.0],
            1024,
        );
        assert_eq!(
            line,
            "Jobs: 1 (f=1): [r(1)][50.0%][r=100MiB/s][r=26k IOPS][eta 00m:05s]"
        );
    }
}
