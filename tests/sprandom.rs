//! `sprandom` (fio 3.41) against fio 3.42. fio 3.33, the one CI installs,
//! has no sprandom, so the reference logs in `tests/data/sprandom/` are
//! fio 3.42's (built from fio's source), recorded with
//!
//!     fio --name=s --filename=sf --bs=4k --ioengine=psync --rw=randwrite \
//!         --sprandom=1 ARGS --write_iolog=LOG --output-format=json
//!
//! on a fresh file, and kept without their version line and times (as
//! `cut -d' ' -f2- LOG | sed 1d`). ioscope runs the same
//! jobs and must write the same log, line for line: the same blocks in the
//! same order, the same number of them (the physical capacity, or fewer
//! where the LFSR runs out first), and the same job end.

mod common;

use std::fs;
use std::path::Path;

use common::{ioscope, tempdir};
use serde_json::Value;

/// The reference log `name` and the job's own options.
const CASES: &[(&str, &[&str])] = &[
    ("regions4", &["--size=1m", "--spr_num_regions=4"]),
    (
        "cache64k",
        &["--size=2m", "--spr_num_regions=8", "--spr_cs=64k"],
    ),
    ("randrw", &["--size=1m", "--rw=randrw"]),
];

/// The lines of ioscope's log after its version line, without their times.
fn untimed(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

fn base<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--name=s",
        "--filename=sf",
        "--bs=4k",
        "--ioengine=psync",
        "--rw=randwrite",
        "--sprandom=1",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn sprandom_writes_what_fio_writes() {
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sprandom");
    for (name, extra) in CASES {
        let d = tempdir();
        let args = [
            base(extra),
            vec!["--write_iolog=log", "--output-format=json"],
        ]
        .concat();
        let run = ioscope(args).dir(d.path()).run();
        run.assert_ok();
        // fio says what it set, on its output, before the results.
        let out = &run.stdout;
        let (notes, json) = out.split_at(out.find('{').unwrap());
        assert_eq!(
            notes, "fio: sprandom sets random_generator=lfsr\nfio: sprandom sets norandommap=1\n",
            "{name}"
        );
        let doc: Value = serde_json::from_str(json).unwrap();
        assert_eq!(doc["jobs"][0]["error"], 0, "{name}");
        let expected: Vec<String> = fs::read_to_string(reference.join(format!("{name}.log")))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        let ours = untimed(&d.path().join("log"));
        assert_eq!(ours.len(), expected.len(), "{name}");
        assert_eq!(ours, expected, "{name}");
        let writes = expected.iter().filter(|l| l.contains(" write ")).count() as u64;
        assert_eq!(doc["jobs"][0]["write"]["total_ios"], writes, "{name}");
    }
}

#[test]
fn what_sprandom_needs_is_refused_as_fio_refuses_it() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--size=1m", "--rw=randread"],
            "sprandom requires random write, random_generator=lfsr, norandommap=1",
        ),
        (
            &["--size=1m", "--rw=write"],
            "sprandom requires random write, random_generator=lfsr, norandommap=1",
        ),
        (
            &["--size=1m", "--random_generator=tausworthe"],
            "sprandom requires random_generator=lfsr",
        ),
        (
            &["--size=1m", "--norandommap=0"],
            "sprandom requires norandommap=1",
        ),
        (
            &["--size=1m", "--filename=a:b"],
            "SPRandom supports only one file",
        ),
        (
            &["--size=1m", "--spr_op=1.5"],
            "1.5 is not an over-provisioning ratio in (0, 1)",
        ),
        (
            &["--size=1m", "--spr_num_regions=0"],
            "spr_num_regions",
        ),
        (
            &["--size=1m", "--spr_cs=1g", "--spr_num_regions=4"],
            "sprandom: spr_cs [1073741824] must be smaller than region_sz [301056] which means [0] regions allowed",
        ),
    ];
    for (extra, why) in cases {
        let d = tempdir();
        let run = ioscope(base(extra)).dir(d.path()).run();
        let err = run.assert_refused();
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}
