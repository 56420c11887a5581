//! `uid` and `gid` end to end, against fio 3.33 on the same jobs: who owns
//! what a job makes, whose permissions its opens get, that another job of
//! the same run keeps the invoking user's ids, and the error of a user who
//! may not switch. Run as root (CI is); the directories live under /tmp so
//! that the job's user can reach them whatever the checkout's path is.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use common::{fio, ioscope, Cmd, Run};
use ioscope_testutil::{fio as fio_installed, require, root};
use tempfile::TempDir;

/// The user and group the jobs switch to: nobody and nogroup on Debian.
const NOBODY: u32 = 65534;

/// A directory anyone may create files in (as /tmp), with a 4 MiB file
/// `rf` that only root may write.
fn shared_dir() -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix("ioscope-credentials-")
        .tempdir_in(std::env::temp_dir())
        .expect("a directory under the temporary directory");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).expect("chmod 1777");
    fs::write(dir.path().join("rf"), vec![7u8; 4 << 20]).expect("the read file");
    fs::set_permissions(dir.path().join("rf"), fs::Permissions::from_mode(0o644))
        .expect("chmod 644");
    dir
}

/// Each named file's owner, or None where it is missing.
fn owners(dir: &Path, names: &[&str]) -> BTreeMap<String, Option<(u32, u32)>> {
    names
        .iter()
        .map(|n| {
            let m = fs::metadata(dir.join(n)).ok();
            (n.to_string(), m.map(|m| (m.uid(), m.gid())))
        })
        .collect()
}

/// Runs `tool` (fio or ioscope) on job file `text` in a fresh shared
/// directory; returns the run and the directory.
fn run(tool: fn(Vec<PathBuf>) -> Cmd, text: &str) -> (Run, TempDir) {
    let dir = shared_dir();
    let job = dir.path().join("job.fio");
    fs::write(&job, text).expect("the job file");
    let run = tool(vec![job]).dir(dir.path()).run();
    (run, dir)
}

fn with_fio(args: Vec<PathBuf>) -> Cmd {
    fio(args)
}

fn with_ioscope(args: Vec<PathBuf>) -> Cmd {
    ioscope(args)
}

#[test]
fn a_job_with_uid_and_gid_makes_its_files_as_that_user_as_fio_does() {
    require!(root());
    require!(fio_installed());
    // r reads a file only root may write, and logs; w lays out its own
    // file (create_serialize=0), so as its user.
    let ids = format!("uid={NOBODY}\ngid={NOBODY}\n");
    let text = format!(
        "[global]\nsize=256k\nbs=4k\nioengine=psync\n\
         [r]\n{ids}filename=rf\nrw=read\nwrite_lat_log=r\nwrite_iolog=r.iolog\nexec_prerun=id -u\n\
         [w]\n{ids}filename=wf\nrw=write\ncreate_serialize=0\n"
    );
    let names = [
        "rf",
        "wf",
        "r.iolog",
        "r_lat.1.log",
        "r_clat.1.log",
        "r.prerun.txt",
    ];
    let mut seen = Vec::new();
    for (tool, name) in [(with_fio as fn(_) -> _, "fio"), (with_ioscope, "ioscope")] {
        let (run, dir) = run(tool, &text);
        assert!(run.status.success(), "{name}: {}", run.describe());
        let prerun = fs::read_to_string(dir.path().join("r.prerun.txt")).unwrap_or_default();
        seen.push((name, owners(dir.path(), &names), prerun));
    }
    let (_, ioscope_owners, ioscope_prerun) = &seen[1];
    let nobody = Some((NOBODY, NOBODY));
    let expected: BTreeMap<String, Option<(u32, u32)>> = [
        ("rf", Some((0, 0))),
        ("wf", nobody),
        ("r.iolog", nobody),
        ("r_lat.1.log", nobody),
        ("r_clat.1.log", nobody),
        ("r.prerun.txt", nobody),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_string(), o))
    .collect();
    assert_eq!(ioscope_owners, &expected, "ioscope's files");
    assert_eq!(&seen[0].1, ioscope_owners, "fio's files against ioscope's");
    assert_eq!(
        ioscope_prerun.trim(),
        NOBODY.to_string(),
        "exec_prerun ran as"
    );
    assert_eq!(seen[0].2, *ioscope_prerun, "fio's exec_prerun output");
}

#[test]
fn a_file_laid_out_by_root_is_not_writable_by_the_jobs_user_as_in_fio() {
    require!(root());
    require!(fio_installed());
    // create_serialize=1 (the default): laid out as root, 0644, then
    // opened for writing as nobody.
    let text = format!("[w]\nuid={NOBODY}\nfilename=wf\nrw=write\nsize=64k\nioengine=psync\n");
    let (fio_run, fio_dir) = run(with_fio, &text);
    assert_eq!(fio_run.status.code(), Some(1), "{}", fio_run.describe());
    // fio prints a job's error with its report, on stdout.
    assert!(
        fio_run.stdout.contains("err=13") && fio_run.stdout.contains("Permission denied"),
        "{}",
        fio_run.describe()
    );
    let (run, dir) = run(with_ioscope, &text);
    let stderr = run.assert_refused();
    assert_eq!(run.status.code(), Some(1), "{}", run.describe());
    assert!(
        stderr.contains("permission denied") && stderr.contains("uid=65534"),
        "{stderr}"
    );
    let root_owned = Some((0, 0));
    assert_eq!(owners(fio_dir.path(), &["wf"])["wf"], root_owned);
    assert_eq!(owners(dir.path(), &["wf"])["wf"], root_owned);
}

#[test]
fn another_job_of_the_run_keeps_the_invoking_users_ids() {
    require!(root());
    require!(fio_installed());
    // Both jobs at once: ioscope's are threads of one process, and a
    // switch must not reach the other.
    let text = format!(
        "[global]\nioengine=null\nsize=64m\nbs=4k\nexec_prerun=id -u\nexec_postrun=id -u\n\
         [a]\nuid={NOBODY}\n[b]\n"
    );
    for (tool, name) in [(with_fio as fn(_) -> _, "fio"), (with_ioscope, "ioscope")] {
        let (run, dir) = run(tool, &text);
        assert!(run.status.success(), "{name}: {}", run.describe());
        let read = |f: &str| fs::read_to_string(dir.path().join(f)).unwrap_or_default();
        assert_eq!(read("a.prerun.txt").trim(), NOBODY.to_string(), "{name}");
        assert_eq!(read("a.postrun.txt").trim(), NOBODY.to_string(), "{name}");
        assert_eq!(read("b.prerun.txt").trim(), "0", "{name}");
        assert_eq!(read("b.postrun.txt").trim(), "0", "{name}");
    }
}

#[test]
fn a_global_uid_reaches_no_job_as_in_fio() {
    require!(root());
    require!(fio_installed());
    // fio sets uid and gid back to -1 for each new job.
    let text = format!("[global]\nuid={NOBODY}\nioengine=null\nsize=64k\nexec_prerun=id -u\n[g]\n");
    for (tool, name) in [(with_fio as fn(_) -> _, "fio"), (with_ioscope, "ioscope")] {
        let (run, dir) = run(tool, &text);
        assert!(run.status.success(), "{name}: {}", run.describe());
        let prerun = fs::read_to_string(dir.path().join("g.prerun.txt")).unwrap_or_default();
        assert_eq!(prerun.trim(), "0", "{name}");
    }
}

#[test]
fn a_user_who_may_not_switch_gets_fios_error() {
    require!(root());
    require!(fio_installed());
    // Not root: setpriv runs the tools as nobody, asking for root. The
    // binary is copied where nobody can run it from.
    let dir = shared_dir();
    let bin = dir.path().join("ioscope");
    fs::copy(common::bin(), &bin).expect("copy the binary");
    let job = ["--name=e", "--ioengine=null", "--size=64k", "--uid=0"];
    let as_nobody = |program: &Path| {
        Cmd::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(program)
            .args(job)
            .dir(dir.path())
            .run()
    };
    let fio_run = as_nobody(Path::new("fio"));
    assert_eq!(fio_run.status.code(), Some(1), "{}", fio_run.describe());
    assert!(
        fio_run
            .stdout
            .contains("func=setuid, error=Operation not permitted"),
        "{}",
        fio_run.describe()
    );
    let run = as_nobody(&bin);
    let stderr = run.assert_refused();
    assert_eq!(run.status.code(), Some(1), "{}", run.describe());
    assert!(
        stderr.contains("e: setuid: cannot switch to uid=0: Operation not permitted"),
        "{stderr}"
    );
}
