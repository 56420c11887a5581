//! fio's general options of no other family, run side by side with fio:
//! unified_rw_reporting, the buffer memory options, dedupe modes.

mod common;

use common::{fio, ioscope, job, u};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// A seeded random mix on the null engine: the split between reads and
/// writes is fio's random sequence, so both tools issue the same counts.
fn randrw(mode: &str) -> Vec<String> {
    [
        "--name=j",
        "--ioengine=null",
        "--rw=randrw",
        "--size=8m",
        "--io_size=16m",
        "--bs=4k",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--unified_rw_reporting={mode}")])
    .collect()
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

/// fio's keys of a job object, in fio's order, are ioscope's less the keys
/// ioscope adds (fio 3.42's and its own, which come after or beside).
fn assert_same_keys(fio_job: &Value, ours: &Value, what: &str) {
    let ours_keys = keys(ours);
    let mut at = 0;
    for k in keys(fio_job) {
        match ours_keys[at..].iter().position(|o| *o == k) {
            Some(p) => at += p + 1,
            None => panic!("{what}: fio's key {k:?} missing or out of order in {ours_keys:?}"),
        }
    }
}

#[test]
fn unified_rw_reporting_mixed_folds_the_directions_as_fio() {
    require!(fio_installed());
    let args = randrw("mixed");
    let theirs = fio(args.iter().chain(&["--output-format=json".to_string()])).run();
    let fj = job(&theirs.ok_json(), "j").clone();
    let ours = ioscope(args.iter().chain(&["--output-format=json".to_string()])).run();
    let oj = job(&ours.ok_json(), "j").clone();
    assert_same_keys(&fj, &oj, "mixed job");
    for absent in ["read", "write", "trim", "sync"] {
        assert!(oj.get(absent).is_none(), "{absent} present: {oj:#}");
    }
    assert_same_keys(&fj["mixed"], &oj["mixed"], "mixed object");
    for key in ["io_bytes", "total_ios", "short_ios", "drop_ios"] {
        assert_eq!(u(&oj["mixed"], key), u(&fj["mixed"], key), "{key}");
    }
    assert_eq!(u(&oj["mixed"], "total_ios"), 4096);
    assert_eq!(
        u(&oj["mixed"]["clat_ns"], "N"),
        u(&fj["mixed"]["clat_ns"], "N")
    );

    // Normal output: the "mixed" block, "MIXED" group line, and every
    // issued I/O counted as the first direction's.
    let text = |out: &str| {
        out.lines()
            .filter(|l| l.contains("issued rwts") || l.starts_with("  MIXED:"))
            .map(|l| {
                l.split(", bw=")
                    .next()
                    .unwrap()
                    .split(" bw=")
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    let f = fio(&args).run();
    let o = ioscope(&args).run();
    assert_eq!(text(&o.assert_ok().stdout), text(&f.assert_ok().stdout));
    assert!(o.stdout.contains("\n  mixed: IOPS="), "{}", o.stdout);
    assert!(
        o.stdout.contains("issued rwts: total=4096,0,0,0"),
        "{}",
        o.stdout
    );
}

#[test]
fn unified_rw_reporting_both_adds_mixed_after_the_directions() {
    require!(fio_installed());
    let args = randrw("both");
    let mut json_args = args.clone();
    json_args.push("--output-format=json".into());
    let fj = job(&fio(&json_args).run().ok_json(), "j").clone();
    let oj = job(&ioscope(&json_args).run().ok_json(), "j").clone();
    assert_same_keys(&fj, &oj, "both job");
    for dir in ["read", "write", "mixed"] {
        for key in ["io_bytes", "total_ios"] {
            assert_eq!(u(&oj[dir], key), u(&fj[dir], key), "{dir}.{key}");
        }
    }
    assert_eq!(
        u(&oj["mixed"], "total_ios"),
        u(&oj["read"], "total_ios") + u(&oj["write"], "total_ios")
    );
    assert_eq!(
        u(&oj["mixed"]["clat_ns"], "N"),
        u(&fj["mixed"]["clat_ns"], "N")
    );

    let group_lines = |out: &str| {
        out.lines()
            .filter(|l| l.ends_with("msec") && l.contains(": bw="))
            .map(|l| l.split(": bw=").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let f = fio(&args).run();
    let o = ioscope(&args).run();
    assert_eq!(
        group_lines(&o.assert_ok().stdout),
        group_lines(&f.assert_ok().stdout)
    );
    assert_eq!(group_lines(&o.stdout), ["   READ", "  WRITE", "  MIXED"]);
}
