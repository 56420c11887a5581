//! Regressions of "Trust": a run that did not do what was asked must never
//! look like success. Each test says what went wrong before.

mod common;

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, ioscope, tempdir, Mounted};

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
    let dir = tempdir();
    let mount = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(dir.path())
        .status();
    if !mount.is_ok_and(|s| s.success()) {
        println!("skipped: cannot mount a tmpfs (needs root)");
        return;
    }
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

/// Exit 128 and the line naming `signal`; `reported`: the jobs' report too.
fn assert_interrupted(out: &Output, signal: &str, reported: bool) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128), "{:?}\n{stderr}", out.status);
    assert!(
        stderr.contains(&format!("interrupted by {signal}")),
        "{stderr}"
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
