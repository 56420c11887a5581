//! Zones end to end, against fio 3.33: `zonemode=strided` visits the same
//! offsets in the same order (write_iolog sequences compared), sizes in
//! zones (`z`) mean what fio's do, fio's checks between zonemode and
//! zonesize refuse the same jobs, and fio's zoned examples
//! (read from the installed fio's source, see `common::fio_source`) run
//! or are refused by name.

mod common;

use std::ffi::OsString;
use std::fs;
use std::path::Path;

use common::{fio, ioscope, refusal, tempdir, u};
use ioscope_testutil::{fio as fio_installed, require};

/// Runs `args` in `dir` with `tool` ("fio" or ioscope), which must succeed.
fn run_ok<I, S>(tool: &str, args: I, dir: &Path) -> common::Run
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let run = if tool == "fio" {
        fio(args)
    } else {
        ioscope(args)
    }
    .dir(dir)
    .run();
    assert!(run.status.success(), "{tool}: {}", run.describe());
    run
}

/// Runs `args` with fio and with ioscope on a fresh file each, and returns
/// both tools' I/O sequences.
fn both(dir: &Path, args: &[&str]) -> (Vec<String>, Vec<String>) {
    both_on(dir, args, None)
}

/// As [`both`], on a file of `len` bytes made before each run when given
/// (fio reads an emulated zoned file's size before it lays the file out).
fn both_on(dir: &Path, args: &[&str], len: Option<u64>) -> (Vec<String>, Vec<String>) {
    let mut seqs = Vec::new();
    for (tool, log) in [("fio", "fio.log"), ("ioscope", "ours.log")] {
        // write_iolog appends: each run starts from no log and no file.
        for stale in ["f", log] {
            let _ = fs::remove_file(dir.join(stale));
        }
        if let Some(len) = len {
            fs::File::create(dir.join("f"))
                .unwrap()
                .set_len(len)
                .unwrap();
        }
        // psync unless the arguments name another engine.
        let job = std::iter::once("--ioengine=psync".to_string())
            .chain(args.iter().map(|a| a.to_string()))
            .chain([
                "--name=z".into(),
                "--filename=f".into(),
                format!("--write_iolog={log}"),
                "--output-format=json".into(),
            ]);
        run_ok(tool, job, dir);
        seqs.push(common::log_ios(&fs::read_to_string(dir.join(log)).unwrap()));
    }
    let ours = seqs.pop().unwrap();
    (seqs.pop().unwrap(), ours)
}

/// The strided jobs compared with fio: zonesize below, at and above
/// zonerange, zoneskip in bytes and in zones, wrap-around at the file's
/// end, loops (the walk starts over at `offset`), random offsets with the
/// random map, without it and with the LFSR, block size ranges and mixes.
const STRIDED: &[&[&str]] = &[
    &[
        "--size=4m",
        "--bs=256k",
        "--rw=read",
        "--zonesize=1m",
        "--zonerange=512k",
        "--zoneskip=1z",
    ],
    &[
        "--size=4m",
        "--bs=256k",
        "--rw=read",
        "--zonesize=256k",
        "--zoneskip=512k",
    ],
    &[
        "--size=4m",
        "--bs=256k",
        "--rw=randread",
        "--zonesize=512k",
        "--zonerange=1m",
        "--zoneskip=256k",
    ],
    &[
        "--size=4m",
        "--bs=256k",
        "--rw=read",
        "--zonesize=512k",
        "--zoneskip=256k",
        "--loops=2",
        "--offset=256k",
    ],
    &[
        "--size=4m",
        "--bs=4k",
        "--rw=randwrite",
        "--zonesize=1m",
        "--zonerange=256k",
        "--zoneskip=512k",
    ],
    // Without the random map: fio 3.33 marks the blocks of an I/O that
    // crosses the zone's end past its map's last word (docs/zones.md).
    &[
        "--size=4m",
        "--bsrange=4k-64k",
        "--rw=randrw",
        "--norandommap",
        "--zonesize=300k",
        "--zonerange=512k",
        "--zoneskip=100k",
    ],
    &[
        "--size=4m",
        "--bsrange=4k-64k",
        "--rw=rw",
        "--zonesize=300k",
        "--zonerange=512k",
        "--zoneskip=100k",
    ],
    &[
        "--size=4m",
        "--bs=4k",
        "--rw=randread",
        "--zonesize=64k",
        "--zonerange=512k",
        "--random_generator=lfsr",
    ],
    &[
        "--size=4m",
        "--bs=4k",
        "--rw=randread",
        "--zonesize=64k",
        "--zonerange=512k",
        "--norandommap",
    ],
    &[
        "--size=4m",
        "--bs=4k",
        "--rw=randread:4",
        "--zonesize=64k",
        "--zonerange=512k",
    ],
    &[
        "--size=8m",
        "--bs=64k",
        "--rw=write",
        "--zonesize=256k",
        "--zoneskip=2m",
        "--io_size=6m",
    ],
];

#[test]
fn strided_offsets_are_fios() {
    require!(fio_installed());
    let d = tempdir();
    for job in STRIDED {
        let args = [&["--zonemode=strided"], *job].concat();
        let (theirs, ours) = both(d.path(), &args);
        assert!(!theirs.is_empty(), "fio did no I/O for {args:?}");
        assert_eq!(ours, theirs, "{args:?}");
    }
}

#[test]
fn time_based_strided_walks_wrap_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    for rw in ["read", "randwrite"] {
        let args = [
            "--zonemode=strided",
            "--size=2m",
            "--bs=4k",
            "--zonesize=64k",
            "--zonerange=128k",
            "--zoneskip=64k",
            "--time_based",
            "--runtime=300ms",
        ];
        let rw = format!("--rw={rw}");
        let (theirs, ours) = both(d.path(), &[&args[..], &[rw.as_str()]].concat());
        // The runs last as long, not as many I/Os: compare what both did,
        // which is several passes over the 2 MiB file.
        let n = theirs.len().min(ours.len());
        assert!(n > 2048, "{n} I/Os");
        assert_eq!(ours[..n], theirs[..n], "{rw}");
    }
}

#[test]
fn sizes_in_zones_are_zonesize_multiples() {
    require!(fio_installed());
    let d = tempdir();
    let args = [
        "--zonemode=strided",
        "--zonesize=256k",
        "--zonerange=512k",
        "--size=8z",
        "--offset=1z",
        "--io_size=6z",
        "--zoneskip=1z",
        "--bs=64k",
        "--rw=read",
    ];
    let (theirs, ours) = both(d.path(), &args);
    assert_eq!(theirs.len(), 6 * 4);
    assert_eq!(ours, theirs);
}

#[test]
fn fios_zone_checks_refuse_the_same_jobs() {
    let d = tempdir();
    let refused = |args: &[&str]| {
        refusal(
            d.path(),
            &["--name=z", "--filename=f", "--size=1m", "--parse-only"],
            args,
        )
    };
    // fio: "--zonemode=none and --zonesize are not compatible."
    let e = refused(&["--zonesize=256k"]);
    assert!(e.contains("zonemode=none and zonesize=262144"), "{e}");
    // fio: "--zonesize must be specified when using --zonemode=strided."
    let e = refused(&["--zonemode=strided"]);
    assert!(e.contains("zonemode=strided needs zonesize"), "{e}");
    // fio turns a zone count without a zone size into nothing at all.
    let e = refused(&["--offset=2z"]);
    assert!(e.contains("offset=2z is a number of zones"), "{e}");
    // fio: "'z' suffix isn't applicable".
    let e = refused(&["--bs=1z"]);
    assert!(e.contains("bs"), "{e}");
    let e = refused(&["--zonemode=strided", "--zonesize=1m", "--size=1.5z"]);
    assert!(e.contains("not a number of zones"), "{e}");
    let e = refused(&["--max_open_zones=5000"]);
    assert!(e.contains("4096"), "{e}");
    let e = refused(&["--zone_reset_threshold=1.5"]);
    assert!(e.contains("between 0 and 1"), "{e}");
}

/// fio 3.33's examples/disk-zone-profile.fio with a sparse file for its
/// disk: 64 KiB reads of 256 MiB in each 2.25 GiB, wrapping around.
#[test]
fn disk_zone_profile_example_reads_what_fio_reads() {
    require!(fio_installed());
    let d = tempdir();
    let f = fs::File::create(d.path().join("f")).unwrap();
    f.set_len(5 << 30).unwrap();
    let example =
        fs::read_to_string(require!(common::fio_example("disk-zone-profile.fio"))).unwrap();
    assert!(example.contains("filename=/dev/sdb"));
    let mut seqs = Vec::new();
    for (tool, log) in [("fio", "fio.log"), ("ioscope", "ours.log")] {
        let job = example.replace("filename=/dev/sdb", "filename=f")
            + &format!("write_iolog={log}\nsize=1536m\n");
        fs::write(d.path().join("job.fio"), job).unwrap();
        let args = ["job.fio", "--output-format=json"];
        let run = run_ok(tool, args, d.path());
        let read = &run.json()["jobs"][0]["read"];
        assert_eq!(u(read, "io_bytes"), 1536 << 20, "{tool}");
        seqs.push(common::log_ios(
            &fs::read_to_string(d.path().join(log)).unwrap(),
        ));
        // write_bw_log with log_offset=1: the offset column is there.
        let bw = fs::read_to_string(d.path().join("disk-zone-profile_bw.1.log")).unwrap();
        let first = bw.lines().next().expect("a bandwidth sample");
        assert_eq!(first.split(',').count(), 6, "{tool}: {first}");
    }
    assert_eq!(seqs[1], seqs[0]);
    // Zones start at 0, 2.25 GiB, 4.5 GiB, then wrap: 256 MiB read in each.
    let zone_starts: Vec<u64> = seqs[0]
        .iter()
        .step_by(4096)
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(zone_starts, [0, 9 << 28, 18 << 28, 0, 9 << 28, 18 << 28]);
}

/// zonemode=zbd jobs on a regular file, which fio 3.33 cuts into empty
/// sequential-write-required zones: writes at the write pointers
/// (sequential, random with and without open-zone limits, block size
/// ranges, zone capacities, unaligned offsets), resets of full zones at
/// each loop and by `zone_reset_threshold`/`zone_reset_frequency`, mixed
/// jobs whose first reads become writes, reads below the write pointers
/// or past them (`read_beyond_wp`), and `zoneskip`.
const ZBD: &[&[&str]] = &[
    &["--bs=64k", "--rw=write", "--loops=2"],
    &["--bs=64k", "--rw=write", "--zonecapacity=192k"],
    &["--bs=16k", "--rw=write", "--size=768k", "--offset=100k"],
    &["--bs=16k", "--rw=write", "--zoneskip=256k"],
    &["--bs=4k", "--rw=randwrite"],
    &["--bs=4k", "--rw=randwrite", "--max_open_zones=2"],
    &[
        "--bs=4k",
        "--rw=randwrite",
        "--max_open_zones=3",
        "--job_max_open_zones=2",
    ],
    &["--bsrange=4k-64k", "--rw=randwrite", "--max_open_zones=2"],
    &[
        "--bs=4k",
        "--rw=randwrite",
        "--zone_reset_frequency=0.1",
        "--zone_reset_threshold=0.3",
        "--loops=2",
    ],
    &[
        "--bs=4k",
        "--rw=randrw",
        "--max_open_zones=2",
        "--rwmixread=70",
    ],
    &["--bs=64k", "--rw=rw"],
    &["--bs=64k", "--rw=read", "--read_beyond_wp=1"],
];

#[test]
fn zbd_write_pointers_on_a_file_are_fios() {
    require!(fio_installed());
    let d = tempdir();
    let zbd = ["--zonemode=zbd", "--zonesize=256k", "--size=1m"];
    for job in ZBD {
        let args = [&zbd[..], job].concat();
        let (theirs, ours) = both_on(d.path(), &args, Some(1 << 20));
        assert!(!theirs.is_empty(), "fio did no I/O for {args:?}");
        assert_eq!(ours, theirs, "{args:?}");
    }
    // The resets rewrite blocks: the same offsets come again.
    let args = [&zbd[..], ZBD[8]].concat();
    let (_, ours) = both_on(d.path(), &args, Some(1 << 20));
    let mut offsets: Vec<&str> = ours.iter().map(|l| l.as_str()).collect();
    offsets.sort_unstable();
    offsets.dedup();
    assert!(
        offsets.len() < ours.len() / 2 + 1,
        "{} of {}",
        offsets.len(),
        ours.len()
    );
    // The zones of a new file are empty: nothing to read below them.
    let args = [&zbd[..], &["--bs=64k", "--rw=read"]].concat();
    let (theirs, ours) = both_on(d.path(), &args, Some(1 << 20));
    assert!(theirs.is_empty() && ours.is_empty(), "{theirs:?} {ours:?}");
}

/// On an engine that queues, a zone closes as the write that filled it
/// completes, and a write that finds the open zones at their limit waits
/// for the writes in flight (fio's `io_u_quiesce`): the zones chosen at
/// depth are fio's (fio's own runs of these agree with each other).
#[test]
fn zbd_zones_close_as_their_writes_complete_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    let zbd = [
        "--zonemode=zbd",
        "--zonesize=256k",
        "--size=4m",
        "--direct=1",
    ];
    let jobs: &[&[&str]] = &[
        &[
            "--ioengine=io_uring",
            "--iodepth=8",
            "--max_open_zones=2",
            "--bs=64k",
        ],
        &[
            "--ioengine=io_uring",
            "--iodepth=32",
            "--max_open_zones=3",
            "--bsrange=4k-64k",
        ],
        &[
            "--ioengine=libaio",
            "--iodepth=16",
            "--max_open_zones=3",
            "--bs=4k",
        ],
        &[
            "--ioengine=io_uring",
            "--iodepth=8",
            "--max_open_zones=2",
            "--bs=64k",
            "--zonecapacity=192k",
            "--loops=2",
        ],
        &[
            "--ioengine=io_uring",
            "--iodepth=8",
            "--max_open_zones=2",
            "--bs=64k",
            "--verify=crc32c",
        ],
    ];
    for job in jobs {
        let args = [&zbd[..], job, &["--rw=randwrite"]].concat();
        // Which writes are in flight when a zone fills depends on when the
        // kernel completes them, for fio as for ioscope; on a loaded
        // machine (the other tests of this file run beside it) one run in
        // a few sees another batching. A pair that differs is run again,
        // twice at most: a real difference differs every time.
        let mut tries = 0;
        let (theirs, ours) = loop {
            tries += 1;
            let (theirs, ours) = both_on(d.path(), &args, Some(4 << 20));
            if ours == theirs || tries == 3 {
                break (theirs, ours);
            }
        };
        assert!(theirs.len() >= 64, "fio did too little for {args:?}");
        assert_eq!(ours, theirs, "{args:?} ({tries} tries)");
    }
}

/// The write line's zone reset count (fio's `nr_zone_resets`), in the
/// normal output, for full zones reset at the second loop and for
/// threshold resets.
#[test]
fn zbd_zone_resets_are_counted_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    let jobs: [&[&str]; 2] = [
        &["--bs=64k", "--rw=write", "--loops=2"],
        &[
            "--bs=4k",
            "--rw=randwrite",
            "--zone_reset_frequency=0.1",
            "--zone_reset_threshold=0.3",
            "--loops=2",
        ],
    ];
    for job in jobs {
        let mut lines = Vec::new();
        for tool in ["fio", "ioscope"] {
            fs::File::create(d.path().join("f"))
                .unwrap()
                .set_len(1 << 20)
                .unwrap();
            let args = [
                &[
                    "--name=z",
                    "--filename=f",
                    "--ioengine=psync",
                    "--zonemode=zbd",
                    "--zonesize=256k",
                    "--size=1m",
                ][..],
                job,
            ]
            .concat();
            let run = run_ok(tool, args, d.path());
            let out = &run.stdout;
            let resets = out
                .lines()
                .find_map(|l| l.split("; ").nth(1).filter(|t| t.ends_with("zone resets")))
                .map(str::to_string);
            lines.push(resets.unwrap_or_else(|| panic!("{tool}: no zone resets in {out}")));
        }
        assert_ne!(lines[0], "0 zone resets", "{job:?}");
        assert_eq!(lines[1], lines[0], "{job:?}");
    }
}

#[test]
fn time_based_zbd_writes_reset_full_zones_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    for rw in ["--rw=write", "--rw=randwrite", "--rw=randrw"] {
        let args = [
            "--zonemode=zbd",
            "--zonesize=256k",
            "--max_open_zones=2",
            "--size=1m",
            "--bs=4k",
            "--time_based",
            "--runtime=300ms",
            rw,
        ];
        let (theirs, ours) = both_on(d.path(), &args, Some(1 << 20));
        let n = theirs.len().min(ours.len());
        assert!(n > 1024, "{n} I/Os");
        assert_eq!(ours[..n], theirs[..n], "{rw}");
    }
}

#[test]
fn zbd_checks_refuse_as_fio_and_name_what_is_missing() {
    let d = tempdir();
    let refused = |args: &[&str]| {
        refusal(
            d.path(),
            &["--name=z", "--filename=f", "--size=1m", "--zonemode=zbd"],
            args,
        )
    };
    let e = refused(&["--parse-only"]);
    assert!(e.contains("zonemode=zbd needs zonesize"), "{e}");
    let e = refused(&["--parse-only", "--zonesize=256", "--rw=write"]);
    assert!(e.contains("at least 512 bytes"), "{e}");
    let e = refused(&["--parse-only", "--zonesize=256k", "--zonecapacity=512k"]);
    assert!(
        e.contains("zonecapacity=524288 is larger than zonesize"),
        "{e}"
    );
    let e = refused(&["--parse-only", "--zonesize=256k", "--job_max_open_zones=2"]);
    assert!(e.contains("without a global open zones limit"), "{e}");
    let e = refused(&["--parse-only", "--zonesize=64k", "--bs=128k", "--rw=write"]);
    assert!(e.contains("must fit in a zone"), "{e}");
    // A trim is a zone reset: one zone each (fio's words).
    let e = refused(&["--parse-only", "--zonesize=64k", "--rw=trim", "--bs=4k"]);
    assert!(
        e.contains("trim block size 4096 is not the zone size 65536"),
        "{e}"
    );
    let e = refused(&[
        "--parse-only",
        "--zonesize=64k",
        "--rw=trim",
        "--bsrange=64k-128k",
    ]);
    assert!(
        e.contains("bsrange and bssplit are not allowed for trim with zonemode=zbd"),
        "{e}"
    );
    // fio: "file/device size ... is smaller than zone size".
    fs::File::create(d.path().join("f"))
        .unwrap()
        .set_len(64 << 10)
        .unwrap();
    let e = refused(&["--zonesize=256k", "--size=64k", "--rw=write"]);
    assert!(e.contains("smaller than zone size 262144"), "{e}");
}

/// Verify with zonemode=zbd: the zones are emptied before the writes, a
/// full zone is never reset while they go on, and each loop's writes are
/// read back before the next loop; I/O for I/O as fio 3.33 on a file, for
/// random writes within an open-zone limit and a zone capacity, for
/// sequential loops and for a mix, each check passing.
#[test]
fn zbd_verify_reads_back_what_the_zones_hold_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    let jobs: [&[&str]; 3] = [
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--zonecapacity=768k",
            "--max_open_zones=2",
            "--verify=crc32c",
        ],
        &["--rw=write", "--bs=64k", "--loops=2", "--verify=md5"],
        &["--rw=randrw", "--bs=4k", "--verify=crc32c"],
    ];
    for job in jobs {
        let args = [&["--zonemode=zbd", "--zonesize=1m", "--size=4m"][..], job].concat();
        let (theirs, ours) = both_on(d.path(), &args, Some(4 << 20));
        let reads = ours.iter().filter(|l| l.starts_with("read")).count();
        assert!(reads > 64, "{reads} reads for {job:?}");
        assert_eq!(ours, theirs, "{job:?}");
    }
    // A block size that does not divide the zone verifies too, as in fio
    // 3.42 (fio 3.33 refused it): tests/zone_remainders.rs.
    for (extra, words) in [
        (
            "--zone_reset_frequency=0.1",
            "zone_reset_frequency with verify",
        ),
        (
            "--experimental_verify=1",
            "zonemode=zbd does not support experimental verify",
        ),
    ] {
        let e = refusal(
            d.path(),
            &["--name=z", "--filename=f", "--zonemode=zbd", "--parse-only"],
            &["--zonesize=1m", "--rw=randwrite", "--verify=crc32c", extra],
        );
        assert!(e.contains(words), "{e}");
    }
}

/// Runs a job file with fio and then with ioscope, each on a fresh 4 MiB
/// file `f` of 1 MiB emulated zones: random writes in three zones, then
/// the job `then` (its options after `[t]`, on `engine`), then a read of
/// everything. Returns each tool's JSON and I/Os (`write_iolog`).
fn after_random_writes(
    dir: &Path,
    engine: &str,
    then: &str,
) -> Vec<(serde_json::Value, Vec<String>)> {
    ["fio", "ioscope"]
        .into_iter()
        .map(|tool| {
            let _ = fs::remove_file(dir.join("log"));
            fs::File::create(dir.join("f"))
                .unwrap()
                .set_len(4 << 20)
                .unwrap();
            let job = format!(
                "[global]\nfilename=f\nsize=4m\nzonemode=zbd\nzonesize=1m\nioengine={engine}\n\
                 write_iolog=log\n[w]\nrw=randwrite\nbs=4k\nio_size=2m\nmax_open_zones=3\n\
                 [t]\nstonewall\n{then}\n[r]\nstonewall\nrw=read\nbs=64k\n"
            );
            fs::write(dir.join("z.fio"), job).unwrap();
            let run = run_ok(tool, ["z.fio", "--output-format=json"], dir);
            let ios = common::log_ios(&fs::read_to_string(dir.join("log")).unwrap());
            (run.json(), ios)
        })
        .collect()
}

/// Trims with zonemode=zbd are zone resets, as fio's: after random writes
/// in one job, a sequential or random trim job (a zone each) gives the
/// same I/Os as fio and empties the zones; a random trim skips zones
/// without data. Each tool's second job then reads nothing back.
#[test]
fn zbd_trims_reset_zones_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    for kind in ["trim", "randtrim"] {
        let runs = after_random_writes(d.path(), "psync", &format!("rw={kind}\nbs=1m"));
        for (j, _) in &runs {
            assert_eq!(u(&j["jobs"][2]["read"], "io_bytes"), 0, "{kind}");
        }
        let trims = runs[1].1.iter().filter(|l| l.starts_with("trim")).count();
        // Three zones hold the writes (max_open_zones=3): a random trim
        // finds those, a sequential one trims all four.
        assert_eq!(trims, if kind == "trim" { 4 } else { 3 }, "{kind}");
        assert_eq!(runs[1].1, runs[0].1, "{kind}");
    }
}

/// trimwrite and randtrimwrite with zonemode=zbd (refused as "not
/// supported yet" until this test): each trim resets a zone, and the
/// writes go through the zone rules as writes, so a random trim may find
/// a zone again once its write refilled it. After random writes in three
/// zones, I/O for I/O as fio 3.33, with zone-sized trims and smaller
/// writes (the trims run a zone ahead), on psync and at depth.
#[test]
fn zbd_trimwrite_resets_zones_and_writes_them_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    for (kind, bs, engine) in [
        ("trimwrite", "1m", "psync"),
        ("trimwrite", "64k,64k,1m", "psync"),
        ("trimwrite", "64k,64k,1m", "io_uring\niodepth=4"),
        ("randtrimwrite", "1m", "psync"),
        ("randtrimwrite", "64k,64k,1m", "io_uring\niodepth=4"),
    ] {
        let runs = after_random_writes(d.path(), engine, &format!("rw={kind}\nbs={bs}"));
        let case = format!("{kind} bs={bs} {engine}");
        let ours = &runs[1].1;
        let count = |what: &str| ours.iter().filter(|l| l.starts_with(what)).count();
        assert!(count("trim ") >= 3, "{case}: {ours:?}");
        assert!(count("write ") > 512 + 3, "{case}");
        assert_eq!(*ours, runs[0].1, "{case}");
    }
}

/// fio 3.33's examples/zbd-seq-read.fio with a sparse file for its disk:
/// the emulated zones are empty, so neither tool reads anything.
#[test]
fn zbd_seq_read_example_reads_nothing_from_empty_zones_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    let f = fs::File::create(d.path().join("f")).unwrap();
    f.set_len(150 << 30).unwrap();
    let example = fs::read_to_string(require!(common::fio_example("zbd-seq-read.fio"))).unwrap();
    assert!(example.contains("filename=/dev/sdd"));
    for tool in ["fio", "ioscope"] {
        let job = example
            .replace("filename=/dev/sdd", "filename=f")
            .replace("direct=1", "direct=0");
        fs::write(d.path().join("job.fio"), job).unwrap();
        let args = ["job.fio", "--output-format=json"];
        let run = run_ok(tool, args, d.path());
        assert_eq!(u(&run.json()["jobs"][0]["read"], "io_bytes"), 0, "{tool}");
    }
}

/// fio's libzbc examples are refused by name: ioscope will not have the
/// libzbc library. (zbd-rand-write.fio runs: tests/zones_shared.rs;
/// uring-cmd-zoned.fio on a zoned namespace: tests/nvme_vm.rs.)
#[test]
fn libzbc_examples_are_refused_with_the_reason() {
    let data = require!(common::fio_source()).join("examples");
    for name in ["libzbc-rand-write.fio", "libzbc-seq-read.fio"] {
        let e = ioscope([OsString::from("--parse-only"), data.join(name).into()])
            .run()
            .assert_refused()
            .to_string();
        assert!(e.contains("needs libzbc"), "{name}: {e}");
    }
}
