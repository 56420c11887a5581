//! What a job does to the files it names: laying out, creating on open,
//! unlinking, and dropping their cached pages (fio's invalidate).

mod common;

use std::path::Path;

use common::{ioscope, job, tempdir, u};
use ioscope_testutil::resident_pages;

/// Writes `bytes` to `path` and makes sure they are on disk and cached.
fn cached_file(path: &Path, bytes: usize) {
    std::fs::write(path, vec![1u8; bytes]).unwrap();
    std::fs::File::open(path).unwrap().sync_all().unwrap();
    std::fs::read(path).unwrap();
    assert_eq!(resident_pages(path), bytes / 4096);
}

// A buffered read job measured the page cache where fio, which drops a
// file's cached pages when a job opens it (invalidate=1), measures the device.
#[test]
fn invalidate_drops_the_cache_before_a_read_job() {
    let dir = tempdir();
    let path = dir.path().join("data");
    cached_file(&path, 4 << 20);
    let file = path.to_str().unwrap();
    // Reads only the first 64 KiB: afterwards at most that much is cached.
    ioscope([
        "--name=r",
        "--rw=read",
        "--bs=4k",
        "--io_size=64k",
        &format!("--filename={file}"),
    ])
    .run()
    .assert_ok();
    let after = resident_pages(&path);
    assert!(after < 256, "{after} pages still cached after invalidate=1");

    cached_file(&path, 4 << 20);
    ioscope([
        "--name=r",
        "--rw=read",
        "--bs=4k",
        "--io_size=64k",
        "--invalidate=0",
        &format!("--filename={file}"),
    ])
    .run()
    .assert_ok();
    assert_eq!(
        resident_pages(&path),
        1024,
        "invalidate=0 must leave the cache alone"
    );
}

/// How many times `tool` (fio or ioscope) dropped the cached pages of a
/// 4 MiB file in job `args`, and how many I/Os it completed, from their
/// `--debug=io` lines (fio's go to its --output file).
fn drops(tool: &str, args: &[&str]) -> (usize, usize) {
    let dir = tempdir();
    std::fs::write(dir.path().join("data"), vec![1u8; 4 << 20]).unwrap();
    let run = common::Cmd::new(tool)
        .args([
            "--name=c",
            "--filename=data",
            "--size=4m",
            "--ioengine=psync",
        ])
        .args(args)
        .args(["--debug=io", "--output=out.txt"])
        .dir(dir.path())
        .run();
    assert!(run.status.success(), "{}", run.describe());
    let out = std::fs::read_to_string(dir.path().join("out.txt")).unwrap_or_default();
    let text = format!("{out}{}{}", run.stdout, run.stderr);
    (
        text.matches("declare unneeded cache data: 0/").count(),
        text.matches("complete: io_u").count(),
    )
}

// fio drops a file's cached pages (invalidate=1) when it opens it, again
// when a new loop reopens it, and, without O_DIRECT, wherever a timed job
// starts the file over (its random map full, or a sequential job at its
// end): every 1024 I/Os of 4 KiB here, at one more I/O.
#[test]
fn invalidate_drops_the_cache_where_fio_does() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let timed = ["--time_based", "--runtime=1"];
    let bin = common::bin();
    for tool in ["fio", bin.to_str().unwrap()] {
        for rw in ["--rw=randread", "--rw=read"] {
            let (drops, ios) = drops(tool, &[&[rw][..], &timed].concat());
            // The pages go at open, then before the 1025th I/O, the 2049th...
            // (at an exact multiple the runtime may end between a drop and
            // the I/O it came before, which then never completes).
            let expected = 1 + ios.saturating_sub(1) / 1024;
            let cut = ios % 1024 == 0 && drops == expected + 1;
            assert!(
                drops == expected || cut,
                "{tool} {rw}: {drops} drops for {ios} I/Os"
            );
            assert!(ios > 2048, "{tool} {rw}: {ios} I/Os in a second");
        }
        // A new loop reopens the file: once per loop.
        let looped = drops(tool, &["--rw=randread", "--size=1m", "--loops=3"]);
        assert_eq!(looped.0, 3, "{tool}: loops=3, {} I/Os", looped.1);
        // Not where O_DIRECT starts over, which has no cache to drop.
        let direct = drops(
            tool,
            &[&["--rw=randread", "--direct=1"][..], &timed].concat(),
        );
        assert_eq!(direct.0, 1, "{tool}: direct=1, {} I/Os", direct.1);
        let kept = drops(
            tool,
            &[&["--rw=randread", "--invalidate=0"][..], &timed].concat(),
        );
        assert_eq!(kept.0, 0, "{tool}: invalidate=0");
    }
}

#[test]
fn create_on_open_leaves_the_file_as_written() {
    let dir = tempdir();
    let v = ioscope([
        "--name=w",
        "--rw=write",
        "--size=1m",
        "--bs=64k",
        "--create_on_open=1",
        "--output-format=json",
    ])
    .dir(dir.path())
    .run()
    .ok_json();
    assert_eq!(u(&job(&v, "w")["write"], "io_bytes"), 1 << 20);
    let meta = std::fs::metadata(dir.path().join("w.0.0")).unwrap();
    assert_eq!(meta.len(), 1 << 20);
}

#[test]
fn unlink_removes_the_files_after_the_job() {
    let dir = tempdir();
    ioscope([
        "--name=u",
        "--rw=randwrite",
        "--size=1m",
        "--nrfiles=2",
        "--unlink=1",
    ])
    .dir(dir.path())
    .run()
    .assert_ok();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn a_read_job_lays_out_a_missing_file_and_says_so() {
    let dir = tempdir();
    let r = ioscope(["--name=lay", "--rw=read", "--size=2m"])
        .dir(dir.path())
        .run();
    r.assert_ok();
    assert!(
        r.stdout.contains("lay: Laying out IO file (1 file / 2MiB)"),
        "{}",
        r.describe()
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("lay.0.0")).unwrap().len(),
        2 << 20
    );
}

// A job behind a stonewall that could not be set up made the whole run fail
// with nothing printed, though the jobs before it had run.
#[test]
fn a_refused_later_phase_still_reports_the_phases_that_ran() {
    let dir = tempdir();
    let job = common::write_file(
        dir.path(),
        "two.fio",
        // A refusal that needs the target (a missing file and no size): one
        // that needs none refuses the whole run before anything runs.
        "[first]\nioengine=null\nsize=1m\n\n[second]\nstonewall\nrw=read\nfilename=missing\n",
    );
    let r = ioscope([job.to_str().unwrap(), "--output-format=json"])
        .dir(dir.path())
        .run();
    assert_eq!(r.status.code(), Some(1), "{}", r.describe());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("the first phase's JSON");
    assert_eq!(u(&common::job(&v, "first")["read"], "io_bytes"), 1 << 20);
    assert!(
        r.stderr.contains("you need to specify size="),
        "{}",
        r.describe()
    );
}

/// Runs `tool` on a 64 KiB file `data` (laid out by the first loop, or
/// already there) with `args`; returns the exit code, the job's error and
/// bytes moved in `dir` ("read" or "write"), and the file's size and mode
/// afterwards (None when it is gone).
fn unlinking(
    tool: &str,
    args: &[&str],
    dir: &str,
    existing: bool,
) -> (Option<i32>, u64, u64, Option<(u64, u32)>) {
    let tmp = tempdir();
    let path = tmp.path().join("data");
    if existing {
        std::fs::write(&path, vec![1u8; 64 << 10]).unwrap();
    }
    let run = common::Cmd::new(tool)
        .args([
            "--name=u",
            "--filename=data",
            "--size=64k",
            "--ioengine=psync",
        ])
        .args(["--unlink_each_loop=1", "--output-format=json"])
        .args(args)
        .dir(tmp.path())
        .run();
    let (v, _) =
        common::extract_json(&run.stdout).unwrap_or_else(|| panic!("no JSON: {}", run.describe()));
    let j = job(&v, "u");
    let after = std::fs::metadata(&path).ok().map(|m| {
        (
            m.len(),
            std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777,
        )
    });
    (
        run.status.code(),
        u(j, "error"),
        u(&j[dir], "io_bytes"),
        after,
    )
}

// unlink_each_loop: a writing job's next loop writes a new file (mode
// 0600); a reading job's next loop finds none and fails with ENOENT after
// its first, in fio 3.33 as in ioscope.
#[test]
fn unlink_each_loop_starts_each_loop_on_a_new_file_as_fio_does() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let bin = common::bin();
    for tool in ["fio", bin.to_str().unwrap()] {
        let written = unlinking(tool, &["--rw=write", "--loops=3"], "write", false);
        assert_eq!(
            written,
            (Some(0), 0, 3 << 16, Some((64 << 10, 0o600))),
            "{tool}: write"
        );
        let random = unlinking(tool, &["--rw=randwrite", "--loops=2"], "write", false);
        assert_eq!(
            random,
            (Some(0), 0, 2 << 16, Some((64 << 10, 0o600))),
            "{tool}: randwrite"
        );
        let read = unlinking(tool, &["--rw=read", "--loops=2"], "read", true);
        assert_eq!(read, (Some(1), 2, 1 << 16, None), "{tool}: read");
    }
    // What ioscope cannot renew under the engine is refused, with why.
    for (extra, why) in [
        ("--ioengine=mmap", "mapping"),
        ("--verify=crc32c", "verifies each loop"),
    ] {
        let dir = tempdir();
        let run = ioscope(["--name=u", "--filename=data", "--size=64k", "--rw=write"])
            .args(["--unlink_each_loop=1", "--loops=2", extra])
            .dir(dir.path())
            .run();
        let stderr = run.assert_refused();
        assert!(
            stderr.contains("unlink_each_loop with ioengine=") && stderr.contains(why),
            "{stderr}"
        );
    }
}
