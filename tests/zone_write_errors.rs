//! Writes that fail with `zonemode=zbd`, and `recover_zbd_write_error`
//! (fio 3.42): its refusals before the run, in fio's words, and on a file
//! whose writes fail (a full tmpfs) what fio does: a failed synchronous
//! write moves no write pointer, so each later write goes to the same
//! place; recovery has no device write pointer to ask there, which a
//! notice says (fio prints "Report zone for write recovery failed").
//! Recovery on a zoned device, against fio 3.42: tests/nvme_vm.rs.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{fio, ioscope, refusal, tempdir, Mounted};
use ioscope_testutil::{fio as fio_installed, require, root};
use serde_json::Value;

/// fio 3.42's zbd_setup_files refuses these for a job that writes; a job
/// that only reads, or one without zbd, takes the option as fio does.
#[test]
fn write_error_recovery_is_refused_as_fio_refuses_it() {
    let d = tempdir();
    let base = [
        "--parse-only",
        "--name=z",
        "--filename=f",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--recover_zbd_write_error=1",
    ];
    let e = refusal(d.path(), &base, &["--rw=write"]);
    assert!(
        e.contains("recover_zbd_write_error works only when continue_on_error is set"),
        "{e}"
    );
    let e = refusal(
        d.path(),
        &base,
        &[
            "--rw=write",
            "--continue_on_error=write",
            "--verify=crc32c",
            "--ioengine=io_uring",
        ],
    );
    assert!(
        e.contains("recover_zbd_write_error for async IO engines does not support verify"),
        "{e}"
    );
    for ok in [
        &["--rw=write", "--continue_on_error=write", "--verify=crc32c"][..],
        &[
            "--rw=write",
            "--continue_on_error=io",
            "--ioengine=io_uring",
        ],
        &["--rw=read"],
    ] {
        let args: Vec<&str> = base.iter().chain(ok).copied().collect();
        ioscope(args).dir(d.path()).run().assert_ok();
    }
}

/// The writes of a 4 MiB zoned job on a 2 MiB tmpfs that fail (ENOSPC)
/// past its first 2 MiB and go on (continue_on_error=write, ignore_error
/// naming ENOSPC), logged to `log` (off the tmpfs, which is full): `extra`
/// added.
fn job(log: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--name=w",
        "--filename=f",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--rw=write",
        "--bs=64k",
        "--continue_on_error=write",
        "--ignore_error=,ENOSPC",
        "--output-format=json",
    ]
    .map(String::from)
    .to_vec();
    args.push(format!("--write_iolog={}", log.display()));
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// The writes of a version 3 log: offset and length.
fn writes(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&"write")).then(|| format!("{} {}", f[3], f[4]))
        })
        .collect()
}

// fio moves no write pointer for a synchronous write that failed; ioscope
// moved it as it issued the write, so the writes after a failure went on
// past it instead of to the same place.
#[test]
fn failed_synchronous_writes_stay_at_the_write_pointer_as_fios() {
    require!(root());
    require!(fio_installed());
    let dir = tempdir();
    let mount = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(dir.path())
        .status();
    assert!(
        mount.as_ref().is_ok_and(|s| s.success()),
        "mounting a 2 MiB tmpfs on {} as root: {mount:?}",
        dir.path().display()
    );
    let small = Mounted { dir };
    let d = small.dir.path();
    let logs = tempdir();
    let log = logs.path().join("log");
    let mut seqs = Vec::new();
    for (tool, extra) in [
        ("fio", &[][..]),
        ("ioscope", &[]),
        ("ioscope", &["--recover_zbd_write_error=1"]),
    ] {
        let _ = fs::remove_file(d.join("f"));
        let _ = fs::remove_file(&log);
        fs::File::create(d.join("f"))
            .unwrap()
            .set_len(4 << 20)
            .unwrap();
        let run = match tool {
            "fio" => fio(job(&log, extra)),
            _ => ioscope(job(&log, extra)),
        }
        .dir(d)
        .run();
        assert!(run.status.success(), "{tool}: {}", run.describe());
        let out = &run.stdout;
        let doc: Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
        assert_eq!(doc["jobs"][0]["total_err"], 32, "{tool} {extra:?}");
        if extra.is_empty() {
            assert!(doc["notices"]
                .as_array()
                .is_none_or(|n| n.iter().all(|n| n["kind"] != "zone_writes_not_recovered")));
        } else {
            let notice = doc["notices"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["kind"] == "zone_writes_not_recovered")
                .unwrap_or_else(|| panic!("{:#}", doc["notices"]));
            let m = notice["message"].as_str().unwrap();
            assert!(
                m.contains("after 32 failed write(s) to f (the zones are emulated on a file"),
                "{m}"
            );
        }
        seqs.push(writes(&fs::read_to_string(&log).unwrap()));
    }
    // 32 writes fill the tmpfs; the 32 after them all go to 2 MiB.
    assert_eq!(seqs[0].len(), 64);
    assert!(
        seqs[0][32..].iter().all(|w| w == "2097152 65536"),
        "{:?}",
        seqs[0]
    );
    assert_eq!(seqs[1], seqs[0]);
    assert_eq!(seqs[2], seqs[0]);
    drop(small);
}
