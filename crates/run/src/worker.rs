//! One worker thread: pin, wait its start delay, run the loop on its queue.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ioscope_engine::Backend;
use ioscope_engine::{open_queue, FaultConfig, FaultKind, QueueConfig};
use ioscope_job::{InjectedFault, JobSpec};
use ioscope_stats::{current_tid, BlockLife, Clock, HelperTracker, PuntTally};
use ioscope_workload::{BufferFiller, Replay, Workload};

use crate::affinity;
use crate::credentials::Credentials;
use crate::exec_hooks::{self, Hook};
use crate::files::{file_paths, WorkerFile};
use crate::io_loop::{IoFailure, IoLoop, IologWriter, LoopStats};
use crate::plan::JobPlan;
use crate::progress::{Phase, WorkerProgress};
use crate::signal;
use crate::start_gate::Ticket;
use crate::verify::VerifyLog;

/// What one worker brought back (or, in a report while it runs, what it
/// has so far).
#[derive(Clone)]
pub(crate) struct WorkerOutcome {
    /// The worker thread's id: io_uring names its helper threads after it.
    pub tid: i32,
    pub stats: Option<LoopStats>,
    /// errno of the first failure, 0 when none.
    pub errno: i32,
    /// What went wrong, as fio prints it on stderr.
    pub message: Option<String>,
}

/// Which worker of the run this is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorkerId {
    /// The clone index within its job (0..numjobs).
    pub clone: u32,
    /// The position among every worker of the run, which seeds the random
    /// generators as fio's thread number does.
    pub number: u32,
    /// The position among the workers of its phase (job control's index).
    pub index: usize,
}

/// What every worker of a phase shares.
pub(crate) struct Shared<'a> {
    pub clock: Clock,
    /// Print fio's lines on stdout (normal output only), such as
    /// exec_prerun's "Saving output of prerun in ...".
    pub layout_lines: bool,
    /// wait_for, exit_what, steady state: each worker's stop flag.
    pub control: &'a crate::job_control::Control<'a>,
    pub helpers: &'a HelperTracker,
    /// `--aux-path`: where verify state and dump files go.
    pub aux_path: Option<&'a std::path::Path>,
    /// `--debug`'s trace, when one is asked for.
    pub trace: Option<&'a crate::Trace>,
    /// The flows (flow_id) of the phase's jobs.
    pub flows: &'a crate::pacing::Flows,
    /// zonemode=zbd: the zones of the run's files.
    pub zones: &'a ioscope_workload::ZoneBook,
    /// `lockfile`: the locks of the phase's files, by path.
    pub file_locks: &'a crate::file_lock::FileLocks,
    /// `cgroup`: the groups of the run's jobs.
    pub cgroups: &'a crate::cgroup::Cgroups,
}

/// Runs worker `id` of `spec` over `files`, as `plan` says, and leaves its
/// outcome in `progress.status` (where reports while the run goes on find
/// it too).
pub(crate) fn run_worker(
    spec: &JobSpec,
    plan: &JobPlan,
    id: WorkerId,
    files: &[WorkerFile],
    shared: &Shared,
    progress: &WorkerProgress,
    ticket: Ticket,
) {
    let outcome = run_inner(spec, plan, id, files, shared, progress, ticket);
    let errored = outcome.errno != 0;
    progress.status.close(outcome);
    progress.set_phase(Phase::Done);
    shared.control.finished(spec, id.index, errored);
}

fn run_inner(
    spec: &JobSpec,
    plan: &JobPlan,
    id: WorkerId,
    files: &[WorkerFile],
    shared: &Shared,
    progress: &WorkerProgress,
    mut ticket: Ticket,
) -> WorkerOutcome {
    let clock = shared.clock;
    let stop = shared.control.stop_flag(id.index);
    let tid = current_tid();
    shared.helpers.not_a_helper();
    let fail = |errno: i32, message: String| WorkerOutcome {
        tid,
        stats: None,
        errno,
        message: Some(message),
    };
    // fio names its job's process or thread as soon as it starts.
    if let Some(comm) = &spec.process.comm {
        if let Err(e) = set_thread_name(comm) {
            return fail(
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("{}: comm={comm}: {e}", spec.name),
            );
        }
    }
    // fio's job switches its group and user first of all.
    if let Err((errno, m)) = Credentials::of(spec).switch_thread() {
        return fail(errno, format!("{}: {m}", spec.name));
    }
    // numa_cpu_nodes replaces the CPU set, as libnuma's run-on-node does.
    let cpus = match crate::numa::node_cpus(spec) {
        Ok(Some(cpus)) => cpus,
        Ok(None) => affinity::cpus_for(spec, id.clone),
        Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
    };
    if let Err(e) = affinity::pin_current_thread(&cpus) {
        return fail(
            e.raw_os_error().unwrap_or(libc::EINVAL),
            format!("{}: cpus_allowed: cannot pin to {cpus:?}: {e}", spec.name),
        );
    }
    if spec.startdelay != (Duration::ZERO, Duration::ZERO) {
        // fio starts a delayed job late, on its own: the others do not
        // wait for it.
        ticket.leave();
    }
    if spec.process.wait_for.is_some() {
        // fio starts a waiting job when its waitee is done, on its own.
        ticket.leave();
    }
    if !sleep_start_delay(spec, id.number, stop) || !shared.control.wait_for_waitee(id.index) {
        return WorkerOutcome {
            tid,
            stats: None,
            errno: 0,
            message: None,
        };
    }
    // fio places the job in its cgroup after the uid switch and before
    // its nice value and prerun command; it leaves when this is dropped.
    let _cgroup = match shared.cgroups.join(spec) {
        Ok(member) => member,
        Err((errno, m)) => return fail(errno, format!("{}: {m}", spec.name)),
    };
    if let Err((errno, m)) =
        crate::numa::apply_mem_policy(spec).and_then(|()| crate::priority::apply(spec))
    {
        return fail(errno, format!("{}: {m}", spec.name));
    }
    if let Some(command) = &spec.process.exec_prerun {
        if let Err(m) = exec_hooks::run(&spec.name, Hook::Prerun, command, shared.layout_lines) {
            return fail(libc::EINVAL, format!("{}: {m}", spec.name));
        }
    }

    let device_zoned = match crate::zones::check_targets(spec, files, shared.zones) {
        Ok(size) => size.map(|size| {
            // fio takes a zoned device's zone size as the job's zonesize.
            let mut zoned = spec.clone();
            zoned.zones.size = size;
            zoned
        }),
        Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
    };
    let spec = device_zoned.as_ref().unwrap_or(spec);
    let saved = match crate::verify::saved_state(spec, id.number, shared.aux_path) {
        Ok(saved) => saved,
        Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
    };
    // The state a fio of 3.39 on saved: its writes went where that fio's
    // seeds sent them.
    let newer_fio = saved.filter(|s| s.fio_335_seeds).map(|_| {
        let mut newer = spec.clone();
        newer.placement.fio_335_seeds = true;
        newer
    });
    let spec = newer_fio.as_ref().unwrap_or(spec);
    let stopped = || signal::interrupted() || stop.load(Ordering::Relaxed);
    let link = match crate::net::connect(files, &stopped) {
        Ok(link) => link,
        Err(m) => return fail(libc::ECONNREFUSED, format!("{}: {m}", spec.name)),
    };
    let extents: Vec<_> = files.iter().map(|f| f.extent).collect();
    let sizes: Vec<_> = files.iter().map(|f| f.file_size).collect();
    let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    // zipf, pareto and normal seeds hash the file names fio would use.
    let dist_paths = match plan.backend.is_diskless() {
        true => file_paths(spec, id.clone),
        false => paths.clone(),
    };
    let dist_names: Vec<&[u8]> = dist_paths
        .iter()
        .map(|p| p.as_os_str().as_bytes())
        .collect();
    let zoned: Vec<_> = paths.iter().map(PathBuf::as_path).collect();
    let workload_of = || {
        Workload::with_file_sizes(
            spec,
            &extents,
            &sizes,
            id.number,
            Some((shared.zones, &zoned)),
        )
        .named(spec, &dist_names, id.number)
        .with_sprandom(spec, id.number)
    };
    let mut workload = match workload_of() {
        Ok(w) => w,
        Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
    };
    if let Err(m) = workload.share_zones(shared.zones, &zoned) {
        return fail(libc::EINVAL, format!("{}: {m}", spec.name));
    }
    if crate::plan::queues(plan.backend, plan.queue.depth) {
        workload.engine_queues();
    }
    if let Some(log) = plan.replay(id.clone) {
        workload = workload.replaying(Replay::new(log.clone()));
    }
    let iolog = spec.iolog.write.as_deref().map(|p| {
        // The diskless engines open no file: the log names the files fio
        // would name (the replayed log's, or the job's).
        let names = match plan.replay(id.clone) {
            _ if !plan.backend.is_diskless() => paths.clone(),
            Some(log) => log.files.iter().map(PathBuf::from).collect(),
            None => file_paths(spec, id.clone),
        };
        IologWriter::open(p, &names)
    });
    let iolog = match iolog {
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => {
            return fail(
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("{}: write_iolog: {e}", spec.name),
            )
        }
        None => None,
    };
    let filler = BufferFiller::with_peers(spec, id.number, plan.dedupe_peers.as_ref());
    let replay = workload_of;
    let writes = match plan.replay(id.clone) {
        Some(log) => log.summary().ios[1] > 0,
        None => spec.rw.kind.writes(),
    };
    let verify = match VerifyLog::new(spec, id.number, writes, shared.aux_path, saved, replay) {
        Ok(v) => v,
        Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
    };
    let mut config = plan.loop_config(&clock);
    if spec.misc.block_error_hist {
        // fio counts the blocks of the job's one file (parsing made sure
        // there is one) in its trim block size.
        let (start, len) = extents.first().map_or((0, 0), |x| (x.offset, x.len));
        match BlockLife::new(start, len, spec.bs.trim.min()) {
            Ok(b) => config.block_life = Some(b),
            Err(m) => return fail(libc::EINVAL, format!("{}: {m}", spec.name)),
        }
    }
    let backend = plan.backend;
    // Held until the worker returns, as fio pins it for the job's life.
    let _pinned = match crate::memory::LockedMemory::pin(spec.misc.memory.lockmem) {
        Ok(p) => p,
        Err(m) => return fail(libc::ENOMEM, format!("{}: {m}", spec.name)),
    };
    let queue_config = QueueConfig {
        buffer_align: files
            .iter()
            .filter_map(|f| f.target.as_ref())
            .map(|t| t.logical_block_size() as usize)
            .fold(plan.queue.buffer_align, usize::max),
        fault: fault_config(spec, id.number),
        net: ioscope_engine::NetOptions {
            peer: link.as_ref().and_then(|c| c.peer),
            ..plan.queue.net
        },
        // The file engines work on the paths; they open nothing beforehand.
        file_paths: if backend.works_on_paths() {
            files.iter().map(|f| f.path.clone()).collect()
        } else {
            Vec::new()
        },
        stop: Some(progress.terminate.clone()),
        ..plan.queue.clone()
    };
    let fds: Vec<_> = files
        .iter()
        .filter_map(|f| f.target.as_ref().map(|t| t.fd()))
        .chain(link.as_ref().map(crate::net::fd))
        .collect();

    progress.set_phase(Phase::Running);
    // Before open_queue: the ring's SQ thread and io-wq workers inherit the
    // counter only if they are created after it.
    let punts = PuntTally::start(backend.uses_io_uring(), spec.engine_options.count_punts);
    let io_loop = IoLoop {
        config: &config,
        clock,
        workload,
        filler,
        progress,
        stop,
        // Only a ring has helper threads: any other worker would scan the
        // whole thread list for nothing, every worker of the phase in turn.
        helpers: backend.uses_io_uring().then_some(shared.helpers),
        ticket,
        punts,
        verify,
        paths,
        job: &spec.name,
        iolog,
        trace: crate::trace::IoTrace::for_worker(shared.trace),
        pacer: crate::pacing::Pacer::new(spec, id.number, clock, shared.flows),
        prio: crate::io_loop::PerIoPrio::new(spec, id.number, crate::priority::job_ioprio(spec)),
        write_mix: crate::io_loop::WriteMix::new(spec, id.number),
        locks: shared.file_locks.for_worker(
            spec.file_handling.lockfile,
            files.iter().map(|f| f.path.as_path()),
        ),
        files,
        ramp_size: shared.control.ramp_size(id.index),
    };
    let stats = match open_queue(backend, &queue_config, &fds, io_loop) {
        Ok(Ok(stats)) => stats,
        Ok(Err(e)) => {
            return fail(
                os_errno(&e).unwrap_or(libc::EIO),
                format!("{}: {} engine failed: {e}", spec.name, backend.name()),
            )
        }
        Err(e) => return fail(libc::EINVAL, format!("{}: {e}", spec.name)),
    };

    // fill_device: the filesystem filling up ends the job, as it should.
    let mut stats = stats;
    crate::file_setup::forgive_full(spec, &mut stats);
    if let Some(command) = &spec.process.exec_postrun {
        // fio ignores how the postrun command ended.
        let _ = exec_hooks::run(&spec.name, Hook::Postrun, command, shared.layout_lines);
    }

    let (errno, message) = match &stats.failure {
        Some(IoFailure {
            errno,
            detail: Some(detail),
            ..
        }) => (*errno, Some(format!("{}: {detail}", spec.name))),
        Some(f) => {
            let path = files.get(f.file as usize).map(|w| w.path.as_path());
            (f.errno, Some(f.line(path.unwrap_or(Path::new("")))))
        }
        // Bad blocks the job went on after still fail it: a verify that
        // found corruption must not exit 0.
        None => match &stats.verify {
            Some(v) if v.bad > 0 => (
                libc::EILSEQ,
                Some(format!(
                    "{}: {} of {} blocks read back failed verification",
                    spec.name, v.bad, v.checked
                )),
            ),
            Some(v) => match &v.nothing_checked {
                Some(why) => (
                    libc::ENODATA,
                    Some(format!("{}: verify checked no block: {why}", spec.name)),
                ),
                None => (0, None),
            },
            _ => (0, None),
        },
    };
    WorkerOutcome {
        tid,
        stats: Some(stats),
        errno,
        message,
    }
}

/// Waits `startdelay` (a random point in its range), polling for a stop.
/// Returns false when the run was stopped meanwhile.
fn sleep_start_delay(spec: &JobSpec, worker: u32, stop: &AtomicBool) -> bool {
    let (lo, hi) = spec.startdelay;
    let delay = if hi > lo {
        // A per-worker point in the range; randseed keeps it reproducible.
        let seed = spec.randseed.unwrap_or(0x89) ^ (u64::from(worker) << 32 | 0x9e37);
        let x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
        lo + (hi - lo).mul_f64((x as f64) / ((1u64 << 53) as f64))
    } else {
        lo
    };
    let end = std::time::Instant::now() + delay;
    while std::time::Instant::now() < end {
        if signal::interrupted() || stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10).min(end - std::time::Instant::now()));
    }
    true
}

/// The faulty engine's faults, seeded per worker so a run repeats.
fn fault_config(spec: &JobSpec, worker: u32) -> Option<FaultConfig> {
    if spec.ioengine != Backend::Faulty {
        return None;
    }
    let e = &spec.engine_options;
    let kind = match e.fault? {
        InjectedFault::BitFlip => FaultKind::BitFlip,
        InjectedFault::Drop => FaultKind::DropWrite,
        InjectedFault::Misdirect => FaultKind::Misdirect,
        InjectedFault::Torn => FaultKind::TornWrite,
        InjectedFault::ShortRead => FaultKind::ShortRead,
        InjectedFault::ReadEio => FaultKind::ReadError,
        InjectedFault::WriteEio => FaultKind::WriteError,
    };
    Some(FaultConfig {
        kind,
        percent: e.fault_rate_micro.map_or(1.0, |m| m as f64 / 1e6),
        seed: spec.randseed.unwrap_or(0x89) ^ u64::from(worker).rotate_left(32),
    })
}

/// The OS error number of `e`, or of the OS error it wraps (an engine's
/// error that names what failed keeps the OS's errno as its source).
fn os_errno(e: &std::io::Error) -> Option<i32> {
    e.raw_os_error().or_else(|| {
        let inner = e.get_ref()?;
        std::error::Error::source(inner)?
            .downcast_ref::<std::io::Error>()?
            .raw_os_error()
    })
}

/// Names the calling thread `name` (what `ps -L` and top show; the kernel
/// keeps the first 15 bytes), as fio's `comm` names its job's.
fn set_thread_name(name: &str) -> std::io::Result<()> {
    let name = std::ffi::CString::new(name).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "contains a NUL byte")
    })?;
    // SAFETY: PR_SET_NAME reads a NUL-terminated string, which `name` is
    // and which outlives the call.
    if unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
