//! fio's file handling around the I/O: which files a job names (generated
//! names, `opendir`), how a file missing or too short is made (fio's
//! `extend_file`: `overwrite`, `fallocate`, `create_fsync`,
//! `allow_file_create`) and `pre_read` (the syncs as each pass ends are
//! the loop's: io_loop/pass_end.rs). The target-free checks are in
//! [`check`], which the plan step runs.

use std::io::Read;
use std::path::{Path, PathBuf};

use ioscope_engine::{Backend, Op, Preallocate, Target, TargetKind};
use ioscope_job::{Fallocate, JobSpec, SizeSpec, SyncMode, VerifyMethod};

use crate::error::RunError;
use crate::io_loop::LoopStats;

/// The refusals that need no target: what ioscope does not do of fio's
/// file handling yet.
/// `unlink_each_loop` needs what ioscope can renew under the queue: a
/// descriptor (not a mapping, not a file registered with the ring) of a
/// file the engine does I/O to, and no verify after the loops, since fio
/// verifies each loop's writes before it unlinks them.
pub(crate) fn check_unlink_each_loop(spec: &JobSpec, backend: Backend) -> Result<(), String> {
    if !spec.file_handling.unlink_each_loop {
        return Ok(());
    }
    let e = &spec.engine_options;
    let why = if backend == Backend::Mmap {
        "the job's mapping would keep the unlinked file"
    } else if backend.uses_io_uring() && (e.registerfiles || e.sqthread_poll) {
        "a file registered with the ring (registerfiles, sqthread_poll) would stay the unlinked one"
    } else if backend.works_on_paths() {
        "the engine works on paths, not on open files"
    } else if spec.verify.method != VerifyMethod::None {
        "fio verifies each loop's writes before it unlinks them; ioscope verifies once, after every loop"
    } else {
        return Ok(());
    };
    Err(format!(
        "unlink_each_loop with ioengine={}: {why}",
        spec.ioengine.name()
    ))
}

pub(crate) fn check(spec: &JobSpec, carries: &dyn Fn(Op) -> bool) -> Result<(), String> {
    let fh = &spec.file_handling;
    if fh.fdatasync > 0 && !carries(Op::Fdatasync) {
        return Err(format!(
            "fdatasync={} needs an engine that can flush; ioengine={} cannot send fdatasync",
            fh.fdatasync,
            spec.ioengine.name()
        ));
    }
    if let Some(r) = fh.sync_file_range.filter(|r| r.every > 0) {
        if !carries(Op::SyncFileRange { flags: r.flags }) {
            return Err(format!(
                "sync_file_range needs an engine that can send it (the sync engines, libaio, \
                 io_uring, posixaio, mmap); ioengine={} cannot",
                spec.ioengine.name()
            ));
        }
    }
    if fh.fill_device
        && (spec.rw.kind.is_random() || spec.rw.kind.reads() || !spec.rw.kind.writes())
    {
        // fio's HOWTO: "only makes sense with sequential write"; its read
        // and random cases (laying a file out until ENOSPC, a random map
        // over an unbounded size) are not supported.
        return Err(format!(
            "fill_device=1 needs rw=write (sequential writes until the filesystem is full); \
             rw={} is not supported with it",
            spec.rw.kind.name()
        ));
    }
    Ok(())
}

/// The job as the layout and the workload should see it: `fill_device`
/// without a size writes without bound until ENOSPC (fio's size of -1).
pub(crate) fn sized(spec: &JobSpec) -> Option<JobSpec> {
    (spec.file_handling.fill_device && spec.size.is_none()).then(|| {
        let mut s = spec.clone();
        // Far more than any filesystem holds, and room for offsets.
        s.size = Some(SizeSpec::Bytes(1 << 62));
        s
    })
}

/// The files `opendir` adds: every regular file under the directory and
/// its subdirectories, in the order the directory lists them (fio's
/// `recurse_dir`).
pub(crate) fn dir_files(spec: &JobSpec) -> Result<Vec<PathBuf>, RunError> {
    let Some(dir) = &spec.file_handling.opendir else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    walk(Path::new(dir), &mut found)
        .map_err(|e| RunError::job(&spec.name, format!("opendir={dir}: {e}")))?;
    if found.is_empty() {
        return Err(RunError::job(
            &spec.name,
            format!("opendir={dir}: no regular files under it"),
        ));
    }
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        // lstat, as fio: a symbolic link is neither followed nor added.
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if kind.is_file() {
            found.push(path);
        } else if kind.is_dir() {
            walk(&path, found)?;
        }
    }
    Ok(())
}

/// How a layout makes a file: written out in full, or only reserved.
pub(crate) enum Layout {
    /// Written (fio's new layout: the job reads, or `overwrite=1`).
    Write { fsync: bool },
    /// Created and reserved as `fallocate` says; a file that was too short
    /// is removed first, as fio unlinks it.
    Reserve(Preallocate),
    /// `file_append` in a job that only writes: the file is kept and
    /// reserved up to its new end as `fallocate` says (fio neither unlinks
    /// it nor writes it out).
    Extend(Preallocate),
}

/// fio's `extend_file` choice for a job that reads (`reads`) or only writes.
pub(crate) fn layout(spec: &JobSpec, reads: bool) -> Layout {
    let fh = &spec.file_handling;
    if reads || (fh.overwrite && !fh.file_append) {
        return Layout::Write {
            fsync: fh.create_fsync,
        };
    }
    // fill_device: fio reserves nothing, the job writes until ENOSPC.
    let mode = match fh.fallocate {
        _ if fh.fill_device => Preallocate::None,
        Fallocate::None => Preallocate::None,
        Fallocate::Native => Preallocate::Native,
        Fallocate::Posix => Preallocate::Posix,
        Fallocate::Keep => Preallocate::KeepSize,
        Fallocate::Truncate => Preallocate::Truncate,
    };
    match fh.file_append {
        true => Layout::Extend(mode),
        false => Layout::Reserve(mode),
    }
}

/// The missing directories on the way to each file whose name has a
/// `/` (fio's create_work_dirs: mkdir, mode 0700, as the files are set
/// up), so that `filename=logs/run1/data` runs where its directory is not
/// there yet.
pub(crate) fn make_work_dirs(spec: &JobSpec, paths: &[PathBuf]) -> Result<(), RunError> {
    use std::os::unix::fs::DirBuilderExt;
    for path in paths {
        let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
            continue;
        };
        if dir.is_dir() {
            continue;
        }
        match std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
        {
            Ok(()) => {}
            // Something not a directory is there (fio ignores EEXIST):
            // the file's open then fails with its own errno (ENOTDIR).
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(RunError::job(
                    &spec.name,
                    format!("failed to create dir ({}): {e}", dir.display()),
                ))
            }
        }
    }
    Ok(())
}

/// dirstat and dirdelete: the directories they work on are made first
/// (fio's `setup_dirs`: mkdir, mode 0700, one that exists is kept).
pub(crate) fn make_directories(
    spec: &JobSpec,
    paths: &[PathBuf],
    trace: Option<&crate::Trace>,
) -> Result<(), RunError> {
    use std::os::unix::fs::DirBuilderExt;
    for path in paths {
        if let Some(t) = trace {
            t.file_line(format_args!("setup directory {}", path.display()));
        }
        match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(RunError::job(
                    &spec.name,
                    format!("{}: cannot create the directory: {e}", path.display()),
                ))
            }
        }
    }
    Ok(())
}

/// `unlink`: removes one of a job's files after its run, as fio's
/// close_and_free_files does for its regular files: those it opened, those
/// the file engines worked on (filecreate's included), and with rmdir the
/// directory engines' directories. None where there is nothing to remove.
pub(crate) fn unlink(backend: Backend, opened: bool, path: &Path) -> Option<std::io::Result<()>> {
    let meta = std::fs::metadata(path).ok()?;
    if backend.works_on_directories() {
        return meta.is_dir().then(|| std::fs::remove_dir(path));
    }
    (meta.is_file() && (opened || backend.works_on_paths())).then(|| std::fs::remove_file(path))
}

/// Refuses to make a missing file under `allow_file_create=0`, with fio's
/// words.
pub(crate) fn may_create(spec: &JobSpec, path: &Path, exists: bool) -> Result<(), RunError> {
    if exists || spec.file_handling.allow_file_create {
        return Ok(());
    }
    Err(RunError::job(
        &spec.name,
        format!(
            "{}: does not exist, and file creation is disallowed by allow_file_create=0",
            path.display()
        ),
    ))
}

/// Removes a regular file too short for the job before it is reserved
/// again, as fio's `extend_file` unlinks it for a job that only writes.
pub(crate) fn remove_short(path: &Path) -> Result<(), RunError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(RunError::os(
            format!("{}: cannot remove it to lay it out again", path.display()),
            &e,
        )),
    }
}

/// The extra open(2) flags `sync=` asks for.
pub(crate) fn open_flags(spec: &JobSpec) -> libc::c_int {
    match spec.file_handling.sync {
        SyncMode::None => 0,
        SyncMode::Sync => libc::O_SYNC,
        SyncMode::Dsync => libc::O_DSYNC,
    }
}

/// `pre_read`: the job's extent of a regular file or block device read
/// once into the page cache, in blocks of the largest read size, as fio's
/// `pre_read_file`. Through a descriptor of its own without O_DIRECT, so
/// the cache really holds the data.
pub(crate) fn pre_read(
    spec: &JobSpec,
    target: &Target,
    offset: u64,
    len: u64,
) -> Result<(), RunError> {
    if target.kind() == TargetKind::CharDevice {
        // fio skips character devices.
        return Ok(());
    }
    let path = target.path();
    let fail = |e: std::io::Error| {
        RunError::job(&spec.name, format!("pre_read of {}: {e}", path.display()))
    };
    let mut file = std::fs::File::open(path).map_err(fail)?;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset)).map_err(fail)?;
    let bs = spec.bs.read.max().clamp(1, len.max(1)) as usize;
    let mut buf = vec![0u8; bs];
    let mut left = len;
    while left > 0 {
        let piece = left.min(bs as u64) as usize;
        file.read_exact(&mut buf[..piece]).map_err(fail)?;
        left -= piece as u64;
    }
    Ok(())
}

/// `fill_device`: a write that found the filesystem full (ENOSPC or
/// EDQUOT, or a short write, which is how a write ends at the last free
/// block) ends the job without an error, as fio clears the error.
pub(crate) fn forgive_full(spec: &JobSpec, stats: &mut LoopStats) {
    if !spec.file_handling.fill_device {
        return;
    }
    let full = stats.failure.as_ref().is_some_and(|f| {
        f.op == Op::Write
            && (matches!(f.errno, libc::ENOSPC | libc::EDQUOT)
                || (f.errno == libc::EIO && f.detail.is_some()))
    });
    if full {
        stats.failure = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_fio_extend_file() {
        let mut spec = JobSpec::fio_defaults("t");
        assert!(matches!(layout(&spec, true), Layout::Write { fsync: true }));
        assert!(matches!(
            layout(&spec, false),
            Layout::Reserve(Preallocate::Native)
        ));
        spec.file_handling.overwrite = true;
        spec.file_handling.create_fsync = false;
        assert!(matches!(
            layout(&spec, false),
            Layout::Write { fsync: false }
        ));
        spec.file_handling.file_append = true;
        assert!(matches!(
            layout(&spec, false),
            Layout::Extend(Preallocate::Native)
        ));
        assert!(matches!(layout(&spec, true), Layout::Write { .. }));
        spec.file_handling.file_append = false;
        spec.file_handling.overwrite = false;
        spec.file_handling.fallocate = Fallocate::Keep;
        assert!(matches!(
            layout(&spec, false),
            Layout::Reserve(Preallocate::KeepSize)
        ));
    }

    #[test]
    fn opendir_finds_regular_files_below() {
        let root = std::env::temp_dir().join(format!("ioscope-opendir-{}", std::process::id()));
        let dir = Dir(root.clone());
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a"), b"x").unwrap();
        std::fs::write(dir.path().join("sub/b"), b"y").unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).unwrap();
        let mut spec = JobSpec::fio_defaults("t");
        spec.file_handling.opendir = Some(dir.path().display().to_string());
        let mut found = dir_files(&spec).unwrap();
        found.sort();
        assert_eq!(found, [dir.path().join("a"), dir.path().join("sub/b")]);
        spec.file_handling.opendir = Some(dir.path().join("sub/b/none").display().to_string());
        assert!(dir_files(&spec).is_err());
    }

    /// A directory removed with what it holds when the test ends.
    struct Dir(PathBuf);

    impl Dir {
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
