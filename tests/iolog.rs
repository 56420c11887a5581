//! write_iolog and read_iolog end to end, against fio 3.33: a log one tool
//! writes, the other replays, and both do the same I/Os (count and bytes
//! per direction, flushes); the replay_* options change a replay as fio's
//! do; a malformed log is refused naming its file and line.
//!
//! fio 3.33 writes version 3 logs (with times) and reads versions 2 and 3,
//! so every direction is checked against fio itself.

mod common;

use std::fs;
use std::path::Path;

use common::{fio, ioscope, tempdir, u, write_file};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// (ios, bytes) for read, write and trim, and the flushes, of the only job.
fn moved(doc: &Value) -> ([(u64, u64); 3], u64) {
    let j = &doc["jobs"][0];
    let dir = |d: &str| (u(&j[d], "total_ios"), u(&j[d], "io_bytes"));
    (
        [dir("read"), dir("write"), dir("trim")],
        j["sync"]["total_ios"].as_u64().unwrap_or(0),
    )
}

/// A 256 KiB file of data, so replayed reads find it.
fn data_file(dir: &Path, name: &str) {
    fs::write(dir.join(name), vec![0x5a; 256 * 1024]).unwrap();
}

fn fio_json(dir: &Path, args: &[&str]) -> Value {
    let run = fio(args.iter().copied().chain(["--output-format=json"]))
        .dir(dir)
        .run();
    assert!(run.status.success(), "{}", run.describe());
    run.json()
}

fn ioscope_json(dir: &Path, args: &[&str]) -> Value {
    ioscope(args.iter().copied().chain(["--output-format=json"]))
        .dir(dir)
        .run()
        .ok_json()
}

/// The lines of a log after its version line, without their times.
fn untimed(log: &str) -> Vec<String> {
    log.lines()
        .skip(1)
        .map(|l| l.split_once(' ').map_or("", |(_, rest)| rest).to_string())
        .collect()
}

const WORKLOAD: &[&str] = &[
    "--name=w",
    "--filename=f",
    "--size=256k",
    "--bs=4k",
    "--rw=randrw",
    "--ioengine=psync",
    "--fsync=4",
];

#[test]
fn ioscope_writes_what_fio_writes_and_fio_replays_it() {
    require!(fio_installed());
    let d = tempdir();
    data_file(d.path(), "f");
    let ours = ioscope_json(d.path(), &[WORKLOAD, &["--write_iolog=ours.log"]].concat());
    let log = fs::read_to_string(d.path().join("ours.log")).unwrap();
    assert!(log.starts_with("fio version 3 iolog\n"), "{log}");
    let lines = untimed(&log);
    assert_eq!(lines[..2], ["f add", "f open"]);
    assert_eq!(lines.last().map(String::as_str), Some("f close"));
    let theirs = fio_json(d.path(), &[WORKLOAD, &["--write_iolog=fio.log"]].concat());
    // The same reads and writes at the same offsets, in the same order;
    // fio also flushes after a read that follows the fsync'th write,
    // which ioscope does not (its flushes come after writes only).
    let io_lines = |text: &str| -> Vec<String> {
        untimed(text)
            .into_iter()
            .filter(|l| l.contains(" read ") || l.contains(" write "))
            .collect()
    };
    let fio_log = fs::read_to_string(d.path().join("fio.log")).unwrap();
    assert_eq!(io_lines(&log), io_lines(&fio_log));
    assert_eq!(moved(&ours).0, moved(&theirs).0);

    let replayed = fio_json(
        d.path(),
        &["--name=r", "--read_iolog=ours.log", "--ioengine=psync"],
    );
    assert_eq!(moved(&replayed), moved(&ours));
}

#[test]
fn ioscope_replays_what_fio_wrote() {
    require!(fio_installed());
    let d = tempdir();
    data_file(d.path(), "f");
    let theirs = fio_json(d.path(), &[WORKLOAD, &["--write_iolog=fio.log"]].concat());
    let replay = ["--name=r", "--read_iolog=fio.log", "--ioengine=psync"];
    let ours = ioscope_json(d.path(), &replay);
    let fio_replay = fio_json(d.path(), &replay);
    assert_eq!(moved(&ours), moved(&theirs));
    assert_eq!(moved(&ours), moved(&fio_replay));
    // The replay logs what it replays: the same I/O lines again.
    let again = ioscope_json(
        d.path(),
        &[&replay[..], &["--write_iolog=again.log"]].concat(),
    );
    assert_eq!(moved(&again), moved(&ours));
    let a = fs::read_to_string(d.path().join("fio.log")).unwrap();
    let b = fs::read_to_string(d.path().join("again.log")).unwrap();
    let io = |t: &str| -> Vec<String> {
        untimed(t)
            .into_iter()
            .filter(|l| !l.contains(" sync "))
            .collect()
    };
    assert_eq!(io(&a), io(&b));
}

/// A version 2 log (no times) over two files, with a wait and a flush.
/// (A `datasync` line is replayed as a flush too, but fio 3.33's JSON
/// leaves datasyncs out of the sync count, so this log has a `sync`.)
#[test]
fn version_2_logs_replay_as_in_fio() {
    require!(fio_installed());
    let d = tempdir();
    data_file(d.path(), "a");
    data_file(d.path(), "b");
    let log = "fio version 2 iolog\na add\nb add\na open\nb open\n\
               a read 0 4096\nb write 8192 8192\na wait 5 0\nb sync 0 0\n\
               a read 65536 512\nb read 4096 4096\na close\nb close\n";
    write_file(d.path(), "v2.log", log);
    let replay = ["--name=r", "--read_iolog=v2.log", "--ioengine=psync"];
    let ours = ioscope_json(d.path(), &replay);
    let theirs = fio_json(d.path(), &replay);
    assert_eq!(moved(&ours), moved(&theirs));
    assert_eq!(moved(&ours).0, [(3, 8704), (1, 8192), (0, 0)]);
}

#[test]
fn replay_options_change_the_replay_as_in_fio() {
    require!(fio_installed());
    let d = tempdir();
    data_file(d.path(), "f");
    data_file(d.path(), "other");
    fio_json(d.path(), &[WORKLOAD, &["--write_iolog=fio.log"]].concat());
    let base = ["--name=r", "--read_iolog=fio.log", "--ioengine=psync"];
    let full = ioscope_json(d.path(), &base);
    assert_eq!(moved(&full), moved(&fio_json(d.path(), &base)));
    let cases: &[&[&str]] = &[
        &["--replay_no_stall=1"],
        &["--replay_scale=4", "--replay_align=8192"],
    ];
    for extra in cases {
        let args = [&base[..], extra].concat();
        let ours = ioscope_json(d.path(), &args);
        let theirs = fio_json(d.path(), &args);
        assert_eq!(moved(&ours), moved(&theirs), "{extra:?}");
    }
    // fio 3.33 honours replay_skip for blktrace replays only; fio 3.42
    // (iolog.c) skips the directions of a text log too, which is what
    // ioscope does: the rest is replayed as it was.
    let (dirs, syncs) = moved(&full);
    let skipped = ioscope_json(d.path(), &[&base[..], &["--replay_skip=write"]].concat());
    assert_eq!(moved(&skipped), ([dirs[0], (0, 0), (0, 0)], syncs));
    let skipped = ioscope_json(
        d.path(),
        &[&base[..], &["--replay_skip=read,sync"]].concat(),
    );
    assert_eq!(moved(&skipped), ([(0, 0), dirs[1], (0, 0)], 0));

    // replay_scale then replay_align, as fio applies them: the offsets
    // replayed (ioscope logs its replay) are the logged ones divided by 4
    // and rounded down to 8 KiB.
    let args = [&base[..], &["--replay_scale=4", "--replay_align=8192"]].concat();
    ioscope_json(d.path(), &[&args[..], &["--write_iolog=ours.log"]].concat());
    let io = |name: &str| -> Vec<(String, u64)> {
        let t = fs::read_to_string(d.path().join(name)).unwrap();
        untimed(&t)
            .into_iter()
            .filter(|l| l.contains(" read ") || l.contains(" write "))
            .map(|l| {
                let w: Vec<&str> = l.split(' ').collect();
                (w[1].to_string(), w[2].parse().unwrap())
            })
            .collect()
    };
    let want: Vec<_> = io("fio.log")
        .into_iter()
        .map(|(dir, off)| (dir, (off / 4) & !8191))
        .collect();
    assert_eq!(io("ours.log"), want);

    // replay_redirect: every I/O goes to the other file, and only there.
    let args = [
        &base[..],
        &["--replay_redirect=other", "--write_iolog=redirect.log"],
    ]
    .concat();
    let ours = ioscope_json(d.path(), &args);
    let theirs = fio_json(
        d.path(),
        &[&base[..], &["--replay_redirect=other"]].concat(),
    );
    assert_eq!(moved(&ours), moved(&theirs));
    let t = fs::read_to_string(d.path().join("redirect.log")).unwrap();
    assert!(untimed(&t).iter().all(|l| l.starts_with("other ")), "{t}");
}

/// The log's times pace the replay: at replay_time_scale=5 a log that
/// spans 20 ms takes at least 400 ms; replay_no_stall ignores them.
#[test]
fn replay_follows_the_logs_times() {
    let d = tempdir();
    data_file(d.path(), "f");
    let log = "fio version 3 iolog\n0 f add\n0 f open\n0 f read 0 4096\n\
               10000 f read 4096 4096\n20000 f read 8192 4096\n20000 f close\n";
    write_file(d.path(), "t.log", log);
    let run = |extra: &str| {
        let r = ioscope([
            "--name=r",
            "--read_iolog=t.log",
            "--ioengine=psync",
            "--output-format=json",
            extra,
        ])
        .dir(d.path())
        .run();
        let doc = r.ok_json();
        assert_eq!(moved(&doc).0[0], (3, 12288));
        u(&doc["jobs"][0], "job_runtime")
    };
    let slow = run("--replay_time_scale=5");
    assert!(slow >= 400, "job_runtime {slow} ms");
    let fast = run("--replay_no_stall=1");
    assert!(fast < 100, "job_runtime {fast} ms");
}

#[test]
fn a_malformed_log_is_refused_naming_file_and_line() {
    let d = tempdir();
    data_file(d.path(), "f");
    write_file(
        d.path(),
        "bad.log",
        "fio version 2 iolog\nf add\nf read 0 4096\nf read zero 4096\n",
    );
    let run = ioscope(["--name=r", "--read_iolog=bad.log", "--parse-only"])
        .dir(d.path())
        .run();
    let err = run.assert_refused();
    assert!(
        err.contains("read_iolog=bad.log: line 4: 'zero' is not an offset"),
        "{err}"
    );
    write_file(d.path(), "v1.log", "f read 0 4096\n");
    let run = ioscope(["--name=r", "--read_iolog=v1.log"])
        .dir(d.path())
        .run();
    let err = run.assert_refused();
    assert!(
        err.contains("v1.log: line 1") && err.contains("version 1"),
        "{err}"
    );
    let run = ioscope(["--name=r", "--read_iolog=missing.log"])
        .dir(d.path())
        .run();
    assert!(run.assert_refused().contains("read_iolog=missing.log"));
}

#[test]
fn an_iolog_that_cannot_be_written_fails_the_job() {
    let d = tempdir();
    let run = ioscope([
        "--name=w",
        "--filename=f",
        "--size=16k",
        "--rw=write",
        "--write_iolog=/dev/full",
    ])
    .dir(d.path())
    .run();
    let err = run.assert_refused();
    assert!(
        err.contains("write_iolog") && err.contains("/dev/full"),
        "{err}"
    );
}
