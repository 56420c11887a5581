//! `ioscope peak`: peak IOPS in the spirit of fio's t/io_uring, as another
//! front end over the engine crate. It opens the files with
//! [`ioscope_engine::Target`], builds one queue per thread with
//! [`ioscope_engine::open_queue`] and drives it with its own lean loop
//! ([`worker`]); the main thread prints a line a second ([`report`]).

mod interrupt;
mod offsets;
mod options;
mod report;
mod targets;
mod worker;

use std::ffi::OsString;
use std::os::fd::RawFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use anyhow::Context;
use ioscope_engine::{open_queue, QueueConfig, UringOptions};

use crate::output;
use options::Settings;
use report::{Ending, Interval};
use worker::{Counts, Progress, Ready, Worker};

/// How often the reporter looks for Ctrl-C or a failed thread between its
/// once-a-second reads.
const POLL: Duration = Duration::from_millis(20);

/// Runs `ioscope peak` with the arguments after `peak`.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let options = match options::parse(args) {
        Ok(options) => options,
        Err(e) => return output::usage("ioscope peak", &e),
    };
    match options.settle().and_then(|s| run(&s)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output::fail("ioscope peak", &e),
    }
}

fn run(s: &Settings) -> anyhow::Result<()> {
    let targets = targets::open(s)?;
    let fds: Vec<RawFd> = targets.iter().map(|t| t.fd()).collect();
    let sizes: Vec<u64> = targets.iter().map(|t| t.size()).collect();
    let names: Vec<String> = s.files.iter().map(|p| p.display().to_string()).collect();
    let config = QueueConfig {
        depth: s.depth,
        buffer_size: s.block_size as usize,
        buffer_align: targets::buffer_align(&targets),
        hipri: s.polled,
        uring: UringOptions {
            fixed_buffers: s.fixed_buffers,
            register_files: s.register_files,
            skip_ring_registration: !s.register_ring,
            ..Default::default()
        },
        aio: Default::default(),
        net: Default::default(),
        memory: Default::default(),
        fault: None,
        ..QueueConfig::default()
    };
    let threads = s.threads as usize;
    let progress: Vec<Progress> = (0..threads).map(|_| Progress::default()).collect();
    let stop = AtomicBool::new(false);
    let start = Barrier::new(threads + 1);
    let (ready_tx, ready_rx) = mpsc::channel::<Ready>();
    interrupt::catch_sigint().context("cannot catch Ctrl-C")?;
    output::print(&format!("{}\n", report::header(s)))?;

    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let cpu = (!s.cpus.is_empty()).then(|| s.cpus[index % s.cpus.len()]);
                let worker = Worker {
                    index,
                    // Distinct streams per thread and per run.
                    offsets: (!s.nop()).then(|| {
                        offsets::Offsets::new(&sizes, s.block_size, s.random, seed() ^ index as u64)
                    }),
                    depth: s.depth,
                    submit_batch: s.submit_batch,
                    complete_batch: s.complete_batch,
                    block_size: s.block_size,
                    polled: s.polled,
                    progress: &progress[index],
                    stop: &stop,
                    ready: ready_tx.clone(),
                    start: &start,
                    names: &names,
                };
                let (config, fds, stop, start) = (&config, &fds, &stop, &start);
                std::thread::Builder::new()
                    .name(format!("peak-{index}"))
                    .spawn_scoped(scope, move || {
                        thread_main(s, cpu, config, fds, worker, stop, start)
                    })
            })
            .collect::<Result<_, _>>()
            .context("cannot start a thread")?;
        drop(ready_tx);

        let mut notes = vec![None; threads];
        let mut failed = false;
        for (index, ready) in ready_rx.iter().take(threads) {
            match ready {
                Ok(note) => notes[index] = Some(note),
                Err(()) => failed = true,
            }
        }
        // A line stdout cannot take stops the run as a failed thread does;
        // its error is reported once the threads are joined.
        let mut shown = Ok(());
        if !failed {
            for (index, note) in notes.into_iter().enumerate() {
                let cpu = (!s.cpus.is_empty()).then(|| s.cpus[index % s.cpus.len()]);
                let line = report::thread_line(index, cpu, note.flatten().as_deref(), s);
                shown = shown.and_then(|()| output::print(&format!("{line}\n")));
            }
        }
        if failed || shown.is_err() {
            stop.store(true, Relaxed);
        }
        start.wait();
        let outcome = (!failed && shown.is_ok()).then(|| measure(s, &progress, &stop));
        stop.store(true, Relaxed);
        for handle in handles {
            handle
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("a thread panicked")))?;
        }
        shown?;
        if let Some(measured) = outcome {
            let (ending, seconds) = measured?;
            let total = progress
                .iter()
                .map(Progress::read)
                .fold(Counts::default(), |a, b| a + b);
            output::print(&report::summary(ending, &seconds, &total))?;
        }
        Ok(())
    })
}

/// One thread: pin it if asked, build its queue, run the loop. A failure
/// before the loop is announced on the ready channel, so the main thread
/// stops waiting for it; the error itself comes back through the join.
fn thread_main(
    s: &Settings,
    cpu: Option<usize>,
    config: &QueueConfig,
    fds: &[RawFd],
    worker: Worker<'_>,
    stop: &AtomicBool,
    start: &Barrier,
) -> anyhow::Result<()> {
    let _stop_on_panic = StopOnPanic(stop);
    let (index, ready) = (worker.index, worker.ready.clone());
    let setup_failed = |e: anyhow::Error| -> anyhow::Result<()> {
        let _ = ready.send((index, Err(())));
        start.wait();
        Err(e)
    };
    if let Some(cpu) = cpu {
        if let Err(e) = pin_to(cpu) {
            return setup_failed(e);
        }
    }
    match open_queue(s.backend, config, fds, worker) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            stop.store(true, Relaxed);
            Err(e)
        }
        Err(e) => setup_failed(options::peak_error(e)),
    }
}

/// Stops the run when its thread panics, so the reporter does not go on
/// printing seconds of nothing.
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Relaxed);
        }
    }
}

/// Prints a line each second until the run time is up, Ctrl-C is pressed or
/// a thread fails; returns why it stopped and each full second's IOPS, or
/// the failure to print a line.
fn measure(
    s: &Settings,
    progress: &[Progress],
    stop: &AtomicBool,
) -> Result<(Ending, Vec<u64>), output::WriteFailed> {
    let begin = Instant::now();
    let mut seconds = Vec::new();
    let mut last = Counts::default();
    loop {
        let tick = begin + Duration::from_secs(seconds.len() as u64 + 1);
        loop {
            // A thread that failed set `stop`; its error is what the run
            // reports, not this ending.
            if interrupt::interrupted() || stop.load(Relaxed) {
                return Ok((Ending::Signal, seconds));
            }
            let now = Instant::now();
            if now >= tick {
                break;
            }
            std::thread::sleep((tick - now).min(POLL));
        }
        let now = progress
            .iter()
            .map(Progress::read)
            .fold(Counts::default(), |a, b| a + b);
        let interval = Interval::between(last, now);
        let line = report::second_line(&interval, s.block_size, s.nop());
        output::print(&format!("{line}\n"))?;
        seconds.push(interval.completed);
        last = now;
        if s.runtime > 0 && seconds.len() as u64 >= s.runtime {
            return Ok((Ending::Timeout, seconds));
        }
    }
}

/// Pins the calling thread to one CPU.
fn pin_to(cpu: usize) -> anyhow::Result<()> {
    // SAFETY: the set is a plain bit mask on this stack frame; `cpu` was
    // checked to be below CPU_SETSIZE when the options were read.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r != 0 {
        anyhow::bail!(
            "cannot pin a thread to CPU {cpu}: {}; check --cpus against the CPUs online",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// A seed that differs from run to run.
fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
