//! `cgroup`, `cgroup_weight`, `cgroup_nodelete`: the control group a job
//! runs in, as fio 3.33's cgroup.c places it.
//!
//! fio takes the first mount in /proc/mounts that is either a cgroup v1
//! hierarchy with `blkio` in its options or the cgroup2 hierarchy, creates
//! `MOUNT/NAME` if it is missing (mode 0755), writes `cgroup_weight` to its
//! `blkio.weight` (v1 only) and writes the job's pid to its `tasks` (v1) or
//! `cgroup.procs` (v2), after the job's uid/gid switch and before its
//! prerun command; the job moves back out when it ends, and the groups fio
//! created are removed once every job is done, unless the creating job set
//! `cgroup_nodelete`.
//!
//! ioscope's jobs are threads of one process. v1's `tasks` takes a thread
//! id and moves that thread alone, so a job's worker joins its group as
//! fio's job process does. cgroup2 places whole processes (a thread id
//! written to `cgroup.procs` moves its process; the per-thread `threaded`
//! groups carry no io controller): the whole of ioscope moves into the
//! group while the jobs naming it run, and a job naming another group
//! while one is held fails with a message that says so, rather than take
//! its neighbours along.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ioscope_job::JobSpec;
use ioscope_stats::current_tid;

/// The hierarchy fio's `find_cgroup_mnt` picks.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Mount {
    dir: PathBuf,
    v2: bool,
}

impl Mount {
    /// The first cgroup mount fio would take from `mounts` (the text of
    /// /proc/mounts): a v1 one whose options mention blkio, or a cgroup2.
    fn find(mounts: &str) -> Option<Mount> {
        mounts.lines().find_map(|line| {
            let mut fields = line.split(' ');
            let (_, dir, kind, opts) = (
                fields.next()?,
                fields.next()?,
                fields.next()?,
                fields.next()?,
            );
            let v2 = match kind {
                "cgroup" if opts.contains("blkio") => false,
                "cgroup2" => true,
                _ => return None,
            };
            Some(Mount {
                dir: PathBuf::from(unescape(dir)),
                v2,
            })
        })
    }

    /// The file a member's id is written to.
    fn members(&self, group: &Path) -> PathBuf {
        group.join(if self.v2 { "cgroup.procs" } else { "tasks" })
    }

    /// Where the caller is in this hierarchy now (`cgroup` is the text of
    /// /proc/thread-self/cgroup), or the mount's root where that cannot
    /// be told (fio always moves a job back to the root).
    fn home(&self, cgroup: &str) -> PathBuf {
        let path = cgroup.lines().find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let ours = match self.v2 {
                true => controllers.is_empty(),
                false => controllers.split(',').any(|c| c == "blkio"),
            };
            ours.then_some(path)
        });
        match path.map(|p| self.dir.join(p.trim_start_matches('/'))) {
            Some(dir) if dir.is_dir() => dir,
            _ => self.dir.clone(),
        }
    }
}

/// A mount point as /proc/mounts writes it, its space, tab, newline and
/// backslash as octal escapes (what getmntent decodes).
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest
            .get(i + 1..i + 4)
            .and_then(|o| u8::from_str_radix(o, 8).ok());
        match code {
            Some(c) => {
                out.push(char::from(c));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// cgroup2: the group the whole process is in for the jobs that named it.
#[derive(Debug)]
struct Held {
    group: PathBuf,
    /// The jobs in it now.
    jobs: usize,
    /// Where the process was before.
    home: PathBuf,
}

/// The run's cgroups: the groups its jobs created (removed when the run
/// is dropped, as fio's cgroup_kill removes them at its end) and, on
/// cgroup2, the one the process is held in.
#[derive(Debug, Default)]
pub(crate) struct Cgroups {
    /// Created groups, with whether to leave them (`cgroup_nodelete` of
    /// the job that created each).
    created: Mutex<Vec<(PathBuf, bool)>>,
    held: Mutex<Option<Held>>,
}

/// A job's place in its group, which it leaves when this is dropped (at
/// the end of the job, after its postrun command, as fio's).
#[derive(Debug)]
pub(crate) struct Membership<'a> {
    cgroups: &'a Cgroups,
    mount: Mount,
    group: PathBuf,
    /// v1: where the job's thread was before.
    home: PathBuf,
}

impl Cgroups {
    /// Puts the calling thread's job into its `cgroup`, if it names one;
    /// the error is the errno and what failed, as fio's td_verror.
    pub(crate) fn join(&self, spec: &JobSpec) -> Result<Option<Membership<'_>>, (i32, String)> {
        let Some(name) = &spec.process.cgroup else {
            return Ok(None);
        };
        let mounts = std::fs::read_to_string("/proc/mounts")
            .map_err(|e| io_error(&e, "cgroup: cannot read /proc/mounts"))?;
        let mount = Mount::find(&mounts).ok_or_else(|| {
            (
                libc::ENOENT,
                "cgroup: no cgroup hierarchy is mounted (a cgroup v1 one with the blkio \
                 controller, or cgroup2), which fio's cgroup option needs"
                    .to_string(),
            )
        })?;
        let group = mount.dir.join(name);
        match std::fs::DirBuilder::new().mode(0o755).create(&group) {
            Ok(()) => lock(&self.created).push((group.clone(), spec.process.cgroup_nodelete)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(io_error(
                    &e,
                    &format!("cgroup: cannot create {}", group.display()),
                ))
            }
        }
        if let Some(weight) = spec.process.cgroup_weight {
            if mount.v2 {
                return Err((
                    libc::EINVAL,
                    format!(
                        "cgroup_weight: {} is a cgroup2 hierarchy, which has no blkio.weight \
                         (fio 3.33 refuses the weight there too)",
                        mount.dir.display()
                    ),
                ));
            }
            write_id(&group.join("blkio.weight"), u64::from(weight)).map_err(|e| {
                io_error(
                    &e,
                    &format!(
                        "cgroup_weight: cannot write {}",
                        group.join("blkio.weight").display()
                    ),
                )
            })?;
        }
        let own = std::fs::read_to_string("/proc/thread-self/cgroup").unwrap_or_default();
        let home = mount.home(&own);
        if mount.v2 {
            self.hold(&mount, &group, home.clone())?;
        } else {
            write_id(&mount.members(&group), current_tid() as u64).map_err(|e| {
                io_error(
                    &e,
                    &format!("cgroup: cannot move the job into {}", group.display()),
                )
            })?;
        }
        Ok(Some(Membership {
            cgroups: self,
            mount,
            group,
            home,
        }))
    }

    /// cgroup2: moves the process into `group`, unless the jobs of another
    /// group have it.
    fn hold(&self, mount: &Mount, group: &Path, home: PathBuf) -> Result<(), (i32, String)> {
        let mut held = lock(&self.held);
        match held.as_mut() {
            Some(h) if h.group == group => {
                h.jobs += 1;
                return Ok(());
            }
            Some(h) => {
                return Err((
                    libc::EBUSY,
                    format!(
                        "cgroup: cannot enter {} while other jobs run in {}: \
                         cgroup2 places whole processes and ioscope's jobs are threads of \
                         one process (run them in separate stonewall groups)",
                        group.display(),
                        h.group.display()
                    ),
                ))
            }
            None => {}
        }
        write_id(&mount.members(group), u64::from(std::process::id())).map_err(|e| {
            io_error(
                &e,
                &format!("cgroup: cannot move ioscope into {}", group.display()),
            )
        })?;
        *held = Some(Held {
            group: group.to_path_buf(),
            jobs: 1,
            home,
        });
        Ok(())
    }
}

impl Drop for Membership<'_> {
    /// Takes the job back out: its thread (v1) or, once the group's last
    /// job leaves, the process (v2) goes back where it was. A failure
    /// leaves the group in use (its removal fails later, as fio's does);
    /// the job's own result stands.
    fn drop(&mut self) {
        if !self.mount.v2 {
            let _ = write_id(&self.mount.members(&self.home), current_tid() as u64);
            return;
        }
        let mut held = lock(&self.cgroups.held);
        let Some(h) = held.as_mut().filter(|h| h.group == self.group) else {
            return;
        };
        h.jobs -= 1;
        if h.jobs == 0 {
            let _ = write_id(&self.mount.members(&h.home), u64::from(std::process::id()));
            *held = None;
        }
    }
}

impl Drop for Cgroups {
    /// fio's cgroup_kill: the groups the run created go, unless their
    /// creator said `cgroup_nodelete`; one still in use stays.
    fn drop(&mut self) {
        let created = std::mem::take(self.created.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (group, keep) in created {
            if !keep {
                let _ = std::fs::remove_dir(group);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes a number to a cgroup file as fio's fopen("w") and fprintf do
/// (so a file the hierarchy lacks fails as it does in fio: EACCES).
fn write_id(path: &Path, id: u64) -> std::io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    f.write_all(id.to_string().as_bytes())
}

fn io_error(e: &std::io::Error, what: &str) -> (i32, String) {
    (
        e.raw_os_error().unwrap_or(libc::EIO),
        format!("{what}: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mount_is_the_first_blkio_or_cgroup2_one_as_in_fio() {
        let mounts = "tmpfs /sys/fs/cgroup tmpfs rw,mode=755 0 0\n\
                      cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n\
                      cgroup /sys/fs/cgroup/blk\\040io cgroup rw,relatime,blkio 0 0\n\
                      cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
        let v1 = Mount::find(mounts).unwrap();
        assert_eq!(
            (v1.dir.to_str().unwrap(), v1.v2),
            ("/sys/fs/cgroup/blk io", false)
        );
        let v2 = Mount::find("cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n").unwrap();
        assert_eq!((v2.dir.to_str().unwrap(), v2.v2), ("/sys/fs/cgroup", true));
        assert_eq!(
            Mount::find("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"),
            None
        );
        assert_eq!(v1.members(Path::new("/g")), PathBuf::from("/g/tasks"));
        assert_eq!(
            v2.members(Path::new("/g")),
            PathBuf::from("/g/cgroup.procs")
        );
    }

    #[test]
    fn home_is_the_callers_group_in_the_hierarchy_or_the_root() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("a/b")).unwrap();
        let cgroup = "7:cpu,blkio:/a/b\n0::/a\n";
        let v1 = Mount {
            dir: root.path().to_path_buf(),
            v2: false,
        };
        let v2 = Mount {
            v2: true,
            ..v1.clone()
        };
        assert_eq!(v1.home(cgroup), root.path().join("a/b"));
        assert_eq!(v2.home(cgroup), root.path().join("a"));
        // Not in the hierarchy's view, or a group that is not there: the root.
        assert_eq!(v1.home("0::/a\n"), root.path());
        assert_eq!(v2.home("0::/gone\n"), root.path());
    }

    #[test]
    fn octal_escapes_are_decoded_and_stray_backslashes_kept() {
        assert_eq!(unescape("/a\\040b\\011c"), "/a b\tc");
        assert_eq!(unescape("/a\\x"), "/a\\x");
        assert_eq!(unescape("/a\\"), "/a\\");
    }
}
