//! `ioscope peak`, end to end: the real binary on NOPs and on real files,
//! with each engine and switch, and how it refuses bad input.

mod common;

use std::path::{Path, PathBuf};

use common::{ioscope, tempdir, Run};
use ioscope_testutil::{o_direct, part};

/// The IOPS figures of the once-a-second lines.
fn seconds(stdout: &str) -> Vec<u64> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("IOPS="))
        .map(|rest| {
            rest.split(',')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("a second line without a number: IOPS={rest}"))
        })
        .collect()
}

/// The figure on the `Maximum IOPS=` line.
fn maximum(stdout: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Maximum IOPS="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no Maximum IOPS line in:\n{stdout}"))
}

/// Runs peak for one second and checks the run went well: exit 0, nothing
/// on stderr, a second's line with IOPS, bandwidth (unless NOPs) and
/// requests per call, and a Maximum line.
fn peak_ok(args: &[&str]) -> Run {
    let mut all = vec!["peak", "-r1"];
    all.extend_from_slice(args);
    let run = ioscope(all).run();
    run.assert_ok();
    let secs = seconds(&run.stdout);
    assert!(!secs.is_empty(), "no IOPS line: {}", run.describe());
    assert!(secs.iter().all(|&n| n > 0), "{}", run.describe());
    assert_eq!(maximum(&run.stdout), *secs.iter().max().unwrap());
    let line = run.stdout.lines().find(|l| l.starts_with("IOPS=")).unwrap();
    assert!(line.contains("IOS/call="), "{line}");
    assert_eq!(line.contains("BW="), !args.contains(&"-N1"), "{line}");
    assert!(run.stdout.contains("Average IOPS="), "{}", run.describe());
    run
}

/// A file of `blocks` 4 KiB blocks of known bytes, on a real file system.
fn data_file(dir: &Path, blocks: usize) -> PathBuf {
    let path = dir.join("data");
    let bytes: Vec<u8> = (0..blocks * 4096).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn nop_prints_seconds_and_a_maximum() {
    let run = peak_ok(&["-N1"]);
    assert!(
        run.stdout.contains("engine=io_uring NOP"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("Exiting on timeout"),
        "{}",
        run.describe()
    );
}

#[test]
fn nop_with_the_ring_fd_unregistered() {
    let run = peak_ok(&["-N1", "-X0", "-d16", "-s4", "-c4"]);
    assert!(
        run.stdout.contains("ring fd not registered"),
        "{}",
        run.describe()
    );
}

#[test]
fn reads_a_file_with_and_without_o_direct() {
    let dir = tempdir();
    let path = data_file(dir.path(), 256);
    let p = path.to_str().unwrap();
    peak_ok(&["-O0", p]);
    peak_ok(&["-O0", "-R0", "-b", "8192", p]);
    if part!("the O_DIRECT run", o_direct(dir.path())).is_some() {
        peak_ok(&["-O1", p]);
    }
}

#[test]
fn fixed_buffers_and_registered_files_on_and_off() {
    let dir = tempdir();
    let path = data_file(dir.path(), 64);
    let p = path.to_str().unwrap();
    let run = peak_ok(&["-O0", "-B1", "-F1", p]);
    assert!(
        run.stdout.contains("fixed buffers, registered files"),
        "{}",
        run.describe()
    );
    peak_ok(&["-O0", "-B0", "-F0", "-X0", p]);
}

#[test]
fn aio_and_pvsync2_engines() {
    let dir = tempdir();
    let path = data_file(dir.path(), 64);
    let p = path.to_str().unwrap();
    let direct = match part!("O_DIRECT (buffered instead)", o_direct(dir.path())) {
        Some(()) => "-O1",
        None => "-O0",
    };
    let run = peak_ok(&["-e", "aio", direct, p]);
    assert!(run.stdout.contains("engine=libaio"), "{}", run.describe());
    let run = peak_ok(&["-e", "pvsync2", direct, p]);
    assert!(run.stdout.contains("IOS/call=1/1"), "{}", run.describe());
}

#[test]
fn threads_share_the_files_and_can_be_pinned() {
    let dir = tempdir();
    let a = data_file(dir.path(), 32);
    let b = dir.path().join("other");
    std::fs::copy(&a, &b).unwrap();
    let run = peak_ok(&[
        "-O0",
        "-n2",
        "--cpus=0",
        "-d8",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(
        run.stdout.contains("thread 1 on CPU 0"),
        "{}",
        run.describe()
    );
}

/// peak opens read-only and never writes.
#[test]
fn the_file_is_left_as_it_was() {
    let dir = tempdir();
    let path = data_file(dir.path(), 16);
    let before = std::fs::read(&path).unwrap();
    peak_ok(&["-O0", "-R0", path.to_str().unwrap()]);
    assert!(std::fs::read(&path).unwrap() == before);
}

#[test]
fn a_missing_file_is_named() {
    let dir = tempdir();
    let missing = dir.path().join("nothing-here");
    let run = ioscope(["peak", "-r1", missing.to_str().unwrap()]).run();
    let err = run.assert_refused();
    assert!(
        err.contains("nothing-here") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn bad_options_are_refused_with_the_reason() {
    let refused = |args: &[&str]| ioscope(args.to_vec()).run().assert_refused().to_string();
    let err = refused(&["peak", "-N1", "--bogus"]);
    assert!(err.contains("--bogus"), "{err}");
    let err = refused(&["peak", "-N1", "-p2"]);
    assert!(err.contains("expected 0 or 1"), "{err}");
    let err = refused(&["peak", "-N1", "-d", "lots"]);
    assert!(err.contains("lots"), "{err}");
    let err = refused(&["peak"]);
    assert!(err.contains("at least one file"), "{err}");
    let err = refused(&["peak", "-N1", "-e", "aio"]);
    assert!(err.contains("io_uring NOPs"), "{err}");
    let dir = tempdir();
    let tiny = dir.path().join("tiny");
    std::fs::write(&tiny, b"x").unwrap();
    let err = refused(&["peak", "-O0", tiny.to_str().unwrap()]);
    assert!(err.contains("less than one 4096-byte block"), "{err}");
}

#[test]
fn help_lists_the_options() {
    let run = ioscope(["peak", "--help"]).run();
    run.assert_ok();
    for opt in [
        "-d, --depth",
        "-N, --nop",
        "-X, --register-ring",
        "-e, --engine",
    ] {
        assert!(run.stdout.contains(opt), "{opt}: {}", run.describe());
    }
}

/// Without -r the run goes on until Ctrl-C, which ends it cleanly: the
/// seconds so far, the summary, exit 0.
#[test]
fn ctrl_c_ends_an_open_ended_run_cleanly() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::bin())
        .args(["peak", "-N1", "-d8", "-s4", "-c4"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C once the first second's line is out. A fixed sleep could land
    // before it on a loaded machine, where the run had no second to show.
    let mut stdout = String::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    while !stdout.contains("\nIOPS=") {
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap() == 0 {
            break;
        }
        stdout.push_str(&line);
    }
    // SAFETY: a signal to the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    lines.read_to_string(&mut stdout).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}\n{stdout}\n{stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("Exiting on signal"), "{stdout}");
    assert!(!seconds(&stdout).is_empty(), "{stdout}");
    assert!(maximum(&stdout) > 0, "{stdout}");
}
