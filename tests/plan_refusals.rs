//! Every refusal a run makes before opening a target, made the same way by
//! `--parse-only`: a job file checked with `--parse-only` must not pass and
//! then fail when it is run.

mod common;

use common::{ioscope, tempdir};

/// Each job (command-line options after `--name=t`) and a part of the
/// message that refuses it. The target named is never created: the
/// refusal comes before anything is opened.
const REFUSED: &[(&[&str], &str)] = &[
    (
        &["--readonly", "--rw=write", "--size=1m"],
        "writes (rw=write), but ioscope runs with --readonly",
    ),
    (
        &[
            "--readonly",
            "--rw=randwrite",
            "--size=1m",
            "--verify=md5",
            "--verify_only=1",
            "--trim_percentage=10",
        ],
        "trims (rw=randwrite), but ioscope runs with --readonly",
    ),
    (
        &["--ioengine=null", "--rw=write", "--size=1m", "--verify=md5"],
        "verify needs an engine that stores what it writes; ioengine=null does no I/O",
    ),
    (
        &[
            "--ioengine=nop",
            "--rw=write",
            "--size=1m",
            "--verify=crc32c",
        ],
        "verify needs an engine that stores what it writes; ioengine=nop does no I/O",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--cmd_type=nvme",
            "--write_mode=zeroes",
            "--rw=write",
            "--size=1m",
            "--verify=md5",
        ],
        "verify with write_mode=zeroes: Write Zeroes carries no data to check",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--write_mode=zone_append",
            "--rw=write",
            "--size=1m",
        ],
        "io_uring_cmd with write_mode=zone_append requires zonemode=zbd",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--write_mode=uncor",
            "--rw=write",
            "--size=1m",
            "--verify=crc32c",
        ],
        "verify with write_mode=uncor: Write Uncorrectable leaves blocks that fail to read",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--write_mode=write/50:verify/50",
            "--rw=write",
            "--size=1m",
            "--verify=crc32c",
        ],
        "verify with write_mode=write/50:verify/50: only the Writes of a mix carry data",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--write_mode=write/50:zone_append/50",
            "--zonemode=zbd",
            "--zonesize=256k",
            "--rw=write",
            "--size=1m",
        ],
        "a mix with zone_append is not supported by ioscope",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--write_mode=zeroes",
            "--rw=randread",
            "--size=1m",
        ],
        "write_mode=zeroes: 'readwrite=|rw=' has no write",
    ),
    (
        &[
            "--rw=randwrite",
            "--size=1m",
            "--verify=md5",
            "--experimental_verify=1",
            "--trim_percentage=10",
        ],
        "experimental_verify with trim_percentage",
    ),
    (
        &[
            "--rw=write",
            "--size=1m",
            "--verify=md5",
            "--verify_only=1",
            "--time_based",
            "--runtime=1",
        ],
        "verify_only with time_based needs verify_state_load=1",
    ),
    (
        &["--rw=write", "--size=1m", "--verify=pattern"],
        "verify=pattern needs verify_pattern",
    ),
    (
        &[
            "--rw=write",
            "--size=1m",
            "--bs=4k",
            "--verify=md5",
            "--verify_interval=512",
            "--verify_offset=500",
        ],
        "verify_offset=500 leaves no room for the",
    ),
    (
        &["--rw=randtrim", "--size=1m", "--num_range=4"],
        "num_range=4: ioengine=psync sends one range per trim",
    ),
    (
        &[
            "--ioengine=io_uring_cmd",
            "--cmd_type=nvme",
            "--rw=trimwrite",
            "--size=1m",
            "--num_range=4",
        ],
        "num_range=4: rw=trimwrite writes each block right after trimming it",
    ),
    (
        &[
            "--ioengine=io_uring",
            "--hipri=1",
            "--rw=randread",
            "--size=1m",
        ],
        "polled completions with io_uring need O_DIRECT: the kernel cannot poll buffered I/O; \
         set direct=1 or drop hipri",
    ),
    (
        &["--ioengine=null", "--rw=randread"],
        "you need to specify size=",
    ),
];

#[test]
fn parse_only_refuses_what_a_run_refuses_with_the_same_message() {
    let dir = tempdir();
    for (options, expected) in REFUSED {
        let target = dir.path().join("target");
        let mut args = vec![
            "--name=t".to_string(),
            format!("--filename={}", target.display()),
        ];
        args.extend(options.iter().map(|o| o.to_string()));

        let run = ioscope(&args).dir(dir.path()).run();
        let run_says = run.assert_refused().to_string();
        assert!(
            run_says.contains(expected),
            "the run refused {options:?} for another reason (expected {expected:?}): {}",
            run.describe()
        );
        assert!(
            !target.exists(),
            "the run of {options:?} created its target before refusing it"
        );

        let mut checked = vec!["--parse-only".to_string()];
        checked.extend(args.iter().cloned());
        let parse_only = ioscope(&checked).dir(dir.path()).run();
        let parse_only_says = parse_only.assert_refused();
        assert_eq!(
            parse_only_says, run_says,
            "--parse-only and the run word the refusal of {options:?} differently"
        );
        assert_eq!(parse_only.status.code(), run.status.code());
    }
}
