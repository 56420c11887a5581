//! Verify, end to end: clean write-then-verify runs pass, and every kind of
//! fault the `faulty` engine injects is caught by every verify method that
//! can see it, with the kind of fault named.

mod common;

use std::path::Path;

use common::{fio, ioscope, job, tempdir, u, Zram, VERIFY_METHODS as METHODS};
use ioscope_testutil::{fio as fio_installed, part, require};

/// What a run with one fault under one method must show.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exit non-zero, naming one of these kinds of corruption.
    Caught(&'static [&'static str]),
    /// The method cannot see it: the run passes.
    Missed,
    /// It may or may not land where the method looks; named if caught.
    Maybe(&'static [&'static str]),
    /// An I/O error, which ends the job whatever the method.
    IoError,
}

const FAULTS: [&str; 7] = [
    "bitflip",
    "drop",
    "misdirect",
    "torn",
    "short_read",
    "read_eio",
    "write_eio",
];

fn expect(method: &str, fault: &str) -> Expect {
    use Expect::*;
    const FLIP: &[&str] = &["bit flip"];
    // A fresh file reads back zeroes where a write never landed.
    const LOST: &[&str] = &["lost write"];
    const MISDIRECTED: &[&str] = &["misdirected write"];
    const TORN: &[&str] = &["torn write"];
    // %o puts the offset in the pattern, so a block at the wrong place
    // differs from what belongs there in a few bits of that offset.
    const PATTERN_MISDIRECTED: &[&str] = &[
        "pattern mismatch",
        "bit flip",
        "lost write",
        "misdirected write",
    ];
    match (method, fault) {
        // A short read is an I/O error (fio's EIO), seen by every method.
        (_, "read_eio" | "write_eio" | "short_read") => IoError,
        ("null", _) => Missed,
        // meta checks the header alone: a flip lands there rarely.
        ("meta", "bitflip") => Maybe(&["bit flip", "damaged header"]),
        // One header per 4 KiB block, in its first half: a torn write
        // leaves the header whole.
        ("meta", "torn") => Missed,
        (_, "bitflip") => Caught(FLIP),
        (_, "drop") => Caught(LOST),
        ("pattern", "misdirect") => Caught(PATTERN_MISDIRECTED),
        (_, "misdirect") => Caught(MISDIRECTED),
        ("pattern", "torn") => Caught(&["torn write", "lost write"]),
        (_, "torn") => Caught(TORN),
        _ => unreachable!("{method} × {fault}"),
    }
}

fn verify_args(method: &str) -> Vec<String> {
    let mut a = vec![format!("--verify={method}")];
    if method.starts_with("pattern") {
        a.push("--verify_pattern=0xa5%o\"ioscope\"".into());
    }
    a
}

#[test]
fn every_fault_is_caught_by_every_method_that_can_see_it() {
    let dir = tempdir();
    let mut table = String::new();
    let mut failures = Vec::new();
    for method in METHODS {
        for fault in FAULTS {
            let file = dir.path().join(format!("{method}-{fault}"));
            let mut args = vec![
                "--name=v".to_string(),
                format!("--filename={}", file.display()),
                "--size=2m".into(),
                "--bs=4k".into(),
                "--rw=randwrite".into(),
                "--ioengine=faulty".into(),
                format!("--fault={fault}"),
                "--fault_rate=5".into(),
                "--continue_on_error=verify".into(),
            ];
            args.extend(verify_args(method));
            let run = ioscope(&args).dir(dir.path()).run();
            let expected = expect(method, fault);
            let named = |kinds: &[&str]| kinds.iter().any(|k| run.stderr.contains(k));
            let outcome = match (expected, run.status.success()) {
                (Expect::Caught(kinds), false) if named(kinds) => "caught",
                (Expect::Missed, true) if run.stderr.is_empty() => "missed (as it must)",
                (Expect::Maybe(_), true) if run.stderr.is_empty() => "missed (may)",
                (Expect::Maybe(kinds), false) if named(kinds) => "caught (may)",
                (Expect::IoError, false) if run.stderr.contains("Input/output error") => {
                    "I/O error"
                }
                _ => {
                    failures.push(format!(
                        "{method} × {fault}: expected {expected:?}\n{}",
                        run.describe()
                    ));
                    "WRONG"
                }
            };
            table.push_str(&format!("{method:>13} × {fault:<10} {outcome}\n"));
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn clean_runs_pass_with_numjobs_random_sizes_and_every_method() {
    let dir = tempdir();
    for method in METHODS {
        let mut args = vec![
            "--output-format=json".to_string(),
            "--name=clean".into(),
            format!("--directory={}", dir.path().display()),
            "--size=4m".into(),
            "--bsrange=4k-64k".into(),
            "--rw=randwrite".into(),
            "--numjobs=3".into(),
            "--group_reporting".into(),
            "--ioengine=io_uring".into(),
            "--iodepth=8".into(),
        ];
        args.extend(verify_args(method));
        let v = ioscope(&args).dir(dir.path()).run().ok_json();
        let j = job(&v, "clean");
        let written = u(&j["write"], "io_bytes");
        assert_eq!(written, 3 * (4 << 20), "{method}: every byte written");
        // The verify phase reads every written block back.
        assert_eq!(
            u(&j["read"], "io_bytes"),
            written,
            "{method}: all read back"
        );
        assert_eq!(u(j, "verify_bad"), 0, "{method}");
        assert!(u(j, "verify_checked") > 0, "{method}");
        // As in fio, the write phase's time is the writes' runtime and the
        // verify phase's the reads'.
        let (w, r) = (u(&j["write"], "runtime"), u(&j["read"], "runtime"));
        assert!(
            w + r <= u(j, "job_runtime") + 2,
            "{method}: write {w} ms + read {r} ms > the job's {} ms",
            u(j, "job_runtime")
        );
    }
}

#[test]
fn a_bad_block_is_described_and_fails_the_job() {
    let dir = tempdir();
    let file = dir.path().join("f");
    let run = ioscope([
        "--name=one".to_string(),
        format!("--filename={}", file.display()),
        "--size=1m".into(),
        "--rw=write".into(),
        "--ioengine=faulty".into(),
        "--fault=bitflip".into(),
        "--fault_rate=100".into(),
        "--verify=crc32c".into(),
    ])
    .dir(dir.path())
    .run();
    let err = run.assert_refused();
    // Without continue_on_error the first bad block ends the job.
    assert_eq!(err.matches("verify failed").count(), 1, "{err}");
    assert!(err.contains("bit flip"), "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(run.stdout.contains("err=84"), "{}", run.describe());
}

#[test]
fn continue_on_error_counts_errors_as_fio_reports_them() {
    let dir = tempdir();
    let file = dir.path().join("f");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let args = [
        "--name=eio".to_string(),
        format!("--filename={}", file.display()),
        "--rw=randread".into(),
        "--ioengine=faulty".into(),
        "--fault=read_eio".into(),
        "--fault_rate=10".into(),
        "--continue_on_error=read".into(),
    ];
    let run = ioscope(std::iter::once("--output-format=json".to_string()).chain(args.clone()))
        .dir(dir.path())
        .run();
    let v = run.ok_json();
    let j = job(&v, "eio");
    // fio's stat.c reports the first error continue_on_error let pass as
    // the job's error; the run still succeeds (ok_json: exit status 0).
    assert_eq!(u(j, "error"), 5, "fio reports the first tolerated error");
    assert_eq!(u(j, "first_error"), 5);
    let errors = u(j, "total_err");
    let reads = u(&j["read"], "total_ios");
    assert!(errors > 0 && reads + errors == 256, "{errors} + {reads}");
    assert_eq!(
        u(j, "faults_injected"),
        errors,
        "every injected EIO counted"
    );

    let normal = ioscope(args).dir(dir.path()).run();
    normal.assert_ok();
    assert!(
        normal.stdout.contains(&format!(
            "errors    : total={errors}, first_error=5/<Input/output error>"
        )),
        "{}",
        normal.describe()
    );
}

#[test]
fn verify_dump_writes_the_bad_and_the_expected_block() {
    let dir = tempdir();
    let file = dir.path().join("f");
    let run = ioscope([
        "--name=dump".to_string(),
        format!("--directory={}", dir.path().display()),
        "--filename=f".into(),
        "--size=64k".into(),
        "--rw=write".into(),
        "--ioengine=faulty".into(),
        "--fault=bitflip".into(),
        "--fault_rate=100".into(),
        "--verify=md5".into(),
        "--verify_dump=1".into(),
    ])
    .dir(dir.path())
    .run();
    let err = run.assert_refused();
    assert!(err.contains("dumped to"), "{err}");
    let received = std::fs::read(dir.path().join("f.0.received")).unwrap();
    let expected = std::fs::read(dir.path().join("f.0.expected")).unwrap();
    assert_eq!(received.len(), 4096);
    let bits: u32 = received
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    assert_eq!(
        bits, 1,
        "one flipped bit between what was read and what was written"
    );
    assert!(file.exists());
}

#[test]
fn backlog_verify_only_and_trims() {
    let dir = tempdir();
    let path = |n: &str| dir.path().join(n).display().to_string();
    // Verify every 16 writes, 8 at a time, then the rest at the end.
    let v = ioscope([
        "--output-format=json".to_string(),
        "--name=backlog".into(),
        format!("--filename={}", path("b")),
        "--size=1m".into(),
        "--rw=randwrite".into(),
        "--verify=xxhash".into(),
        "--verify_backlog=16".into(),
        "--verify_backlog_batch=8".into(),
    ])
    .dir(dir.path())
    .run()
    .ok_json();
    let j = job(&v, "backlog");
    assert_eq!(
        u(&j["read"], "io_bytes"),
        1 << 20,
        "every block checked once"
    );

    // A later run of the same job checks what the first one wrote...
    let job_args = |extra: &[&str]| {
        let mut a = vec![
            "--name=again".to_string(),
            format!("--filename={}", path("b")),
            "--size=1m".into(),
            "--rw=randwrite".into(),
            "--verify=xxhash".into(),
            "--verify_only=1".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let v = ioscope(job_args(&["--output-format=json"]))
        .dir(dir.path())
        .run()
        .ok_json();
    let j = job(&v, "again");
    assert_eq!(u(&j["write"], "io_bytes"), 0, "verify_only writes nothing");
    assert_eq!(u(&j["read"], "io_bytes"), 1 << 20);

    // ...and finds a block that changed since.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path("b"))
        .unwrap();
    use std::os::unix::fs::FileExt;
    f.write_at(b"x", 300_000).unwrap();
    let run = ioscope(job_args(&[])).dir(dir.path()).run();
    let err = run.assert_refused();
    assert!(
        err.contains("offset 299008"),
        "the block holding byte 300000: {err}"
    );

    // trim_percentage: a fifth of the blocks are trimmed and read back as zeroes.
    let v = ioscope([
        "--output-format=json".to_string(),
        "--name=trims".into(),
        format!("--filename={}", path("t")),
        "--size=1m".into(),
        "--rw=randwrite".into(),
        "--verify=crc32c".into(),
        "--trim_percentage=20".into(),
    ])
    .dir(dir.path())
    .run()
    .ok_json();
    let j = job(&v, "trims");
    let trims = u(&j["trim"], "total_ios");
    assert!((25..=80).contains(&trims), "{trims} of 256 blocks trimmed");
    assert_eq!(
        u(&j["read"], "total_ios"),
        256,
        "trimmed blocks are read back too"
    );
    assert!(Path::new(&path("t")).exists());
}

#[test]
fn clean_run_on_zram_with_clones_side_by_side() {
    let z = require!(Zram::acquire());
    let dir = tempdir();
    let run = ioscope([
        "--output-format=json".to_string(),
        "--name=zv".into(),
        format!("--filename={}", z.path()),
        "--size=16m".into(),
        "--offset_increment=16m".into(),
        "--numjobs=2".into(),
        "--bsrange=4k-64k".into(),
        "--rw=randwrite".into(),
        "--ioengine=io_uring".into(),
        "--direct=1".into(),
        "--iodepth=16".into(),
        "--verify=crc32c".into(),
        "--verify_interval=4k".into(),
    ])
    .dir(dir.path())
    .run();
    // The clones share the device, so fio's warning comes before the JSON.
    let (v, before) = common::extract_json(&run.assert_ok().stdout).expect("JSON");
    assert!(before.starts_with("fio: multiple writers"), "{before}");
    let jobs = v["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 2);
    for j in jobs {
        assert_eq!(u(&j["write"], "io_bytes"), 16 << 20);
        assert_eq!(u(&j["read"], "io_bytes"), 16 << 20);
    }
}

#[test]
fn stale_data_is_told_from_a_lost_write() {
    // The second pass overwrites every block: where its write is dropped,
    // the block still holds the first pass's write.
    let dir = tempdir();
    let run = ioscope([
        "--name=twice".to_string(),
        format!("--filename={}", dir.path().join("f").display()),
        "--size=1m".into(),
        "--rw=write".into(),
        "--loops=2".into(),
        "--ioengine=faulty".into(),
        "--fault=drop".into(),
        "--fault_rate=10".into(),
        "--continue_on_error=verify".into(),
        "--verify=crc32c".into(),
    ])
    .dir(dir.path())
    .run();
    let err = run.assert_refused();
    assert!(err.contains("stale data"), "{err}");
    assert!(err.contains("holds write #"), "{err}");
}

/// Starts ioscope with `args` in `dir` and sends it SIGINT once it has
/// written more than `layout` bytes (the file's layout, if any, and then at
/// least one of the job's writes), read from /proc/<pid>/io; then waits for it.
// A fixed one-second delay once sent the signal before the job had begun
// writing on a loaded CI machine, so no state was saved and the test failed.
fn interrupt_once_writing(dir: &Path, args: &[String], layout: u64) {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(common::bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ioscope starts");
    let io = format!("/proc/{}/io", child.id());
    let written = || -> u64 {
        std::fs::read_to_string(&io)
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("wchar: "))
                    .and_then(|n| n.trim().parse().ok())
            })
            .unwrap_or(0)
    };
    let start = Instant::now();
    while written() <= layout {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("ioscope wrote no more than {layout} bytes in 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: a signal to the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().expect("ioscope ends");
    assert!(
        status.code().is_some(),
        "killed instead of exiting: {status}"
    );
}

#[test]
fn a_stopped_write_saves_its_state_and_a_later_verify_checks_that_much() {
    let dir = tempdir();
    let job_args = |extra: &[&str]| {
        let mut a = vec![
            "--name=crashy".to_string(),
            "--filename=f".into(),
            "--size=1m".into(),
            "--rw=randwrite".into(),
            "--norandommap".into(),
            "--time_based".into(),
            "--runtime=60".into(),
            "--verify=sha256".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // Ctrl-C while writing: fio's verify_state_save (on by default).
    interrupt_once_writing(dir.path(), &job_args(&[]), 1 << 20);
    let state = std::fs::read_to_string(dir.path().join("local-crashy-0-verify.state"))
        .expect("the stopped job saved its verify state");
    let writes: u64 = state
        .lines()
        .find_map(|l| l.strip_prefix("writes="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no writes= in {state}"));
    assert!(writes > 0, "{state}");

    // The same job, verify_only with the state: replays exactly those
    // writes and checks the blocks they left.
    let v = ioscope(job_args(&[
        "--verify_only=1",
        "--verify_state_load=1",
        "--output-format=json",
    ]))
    .dir(dir.path())
    .dir(dir.path())
    .run()
    .ok_json();
    let j = job(&v, "crashy");
    let checked = u(&j["read"], "total_ios");
    assert!(
        checked > 0 && checked <= writes.min(256),
        "{checked} blocks checked for {writes} writes"
    );

    // Without the state a time-based verify_only cannot know where to stop.
    let run = ioscope(job_args(&["--verify_only=1"]))
        .dir(dir.path())
        .dir(dir.path())
        .run();
    assert!(run.assert_refused().contains("verify_state_load"));
}

#[test]
fn verify_where_nothing_is_stored_is_refused() {
    // The null engine keeps nothing: every check would fail, or pass for
    // nothing.
    let run = ioscope([
        "--name=n",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--verify=md5",
    ])
    .run();
    assert!(run.assert_refused().contains("ioengine=null does no I/O"));
    let run = ioscope([
        "--name=n",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--verify_async=2",
        "--verify=md5",
    ])
    .run();
    assert!(run.assert_refused().contains("verify"));
}

#[test]
fn verify_only_runs_under_readonly() {
    // verify_only sends reads alone, so --readonly lets it check a device
    // (or a file) that must not be changed.
    let dir = tempdir();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "--name=ro".to_string(),
            format!("--filename={}", dir.path().join("f").display()),
            "--size=256k".into(),
            "--rw=write".into(),
            "--verify=crc32c".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    ioscope(args(&[])).dir(dir.path()).run().assert_ok();
    ioscope(args(&["--readonly", "--verify_only=1"]))
        .dir(dir.path())
        .run()
        .assert_ok();
    let run = ioscope(args(&["--readonly"])).dir(dir.path()).run();
    assert!(run.assert_refused().contains("--readonly"));
}

/// A copy of `file` with the bits `mask` of the byte at `at` flipped.
fn damaged(file: &Path, at: usize, mask: u8) -> std::path::PathBuf {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[at] ^= mask;
    let copy = file.with_extension(format!("bad{at}"));
    std::fs::write(&copy, bytes).unwrap();
    copy
}

/// verify_pattern without verify= writes fio's headers and the pattern
/// around them (fio's VERIFY_PATTERN, verify=pattern_hdr in fio 3.42), and
/// a verify_only run, or a read job, checks both: one damaged byte of the
/// pattern and one of a header (its offset field) are named. Where fio
/// 3.42 is installed each tool checks what the other wrote, and each finds
/// the damage in the other's; ioscope also checks what fio 3.33 wrote (its
/// header had no version byte), which fio 3.42 refuses. Checked against
/// fio 3.42 so (PATH=/path/to/fio-3.42:$PATH).
#[test]
fn pattern_hdr_blocks_check_both_ways_with_fio() {
    let dir = tempdir();
    let job_args = |rw: &str, file: &Path, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--name=p",
            "--ioengine=psync",
            "--bs=4k",
            "--size=256k",
            "--verify_pattern=0xdeadbeef%o",
            "--verify_interval=1k",
            "--verify_offset=100",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.push(format!("--rw={rw}"));
        a.push(format!("--filename={}", file.display()));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let ours = dir.path().join("ours");
    ioscope(job_args("write", &ours, &["--do_verify=0"]))
        .dir(dir.path())
        .run()
        .assert_ok();
    // The header of the interval at 9216 lies at 9316; byte 17 of it is
    // in its offset field. 11192 is in the pattern.
    let (in_pattern, in_header) = (8192 + 3000, 9216 + 100 + 17);
    let check = |file: &Path, rw: &str| {
        let extra: &[&str] = if rw == "write" {
            &["--verify_only"]
        } else {
            &[]
        };
        ioscope(job_args(rw, file, extra)).dir(dir.path()).run()
    };
    for rw in ["write", "read"] {
        let run = check(&ours, rw);
        run.assert_ok();
        assert!(
            run.stdout.contains("checked=64, bad=0"),
            "{}",
            run.describe()
        );
    }
    let bad_of = |file: &Path| {
        for (at, what) in [(in_pattern, "pattern"), (in_header, "header")] {
            let run = check(&damaged(file, at, 0x01), "write");
            let err = run.assert_refused();
            assert!(
                err.contains("verify failed") && err.contains(&format!("bit flip at offset {at}")),
                "a damaged {what} byte: {}",
                run.describe()
            );
        }
    };
    bad_of(&ours);

    let Some(()) = part!(
        "checking blocks fio wrote, and fio checking ioscope's",
        fio_installed()
    ) else {
        return;
    };
    let theirs = dir.path().join("theirs");
    let r = fio(job_args("write", &theirs, &["--do_verify=0"]))
        .dir(dir.path())
        .run();
    assert!(r.status.success(), "{}", r.describe());
    for rw in ["write", "read"] {
        let run = check(&theirs, rw);
        run.assert_ok();
        assert!(
            run.stdout.contains("checked=64, bad=0"),
            "{}",
            run.describe()
        );
    }
    if common::fio_version() < (3, 42) {
        // A fio before 3.42 lays its header out otherwise (40 bytes, no
        // version byte): ioscope reads that layout too, and names the
        // damage from the header alone (fio's time field is in its crc).
        for (at, said) in [
            (
                in_pattern,
                format!("pattern mismatch at offset {in_pattern}"),
            ),
            (in_header, "damaged header at offset 9316".to_string()),
        ] {
            let run = check(&damaged(&theirs, at, 0x01), "write");
            let err = run.assert_refused();
            assert!(
                err.contains(&said) && err.contains("a fio before 3.42"),
                "{}",
                run.describe()
            );
        }
        return;
    }
    bad_of(&theirs);
    let fio_check = |file: &Path| {
        fio(job_args("write", file, &["--verify_only"]))
            .dir(dir.path())
            .run()
    };
    let r = fio_check(&ours);
    assert!(
        r.status.success() && !r.stderr.contains("verify"),
        "fio 3.42 checks what ioscope wrote: {}",
        r.describe()
    );
    // fio 3.42 names both. It fails the job for the header only: its
    // verify_io_u goes on to a block's next interval, whose verdict
    // replaces a bad pattern's (ioscope fails the job either way).
    for (at, said) in [
        (in_pattern, "bad pattern block offset 952"),
        (in_header, "bad header offset"),
    ] {
        let r = fio_check(&damaged(&ours, at, 0x01));
        assert!(
            format!("{}{}", r.stdout, r.stderr).contains(said)
                && (at == in_pattern || !r.status.success()),
            "fio 3.42 finds the damage in ioscope's block: {}",
            r.describe()
        );
    }
}
