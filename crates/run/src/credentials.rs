//! `uid` and `gid`: who a job runs as.
//!
//! fio's job process calls setgid, then setuid, before it opens its files,
//! so its I/O, its exec_prerun/exec_postrun commands and the files it makes
//! (a layout with create_serialize=0, its logs, its iolog) are the job
//! user's; with create_serialize=1, the default, fio's parent lays the
//! files out beforehand, as the user who ran fio. ioscope's job is a
//! thread: the raw setresgid/setresuid system calls change the calling
//! thread's credentials only (glibc's wrappers change every thread's, which
//! would switch the other jobs too), and the job's files, which the main
//! thread opens before the workers start, are opened with that thread's
//! filesystem ids switched to the job's (setfsuid/setfsgid, also per
//! thread) for the time of the job's opens, so the permission checks are
//! the job user's. Supplementary groups are left as they are, as fio
//! leaves them.

use ioscope_job::JobSpec;

use crate::RunError;

/// fio's -1: leave the id as it is.
const KEEP: libc::c_long = -1;

/// The job's `uid` and `gid`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Credentials {
    uid: Option<u32>,
    gid: Option<u32>,
}

impl Credentials {
    pub(crate) fn of(spec: &JobSpec) -> Credentials {
        Credentials {
            uid: spec.process.uid,
            gid: spec.process.gid,
        }
    }

    /// The user and group the job's own files belong to (None: the
    /// creator's), as `fchown` takes them.
    pub(crate) fn ids(&self) -> (Option<u32>, Option<u32>) {
        (self.uid, self.gid)
    }

    /// An error opening the job's files, which says whose ids it was
    /// opened with when they were the job's.
    pub(crate) fn explain(&self, job: &str, e: ioscope_engine::EngineError) -> RunError {
        let mut ids = Vec::new();
        if let Some(uid) = self.uid {
            ids.push(format!("uid={uid}"));
        }
        if let Some(gid) = self.gid {
            ids.push(format!("gid={gid}"));
        }
        if ids.is_empty() {
            return RunError::Engine(e);
        }
        let message = format!("job '{job}': {e} (opened as the job's {})", ids.join(" "));
        RunError::Os {
            message,
            errno: RunError::Engine(e).errno(),
        }
    }

    /// Switches the calling thread to the job's group, then user (a new
    /// group needs the privilege the new user may lack), as fio's setgid
    /// and setuid. The error is fio's: the call's name and its errno.
    pub(crate) fn switch_thread(&self) -> Result<(), (i32, String)> {
        if let Some(gid) = self.gid {
            let id = libc::c_long::from(gid);
            // SAFETY: setresgid takes three integers and touches no memory.
            if unsafe { libc::syscall(libc::SYS_setresgid, id, id, id) } != 0 {
                return Err(last_error("setgid", "gid", gid));
            }
        }
        if let Some(uid) = self.uid {
            let id = libc::c_long::from(uid);
            // SAFETY: as above.
            if unsafe { libc::syscall(libc::SYS_setresuid, id, id, id) } != 0 {
                return Err(last_error("setuid", "uid", uid));
            }
        }
        Ok(())
    }

    /// Switches the calling thread's filesystem ids to the job's until the
    /// guard is dropped. setfsuid reports no error: the ids are read back,
    /// and one that did not take (no privilege to take it) is the error
    /// fio's setuid or setgid would give.
    pub(crate) fn open_files_as(&self, job: &str) -> Result<FsIds, RunError> {
        let mut ids = FsIds {
            uid: None,
            gid: None,
        };
        if let Some(gid) = self.gid {
            ids.gid = Some(set_fs_id(libc::SYS_setfsgid, gid));
            if set_fs_id(libc::SYS_setfsgid, u32::MAX) != gid {
                return Err(not_permitted(job, "setgid", "gid", gid));
            }
        }
        if let Some(uid) = self.uid {
            ids.uid = Some(set_fs_id(libc::SYS_setfsuid, uid));
            if set_fs_id(libc::SYS_setfsuid, u32::MAX) != uid {
                return Err(not_permitted(job, "setuid", "uid", uid));
            }
        }
        Ok(ids)
    }
}

/// The filesystem ids a thread had before [`Credentials::open_files_as`],
/// given back on drop (the user first, which brings the privilege to
/// change the group back).
#[derive(Debug)]
pub(crate) struct FsIds {
    uid: Option<u32>,
    gid: Option<u32>,
}

impl Drop for FsIds {
    fn drop(&mut self) {
        if let Some(uid) = self.uid {
            set_fs_id(libc::SYS_setfsuid, uid);
        }
        if let Some(gid) = self.gid {
            set_fs_id(libc::SYS_setfsgid, gid);
        }
    }
}

/// setfsuid or setfsgid: sets the id (`u32::MAX`, -1, sets nothing) and
/// returns the one before.
fn set_fs_id(call: libc::c_long, id: u32) -> u32 {
    let id = if id == u32::MAX {
        KEEP
    } else {
        libc::c_long::from(id)
    };
    // SAFETY: setfsuid and setfsgid take one integer and touch no memory.
    unsafe { libc::syscall(call, id) as u32 }
}

fn last_error(call: &str, option: &str, id: u32) -> (i32, String) {
    let e = std::io::Error::last_os_error();
    (
        e.raw_os_error().unwrap_or(libc::EPERM),
        format!("{call}: cannot switch to {option}={id}: {e}"),
    )
}

fn not_permitted(job: &str, call: &str, option: &str, id: u32) -> RunError {
    let e = std::io::Error::from_raw_os_error(libc::EPERM);
    RunError::os(
        format!("job '{job}': {call}: cannot switch to {option}={id}"),
        &e,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs_ids() -> (u32, u32) {
        (
            set_fs_id(libc::SYS_setfsuid, u32::MAX),
            set_fs_id(libc::SYS_setfsgid, u32::MAX),
        )
    }

    #[test]
    fn a_job_without_ids_changes_nothing() {
        let c = Credentials::default();
        assert_eq!(c.ids(), (None, None));
        let before = fs_ids();
        let guard = c.open_files_as("j").expect("nothing to switch");
        assert_eq!(fs_ids(), before);
        drop(guard);
        assert_eq!(c.switch_thread(), Ok(()));
    }

    #[test]
    fn the_filesystem_ids_are_the_jobs_while_the_guard_lives() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: switching filesystem ids needs root");
            return;
        }
        let c = Credentials {
            uid: Some(65534),
            gid: Some(65533),
        };
        assert_eq!(c.ids(), (Some(65534), Some(65533)));
        // A thread of its own: the ids are per thread, and the test
        // harness's other threads must not see them.
        std::thread::spawn(move || {
            let before = fs_ids();
            let guard = c.open_files_as("j").expect("root may switch");
            assert_eq!(fs_ids(), (65534, 65533));
            // The thread's real and effective ids are not touched.
            // SAFETY: geteuid has no preconditions.
            assert_eq!(unsafe { libc::geteuid() }, 0);
            drop(guard);
            assert_eq!(fs_ids(), before);
        })
        .join()
        .expect("the thread ran");
    }

    #[test]
    fn switching_a_thread_leaves_the_others_as_they_were() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: switching to another uid needs root");
            return;
        }
        let c = Credentials {
            uid: Some(65534),
            gid: Some(65534),
        };
        let ids = std::thread::spawn(move || {
            c.switch_thread().expect("root may switch");
            // SAFETY: the id getters have no preconditions.
            let ids = unsafe { (libc::getuid(), libc::geteuid(), libc::getegid()) };
            // Back is refused now: the thread gave its privilege away.
            let back = Credentials {
                uid: Some(0),
                gid: None,
            };
            (ids, back.switch_thread())
        })
        .join()
        .expect("the thread ran");
        assert_eq!(ids.0, (65534, 65534, 65534));
        let (errno, message) = ids.1.expect_err("no way back");
        assert_eq!(errno, libc::EPERM);
        assert!(
            message.starts_with("setuid: cannot switch to uid=0: "),
            "{message}"
        );
        // SAFETY: as above.
        assert_eq!(unsafe { libc::geteuid() }, 0, "this thread is still root");
    }
}
