//! The doctor: pitfalls that make a latency figure mean less than it seems,
//! found and explained as [`Notice`]s. The checks read what they judge
//! (sysfs and procfs under a [`Root`], a job's options, its results), so
//! each can be tried on a fixture tree.
//!
//! A run carries the notices that concern its jobs: polled completions
//! without poll queues, io-wq punts, buffer options on data-less writes and
//! latencies in the top bucket always apply; the machine's checklist (the
//! 10 µs talk's) only to a QD1 job on a block device or an NVMe char device,
//! where a few microseconds are the figure. `ioscope doctor` runs the whole
//! checklist before a run ([`checkup`]).

mod device;
mod job;
mod machine;
mod polling;
mod root;

use std::path::Path;

use ioscope_engine::TargetKind;
use ioscope_job::{JobSpec, Parsed};
use ioscope_stats::{Notice, RunResult};

pub use device::disk_of;
pub(crate) use polling::check_polling;
pub use root::Root;

/// One item of the checklist and what it came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// What was checked, in a few words (`clocksource`).
    pub what: &'static str,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to change; what was seen.
    Fine(String),
    /// Could not be told; why.
    Unknown(String),
    /// A pitfall, with its reason and fix.
    Found(Notice),
}

impl Check {
    fn fine(what: &'static str, seen: impl Into<String>) -> Check {
        Check {
            what,
            outcome: Outcome::Fine(seen.into()),
        }
    }

    fn unknown(what: &'static str, why: impl Into<String>) -> Check {
        Check {
            what,
            outcome: Outcome::Unknown(why.into()),
        }
    }

    fn found(what: &'static str, notice: Notice) -> Check {
        Check {
            what,
            outcome: Outcome::Found(notice),
        }
    }

    fn notice(self) -> Option<Notice> {
        match self.outcome {
            Outcome::Found(n) => Some(n),
            _ => None,
        }
    }
}

/// The whole checklist: the machine, then the device `disk` (a sysfs block
/// device name) when given, for a job on `cpus` that writes or not.
pub fn checkup(root: &Root, disk: Option<&str>, cpus: &[u32], writes: bool) -> Vec<Check> {
    let mut all = machine::checks(root);
    if let Some(disk) = disk {
        all.extend(device::checks(root, disk, cpus, writes));
    }
    all
}

/// The CPUs this process may run on, every online CPU when the kernel
/// will not say.
pub fn allowed_cpus() -> Vec<u32> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the kernel fills
    // at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
        return Root::system().cpus();
    }
    (0..libc::CPU_SETSIZE as u32)
        .filter(|&c| unsafe { libc::CPU_ISSET(c as usize, &set) })
        .collect()
}

/// The machine and device checklist for a job about to run on `path`,
/// added to `found` (each notice once per run): only for a QD1 job on a
/// block device or NVMe char device (`/dev/ngXnY`), where a few
/// microseconds are what is measured. Files go through a filesystem, whose
/// own costs outweigh these; other char devices (`/dev/null`) are no disk.
pub(crate) fn latency_job(spec: &JobSpec, path: &Path, kind: TargetKind, found: &mut Vec<Notice>) {
    let nvme_char = kind == TargetKind::CharDevice
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("ng"));
    let device = kind == TargetKind::BlockDevice || nvme_char;
    if spec.iodepth > 1 || !device {
        return;
    }
    let root = Root::system();
    let cpus = match spec.cpus_allowed.is_empty() {
        true => allowed_cpus(),
        false => spec.cpus_allowed.clone(),
    };
    let disk = disk_of(&root, path).ok().flatten();
    let writes = spec.rw.kind.writes();
    let notices = job::unpinned(spec).into_iter().chain(
        checkup(&root, disk.as_deref(), &cpus, writes)
            .into_iter()
            .filter_map(Check::notice),
    );
    for n in notices {
        if !found.contains(&n) {
            found.push(n);
        }
    }
}

/// The notices about what the jobs asked for and what they measured:
/// buffer options on data-less writes, io-wq punts, the top bucket, zone
/// write pointers recover_zbd_write_error did not move.
pub(crate) fn after_run(parsed: &Parsed, result: &RunResult) -> Vec<Notice> {
    let mut found: Vec<Notice> = parsed
        .jobs
        .iter()
        .filter_map(job::dataless_with_buffers)
        .collect();
    for j in &result.jobs {
        found.extend(job::punted(j));
        found.extend(job::top_bucket(j));
        found.extend(job::unrecovered_zone_writes(j));
    }
    found
}

/// Fixture trees laid out like `/`, for the checks' tests.
#[cfg(test)]
mod fixture {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::Root;

    /// A directory under the system's temp dir, removed when dropped.
    pub struct Tree(PathBuf);

    impl Tree {
        pub fn new() -> Tree {
            static NEXT: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!(
                "ioscope-doctor-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&dir).expect("a fixture directory");
            Tree(dir)
        }

        pub fn root(&self) -> Root {
            Root::at(&self.0)
        }

        /// Writes `text` (and a newline, as sysfs does) to `rel`.
        pub fn file(&self, rel: &str, text: &str) {
            let path = self.0.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("{text}\n")).unwrap();
        }

        /// Makes `rel` a symbolic link to the directory `target` (both
        /// under the tree), as /sys/block's entries are.
        pub fn link(&self, target: &str, rel: &str) {
            let path = self.0.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(self.0.join(target), path).unwrap();
        }
    }

    /// The job `--name=j` and `args` make.
    pub fn spec(args: &[&str]) -> ioscope_job::JobSpec {
        let input = ioscope_job::ParseInput {
            cli_options: std::iter::once("--name=j")
                .chain(args.iter().copied())
                .map(String::from)
                .collect(),
            ..Default::default()
        };
        let parsed = ioscope_job::parse(&input).expect("a valid job");
        parsed.jobs.into_iter().next().expect("one job")
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{spec, Tree};
    use super::*;

    /// The checklist is for QD1 jobs on devices; the job's own notice
    /// (not pinned) is always among what it adds there, once.
    #[test]
    fn only_a_qd1_job_on_a_device_gets_the_checklist() {
        let path = Path::new("/dev/null");
        let qd1 = spec(&["--rw=randread"]);
        let mut found = Vec::new();
        latency_job(&qd1, path, TargetKind::RegularFile, &mut found);
        assert_eq!(found, []);
        latency_job(
            &spec(&["--iodepth=8"]),
            path,
            TargetKind::BlockDevice,
            &mut found,
        );
        assert_eq!(found, []);
        // /dev/null is a char device, but no disk.
        latency_job(&qd1, path, TargetKind::CharDevice, &mut found);
        assert_eq!(found, []);
        for (path, kind) in [
            ("/dev/null", TargetKind::BlockDevice),
            ("/dev/ng0n1", TargetKind::CharDevice),
            ("/dev/null", TargetKind::BlockDevice),
        ] {
            latency_job(&qd1, Path::new(path), kind, &mut found);
        }
        let unpinned = Notice::Qd1Unpinned { job: "j".into() };
        assert_eq!(
            found.iter().filter(|n| **n == unpinned).count(),
            1,
            "{found:?}"
        );
        let mut kinds: Vec<_> = found.iter().map(Notice::kind).collect();
        kinds.dedup();
        assert_eq!(kinds.len(), found.len(), "a notice twice: {found:?}");
    }

    #[test]
    fn the_checkup_covers_the_machine_then_the_device() {
        let t = Tree::new();
        t.file("sys/block/zram0/queue/iostats", "1");
        let what: Vec<&str> = checkup(&t.root(), Some("zram0"), &[0], true)
            .iter()
            .map(|c| c.what)
            .collect();
        assert_eq!(
            what,
            [
                "CPU frequency governor",
                "CPU idle states",
                "haltpoll in a guest",
                "clocksource",
                "virtual machine",
                "I/O scheduler",
                "iostats",
                "add_random",
                "write cache",
                "device interrupts' NUMA node"
            ]
        );
        assert_eq!(checkup(&t.root(), None, &[0], true).len(), 5);
    }
}
