//! Jobs into phases and reporting groups, and the run of each phase.
//!
//! A `stonewall` job waits for every job before it: it starts a new phase.
//! `stonewall` and `new_group` both start a new reporting group. Files are
//! laid out phase by phase, just before the phase starts, so a read job that
//! follows a write job behind a stonewall finds the file already written.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ioscope_engine::Backend;
use ioscope_job::{ClockSourceOpt, JobSpec, Parsed};
use ioscope_stats::{
    process_cpu, Clock, ClockSource, HelperTracker, JobHeader, Notice, RunResult, XnvmeRan,
};

use crate::agg_bw::AggBw;
use crate::collect::{self, Finished};
use crate::disks::DiskTracker;
use crate::error::RunError;
use crate::files::{self, WorkerFile};
use crate::job_control::{self, Control, Member};
use crate::plan::Plan;
use crate::progress::{self, WorkerProgress, WorkerShape};
use crate::start_gate::StartGate;
use crate::status::{PhaseView, StatusTimer};
use crate::worker::{run_worker, Shared, WorkerId};
use crate::{signal, warn, RunOptions};

/// The header of every job, for the lines printed before the run.
pub fn headers(parsed: &Parsed) -> Vec<JobHeader> {
    let groups = group_ids(&parsed.jobs);
    parsed
        .jobs
        .iter()
        .zip(groups)
        .map(|(spec, g)| header(spec, g))
        .collect()
}

pub(crate) fn header(spec: &JobSpec, groupid: u32) -> JobHeader {
    let range = |b: &ioscope_job::BlockSize| (b.min(), b.max());
    JobHeader {
        name: spec.name.clone(),
        description: spec.description.clone(),
        groupid,
        rw: spec.rw.kind.name().to_string(),
        bs: [
            range(&spec.bs.read),
            range(&spec.bs.write),
            range(&spec.bs.trim),
        ],
        ioengine: spec.ioengine.name().to_string(),
        iodepth: spec.iodepth,
        numjobs: spec.numjobs,
        thread: spec.thread,
        xnvme: xnvme_ran(spec),
        latency_profile: Some(crate::pacing::latency_profile(spec)),
    }
}

/// For an xnvme job, the backend that runs it and the interfaces that
/// chose it.
fn xnvme_ran(spec: &JobSpec) -> Option<XnvmeRan> {
    if spec.ioengine != Backend::Xnvme {
        return None;
    }
    let x = &spec.engine_options.xnvme;
    let mut interfaces = format!("xnvme_async={}", x.async_iface.name());
    if x.async_iface.uses_sync_interface() {
        interfaces.push_str(&format!(", xnvme_sync={}", x.sync_iface.name()));
    }
    Some(XnvmeRan {
        backend: crate::plan::backend(spec).name().to_string(),
        interfaces,
    })
}

/// fio's group ids: a stonewall or new_group after the first job starts a new one.
pub(crate) fn group_ids(jobs: &[JobSpec]) -> Vec<u32> {
    let mut id = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            if i > 0 && (j.stonewall || j.new_group) {
                id += 1;
            }
            id
        })
        .collect()
}

/// Indices of the jobs of each phase, in order.
fn phases(jobs: &[JobSpec]) -> Vec<Vec<usize>> {
    let mut phases: Vec<Vec<usize>> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        if phases.is_empty() || j.stonewall {
            phases.push(Vec::new());
        }
        phases.last_mut().expect("pushed above").push(i);
    }
    phases
}

fn clock_source(jobs: &[JobSpec]) -> ClockSource {
    match jobs.first().map(|j| j.clocksource) {
        Some(ClockSourceOpt::Gettimeofday) => ClockSource::Gettimeofday,
        Some(ClockSourceOpt::ClockGettime) => ClockSource::ClockGettime,
        _ => ClockSource::Cpu,
    }
}

pub(crate) fn run_all(
    parsed: &Parsed,
    plan: &Plan,
    options: &RunOptions,
    report: &mut (dyn FnMut(&RunResult) + Send),
) -> Result<RunResult, RunError> {
    signal::install();
    let mut timer = StatusTimer::new(options.status_interval);
    let cpu_start = process_cpu();
    // fio starts its idle threads before the jobs, and they time their
    // unit of work before any job starts.
    let idle = options
        .idle_prof
        .map(crate::idle_prof::IdleProfiler::start)
        .transpose()
        .map_err(RunError::Other)?;
    let clock = Clock::new(clock_source(&parsed.jobs));
    // What the user should know beside the numbers, in the order found.
    let mut notices: Vec<Notice> = clock.notice().into_iter().collect();
    let groups = group_ids(&parsed.jobs);
    // Workers are numbered across the whole run, as fio numbers its threads.
    let first_number: Vec<u32> = parsed
        .jobs
        .iter()
        .scan(0u32, |next, j| {
            let first = *next;
            *next += j.numjobs.max(1);
            Some(first)
        })
        .collect();
    let stop = AtomicBool::new(false);
    let run_start = std::time::Instant::now();
    let trigger_fired = AtomicBool::new(false);
    let mut disks = DiskTracker::default();
    let mut finished: Vec<Finished> = Vec::new();
    let mut logs = Vec::new();
    let mut agg_bw = options
        .bandwidth_log
        .clone()
        .map(|prefix| AggBw::new(prefix, &parsed.jobs, run_start));
    let pace = (options.eta.clone()).map(|sink| progress::Pace {
        interval: options.eta_interval,
        sink,
    });

    let mut aborted = None;
    // zonemode=zbd: a file's zones outlive the phase that cut them.
    let zone_book = ioscope_workload::ZoneBook::default();
    // The cgroups the jobs create go when the run ends (fio's cgroup_kill).
    let cgroups = crate::cgroup::Cgroups::default();
    let all_phases = phases(&parsed.jobs);
    'phases: for (k, phase) in all_phases.iter().enumerate() {
        if signal::interrupted() || stop.load(Ordering::Relaxed) {
            if !signal::interrupted() {
                finished.extend(job_control::never_started(
                    parsed,
                    &all_phases[k..],
                    &groups,
                ));
            }
            break;
        }
        let mut workers: Vec<(usize, WorkerId, Vec<WorkerFile>)> = Vec::new();
        // The workers whose files could not be set up: their place among
        // the phase's workers, their job, and their error.
        let mut unready = Vec::new();
        for &j in phase {
            let spec = &parsed.jobs[j];
            for w in 0..spec.numjobs.max(1) {
                let id = WorkerId {
                    clone: w,
                    number: first_number[j] + w,
                    index: workers.len(),
                };
                let mut notice = |line: String| {
                    if options.layout_lines {
                        // The notice goes where the report goes (stdout);
                        // if stdout cannot take it, writing the report
                        // fails too and says so.
                        let _ = writeln!(std::io::stdout(), "{line}");
                    }
                };
                let files = match files::prepare(
                    spec,
                    &plan.jobs[j],
                    w,
                    &mut notice,
                    &mut notices,
                    options.trace.as_ref(),
                ) {
                    Ok(files) => files,
                    // Ctrl-C stopped the layout: report what ran, and the
                    // signal, as for a stop during the I/O.
                    Err(_) if signal::interrupted() => break 'phases,
                    // As fio's setup_files failing: the worker is reported
                    // with the error and nothing done, the others run, and
                    // the run fails.
                    Err(e) => {
                        warn(format_args!("ioscope: {e}"));
                        let outcome = crate::worker::WorkerOutcome {
                            tid: 0,
                            stats: None,
                            errno: e.errno(),
                            message: None,
                        };
                        unready.push((workers.len() + unready.len(), j, outcome));
                        continue;
                    }
                };
                workers.push((j, id, files));
            }
        }
        if workers.is_empty() {
            finished.extend(
                unready
                    .into_iter()
                    .map(|(_, j, outcome)| not_set_up(j, groups[j], outcome, 0)),
            );
            continue;
        }
        for (j, _, files) in &workers {
            if parsed.jobs[*j].misc.disk_util {
                disks.track(files.iter().map(|f| f.path.as_path()));
            }
        }

        let progresses: Vec<WorkerProgress> = workers
            .iter()
            .map(|(j, _, _)| WorkerProgress::new(&parsed.jobs[*j]))
            .collect();
        let phase_start = std::time::Instant::now();
        let done = AtomicBool::new(false);
        // Helper threads are looked up by their owner's tid, which a later
        // phase may reuse: each phase keeps its own record.
        let helpers = HelperTracker::default();
        let gate = StartGate::new(workers.len());
        let members = workers
            .iter()
            .zip(&progresses)
            .map(|((j, _, _), progress)| Member {
                job: *j,
                groupid: groups[*j],
                progress,
            })
            .collect();
        let later_io = all_phases[k + 1..]
            .iter()
            .flatten()
            .any(|&j| crate::plan::does_io(&parsed.jobs[j]));
        let control = Control::new(parsed, members, &stop, later_io);
        let flows = crate::pacing::Flows::default();
        let file_locks = crate::file_lock::FileLocks::default();
        let shared = Shared {
            clock,
            layout_lines: options.layout_lines,
            control: &control,
            helpers: &helpers,
            aux_path: options.aux_path.as_deref(),
            trace: options.trace.as_ref(),
            flows: &flows,
            zones: &zone_book,
            file_locks: &file_locks,
            cgroups: &cgroups,
        };
        let outcomes = std::thread::scope(|s| -> Result<Vec<_>, RunError> {
            let mut handles = Vec::with_capacity(workers.len());
            for ((j, w, files), progress) in workers.iter().zip(&progresses) {
                let spec = &parsed.jobs[*j];
                let job_plan = &plan.jobs[*j];
                let shared = &shared;
                let ticket = gate.ticket();
                let (stop, control, gate) = (&stop, &control, &gate);
                let handle = std::thread::Builder::new()
                    .name(format!("{}.{}", spec.name, w.clone))
                    .spawn_scoped(s, move || {
                        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run_worker(spec, job_plan, *w, files, shared, progress, ticket)
                        }));
                        if ran.is_err() {
                            // A bug: the panic's message is on stderr.
                            // The other workers stop rather than wait for
                            // this one, and the run fails.
                            stop.store(true, Ordering::Relaxed);
                            control.stop_all();
                            gate.open();
                        }
                        ran.is_ok()
                    })
                    .map_err(|e| {
                        // The run is refused: those already started stop
                        // at once rather than wait for the missing ones.
                        stop.store(true, Ordering::Relaxed);
                        control.stop_all();
                        gate.open();
                        RunError::Other(format!("cannot start a worker thread: {e}"))
                    })?;
                handles.push(handle);
            }
            let (control, done_flag) = (&control, &done);
            let controller = s.spawn(move || control.watch(done_flag));
            let reporter = pace.as_ref().map(|pace| {
                let shapes: Vec<(WorkerShape, &WorkerProgress)> = workers
                    .iter()
                    .zip(&progresses)
                    .map(|((j, _, files), p)| (shape(&parsed.jobs[*j], files), p))
                    .collect();
                let done = &done;
                s.spawn(move || progress::report_loop(&shapes, done, run_start, pace))
            });
            // Helper threads serve rings only; without one there is
            // nothing to find.
            let rings = workers
                .iter()
                .any(|(j, _, _)| plan.jobs[*j].backend.uses_io_uring());
            let sampler = rings.then(|| s.spawn(|| sample_helpers(&helpers, &done)));
            let agg_sampler = agg_bw.as_mut().map(|agg| {
                let (progresses, done) = (&progresses, &done);
                s.spawn(move || agg.watch(progresses, done))
            });
            let watcher = options.trigger.armed().then(|| {
                s.spawn(|| {
                    options
                        .trigger
                        .watch(run_start, &done, &stop, &trigger_fired)
                })
            });
            let view = PhaseView {
                parsed,
                earlier: &finished,
                workers: workers
                    .iter()
                    .zip(&progresses)
                    .map(|((j, _, _), p)| (*j, groups[*j], p))
                    .collect(),
                // fio shows the jobs still to come, with nothing done yet.
                later: all_phases[k + 1..]
                    .iter()
                    .flatten()
                    .flat_map(|&j| {
                        std::iter::repeat_n((j, groups[j]), parsed.jobs[j].numjobs.max(1) as usize)
                    })
                    .collect(),
                helpers: &helpers,
                disks: &disks,
                clock,
                phase_start,
                cpu_start,
                notices: &notices,
            };
            let (timer, report, done) = (&mut timer, &mut *report, &done);
            let status = s.spawn(move || view.watch(done, timer, report));
            let mut all_ran = true;
            for h in handles {
                all_ran &= h.join().unwrap_or(false);
            }
            if !all_ran {
                // The helpers end with `done`, and the scope waits for them.
                done.store(true, Ordering::Relaxed);
                return Err(RunError::Other(
                    "a worker thread panicked: a bug in ioscope (its message is above); please report it with the job file and that message".into(),
                ));
            }
            let outcomes: Vec<_> = progresses
                .iter()
                .map(|p| {
                    p.status
                        .take_outcome()
                        .expect("every worker leaves its outcome")
                })
                .collect();
            done.store(true, Ordering::Relaxed);
            status.join().expect("the status reports do not panic");
            controller.join().expect("job control does not panic");
            if let Some(sampler) = sampler {
                sampler.join().expect("the helper sampler does not panic");
            }
            if let Some(a) = agg_sampler {
                a.join()
                    .expect("the aggregate bandwidth sampler does not panic");
            }
            if let Some(w) = watcher {
                w.join().expect("the trigger watcher does not panic");
            }
            if let Some(r) = reporter {
                r.join().expect("the status line does not panic");
            }
            Ok(outcomes)
        })?;
        let elapsed_ms = phase_start.elapsed().as_millis() as u64;

        let phase_first = finished.len();
        for ((j, id, files), mut outcome) in workers.into_iter().zip(outcomes) {
            let spec = &parsed.jobs[j];
            if let Some(stats) = outcome.stats.as_mut() {
                logs.extend(crate::logs::take(spec, id.number, stats, &clock));
            }
            let described = outcome
                .stats
                .as_ref()
                .and_then(|s| s.verify.as_ref())
                .map(|v| (v.messages.as_slice(), v.bad))
                .unwrap_or_default();
            for m in described.0 {
                warn(format_args!("ioscope: {}: {m}", spec.name));
            }
            if described.1 > described.0.len() as u64 {
                warn(format_args!(
                    "ioscope: {}: ... and {} more bad blocks",
                    spec.name,
                    described.1 - described.0.len() as u64
                ));
            }
            if let Some(errors) = outcome.stats.as_ref().map(|s| &s.errors) {
                for f in &errors.dumped {
                    let path = files.get(f.file as usize).map(|w| w.path.as_path());
                    warn(format_args!(
                        "ioscope: {}",
                        f.line(path.unwrap_or(std::path::Path::new("")))
                    ));
                }
                if errors.dumped_more > 0 {
                    warn(format_args!(
                        "ioscope: {}: ... and {} more I/O errors",
                        spec.name, errors.dumped_more
                    ));
                }
            }
            if let Some(m) = &outcome.message {
                // A verify failure that stopped the job was described above.
                if !described
                    .0
                    .iter()
                    .any(|d| *m == format!("{}: {d}", spec.name))
                {
                    warn(format_args!("ioscope: {m}"));
                }
            }
            if spec.unlink {
                let backend = plan.jobs[j].backend;
                for f in &files {
                    let opened = f.target.is_some();
                    if let Some(Err(e)) = crate::file_setup::unlink(backend, opened, &f.path) {
                        notices.push(Notice::UnlinkFailed {
                            path: f.path.display().to_string(),
                            error: e.to_string(),
                        });
                    }
                }
            }
            let measured = outcome.stats.as_ref();
            if let Some(flags) = measured.and_then(|s| s.refused_setup_flags.clone()) {
                let notice = Notice::RingFlagsRefused {
                    job: spec.name.clone(),
                    flags,
                };
                // numjobs clones build the same ring: one notice says it.
                if !notices.contains(&notice) {
                    notices.push(notice);
                }
            }
            let mut helper_cpu = helpers
                .for_owner(outcome.tid)
                .since(&measured.map(|s| s.helpers_at_start).unwrap_or_default());
            helper_cpu.punts = measured.map(|s| s.punts).unwrap_or_default();
            finished.push(Finished {
                steadystate: control.steady_result(id.index),
                helper_cpu,
                job: j,
                groupid: groups[j],
                outcome,
                elapsed_ms,
            });
        }
        // In worker order, as fio reports its threads.
        for (place, j, outcome) in unready {
            let f = not_set_up(j, groups[j], outcome, elapsed_ms);
            finished.insert(phase_first + place, f);
        }
    }
    // The jobs have stopped and saved their verify state: now the trigger's
    // command (a power cut, say) may run.
    if trigger_fired.load(Ordering::Relaxed) {
        if let Err(e) = options.trigger.run_command() {
            aborted.get_or_insert(e);
        }
    }
    let (idleness, idle_cpu) = idle.map(|p| p.stop()).unzip();
    let process = process_cpu()
        .since(&cpu_start)
        .since(&idle_cpu.unwrap_or_default());
    let mut result = collect::build(parsed, &finished, disks.so_far(), &clock, process);
    result.idleness = idleness;
    result.aborted = aborted;
    result.interrupted = signal::caught();
    notices.extend(result.cpu.helpers.punts.notice());
    notices.extend(crate::doctor::after_run(parsed, &result));
    notices.extend(
        result
            .interrupted
            .map(|signal| Notice::Interrupted { signal }),
    );
    result.notices = notices;
    result.logs = logs;
    result.agg_bw = agg_bw.map(|a| a.sampler.log());
    Ok(result)
}

/// A worker whose files could not be set up: it did nothing.
fn not_set_up(
    job: usize,
    groupid: u32,
    outcome: crate::worker::WorkerOutcome,
    elapsed_ms: u64,
) -> Finished {
    Finished {
        job,
        groupid,
        outcome,
        helper_cpu: Default::default(),
        elapsed_ms,
        steadystate: None,
    }
}

/// Reads the helper threads every 100 ms until the phase is done, so io-wq
/// workers that exit mid-run are still counted.
fn sample_helpers(helpers: &HelperTracker, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        helpers.sample();
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the status line shows for a worker, and what its ETA is made of.
fn shape(spec: &JobSpec, files: &[WorkerFile]) -> WorkerShape {
    use ioscope_job::RwKind::*;
    let letter = match spec.rw.kind {
        Read => 'R',
        Write => 'W',
        RandRead => 'r',
        RandWrite => 'w',
        ReadWrite => 'M',
        RandRw => 'm',
        // fio's letters for trimming.
        Trim => 'D',
        RandTrim => 'd',
        // fio counts a trim-then-write job as a writer.
        TrimWrite => 'W',
        RandTrimWrite => 'w',
    };
    let kind = spec.rw.kind;
    let dirs = [kind.reads(), kind.writes(), kind.trims()];
    let per_loop = spec.loop_bytes(files.iter().map(|f| f.extent.len));
    let mut total_bytes = per_loop.saturating_mul(u64::from(spec.loops.max(1)));
    // fio's thread_eta: writes read back after count again, in a mix by
    // the write share.
    if spec.verify.do_verify && spec.verify.method != ioscope_job::VerifyMethod::None && dirs[1] {
        total_bytes += match dirs[0] {
            true => total_bytes * u64::from(100 - spec.rwmixread.min(100)) / 100,
            false => total_bytes,
        };
    }
    let p = &spec.pacing;
    let per_dir = |v: &ioscope_job::PerDir<u64>| [v.read, v.write, v.trim];
    let iops = |v: &ioscope_job::PerDir<u64>| per_dir(v).map(|x| x.min(u64::from(u32::MAX)) as u32);
    let open_cap = spec.file_handling.openfiles;
    let files = match open_cap {
        0 => files.len(),
        cap => files.len().min(cap as usize),
    } as u32;
    WorkerShape {
        letter,
        total_bytes,
        runtime: spec.runtime.unwrap_or_default(),
        ramp: spec.ramp_time,
        start_delay: spec.startdelay.0,
        time_based: spec.time_based,
        stonewall: spec.stonewall,
        exitall: spec.exitall,
        dirs,
        rate: per_dir(&p.rate),
        rate_min: per_dir(&p.rate_min),
        rate_iops: iops(&p.rate_iops),
        rate_iops_min: iops(&p.rate_iops_min),
        files,
        mixed: spec.misc.unified_rw == ioscope_job::UnifiedRw::Mixed,
        kb_base: spec.kb_base,
        unit_base: match spec.misc.unit_bits {
            true => ioscope_stats::UNIT_BITS,
            false => ioscope_stats::UNIT_BYTES,
        },
        sig_figs: u32::from(spec.misc.sig_figs),
    }
}
