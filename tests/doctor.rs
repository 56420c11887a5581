//! The doctor end to end: `ioscope doctor` on this machine and on a file,
//! and the notices runs carry (io-wq punts, buffer options on a trim, the
//! machine's checklist on a QD1 job on zram0, and not on a file).

mod common;

use std::path::Path;

use common::{ioscope, tempdir, Zram};
use ioscope_testutil::{punt_counter, require};
use serde_json::Value;

/// Whether this machine says it is a guest (the CPU's hypervisor flag).
fn hypervisor_flag() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| {
        c.lines()
            .any(|l| l.starts_with("flags") && l.split_whitespace().any(|f| f == "hypervisor"))
    })
}

fn checks<'a>(v: &'a Value, list: &str) -> Vec<&'a str> {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} array: {v:#}"))
        .iter()
        .map(|c| c["check"].as_str().expect("a check's name"))
        .collect()
}

fn kinds(notices: &Value) -> Vec<&str> {
    notices
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {notices}"))
        .iter()
        .map(|n| n["kind"].as_str().expect("a kind"))
        .collect()
}

#[test]
fn doctor_checks_the_machine_and_says_whether_it_is_a_vm() {
    let r = ioscope(["doctor"]).run();
    r.assert_ok();
    let out = &r.stdout;
    assert!(
        out.starts_with("ioscope doctor: the machine, for a QD1 latency run\n"),
        "{out}"
    );
    assert!(out.contains("\nFindings ("), "{out}");
    let v = ioscope(["doctor", "--output-format=json"]).run().ok_json();
    assert_eq!(v["target"], Value::Null);
    // Every machine check is listed once, found, fine or not told.
    let mut all: Vec<&str> = ["findings", "fine", "not_checked"]
        .iter()
        .flat_map(|l| checks(&v, l))
        .collect();
    all.sort_unstable();
    assert_eq!(
        all,
        [
            "CPU frequency governor",
            "CPU idle states",
            "clocksource",
            "haltpoll in a guest",
            "virtual machine"
        ]
    );
    let vm = checks(&v, "findings").contains(&"virtual machine");
    assert_eq!(vm, hypervisor_flag(), "{v:#}");
    if vm {
        let finding = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "virtual_machine")
            .unwrap();
        let m = finding["message"].as_str().unwrap();
        assert!(m.contains("hypervisor flag in /proc/cpuinfo"), "{m}");
        assert!(
            out.contains("virtual machine: this is a virtual machine ("),
            "{out}"
        );
    }
    // Each finding has its reason and fix in the message.
    for f in v["findings"].as_array().unwrap() {
        let m = f["message"].as_str().unwrap();
        assert!(m.contains(':') && m.contains(';'), "{f}");
    }
}

#[test]
fn doctor_checks_the_device_under_a_file() {
    let d = tempdir();
    let file = d.path().join("data");
    std::fs::write(&file, b"x").unwrap();
    let v = ioscope([
        "doctor".to_string(),
        "--output-format=json".into(),
        file.display().to_string(),
    ])
    .run()
    .ok_json();
    assert_eq!(v["target"]["path"], file.display().to_string());
    match common::block_device_of(d.path()) {
        Some(dev) => {
            assert_eq!(v["target"]["device"], dev.as_str(), "{v:#}");
            let mut device: Vec<&str> = ["findings", "fine", "not_checked"]
                .iter()
                .flat_map(|l| checks(&v, l))
                .filter(|c| ["I/O scheduler", "iostats", "add_random", "write cache"].contains(c))
                .collect();
            device.sort_unstable();
            assert_eq!(
                device,
                ["I/O scheduler", "add_random", "iostats", "write cache"]
            );
            // iostats is reported as it is.
            let on = std::fs::read_to_string(format!("/sys/block/{dev}/queue/iostats"))
                .is_ok_and(|s| s.trim() == "1");
            assert_eq!(checks(&v, "findings").contains(&"iostats"), on, "{v:#}");
        }
        None => {
            assert_eq!(v["target"]["device"], Value::Null);
            assert!(checks(&v, "not_checked").contains(&"device"), "{v:#}");
        }
    }
}

#[test]
fn doctor_refuses_a_path_that_does_not_exist() {
    let d = tempdir();
    let missing = d.path().join("missing");
    let r = ioscope(["doctor".to_string(), missing.display().to_string()]).run();
    let err = r.assert_refused();
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(r.stdout.is_empty(), "{}", r.describe());
    ioscope(["doctor", "--output-format=xml"])
        .run()
        .assert_refused();
}

fn file_job(dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--output-format=json".to_string(),
        "--name=j".into(),
        format!("--filename={}", dir.join("data").display()),
        "--bs=4k".into(),
        "--size=1m".into(),
        // The TSC may be unusable here: a clock notice would be right,
        // and is not what these tests are about.
        "--clocksource=clock_gettime".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// Buffered writes through io_uring go to io-wq on most filesystems; the
/// measured share is a notice, naming what to try.
#[test]
fn punted_buffered_writes_are_a_notice_with_their_share() {
    require!(punt_counter());
    let d = tempdir();
    let v = ioscope(file_job(
        d.path(),
        &[
            "--ioengine=io_uring",
            "--rw=write",
            "--iodepth=4",
            "--count_punts=1",
            // Sure to punt on any filesystem.
            "--force_async=1",
        ],
    ))
    .run()
    .ok_json();
    // (An older kernel may also refuse optional ring flags: another notice.)
    let punts: Vec<&Value> = v["notices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "io_wq_punts")
        .collect();
    assert_eq!(punts.len(), 1, "{:#}", v["notices"]);
    let n = punts[0];
    assert_eq!(n["option"], "direct");
    let m = n["message"].as_str().unwrap();
    assert!(m.contains("punted 256 of 256 I/Os (100.0%)"), "{m}");
    assert!(
        m.contains("ioengine=pvsync2") && m.contains("nowait=1"),
        "{m}"
    );
    // Not counted, not told.
    let v = ioscope(file_job(
        d.path(),
        &["--ioengine=io_uring", "--rw=write", "--force_async=1"],
    ))
    .run()
    .ok_json();
    assert!(!kinds(&v["notices"]).contains(&"io_wq_punts"), "{v:#}");
}

#[test]
fn buffer_options_on_a_trim_are_a_notice() {
    let d = tempdir();
    let v = ioscope(file_job(
        d.path(),
        &[
            "--ioengine=null",
            "--rw=randtrim",
            "--buffer_pattern=0xdeadbeef",
            "--buffer_compress_percentage=50",
        ],
    ))
    .run()
    .ok_json();
    assert_eq!(
        kinds(&v["notices"]),
        ["dataless_write_with_buffers"],
        "{:#}",
        v["notices"]
    );
    assert_eq!(v["notices"][0]["option"], "buffer_pattern");
    let m = v["notices"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("trim (rw=randtrim) carries no data")
            && m.contains("(buffer_pattern, buffer_compress_percentage)"),
        "{m}"
    );
}

/// The machine's checklist comes with a QD1 job on a block device (here:
/// not pinned, and what this machine has), not with the same job on a file
/// nor once it is pinned and deeper.
#[test]
fn a_qd1_job_on_zram_carries_the_machine_checklist() {
    let z = require!(Zram::acquire());
    let job = |extra: &[&str]| {
        let mut a = vec![
            "--output-format=json".to_string(),
            "--name=qd1".into(),
            format!("--filename={}", z.path()),
            "--ioengine=psync".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=1m".into(),
            "--clocksource=clock_gettime".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        ioscope(a).run().ok_json()
    };
    let v = job(&[]);
    let found = kinds(&v["notices"]);
    assert!(found.contains(&"queue_depth_one_unpinned"), "{found:?}");
    assert_eq!(
        found.contains(&"virtual_machine"),
        hypervisor_flag(),
        "{found:?}"
    );
    let unpinned = v["notices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "queue_depth_one_unpinned")
        .unwrap();
    assert_eq!(unpinned["option"], "cpus_allowed");
    // Pinned: the job's own notice goes, the machine's stay.
    let pinned = job(&["--cpus_allowed=0"]);
    let pinned = kinds(&pinned["notices"]);
    assert!(!pinned.contains(&"queue_depth_one_unpinned"), "{pinned:?}");
    assert_eq!(pinned.contains(&"virtual_machine"), hypervisor_flag());
    // Deeper than QD1: not a latency run, no checklist.
    let deep = job(&["--ioengine=libaio", "--iodepth=8", "--direct=1"]);
    assert_eq!(kinds(&deep["notices"]), Vec::<&str>::new());
    drop(z);

    // The same QD1 job on a file: none of it.
    let d = tempdir();
    let v = ioscope(file_job(d.path(), &["--ioengine=psync", "--rw=randread"]))
        .run()
        .ok_json();
    assert_eq!(kinds(&v["notices"]), Vec::<&str>::new());
}
