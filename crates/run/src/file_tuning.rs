//! What fio tells the kernel about a job's files as it opens them:
//! `write_hint` (the data's expected lifetime, by fcntl) and
//! `ioscheduler` (the backing device's I/O scheduler, switched in sysfs).

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use ioscope_engine::{Target, TargetKind};
use ioscope_job::JobSpec;
use ioscope_stats::Notice;

use crate::error::RunError;

/// Linux's F_SET_RW_HINT and F_SET_FILE_RW_HINT (F_LINUX_SPECIFIC_BASE
/// 1024 + 12 and + 14), which not every libc names.
const F_SET_RW_HINT: libc::c_int = 1036;
const F_SET_FILE_RW_HINT: libc::c_int = 1038;

/// fio's `td_io_open_file` with `write_hint` set: the hint goes on the
/// open file with O_DIRECT (F_SET_FILE_RW_HINT), on the inode otherwise
/// (F_SET_RW_HINT); a refusal fails the job, as in fio. Kernels since
/// 5.17 refuse F_SET_FILE_RW_HINT, so direct=1 with a hint fails there in
/// both fio and ioscope.
pub(crate) fn write_hint(spec: &JobSpec, target: &Target) -> Result<(), RunError> {
    let Some(hint) = spec.file_handling.write_hint else {
        return Ok(());
    };
    if target.kind() == TargetKind::CharDevice {
        // fio sets hints on regular files and block devices only.
        return Ok(());
    }
    let (cmd, name) = match spec.direct {
        true => (F_SET_FILE_RW_HINT, "F_SET_FILE_RW_HINT"),
        false => (F_SET_RW_HINT, "F_SET_RW_HINT"),
    };
    let value = hint.value();
    // SAFETY: the command reads one u64 through the pointer, which lives
    // for the call; the fd is the target's, open.
    if unsafe { libc::fcntl(target.fd(), cmd, &value as *const u64) } < 0 {
        let e = std::io::Error::last_os_error();
        return Err(RunError::job(
            &spec.name,
            format!(
                "write_hint: fcntl({name}) on {}: {e}",
                target.path().display()
            ),
        ));
    }
    Ok(())
}

/// fio's `switch_ioscheduler` for one file: write the scheduler's name to
/// the backing device's queue/scheduler and read it back. A file whose
/// device has no sysfs entry is skipped (fio finds no disk for it); a
/// device without a scheduler file or with none to choose from is left
/// as it is, with a notice where fio prints an error and goes on.
pub(crate) fn switch_ioscheduler(
    spec: &JobSpec,
    target: &Target,
    found: &mut Vec<Notice>,
) -> Result<(), RunError> {
    let Some(name) = &spec.file_handling.ioscheduler else {
        return Ok(());
    };
    if target.kind() == TargetKind::CharDevice {
        return Ok(());
    }
    let Some(disk) = backing_disk(target) else {
        return Ok(());
    };
    let path = disk.join("queue/scheduler");
    let fail = |m: String| RunError::job(&spec.name, format!("ioscheduler={name}: {m}"));
    // Each clone opens the file again: one notice says it for all.
    let mut notice = |why: String| {
        let n = Notice::IoschedulerNotSwitched {
            job: spec.name.clone(),
            path: target.path().display().to_string(),
            why,
        };
        if !found.contains(&n) {
            found.push(n);
        }
    };
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            notice(format!(
                "{} does not exist: the device has no I/O scheduler to switch",
                path.display()
            ));
            return Ok(());
        }
        Err(e) => return Err(fail(format!("cannot open {}: {e}", path.display()))),
    };
    // The kernel refuses an unknown name on the write; as fio, the read
    // back is what decides.
    let written = file.write_all(name.as_bytes());
    let mut now = String::new();
    file.rewind()
        .and_then(|()| file.read_to_string(&mut now))
        .map_err(|e| fail(format!("cannot read back {}: {e}", path.display())))?;
    let now = now.lines().next().unwrap_or("");
    if now == "none" {
        notice(format!(
            "{} offers no scheduler but none: it is not tunable",
            path.display()
        ));
        return Ok(());
    }
    if !now.split_whitespace().any(|s| s == format!("[{name}]")) {
        let why = match written {
            Err(e) => format!(" (the write was refused: {e})"),
            Ok(()) => String::new(),
        };
        return Err(fail(format!(
            "unable to set io scheduler to {name}{why}; {} reads \"{now}\"",
            path.display()
        )));
    }
    Ok(())
}

/// The sysfs directory of the whole disk holding the target: the block
/// device itself, or the device of a regular file's filesystem; a
/// partition's disk is its parent directory.
fn backing_disk(target: &Target) -> Option<PathBuf> {
    // SAFETY: fstat fills the zeroed struct; the fd is the target's, open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(target.fd(), &mut st) } != 0 {
        return None;
    }
    let dev = match target.kind() {
        TargetKind::BlockDevice => st.st_rdev,
        _ => st.st_dev,
    };
    let link = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    let dir = Path::new(&link).canonicalize().ok()?;
    match dir.join("partition").exists() {
        true => dir.parent().map(Path::to_path_buf),
        false => Some(dir),
    }
}
