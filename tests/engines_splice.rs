//! fio's `splice` engine (data through a pipe with splice and vmsplice)
//! beside fio on the same job: the same I/Os at the same offsets
//! (write_iolog), the same bytes and counts, and data that reads back.

mod common;

use std::path::Path;

use common::{fio, ioscope, job, tempdir, u};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// The job's JSON and its iolog without the timestamps.
fn run(tool: &str, dir: &Path, extra: &[&str]) -> (Value, Vec<String>) {
    let data = dir.join(format!("{tool}.dat"));
    let log = dir.join(format!("{tool}.log"));
    let mut args = vec![
        "--name=sp".to_string(),
        "--ioengine=splice".into(),
        format!("--filename={}", data.display()),
        "--bs=4k".into(),
        "--size=2m".into(),
        format!("--write_iolog={}", log.display()),
        "--output-format=json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let v = if tool == "fio" {
        fio(&args).run().ok_json()
    } else {
        ioscope(&args).run().ok_json()
    };
    let ios = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // "time file action offset length": the action and what follows.
            (f.len() == 5).then(|| f[2..].join(" "))
        })
        .collect();
    (v, ios)
}

fn moved(v: &Value, dir: &str) -> (u64, u64) {
    let d = &job(v, "sp")[dir];
    (u(d, "io_bytes"), u(d, "total_ios"))
}

#[test]
fn splice_issues_what_fio_issues() {
    require!(fio_installed());
    let dir = tempdir();
    for extra in [
        &["--rw=randrw"][..],
        &["--rw=write"],
        &["--rw=read", "--bs=192k"],
    ] {
        let (v_fio, log_fio) = run("fio", dir.path(), extra);
        let (v_io, log_io) = run("ioscope", dir.path(), extra);
        assert_eq!(log_io, log_fio, "{extra:?}");
        for d in ["read", "write"] {
            assert_eq!(moved(&v_io, d), moved(&v_fio, d), "{extra:?} {d}");
        }
        assert_eq!(u(job(&v_io, "sp"), "error"), 0);
    }
}

#[test]
fn what_splice_writes_reads_back() {
    let dir = tempdir();
    let file = dir.path().join("v.dat").display().to_string();
    let v = ioscope([
        "--name=sp",
        "--ioengine=splice",
        &format!("--filename={file}"),
        "--rw=write",
        "--bs=64k",
        "--size=1m",
        "--verify=crc32c",
        "--output-format=json",
    ])
    // Its verify state file (local-sp-0-verify.state, as fio's) goes there.
    .dir(dir.path())
    .run()
    .ok_json();
    let verify = &job(&v, "sp")["read"];
    assert_eq!(u(verify, "total_ios"), 16, "{v:#}");
    assert_eq!(u(job(&v, "sp"), "error"), 0);
}
