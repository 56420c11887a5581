//! A job's plan: what a run needs from the job alone, worked out once before
//! any target is opened, with every check that needs no target.
//!
//! `--parse-only` stops after this step, so it refuses exactly the jobs a run
//! would refuse before touching a file. The checks that need a target (its
//! size, block size, poll queues, NVMe limits, what it holds) run once per
//! target in `files.rs`, after it is opened.

use std::sync::Arc;
use std::time::Duration;

use ioscope_engine::{
    xnvme_check_target_name, AioOptions, Backend, CpuBurn, Donor, EngineKind, ExecProgram,
    NvmeOptions, Op, Pvsync2Options, QueueConfig, Shape, TrimRange, UringOptions, XnvmeMapping,
    MAX_TRIM_RANGES,
};
use ioscope_job::{JobSpec, Parsed, RwKind, VerifyMethod, WriteMode, ZoneMode};
use ioscope_stats::Clock;
use ioscope_workload::{Iolog, IologSummary};

use crate::error::RunError;
use crate::io_loop::{EndSync, EngineTimed, LoopConfig, Tracking};

/// What every worker of one job is built from.
#[derive(Clone, Debug)]
pub struct JobPlan {
    /// The engine crate's backend (the faulty engine's is the one it wraps;
    /// the xnvme engine's, the one its interfaces map to).
    pub(crate) backend: Backend,
    /// The queue every worker builds: its buffers are aligned to the page
    /// here, to a target's logical block where that is larger, and faults
    /// are seeded per worker.
    pub(crate) queue: QueueConfig,
    /// The I/O loop's knobs, with the depth clamps done once; the ramp and
    /// run times are turned into ticks of the run's clock by
    /// [`JobPlan::loop_config`].
    looping: LoopConfig,
    ramp_time: Duration,
    runtime: Option<Duration>,
    /// `read_iolog`: the logs read, one per name given; empty when the job
    /// does not replay.
    replays: Vec<Arc<Iolog>>,
    /// `dedupe_global`: every thread's buffer seed, for the working set.
    pub(crate) dedupe_peers: Option<ioscope_workload::DedupePeers>,
}

/// The plans of every job of a run, in job order.
#[derive(Clone, Debug)]
pub struct Plan {
    pub(crate) jobs: Vec<JobPlan>,
}

impl JobPlan {
    /// The loop's knobs with the job's times in `clock`'s ticks.
    pub(crate) fn loop_config(&self, clock: &Clock) -> LoopConfig {
        LoopConfig {
            ramp_ticks: clock.ticks_for_ns(self.ramp_time.as_nanos() as u64),
            runtime_ticks: self
                .runtime
                .map(|r| clock.ticks_for_ns(r.as_nanos() as u64)),
            ..self.looping.clone()
        }
    }

    /// The log clone `clone` of the job replays (fio hands the logs out to
    /// the clones in turn); None when the job does not replay.
    pub(crate) fn replay(&self, clone: u32) -> Option<&Arc<Iolog>> {
        let n = self.replays.len();
        (n > 0).then(|| &self.replays[clone as usize % n])
    }
}

/// Plans every job of `parsed`, or refuses the first that cannot run.
/// `readonly` is fio's `--readonly`: a job that writes or trims is refused.
pub fn plan(parsed: &Parsed, readonly: bool) -> Result<Plan, RunError> {
    if readonly {
        // A replay writes what its log does, which plan_job checks.
        if let Some(spec) = parsed
            .jobs
            .iter()
            .find(|s| s.iolog.read.is_empty() && changes_target(s))
        {
            return Err(RunError::job(&spec.name, readonly_refusal(spec)));
        }
    }
    crate::job_control::check_wait_for(parsed)?;
    let groups = crate::phases::group_ids(&parsed.jobs);
    crate::job_control::check_steadystate(&parsed.jobs, &groups)?;
    crate::ramp::check(&parsed.jobs, &groups)?;
    crate::zones::check_shared(&parsed.jobs).map_err(|(name, m)| RunError::job(name, m))?;
    let mut jobs: Vec<JobPlan> = parsed
        .jobs
        .iter()
        .map(|spec| plan_job(spec, readonly).map_err(|m| RunError::job(&spec.name, m)))
        .collect::<Result<_, _>>()?;
    crate::misc_checks::share_dedupe(parsed, &mut jobs);
    // fio hooks a profile's counting into every job of the run.
    for j in &mut jobs {
        j.looping.act = parsed.act;
    }
    Ok(Plan { jobs })
}

fn plan_job(spec: &JobSpec, readonly: bool) -> Result<JobPlan, String> {
    crate::numa::check(spec)?;
    let xnvme = xnvme_mapping(spec)?;
    let backend = backend(spec);
    check(spec, backend)?;
    crate::pacing::check(spec)?;
    // fio merges the traces as it sets the job up, and replays the merged
    // file in their place.
    let logs = match &spec.iolog.merge {
        Some(merged) => {
            ioscope_workload::merge_blktraces(&spec.iolog)?;
            std::slice::from_ref(merged)
        }
        None => &spec.iolog.read[..],
    };
    let replays = logs
        .iter()
        .map(|path| Iolog::load(path, &spec.iolog).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let replayed = replayed(&replays);
    if let Some(r) = &replayed {
        check_replay(spec, backend, r, readonly)?;
    }
    // An xnvme interface that issues fewer requests at once than the job's
    // depth (emu: one) runs at that depth.
    let depth = match xnvme.and_then(|m| m.max_depth) {
        Some(max) => spec.iodepth.clamp(1, max.max(1)),
        None => spec.iodepth.max(1),
    };
    let writes_data = crate::io_loop::writes_carry_data(spec, backend);
    let reduce = crate::misc_checks::gtod_reduced(spec);
    let end_sync = end_sync(spec, backend, replayed.as_ref().map(|r| r.ios[1] > 0));
    let looping = LoopConfig {
        depth,
        batch_submit: spec.iodepth_batch_submit.clamp(1, depth),
        complete_min: spec.iodepth_batch_complete_min.min(depth),
        complete_max: spec.iodepth_batch_complete_max.clamp(1, depth),
        depth_low: spec.iodepth_low.min(depth),
        // A replay flushes where its log does: fio's fsync=N picks the
        // direction of generated I/O only.
        syncs: if replayed.is_some() {
            crate::io_loop::SyncEvery::default()
        } else {
            crate::io_loop::SyncEvery::of(spec)
        },
        write_op: crate::io_loop::write_op(spec, backend),
        // check() refused num_range above 1 where it cannot be sent.
        trim_ranges: spec.num_range.min(u32::from(MAX_TRIM_RANGES)) as u16,
        data_buffers: match &replayed {
            Some(r) => r.ios[0] + r.ios[1] > 0,
            None => spec.rw.kind.reads() || (spec.rw.kind.writes() && writes_data),
        },
        // These engines time their own operation, not the requests.
        tracking: if backend.works_on_paths() || backend.moves_no_data() {
            Tracking::default()
        } else {
            Tracking {
                slat: !(reduce || spec.disable_slat),
                clat: !(reduce || spec.disable_clat),
                lat: !(reduce || spec.disable_lat),
                slat_hist: spec.slat_percentiles,
                clat_hist: spec.clat_percentiles,
                lat_hist: spec.lat_percentiles,
            }
        },
        ramp_ticks: 0,
        runtime_ticks: None,
        sample_ms: crate::logs::rate_intervals(spec),
        logs: crate::logs::plan(spec),
        keep_rate_samples: crate::logs::keeps_rate_samples(&spec.logs),
        errors: spec.errors.clone(),
        error_dump: spec.misc.error_dump,
        verify_async: spec.verify.async_threads,
        verify_async_cpus: spec.misc.verify_async_cpus.clone(),
        serialize_overlap: crate::misc_checks::serializes(spec, depth, replayed.is_some()),
        replay_paced: replayed.is_some() && !spec.iolog.no_stall,
        max_latency_ns: {
            let m = &spec.pacing.max_latency;
            [m.read, m.write, m.trim].map(|d| d.as_nanos() as u64)
        },
        latency_target: crate::pacing::latency_target(spec),
        // fio times the file engines' operations unless disable_lat.
        engine_timed: (backend.works_on_paths() || backend.moves_no_data()).then(|| EngineTimed {
            dir: usize::from(!spec.rw.kind.reads()),
            // fio times the operations unless disable_lat.
            measure: !(reduce || spec.disable_lat),
            hist: spec.clat_percentiles,
            no_data: backend.moves_no_data(),
        }),
        // The worker sets it up: it knows the job's file.
        block_life: None,
        end_sync,
        close_fsync: spec.file_handling.fsync_on_close && end_sync.is_some(),
        // The run's profile, set for every job below.
        act: None,
        clat_sums: {
            let ss = &spec.process.steadystate;
            ss.enabled() && ss.metric == ioscope_job::SteadyMetric::Lat
        },
    };
    let e = &spec.engine_options;
    let mut queue = QueueConfig {
        depth,
        buffer_size: match &replayed {
            Some(r) => r.max_len.iter().copied().max().unwrap_or(0).max(1) as usize,
            None => buffer_size(spec, backend, &looping) as usize,
        },
        buffer_align: ioscope_engine::page_size(),
        memory: crate::memory::buffer_memory(spec)?,
        hipri: spec.hipri,
        uring: UringOptions {
            sqpoll: e.sqthread_poll,
            sqpoll_cpu: e.sqthread_poll_cpu,
            fixed_buffers: e.fixedbufs,
            register_files: e.registerfiles,
            nonvectored: e.nonvectored,
            force_async: e.force_async,
            nowait: e.nowait,
            uncached: e.uncached,
            nvme: NvmeOptions {
                readfua: e.readfua,
                writefua: e.writefua,
                pi_act: e.pi.pi_act,
                md_per_io_size: e.pi.md_per_io_size,
                pi_chk: e.pi.pi_chk.clone(),
                apptag: e.pi.apptag,
                apptag_mask: e.pi.apptag_mask,
                zone_append: e.write_mode.only() == Some(WriteMode::ZoneAppend),
            },
            ..UringOptions::default()
        },
        aio: AioOptions {
            userspace_reap: e.userspace_reap,
            vectored: e.vectored,
            nowait: e.nowait,
        },
        pvsync2: Pvsync2Options {
            nowait: e.nowait,
            uncached: e.uncached,
        },
        net: crate::net::queue_options(spec),
        fault: None,
        file_paths: Vec::new(),
        stat_type: spec.engines_misc.stat_type,
        cpu: CpuBurn {
            load: spec.engines_misc.cpuload,
            chunk_us: spec.engines_misc.cpuchunks,
            qsort: spec.engines_misc.cpu_qsort,
        },
        exec: (backend == Backend::Exec).then(|| ExecProgram {
            argv: spec.engines_misc.exec_argv(spec),
            grace_time: spec.engines_misc.grace_time,
            // fio writes them to the current directory.
            redirect: spec.engines_misc.std_redirect.then(|| {
                (
                    format!("{}.stdout", spec.name).into(),
                    format!("{}.stderr", spec.name).into(),
                )
            }),
        }),
        runtime: spec.runtime,
        ramp_time: (spec.ramp_size == 0).then_some(spec.ramp_time),
        stop: None,
        thp: spec.misc.thp,
        donor: (backend == Backend::E4defrag).then(|| e4defrag_donor(spec)),
    };
    if let Some(mapping) = xnvme {
        mapping.configure(&mut queue);
    }
    Ok(JobPlan {
        backend,
        queue,
        looping,
        ramp_time: spec.ramp_time,
        runtime: spec.runtime,
        replays,
        dedupe_peers: None,
    })
}

/// What all the job's logs together replay; None when it replays none.
fn replayed(logs: &[Arc<Iolog>]) -> Option<IologSummary> {
    let mut all = logs.first()?.summary();
    for s in logs[1..].iter().map(|l| l.summary()) {
        for d in 0..3 {
            all.ios[d] += s.ios[d];
            all.bytes[d] += s.bytes[d];
            all.max_len[d] = all.max_len[d].max(s.max_len[d]);
        }
        all.syncs += s.syncs;
    }
    Some(all)
}

/// What a replay cannot do: what its logs ask of the engine, writing under
/// `--readonly`, and the options whose workload the log replaces.
fn check_replay(
    spec: &JobSpec,
    backend: Backend,
    r: &IologSummary,
    readonly: bool,
) -> Result<(), String> {
    let carries = |op| backend.supports(op) && spec.ioengine.supports(op);
    let engine = spec.ioengine.name();
    if r.syncs > 0 && !carries(Op::Fsync) {
        return Err(format!(
            "read_iolog: the log flushes, and ioengine={engine} cannot (replay_skip=sync \
             leaves the flushes out)"
        ));
    }
    if r.ios[2] > 0 && !carries(Op::Trim) {
        return Err(format!(
            "read_iolog: the log trims, and ioengine={engine} cannot (replay_skip=trim \
             leaves the trims out)"
        ));
    }
    if readonly && r.ios[1] + r.ios[2] > 0 {
        return Err(
            "read_iolog: the log writes or trims, but ioscope runs with --readonly \
             (replay_skip=write,trim leaves them out)"
                .into(),
        );
    }
    if spec.verify.experimental && spec.verify.method != VerifyMethod::None {
        // fio 3.33 reads nothing back then, and reports success.
        return Err(
            "read_iolog with experimental_verify: the verify phase draws the writes' offsets \
             again, which a replayed log does not give, so it would check nothing \
             (drop experimental_verify: the replay's writes are verified as logged)"
                .into(),
        );
    }
    if spec.num_range > 1 {
        // fio (3.42, engines/nvme.c) fills a trim's range list only for
        // the trims it draws itself: a replayed trim goes out with a list
        // it never filled.
        return Err(format!(
            "num_range={} with read_iolog: a logged trim names one range, and fio sends the \
             range list only its own trims fill (a replayed one goes out with none); set \
             num_range=1 or leave it out to replay each trim as logged",
            spec.num_range
        ));
    }
    Ok(())
}

/// The bytes of each buffer slot: the largest block the job moves through
/// one. Commands without data (Write Zeroes) need no room.
fn buffer_size(spec: &JobSpec, backend: Backend, looping: &LoopConfig) -> u64 {
    let mut max_bs = 0;
    if spec.rw.kind.reads() {
        max_bs = spec.bs.read.max();
    }
    // randtrimwrite writes each block it trimmed, at the trim's length.
    let max_write = match spec.rw.kind {
        RwKind::RandTrimWrite => spec.bs.trim.max(),
        _ => spec.bs.write.max(),
    };
    if spec.rw.kind.writes() && crate::io_loop::writes_carry_data(spec, backend) {
        max_bs = max_bs.max(max_write);
    }
    if spec.verify.method != VerifyMethod::None {
        // Written blocks are read back into the same buffers.
        max_bs = max_bs.max(max_write);
    }
    if spec.placement.bs_is_seq_rand {
        // Sizes follow randomness, not direction: either size may come.
        max_bs = max_bs.max(spec.bs.read.max()).max(spec.bs.write.max());
    }
    if looping.trim_ranges > 1 {
        // A trim of several ranges brings its range list in the buffer.
        max_bs = max_bs.max((usize::from(looping.trim_ranges) * TrimRange::BYTES) as u64);
    }
    max_bs.max(1)
}

/// Everything about the job that can be refused without its targets.
fn check(spec: &JobSpec, backend: Backend) -> Result<(), String> {
    crate::logs::check(spec)?;
    if backend.is_network() {
        crate::net::check(spec)?;
    }
    crate::zones::check(spec)?;
    crate::misc_checks::check(spec)?;
    spec.cmdprio.check()?;
    let verifies = spec.verify.method != VerifyMethod::None;
    if verifies && backend.is_diskless() {
        return Err(format!(
            "verify needs an engine that stores what it writes; ioengine={} does no I/O",
            spec.ioengine.name()
        ));
    }
    let modes = &spec.engine_options.write_mode;
    if verifies && !modes.plain() && modes.only() != Some(WriteMode::ZoneAppend) {
        return Err(format!(
            "verify with write_mode={}: {}",
            modes.text(),
            match modes.only() {
                Some(WriteMode::Zeroes) =>
                    "Write Zeroes carries no data to check (use \
                     write_mode=write, or rw=write then read the zeroes back with a read job)",
                Some(WriteMode::Uncorrectable) =>
                    "Write Uncorrectable leaves blocks that \
                     fail to read, not data to check (use write_mode=write)",
                Some(WriteMode::Verify) =>
                    "an NVMe Verify writes nothing, so there is no \
                     written data to check (use write_mode=write)",
                _ =>
                    "only the Writes of a mix carry data to check, and ioscope checks \
                     every block a job writes (use write_mode=write)",
            }
        ));
    }
    if modes.names(WriteMode::ZoneAppend) && spec.zones.mode != ZoneMode::Zbd {
        // fio's words (engines/io_uring.c): an append names a zone, which
        // only zonemode=zbd's writes keep to.
        return Err("io_uring_cmd with write_mode=zone_append requires zonemode=zbd".into());
    }
    if !modes.plain() && !spec.rw.kind.writes() && backend == Backend::IoUringCmd {
        // fio's words (engines/io_uring.c fio_ioring_cmd_open_file): a
        // write_mode with no writes to make is a mistake it refuses.
        return Err(format!(
            "write_mode={}: 'readwrite=|rw=' has no write",
            modes.text()
        ));
    }
    if modes.names(WriteMode::ZoneAppend) && modes.only().is_none() {
        return Err(format!(
            "write_mode={}: a mix with zone_append is not supported by ioscope: it sends \
             all of a job's writes as Zone Appends or none (run the appends as a job of \
             their own)",
            modes.text()
        ));
    }
    if spec.verify.experimental && spec.trim_verify.percentage > 0 {
        // The replay cannot know which writes were trimmed instead.
        return Err(
            "experimental_verify with trim_percentage: the replayed writes cannot tell which \
             blocks were trimmed (leave experimental_verify at 0 to trim and verify)"
                .into(),
        );
    }
    if spec.verify.only && spec.time_based && !spec.verify.state_load {
        // The writing run stopped at its runtime; nothing says where.
        return Err(
            "verify_only with time_based needs verify_state_load=1 (the state the \
             interrupted writing run saved says how far it got)"
                .into(),
        );
    }
    if verifies {
        // The verify options themselves (interval, offset, pattern).
        ioscope_workload::Verifier::new(spec, 0)?;
    }
    // A wrapper carries what it wraps only where it can itself (fio's
    // xnvme engine sends reads and writes alone).
    let carries = |op| backend.supports(op) && spec.ioengine.supports(op);
    crate::file_setup::check(spec, &carries)?;
    crate::file_setup::check_unlink_each_loop(spec, backend)?;
    if spec.fsync > 0 && !carries(Op::Fsync) {
        return Err(format!(
            "fsync={} needs an engine that can flush; ioengine={} sends reads and writes only",
            spec.fsync,
            spec.ioengine.name()
        ));
    }
    if spec.trim_verify.percentage > 0 && !carries(Op::Trim) {
        return Err(format!(
            "trim_percentage needs an engine that can trim; ioengine={} cannot",
            spec.ioengine.name()
        ));
    }
    if spec.rw.kind.trims() && !carries(Op::Trim) {
        return Err(format!(
            "rw={} needs an engine that can deallocate (ioengine=io_uring_cmd: NVMe \
             Dataset Management); ioengine={} cannot",
            spec.rw.kind.name(),
            spec.ioengine.name()
        ));
    }
    check_num_range(spec, backend)?;
    let shape = Shape {
        direct: spec.direct,
        hipri: spec.hipri,
    };
    // The engine's refusal names fio's options.
    backend.check(&shape).map_err(|e| e.to_string())?;
    if backend.is_diskless() && spec.iolog.read.is_empty() {
        // No target to size the workload by: the job's own size must do.
        let sizes = ioscope_workload::diskless_files(spec, crate::files::file_paths(spec, 0).len());
        ioscope_workload::plan_files(spec, &sizes, &[], 0).map(drop)?;
    }
    Ok(())
}

/// `num_range` above 1 sends several trims as one command, which only an
/// engine with a range-list command can. A job that does not trim has no
/// trims to group and runs as without it, as in fio (a `[global]`
/// num_range reaches every job). fio refuses it with trimwrite: each trim
/// there is followed by its write, so no two trims would ever go out
/// together.
fn check_num_range(spec: &JobSpec, backend: Backend) -> Result<(), String> {
    let n = spec.num_range;
    if n <= 1 || !spec.rw.kind.trims() {
        return Ok(());
    }
    let ranges = Op::TrimRanges {
        count: n.min(u32::from(MAX_TRIM_RANGES)) as u16,
    };
    let why = if spec.rw.kind.writes() {
        format!(
            "rw={} writes each block right after trimming it, so its trims cannot go \
             out together; use rw=trim or randtrim",
            spec.rw.kind.name()
        )
    } else if !backend.supports(ranges) {
        format!(
            "ioengine={} sends one range per trim; several ranges in one trim need \
             ioengine=io_uring_cmd (NVMe Dataset Management)",
            spec.ioengine.name()
        )
    } else {
        return Ok(());
    };
    Err(format!("num_range={n}: {why}"))
}

/// Whether fio's engine for `backend` at `depth` queues its I/Os (returns
/// FIO_Q_QUEUED; [`ioscope_workload::Workload::engine_queues`] says what
/// that changes): the engines that queue, fio's null above depth 1 (at
/// depth 1 it is synchronous), and ioscope's NOPs on an io_uring.
pub(crate) fn queues(backend: Backend, depth: u32) -> bool {
    match backend.desc().kind {
        EngineKind::Queued => true,
        EngineKind::Diskless => backend == Backend::Nop || (backend == Backend::Null && depth > 1),
        _ => false,
    }
}

/// Whether the job's engine does I/O: not cpuio or exec (fio's
/// FIO_NOIO), which cpuio's `exit_on_io_done` waits for.
pub(crate) fn does_io(spec: &JobSpec) -> bool {
    !backend(spec).moves_no_data()
}

/// The engine crate's backend for the job's ioengine.
pub(crate) fn backend(spec: &JobSpec) -> Backend {
    match spec.ioengine {
        // The faulty engine is another engine's queue with faults injected.
        Backend::Faulty => spec.engine_options.fault_engine.unwrap_or(Backend::Psync),
        // The xnvme engine runs on the backend its interfaces name (the
        // plan refused the settings that name none).
        Backend::Xnvme => xnvme_mapping(spec)
            .ok()
            .flatten()
            .map_or(Backend::Psync, |m| m.backend),
        engine => engine,
    }
}

/// For an xnvme job, the backend that runs it and how that is set; None
/// for every other engine.
pub(crate) fn xnvme_mapping(spec: &JobSpec) -> Result<Option<XnvmeMapping>, String> {
    if spec.ioengine != Backend::Xnvme {
        return Ok(None);
    }
    for name in &spec.filenames {
        xnvme_check_target_name(name).map_err(|e| format!("ioengine=xnvme: {e}"))?;
    }
    let e = &spec.engine_options;
    e.xnvme
        .backend(spec.hipri, e.sqthread_poll)
        .map(Some)
        .map_err(|e| format!("ioengine=xnvme: {e}"))
}

/// How each pass of `spec` on `backend` ends: fio's `should_fsync` asks
/// it of a job that writes (`replay_writes`: whether a replayed log
/// does), and only where `end_fsync`, `fsync_on_close` or `end_syncfs` is
/// set. A verify_only job writes nothing.
fn end_sync(spec: &JobSpec, backend: Backend, replay_writes: Option<bool>) -> Option<EndSync> {
    let fh = &spec.file_handling;
    let writes = replay_writes.unwrap_or(spec.rw.kind.writes()) && !spec.verify.only;
    if !writes || !(spec.end_fsync || fh.fsync_on_close || fh.end_syncfs) {
        return None;
    }
    Some(if fh.end_syncfs {
        EndSync::Syncfs
    } else {
        EndSync::Fsync {
            queued: backend.supports(Op::Fsync),
        }
    })
}

/// Whether the job writes, trims or zeroes its targets. verify_only sends
/// reads alone (unless it trims blocks to check that they read back zeroes).
pub(crate) fn changes_target(spec: &JobSpec) -> bool {
    let trims_to_verify = spec.trim_verify.percentage > 0;
    if spec.verify.only {
        return trims_to_verify;
    }
    spec.rw.kind.writes() || spec.rw.kind.trims() || trims_to_verify
}

/// Why `--readonly` refuses `spec`, named with what it does, as fio words it.
fn readonly_refusal(spec: &JobSpec) -> String {
    let kind = spec.rw.kind;
    let does = match (kind.writes() && !spec.verify.only, kind.trims()) {
        // trim_percentage of a verify job.
        (false, false) => "trims",
        (true, false) => "writes",
        (false, true) => "trims",
        (true, true) => "trims and writes",
    };
    format!(
        "{does} (rw={}), but ioscope runs with --readonly",
        kind.name()
    )
}

/// e4defrag's donor file: `donorname` in the job's directory, preallocated
/// (inplace=0) from the job's offset to the end of its largest file, as
/// fio's start_offset and file_size_high.
fn e4defrag_donor(spec: &JobSpec) -> Donor {
    let misc = &spec.engines_misc;
    let name = misc.donorname.clone().unwrap_or_default();
    let path = match &spec.directory {
        Some(dir) => std::path::Path::new(dir).join(&name),
        None => name.into(),
    };
    let start = match spec.offset {
        ioscope_job::SizeSpec::Bytes(b) => b,
        ioscope_job::SizeSpec::Percent(_) => 0,
    };
    let high = spec.filesize.map_or(0, |(_, high)| high);
    Donor {
        path,
        inplace: misc.inplace,
        prealloc: (start, high.saturating_sub(start)),
    }
}
