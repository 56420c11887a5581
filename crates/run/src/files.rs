//! Targets of one worker: naming its files as fio does, laying them out,
//! opening them, and refusing what would harm data the user did not name.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use ioscope_engine::nvme::{namespace_id, NvmLimits};
use ioscope_engine::Backend;
use ioscope_engine::{
    layout_file_until, preallocate_file, AccessAdvice, Advice, EngineError, Knob, OpenOptions,
    Target, TargetKind,
};

use crate::credentials::Credentials;
use crate::file_setup::{self, Layout};
use ioscope_job::{FadviseHint, FileType, JobSpec, VerifyMethod, VerifyMode, WriteMode};
use ioscope_stats::Notice;
use ioscope_workload::FileExtent;

use crate::error::RunError;
use crate::plan::JobPlan;
use crate::signal;
use crate::trace::Trace;

/// One file or device a worker does I/O to.
pub(crate) struct WorkerFile {
    pub path: PathBuf,
    /// Says "fd close" as the file is closed, under `--debug=file`; before
    /// `target`, so the line comes just before the close, as fio's.
    pub _closing: Option<CloseLine>,
    /// None for the diskless engines (null, nop), which touch no file, and
    /// for the network engines.
    pub target: Option<Target>,
    /// The network engines' connection-to-be (their target).
    pub net: Option<ioscope_engine::NetLink>,
    pub extent: FileExtent,
    /// The file's size once laid out; I/O may run past the extent up to it.
    pub file_size: u64,
}

/// The paths of a worker's files: `filename` (joined to `directory`), or
/// names made by `filename_format` (fio's `jobname.worker.file` by
/// default), one set per clone. A job with `opendir` and no `filename`
/// gets no generated names: its files are the directory's
/// ([`file_setup::dir_files`]).
pub(crate) fn file_paths(spec: &JobSpec, worker: u32) -> Vec<PathBuf> {
    let names: Vec<String> = if spec.filenames.is_empty() {
        if spec.file_handling.opendir.is_some() {
            return Vec::new();
        }
        (0..spec.nrfiles.max(1))
            .map(|i| spec.file_handling.file_name(&spec.name, worker, i))
            .collect()
    } else {
        spec.filenames.clone()
    };
    in_directory(spec, &names)
}

/// `names` joined to the job's `directory` where they are relative (as fio
/// adds files, also those an iolog names); for a job a fio client sent
/// over TCP, with `unique_filename`, after the server's address (fio's
/// `DIR/ADDRESS.NAME`).
fn in_directory(spec: &JobSpec, names: &[String]) -> Vec<PathBuf> {
    let fh = &spec.file_handling;
    let uid = fh.client_uid.as_ref().filter(|_| fh.unique_filename);
    names
        .iter()
        .map(|name| match (&spec.directory, uid) {
            (Some(dir), Some(uid)) if !name.starts_with('/') => {
                Path::new(dir).join(format!("{uid}.{name}"))
            }
            (Some(dir), None) if !name.starts_with('/') => Path::new(dir).join(name),
            _ => PathBuf::from(name),
        })
        .collect()
}

/// An NVMe passthrough job that sends protection information with the
/// data (pi_act=0), whose namespace may then be larger than its data.
fn pi_in_data(spec: &JobSpec) -> bool {
    spec.ioengine == Backend::IoUringCmd && !spec.engine_options.pi.pi_act
}

/// `filetype`: fio takes each file for that type without a stat, so a
/// path of another type goes wrong there (a device taken for a regular
/// file is laid out and sized as one; a missing block device is opened
/// as a file). ioscope looks anyway, and refuses the mismatch instead.
fn check_filetype(spec: &JobSpec, path: &Path) -> Result<(), RunError> {
    let Some(want) = spec.file_handling.filetype else {
        return Ok(());
    };
    let found = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => FileType::File,
        Ok(m) if m.file_type().is_block_device() => FileType::Block,
        Ok(m) if m.file_type().is_char_device() => FileType::Char,
        // Directories and the rest are refused as targets where they
        // are opened, with or without filetype.
        Ok(_) => return Ok(()),
        // A regular file the job will create.
        Err(_) if want == FileType::File => return Ok(()),
        Err(e) => {
            return Err(RunError::job(
                &spec.name,
                format!("{}: filetype={}: {e}", path.display(), want.name()),
            ))
        }
    };
    if found == want {
        return Ok(());
    }
    Err(RunError::job(
        &spec.name,
        format!(
            "{}: filetype={} takes every file of the job for one, but this one is of type \
             {}; fix filetype or leave it unset (fio would use it as the wrong type)",
            path.display(),
            want.name(),
            found.name()
        ),
    ))
}

/// What a job must know about a path before it can plan its I/O there.
fn existing_size(path: &Path, pi_in_data: bool) -> Result<Option<u64>, RunError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Some(meta.len())),
        Ok(_) => {
            // Devices report their size only once opened.
            let t = Target::open(
                path,
                &OpenOptions {
                    read: true,
                    pi_in_data,
                    ..OpenOptions::default()
                },
            )?;
            Ok(Some(t.size()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(RunError::os(path.display().to_string(), &e)),
    }
}

/// Lays out (when needed) and opens the files of worker `worker` of `spec`.
/// `notice` receives fio's "Laying out IO file" line when a file is made;
/// what the user should know about the files goes into `found`.
pub(crate) fn prepare(
    spec: &JobSpec,
    plan: &JobPlan,
    worker: u32,
    notice: &mut dyn FnMut(String),
    found: &mut Vec<Notice>,
    trace: Option<&Trace>,
) -> Result<Vec<WorkerFile>, RunError> {
    let backend = plan.backend;
    // Polled completions as the backend was set (xnvme's libaio reaps
    // from user space instead).
    let polled = plan.queue.hipri;
    let unbounded = file_setup::sized(spec);
    let spec = unbounded.as_ref().unwrap_or(spec);
    let replay = plan.replay(worker).map(|log| (log, log.summary()));
    if backend.is_network() {
        return crate::net::prepare(spec, worker);
    }
    if plan.backend.is_diskless() {
        if let Some((log, _)) = replay {
            // Nothing to size: the log's offsets are taken as they are.
            return Ok(log.files.iter().map(|_| replay_file()).collect());
        }
        // Sized as fio sizes the files it would name.
        let sizes = ioscope_workload::diskless_files(spec, file_paths(spec, worker).len());
        let plans = ioscope_workload::plan_files(spec, &sizes, &[], worker)
            .map_err(|m| RunError::job(&spec.name, m))?;
        return Ok(plans
            .into_iter()
            .map(|p| WorkerFile {
                path: PathBuf::new(),
                _closing: None,
                target: None,
                net: None,
                extent: p.extent,
                file_size: p.file_size,
            })
            .collect());
    }
    let paths = match replay {
        Some((log, _)) => in_directory(spec, &log.files),
        None => {
            let mut paths = file_paths(spec, worker);
            let found = file_setup::dir_files(spec)?;
            if worker == 0 && !found.is_empty() {
                // fio's line, said once per job as it parses opendir.
                notice(format!("fio: opendir added {} files", found.len()));
            }
            paths.extend(found);
            paths
        }
    };
    // fio's file-creating engine and its directory engines touch no disk
    // as fio sets files up (FIO_DISKLESSIO): they make no work directory.
    if backend != Backend::Filecreate && !backend.works_on_directories() {
        file_setup::make_work_dirs(spec, &paths)?;
    }
    if backend.works_on_directories() && backend != Backend::Dircreate {
        file_setup::make_directories(spec, &paths, trace)?;
    }
    let existing = paths
        .iter()
        .map(|p| {
            if let Some(t) = trace {
                t.file_line(format_args!("get file size for {}", p.display()));
            }
            match backend.works_on_directories() {
                // fio takes a directory's size as stat gives it.
                true => Ok(std::fs::metadata(p).ok().map(|m| m.len())),
                false => {
                    check_filetype(spec, p)?;
                    existing_size(p, pi_in_data(spec))
                }
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    // filecreate, dircreate, dirdelete: fio's get_file_size makes each
    // file one smallest block, whatever is on disk.
    let by_block;
    let sizes = match backend.sizes_files_by_block() {
        true => {
            by_block = vec![Some(ioscope_workload::min_bs(spec)); paths.len()];
            &by_block
        }
        false => &existing,
    };
    // file_append: I/O to a regular file starts at its end (devices keep
    // their offset), and the file is extended to its new end as any file
    // too short for the job: written out in full for a job that reads,
    // reserved for one that only writes (file_setup::layout).
    let appending: Vec<bool> = paths
        .iter()
        .map(|p| {
            spec.file_handling.file_append && std::fs::metadata(p).map_or(true, |m| m.is_file())
        })
        .collect();
    let mut plans = match replay {
        // fio lays out nothing for a replay: the files are used as they
        // are, and one that does not exist is created empty.
        Some(_) => existing.iter().map(|&size| replay_plan(size)).collect(),
        None => ioscope_workload::plan_files(spec, sizes, &appending, worker)
            .map_err(|m| RunError::job(&spec.name, m))?,
    };
    for (path, size) in paths.iter().zip(&existing) {
        file_setup::may_create(spec, path, size.is_some())?;
    }
    // A character device (/dev/full, /dev/ngXnY) reports no size and is
    // written as it is: fio lays out nothing there.
    for (plan, path) in plans.iter_mut().zip(&paths) {
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device()) {
            plan.layout_size = None;
        }
    }
    // Trimming changes the target as writing does.
    let (writes, reads) = match replay {
        Some((_, r)) => (r.ios[1] + r.ios[2] > 0, r.ios[0] > 0),
        None => (crate::plan::changes_target(spec), spec.rw.kind.reads()),
    };
    // A shared mapping of a file must be readable even to be written.
    let reads = reads || plan.backend == Backend::Mmap;
    // create_on_open: a write-only job's files are not made beforehand but
    // created by the job's own open, and grow as they are written. A read
    // needs the data there, and a mapping needs the file at its full size.
    // The file engines open nothing: filecreate's files are made by its
    // own timed create (fio's FIO_DISKLESSIO), filestat's and
    // filedelete's are laid out as for any job; the directory engines'
    // are directories, made above or by dircreate itself.
    let on_paths = backend.works_on_paths();
    let create_on_open = replay.is_some()
        || (spec.create_on_open && !reads)
        || backend == Backend::Filecreate
        || backend.works_on_directories();
    let mut laid_out = Vec::new();
    for (path, plan) in paths.iter().zip(&plans).filter(|_| !create_on_open) {
        if let Some(size) = plan.layout_size {
            laid_out.push((path.clone(), size));
        }
    }
    // uid/gid: the job's files are opened with its ids, and laid out with
    // them when the job lays them out itself (create_serialize=0; fio's
    // parent lays them out otherwise, as the user who ran it).
    let credentials = Credentials::of(spec);
    let serial = spec.file_handling.create_serialize;
    let laying_as_job = match serial {
        true => None,
        false => Some(credentials.open_files_as(&spec.name)?),
    };
    if !laid_out.is_empty() {
        let total: u64 = laid_out.iter().map(|f| f.1).sum();
        notice(layout_notice(&spec.name, laid_out.len(), total));
        let block = spec.bs.write.max().max(4096) as usize;
        let how = file_setup::layout(spec, reads);
        for (path, size) in &laid_out {
            if let Some(t) = trace {
                t.file_line(format_args!("lay out {}, size {size}", path.display()));
            }
            match how {
                // Ctrl-C stops a long layout; the run then reports the stop.
                Layout::Write { fsync } => {
                    layout_file_until(path, *size, block, fsync, &signal::interrupted)?
                }
                Layout::Reserve(mode) => {
                    if path.is_file() {
                        file_setup::remove_short(path)?;
                    }
                    preallocate_file(path, *size, mode)?;
                }
                Layout::Extend(mode) => preallocate_file(path, *size, mode)?,
            }
        }
    }

    // Given back to the main thread's own ids when this returns.
    let _as_job = match laying_as_job {
        Some(ids) => ids,
        None => credentials.open_files_as(&spec.name)?,
    };
    let mut files = Vec::with_capacity(paths.len());
    let create_only = spec.file_handling.create_only;
    for (path, mut plan) in paths.into_iter().zip(plans) {
        if on_paths {
            files.push(WorkerFile {
                _closing: None,
                path,
                target: None,
                extent: plan.extent,
                file_size: plan.file_size,
                net: None,
            });
            continue;
        }
        let target = Target::open_with_flags(
            &path,
            &OpenOptions {
                // Verify reads back what the job writes.
                read: reads
                    || spec.verify.method != VerifyMethod::None
                    || backend == Backend::E4defrag,
                // fio's falloc opens every file read-write: a read
                // reserves blocks (fallocate with FALLOC_FL_KEEP_SIZE).
                // So does e4defrag: the kernel moves extents only
                // between files open for reading and writing.
                write: writes || matches!(backend, Backend::Falloc | Backend::E4defrag),
                // file_append writes past the end of a file that may not
                // exist yet.
                create: create_on_open || spec.file_handling.file_append,
                direct: spec.direct,
                pi_in_data: pi_in_data(spec),
            },
            file_setup::open_flags(spec),
        )
        .map_err(|e| credentials.explain(&spec.name, e))?;
        if let Some(t) = trace {
            t.file_line(format_args!("fd open {}", path.display()));
        }
        if writes && target.kind() == TargetKind::BlockDevice && !spec.allow_mounted_write {
            if let Some(use_) = ioscope_engine::mounted_use(&path)? {
                return Err(RunError::job(
                    &spec.name,
                    format!(
                        "refusing to write to {}: {use_}; set allow_mounted_write=1 to write anyway",
                        path.display()
                    ),
                ));
            }
        }
        if backend == Backend::IoUringCmd {
            check_nvme(spec, &path, &target, plan.extent.offset)?;
        }
        if spec.ioengine == Backend::Xnvme {
            check_xnvme_nsid(spec, &path, &target)?;
        }
        if polled {
            crate::doctor::check_polling(spec, backend, &path, found)?;
        }
        crate::doctor::latency_job(spec, &path, target.kind(), found);
        let access = match spec.fadvise_hint {
            FadviseHint::None => None,
            FadviseHint::Workload if spec.rw.kind.is_random() => Some(AccessAdvice::Random),
            FadviseHint::Workload => Some(AccessAdvice::Sequential),
            FadviseHint::Random => Some(AccessAdvice::Random),
            FadviseHint::Sequential => Some(AccessAdvice::Sequential),
            FadviseHint::NoReuse => Some(AccessAdvice::NoReuse),
        };
        if let Some(access) = access {
            target.advise(access, plan.extent.offset, plan.extent.len)?;
        }
        crate::file_tuning::write_hint(spec, &target)?;
        crate::file_tuning::switch_ioscheduler(spec, &target, found)?;
        if spec.file_handling.pre_read {
            // fio turns invalidate off for pre_read: the cache is what it fills.
            file_setup::pre_read(spec, &target, plan.extent.offset, plan.extent.len)?;
        } else if spec.invalidate {
            let (offset, len) = (plan.extent.offset, plan.extent.len);
            if let Some(t) = trace {
                if let Some(line) = crate::trace::cache_drop_line(target.kind(), &path, offset, len)
                {
                    t.io_line(format_args!("{line}"));
                }
            }
            target.invalidate_cache(offset, len)?;
        }
        if spec.direct {
            let sizes = [
                spec.bs.read.min(),
                spec.bs.read.max(),
                spec.bs.write.min(),
                spec.bs.write.max(),
            ];
            target.check_direct_io(&sizes, plan.extent.offset)?;
        }
        // Last, because it reads the device: a job refused by a check above
        // leaves the device untouched, not even read.
        if writes && target.kind() == TargetKind::BlockDevice && !spec.allow_signature_write {
            refuse_signature(spec, &path, target.size())?;
        }
        if create_only {
            // create_only: the files are made; no I/O is done to them.
            plan.extent.len = 0;
        }
        files.push(WorkerFile {
            _closing: trace.filter(|t| t.file).map(|t| CloseLine {
                trace: t.clone(),
                path: path.clone(),
            }),
            path,
            target: Some(target),
            net: None,
            extent: plan.extent,
            file_size: plan.file_size,
        });
    }
    Ok(files)
}

/// fio's "fd close PATH" line, said when the file it belongs to closes.
pub(crate) struct CloseLine {
    trace: Trace,
    path: PathBuf,
}

impl Drop for CloseLine {
    fn drop(&mut self) {
        self.trace
            .file_line(format_args!("fd close {}", self.path.display()));
    }
}

/// A replayed file: all of it, whatever its size, as the log's offsets
/// are absolute.
fn replay_plan(size: Option<u64>) -> ioscope_workload::FilePlan {
    let size = size.unwrap_or(0);
    ioscope_workload::FilePlan {
        layout_size: None,
        file_size: size,
        extent: FileExtent {
            offset: 0,
            len: size,
            appends: false,
        },
    }
}

fn replay_file() -> WorkerFile {
    let plan = replay_plan(None);
    WorkerFile {
        path: PathBuf::new(),
        _closing: None,
        target: None,
        net: None,
        extent: plan.extent,
        file_size: plan.file_size,
    }
}

/// A block device that holds a filesystem, a partition table or a volume
/// signature is not written (nor trimmed) unless the job sets
/// `allow_signature_write=1`, mounted or not: what it holds is not what the
/// user named. A regular file is written as named and never comes here.
fn refuse_signature(spec: &JobSpec, path: &Path, size: u64) -> Result<(), RunError> {
    use std::os::fd::AsRawFd;
    // A descriptor of its own: the job's may be write-only or O_DIRECT.
    let found = std::fs::File::open(path)
        .and_then(|device| {
            let found = ioscope_engine::find_signature(device.as_raw_fd(), size);
            // The blocks just read leave the page cache, which invalidate=1
            // emptied so that the job measures the device. Advice only: a
            // failure changes nothing the job needs.
            // SAFETY: fadvise only reads its arguments.
            unsafe { libc::posix_fadvise(device.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            found
        })
        .map_err(|e| {
            RunError::job(
                &spec.name,
                format!(
                    "cannot read {} to look for a filesystem or partition table on it ({e}); \
                     set allow_signature_write=1 to write without looking",
                    path.display()
                ),
            )
        })?;
    match found {
        Some(signature) => Err(RunError::job(
            &spec.name,
            format!(
                "refusing to write to {}: it holds {signature}; set allow_signature_write=1 \
                 to overwrite it",
                path.display()
            ),
        )),
        None => Ok(()),
    }
}

/// xnvme's `xnvme_dev_nsid` names the namespace the job means; a kernel
/// device is one namespace already, so a different id is refused. A
/// regular file has none to compare (xNVMe calls it namespace 1).
fn check_xnvme_nsid(spec: &JobSpec, path: &Path, target: &Target) -> Result<(), RunError> {
    let Some(want) = spec.engine_options.xnvme.dev_nsid else {
        return Ok(());
    };
    if target.kind() == TargetKind::RegularFile {
        return Ok(());
    }
    let refuse = |why: String| {
        Err(RunError::job(
            &spec.name,
            format!("{}: xnvme_dev_nsid={want}: {why}", path.display()),
        ))
    };
    match namespace_id(target.fd()) {
        Ok(nsid) if nsid == want => Ok(()),
        Ok(nsid) => refuse(format!(
            "the device is namespace {nsid} (give its own id, or leave xnvme_dev_nsid out)"
        )),
        Err(e) => refuse(format!(
            "cannot read the device's namespace id ({e}); it is not an NVMe namespace"
        )),
    }
}

/// io_uring_cmd sends NVMe commands by LBA to a namespace's char device:
/// every block size and the start offset must be whole blocks, a data
/// transfer must fit the controller's MDTS, and the device must have the
/// optional commands the job asks for (ONCS). Refused here, before the run.
fn check_nvme(spec: &JobSpec, path: &Path, target: &Target, offset: u64) -> Result<(), RunError> {
    let refuse = |why: String| {
        Err(RunError::job(
            &spec.name,
            format!("{}: {why}", path.display()),
        ))
    };
    let Some(id) = target.nvme() else {
        let mut why = "is not an NVMe namespace's generic char device (or Identify failed); \
             ioengine=io_uring_cmd needs /dev/ngXnY and the right to send admin commands"
            .to_string();
        if spec.ioengine == Backend::Xnvme {
            why.push_str(
                " (ioengine=xnvme sends NVMe passthrough through io_uring_cmd for \
                 xnvme_async=io_uring_cmd and for xnvme_sync=nvme, the default of emu and \
                 thrpool; on a file or block device give xnvme_sync=psync or \
                 xnvme_async=io_uring)",
            );
        }
        return refuse(why);
    };
    let pi = &spec.engine_options.pi;
    let geometry = match id.geometry(pi.pi_act) {
        Ok(g) => g,
        Err(why) => return refuse(why),
    };
    let lba = u64::from(geometry.block());
    if geometry.extended {
        // fio's words for a block size that is not whole extended LBAs,
        // with its suggestion where the size counts whole data blocks.
        let data = u64::from(geometry.lba);
        let bs = [&spec.bs.read, &spec.bs.write, &spec.bs.trim];
        if let Some(b) = bs.iter().find(|b| b.min() % lba != 0 || b.max() % lba != 0) {
            let mut why =
                format!("block size must be a multiple of {lba} (LBA data size + Metadata size)");
            if b.min() == b.max() && b.min() % data == 0 {
                why.push_str(&format!(
                    "; did you mean to use a block size of {}?",
                    lba * (b.min() / data)
                ));
            }
            return refuse(why);
        }
        if geometry.pi.is_some() && spec.verify.method != VerifyMethod::None {
            return refuse(
                "for extended LBA, verify cannot be used when E2E data protection is enabled"
                    .into(),
            );
        }
    }
    let ms = u64::from(geometry.separate_ms());
    if ms != 0 {
        let largest = spec.bs.read.max().max(spec.bs.write.max());
        let need = largest / u64::from(geometry.lba) * ms;
        if u64::from(pi.md_per_io_size) < need {
            return refuse(format!("md_per_io_size should be at least {need} bytes"));
        }
    }
    let sizes = [
        ("bs (read)", spec.bs.read.min()),
        ("bs (read)", spec.bs.read.max()),
        ("bs (write)", spec.bs.write.min()),
        ("bs (write)", spec.bs.write.max()),
        ("bs (trim)", spec.bs.trim.min()),
        ("bs (trim)", spec.bs.trim.max()),
        ("offset", offset),
    ];
    if let Some((what, v)) = sizes.iter().find(|(_, v)| v % lba != 0) {
        return refuse(format!(
            "{what} {v} is not a multiple of the namespace's {lba}-byte LBA size; \
             io_uring_cmd addresses whole logical blocks"
        ));
    }
    let modes = &spec.engine_options.write_mode;
    let writes = spec.rw.kind.writes();
    let mut data = 0;
    if spec.rw.kind.reads() {
        data = spec.bs.read.max();
    }
    if writes && modes.some_carry_data() {
        data = data.max(spec.bs.write.max());
    }
    if let Some(mdts) = id.controller.max_transfer_bytes(4096) {
        if data > mdts {
            return refuse(format!(
                "bs {data} is more than the {mdts} bytes one command may carry \
                 (the controller's MDTS); lower bs"
            ));
        }
    }
    let unsupported = |command, fix| {
        Err(RunError::job(
            &spec.name,
            EngineError::CommandUnsupported {
                path: path.display().to_string(),
                command,
                oncs: id.controller.oncs,
                fix,
            }
            .to_string(),
        ))
    };
    if spec.rw.kind.trims() && !id.controller.has_dataset_management() {
        return unsupported(
            "Dataset Management",
            Advice::Other("it cannot trim: use an rw that does not trim".into()),
        );
    }
    if spec.rw.kind.trims() {
        check_dsm_limits(spec, &id.limits, lba).or_else(refuse)?;
    }
    // The checks of written blocks are Compares (a read workload's reads
    // stay reads the host checks).
    let v = &spec.verify;
    let compares =
        spec.engine_options.verify_mode == VerifyMode::Compare && writes && (v.do_verify || v.only);
    if compares && !id.controller.has_compare() {
        return unsupported("Compare", Advice::Other("use verify_mode=read".into()));
    }
    if compares && geometry.ms != 0 {
        return refuse(format!(
            "verify_mode=compare compares data alone, and the namespace's format has {} \
             bytes of metadata per block that the host moves, which a Compare would \
             compare too; use verify_mode=read{}",
            geometry.ms,
            if geometry.pi.is_some() {
                ", or pi_act=1 where the metadata is only protection information"
            } else {
                ""
            }
        ));
    }
    // The commands without data that write_mode makes of writes have
    // limits of their own. Write Zeroes must be in ONCS; Write
    // Uncorrectable and Verify are sent as fio sends them and the device
    // answers (QEMU's controller runs Verify without listing it in ONCS).
    let dataless = modes.shares().iter().map(|s| s.mode).filter(|_| writes);
    for mode in dataless {
        let (command, field, limit) = match mode {
            WriteMode::Zeroes => ("Write Zeroes", "WZSL", id.limits.wzsl),
            WriteMode::Uncorrectable => ("Write Uncorrectable", "WUSL", id.limits.wusl),
            WriteMode::Verify => ("Verify", "VSL", id.limits.vsl),
            WriteMode::Write | WriteMode::ZoneAppend => continue,
        };
        if mode == WriteMode::Zeroes && !id.controller.has_write_zeroes() {
            return unsupported("Write Zeroes", Advice::Drop(Knob::WriteZeroes));
        }
        let bs = spec.bs.write.max();
        if bs / lba > 65536 {
            return refuse(format!(
                "bs {bs} is more than the 65536 blocks one {command} can cover; lower bs"
            ));
        }
        if let Some(max) = NvmLimits::max_bytes(limit, 4096).filter(|&max| bs > max) {
            return refuse(format!(
                "bs {bs} is more than the {max} bytes one {command} may cover on this \
                 device ({field} {limit}); lower bs"
            ));
        }
    }
    Ok(())
}

/// The device's Dataset Management limits against the job's trims: the
/// ranges one command carries (`num_range`), the blocks in one range (the
/// trim block size) and in one command. A device sent more would fail the
/// first trim; the job is refused before it starts.
fn check_dsm_limits(spec: &JobSpec, limits: &NvmLimits, lba: u64) -> Result<(), String> {
    let ranges = u64::from(spec.num_range.max(1));
    let per_range = spec.bs.trim.max() / lba;
    if limits.dmrl != 0 && ranges > u64::from(limits.dmrl) {
        return Err(format!(
            "num_range={ranges} is more than the {} ranges the device takes in one \
             Dataset Management (DMRL); lower num_range",
            limits.dmrl
        ));
    }
    if limits.dmrsl != 0 && per_range > u64::from(limits.dmrsl) {
        return Err(format!(
            "bs (trim) {} is {per_range} blocks, more than the {} blocks the device \
             takes in one range (DMRSL); lower bs",
            spec.bs.trim.max(),
            limits.dmrsl
        ));
    }
    if limits.dmsl != 0 && ranges * per_range > limits.dmsl {
        return Err(format!(
            "num_range={ranges} ranges of up to {per_range} blocks are more than the {} \
             blocks the device takes in one Dataset Management (DMSL); lower num_range or bs",
            limits.dmsl
        ));
    }
    Ok(())
}

/// fio's notice: `t: Laying out IO file (1 file / 16MiB)`.
fn layout_notice(job: &str, files: usize, total: u64) -> String {
    let size = if total.is_multiple_of(1 << 20) {
        format!("{}MiB", total >> 20)
    } else {
        format!("{}KiB", total.div_ceil(1024))
    };
    if files == 1 {
        format!("{job}: Laying out IO file ({files} file / {size})")
    } else {
        format!("{job}: Laying out IO files ({files} files / total {size})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsm_limits_refuse_what_the_device_would_fail() {
        let mut spec = JobSpec::fio_defaults("t");
        spec.bs.trim = ioscope_job::BlockSize::Fixed(64 << 10);
        spec.num_range = 16;
        // 512-byte blocks: 128 per range, 2048 per command.
        let lba = 512;
        let none = NvmLimits::default();
        assert_eq!(check_dsm_limits(&spec, &none, lba), Ok(()));
        let fits = NvmLimits {
            dmrl: 16,
            dmrsl: 128,
            dmsl: 2048,
            ..none
        };
        assert_eq!(check_dsm_limits(&spec, &fits, lba), Ok(()));
        let e = check_dsm_limits(&spec, &NvmLimits { dmrl: 8, ..fits }, lba).unwrap_err();
        assert!(
            e.contains("num_range=16 is more than the 8 ranges") && e.contains("DMRL"),
            "{e}"
        );
        let e = check_dsm_limits(&spec, &NvmLimits { dmrsl: 64, ..fits }, lba).unwrap_err();
        assert!(
            e.contains("bs (trim) 65536 is 128 blocks, more than the 64") && e.contains("DMRSL"),
            "{e}"
        );
        let e = check_dsm_limits(&spec, &NvmLimits { dmsl: 2047, ..fits }, lba).unwrap_err();
        assert!(
            e.contains("more than the 2047 blocks") && e.contains("DMSL"),
            "{e}"
        );
        // One range per command when num_range is 1: only DMRSL and DMSL apply.
        spec.num_range = 1;
        let tight = NvmLimits {
            dmrl: 1,
            dmrsl: 128,
            dmsl: 128,
            ..none
        };
        assert_eq!(check_dsm_limits(&spec, &tight, lba), Ok(()));
    }

    #[test]
    fn notices_read_like_fio() {
        assert_eq!(
            layout_notice("t", 1, 16 << 20),
            "t: Laying out IO file (1 file / 16MiB)"
        );
        assert_eq!(
            layout_notice("t", 3, 30 << 20),
            "t: Laying out IO files (3 files / total 30MiB)"
        );
    }
}
