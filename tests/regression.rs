//! Regressions of the issue "Trust": what ioscope once reported as a
//! success although it did not happen, or refused although fio takes it.
//! Each test runs the built binary; the comment above it says what went
//! wrong before.

mod common;

use std::path::Path;

use common::{ioscope, job, tempdir, u, write_file};

/// `--parse-only` on a job given on the command line.
fn parse_only(args: &[&str]) -> common::Run {
    ioscope(["--parse-only"]).args(args).run()
}

// Before: offset=2^64-4096 wrapped around and a randwrite landed in the
// first 16 MiB of the target with exit 0.
#[test]
fn offsets_past_the_largest_file_offset_are_refused() {
    let dir = tempdir();
    let target = dir.path().join("target");
    for offset in ["18446744073709547520", "9223372036854771712"] {
        let run = ioscope([
            "--name=x",
            "--rw=randwrite",
            "--size=16m",
            &format!("--offset={offset}"),
            &format!("--filename={}", target.display()),
        ])
        .run();
        let err = run.assert_refused();
        assert!(
            err.contains("offset=") && err.contains("too large"),
            "{err}"
        );
        assert!(!target.exists(), "nothing may be written: {err}");
    }
    // The last clone's region: offset + 2 * offset_increment + size.
    let err = parse_only(&[
        "--name=x",
        "--size=1g",
        "--numjobs=3",
        "--offset_increment=4611686018427387903",
        "--filename=/dev/null",
    ])
    .assert_refused()
    .to_string();
    assert!(
        err.contains("offset_increment=4611686018427387903") && err.contains("too large"),
        "{err}"
    );
}

// Before: size=18446744073709551615 said "out of range integral type
// conversion attempted" (and with ioengine=null aborted on a huge random map).
#[test]
fn huge_numbers_are_too_large() {
    for option in [
        "--size=18446744073709551615",
        "--size=99999999999999999999",
        "--size=16777216t",
        "--io_size=0xffffffffffffffff",
        "--offset_increment=9223372036854775808",
        "--bs=16777216t",
    ] {
        let err = parse_only(&["--name=x", "--filename=/dev/null", "--size=1m", option])
            .assert_refused()
            .to_string();
        let name = option.trim_start_matches("--").split('=').next().unwrap();
        assert!(
            err.contains(&format!("{name}=")) && err.contains("too large"),
            "{option}: {err}"
        );
    }
}

// Before: an unset ${VAR} became an empty string, so filename=${VAR}/x
// wrote /x (fio does the same) and filename=${VAR} wrote ./a.0.0.
#[test]
fn unset_variables_in_file_names_are_refused() {
    let dir = tempdir();
    for value in [
        "${IOSCOPE_REGRESSION_UNSET}",
        "${IOSCOPE_REGRESSION_UNSET}/x",
    ] {
        let jobfile = write_file(
            dir.path(),
            "unset.fio",
            &format!("[a]\nrw=write\nsize=1m\nfilename={value}\n"),
        );
        let err = ioscope([jobfile.as_os_str()])
            .dir(dir.path())
            .run()
            .assert_refused()
            .to_string();
        assert!(
            err.contains("unset.fio:4: filename")
                && err.contains("IOSCOPE_REGRESSION_UNSET is not set"),
            "{err}"
        );
        assert!(!dir.path().join("a.0.0").exists());
    }
    let jobfile = write_file(
        dir.path(),
        "dir.fio",
        "[a]\nrw=write\nsize=1m\ndirectory=${IOSCOPE_REGRESSION_UNSET}\n",
    );
    let err = ioscope([jobfile.as_os_str()])
        .dir(dir.path())
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("dir.fio:4: directory"), "{err}");
}

// Before: `include /dev/zero` read until memory ran out, and a FIFO hung.
#[test]
fn includes_that_are_not_job_files_are_refused() {
    let dir = tempdir();
    let fifo = dir.path().join("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("running mkfifo");
    assert!(status.success());
    let big = dir.path().join("big.inc");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(17 << 20))
        .expect("making a 17 MiB file");
    for (target, why) in [
        ("/dev/zero", "character device"),
        ("/", "directory"),
        ("fifo", "FIFO"),
        ("big.inc", "larger than 16 MiB"),
    ] {
        let jobfile = write_file(
            dir.path(),
            "inc.fio",
            &format!("[a]\nioengine=null\nsize=1m\ninclude {target}\n"),
        );
        let err = ioscope(["--parse-only".as_ref(), jobfile.as_os_str()])
            .run()
            .assert_refused()
            .to_string();
        assert!(
            err.contains("inc.fio:4: include") && err.contains(why),
            "{target}: {err}"
        );
    }
    // The job file itself has the same limit.
    let err = ioscope(["--parse-only".as_ref(), big.as_os_str()])
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("larger than 16 MiB"), "{err}");
}

// Before: a job file with a Latin-1 comment was refused as not UTF-8; fio
// runs it.
#[test]
fn non_utf8_comments_are_read_as_fio_reads_them() {
    let dir = tempdir();
    let jobfile = dir.path().join("latin1.fio");
    std::fs::write(
        &jobfile,
        b"; caf\xe9\n[a]\nioengine=null ; d\xe9j\xe0\nsize=1m\n",
    )
    .unwrap();
    let v = ioscope(["--output-format=json".as_ref(), jobfile.as_os_str()])
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "a")["read"], "io_bytes"), 1 << 20);
    // Where the bytes are option text, the error names file and line.
    std::fs::write(&jobfile, b"[a]\nioengine=null\nfilename=caf\xe9\n").unwrap();
    let err = ioscope(["--parse-only".as_ref(), jobfile.as_os_str()])
        .run()
        .assert_refused()
        .to_string();
    assert!(
        err.contains("latin1.fio:3: ") && err.contains("not UTF-8"),
        "{err}"
    );
}

/// Runs a null job with `extra` and returns its JSON job object.
fn null_job(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--output-format=json",
        "--name=x",
        "--ioengine=null",
        "--rw=read",
        "--size=4m",
    ];
    args.extend_from_slice(extra);
    let v = ioscope(args).run().ok_json();
    job(&v, "x").clone()
}

// Before: time_based=2 and bs=4ki / size=1Gi were refused; fio 3.33 takes
// them (any number turns a flag on; `Ki` is read as `k`).
#[test]
fn booleans_and_units_follow_fio() {
    let j = null_job(&["--bs=4ki"]);
    assert_eq!(u(&j["read"], "total_ios"), 1024, "fio: 4ki is 4096");
    let j = null_job(&["--bs=4KiB"]);
    assert_eq!(u(&j["read"], "total_ios"), 1048, "fio: 4KiB is 4000");
    parse_only(&["--name=x", "--ioengine=null", "--size=1Gi"]).assert_ok();
    parse_only(&[
        "--name=x",
        "--ioengine=null",
        "--time_based=2",
        "--runtime=1",
    ])
    .assert_ok();
    // fio refuses these as well.
    for value in ["yes", "no", "on", "off", "true", "false", "2"] {
        let err = parse_only(&["--name=x", "--ioengine=null", &format!("--direct={value}")])
            .assert_refused()
            .to_string();
        assert!(err.contains(&format!("direct={value}")), "{err}");
    }
}

// Before: filename=- (fio: standard input or output) opened a file named "-".
#[test]
fn filename_dash_is_refused() {
    let dir = tempdir();
    let err = ioscope(["--name=x", "--rw=write", "--size=1m", "--filename=-"])
        .dir(dir.path())
        .run()
        .assert_refused()
        .to_string();
    assert!(
        err.contains("filename=-") && err.contains("standard"),
        "{err}"
    );
    assert!(!Path::new(&dir.path().join("-")).exists());
}

// Before: `program` said "unknown option" whatever its place next to
// ioengine=exec, and an engine option before --ioengine was refused.
#[test]
fn engine_options_are_known_by_their_engine_in_any_order() {
    let dir = tempdir();
    for text in [
        "[a]\nprogram=/bin/true\nioengine=exec\n",
        "[a]\nioengine=exec\nprogram=/bin/true\n",
    ] {
        let jobfile = write_file(dir.path(), "exec.fio", text);
        let err = ioscope(["--parse-only".as_ref(), jobfile.as_os_str()])
            .run()
            .assert_refused()
            .to_string();
        assert!(
            err.contains("exec") && !err.contains("unknown option"),
            "{err}"
        );
    }
    parse_only(&[
        "--name=x",
        "--sqthread_poll=1",
        "--ioengine=io_uring",
        "--filename=/dev/null",
    ])
    .assert_ok();
    let jobfile = write_file(
        dir.path(),
        "global.fio",
        "[global]\nsqthread_poll=1\n[a]\nioengine=io_uring\nfilename=/dev/null\n",
    );
    ioscope(["--parse-only".as_ref(), jobfile.as_os_str()])
        .run()
        .assert_ok();
}

// Before: mem_align suggested iomem_align and pool suggested port, both
// refused by ioscope.
#[test]
fn suggestions_name_only_options_ioscope_takes() {
    for (typo, refused) in [("mem_align", "iomem_align"), ("pool", "'port'")] {
        let err = parse_only(&["--name=x", &format!("--{typo}=1")])
            .assert_refused()
            .to_string();
        assert!(!err.contains(refused), "{typo}: {err}");
    }
}

/// A 1 MiB file written 4 KiB at a time with verify=crc32c by a job named
/// `w`; returns its path.
fn verified_file(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("verified");
    ioscope([
        "--name=w",
        &format!("--filename={}", f.display()),
        "--size=1m",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--verify_state_save=0",
    ])
    .run()
    .assert_ok();
    f
}

// Before: `rw=read --verify=crc32c --verify_only=1` read 0 bytes, printed
// an empty report and exited 0 on a file with a flipped byte.
#[test]
fn verify_only_read_jobs_read_and_check() {
    use std::os::unix::fs::FileExt;
    let dir = tempdir();
    let f = verified_file(dir.path());
    let args = [
        "--name=v".to_string(),
        format!("--filename={}", f.display()),
        "--bs=4k".into(),
        "--size=1m".into(),
        "--rw=read".into(),
        "--verify=crc32c".into(),
        "--verify_only=1".into(),
        "--output-format=json".into(),
    ];
    let v = ioscope(&args).run().ok_json();
    assert_eq!(u(&job(&v, "v")["read"], "io_bytes"), 1 << 20);
    assert_eq!(u(job(&v, "v"), "verify_checked"), 256);
    let file = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
    file.write_all_at(&[0xff], 5000).unwrap();
    let r = ioscope(&args).run();
    assert!(
        r.assert_refused().contains("bit flip at offset 5000"),
        "{}",
        r.describe()
    );
}

// Before: `rw=read --verify=crc32c` was refused with advice (verify_only)
// that led to the silent case above; fio checks every block it reads.
#[test]
fn read_jobs_with_verify_check_what_they_read() {
    let dir = tempdir();
    let f = verified_file(dir.path());
    let v = ioscope([
        "--name=check",
        &format!("--filename={}", f.display()),
        "--bs=16k",
        "--size=1m",
        "--rw=randread",
        "--verify=crc32c",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    assert_eq!(u(job(&v, "check"), "verify_checked"), 64);
}

// Before: a verify that checked no block (here: a saved state saying the
// writing run made no writes) passed with exit 0.
#[test]
fn a_verify_that_checked_nothing_fails() {
    let dir = tempdir();
    let f = verified_file(dir.path());
    std::fs::write(
        dir.path().join("local-w-0-verify.state"),
        "ioscope verify state 1\njob=w\nwrites=0\n",
    )
    .unwrap();
    let r = ioscope([
        "--name=w",
        &format!("--filename={}", f.display()),
        "--bs=4k",
        "--size=1m",
        "--rw=write",
        "--verify=crc32c",
        "--verify_only=1",
        "--verify_state_load=1",
    ])
    .dir(dir.path())
    .run();
    let err = r.assert_refused();
    assert!(err.contains("verify checked no block"), "{}", r.describe());
}

// Before: a file that shrank under a read job gave millions of zero-byte
// "reads", counted as IOPS, and exit 0.
#[test]
fn reads_past_a_shrunk_file_are_errors() {
    let dir = tempdir();
    let f = dir.path().join("shrinks");
    std::fs::write(&f, vec![1u8; 1 << 20]).unwrap();
    let child = std::process::Command::new(common::bin())
        .args([
            "--name=s",
            &format!("--filename={}", f.display()),
            "--size=1m",
            "--bs=4k",
            "--rw=read",
            "--time_based=1",
            "--runtime=20",
            "--output-format=json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once it reads (its read count moves), cut the file away under it.
    let io = format!("/proc/{}/io", child.id());
    let rchar = || {
        std::fs::read_to_string(&io)
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("rchar: ")?.parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let start = std::time::Instant::now();
    while rchar() < 4 << 20 && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::File::create(&f).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("short read") && stderr.contains("Input/output error"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = &job(&v, "s")["read"];
    assert_eq!(u(read, "short_ios"), 0, "no empty read is counted");
    assert_eq!(
        u(read, "io_bytes") % 4096,
        0,
        "only whole reads are counted"
    );
    assert_eq!(u(job(&v, "s"), "error"), 5);
}
