//! The smaller engines ported from fio — falloc, ftruncate, filecreate,
//! filestat, filedelete, cpuio, exec, e4defrag — run beside fio on the same
//! jobs, a newer fio's dircreate, dirstat and dirdelete (which Debian's fio
//! 3.33 lacks) checked for what its source does, and the engines ioscope
//! will not have refused with what they need.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use common::{fio, ioscope, job, tempdir, u, Run};
use ioscope_testutil::{require, Missing};
use serde_json::Value;

/// Runs the same options through fio and ioscope, each in a directory of
/// its own (`--directory=` is added), and returns both JSON results.
fn both(fio_dir: &Path, io_dir: &Path, opts: &[&str]) -> (Value, Value) {
    let with_dir = |dir: &Path| {
        let mut v: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
        v.push(format!("--directory={}", dir.display()));
        v.push("--output-format=json".into());
        v
    };
    let f = fio(with_dir(fio_dir)).dir(fio_dir).run();
    let i = ioscope(with_dir(io_dir)).dir(io_dir).run();
    (fio_json(&f), i.ok_json())
}

/// fio's JSON, after the lines some engines print before it (cpuio's
/// and exec's "job (noop): ioengine=..." info lines).
fn fio_json(run: &Run) -> Value {
    assert!(run.status.success(), "{}", run.describe());
    common::extract_json(&run.stdout)
        .unwrap_or_else(|| panic!("no JSON from fio: {}", run.describe()))
        .0
}

/// (io_bytes, total_ios, clat samples, lat samples) of one direction.
fn counts(v: &Value, name: &str, dir: &str) -> (u64, u64, u64, u64) {
    let d = &job(v, name)[dir];
    (
        u(d, "io_bytes"),
        u(d, "total_ios"),
        u(&d["clat_ns"], "N"),
        u(&d["lat_ns"], "N"),
    )
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// (size, 512-byte blocks) of a file.
fn size_blocks(path: &Path) -> (u64, u64) {
    let m = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m.len(), m.blocks())
}

/// filecreate, filestat and filedelete: the files each leaves, and fio's
/// accounting: one completion latency sample per file (the create, stat
/// or unlink), the requests counted (bytes, I/Os) but not timed.
#[test]
fn file_engines_match_fio() {
    require!(ioscope_testutil::fio());
    for (engine, rw) in [
        ("filecreate", "read"),
        ("filecreate", "write"),
        ("filestat", "read"),
        ("filedelete", "read"),
    ] {
        let (fd, id) = (tempdir(), tempdir());
        let opts = [
            "--name=j",
            &format!("--ioengine={engine}"),
            &format!("--rw={rw}"),
            "--bs=1k",
            "--nrfiles=5",
            "--filesize=4k",
            "--unlink=0",
        ];
        let (f, i) = both(fd.path(), id.path(), &opts);
        let dir = if rw == "read" { "read" } else { "write" };
        let (fc, ic) = (counts(&f, "j", dir), counts(&i, "j", dir));
        assert_eq!(ic, fc, "{engine} rw={rw}: (bytes, ios, clat N, lat N)");
        assert_eq!(ic.2, 5, "one sample per file");
        assert_eq!(names(id.path()), names(fd.path()), "{engine}: files left");
        for name in names(id.path()) {
            assert_eq!(
                size_blocks(&id.path().join(&name)).0,
                size_blocks(&fd.path().join(&name)).0,
                "{engine}: size of {name}"
            );
        }
    }
}

/// Without a size, fio's filecreate makes each file one smallest block
/// (its get_file_size); with unlink=1 the files the file engines worked on
/// are removed at the end.
#[test]
fn file_engines_size_and_unlink_as_fio_does() {
    require!(ioscope_testutil::fio());
    for (engine, extra) in [
        ("filecreate", "--bs=2k"),
        ("filecreate", "--unlink=1"),
        ("filestat", "--unlink=1"),
    ] {
        let (fd, id) = (tempdir(), tempdir());
        let mut opts = vec!["--name=j", "--nrfiles=4", extra];
        let engine_opt = format!("--ioengine={engine}");
        opts.push(&engine_opt);
        if engine == "filestat" {
            opts.push("--filesize=4k");
        }
        let (f, i) = both(fd.path(), id.path(), &opts);
        let (fc, ic) = (counts(&f, "j", "read"), counts(&i, "j", "read"));
        assert_eq!(ic, fc, "{engine} {extra}: (bytes, ios, clat N, lat N)");
        assert_eq!(ic.2, 4, "{engine} {extra}: one sample per file");
        assert_eq!(
            names(id.path()),
            names(fd.path()),
            "{engine} {extra}: files left"
        );
        let left = names(id.path()).len();
        assert_eq!(
            left,
            if extra == "--unlink=1" { 0 } else { 4 },
            "{engine} {extra}"
        );
    }
}

/// dircreate, dirstat and dirdelete (fio 3.36's engines/fileoperations.c):
/// mkdir with mode 0700, stat (stat_type), rmdir, each timed once per
/// directory (clat only, as fio's file engines report); each directory
/// one smallest block unless dirstat finds it larger; dirstat and dirdelete make their directories first; dircreate
/// fails on one that exists; unlink=1 removes them.
#[test]
fn directory_engines_make_stat_and_remove_directories() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let run = |engine: &str, extra: &[&str]| {
        let mut args = vec![
            "--name=d".to_string(),
            format!("--ioengine={engine}"),
            "--nrfiles=3".into(),
            format!("--directory={}", dir.path().display()),
            "--output-format=json".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        ioscope(args).run()
    };
    let modes = || -> Vec<(String, u32)> {
        names(dir.path())
            .into_iter()
            .map(|n| {
                let m = std::fs::metadata(dir.path().join(&n)).unwrap();
                assert!(m.is_dir(), "{n} is not a directory");
                (n, m.permissions().mode() & 0o777)
            })
            .collect()
    };
    let made: Vec<(String, u32)> = (0..3).map(|i| (format!("d.0.{i}"), 0o700)).collect();

    let v = run("dircreate", &["--bs=1k"]).ok_json();
    assert_eq!(
        counts(&v, "d", "read"),
        (3072, 3, 3, 0),
        "dircreate: one 1k block each"
    );
    assert_eq!(modes(), made);
    // The directories exist now: mkdir fails with EEXIST, as fio's open does.
    let again = run("dircreate", &[]);
    assert_eq!(again.status.code(), Some(1), "{}", again.describe());
    assert_eq!(u(job(&again.json(), "d"), "error"), libc::EEXIST as u64);

    for t in ["stat", "lstat", "statx"] {
        let v = run("dirstat", &[&format!("--stat_type={t}")]).ok_json();
        // Each directory is as large as stat says (4 KiB on ext4, where
        // the tests run): one 4k request each.
        let size = std::fs::metadata(dir.path().join("d.0.0")).unwrap().len();
        assert_eq!(
            counts(&v, "d", "read"),
            (3 * size, 3 * size / 4096, 3, 0),
            "dirstat {t}"
        );
    }
    assert_eq!(modes(), made, "dirstat changes nothing");

    let v = run("dirdelete", &[]).ok_json();
    assert_eq!(counts(&v, "d", "read"), (3 * 4096, 3, 3, 0), "dirdelete");
    assert!(
        names(dir.path()).is_empty(),
        "dirdelete left {:?}",
        names(dir.path())
    );

    // dirdelete on nothing: its setup makes the directories it removes.
    run("dirdelete", &[]).ok_json();
    assert!(names(dir.path()).is_empty());
    // dirstat on nothing: made, and kept unless unlink=1.
    run("dirstat", &[]).ok_json();
    assert_eq!(modes(), made);
    run("dirstat", &["--unlink=1"]).ok_json();
    assert!(
        names(dir.path()).is_empty(),
        "unlink=1 left {:?}",
        names(dir.path())
    );
}

/// filestat's stat_type picks the call; each is timed once per file.
#[test]
fn filestat_takes_each_stat_type() {
    let dir = tempdir();
    for t in ["stat", "lstat", "statx"] {
        let v = ioscope([
            "--name=s",
            "--ioengine=filestat",
            "--nrfiles=3",
            "--filesize=4k",
            &format!("--stat_type={t}"),
            &format!("--directory={}", dir.path().display()),
            "--output-format=json",
        ])
        .run()
        .ok_json();
        assert_eq!(counts(&v, "s", "read").2, 3, "stat_type={t}");
    }
    let err = ioscope([
        "--name=s",
        "--ioengine=filestat",
        "--stat_type=fstat",
        "--size=4k",
    ])
    .run()
    .assert_refused()
    .to_string();
    assert!(err.contains("stat_type") && err.contains("statx"), "{err}");
}

/// falloc and ftruncate: the file's size and allocated blocks after each
/// kind of job, and the I/O counts, as fio leaves them.
#[test]
fn falloc_and_ftruncate_leave_the_file_as_fio_does() {
    require!(ioscope_testutil::fio());
    let (fd, id) = (tempdir(), tempdir());
    let jobs: &[(&str, &[&str])] = &[
        ("falloc", &["--rw=write", "--bs=64k", "--size=1m"]),
        ("falloc", &["--rw=trim", "--bs=64k", "--size=1m"]),
        ("falloc", &["--rw=randwrite", "--bs=4k", "--size=256k"]),
        ("ftruncate", &["--rw=write", "--bs=4k", "--size=132k"]),
        ("ftruncate", &["--rw=randwrite", "--bs=4k", "--size=64k"]),
    ];
    for (n, (engine, opts)) in jobs.iter().enumerate() {
        let mut all = vec!["--name=j".to_string(), format!("--ioengine={engine}")];
        all.push(format!("--filename=f{n}"));
        all.extend(opts.iter().map(|s| s.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let (f, i) = both(fd.path(), id.path(), &all);
        for dir in ["write", "trim"] {
            let (fc, ic) = (counts(&f, "j", dir), counts(&i, "j", dir));
            assert_eq!((ic.0, ic.1), (fc.0, fc.1), "{engine} {opts:?}: {dir}");
        }
        let name = format!("f{n}");
        let (fsize, fblocks) = size_blocks(&fd.path().join(&name));
        let (isize, iblocks) = size_blocks(&id.path().join(&name));
        assert_eq!(isize, fsize, "{engine} {opts:?}: size");
        if opts.iter().all(|o| !o.contains("rand")) {
            // Random offsets leave a pattern of holes that differs
            // between two generators; sequential ones must agree.
            assert_eq!(iblocks, fblocks, "{engine} {opts:?}: blocks");
        }
    }
    // A read reserves the blocks without changing the size.
    let path = id.path().join("r");
    let v = ioscope([
        "--name=r",
        "--ioengine=falloc",
        "--rw=read",
        "--bs=64k",
        "--size=256k",
        &format!("--filename={}", path.display()),
        "--output-format=json",
    ])
    .run()
    .ok_json();
    assert_eq!(counts(&v, "r", "read").1, 4);
    assert_eq!(size_blocks(&path), (256 << 10, 512));
}

/// ftruncate reads fail with EINVAL, as fio's; trims are refused up front.
#[test]
fn ftruncate_refuses_what_it_cannot_do() {
    let dir = tempdir();
    let file = format!("--filename={}", dir.path().join("t").display());
    let run = ioscope([
        "--name=t",
        "--ioengine=ftruncate",
        "--rw=read",
        "--size=8k",
        &file,
    ])
    .run();
    let err = run.assert_refused();
    assert!(err.contains("Invalid argument"), "{err}");
    let run = ioscope([
        "--name=t",
        "--ioengine=ftruncate",
        "--rw=trim",
        "--size=8k",
        &file,
    ])
    .run();
    let err = run.assert_refused();
    assert!(err.contains("ftruncate"), "{err}");
}

/// cpuio burns the CPU at cpuload percent: the share of CPU it reports
/// (usr_cpu) is near fio's on the same job, the I/Os (one per burn and
/// think cycle) move no bytes, and each is a latency sample of its burn.
#[test]
fn cpuio_burns_at_the_load_fio_does() {
    require!(ioscope_testutil::fio());
    let opts = [
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=20000",
        "--time_based",
        "--runtime=2",
    ];
    let (fd, id) = (tempdir(), tempdir());
    let (f, i) = both(fd.path(), id.path(), &opts);
    let (fj, ij) = (job(&f, "burn"), job(&i, "burn"));
    let (fcpu, icpu) = (common::f(fj, "usr_cpu"), common::f(ij, "usr_cpu"));
    // Both spin on the wall clock, so a busy machine lowers both alike.
    assert!(icpu <= 60.0, "usr_cpu {icpu} above the 50% asked");
    assert!(
        (icpu - fcpu).abs() <= 15.0,
        "usr_cpu {icpu} vs fio's {fcpu}"
    );
    let (fc, ic) = (counts(&f, "burn", "read"), counts(&i, "burn", "read"));
    assert_eq!(ic.0, 0, "no bytes");
    assert_eq!((ic.2, ic.3), (ic.1, ic.1), "a sample per I/O");
    // A 40 ms cycle: about 50 in 2 s.
    let (fios, iios) = (fc.1 as f64, ic.1 as f64);
    assert!(
        (iios - fios).abs() <= fios * 0.25 + 2.0,
        "ios {iios} vs fio's {fios}"
    );
    assert_eq!(u(&ij["read"], "runtime"), 0, "no bytes, no runtime (fio's)");

    // qsort mode burns too (how much CPU it gets depends on the machine);
    // without cpuload there is nothing to burn.
    let v = ioscope([
        "--name=q",
        "--ioengine=cpuio",
        "--cpuload=100",
        "--cpumode=qsort",
        "--runtime=1",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    let q = counts(&v, "q", "read");
    assert!(q.1 > 0 && q.2 == q.1, "{v}");
    let err = ioscope(["--name=q", "--ioengine=cpuio", "--runtime=1"])
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("cpuload"), "{err}");
}

/// cpuio's exit_on_io_done (refused as "not supported yet" until this
/// test): a burn job set to run 30 s ends once the run's I/O job (about
/// 1 s, rate-limited) is done, as in fio; a later phase's I/O job counts
/// as still to come, so a burn alone in its phase runs its course.
#[test]
fn cpuio_exit_on_io_done_ends_with_the_io_jobs_as_fio() {
    require!(ioscope_testutil::fio());
    let opts = [
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=20",
        "--cpuchunks=10000",
        "--exit_on_io_done=1",
        "--time_based",
        "--runtime=30",
        "--name=io",
        "--ioengine=psync",
        "--filename=f",
        "--size=4m",
        "--rw=write",
        "--rate=4m",
    ];
    let (fd, id) = (tempdir(), tempdir());
    let (f, i) = both(fd.path(), id.path(), &opts);
    for (tool, v) in [("fio", &f), ("ioscope", &i)] {
        let burn = u(job(v, "burn"), "job_runtime");
        assert!((900..5000).contains(&burn), "{tool}: burn ran {burn} ms");
        assert_eq!(u(job(v, "burn"), "error"), 0, "{tool}");
    }
    // The I/O job in a later phase: the burn runs its 1 s.
    let v = ioscope([
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=20",
        "--exit_on_io_done=1",
        "--time_based",
        "--runtime=1",
        "--name=io",
        "--stonewall",
        "--ioengine=null",
        "--size=1m",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    assert!(u(job(&v, "burn"), "job_runtime") >= 990, "{v}");
}

/// exec runs its program with %n and %r replaced, output to NAME.stdout
/// in the working directory, and counts a check every 100 ms, as fio.
#[test]
fn exec_runs_the_program_as_fio_does() {
    require!(ioscope_testutil::fio());
    let opts = [
        "--name=mon",
        "--ioengine=exec",
        "--program=/bin/echo",
        "--arguments=%n  %r",
        "--runtime=1",
        "--grace_time=0",
    ];
    let (fd, id) = (tempdir(), tempdir());
    let (f, i) = both(fd.path(), id.path(), &opts);
    let out = |d: &Path| std::fs::read_to_string(d.join("mon.stdout")).unwrap();
    assert_eq!(out(id.path()), out(fd.path()));
    // Split at spaces, as fio splits, so the two spaces are one.
    assert_eq!(out(id.path()), "mon 1\n");
    assert!(id.path().join("mon.stderr").exists());
    let (fc, ic) = (counts(&f, "mon", "read"), counts(&i, "mon", "read"));
    assert_eq!(ic.0, 0, "no bytes");
    assert!(
        ic.1.abs_diff(fc.1) <= 3,
        "checks {} vs fio's {}",
        ic.1,
        fc.1
    );

    let err = ioscope(["--name=e", "--ioengine=exec", "--runtime=1"])
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("program="), "{err}");
}

/// Whether `dir` is on ext4, the one file system with EXT4_IOC_MOVE_EXT.
fn ext4(dir: &Path) -> Result<(), Missing> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
    // SAFETY: `st` is a local of the right type; `path` is NUL-terminated.
    let mut st = unsafe { std::mem::zeroed::<libc::statfs>() };
    let r = unsafe { libc::statfs(path.as_ptr(), &mut st) };
    if r == 0 && st.f_type == 0xEF53 {
        Ok(())
    } else {
        Err(Missing::soft(
            "the test directory is not on ext4, which alone has EXT4_IOC_MOVE_EXT",
        ))
    }
}

/// e4defrag moves each write's blocks in from the donor: the file and the
/// donor end as fio leaves them, preallocated (inplace=0) or emptied after
/// each move (inplace=1).
#[test]
fn e4defrag_matches_fio() {
    require!(ioscope_testutil::fio());
    let (fd, id) = (tempdir(), tempdir());
    require!(ext4(id.path()));
    for (inplace, bs, rw) in [("0", "32k", "write"), ("1", "4k", "randwrite")] {
        let opts = [
            "--name=e4",
            "--ioengine=e4defrag",
            "--filename=file1",
            "--donorname=file.def",
            "--filesize=1m",
            "--size=1m",
            &format!("--bs={bs}"),
            &format!("--rw={rw}"),
            &format!("--inplace={inplace}"),
        ];
        let (f, i) = both(fd.path(), id.path(), &opts);
        let (fc, ic) = (counts(&f, "e4", "write"), counts(&i, "e4", "write"));
        assert_eq!((ic.0, ic.1), (fc.0, fc.1), "inplace={inplace}");
        for name in ["file1", "file.def"] {
            assert_eq!(
                size_blocks(&id.path().join(name)),
                size_blocks(&fd.path().join(name)),
                "inplace={inplace}: {name}"
            );
        }
    }
    let err = ioscope(["--name=e", "--ioengine=e4defrag", "--size=1m", "--rw=write"])
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("donorname="), "{err}");
}

/// The engines ioscope will not have say what they need; so do their
/// options.
#[test]
fn engines_needing_what_ioscope_lacks_say_what() {
    let cases = [
        ("rbd", "needs librbd (Ceph), which ioscope does not link"),
        ("rados", "needs librados (Ceph)"),
        ("nbd", "needs libnbd"),
        ("gfapi", "needs libgfapi (GlusterFS)"),
        ("libhdfs", "needs libhdfs"),
        ("libiscsi", "needs libiscsi"),
        ("dev-dax", "needs libpmem"),
        ("pmemblk", "needs libpmemblk"),
        ("libpmem", "needs libpmem (PMDK)"),
        ("mtd", "needs libmtd"),
        ("ime_psync", "IME"),
        ("http", "needs libcurl"),
        ("rdma", "needs librdmacm"),
        ("libcufile", "cuFile"),
        ("windowsaio", "needs Windows"),
        ("sg", "needs a SCSI generic device (/dev/sgN)"),
        ("cpp_null", "does not load C engines"),
        ("external:/usr/lib/fio/engine.so", "does not load C engines"),
    ];
    for (engine, why) in cases {
        let err = ioscope([
            "--parse-only",
            "--name=j",
            &format!("--ioengine={engine}"),
            "--size=1m",
        ])
        .run()
        .assert_refused()
        .to_string();
        assert!(
            err.contains(&format!("ioengine={engine} ")) && err.contains(why),
            "{engine}: {err}"
        );
    }
    let err = ioscope(["--parse-only", "--name=j", "--rbdname=x", "--size=1m"])
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("ioengine=rbd needs librbd (Ceph)"), "{err}");
    let err = ioscope([
        "--parse-only",
        "--name=j",
        "--sg_write_mode=verify",
        "--size=1m",
    ])
    .run()
    .assert_refused()
    .to_string();
    assert!(err.contains("SCSI generic device"), "{err}");
}

/// The examples run, shortened: filestat's and filedelete's as written
/// but for the directory, cpuio's and exec's with a 1 s runtime.
#[test]
fn fio_examples_run() {
    // Parsing every example is tests/fio_examples.rs's; this checks what
    // these engines' examples did.
    let data = require!(common::fio_source()).join("examples");
    let dir = tempdir();
    for name in ["filestat-ioengine.fio", "filedelete-ioengine.fio"] {
        let text = std::fs::read_to_string(data.join(name)).unwrap();
        let text = text.replacen(
            "[global]",
            &format!("[global]\ndirectory={}", dir.path().display()),
            1,
        );
        let path = common::write_file(dir.path(), name, &text);
        let v = ioscope([path.to_str().unwrap(), "--output-format=json"])
            .run()
            .ok_json();
        for t in 0..6 {
            assert_eq!(counts(&v, &format!("t{t}"), "read").2, 200, "{name} t{t}");
        }
    }
    let text = std::fs::read_to_string(data.join("cpuio.fio"))
        .unwrap()
        .replace("runtime=15", "runtime=1");
    let path = common::write_file(dir.path(), "cpuio.fio", &text);
    let v = ioscope([path.to_str().unwrap(), "--output-format=json"])
        .run()
        .ok_json();
    assert!(u(&job(&v, "burn_2x50%_qsort")["read"], "total_ios") > 0);
}
