//! Regressions: what ioscope once reported as a success although it did
//! not happen (a run that did not do what was asked must never look like
//! success), refused although fio takes it, or refused too late or in the
//! wrong words.
//! Each test runs the built binary; the comment above it says what went
//! wrong before.

mod common;

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, ioscope, job, tempdir, u, write_file, Mounted};
use ioscope_testutil::{require, root};

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
        "--size=1m",
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
// refused by ioscope then (both are taken now, so the typos here are of
// options still refused; merge_blktrace_iters, block_error_percentiles and
// apptag_mask, once among them, are taken too).
#[test]
fn suggestions_name_only_options_ioscope_takes() {
    for (typo, refused) in [
        // Not the start of the name: that stands for the option itself.
        ("plid_selct", "'plid_select'"),
        ("fdp_pli_selct", "'fdp_pli_select'"),
    ] {
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
    let child = Command::new(bin())
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
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once it reads (its read count moves), cut the file away under it.
    let start = Instant::now();
    while io_counter(&child, "rchar") < 4 << 20 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
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

/// Runs ioscope with `args` in `dir`, its stdout sent to `stdout`.
fn run_to(dir: &Path, args: &[&str], stdout: Stdio) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("ioscope starts")
}

/// A clean failure: a non-zero exit (no panic, no signal) with `says` on stderr.
fn assert_failed_saying(out: &Output, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c != 0 && c != 101),
        "{:?}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
}

fn full() -> Stdio {
    Stdio::from(std::fs::File::create("/dev/full").expect("/dev/full opens"))
}

// `--version`, `--help` and a report sent to a full device panicked ("failed
// printing to stdout", exit 101), or for `--help` of `peak` exited 0.
#[test]
fn output_to_a_full_device_is_an_error_not_a_panic() {
    let dir = tempdir();
    let job = ["--name=x", "--ioengine=null", "--size=1m"];
    for args in [
        &["--version"][..],
        &["--help"],
        &["--cmdhelp=bs"],
        &["peak", "--help"],
        &job,
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--output-format=json",
        ],
    ] {
        let out = run_to(dir.path(), args, full());
        assert_failed_saying(&out, "cannot write to stdout: No space left on device");
    }
    let out = run_to(
        dir.path(),
        &[&job[..], &["--output=/dev/full"]].concat(),
        Stdio::null(),
    );
    assert_failed_saying(&out, "cannot write to /dev/full: No space left on device");
}

// An error message to a full stderr panicked (exit 101).
#[test]
fn an_unwritable_stderr_does_not_panic() {
    let out = Command::new(bin())
        .arg("--no-such-option")
        .stdout(Stdio::null())
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", out.status);
}

// A reader that went away (`ioscope ... | head -1`) made ioscope panic
// (exit 101) instead of ending quietly as fio does (SIGPIPE, 141 to a shell).
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = tempdir();
    for args in [
        &["--version"][..],
        &["--name=x", "--ioengine=null", "--size=1m"],
    ] {
        // The reader is gone before ioscope starts, so its first write fails.
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two descriptors, which are then owned here.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: both are open and owned by nothing else.
        let (reader, writer) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        drop(reader);
        let out = run_to(dir.path(), args, Stdio::from(writer));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{:?}\n{stderr}", out.status);
        assert!(stderr.is_empty(), "{stderr}");
    }
}

// A job that fills the disk holding --output: the report must still be
// attempted, and a failure to write it told rather than lost.
#[test]
fn a_report_on_a_disk_the_job_filled_fails_aloud() {
    require!(root());
    let dir = tempdir();
    let mount = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(dir.path())
        .status();
    assert!(
        mount.as_ref().is_ok_and(|s| s.success()),
        "mounting a 1 MiB tmpfs on {} as root: {mount:?}",
        dir.path().display()
    );
    let small = Mounted { dir };
    let report = small.dir.path().join("report.json");
    let out = run_to(
        small.dir.path(),
        &[
            "--name=fill",
            "--filename=f",
            "--rw=write",
            "--size=4m",
            "--output-format=json",
            &format!("--output={}", report.display()),
        ],
        Stdio::null(),
    );
    assert_failed_saying(
        &out,
        &format!("cannot write to {}: No space left", report.display()),
    );
    drop(small);
}

// A write job on a missing /dev name created a RAM-backed file in /dev and
// reported its speed as the device's.
#[test]
fn a_write_job_does_not_create_files_under_dev() {
    let path = "/dev/nonexistent_ioscope";
    let run = ioscope([
        "--name=w",
        "--rw=write",
        "--size=1m",
        &format!("--filename={path}"),
    ])
    .run();
    let err = run.assert_refused();
    assert!(err.contains("no such device"), "{err}");
    assert!(err.contains("does not create files under /dev"), "{err}");
    assert!(!Path::new(path).exists(), "{path} was created");
}

/// Starts ioscope with `args` in `dir`, waits until `reached` says the run
/// got to the phase under test, then sends `signal` (none when 0).
fn interrupt_when(
    dir: &Path,
    args: &[&str],
    reached: impl Fn(&Child) -> bool,
    signal: i32,
) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ioscope starts");
    let start = Instant::now();
    while !reached(&child) {
        if start.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the run did not reach the phase to interrupt: {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if signal != 0 {
        // SAFETY: a signal to the child this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    }
    child.wait_with_output().unwrap()
}

/// A counter of /proc/<pid>/io ("rchar", "wchar").
fn io_counter(child: &Child, name: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{}/io", child.id()))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Exit 128 and the notice naming `signal` (on stdout, in the report's
/// notices, as fio prints "terminating on signal" there); `reported`: the
/// jobs' report too.
fn assert_interrupted(out: &Output, signal: &str, reported: bool) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128), "{:?}\n{stderr}", out.status);
    assert!(
        stdout.contains(&format!("Notices:\n  interrupted by {signal}")),
        "{stdout}"
    );
    assert_eq!(stdout.contains("Run status group"), reported, "{stdout}");
}

// Ctrl-C or SIGTERM printed the partial report and exited 0, as if the run
// had done all it was asked; fio exits 128.
#[test]
fn an_interrupted_run_says_so_and_exits_128() {
    let dir = tempdir();
    let args = [
        "--name=x",
        "--filename=f",
        "--rw=write",
        "--size=1m",
        "--time_based",
        "--runtime=60",
    ];
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        // Once the job has written more than its file: the I/O loop runs.
        let out = interrupt_when(
            dir.path(),
            &args,
            |c| io_counter(c, "wchar") > 2 << 20,
            signal,
        );
        assert_interrupted(&out, name, true);
    }
    // A report that cannot be written is the worse news (exit 1), but the
    // interruption is still told. JSON: no preamble fails before the run.
    let out = interrupt_when(
        dir.path(),
        &[&args[..], &["--output-format=json", "--output=/dev/full"]].concat(),
        |c| io_counter(c, "wchar") > 2 << 20,
        libc::SIGINT,
    );
    assert_failed_saying(&out, "cannot write to /dev/full");
    assert_failed_saying(&out, "interrupted by SIGINT");
}

// Ctrl-C while a large file was laid out waited for the whole layout, then
// reported success.
#[test]
fn an_interrupted_layout_stops_and_says_so() {
    let dir = tempdir();
    let file = dir.path().join("big");
    let out = interrupt_when(
        dir.path(),
        &["--name=x", "--filename=big", "--rw=read", "--size=4g"],
        |_| std::fs::metadata(&file).is_ok_and(|m| m.len() > 0 || m.blocks() > 0),
        libc::SIGINT,
    );
    // No job ran, so there is no report; the line still says why.
    assert_interrupted(&out, "SIGINT", false);
    let left = std::fs::metadata(&file).map_or(0, |m| m.len());
    assert!(left < 4 << 30, "the layout ran to its end: {left} bytes");
}

// Ctrl-C during a verify job's read-back exited 0 with the blocks not read
// back unchecked.
#[test]
fn an_interrupted_verify_says_so() {
    let dir = tempdir();
    let size: u64 = 512 << 20;
    let out = interrupt_when(
        dir.path(),
        &[
            "--name=v",
            "--filename=v",
            "--rw=write",
            "--size=512m",
            "--bs=64k",
            "--verify=crc32c",
        ],
        // The writes are done and reading back has begun.
        |c| io_counter(c, "wchar") >= size && io_counter(c, "rchar") > 1 << 20,
        libc::SIGINT,
    );
    assert_interrupted(&out, "SIGINT", true);
}

// A file truncated by another process while an mmap job ran killed ioscope
// with SIGBUS: no report, no message, no exit status of its own.
#[test]
fn a_file_shrunk_under_an_mmap_job_fails_the_job_not_the_process() {
    for rw in ["randread", "randwrite"] {
        let dir = tempdir();
        let file = dir.path().join("m");
        let out = interrupt_when(
            dir.path(),
            &[
                "--name=m",
                "--filename=m",
                "--ioengine=mmap",
                &format!("--rw={rw}"),
                "--size=16m",
                "--time_based",
                "--runtime=60",
            ],
            // The job has mapped its file: cut it short under the mapping.
            |c| {
                let maps = std::fs::read_to_string(format!("/proc/{}/maps", c.id()));
                if !maps.is_ok_and(|m| m.contains(file.to_str().unwrap())) {
                    return false;
                }
                let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
                f.set_len(4096).unwrap();
                true
            },
            // Nothing to send: the truncation is the interruption.
            0,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{rw}: {:?}\n{stderr}",
            out.status
        );
        assert!(
            stderr.contains("io_u error on file m: Input/output error"),
            "{rw}: {stderr}"
        );
        assert!(stderr.contains("offset="), "{rw}: {stderr}");
    }
}

// Before: `--parse-only --ioengine=null --verify=md5 --rw=write` exited 0,
// and the run of the same job was refused.
#[test]
fn parse_only_refuses_a_verify_on_a_diskless_engine() {
    let err = parse_only(&[
        "--name=x",
        "--ioengine=null",
        "--verify=md5",
        "--rw=write",
        "--size=1m",
    ])
    .assert_refused()
    .to_string();
    assert!(err.contains("verify needs an engine that stores"), "{err}");
}

// Before: a verify_offset that left no room for the header was refused
// only in the worker, after the job's file had been laid out.
#[test]
fn bad_verify_options_are_refused_before_the_file_is_made() {
    let dir = tempdir();
    let target = dir.path().join("target");
    let run = ioscope([
        "--name=x",
        "--rw=write",
        "--size=1m",
        "--verify=md5",
        "--verify_interval=512",
        "--verify_offset=500",
        &format!("--filename={}", target.display()),
    ])
    .run();
    let err = run.assert_refused();
    assert!(err.contains("verify_offset=500"), "{err}");
    assert!(!target.exists(), "the refused job made its file");
}

/// verify_offset below fio's verify header (0 given, or 8) was taken and
/// run; fio refuses it as it parses ("min value out of range").
#[test]
fn verify_offset_below_fios_header_is_refused_as_fio_refuses_it() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let target = dir.path().join("target");
    let name = format!("--filename={}", target.display());
    for offset in ["0", "8", "39"] {
        let opt = format!("--verify_offset={offset}");
        let args = [
            "--name=x",
            "--rw=write",
            "--size=64k",
            "--verify=crc32c",
            &opt,
            &name,
        ];
        let theirs = common::fio(args).dir(dir.path()).run();
        assert!(!theirs.status.success(), "fio ran {opt}");
        let err = ioscope(args).run().assert_refused().to_string();
        assert!(
            err.contains("verify_offset") && err.contains("minimum of 40"),
            "{opt}: {err}"
        );
    }
    assert!(!target.exists(), "a refused job made its file");
    // fio 3.33's header is 40 bytes: 40 is the least both parsers take
    // (fio 3.42's header, and so its least, is 48). fio 3.33 takes it and
    // then fails its own blocks, whose header and crc32c (44 bytes) it
    // swaps with the 40 at verify_offset; ioscope writes fio 3.42's header
    // and checksum (52 bytes for crc32c), which such a swap would lay over
    // themselves, so the job is refused before it runs, saying so.
    let args = [
        "--name=x",
        "--rw=write",
        "--size=64k",
        "--verify=crc32c",
        "--verify_offset=40",
        &name,
    ];
    let err = ioscope(args).run().assert_refused().to_string();
    assert!(err.contains("use at least 52"), "{err}");
    assert!(!target.exists(), "a refused job made its file");
    // --parse-only checks the job as a run does (fio 3.33's takes it, fio
    // 3.42's refuses it, below 48).
    let parsed = ioscope(["--parse-only"].iter().chain(&args)).run();
    assert!(parsed.assert_refused().contains("use at least 52"));
    let theirs = common::fio(["--parse-only"].iter().chain(&args))
        .dir(dir.path())
        .run();
    assert_eq!(
        theirs.status.success(),
        common::fio_version() < (3, 42),
        "{}",
        theirs.describe()
    );
}

// Before: a layout refusal named the job twice ("job 'x': x: you need to
// specify size=").
#[test]
fn a_layout_refusal_names_the_job_once() {
    let dir = tempdir();
    let run = ioscope(["--name=x", "--rw=read", "--filename=missing"])
        .dir(dir.path())
        .run();
    let err = run.assert_refused();
    assert!(
        err.contains("job 'x': you need to specify size=") && !err.contains("x: you need"),
        "{err}"
    );
}

// Before: fsync=4 on 16 writes issued 4 fsyncs, one after the last write,
// where fio issues 3 (a sync goes before the write that follows every
// fourth one, so none follows the job's last write).
#[test]
fn fsync_every_n_writes_counts_as_fios() {
    let dir = tempdir();
    let file = dir.path().join("f");
    let v = ioscope([
        "--name=a".to_string(),
        format!("--filename={}", file.display()),
        "--rw=write".into(),
        "--size=64k".into(),
        "--bs=4k".into(),
        "--fsync=4".into(),
        "--ioengine=psync".into(),
        "--output-format=json".into(),
    ])
    .run()
    .ok_json();
    let j = job(&v, "a");
    assert_eq!(u(&j["write"], "total_ios"), 16);
    assert_eq!(u(&j["sync"], "total_ios"), 3);
}

// Before: one job's exitall stopped the whole run, so a later group
// (stonewall, new_group) never ran; in fio it stops its own group only.
#[test]
fn exitall_leaves_later_groups_to_run() {
    let dir = tempdir();
    let jobfile = write_file(
        dir.path(),
        "exitall.fio",
        "[global]\nioengine=null\nsize=1g\ntime_based\n\
         [a]\nexitall\nruntime=200ms\n\
         [b]\nruntime=20\n\
         [c]\nnew_group\nstonewall\nruntime=200ms\n",
    );
    let v = ioscope([jobfile.as_os_str(), "--output-format=json".as_ref()])
        .run()
        .ok_json();
    let runtime = |name: &str| u(job(&v, name), "job_runtime");
    assert!(runtime("b") < 5_000, "b was not stopped by a's exitall");
    assert!(runtime("c") >= 150, "the later group ran: {}", runtime("c"));
}

// Before: a net job blocked in recv(2) waited for ever: here a UDP
// pingpong writer for the reply to a datagram its reader never read (the
// reader had done its number_ios), past its runtime and through SIGTERM.
#[test]
fn a_net_job_waiting_on_its_peer_ends_at_its_runtime_and_on_sigterm() {
    let dir = tempdir();
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = |runtime: &str| {
        format!(
            "[global]\nioengine=net\nprotocol=udp\nbs=64\nsize=1m\nport={port}\n\
             [reader]\npingpong=1\nrw=read\nnumber_ios=3\n\
             [writer]\nhostname=127.0.0.1\nstartdelay=1\npingpong=1\nrw=write\n{runtime}\n"
        )
    };
    let jobfile = write_file(dir.path(), "pp.fio", &text("runtime=2"));
    let v = ioscope([jobfile.as_os_str(), "--output-format=json".as_ref()])
        .timeout(Duration::from_secs(30))
        .run()
        .ok_json();
    let writer = job(&v, "writer");
    assert_eq!(u(writer, "error"), 0, "{writer:#}");
    assert_eq!(u(&writer["write"], "total_ios"), 3, "{writer:#}");
    assert!(u(writer, "job_runtime") < 4_000, "{writer:#}");

    let jobfile = write_file(dir.path(), "pp-forever.fio", &text(""));
    let mut child = Command::new(bin())
        .args([jobfile.as_os_str(), "--output-format=json".as_ref()])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ioscope starts");
    std::thread::sleep(Duration::from_secs(3));
    let sent = Instant::now();
    // SAFETY: a signal to the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    while child.try_wait().unwrap().is_none() && sent.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let waited = sent.elapsed();
    // Killed if still there, so that the test fails instead of hanging.
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert!(
        waited < Duration::from_secs(5),
        "SIGTERM took {waited:?} to end the run"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(u(&job(&v, "writer")["write"], "total_ios"), 3, "{v:#}");
}

/// Every I/O of a job failed with an error that continue_on_error and
/// ignore_error let pass, and the report showed no job block and
/// `"error" : 0`, as if nothing had gone wrong; fio reports the first
/// error (err=28) with the job's block, and exits 0.
#[test]
fn a_job_whose_every_io_failed_and_was_let_pass_reports_the_first_error() {
    let args = [
        "--name=f",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--continue_on_error=all",
        "--ignore_error=,ENOSPC",
    ];
    let normal = ioscope(args).run();
    normal.assert_ok();
    assert!(
        normal.stdout.contains("f: (groupid=0, jobs=1): err=28 ("),
        "{}",
        normal.describe()
    );
    assert!(normal
        .stdout
        .contains("errors    : total=4, first_error=28"));
    // A character device is written as it is: nothing is laid out there.
    assert!(!normal.stdout.contains("Laying out"), "{}", normal.stdout);
    let v = ioscope(args.iter().copied().chain(["--output-format=json"]))
        .run()
        .ok_json();
    assert_eq!(job(&v, "f")["error"], 28);
    assert_eq!(job(&v, "f")["total_err"], 4);
}

// Before: a time-based buffered job on a small file dropped its cached
// pages only when it started, so after its first pass it read the page
// cache: 190k IOPS from a 4 MiB file where fio, which drops them at every
// pass (invalidate=1), measured about 10k from the disk.
#[test]
fn a_time_based_buffered_job_drops_the_cache_at_every_pass() {
    let dir = tempdir();
    std::fs::write(dir.path().join("data"), vec![1u8; 1 << 20]).unwrap();
    let run = ioscope([
        "--name=r",
        "--filename=data",
        "--size=1m",
        "--rw=randread",
        "--ioengine=psync",
        "--time_based",
        "--runtime=1",
        "--debug=io",
    ])
    .dir(dir.path())
    .run();
    assert!(run.status.success(), "{}", run.describe());
    let text = format!("{}{}", run.stdout, run.stderr);
    let drops = text.matches("declare unneeded cache").count();
    let ios = text.matches("complete: io_u").count();
    // 256 blocks: the random map fills, and the pages go, every 256 reads.
    assert!(ios > 512, "{ios} reads in a second");
    assert!(drops > ios / 256, "{drops} drops for {ios} reads");
}

// Before: filecreate without a size was refused ("you need to specify
// size=") where fio makes each file one smallest block, and unlink=1 left
// the files that filecreate and filestat had made, where fio removes them.
#[test]
fn filecreate_without_a_size_runs_and_unlink_removes_its_files() {
    let dir = tempdir();
    let run = ioscope([
        "--name=c",
        "--ioengine=filecreate",
        "--nrfiles=2",
        "--unlink=1",
        "--output-format=json",
    ])
    .dir(dir.path())
    .run();
    let v = run.ok_json();
    let read = &job(&v, "c")["read"];
    assert_eq!((u(read, "total_ios"), u(read, "io_bytes")), (2, 2 * 4096));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "unlink=1 left {left:?}");
}

// Before: a job's JSON put "steadystate" before "desc", where fio puts
// "desc" first (and block_error_percentiles' "block" between them).
#[test]
fn json_puts_desc_before_block_and_steadystate_as_fio_does() {
    let j = ioscope([
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=trim",
        "--description=hello",
        "--block_error_percentiles=1",
        "--ss=iops:10%",
        "--ss_dur=1",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    let keys: Vec<&String> = j["jobs"][0].as_object().unwrap().keys().collect();
    let at = |k: &str| {
        keys.iter()
            .position(|x| *x == k)
            .unwrap_or_else(|| panic!("{k} missing: {keys:?}"))
    };
    assert!(
        at("desc") < at("block") && at("block") < at("steadystate"),
        "{keys:?}"
    );
}

// Before: on a namespace whose blocks carry metadata after their data (an
// extended LBA), io_uring_cmd sent 4 KiB as eight 512-byte blocks, every
// block's data shifted by the metadata before it, and reported success.
#[test]
fn extended_lba_blocks_are_counted_with_their_metadata() {
    let script = require!(ioscope_testutil::nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let image = tempdir();
    let disk = image.path().join("ext.img");
    std::fs::File::create(&disk)
        .and_then(|f| f.set_len(64 << 20))
        .unwrap();
    let args = format!(
        "-drive file={},if=none,id=ext,format=raw \
         -device nvme-ns,drive=ext,bus=nvme0,nsid=2,ms=8,mset=1",
        disk.display()
    );
    let job = "ioscope --name=e --ioengine=io_uring_cmd --filename=/dev/ng0n2 --size=1040k";
    let out = Command::new("bash")
        .arg(&script)
        .arg(bin())
        .arg(format!(
            "{job} --bs=4k --rw=write; echo bs4k=$?; \
             {job} --bs=4160 --rw=write --verify=crc32c --do_verify=1 >v.txt; echo bs4160=$?"
        ))
        .env("NVME_VM_QEMU_ARGS", args)
        .env("NVME_VM_TIMEOUT", "300")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(125) {
        ioscope_testutil::skip!(ioscope_testutil::Missing::soft(
            "the nvme-vm harness could not boot a guest (exit 125)"
        ));
    }
    assert!(
        stdout.contains("block size must be a multiple of 520")
            && stdout.contains("bs4k=1")
            && stdout.contains("bs4160=0"),
        "{stdout}"
    );
}

/// The reads and writes of a version 3 iolog: "read OFFSET" or "write
/// OFFSET", in order.
fn logged_ios(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5 && matches!(w[2], "read" | "write")).then(|| format!("{} {}", w[2], w[3]))
        })
        .collect()
}

// Before: a verifying job of loops=2 wrote both loops and then checked
// once, and random writes were checked sorted by offset; fio checks each
// loop's writes before the next loop starts, in the order written where
// the file has a random map.
#[test]
fn verify_checks_each_loop_in_write_order_as_fio_does() {
    let dir = tempdir();
    let log = dir.path().join("log");
    ioscope([
        "--name=v",
        "--filename=f",
        "--size=256k",
        "--bs=4k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--loops=2",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let ios = logged_ios(&log);
    assert_eq!(ios.len(), 4 * 64, "{ios:?}");
    for (n, lp) in ios.chunks(128).enumerate() {
        let (writes, reads) = lp.split_at(64);
        let written: Vec<&str> = writes
            .iter()
            .map(|w| w.trim_start_matches("write "))
            .collect();
        let read: Vec<&str> = reads
            .iter()
            .map(|r| r.trim_start_matches("read "))
            .collect();
        assert!(
            writes.iter().all(|w| w.starts_with("write ")),
            "loop {n}: {writes:?}"
        );
        assert_eq!(
            read, written,
            "loop {n}: checked in another order than written"
        );
        let mut sorted = written.clone();
        sorted.sort_by_key(|o| o.parse::<u64>().unwrap());
        assert_ne!(written, sorted, "loop {n}: the writes were not random");
    }
}

// Before: with fsync=4 and loops=2 the sync due after the first loop's
// last write was made once, while fio makes it again as the next loop
// starts (it forgets its last request was a sync); the log kept the files
// open across loops and gave the sync offset 0 where fio shows the last
// I/O's offset and length 0.
#[test]
fn a_sync_due_at_a_loops_end_comes_again_as_the_next_starts() {
    let dir = tempdir();
    ioscope([
        "--name=s",
        "--filename=f",
        "--size=16k",
        "--bs=4k",
        "--rw=write",
        "--fsync=4",
        "--loops=2",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let lines = iolog_lines(&dir.path().join("log"));
    let writes = [
        "f write 0 4096",
        "f write 4096 4096",
        "f write 8192 4096",
        "f write 12288 4096",
    ];
    let expected: Vec<&str> = ["f add", "f open"]
        .into_iter()
        .chain(writes)
        .chain(["f sync 12288 0", "f close", "f open", "f sync 12288 0"])
        .chain(writes)
        .chain(["f close"])
        .collect();
    assert_eq!(lines, expected);
}

/// The lines of a write_iolog after its version line, without their times.
fn iolog_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(' ').unwrap().1.to_string())
        .collect()
}

/// With two files a sync went to the file last written; fio syncs the file
/// its round robin picks next, and the next write goes to the file after.
#[test]
fn a_sync_goes_to_the_file_the_service_picks_next() {
    let dir = tempdir();
    ioscope([
        "--name=s",
        "--filename=f1:f2",
        "--size=16k",
        "--bs=4k",
        "--rw=write",
        "--fsync=3",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let lines = iolog_lines(&dir.path().join("log"));
    let expected = [
        "f1 add",
        "f2 add",
        "f1 open",
        "f1 write 0 4096",
        "f2 open",
        "f2 write 0 4096",
        "f1 write 4096 4096",
        "f2 sync 4096 0",
        "f1 close",
        "f2 write 4096 4096",
        "f2 close",
    ];
    assert_eq!(lines, expected);
}

/// A verifying job with io_size beyond size wrote io_size and checked once;
/// fio checks each pass before the next and counts the reads towards
/// io_size, so io_size=2*size writes one pass and checks it.
#[test]
fn verify_checks_each_pass_towards_io_size_and_counts_its_reads() {
    let dir = tempdir();
    ioscope([
        "--name=v",
        "--filename=f",
        "--size=8k",
        "--io_size=24k",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let pass = [
        "f open",
        "f write 0 4096",
        "f write 4096 4096",
        "f close",
        "f open",
        "f read 0 4096",
        "f read 4096 4096",
        "f close",
    ];
    // 8k written and 8k read leave 8k of io_size: a second pass, then none.
    let expected: Vec<&str> = ["f add"].into_iter().chain(pass).chain(pass).collect();
    assert_eq!(iolog_lines(&dir.path().join("log")), expected);
}

/// end_fsync's fsync came after the job's measured time, so a buffered
/// write with end_fsync=1 reported the page cache's speed (5.6 GB/s on this
/// machine where fio reports 0.3-1.4 GB/s): fio syncs as each pass's I/O
/// ends, inside the runtime, and that is what end_fsync is for.
#[test]
fn end_fsync_is_inside_the_runtime() {
    let dir = tempdir();
    let file = dir.path().join("f");
    // A new file each time: its writes allocate blocks, which the flush
    // then writes out (an overwrite's flush can be absorbed by a virtual
    // disk's host cache).
    let run = |extra: &[&str]| {
        let _ = std::fs::remove_file(&file);
        let doc = ioscope(["--name=w", "--filename=f", "--rw=write", "--bs=1m"])
            .args(extra)
            .arg("--output-format=json")
            .dir(dir.path())
            .run()
            .ok_json();
        u(&job(&doc, "w")["write"], "runtime")
    };
    // What flushing 256 MiB of new writes takes here, measured by the
    // test itself.
    run(&["--size=256m"]);
    let t = Instant::now();
    std::fs::File::open(&file)
        .and_then(|f| f.sync_all())
        .expect("fsync of the written file");
    let flush = t.elapsed().as_millis() as u64;
    if flush < 30 {
        eprintln!(
            "end_fsync_is_inside_the_runtime: skipped: flushing 256 MiB took {flush} ms here, \
             too little to tell a runtime with it from one without"
        );
        return;
    }
    // 256 MiB written at 256 MiB/s for one second, then flushed: the
    // runtime is the second and the flush.
    let runtime = run(&[
        "--size=1g",
        "--time_based",
        "--runtime=1",
        "--rate=256m",
        "--end_fsync=1",
    ]);
    assert!(
        runtime >= 1015,
        "runtime {runtime} ms for 1 s of writes and a flush (which took {flush} ms alone)"
    );
}

/// On an engine that queues, a mapless random job over `loops` made one
/// long pass of twice `size` with new offsets throughout; fio ends each
/// pass once `size` is issued, and the next starts the same offsets over
/// (randrepeat), after the pass's I/O is done and the file closed.
#[test]
fn passes_of_a_queueing_engine_end_at_size_and_start_over() {
    let dir = tempdir();
    ioscope([
        "--name=w",
        "--filename=f",
        "--rw=randwrite",
        "--norandommap",
        "--bs=4k",
        "--size=64k",
        "--loops=2",
        "--ioengine=io_uring",
        "--iodepth=4",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let lines = iolog_lines(&dir.path().join("log"));
    let writes = |pass: &[String]| -> Vec<String> {
        pass.iter()
            .filter(|l| l.starts_with("f write"))
            .cloned()
            .collect()
    };
    let close = lines
        .iter()
        .position(|l| l == "f close")
        .expect("the file is closed between the passes");
    let (first, second) = lines.split_at(close);
    assert_eq!(writes(first).len(), 16, "{lines:#?}");
    assert_eq!(writes(first), writes(second), "{lines:#?}");
}

/// A group_reporting group reported its first member's job options and
/// percentile settings, where fio reports its last member's.
#[test]
fn a_group_reports_its_last_members_options() {
    let v = ioscope([
        "--group_reporting",
        "--ioengine=null",
        "--size=1m",
        "--name=a",
        "--bs=8k",
        "--name=b",
        "--bs=16k",
        "--percentile_list=50",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    let group = &v["jobs"][0];
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(group["jobname"], "a");
    assert_eq!(
        group["job options"],
        serde_json::json!({"name": "b", "bs": "16k", "percentile_list": "50"})
    );
    let percentiles = group["read"]["clat_ns"]["percentile"].as_object().unwrap();
    assert_eq!(percentiles.keys().collect::<Vec<_>>(), ["50.000000"]);
}

/// zonemode=zbd at depth closed a full zone as its last write was issued,
/// where fio closes it as that write completes and waits for the writes in
/// flight when the open zones are at their limit: the next zones differed
/// from fio's (its first writes here, from fio 3.33's write_iolog).
#[test]
fn a_zbd_zone_closes_as_the_write_that_filled_it_completes() {
    let dir = tempdir();
    std::fs::File::create(dir.path().join("f"))
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    ioscope([
        "--name=z",
        "--filename=f",
        "--zonemode=zbd",
        "--zonesize=256k",
        "--max_open_zones=2",
        "--rw=randwrite",
        "--bs=64k",
        "--direct=1",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let offsets: Vec<u64> = iolog_lines(&dir.path().join("log"))
        .iter()
        .filter_map(|l| l.strip_prefix("f write "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .take(11)
        .collect();
    // Zone 0 fills at the seventh write; the eighth opens zone 1 once the
    // writes in flight have completed and closed zone 0.
    assert_eq!(
        offsets,
        [0, 2883584, 2949120, 65536, 131072, 3014656, 196608, 262144, 327680, 393216, 458752]
    );
}

/// A random verify job at depth checked its blocks in the order their
/// writes completed; fio lists a write as it is issued and checks in that
/// order (mixed block sizes make the writes complete out of order here).
#[test]
fn verify_reads_follow_the_order_the_writes_were_issued_in() {
    let dir = tempdir();
    ioscope([
        "--name=v",
        "--filename=f",
        "--size=16m",
        "--rw=randwrite",
        "--bsrange=4k-1m",
        "--direct=1",
        "--ioengine=io_uring",
        "--iodepth=32",
        "--verify=crc32c",
        "--write_iolog=log",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let lines = iolog_lines(&dir.path().join("log"));
    let of = |op: &str| -> Vec<String> {
        let prefix = format!("f {op} ");
        lines
            .iter()
            .filter_map(|l| l.strip_prefix(&prefix).map(String::from))
            .collect()
    };
    let writes = of("write");
    assert!(writes.len() > 8, "{lines:?}");
    assert_eq!(of("read"), writes);
}

/// A group reported its first member's first_error and continue_on_error;
/// fio reports the last member's beside the first member's error (here
/// the one continue_on_error carried past): the error fields show only
/// when the last member has continue_on_error (checked against fio 3.33).
#[test]
fn a_group_reports_its_last_members_first_error() {
    let dir = tempdir();
    std::fs::write(dir.path().join("zeroes"), vec![0u8; 16 << 10]).unwrap();
    let checker = "[a]\nfilename=zeroes\nrw=read\nverify=crc32c\ncontinue_on_error=all\n";
    let writer = "[b]\nfilename=f\nrw=write\n";
    let global = "[global]\ngroup_reporting\nsize=16k\nbs=4k\n";
    let all = format!("{global}continue_on_error=all\n");
    // (job file, the group's total_err and first_error, where shown)
    for (text, shown) in [
        (format!("{global}{checker}{writer}"), None),
        (format!("{global}{writer}{checker}"), Some((4, 84))),
        (format!("{all}{checker}{writer}"), Some((4, 0))),
    ] {
        write_file(dir.path(), "g.fio", &text);
        let run = ioscope(["g.fio", "--output-format=json"])
            .dir(dir.path())
            .run();
        // Unlike fio, found corruption fails the run (docs/verify.md).
        assert_eq!(run.status.code(), Some(1), "{}", run.describe());
        let v = run.json();
        assert_eq!(v["jobs"].as_array().unwrap().len(), 1, "{text}");
        let group = &v["jobs"][0];
        assert_eq!(group["error"], 84, "{text}");
        let fields = (group.get("total_err"), group.get("first_error"));
        let expected = shown.map(|(t, f): (u64, u64)| (t.into(), f.into()));
        assert_eq!(
            fields,
            expected
                .as_ref()
                .map(|(t, f)| (Some(t), Some(f)))
                .unwrap_or((None, None)),
            "{text}"
        );
    }
}

/// verify_pattern without verify wrote the pattern without fio's headers:
/// it was taken as verify=pattern, where fio (str_verify_pattern_cb, 3.33
/// as 3.42) selects VERIFY_PATTERN, a verify header in each interval and
/// the pattern around it; and verify=pattern_hdr, fio 3.42's name for
/// that, was refused as no choice of verify.
#[test]
fn verify_pattern_without_verify_writes_fios_headers() {
    let dir = tempdir();
    let write = |extra: &[&str]| -> Vec<u8> {
        let file = dir.path().join("f");
        let _ = std::fs::remove_file(&file);
        ioscope(
            [
                "--name=p",
                "--filename=f",
                "--rw=write",
                "--bs=4k",
                "--size=16k",
                "--verify_pattern=0xdeadbeef",
            ]
            .iter()
            .chain(extra),
        )
        .dir(dir.path())
        .run()
        .assert_ok();
        std::fs::read(file).unwrap()
    };
    for extra in [&[][..], &["--verify=pattern_hdr"]] {
        let bytes = write(extra);
        for (i, block) in bytes.chunks(4096).enumerate() {
            // fio 3.42's header: magic 0xacca, version 0x81, VERIFY_PATTERN
            // (17), the interval's length and offset; then the pattern,
            // from byte 48 on in its phase there.
            assert_eq!(block[..4], [0xca, 0xac, 0x81, 17], "{extra:?} block {i}");
            assert_eq!(block[4..8], 4096u32.to_le_bytes(), "{extra:?} block {i}");
            assert_eq!(block[16..24], (i as u64 * 4096).to_le_bytes());
            assert!(
                block[48..].chunks(4).all(|w| w == [0xde, 0xad, 0xbe, 0xef]),
                "{extra:?} block {i}"
            );
        }
    }
    // verify=pattern is the pattern alone.
    let bytes = write(&["--verify=pattern"]);
    assert!(bytes.chunks(4).all(|w| w == [0xde, 0xad, 0xbe, 0xef]));
}

/// A time-based random write with verify failed good blocks: once every
/// block was written the random map started over, the block was listed
/// again, and the verify phase checked its first write ("stale data ...
/// holds write #N, newer than write #1") instead of the last.
#[test]
fn a_time_based_random_write_checks_each_block_against_its_last_write() {
    let dir = tempdir();
    let file = dir.path().join("tb");
    let run = ioscope([
        "--name=tb",
        &format!("--filename={}", file.display()),
        "--size=256k",
        "--bs=4k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--time_based",
        "--runtime=300ms",
        "--output-format=json",
    ])
    .run();
    run.assert_ok();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let j = &json["jobs"][0];
    // The 64 blocks were written several times over, and each checked once.
    assert!(u(&j["write"], "total_ios") > 3 * 64, "{}", run.stdout);
    assert_eq!(u(j, "verify_checked"), 64, "{}", run.stdout);
    assert_eq!(u(j, "verify_bad"), 0, "{}", run.stdout);
}

/// The I/Os (`write_iolog`) of fio and of ioscope running `args` on a
/// fresh file `f` in `dir`, each run succeeding: what was done and where.
fn both_ios(dir: &Path, args: &[&str]) -> [Vec<String>; 2] {
    let all = [&["--name=j", "--filename=f", "--write_iolog=log"][..], args].concat();
    both_logs(dir, &all).map(|lines| {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("f "))
            .filter(|l| {
                ["read ", "write ", "trim "]
                    .iter()
                    .any(|a| l.starts_with(a))
            })
            .map(str::to_string)
            .collect()
    })
}

/// Block sizes differed from fio's in three ways, so that the I/Os, and
/// the blocks written, were not fio's: with verify, a block size range
/// drew the writes' sizes from their own seed (fio seeds them as the
/// reads', which the verify phase repeats); a trimwrite trimmed with the
/// write block size, in pairs (fio trims and writes each with its own
/// block size, in turns); and the random map counted blocks of the job's
/// own block size (fio's counts its smallest of all three directions,
/// so `bs=8k,4k` random reads end their pass after 6 of 8 blocks).
#[test]
fn block_sizes_and_random_map_blocks_follow_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 5] = [
        &["--rw=randwrite", "--bsrange=4k-16k", "--verify=crc32c"],
        &["--rw=write", "--bssplit=4k/50:16k/50", "--verify=md5"],
        // fio 3.33 trims only block devices: the null engine logs them.
        &["--ioengine=null", "--rw=trimwrite", "--bs=4k,4k,16k"],
        &["--ioengine=null", "--rw=trimwrite", "--bsrange=4k-16k"],
        &["--rw=randread", "--bs=8k,4k"],
    ];
    for case in cases {
        let args = [&["--size=64k"][..], case].concat();
        let [theirs, ours] = both_ios(dir.path(), &args);
        assert!(ours.len() > 4, "{case:?}: {ours:?}");
        assert_eq!(ours, theirs, "{case:?}");
    }
}

/// On an engine without files (null), `offset=10%` started at 0: the
/// percentage was of a file size of 0, where fio takes the job's size
/// (`size=64k` starts at 8k, rounded up to the block).
#[test]
fn a_percentage_offset_on_the_null_engine_is_of_the_jobs_size() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let args = [
        "--ioengine=null",
        "--rw=read",
        "--bs=4k",
        "--size=64k",
        "--offset=10%",
    ];
    let [theirs, ours] = both_ios(dir.path(), &args);
    assert_eq!(ours.first().map(String::as_str), Some("read 8192 4096"));
    assert_eq!(ours.len(), 16);
    assert_eq!(ours, theirs);
}

/// The null engine did every I/O on its first file: `nrfiles=3
/// filesize=64k` moved 64 KiB where fio moves 192 KiB over three files,
/// and `size=` was all spent on file 0. fio sizes each file it would name
/// as one it cannot stat: `size` / nrfiles, or `filesize`.
#[test]
fn the_null_engine_spreads_its_ios_over_its_files_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 4] = [
        &["--size=192k", "--nrfiles=3"],
        &["--filesize=64k-256k", "--nrfiles=3"],
        &["--size=1m", "--nrfiles=4", "--offset=10%", "--rw=read"],
        &["--size=256k", "--filename=a:b", "--rw=write"],
    ];
    let common = [
        "--name=z",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        let files: std::collections::BTreeSet<_> = ours
            .iter()
            .filter(|l| l.contains(" read ") || l.contains(" write "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        assert!(files.len() > 1, "{case:?}: one file: {ours:?}");
    }
}

/// For each of `cases` added to `common`: fio's and ioscope's logs (see
/// [`both_logs`]) are the same. Returns ioscope's, in the cases' order.
fn logs_as_fio(dir: &Path, common: &[&str], cases: &[&[&str]]) -> Vec<Vec<String>> {
    cases
        .iter()
        .map(|case| {
            let [theirs, ours] = both_logs(dir, &[common, case].concat());
            assert_eq!(ours, theirs, "{case:?}");
            ours
        })
        .collect()
}

/// file_append in a job that reads laid nothing out, so its first read
/// failed ("short read on f at offset 0"), and `offset` moved an appended
/// file's start. fio starts at the file's end whatever `offset` says, and
/// writes the file out to its new end first when the job reads.
#[test]
fn file_append_starts_at_the_end_and_lays_out_for_reads_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let common = [
        "--name=z",
        "--filename=f",
        "--write_iolog=log",
        "--size=256k",
        "--bs=8k",
        "--file_append=1",
    ];
    let logs = logs_as_fio(
        dir.path(),
        &common,
        &[
            &["--rw=randrw"],
            &["--rw=read", "--offset=64k"],
            &["--rw=write", "--filesize=96k-160k", "--offset=4k"],
        ],
    );
    assert_eq!(lines_with(&logs[1], " read 0 8192"), 1, "{:?}", logs[1]);
}

/// A job whose filename named directories not there yet
/// (`filename=out/run1/data`) failed ("cannot create: No such file or
/// directory"); fio makes them, mode 0700, as it sets the files up.
#[test]
fn missing_directories_of_a_filename_are_made_as_fio_makes_them() {
    require!(ioscope_testutil::fio());
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    for (fio, top) in [(true, "theirs"), (false, "ours")] {
        let name = format!("--filename={top}/run1/data");
        let args = ["--name=w", name.as_str(), "--rw=write", "--size=64k"];
        run_one(dir.path(), &args, fio);
        for d in [top.to_string(), format!("{top}/run1")] {
            let mode = std::fs::metadata(dir.path().join(&d))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(
                mode & 0o777,
                0o700,
                "{d} of {}",
                if fio { "fio" } else { "ioscope" }
            );
        }
        let data = dir.path().join(format!("{top}/run1/data"));
        assert_eq!(std::fs::metadata(data).unwrap().len(), 64 << 10);
    }
    // A diskless engine makes none, as fio's does not.
    run_one(
        dir.path(),
        &[
            "--name=n",
            "--ioengine=null",
            "--filename=none/f",
            "--size=64k",
        ],
        false,
    );
    assert!(!dir.path().join("none").exists());
}

/// How many of a log's `lines` hold `what` (" read ", " write ").
fn lines_with(lines: &[String], what: &str) -> usize {
    lines.iter().filter(|l| l.contains(what)).count()
}

/// fio's run (`fio` true) or ioscope's of `args` in `dir`, which must
/// succeed.
fn run_one(dir: &Path, args: &[&str], fio: bool) -> common::Run {
    let run = match fio {
        true => common::fio(args),
        false => ioscope(args),
    }
    .dir(dir)
    .run();
    assert!(run.status.success(), "{args:?}: {}", run.describe());
    run
}

/// The JSON documents of fio and ioscope running `args` in `dir`, fio's
/// first; each must succeed.
fn both_json(dir: &Path, args: &[&str]) -> [serde_json::Value; 2] {
    [true, false].map(|fio| run_one(dir, args, fio).json())
}

/// Every line of the `write_iolog` named `log` that fio and then ioscope
/// write running `args` in `dir` (each run succeeding, the log and any
/// file `f` removed first), less its time: the file, what was done and
/// where, opens, closes and syncs included.
fn both_logs(dir: &Path, args: &[&str]) -> [Vec<String>; 2] {
    [true, false].map(|fio| {
        for stale in ["f", "log"] {
            let _ = std::fs::remove_file(dir.join(stale));
        }
        run_one(dir, args, fio);
        let log = std::fs::read_to_string(dir.join("log")).unwrap();
        log.lines()
            .skip(1)
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
            .collect()
    })
}

/// verify_backlog checked a batch every `verify_backlog` writes, counted
/// as they completed. fio starts a batch on its way to the workload's next
/// I/O, before a sync that is due, whenever the writes not yet checked
/// are a multiple of the backlog and the last I/O was no read, so a batch
/// smaller than the backlog comes every batch's worth of writes; without
/// a random map it takes the lowest offset first and drops overlapped
/// blocks; and at the job's end (not a pass's) the rest is the verify
/// phase's. With `bs=4k size=256k verify_backlog=16
/// verify_backlog_batch=4`, 12 blocks were checked before the last write
/// where fio checks 48.
#[test]
fn verify_backlog_checks_when_fio_does() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 5] = [
        &[
            "--rw=write",
            "--verify_backlog=16",
            "--verify_backlog_batch=4",
        ],
        &[
            "--rw=randwrite",
            "--norandommap=1",
            "--verify_backlog=6",
            "--verify_backlog_batch=2",
        ],
        &[
            "--rw=write",
            "--verify_backlog=16",
            "--fsync=4",
            "--loops=2",
        ],
        &[
            "--rw=randrw",
            "--rwmixread=30",
            "--verify_backlog=8",
            "--verify_backlog_batch=3",
        ],
        &["--rw=randwrite", "--io_size=1m", "--verify_backlog=8"],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        let reads = lines_with(&ours, " read ");
        assert!(reads >= 40, "{case:?}: {reads} reads: {ours:?}");
    }
}

/// verify_backlog at depth without a random map failed good data as
/// stale ("holds write #6, newer than write #3"): it checked a block that
/// a newer write, still in flight, was overwriting. fio lists a write as
/// it issues it and drops the older overlapped block then.
#[test]
fn verify_backlog_at_depth_does_not_check_a_block_being_overwritten() {
    let dir = tempdir();
    for _ in 0..3 {
        let v = ioscope([
            "--output-format=json",
            "--name=v",
            "--filename=f",
            "--bs=4k",
            "--size=256k",
            "--rw=randwrite",
            "--norandommap=1",
            "--verify=crc32c",
            "--verify_backlog=6",
            "--verify_backlog_batch=2",
            "--ioengine=io_uring",
            "--iodepth=4",
        ])
        .dir(dir.path())
        .run()
        .ok_json();
        let j = job(&v, "v");
        assert_eq!(u(&j["write"], "total_ios"), 64, "{j:#}");
        // Every block written last is checked once: fewer than the writes,
        // as random offsets without a map repeat some.
        let checked = u(&j["read"], "total_ios");
        assert!((30..64).contains(&checked), "{checked} checks: {j:#}");
    }
}

/// zonemode=strided was dropped for any job of several files. fio drops
/// it only where `openfiles` is set above 1 (it tests the option before
/// it defaults to nrfiles); otherwise its files share one count of zone
/// bytes, and the file whose turn comes when a zone's bytes are done
/// jumps to its next zone.
#[test]
fn strided_zones_stay_on_with_several_files_as_in_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 3] = [
        &["--rw=read", "--nrfiles=2"],
        &["--rw=randread", "--nrfiles=2", "--file_service_type=random"],
        &["--rw=read", "--nrfiles=2", "--openfiles=2"],
    ];
    let common = [
        "--name=z",
        "--ioengine=null",
        "--bs=4k",
        "--size=256k",
        "--zonemode=strided",
        "--zonesize=16k",
        "--zonerange=64k",
        "--write_iolog=log",
    ];
    let logs = logs_as_fio(dir.path(), &common, &cases);
    for (case, ours) in cases.iter().zip(&logs) {
        assert!(ours.len() > 64, "{case:?}: {ours:?}");
    }
    // The first file jumps to its second zone after 8k of its own.
    let first: Vec<_> = logs[0]
        .iter()
        .filter(|l| l.starts_with("z.0.0 read"))
        .take(3)
        .collect();
    assert_eq!(
        first,
        [
            "z.0.0 read 0 4096",
            "z.0.0 read 4096 4096",
            "z.0.0 read 65536 4096"
        ]
    );
}

/// Two ways the verify phase's reads were not fio's. A job whose pass
/// writes less than `size` (`rw=write:8k`, holes between the blocks)
/// stopped after one pass; fio's verify phase leaves no file done, so it
/// writes and checks again until the writes and reads make `size` (44
/// writes where ioscope made 22). And verify_backlog checked blocks with
/// `do_verify=0` or `experimental_verify=1`, where fio lists no write for
/// its backlog (64 reads where fio makes none, and 128 where it checks
/// each of the 64 blocks once).
#[test]
fn verify_passes_and_backlogs_follow_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 4] = [
        &["--rw=write:8k"],
        &["--rw=write:8k", "--verify_backlog=8"],
        &["--rw=randwrite", "--verify_backlog=8", "--do_verify=0"],
        &[
            "--rw=randwrite",
            "--verify_backlog=8",
            "--experimental_verify=1",
        ],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--write_iolog=log",
    ];
    let logs = logs_as_fio(dir.path(), &common, &cases);
    let count = |log: &[String], what: &str| log.iter().filter(|l| l.contains(what)).count();
    assert_eq!(count(&logs[0], " write "), 44, "{:?}", logs[0]);
    assert_eq!(count(&logs[2], " read "), 0, "{:?}", logs[2]);
    assert_eq!(count(&logs[3], " read "), 64, "{:?}", logs[3]);
}

/// number_ios left verify_backlog's reads out of its count, so a job made
/// 40 writes where fio makes 24 and checks 16 of them; and once number_ios
/// was reached, a backlog batch and due syncs still went out, where fio's
/// loop stops before either and leaves the rest to the verify phase.
#[test]
fn number_ios_counts_verify_backlog_checks_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 4] = [
        &["--rw=write"],
        &["--rw=randwrite", "--verify_backlog_batch=4"],
        &["--rw=write", "--fsync=3"],
        &["--rw=write", "--thinktime=1", "--thinktime_blocks=5"],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--verify_backlog=8",
        "--number_ios=40",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        let counts = (lines_with(&ours, " write "), lines_with(&ours, " read "));
        assert_eq!(counts, (24, 24), "{case:?}");
    }
}

/// bssplit drew its sizes from the entries in the order given; fio sorts
/// them by percentage first, so `4k/50:8k/30:16k/20` draws 16k for the
/// lowest draws, and every block size after the first differed from
/// fio's. fio also reads a 0% entry as one without a percentage.
#[test]
fn bssplit_draws_in_fios_order() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 4] = [
        &["--rw=write", "--bssplit=4k/50:8k/30:16k/20"],
        &["--rw=randread", "--bssplit=64k/25:4k/25:8k/25:16k/25"],
        &["--rw=randread", "--bssplit=4k:8k:16k/44:32k/1"],
        &["--rw=randrw", "--bssplit=4k/60:16k/40,8k/50:4k/0:16k/0"],
    ];
    let common = ["--name=b", "--filename=f", "--size=1m", "--write_iolog=log"];
    logs_as_fio(dir.path(), &common, &cases);
}

/// With norandommap and several block sizes, a write that a later write
/// cut into only in part was still checked when a still later write cut
/// into that one, and failed as stale data ("holds write #17, newer than
/// write #4"). fio drops every older piece a write overlaps, so it
/// checks only the blocks no later write touched.
#[test]
fn verify_with_overlapping_writes_checks_what_fio_checks() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 3] = [
        &["--bsrange=4k-16k"],
        &["--bssplit=4k/50:8k/30:16k/20"],
        &["--bsrange=4k-64k", "--size=1m", "--number_ios=100"],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--size=256k",
        "--rw=randwrite",
        "--norandommap=1",
        "--number_ios=30",
        "--verify=md5",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        let reads = lines_with(&ours, " read ");
        assert!(reads >= 10, "{case:?}: {reads} checks");
    }
}

/// verify with bs_unaligned panicked on the first write whose size was not
/// a multiple of the verify interval ("a 8746-byte block is not a whole
/// number of 4096-byte verify intervals"); fio makes each such block one
/// interval of its own length.
#[test]
fn verify_with_bs_unaligned_runs_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 2] = [
        &["--rw=randwrite"],
        &["--rw=randwrite", "--norandommap=1", "--number_ios=40"],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--size=256k",
        "--bsrange=4k-32k",
        "--bs_unaligned=1",
        "--verify=crc32c",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        // Checks of blocks whose length is no multiple of 512.
        let odd = ours
            .iter()
            .filter(|l| l.starts_with("f read "))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .filter(|len| len % 512 != 0)
            .count();
        assert!(
            odd > 0,
            "{case:?}: no check of an unaligned block: {ours:?}"
        );
    }
}

/// A job whose file could not be set up ("you need to specify size=")
/// refused the whole run, or ended it after the phases before, so the
/// JSON had no entry for it and the other jobs did not run. fio reports
/// the job with error 22 and nothing done, runs the others, and exits with
/// the number of workers that failed (3 here; ioscope gave 1 for any).
#[test]
fn a_job_whose_file_cannot_be_set_up_is_reported_with_its_error() {
    require!(ioscope_testutil::fio());
    let job = "[global]\nioengine=psync\nbs=4k\nsize=256k\n\
               [a]\nfilename=a.dat\nrw=write\n\
               [b]\nfilename=missing.dat\nsize=0\nrw=read\nnumjobs=2\n\
               [c]\nstonewall\nfilename=c.dat\nrw=write\n\
               [d]\nstonewall\nfilename=missing.dat\nsize=0\nrw=read\n";
    let summary = |run: &common::Run| -> Vec<(String, u64, u64)> {
        assert_eq!(run.status.code(), Some(3), "{}", run.describe());
        assert!(
            run.stderr.contains("you need to specify size="),
            "{}",
            run.describe()
        );
        run.json()["jobs"]
            .as_array()
            .expect("jobs")
            .iter()
            .map(|j| {
                let name = j["jobname"].as_str().expect("jobname").to_string();
                (name, u(j, "error"), u(&j["write"], "io_bytes"))
            })
            .collect()
    };
    let mut seen = Vec::new();
    for tool in [std::path::PathBuf::from("fio"), bin()] {
        let dir = tempdir();
        let path = write_file(dir.path(), "j.fio", job);
        let run = common::Cmd::new(tool)
            .args([
                std::ffi::OsStr::new("--output-format=json"),
                path.as_os_str(),
            ])
            .dir(dir.path())
            .run();
        seen.push(summary(&run));
    }
    let expected: Vec<(String, u64, u64)> = [
        ("a", 0, 256 << 10),
        ("b", 22, 0),
        ("b", 22, 0),
        ("c", 0, 256 << 10),
        ("d", 22, 0),
    ]
    .iter()
    .map(|&(n, e, w)| (n.to_string(), e, w))
    .collect();
    assert_eq!(seen[0], expected, "fio");
    assert_eq!(seen[1], seen[0], "ioscope against fio");
}

/// A job whose file setup failed in a system call (a path through a
/// regular file, a file the job's uid may not write) was reported with
/// error 22; fio reports the call's errno (20, 13).
#[test]
fn a_failed_setup_call_is_reported_with_its_errno_as_fio() {
    require!(ioscope_testutil::fio());
    require!(root());
    let cases: &[(&str, &[&str], u64)] = &[
        ("ENOTDIR", &["--filename=plain/x"], 20),
        ("EACCES", &["--filename=rootonly", "--uid=65534"], 13),
    ];
    for &(name, args, errno) in cases {
        let mut seen = Vec::new();
        for tool in [std::path::PathBuf::from("fio"), bin()] {
            let dir = tempdir();
            write_file(dir.path(), "plain", "");
            write_file(dir.path(), "rootonly", "");
            let run = common::Cmd::new(tool)
                .args([
                    "--name=w",
                    "--rw=write",
                    "--size=64k",
                    "--output-format=json",
                ])
                .args(args)
                .dir(dir.path())
                .run();
            assert_eq!(run.status.code(), Some(1), "{name}: {}", run.describe());
            // fio prints the job's error line on stdout before the JSON.
            let (json, _) = common::extract_json(&run.stdout)
                .unwrap_or_else(|| panic!("{name}: no JSON: {}", run.describe()));
            seen.push(u(&json["jobs"][0], "error"));
        }
        assert_eq!(seen, [errno, errno], "{name}: fio's error, then ioscope's");
    }
}

/// The exit status was 1 whatever failed, and 0 when only a `stats=0` job
/// failed; fio's is the number of workers that ended with an error.
#[test]
fn the_exit_status_counts_failed_workers_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    // Zeros where md5 headers should be: every reader fails its check.
    std::fs::write(dir.path().join("z"), vec![0u8; 64 << 10]).expect("write z");
    let common = [
        "--name=v",
        "--filename=z",
        "--rw=read",
        "--verify=md5",
        "--size=64k",
        "--numjobs=3",
    ];
    for extra in [&[][..], &["--group_reporting", "--stats=0"][..]] {
        let codes: Vec<Option<i32>> = [std::path::PathBuf::from("fio"), bin()]
            .into_iter()
            .map(|tool| {
                common::Cmd::new(tool)
                    .args(common.iter().chain(extra))
                    .arg("--output-format=json")
                    .dir(dir.path())
                    .run()
                    .status
                    .code()
            })
            .collect();
        assert_eq!(
            codes,
            [Some(3), Some(3)],
            "fio, then ioscope, with {extra:?}"
        );
    }
}

/// Where the files have a random map, a write that a later one overlapped
/// (sequential offsets of percentage_random or rw=randwrite:N crossing
/// random ones, blocks of several sizes) was checked as the write it was,
/// and failed good data: "torn write ... the rest holds write #3". fio
/// checks each interval of such a list against its own header, and
/// passes.
#[test]
fn verify_of_overlapped_writes_in_write_order_passes_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let cases: [&[&str]; 4] = [
        &["--rw=randwrite", "--percentage_random=50"],
        &["--rw=randwrite:2"],
        &[
            "--rw=randwrite",
            "--percentage_random=50",
            "--verify_backlog=4",
        ],
        &[
            "--rw=randwrite:2",
            "--percentage_random=50",
            "--verify_backlog=4",
            "--randseed=8",
        ],
    ];
    let common = [
        "--name=v",
        "--filename=f",
        "--size=256k",
        "--bsrange=4k-16k",
        "--randseed=1",
        "--verify=md5",
        "--write_iolog=log",
    ];
    for (case, ours) in cases.iter().zip(logs_as_fio(dir.path(), &common, &cases)) {
        let (reads, writes) = (lines_with(&ours, " read "), lines_with(&ours, " write "));
        assert_eq!(reads, writes, "{case:?}: every write is checked");
    }
}

/// A read job's verify with bs_unaligned panicked ("a 2331-byte block is
/// not a whole number of 1024-byte verify intervals"); as fio, each block
/// is one interval of its own length: what the same job wrote passes, and
/// a file that holds no headers fails.
#[test]
fn read_verify_with_bs_unaligned_checks_as_fio() {
    require!(ioscope_testutil::fio());
    let common = [
        "--name=r",
        "--filename=f",
        "--size=256k",
        "--bsrange=1k-9k",
        "--bs_unaligned=1",
        "--verify=md5",
        "--output-format=json",
    ];
    for tool in [std::path::PathBuf::from("fio"), bin()] {
        let dir = tempdir();
        let run = |rw: &str| {
            common::Cmd::new(tool.clone())
                .args(common.iter().chain(&[rw]))
                .dir(dir.path())
                .run()
        };
        run("--rw=write").ok_json();
        let read = run("--rw=read");
        let reads = u(&job(&read.ok_json(), "r")["read"], "total_ios");
        assert!(reads > 30, "{}", read.describe());
        std::fs::write(dir.path().join("f"), vec![0u8; 256 << 10]).expect("zero f");
        let zeros = run("--rw=read");
        assert_eq!(zeros.status.code(), Some(1), "{}", zeros.describe());
        let (v, _) = common::extract_json(&zeros.stdout).expect("a JSON report");
        assert_eq!(u(job(&v, "r"), "error"), 84, "{}", zeros.describe());
    }
}

/// `random_distribution=random:0.5` was refused ("expected random,
/// zipf[:theta[:center]], ..."); fio ignores what follows `random:`.
#[test]
fn random_distribution_random_with_a_value_is_read_as_fio_reads_it() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let case: [&[&str]; 1] = [&["--random_distribution=random:0.5"]];
    let common = [
        "--name=r",
        "--filename=f",
        "--size=64k",
        "--rw=randread",
        "--write_iolog=log",
    ];
    logs_as_fio(dir.path(), &common, &case);
}

// Before: `--name x --rw randread` (a value as the next argument, as fio's
// getopt takes it) made `x` and `randread` job files and was refused, and
// `-rw=read` (one dash) was an unknown option; and gtod_reduce=1 still
// logged bandwidth samples, which fio's gtod_reduce switches off.
#[test]
fn job_option_values_may_be_the_next_argument_as_in_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let spaced = [
        "--name",
        "x",
        "--filename",
        "f",
        "--size",
        "64k",
        "-rw",
        "randread",
        "--group_reporting",
        "--bs",
        "8k",
        "--write_lat_log",
        "--write_bw_log",
    ];
    let mut outcomes = Vec::new();
    for (tool, cmd) in [("ioscope", ioscope(spaced)), ("fio", common::fio(spaced))] {
        let sub = dir.path().join(tool);
        std::fs::create_dir(&sub).unwrap();
        let run = cmd.dir(&sub).arg("--output-format=json").run();
        let v = run.json();
        let x = job(&v, "x");
        assert_eq!(x["job options"]["rw"], "randread", "{}", run.describe());
        let mut logs: Vec<String> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .collect();
        logs.sort();
        outcomes.push((u(&x["read"], "total_ios"), u(&x["read"], "io_kbytes"), logs));
    }
    // Eight 8k reads; write_lat_log took `--write_bw_log` as its name.
    assert_eq!(outcomes[0].0, 8);
    assert_eq!(outcomes[0].2[0], "--write_bw_log_clat.1.log");
    assert_eq!(outcomes[0], outcomes[1], "ioscope, then fio");

    // A flag takes no next argument: `1` is a job file, in both.
    let args = [
        "--name=x",
        "--filename=f",
        "--size=64k",
        "--time_based",
        "1",
    ];
    let err = ioscope(args)
        .dir(dir.path())
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("job file '1'"), "{err}");
    assert!(!common::fio(args).dir(dir.path()).run().status.success());
    // An option that needs a value and has none is refused, in both.
    let args = ["--name=x", "--filename=f", "--size=64k", "--rw"];
    let err = ioscope(args).run().assert_refused().to_string();
    assert!(err.contains("--rw needs a value"), "{err}");
    assert!(!common::fio(args).run().status.success());

    // gtod_reduce: an empty bandwidth log, as fio's.
    for (tool, cmd) in [("ioscope", ioscope([""; 0])), ("fio", common::fio([""; 0]))] {
        let sub = dir.path().join(format!("gtod-{tool}"));
        std::fs::create_dir(&sub).unwrap();
        cmd.args([
            "--name=g",
            "--filename=f",
            "--size=64k",
            "--gtod_reduce=1",
            "--write_bw_log=b",
            "--output-format=json",
        ])
        .dir(&sub)
        .run()
        .ok_json();
        let log = std::fs::read_to_string(sub.join("b_bw.1.log")).unwrap();
        assert_eq!(log, "", "{tool}");
    }
}

// Before: a group whose later member set unified_rw_reporting=1 folded
// that member's writes into the group's reads, where fio sums each
// worker by the group's first member's setting (reads and writes apart).
#[test]
fn a_group_folds_directions_by_its_first_members_setting_as_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let args = [
        "--filename=f",
        "--size=64k",
        "--group_reporting",
        "--output-format=json",
        "--name=b",
        "--rw=read",
        "--name=d",
        "--rw=write",
        "--unified_rw_reporting=1",
    ];
    let counts = |v: &serde_json::Value| {
        let b = job(v, "b");
        assert!(b.get("mixed").is_none(), "{b}");
        (u(&b["read"], "total_ios"), u(&b["write"], "total_ios"))
    };
    let ours = counts(&ioscope(args).dir(dir.path()).run().ok_json());
    assert_eq!(ours, (16, 16));
    assert_eq!(
        ours,
        counts(&common::fio(args).dir(dir.path()).run().ok_json())
    );
}

// Before: ioengine=null at iodepth=8 kept 8 I/Os in flight, where fio's
// null engine answers BUSY from a commit until the reap, so its depth is
// one batch (iodepth_batch_submit), and hands back every event at once:
// the IO depths, submit and complete lines differed from fio's.
#[test]
fn depth_submit_and_complete_lines_are_fios_at_depth() {
    require!(ioscope_testutil::fio());
    let dists = |v: &serde_json::Value| {
        let j = &v["jobs"][0];
        ["iodepth_level", "iodepth_submit", "iodepth_complete"].map(|k| {
            let d = j[k].as_object().expect(k);
            // Buckets holding I/Os, rounded to whole percents.
            let mut held: Vec<(String, i64)> = d
                .iter()
                .filter(|(_, p)| p.as_f64().unwrap() >= 0.5)
                .map(|(b, p)| (b.clone(), p.as_f64().unwrap().round() as i64))
                .collect();
            held.sort();
            held
        })
    };
    for extra in [
        &["--iodepth=8"][..],
        &[
            "--iodepth=16",
            "--iodepth_batch_submit=8",
            "--iodepth_batch_complete_min=4",
        ],
        &[
            "--iodepth=32",
            "--iodepth_low=8",
            "--iodepth_batch_submit=16",
        ],
    ] {
        let args = [
            &[
                "--name=n",
                "--ioengine=null",
                "--size=1m",
                "--rw=randread",
                "--output-format=json",
            ][..],
            extra,
        ]
        .concat();
        let ours = dists(&ioscope(&args).run().ok_json());
        let theirs = dists(&common::fio(&args).run().ok_json());
        assert_eq!(ours, theirs, "{extra:?}: ioscope, then fio");
    }

    // Before: once a job had issued its last I/O, what was in flight was
    // reaped iodepth_batch_complete_max (1) at a time; fio waits for all
    // of it in one reap, which its complete line shows.
    let dir = tempdir();
    std::fs::write(dir.path().join("f"), vec![7u8; 1 << 20]).unwrap();
    let args = [
        "--name=n",
        "--ioengine=libaio",
        "--filename=f",
        "--size=1m",
        "--rw=randread",
        "--iodepth=16",
        "--iodepth_batch_submit=8",
        "--iodepth_batch_complete_min=4",
        "--output-format=json",
    ];
    let complete = |v: &serde_json::Value| dists(v)[2].clone();
    let ours = complete(&ioscope(args).dir(dir.path()).run().ok_json());
    assert!(ours.iter().any(|(b, _)| b == "16"), "{ours:?}");
    let theirs = complete(&common::fio(args).dir(dir.path()).run().ok_json());
    assert_eq!(ours, theirs, "ioscope, then fio");
}

// Before: `--rwmixr=30`, the start of one option's name, which fio's
// getopt_long_only takes for `--rwmixread=30`, was an unknown option.
#[test]
fn the_start_of_one_options_name_is_taken_for_it_as_in_fio() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let args = [
        "--name=m",
        "--filen=f",
        "--size=64k",
        "--rw=randrw",
        "--rwmixr=25",
        "--output-format=json",
    ];
    // Ambiguous in both: filename and filename_format.
    let err = ioscope(args)
        .dir(dir.path())
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("'--filen' is ambiguous"), "{err}");
    assert!(!common::fio(args).dir(dir.path()).run().status.success());

    let args = args.map(|a| if a == "--filen=f" { "--filename=f" } else { a });
    let options = |v: &serde_json::Value| job(v, "m")["job options"]["rwmixread"].clone();
    let ours = ioscope(args).dir(dir.path()).run().ok_json();
    assert_eq!(options(&ours), "25");
    assert_eq!(
        options(&ours),
        options(&common::fio(args).dir(dir.path()).run().ok_json())
    );
}

// Before: the slat log's lines came in the order the I/Os completed, so at
// depth their issue times went backwards; fio logs a submission latency as
// the I/O is submitted.
#[test]
fn slat_log_lines_are_in_submission_order_as_fios() {
    let dir = tempdir();
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("f"), data).unwrap();
    // Reads of 4 KiB to 1 MiB at depth 32, each handed to the kernel's
    // worker threads (force_async), overtake one another.
    ioscope([
        "--name=o",
        "--filename=f",
        "--rw=randread",
        "--bsrange=4k-1m",
        "--ioengine=io_uring",
        "--force_async=1",
        "--iodepth=32",
        "--io_size=256m",
        "--write_lat_log=o",
        "--log_offset=1",
        "--log_issue_time=1",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let issue_times = |name: &str| -> Vec<u64> {
        std::fs::read_to_string(dir.path().join(name))
            .unwrap()
            .lines()
            .map(|l| l.rsplit(',').next().unwrap().trim().parse().unwrap())
            .collect()
    };
    let backwards = |t: &[u64]| t.windows(2).filter(|w| w[1] < w[0]).count();
    let (slat, clat) = (issue_times("o_slat.1.log"), issue_times("o_clat.1.log"));
    assert!(
        backwards(&clat) > 0,
        "the completions kept their order: nothing shows"
    );
    assert_eq!(backwards(&slat), 0);
    let mut sorted = clat.clone();
    sorted.sort_unstable();
    assert_eq!(slat, sorted, "the same I/Os, in the order of their issue");
}

/// `openfiles=0`, fio's own default (all the files), and
/// `buffer_compress_chunk=0` (fio: a chunk of the smallest write) were
/// refused as below a minimum of 1, so a job file that spells out fio's
/// defaults did not run.
#[test]
fn zeroes_fio_takes_as_defaults_run() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let job = [
        "--name=z",
        "--nrfiles=3",
        "--openfiles=0",
        "--rw=write",
        "--bs=4k",
        "--size=96k",
        "--buffer_compress_percentage=50",
        "--buffer_compress_chunk=0",
        "--output-format=json",
    ];
    for doc in both_json(dir.path(), &job) {
        assert_eq!(u(&doc["jobs"][0]["write"], "io_bytes"), 96 << 10);
    }
    for n in 0..3 {
        let f = dir.path().join(format!("z.0.{n}"));
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 32 << 10, "{f:?}");
    }
}

/// `cmd_type=nvme` left in a job turned from io_uring_cmd to io_uring was
/// refused as an option of another engine; fio's two io_uring engines
/// share one option table, and io_uring ignores it.
#[test]
fn cmd_type_on_io_uring_is_taken_as_fio_takes_it() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let job = [
        "--name=c",
        "--filename=f",
        "--ioengine=io_uring",
        "--cmd_type=nvme",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--output-format=json",
    ];
    for doc in both_json(dir.path(), &job) {
        assert_eq!(u(&doc["jobs"][0]["write"], "io_bytes"), 64 << 10);
        assert_eq!(doc["jobs"][0]["job options"]["cmd_type"], "nvme");
    }
}

// Before: a server that refused the client's jobs (a mistyped option)
// sent its reason and quit, and `ioscope --client` exited 0 as fio's
// client does, though no job ran.
#[test]
fn a_client_whose_server_ran_no_job_fails() {
    let dir = tempdir();
    let socket = dir.path().join("s.sock");
    let at = format!("sock:{}", socket.display());
    let mut server = Command::new(bin())
        .arg(format!("--server={at}"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let started = Instant::now();
    while !socket.exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    write_file(
        dir.path(),
        "typo.fio",
        "[t]\nioengine=null\nsize=1m\nrw=raed\n",
    );
    let run = ioscope([format!("--client={at}"), "typo.fio".into()])
        .dir(dir.path())
        .run();
    let _ = server.kill();
    let _ = server.wait();
    assert!(!run.status.success(), "{}", run.describe());
    assert!(
        run.stdout.contains("raed"),
        "the server's reason: {}",
        run.describe()
    );
    assert!(run.stderr.contains("ran no job"), "{}", run.describe());
}

// Before: the status line began each draw with a carriage return and
// cleared the rest of the line with an escape sequence, and showed a
// percentage and an ETA from the first second; fio ends each draw with a
// carriage return, pads a shorter one with spaces, and shows the counts
// alone until it can estimate.
#[test]
fn the_status_line_is_drawn_as_fios() {
    let dir = tempdir();
    let run = ioscope([
        "--name=p",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=2",
        "--eta=always",
    ])
    .dir(dir.path())
    .run();
    run.assert_ok();
    assert!(!run.stdout.contains('\x1b'), "{}", run.describe());
    assert!(
        run.stdout.contains("\nJobs: 1 (f=1)\r"),
        "{}",
        run.describe()
    );
}

// Before: the verify state of a job file's second job was saved and looked
// for as `local-b-0-verify.state` (its clone number), where fio names it
// by the job's place in the run, `local-b-1-verify.state`: neither tool
// found the other's.
#[test]
fn verify_state_files_are_named_by_the_jobs_place_in_the_run() {
    require!(ioscope_testutil::fio());
    let jobs = |extra: &str| {
        format!(
            "[global]\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\n{extra}\n\
             [a]\nfilename=fa\n[b]\nfilename=fb\n[c]\nfilename=fc\n"
        )
    };
    let names = ["local-a-0", "local-b-1", "local-c-2"].map(|n| format!("{n}-verify.state"));
    for tool in ["ioscope", "fio"] {
        let dir = tempdir();
        let file = write_file(dir.path(), "w.fio", &jobs("do_verify=0"));
        let run = match tool {
            "fio" => common::fio([&file]),
            _ => ioscope([&file]),
        }
        .dir(dir.path())
        .run();
        assert!(run.status.success(), "{}", run.describe());
        for name in &names {
            assert!(dir.path().join(name).exists(), "{tool} saved no {name}");
        }
        // ioscope's verify_only finds each job's state, whoever saved it.
        let check = write_file(
            dir.path(),
            "v.fio",
            &jobs("verify_only=1\nverify_state_load=1"),
        );
        let v = ioscope(["--output-format=json".as_ref(), check.as_os_str()])
            .dir(dir.path())
            .run()
            .ok_json();
        let checked: Vec<u64> = (0..3).map(|j| u(&v["jobs"][j], "verify_checked")).collect();
        assert_eq!(checked, [16, 16, 16], "states {tool} saved");
    }
}

// Before: a state file of fio 3.41 or later (layout 5) was taken for its
// count of issued writes alone, and ioscope checked the writes it lists as
// still in flight when it was saved, which may never have landed; fio's
// verify_only stops before the first of them.
#[test]
fn a_fio_341_state_stops_before_its_first_write_in_flight() {
    let dir = tempdir();
    let args = |extra: &[&str]| -> Vec<String> {
        [
            "--name=s",
            "--filename=f",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
        ]
        .iter()
        .chain(["--verify=crc32c"].iter())
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
    };
    ioscope(args(&["--do_verify=0"]))
        .dir(dir.path())
        .run()
        .assert_ok();
    // fio's thread_io_list, layout 5: depth, numberio (16 issued), index,
    // the offsets' random state, the name, then 4 writes in flight (10
    // and 12; u64::MAX is a free slot).
    let mut list = vec![0u8; 144 + 4 * 8];
    list[..4].copy_from_slice(&4u32.to_le_bytes());
    list[8..16].copy_from_slice(&16u64.to_le_bytes());
    list[88..89].copy_from_slice(b"s");
    for (i, n) in [12, u64::MAX, 10, u64::MAX].iter().enumerate() {
        list[144 + 8 * i..152 + 8 * i].copy_from_slice(&n.to_le_bytes());
    }
    let mut state = 5u64.to_le_bytes().to_vec();
    state.extend_from_slice(&(list.len() as u64).to_le_bytes());
    state.extend_from_slice(&u64::from(common::fio_crc32c(&list)).to_le_bytes());
    state.extend_from_slice(&list);
    std::fs::write(dir.path().join("local-s-0-verify.state"), state).unwrap();
    let v = ioscope(args(&[
        "--verify_only=1",
        "--verify_state_load=1",
        "--output-format=json",
    ]))
    .dir(dir.path())
    .run()
    .ok_json();
    assert_eq!(u(&v["jobs"][0], "verify_checked"), 10);
}

// Before: a create_only job with verify= (a [global] section's, say) made
// its files, as fio does, then failed with "verify checked no block",
// where fio, which does no I/O for such a job, succeeds.
#[test]
fn a_create_only_job_with_verify_succeeds_as_fios() {
    let dir = tempdir();
    for rw in ["write", "randrw", "read"] {
        let v = ioscope([
            "--name=c",
            "--filename=f",
            "--size=1m",
            &format!("--rw={rw}"),
            "--create_only=1",
            "--verify=crc32c",
            "--output-format=json",
        ])
        .dir(dir.path())
        .run()
        .ok_json();
        let job = &v["jobs"][0];
        assert_eq!(
            u(&job["read"], "io_bytes") + u(&job["write"], "io_bytes"),
            0,
            "{rw}"
        );
        assert_eq!(
            std::fs::metadata(dir.path().join("f")).unwrap().len(),
            1 << 20,
            "{rw}"
        );
        // A writing job saves its verify state (no writes), as fio does.
        let state = dir.path().join("local-c-0-verify.state");
        assert_eq!(state.exists(), rw != "read", "{rw}");
        let _ = std::fs::remove_file(state);
        std::fs::remove_file(dir.path().join("f")).unwrap();
    }
}

// Before: a [global] num_range reached a job that does not trim, and
// ioscope refused that job ("does not trim") where fio runs it as without
// the option.
#[test]
fn num_range_leaves_a_job_that_does_not_trim_alone() {
    let dir = tempdir();
    let jobfile = write_file(
        dir.path(),
        "ranges.fio",
        "[global]\nnum_range=4\nsize=1m\nbs=4k\nfilename=f\n\
         [w]\nrw=write\nioengine=psync\n\
         [r]\nstonewall\nrw=randread\nioengine=io_uring\n",
    );
    let v = ioscope([jobfile.as_os_str(), "--output-format=json".as_ref()])
        .dir(dir.path())
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "w")["write"], "io_bytes"), 1 << 20);
    assert_eq!(u(&job(&v, "r")["read"], "io_bytes"), 1 << 20);
    assert_eq!(u(&job(&v, "r")["read"], "total_ios"), 256);
}

// Before: file_append with loops=3, io_size beyond size or a sequential
// time_based run rewrote the appended region pass after pass (3 MiB, or
// gigabytes in a second), where fio takes each pass's start from the
// file's size again, finds the new end, and writes the region once.
#[test]
fn file_append_writes_its_region_once_as_fios() {
    let dir = tempdir();
    let f = dir.path().join("f");
    for extra in [
        &["--rw=write", "--loops=3"][..],
        &["--rw=write", "--io_size=3m"],
        &["--rw=randwrite", "--loops=3"],
        &["--rw=write", "--time_based", "--runtime=1"],
    ] {
        std::fs::write(&f, vec![0u8; 512 << 10]).unwrap();
        let v = ioscope([
            "--name=a",
            "--filename=f",
            "--size=1m",
            "--file_append=1",
            "--output-format=json",
        ])
        .args(extra)
        .dir(dir.path())
        .run()
        .ok_json();
        assert_eq!(u(&v["jobs"][0]["write"], "io_bytes"), 1 << 20, "{extra:?}");
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 3 << 19, "{extra:?}");
    }
}

// Before: io_size beyond size made further passes whatever do_verify
// said; fio keeps its count of files done between passes unless
// do_verify, loops above 1 or time_based clears it, so with do_verify=0
// (a write job whose blocks are checked later) it stops after the pass
// that finished every file: 1 MiB of io_size=3m, not 3 MiB.
#[test]
fn io_size_beyond_size_with_do_verify_0_stops_as_fios() {
    let dir = tempdir();
    for (extra, bytes) in [
        (
            &["--rw=write", "--verify=crc32c", "--do_verify=0"][..],
            1 << 20,
        ),
        (&["--rw=randread", "--do_verify=0"], 1 << 20),
        // No random map: the file is never done, and the passes go on.
        (
            &["--rw=randread", "--do_verify=0", "--norandommap=1"],
            3 << 20,
        ),
        (&["--rw=read", "--do_verify=0", "--loops=2"], 3 << 20),
        (&["--rw=read"], 3 << 20),
    ] {
        let v = ioscope([
            "--name=a",
            "--filename=f",
            "--size=1m",
            "--io_size=3m",
            "--output-format=json",
        ])
        .args(extra)
        .dir(dir.path())
        .run()
        .ok_json();
        let job = &v["jobs"][0];
        let moved = u(&job["read"], "io_bytes") + u(&job["write"], "io_bytes");
        assert_eq!(moved, bytes, "{extra:?}");
    }
}
