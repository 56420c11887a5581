//! File handling end to end, against fio 3.33 on the same jobs: the files
//! made (names from filename_format and opendir, sizes and allocated
//! blocks for each fallocate mode, overwrite, file_append), the order I/O
//! goes to them (write_iolog with file_service_type and openfiles), the
//! syncs counted in the JSON (fsync, fdatasync), and fill_device writing a
//! small filesystem full without an error.

mod common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{extract_json, fio, io_order, ioscope, tempdir, u, Mounted};
use ioscope_testutil::{fio as fio_installed, program, require};
use serde_json::Value;

/// Runs `args` with fio and then ioscope in `dir`, each after `reset`,
/// and gives each one's JSON with what `look` saw after it.
fn both<T>(dir: &Path, args: &[&str], reset: impl Fn(), look: impl Fn() -> T) -> [(Value, T); 2] {
    let mut out = Vec::new();
    for tool in [fio, ioscope] {
        reset();
        let run = tool(args.iter().copied().chain(["--output-format=json"]))
            .dir(dir)
            .run();
        assert!(run.status.success(), "{}", run.describe());
        // fio says "opendir added N files" on stdout before its JSON.
        let json = extract_json(&run.stdout).map_or_else(|| run.json(), |(v, _)| v);
        out.push((json, look()));
    }
    let ios = out.pop().unwrap();
    [out.pop().unwrap(), ios]
}

fn remove_files(dir: &Path, prefix: &str) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with(prefix) {
            fs::remove_file(&p).unwrap();
        }
    }
}

/// Names, sizes and allocated 512-byte blocks of the files starting with
/// `prefix`, sorted by name.
fn files(dir: &Path, prefix: &str) -> Vec<(String, u64, u64)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| {
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.blocks(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn fallocate_modes_reserve_as_fio_does() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    // create_only: the layout alone, without the job's writes.
    for mode in ["none", "native", "posix", "keep", "truncate", "0", "1"] {
        let fallocate = format!("--fallocate={mode}");
        let args = [
            "--name=fa",
            "--filename=fa.dat",
            "--size=1m",
            "--rw=write",
            "--create_only=1",
            &fallocate,
        ];
        let [(_, f), (_, i)] = both(d, &args, || remove_files(d, "fa"), || files(d, "fa"));
        assert_eq!(f, i, "fallocate={mode}: fio's file, then ioscope's");
    }
    // overwrite=1 writes the whole file out even without fallocate.
    let args = [
        "--name=ow",
        "--filename=ow.dat",
        "--size=256k",
        "--rw=write",
        "--create_only=1",
        "--fallocate=none",
        "--overwrite=1",
    ];
    let [(_, f), (_, i)] = both(d, &args, || remove_files(d, "ow"), || files(d, "ow"));
    assert_eq!(f, i);
    assert!(f[0].2 >= 512, "overwrite=1 allocates the file: {f:?}");
}

#[test]
fn file_append_writes_past_the_end() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let args = [
        "--name=ap",
        "--filename=ap.dat",
        "--size=32k",
        "--bs=4k",
        "--rw=write",
        "--file_append=1",
    ];
    let reset = || fs::write(d.join("ap.dat"), vec![7u8; 64 << 10]).unwrap();
    let [(fj, f), (ij, i)] = both(d, &args, reset, || files(d, "ap"));
    assert_eq!(f, i);
    assert_eq!(f[0].1, 96 << 10, "64 KiB kept, 32 KiB appended");
    assert_eq!(
        u(&fj["jobs"][0]["write"], "io_bytes"),
        u(&ij["jobs"][0]["write"], "io_bytes")
    );
    // The old contents are untouched.
    let data = fs::read(d.join("ap.dat")).unwrap();
    assert!(data[..64 << 10].iter().all(|&b| b == 7));
}

#[test]
fn allow_file_create_0_refuses_a_missing_file() {
    let dir = tempdir();
    let run = ioscope([
        "--name=nc",
        "--filename=missing.dat",
        "--size=64k",
        "--rw=write",
        "--allow_file_create=0",
    ])
    .dir(dir.path())
    .run();
    let err = run.assert_refused();
    assert!(err.contains("allow_file_create=0"), "{err}");
    assert!(!dir.path().join("missing.dat").exists());
}

#[test]
fn generated_and_found_names_match_fio() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let args = [
        "--name=fmt",
        "--filename_format=nm-$jobname-$FILENUM.$jobnum",
        "--nrfiles=2",
        "--numjobs=2",
        "--size=32k",
        "--rw=write",
        "--unique_filename=0",
    ];
    let [(_, f), (_, i)] = both(d, &args, || remove_files(d, "nm-"), || files(d, "nm-"));
    assert_eq!(f, i);
    assert_eq!(f.len(), 4, "{f:?}");
    assert_eq!(f[0].0, "nm-fmt-0.0");

    // opendir: every regular file below, read in the same order.
    let tree = d.join("tree");
    fs::create_dir_all(tree.join("sub")).unwrap();
    for (name, len) in [("a", 16), ("b", 8), ("sub/c", 24)] {
        fs::write(tree.join(name), vec![1u8; len << 10]).unwrap();
    }
    let args = [
        "--name=od",
        "--opendir=tree",
        "--rw=read",
        "--bs=4k",
        "--write_iolog=od.log",
    ];
    let [(fj, f), (ij, i)] = both(
        d,
        &args,
        || remove_files(d, "od.log"),
        || io_order(&d.join("od.log")),
    );
    assert_eq!(f, i);
    assert_eq!(
        u(&fj["jobs"][0]["read"], "io_bytes"),
        u(&ij["jobs"][0]["read"], "io_bytes")
    );
    assert_eq!(u(&ij["jobs"][0]["read"], "io_bytes"), 48 << 10);
}

#[test]
fn file_service_type_and_openfiles_order_io_as_fio() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let cases: &[&[&str]] = &[
        &["--rw=randread", "--file_service_type=roundrobin"],
        &[
            "--rw=read",
            "--file_service_type=roundrobin:3",
            "--openfiles=2",
        ],
        &["--rw=randread", "--file_service_type=sequential"],
        &[
            "--rw=randrw",
            "--file_service_type=random",
            "--openfiles=2",
            "--loops=2",
        ],
        &["--rw=write", "--file_service_type=random:2"],
        &["--rw=read", "--openfiles=1"],
    ];
    for case in cases {
        let mut args = vec![
            "--name=fs",
            "--nrfiles=5",
            "--size=100k",
            "--bs=4k",
            "--write_iolog=fs.log",
        ];
        args.extend_from_slice(case);
        let [(_, f), (_, i)] = both(
            d,
            &args,
            || remove_files(d, "fs.log"),
            || io_order(&d.join("fs.log")),
        );
        assert_eq!(
            f.len(),
            25 * if case.contains(&"--loops=2") { 2 } else { 1 },
            "{case:?}"
        );
        assert_eq!(f, i, "{case:?}: fio's order, then ioscope's");
    }
}

/// The lines strace writes for `syscall` in a run of `tool` with `args`
/// in `dir`.
fn traced_calls(dir: &Path, tool: &str, args: &[&str], syscall: &str) -> Vec<String> {
    let trace = dir.join(format!("{tool}.{syscall}"));
    let bin = match tool {
        "fio" => "fio".into(),
        _ => common::bin(),
    };
    let status = Command::new("strace")
        .args(["-f", "-e", &format!("trace={syscall}"), "-o"])
        .arg(&trace)
        .arg(bin)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{tool} {args:?}");
    let call = format!("{syscall}(");
    fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains(&call))
        .map(str::to_string)
        .collect()
}

/// The fsync(2) calls of a run: every sync of the file that bypasses the
/// engine.
fn fsync_calls(dir: &Path, tool: &str, args: &[&str]) -> usize {
    traced_calls(dir, tool, args, "fsync").len()
}

/// The posix_fadvise calls of a run that are fadvise_hint's (invalidate's
/// DONTNEED left out), the pid and the descriptor left out.
fn advice_calls(dir: &Path, tool: &str, args: &[&str]) -> Vec<String> {
    traced_calls(dir, tool, args, "fadvise64")
        .into_iter()
        .filter(|l| !l.contains("DONTNEED"))
        .map(|l| {
            l.split_once(", ")
                .map_or(l.as_str(), |(_, rest)| rest)
                .to_string()
        })
        .collect()
}

/// fadvise_hint advises what fio advises, over the job's region of each
/// file: the workload's pattern by default, random or sequential as
/// named, nothing with 0. noreuse (fio 3.42) gives FADV_NOREUSE; fio 3.42
/// makes the same call on the same job ("65536, 1048576,
/// POSIX_FADV_NOREUSE"), which Debian's fio 3.33 cannot.
#[test]
fn fadvise_hint_advises_what_fio_advises() {
    require!(fio_installed());
    require!(program("strace"));
    let dir = tempdir();
    let d = dir.path();
    let cases: &[&[&str]] = &[
        &["--rw=randread"],
        &["--rw=read", "--offset=64k"],
        &[
            "--rw=randread",
            "--fadvise_hint=sequential",
            "--filesize=2m",
        ],
        &["--rw=read", "--fadvise_hint=random"],
        &["--rw=randread", "--fadvise_hint=0"],
    ];
    for case in cases {
        let mut args = vec!["--name=x", "--filename=fa", "--bs=4k", "--size=1m"];
        args.extend_from_slice(case);
        let [fios, ours] = ["fio", "ioscope"].map(|tool| advice_calls(d, tool, &args));
        assert_eq!(fios, ours, "{case:?}: fio's, then ioscope's");
        let advised = !case.contains(&"--fadvise_hint=0");
        assert_eq!(ours.len(), usize::from(advised), "{case:?}: {ours:?}");
    }
    let args = [
        "--name=x",
        "--filename=fa",
        "--bs=4k",
        "--size=1m",
        "--offset=64k",
        "--rw=read",
        "--fadvise_hint=noreuse",
    ];
    assert_eq!(
        advice_calls(d, "ioscope", &args),
        ["65536, 1048576, POSIX_FADV_NOREUSE) = 0"]
    );
}

/// fsync_on_close syncs a file as fio's `put_file` closes it: when the
/// workload finds it done, when a pass or a verify phase follows (fio's
/// `clear_io_state` closes the files still open), after a verify phase's
/// reads; besides the pass's end sync, which on io_uring goes through the
/// ring. The fsync(2) calls are fio's, counted under strace.
#[test]
fn fsync_on_close_syncs_files_as_fio_closes_them() {
    require!(fio_installed());
    require!(program("strace"));
    let dir = tempdir();
    let d = dir.path();
    let one = "--filename=foc";
    let cases: &[(&[&str], usize)] = &[
        (&[one, "--loops=3"], 5),
        (
            &["--loops=2", "--nrfiles=2", "--filename_format=foc.$filenum"],
            6,
        ),
        (&[one, "--loops=2", "--ioengine=io_uring", "--iodepth=4"], 1),
        (&[one, "--loops=2", "--verify=crc32c"], 6),
        (&[one, "--loops=2", "--fsync=4"], 9),
        (&[one, "--loops=2", "--rw=randwrite"], 3),
    ];
    for &(case, fios) in cases {
        let mut args = vec![
            "--name=x",
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            "--fsync_on_close=1",
        ];
        args.extend_from_slice(case);
        let counts = ["fio", "ioscope"].map(|tool| {
            remove_files(d, "foc");
            fsync_calls(d, tool, &args)
        });
        assert_eq!(counts, [fios, fios], "{case:?}: fio's, then ioscope's");
    }
}

#[test]
fn fsync_and_fdatasync_counts_match_fio() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let cases: &[&[&str]] = &[
        &["--rw=write", "--fsync=4"],
        &["--rw=write", "--fdatasync=2"],
        &["--rw=write", "--fsync=4", "--fdatasync=2"],
        &["--rw=randrw", "--fsync=3", "--fdatasync=5"],
        &[
            "--rw=write",
            "--fdatasync=3",
            "--ioengine=libaio",
            "--iodepth=1",
        ],
        &[
            "--rw=write",
            "--fdatasync=3",
            "--ioengine=io_uring",
            "--iodepth=1",
        ],
        &["--rw=write", "--sync=dsync", "--fsync_on_close=1"],
        &["--rw=write", "--sync=1", "--end_fsync=1"],
    ];
    for case in cases {
        let mut args = vec!["--name=sy", "--filename=sy.dat", "--size=64k", "--bs=4k"];
        args.extend_from_slice(case);
        let [(f, _), (i, _)] = both(d, &args, || remove_files(d, "sy"), || ());
        let counts = |v: &Value| {
            let j = &v["jobs"][0];
            (
                u(&j["sync"], "total_ios"),
                u(&j["sync"]["lat_ns"], "N"),
                u(&j["read"], "total_ios"),
                u(&j["write"], "total_ios"),
            )
        };
        assert_eq!(counts(&f), counts(&i), "{case:?}: fio's, then ioscope's");
    }
    // end_syncfs is a newer fio's option (3.33 lacks it): it syncs the
    // filesystem at the end, outside the job's counted syncs.
    let run = ioscope([
        "--name=sy",
        "--filename=sy.dat",
        "--size=64k",
        "--rw=write",
        "--fsync=8",
        "--end_syncfs=1",
        "--output-format=json",
    ])
    .dir(d)
    .run();
    let j = &run.ok_json()["jobs"][0];
    assert_eq!(u(&j["sync"], "total_ios"), 1);
}

/// A tmpfs of 8 MiB mounted on a fresh directory.
fn small_fs() -> Result<Mounted, ioscope_testutil::Missing> {
    program("mount")?;
    let dir = tempdir();
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run mount: {e}"));
    assert!(
        out.status.success(),
        "mount -t tmpfs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(Mounted { dir })
}

#[test]
fn fill_device_writes_until_the_filesystem_is_full() {
    require!(fio_installed());
    let fs_ = require!(small_fs());
    let d = fs_.dir.path();
    let args = [
        "--name=fill",
        "--filename=fill.dat",
        "--bs=64k",
        "--rw=write",
        "--fill_device=1",
    ];
    let [(f, ff), (i, fi)] = both(d, &args, || remove_files(d, "fill"), || files(d, "fill"));
    assert_eq!(ff, fi);
    assert_eq!(ff[0].1, 8 << 20, "the file takes the whole filesystem");
    let job = |v: &Value| {
        (
            u(&v["jobs"][0], "error"),
            u(&v["jobs"][0]["write"], "io_bytes"),
        )
    };
    assert_eq!(job(&f), job(&i));
    assert_eq!(job(&i), (0, 8 << 20));

    // A random fill is refused before anything runs.
    let run = ioscope([
        "--name=r",
        "--filename=r.dat",
        "--rw=randwrite",
        "--fill_device=1",
    ])
    .dir(d)
    .run();
    assert!(run
        .assert_refused()
        .contains("fill_device=1 needs rw=write"));
}
