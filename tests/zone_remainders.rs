//! The ends of zones that a block does not fill, with `zonemode=zbd` on a
//! file, against fio 3.42: by default such a zone is finished (its write
//! pointer moved to its end) and the write goes to the next zone; with
//! `write_zone_remainder` the rest of the zone takes a smaller write. fio
//! 3.33, the one CI installs, rewrote the first zone instead and has no
//! write_zone_remainder, so the reference I/Os in `tests/data/zbd342/`
//! are fio 3.42's (built from fio's source), recorded with
//!
//!     truncate -s 4M f
//!     fio --ioengine=psync --filename=f --size=4m --zonemode=zbd --zonesize=1m \
//!         --output-format=json ARGS --write_iolog=log
//!     awk '$3=="read"||$3=="write"||$3=="trim" {print $3,$4,$5}' log
//!
//! ioscope runs the same jobs and must do the same I/Os in the same order.
//! (Random jobs are not compared: fio 3.42 seeds its offsets otherwise
//! than fio 3.33, whose offsets ioscope draws; their zone rules are unit
//! tests of `crates/workload/src/zones/zbd.rs`.)

mod common;

use std::fs;
use std::path::Path;

use common::{ioscope, refusal, tempdir};

/// The reference's name and the job's own options (its last job logs).
const CASES: &[(&str, &[&str])] = &[
    // 21 blocks of 48 KiB to a zone, its last 16 KiB finished.
    ("finish", &["--name=z", "--rw=write", "--bs=48k"]),
    // The second loop finds the zones full and resets each.
    (
        "finish_loops",
        &["--name=z", "--rw=write", "--bs=48k", "--loops=2"],
    ),
    // At depth the finish waits for the writes in flight.
    (
        "finish_io_uring",
        &[
            "--name=z",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--rw=write",
            "--bs=48k",
            "--loops=2",
        ],
    ),
    // fio 3.33 refused a verify block size that does not divide the zone.
    (
        "finish_verify",
        &["--name=z", "--rw=write", "--bs=48k", "--verify=crc32c"],
    ),
    // A finished zone reads to its end.
    (
        "finish_then_read",
        &[
            "--name=w",
            "--rw=write",
            "--bs=48k",
            "--name=r",
            "--stonewall",
            "--rw=read",
            "--bs=64k",
        ],
    ),
    (
        "remainder_loops",
        &[
            "--name=z",
            "--rw=write",
            "--bs=48k",
            "--write_zone_remainder=1",
            "--loops=2",
        ],
    ),
    // The 16 KiB writes read back with one verify header each.
    (
        "remainder_verify",
        &[
            "--name=z",
            "--rw=write",
            "--bs=48k",
            "--write_zone_remainder=1",
            "--verify=crc32c",
        ],
    ),
    (
        "remainder_capacity",
        &[
            "--name=z",
            "--rw=write",
            "--bs=64k",
            "--zonecapacity=200k",
            "--write_zone_remainder=1",
            "--loops=2",
        ],
    ),
];

#[test]
fn zone_remainders_are_finished_or_written_as_fio_3_42() {
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/zbd342");
    for (name, job) in CASES {
        let d = tempdir();
        fs::File::create(d.path().join("f"))
            .unwrap()
            .set_len(4 << 20)
            .unwrap();
        let args = [
            &[
                "--ioengine=psync",
                "--filename=f",
                "--size=4m",
                "--zonemode=zbd",
                "--zonesize=1m",
                "--output-format=json",
            ][..],
            job,
            &["--write_iolog=log"],
        ]
        .concat();
        let run = ioscope(args).dir(d.path()).run();
        run.assert_ok();
        for doc in run.json()["jobs"].as_array().unwrap() {
            assert_eq!(doc["error"], 0, "{name}");
        }
        let ours = common::log_ios(&fs::read_to_string(d.path().join("log")).unwrap());
        let theirs: Vec<String> = fs::read_to_string(reference.join(format!("{name}.txt")))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert!(!theirs.is_empty(), "{name}");
        assert_eq!(ours, theirs, "{name}");
    }
}

/// fio 3.42 (init.c): write_zone_remainder's smaller writes need the
/// random map off, which it turns off unless norandommap=0 was given.
#[test]
fn write_zone_remainder_with_a_random_map_is_refused_as_fio_refuses_it() {
    let d = tempdir();
    let base = [
        "--parse-only",
        "--name=z",
        "--filename=f",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--rw=randwrite",
        "--write_zone_remainder=1",
    ];
    let e = refusal(d.path(), &base, &["--norandommap=0"]);
    assert!(
        e.contains("write_zone_remainder=1 requires norandommap=1"),
        "{e}"
    );
    ioscope(base).dir(d.path()).run().assert_ok();
}
