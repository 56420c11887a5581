//! write_iolog and read_iolog end to end, against fio 3.33: a log one tool
//! writes, the other replays, and both do the same I/Os (count and bytes
//! per direction, flushes); the replay_* options change a replay as fio's
//! do; a malformed log is refused naming its file and line.
//!
//! fio 3.33 writes version 3 logs (with times) and reads versions 2 and 3,
//! so every direction is checked against fio itself. blktrace binary
//! traces, written here event by event, are replayed by both too.

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

/// The write_iologs of fio's run of `args` in `dir` and then of ioscope's,
/// without their times; `stale` (the job's files) is removed before each.
fn both_logs(dir: &Path, args: &[&str], stale: &[&str]) -> [Vec<String>; 2] {
    [("fio", "fio.log"), ("ioscope", "ours.log")].map(|(tool, log)| {
        for f in stale.iter().chain([&log]) {
            let _ = fs::remove_file(dir.join(f));
        }
        let write_log = format!("--write_iolog={log}");
        let args = [args, &[write_log.as_str()]].concat();
        if tool == "fio" {
            fio_json(dir, &args);
        } else {
            ioscope_json(dir, &args);
        }
        untimed(&fs::read_to_string(dir.join(log)).unwrap())
    })
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
    // The same reads and writes at the same offsets, in the same order
    // (the syncs between them: syncs_loops_and_verify_phases_log_as_fio_logs).
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

/// Whole logs, line for line (times aside), as fio 3.33 writes them where
/// syncs, loops, passes and verify meet: a sync due after a loop's last
/// write comes before the files are closed and again after they are opened
/// for the next loop; each loop's writes are read back before the next
/// loop starts (the files closed and opened around the verify phase); a
/// pass towards an `io_size` beyond `size` is a loop in all this, and
/// verify's reads count towards `io_size`; a file's `open` line comes as
/// its first I/O does, its `close` line as it is found done; a sync goes
/// to the file the file service picks next; a sync's line shows the offset
/// of the I/O before it and no length.
#[test]
fn syncs_loops_and_verify_phases_log_as_fio_logs() {
    require!(fio_installed());
    let d = tempdir();
    let jobs: [&[&str]; 19] = [
        &["--size=16k", "--rw=write", "--fsync=4", "--loops=2"],
        // end_fsync and fsync_on_close sync each file as each pass ends
        // (one closed already is opened for it), not after a sync, and
        // before a verify phase.
        &["--size=16k", "--rw=write", "--end_fsync=1", "--loops=3"],
        &[
            "--size=16k",
            "--rw=randwrite",
            "--fsync_on_close=1",
            "--loops=2",
        ],
        &[
            "--size=16k",
            "--rw=write",
            "--fsync=4",
            "--end_fsync=1",
            "--loops=2",
        ],
        &[
            "--size=32k",
            "--rw=write",
            "--end_fsync=1",
            "--verify=crc32c",
            "--loops=2",
        ],
        &[
            "--size=32k",
            "--rw=randrw",
            "--end_fsync=1",
            "--filename=f1:f2",
            "--loops=2",
        ],
        &["--size=16k", "--rw=write", "--fsync=3", "--loops=3"],
        &[
            "--size=64k",
            "--rw=randwrite",
            "--fsync=4",
            "--verify=crc32c",
            "--loops=2",
        ],
        &[
            "--size=64k",
            "--rw=write",
            "--sync_file_range=write:3",
            "--loops=2",
        ],
        &["--size=256k", "--rw=randrw", "--fdatasync=4", "--loops=2"],
        // Two files: each opened as its first I/O comes, in each loop.
        &[
            "--size=32k",
            "--rw=randread",
            "--loops=2",
            "--filename=f1:f2",
        ],
        &["--size=32k", "--io_size=64k", "--rw=write", "--fsync=8"],
        &[
            "--size=32k",
            "--io_size=96k",
            "--rw=write",
            "--fsync=8",
            "--verify=crc32c",
        ],
        // Several files with syncs: each sync takes its file's turn.
        &[
            "--size=32k",
            "--loops=2",
            "--rw=write",
            "--fsync=4",
            "--filename=f1:f2",
        ],
        &[
            "--size=48k",
            "--rw=randrw",
            "--fsync=2",
            "--filename=f1:f2:f3",
            "--file_service_type=random",
            "--loops=3",
        ],
        &[
            "--size=48k",
            "--rw=randrw",
            "--fdatasync=3",
            "--filename=f1:f2:f3",
            "--file_service_type=roundrobin:2",
            "--loops=2",
        ],
        &[
            "--size=48k",
            "--rw=randwrite",
            "--sync_file_range=write:3",
            "--filename=f1:f2:f3",
            "--loops=2",
        ],
        &[
            "--size=96k",
            "--rw=randwrite",
            "--fsync=5",
            "--nrfiles=3",
            "--openfiles=2",
            "--io_size=200k",
        ],
        &[
            "--size=96k",
            "--rw=randwrite",
            "--nrfiles=4",
            "--openfiles=2",
            "--file_service_type=random",
            "--fsync=7",
            "--loops=2",
            "--verify=crc32c",
        ],
    ];
    let stale = ["f", "f1", "f2", "f3", "w.0.0", "w.0.1", "w.0.2", "w.0.3"];
    for job in jobs {
        let named = |a: &&str| a.starts_with("--filename") || a.starts_with("--nrfiles");
        let file: &[&str] = if job.iter().any(named) {
            &[]
        } else {
            &["--filename=f"]
        };
        let args = [job, file, &["--name=w", "--bs=4k", "--ioengine=psync"]].concat();
        let logs = both_logs(d.path(), &args, &stale);
        let syncs = job.iter().any(|a| a.contains("sync"));
        assert_eq!(
            logs[0].iter().any(|l| l.contains("sync")),
            syncs,
            "{job:?}: {:?}",
            logs[0]
        );
        assert_eq!(logs[1], logs[0], "{job:?}");
    }
}

/// An engine that queues ends each pass once `size` is issued, as fio's
/// do_io counts the bytes its engine queued: a mapless or mixed random
/// job over `loops` makes passes of `size` whose random offsets start over
/// (before, one long pass, as on psync), and each pass's I/O is done
/// before the next begins, with its end_fsync between. The same I/Os as
/// fio's, line for line.
#[test]
fn passes_of_an_engine_that_queues_end_at_size_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    let jobs: [&[&str]; 6] = [
        &["--rw=randwrite", "--norandommap", "--loops=2"],
        &["--rw=randrw", "--norandommap", "--loops=3"],
        &["--rw=randrw", "--loops=2"],
        &["--rw=randread", "--norandommap", "--io_size=200k"],
        &[
            "--rw=randwrite",
            "--norandommap",
            "--io_size=100k",
            "--loops=2",
        ],
        &[
            "--rw=randwrite",
            "--end_fsync=1",
            "--loops=3",
            "--iodepth=1",
        ],
    ];
    for engine in ["--ioengine=io_uring", "--ioengine=libaio"] {
        for job in jobs {
            let common = [
                "--name=w",
                "--filename=f",
                "--bs=4k",
                "--size=64k",
                "--iodepth=4",
                engine,
            ];
            let logs = both_logs(d.path(), &[&common[..], job].concat(), &[]);
            assert!(logs[0].len() > 16, "{engine} {job:?}: {:?}", logs[0]);
            assert_eq!(logs[1], logs[0], "{engine} {job:?}");
        }
    }
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

/// fio sends a replayed trim with num_range above 1 as a range list it never
/// filled; ioscope refuses the job and says how to replay it.
#[test]
fn num_range_with_a_replay_is_refused_with_the_way_out() {
    let d = tempdir();
    data_file(d.path(), "f");
    write_file(
        d.path(),
        "t.log",
        "fio version 2 iolog\nf add\nf open\nf trim 0 4096\nf close\n",
    );
    let run = ioscope([
        "--name=r",
        "--filename=f",
        "--read_iolog=t.log",
        "--rw=trim",
        "--ioengine=null",
        "--num_range=4",
    ])
    .dir(d.path())
    .run();
    let err = run.assert_refused();
    assert!(
        err.contains("num_range=4 with read_iolog: a logged trim names one range")
            && err.contains("set num_range=1 or leave it out"),
        "{err}"
    );
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

/// blktrace's action words (blktrace_api.h): the basic action in the low
/// 16 bits, the categories above them.
mod blk {
    pub const QUEUE: u32 = 1 | 1 << (4 + 16);
    pub const READ: u32 = 1 << 16;
    pub const WRITE: u32 = 1 << (1 + 16);
    pub const ISSUE: u32 = 7 | 1 << (6 + 16);
    pub const COMPLETE: u32 = 8 | 1 << (7 + 16);
    pub const PROCESS: u32 = 1 << (10 + 16);
    /// 8:16 as the kernel's blktrace writes a dev_t.
    pub const DEVICE: u32 = 8 << 20 | 16;
}

/// One `struct blk_io_trace` event: (time ns, sector, bytes, action, pdu).
type BlkEvent = (u64, u64, u32, u32, Vec<u8>);

/// A blktrace binary trace of `events`, in either byte order.
fn blktrace(events: &[BlkEvent], big: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (seq, (time, sector, bytes, action, pdu)) in events.iter().enumerate() {
        let w32 = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let w64 = |v: u64| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let pdu_len = pdu.len() as u16;
        out.extend(w32(0x6561_7407)); // magic | version
        out.extend(w32(seq as u32));
        out.extend(w64(*time));
        out.extend(w64(*sector));
        out.extend(w32(*bytes));
        out.extend(w32(*action));
        out.extend(w32(4242)); // pid
        out.extend(w32(blk::DEVICE));
        out.extend(w32(1)); // cpu
        out.extend([0, 0]); // error
        out.extend(if big {
            pdu_len.to_be_bytes()
        } else {
            pdu_len.to_le_bytes()
        });
        out.extend(pdu);
    }
    out
}

/// A process notify (with its name as pdu), then 20 queued reads and
/// writes, each issued and completed; the (ios, bytes) of the reads and
/// of the writes.
fn blk_events() -> (Vec<BlkEvent>, [(u64, u64); 2]) {
    let mut events = vec![(100, 0, 0, blk::PROCESS, b"dd\0\0\0\0\0\0".to_vec())];
    let mut moved = [(0, 0); 2];
    for i in 0..20u64 {
        let write = i % 3 == 1;
        let dir = if write { blk::WRITE } else { blk::READ };
        let bytes = if i % 2 == 0 { 4096 } else { 8192 };
        let sector = (i * 37 % 480) & !7;
        let t = 1_000 + i * 20_000;
        events.push((t, sector, bytes, blk::QUEUE | dir, Vec::new()));
        events.push((t + 500, sector, bytes, blk::ISSUE | dir, Vec::new()));
        events.push((t + 9_000, sector, bytes, blk::COMPLETE | dir, Vec::new()));
        let m = &mut moved[usize::from(write)];
        m.0 += 1;
        m.1 += u64::from(bytes);
    }
    (events, moved)
}

#[test]
fn blktrace_replays_as_in_fio_in_either_byte_order() {
    require!(fio_installed());
    let d = tempdir();
    data_file(d.path(), "dev");
    let (events, [reads, writes]) = blk_events();
    fs::write(d.path().join("le.bin"), blktrace(&events, false)).unwrap();
    fs::write(d.path().join("be.bin"), blktrace(&events, true)).unwrap();
    let replay = |trace: &str, extra: &[&str]| -> Vec<String> {
        [
            "--name=r",
            &format!("--read_iolog={trace}"),
            "--replay_redirect=dev",
            "--replay_no_stall=1",
            "--ioengine=psync",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
    };
    let both = |args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ours = moved(&ioscope_json(d.path(), &args));
        let theirs = moved(&fio_json(d.path(), &args));
        assert_eq!(ours, theirs, "{args:?}");
        ours
    };
    let want = ([reads, writes, (0, 0)], 0);
    assert_eq!(both(&replay("le.bin", &[])), want);
    assert_eq!(both(&replay("be.bin", &[])), want);
    // fio 3.33 honours replay_skip in a blktrace replay.
    let no_writes = ([reads, (0, 0), (0, 0)], 0);
    assert_eq!(both(&replay("be.bin", &["--replay_skip=write"])), no_writes);
}

#[test]
fn a_truncated_blktrace_is_refused_naming_file_and_event() {
    let d = tempdir();
    data_file(d.path(), "dev");
    let (events, _) = blk_events();
    let trace = blktrace(&events, false);
    // 56 bytes of the process notify, then 48 for each event: the cut
    // falls inside the 61st (the last completion).
    fs::write(d.path().join("cut.bin"), &trace[..trace.len() - 10]).unwrap();
    let run = ioscope([
        "--name=r",
        "--read_iolog=cut.bin",
        "--replay_redirect=dev",
        "--parse-only",
    ])
    .dir(d.path())
    .run();
    let err = run.assert_refused();
    assert!(
        err.contains("read_iolog=cut.bin: event 61 (byte 2888): the trace ends inside it"),
        "{err}"
    );
}

/// merge_blktrace_file: two traces (one of each byte order) interleaved by
/// time, the second at merge_blktrace_scalars 50% and played twice
/// (merge_blktrace_iters); the replay issues the merged order at the
/// merged times. --merge-blktrace-only writes the file and runs nothing.
/// fio 3.33 cannot be the reference: its merge reads nothing (see
/// docs/logs.md).
#[test]
fn blktrace_traces_merge_by_time_scaled_and_repeated() {
    let d = tempdir();
    data_file(d.path(), "dev");
    const MS: u64 = 1_000_000;
    let read = blk::QUEUE | blk::READ;
    let write = blk::QUEUE | blk::WRITE;
    // a: reads at 1, 21 and 41 ms, with a process notify and completions.
    let a: Vec<BlkEvent> = vec![
        (100, 0, 0, blk::PROCESS, b"dd\0\0\0\0\0\0".to_vec()),
        (MS, 8, 4096, read, Vec::new()),
        (2 * MS, 8, 4096, blk::COMPLETE | blk::READ, Vec::new()),
        (21 * MS, 16, 4096, read, Vec::new()),
        (41 * MS, 24, 4096, read, Vec::new()),
    ];
    // b: writes at 10 and 30 ms; its last event, at 31 ms, is its length.
    let b: Vec<BlkEvent> = vec![
        (10 * MS, 100, 8192, write, Vec::new()),
        (30 * MS, 108, 8192, write, vec![1, 2, 3, 4]),
        (31 * MS, 108, 8192, blk::COMPLETE | blk::WRITE, Vec::new()),
    ];
    fs::write(d.path().join("a.bin"), blktrace(&a, false)).unwrap();
    fs::write(d.path().join("b.bin"), blktrace(&b, true)).unwrap();
    let opts = [
        "--name=r",
        "--read_iolog=a.bin:b.bin",
        "--merge_blktrace_file=m.bin",
        "--merge_blktrace_scalars=100:50",
        "--merge_blktrace_iters=1:2",
        "--replay_redirect=dev",
        "--ioengine=psync",
    ];

    let only = ioscope(opts.iter().copied().chain(["--merge-blktrace-only"]))
        .dir(d.path())
        .run();
    assert!(only.status.success(), "{}", only.describe());
    assert_eq!((only.stdout.as_str(), only.stderr.as_str()), ("", ""));
    // a's three reads and b's two writes twice, 48 bytes each.
    assert_eq!(fs::metadata(d.path().join("m.bin")).unwrap().len(), 7 * 48);

    let doc = ioscope_json(d.path(), &[&opts[..], &["--write_iolog=out.log"]].concat());
    assert_eq!(moved(&doc).0, [(3, 3 * 4096), (4, 4 * 8192), (0, 0)]);
    // b at half speed: 5 and 15 ms, then (10 + 31) / 2 and (30 + 31) / 2.
    let order: Vec<String> = untimed(&fs::read_to_string(d.path().join("out.log")).unwrap())
        .into_iter()
        .filter(|l| l.contains(" read ") || l.contains(" write "))
        .collect();
    assert_eq!(
        order,
        [
            "dev read 4096 4096",   // a, 1 ms
            "dev write 51200 8192", // b, 5 ms
            "dev write 55296 8192", // b, 15 ms
            "dev write 51200 8192", // b again, 20.5 ms
            "dev read 8192 4096",   // a, 21 ms
            "dev write 55296 8192", // b again, 30.5 ms
            "dev read 12288 4096",  // a, 41 ms
        ]
    );
    // Paced at the merged times: 40 ms from the first I/O to the last.
    let runtime = u(&doc["jobs"][0], "job_runtime");
    assert!(runtime >= 39, "job_runtime {runtime} ms");

    // One value per trace, or none.
    let run = ioscope(
        opts.iter()
            .copied()
            .chain(["--merge_blktrace_iters=2", "--parse-only"]),
    )
    .dir(d.path())
    .run();
    let err = run.assert_refused();
    assert!(
        err.contains("merge_blktrace_iters has 1 values for the 2 traces of read_iolog"),
        "{err}"
    );
}

/// Verify with read_iolog (refused as "not supported yet" until this
/// test): a replayed log's writes are read back and checked, as many
/// bytes as fio reads back, whether the log writes each block once, some
/// twice (norandommap) or over two loops; a block changed on disk after
/// the writes fails verify_only's replay; a log that only reads checks
/// what it reads; experimental_verify, which would draw the offsets again
/// and check nothing (fio 3.33 reads nothing back and reports success),
/// is refused.
#[test]
fn verify_checks_what_a_replayed_log_wrote() {
    require!(fio_installed());
    let d = tempdir();
    let dir = d.path();
    let replay = [
        "--name=r",
        "--filename=f",
        "--read_iolog=w.log",
        "--verify=crc32c",
    ];
    for writes in [
        &["--rw=randwrite"][..],
        &["--rw=randwrite", "--norandommap", "--io_size=512k"],
        &["--rw=write", "--bs=8k", "--loops=2"],
    ] {
        let _ = fs::remove_file(dir.join("w.log"));
        let gen = [
            &[
                "--name=w",
                "--filename=f",
                "--size=256k",
                "--write_iolog=w.log",
            ][..],
            writes,
        ]
        .concat();
        fio_json(dir, &gen);
        let [theirs, ours] = [true, false].map(|fio| {
            let _ = fs::remove_file(dir.join("f"));
            match fio {
                true => fio_json(dir, &replay),
                false => ioscope_json(dir, &replay),
            }
        });
        assert_eq!(moved(&ours).0, moved(&theirs).0, "{writes:?}");
        let checked = u(&ours["jobs"][0], "verify_checked");
        assert!(checked >= 32, "{writes:?}: {checked} checked");
        assert_eq!(u(&ours["jobs"][0], "verify_bad"), 0, "{writes:?}");
    }

    // A block changed after the writes: verify_only's replay finds it.
    let mut bytes = fs::read(dir.join("f")).unwrap();
    bytes[100 * 1024 + 700] ^= 0xff;
    fs::write(dir.join("f"), &bytes).unwrap();
    let run = ioscope(
        replay
            .iter()
            .chain(&["--verify_only=1", "--output-format=json"]),
    )
    .dir(dir)
    .run();
    let err = run.assert_refused();
    assert!(err.contains("verify failed"), "{err}");
    assert_eq!(
        u(&run.json()["jobs"][0], "verify_bad"),
        1,
        "{}",
        run.describe()
    );

    // A log that only reads, over blocks an ioscope verify job wrote.
    ioscope_json(
        dir,
        &[
            "--name=w",
            "--filename=f",
            "--size=256k",
            "--rw=write",
            "--verify=crc32c",
        ],
    );
    let _ = fs::remove_file(dir.join("r.log"));
    fio_json(
        dir,
        &[
            "--name=g",
            "--filename=f",
            "--size=256k",
            "--rw=randread",
            "--write_iolog=r.log",
        ],
    );
    let v = ioscope_json(
        dir,
        &[
            "--name=r",
            "--filename=f",
            "--read_iolog=r.log",
            "--verify=crc32c",
        ],
    );
    assert_eq!(u(&v["jobs"][0], "verify_checked"), 64, "{v}");

    let err = ioscope(replay.iter().chain(&["--experimental_verify=1"]))
        .dir(dir)
        .run()
        .assert_refused()
        .to_string();
    assert!(err.contains("experimental_verify"), "{err}");
}
