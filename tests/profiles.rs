//! fio's built-in profiles (`--profile=tiobench`, `--profile=act`): the
//! jobs they add, act's latency table, and the profiles' own options,
//! which any job takes.

mod common;

use std::path::{Path, PathBuf};

use common::{extract_json, fio, ioscope, tempdir, write_file, Run};
use ioscope_testutil::require;
use serde_json::Value;

/// --profile=tiobench adds fio's four tiobench jobs (checked by hand
/// against fio 3.33's JSON: the same jobs, groups, files and bytes; a run
/// is not repeated here because its size is 4 KiB per MiB of the
/// machine's memory); an unknown profile is refused by name, act without
/// a device as fio refuses it; the profiles' own options and `profile=`
/// are taken by any job and change nothing, as in fio.
#[test]
fn profiles_are_added_refused_or_taken_as_fio_does() {
    let d = tempdir();
    let run = ioscope(["--profile=tiobench", "--parse-only"])
        .dir(d.path())
        .run();
    run.assert_ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    let e = ioscope(["--profile=act", "--parse-only"])
        .run()
        .assert_refused()
        .to_string();
    assert!(
        e.contains("act: you need to set IO target(s) with the device-names option"),
        "{e}"
    );
    let e = ioscope(["--profile=nosuch", "--parse-only"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("--profile=nosuch: no such profile"), "{e}");

    // On the command line --profile is always the program option; in a
    // job file profile= is the job option.
    let job = write_file(d.path(), "p.fio", "[p]\nprofile=act\n");
    let run = ioscope([
        job.to_str().unwrap(),
        "--ioengine=null",
        "--size=64k",
        "--dir=/nonexistent",
        "--block=8192",
        "--numruns=3",
        "--threads=2",
        "--device-names=/dev/nonexistent",
        "--load=2",
        "--test-duration=1h",
        "--prep",
        "--output-format=json",
    ])
    .run();
    let v = run.ok_json();
    assert_eq!(v["jobs"][0]["read"]["io_bytes"].as_u64(), Some(64 * 1024));
}

/// A file of `mib` MiB in `dir` for act's jobs to use as their device,
/// by a name relative to `dir` (fio 3.33 aborts on a job name of act's
/// prep phase made from a long path: "buffer overflow detected").
fn device(dir: &Path, mib: usize) -> PathBuf {
    std::fs::write(dir.join("act-device"), vec![0x5a; mib << 20]).unwrap();
    PathBuf::from("act-device")
}

/// The JSON and the text before it (act's table) of a run that succeeded.
fn table_and_json(run: &Run) -> (String, Value) {
    run.assert_ok();
    let (v, outside) = extract_json(&run.stdout)
        .unwrap_or_else(|| panic!("no JSON on stdout: {}", run.describe()));
    // The report ends its last line; the table is what came before it.
    (outside.trim_end_matches('\n').to_string() + "\n", v)
}

/// Checks that `table` is act's table with `slices` slice lines, and
/// that its verdict is what its shares give (5%, 1% and 0.1% of I/Os over
/// 1, 8 and 64 ms).
fn check_table(table: &str, slices: usize) {
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "        trans                   device",
            "        %>(ms)                  %>(ms)",
            " slice\t  1\t  8\t 64\t  1\t  8\t 64",
            " -----  -----   -----  ------   -----   -----  ------",
        ],
        "{table}"
    );
    let mut failed = false;
    for (n, line) in lines[4..4 + slices].iter().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], format!("   {:2}", n + 1), "{table}");
        let shares: Vec<f64> = fields[1..].iter().map(|f| f.parse().unwrap()).collect();
        assert_eq!(shares.len(), 6, "{table}");
        assert_eq!(shares[..3], shares[3..], "{table}");
        failed |= shares[0] >= 5.0 || shares[1] >= 1.0 || shares[2] >= 0.1;
    }
    let verdict = if failed { "FAILED" } else { "PASSED" };
    assert_eq!(
        lines[4 + slices..],
        ["", &format!("act: test complete, device(s): {verdict}")],
        "{table}"
    );
}

/// --profile=act runs fio's jobs for the device (8 rate-limited threads
/// of 1536-byte random reads, one of 128 KiB random writes, reported as
/// one group) for test-duration seconds, and prints act's table before
/// the report: compared with fio on the same file.
#[test]
fn act_runs_fios_jobs_and_prints_its_table() {
    require!(ioscope_testutil::fio());
    let d = tempdir();
    let dev = device(d.path(), 64);
    let args = |tool: fn(Vec<String>) -> common::Cmd| {
        tool(vec![
            "--profile=act".into(),
            format!("--device-names={}", dev.display()),
            "--test-duration=1".into(),
            "--output-format=json".into(),
        ])
        .dir(d.path())
        .run()
    };
    let (table, mut ours) = table_and_json(&args(ioscope::<Vec<String>, String>));
    check_table(&table, 1);
    let (fio_table, theirs) = table_and_json(&args(fio::<Vec<String>, String>));
    check_table(&fio_table, 1);

    // The profile's options, as fio 3.42 echoes its bare `thread` (3.33
    // leaves it out).
    let globals = ours["global options"].as_object_mut().unwrap();
    assert_eq!(globals.remove("thread"), Some(Value::from("")));
    assert_eq!(ours["global options"], theirs["global options"]);
    let (ours, theirs) = (&ours["jobs"], &theirs["jobs"]);
    assert_eq!(ours.as_array().unwrap().len(), 1, "{ours}");
    let (o, t) = (&ours[0], &theirs[0]);
    assert_eq!(o["jobname"], format!("act-read-{}", dev.display()).as_str());
    assert_eq!(o["jobname"], t["jobname"]);
    // A group reports its last member's options, as fio does.
    assert_eq!(o["job options"], t["job options"]);
    // 2000 reads and 12 writes a second, held by the rate.
    let ios = |v: &Value, dir: &str| v[dir]["total_ios"].as_u64().unwrap();
    for (tool, v) in [("ioscope", o), ("fio", t)] {
        assert!(
            (1960..=2040).contains(&ios(v, "read")),
            "{tool}: {}",
            ios(v, "read")
        );
        assert!(
            (11..=13).contains(&ios(v, "write")),
            "{tool}: {}",
            ios(v, "write")
        );
        // Of 1536 bytes each.
        assert_eq!(v["read"]["io_bytes"].as_u64(), Some(1536 * ios(v, "read")));
    }
}

/// --prep zeroes each device in 1 MiB writes, then writes it over at
/// random in 4 KiB blocks (libaio, depth 64) behind a stonewall; act's
/// table counts nothing then. The text before the report (no version
/// line: a profile's jobs are added after fio prints it) and the table
/// are fio's, to the byte; the bytes written are fio's.
#[test]
fn act_prep_fills_the_device_as_fio_does() {
    require!(ioscope_testutil::fio());
    let d = tempdir();
    let dev = device(d.path(), 8);
    let run = |tool: fn(Vec<String>) -> common::Cmd, format: &str| {
        tool(vec![
            "--profile=act".into(),
            format!("--device-names={}", dev.display()),
            "--prep".into(),
            "--test-duration=1".into(),
            format!("--output-format={format}"),
        ])
        .dir(d.path())
        .run()
    };
    let (table, ours) = table_and_json(&run(ioscope::<Vec<String>, String>, "json"));
    // The zeroes were written over, every block of them.
    let data = std::fs::read(d.path().join(&dev)).unwrap();
    assert!(data.chunks(4096).all(|b| b.iter().any(|&x| x != 0)));
    let (fio_table, theirs) = table_and_json(&run(fio::<Vec<String>, String>, "json"));
    assert_eq!(table, fio_table);
    check_table(&table, 1);
    assert!(table.contains("    1\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00\n"));
    let jobs = |v: &Value| -> Vec<(String, u64, u64)> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let w = &j["write"];
                let n = |k: &str| w[k].as_u64().unwrap();
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    n("io_bytes"),
                    n("total_ios"),
                )
            })
            .collect()
    };
    let name = |phase: &str| format!("act-prep-{phase}-{}", dev.display());
    assert_eq!(
        jobs(&ours),
        [(name("zeroes"), 8 << 20, 8), (name("salt"), 8 << 20, 2048)]
    );
    assert_eq!(jobs(&ours), jobs(&theirs));

    let normal = |tool| {
        let r = run(tool, "normal");
        r.assert_ok();
        let end = r.stdout.find("\nact-prep-zeroes").expect("a report");
        r.stdout[..end].to_string()
    };
    let (ours, theirs) = (
        normal(ioscope::<Vec<String>, String>),
        normal(fio::<Vec<String>, String>),
    );
    assert_eq!(ours, theirs);
    assert!(ours.contains("\nStarting 2 threads\n") && !ours.contains("ioscope-"));
}

/// With jobs of its own before the profile's, fio prints its version line
/// between the two, and the profile's counting covers every job.
#[test]
fn a_profile_after_other_jobs_follows_the_version_line() {
    let d = tempdir();
    let dev = device(d.path(), 1);
    let run = ioscope([
        "--name=mine".to_string(),
        "--ioengine=null".into(),
        "--size=1m".into(),
        "--profile=act".into(),
        format!("--device-names={}", dev.display()),
        "--prep".into(),
        "--test-duration=1".into(),
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    let lines: Vec<&str> = run.stdout.lines().take(5).collect();
    assert!(lines[0].starts_with("mine: (g=0): rw=read"), "{lines:?}");
    assert!(lines[1].starts_with("ioscope-"), "{lines:?}");
    assert!(lines[2].starts_with("act-prep-zeroes-"), "{lines:?}");
    assert!(lines[3].starts_with("act-prep-salt-"), "{lines:?}");
    assert_eq!(lines[4], "Starting 2 threads and 1 process");
}
