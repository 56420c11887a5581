//! `cgroup`, `cgroup_weight` and `cgroup_nodelete` end to end, against fio
//! 3.33 on the same jobs: the group the job's commands find themselves in,
//! where the job goes back to, which groups are left after the run, and
//! the weight's error; then cgroup2 (reached by hiding the v1 blkio
//! hierarchy in a private mount namespace), where ioscope moves its whole
//! process. Run as root (CI is).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{fio, ioscope, Cmd, Run};
use ioscope_testutil::{fio as fio_installed, require, root, Missing};
use tempfile::TempDir;

/// The cgroup mounts of /proc/mounts: (directory, cgroup2?), v1 ones only
/// where they carry blkio (the ones fio looks for).
fn cgroup_mounts() -> Vec<(PathBuf, bool)> {
    let mounts = fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            match f.get(2..4)? {
                ["cgroup", opts] if opts.contains("blkio") => Some((PathBuf::from(f[1]), false)),
                ["cgroup2", _] => Some((PathBuf::from(f[1]), true)),
                _ => None,
            }
        })
        .collect()
}

/// The hierarchy fio uses here: the first of [`cgroup_mounts`]. Soft: a
/// machine may mount none (CI's has both a v1 blkio and a cgroup2 one).
fn hierarchy() -> Result<(PathBuf, bool), Missing> {
    cgroup_mounts()
        .into_iter()
        .next()
        .ok_or_else(|| Missing::soft("no cgroup v1 blkio or cgroup2 hierarchy is mounted"))
}

/// The cgroup2 hierarchy, and the v1 blkio mounts to hide (in a private
/// mount namespace) for fio and ioscope to take it. Soft, as above.
fn cgroup2() -> Result<(PathBuf, Vec<PathBuf>), Missing> {
    let all = cgroup_mounts();
    let v2 = all.iter().find(|(_, v2)| *v2).map(|(d, _)| d.clone());
    let v2 = v2.ok_or_else(|| Missing::soft("no cgroup2 hierarchy is mounted"))?;
    let v1 = all
        .into_iter()
        .filter(|(_, v2)| !v2)
        .map(|(d, _)| d)
        .collect();
    Ok((v2, v1))
}

/// A group name no other run uses.
fn group(tag: &str) -> String {
    format!("ioscope-test-{tag}-{}", std::process::id())
}

/// Runs `tool` on job file `text` in a fresh directory, in a mount
/// namespace without the `hide` mounts when there are any.
fn run(tool: &str, text: &str, hide: &[PathBuf]) -> (Run, TempDir) {
    let dir = common::tempdir();
    let job = common::write_file(dir.path(), "job.fio", text);
    let cmd = match (hide.is_empty(), tool) {
        (true, "fio") => fio([&job]),
        (true, _) => ioscope([&job]),
        (false, _) => {
            let program = match tool {
                "fio" => PathBuf::from("fio"),
                _ => common::bin(),
            };
            let umounts: Vec<String> = hide
                .iter()
                .map(|m| format!("umount {}", m.display()))
                .collect();
            Cmd::new("unshare").args([
                "-m".into(),
                "sh".into(),
                "-c".into(),
                format!("{} && exec \"$0\" \"$@\"", umounts.join(" && ")).into(),
                program.into_os_string(),
                job.into_os_string(),
            ])
        }
    };
    let run = cmd.dir(dir.path()).run();
    (run, dir)
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The lines of /proc/self/cgroup text for the hierarchy (v2: `0::`; v1:
/// the blkio one).
fn line_of(cgroup: &str, v2: bool) -> String {
    let ours = |l: &&str| match v2 {
        true => l.starts_with("0::"),
        false => l
            .split(':')
            .nth(1)
            .is_some_and(|c| c.split(',').any(|c| c == "blkio")),
    };
    cgroup.lines().find(ours).unwrap_or_default().to_string()
}

#[test]
fn a_job_runs_in_its_cgroup_which_goes_after_the_run_as_in_fio() {
    require!(root());
    require!(fio_installed());
    let (mount, v2) = require!(hierarchy());
    let (g, kept) = (group("a"), group("kept"));
    // a runs in g; b, after it, is back where the run started; c keeps its
    // group (cgroup_nodelete).
    let text = format!(
        "[global]\nfilename=f\nsize=256k\nrw=read\n\
         [a]\ncgroup={g}\nexec_prerun=cat /proc/self/cgroup\nexec_postrun=cat /proc/self/cgroup\n\
         [b]\nstonewall\nexec_prerun=cat /proc/self/cgroup\n\
         [c]\nstonewall\ncgroup={kept}\ncgroup_nodelete=1\n"
    );
    let here = fs::read_to_string("/proc/self/cgroup").expect("/proc/self/cgroup");
    for tool in ["fio", "ioscope"] {
        let (run, dir) = run(tool, &text, &[]);
        assert!(run.status.success(), "{tool}: {}", run.describe());
        let a = read(dir.path(), "a.prerun.txt");
        assert_eq!(
            line_of(&a, v2).rsplit('/').next(),
            Some(g.as_str()),
            "{tool}: a's prerun: {a}"
        );
        assert_eq!(
            line_of(&read(dir.path(), "a.postrun.txt"), v2),
            line_of(&a, v2),
            "{tool}"
        );
        // The other hierarchies are left as they were.
        let others = |t: &str| {
            t.lines()
                .filter(|l| *l != line_of(t, v2))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(others(&a), others(&here), "{tool}");
        assert_eq!(
            read(dir.path(), "b.prerun.txt"),
            here,
            "{tool}: b runs where the run began"
        );
        assert!(!mount.join(&g).exists(), "{tool} left {g}");
        assert!(mount.join(&kept).is_dir(), "{tool} removed {kept}");
        fs::remove_dir(mount.join(&kept)).expect("rmdir the kept group");
    }
}

#[test]
fn cgroup_weight_and_a_group_that_cannot_be_made_fail_as_in_fio() {
    require!(root());
    require!(fio_installed());
    let (mount, _) = require!(hierarchy());
    let g = group("weight");
    // v1: this kernel's blkio hierarchy has blkio.bfq.weight, not the
    // blkio.weight fio 3.33 writes, and both fail with EACCES where the
    // file is missing; v2 has none: both refuse. A group under a missing
    // parent: ENOENT from mkdir.
    for job in [
        format!("cgroup={g}\ncgroup_weight=500"),
        format!("cgroup={g}/missing/deeper"),
    ] {
        let text = format!("[j]\nfilename=f\nsize=64k\nrw=read\n{job}\n");
        let outcomes: Vec<(Option<i32>, u64)> = ["fio", "ioscope"]
            .iter()
            .map(|tool| exit_and_error(tool, &text))
            .collect();
        assert_eq!(
            outcomes[0], outcomes[1],
            "{job}: (exit, JSON error) fio, ioscope"
        );
        if job.ends_with("deeper") {
            assert_eq!(outcomes[1], (Some(1), libc::ENOENT as u64), "{job}");
        }
        assert!(!mount.join(&g).exists(), "{g} left behind");
    }
    let _ = fs::remove_dir(mount.join(&g));
}

/// The exit code of `tool` on `text` and its job's JSON `error`.
fn exit_and_error(tool: &str, text: &str) -> (Option<i32>, u64) {
    let dir = common::tempdir();
    let job = common::write_file(dir.path(), "job.fio", text);
    let args = vec![PathBuf::from("--output-format=json"), job];
    let run = match tool {
        "fio" => fio(args),
        _ => ioscope(args),
    }
    .dir(dir.path())
    .run();
    // fio prints the job's error line ahead of the JSON.
    let (json, _) =
        common::extract_json(&run.stdout).unwrap_or_else(|| panic!("{}", run.describe()));
    let error = common::u(common::job(&json, "j"), "error");
    (run.status.code(), error)
}

#[test]
fn under_cgroup2_ioscope_moves_as_a_whole_and_into_one_group_at_a_time() {
    require!(root());
    require!(fio_installed());
    let (mount, hide) = require!(cgroup2());
    let g = group("v2");
    let text = format!(
        "[global]\nfilename=f\nsize=256k\nrw=read\n\
         [a]\ncgroup={g}\nexec_prerun=cat /proc/self/cgroup\n\
         [b]\nstonewall\nexec_prerun=cat /proc/self/cgroup\n"
    );
    let mut seen = Vec::new();
    for tool in ["fio", "ioscope"] {
        let (run, dir) = run(tool, &text, &hide);
        assert!(run.status.success(), "{tool}: {}", run.describe());
        seen.push((
            line_of(&read(dir.path(), "a.prerun.txt"), true),
            line_of(&read(dir.path(), "b.prerun.txt"), true),
        ));
        assert!(!mount.join(&g).exists(), "{tool} left {g}");
    }
    assert!(seen[0].0.ends_with(&format!("/{g}")), "fio: {seen:?}");
    assert_eq!(seen[0], seen[1], "(a's group, b's group): fio, ioscope");
    // Two groups at once: fio's processes go one to each; ioscope's one
    // process cannot, and says so for the second job.
    let (ga, gb) = (group("ga"), group("gb"));
    let text = format!(
        "[global]\nfilename=f\nsize=64k\nrw=read\ntime_based\nruntime=1\n\
         [a]\ncgroup={ga}\n[b]\ncgroup={gb}\nstartdelay=100ms\n"
    );
    let (run, _dir) = run("ioscope", &text, &hide);
    assert_eq!(run.status.code(), Some(1), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "b: cgroup: cannot enter {}",
            mount.join(&gb).display()
        )) && run.stderr.contains("cgroup2 places whole processes"),
        "{}",
        run.describe()
    );
    assert!(
        !mount.join(&ga).exists() && !mount.join(&gb).exists(),
        "groups left behind"
    );
}
