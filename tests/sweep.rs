//! `ioscope sweep`: a grid of option values, one job per point, one fio
//! JSON document per point that fio's consumers read; and its refusals.

mod common;

use common::{ioscope, names_in, tempdir, write_file, Zram};
use ioscope_testutil::{program, require};
use serde_json::Value;

/// The top-level keys of fio 3.33's JSON document (`fio --output-format=json`
/// on one job without disks), which tools look for.
const FIO_KEYS: [&str; 5] = ["fio version", "timestamp", "timestamp_ms", "time", "jobs"];

/// What fio-plot and the like do with a point's file: json.load, then the
/// first job's read IOPS and completion-latency percentiles.
const CONSUMER: &str = r#"
import json, sys
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    read = doc["jobs"][0]["read"]
    p = read["clat_ns"]["percentile"]
    print(path, doc["jobs"][0]["job options"]["iodepth"], read["iops"], p["99.000000"])
"#;

#[test]
fn iodepth_1_to_32_on_zram_writes_one_fio_document_per_point() {
    let z = require!(Zram::acquire());
    let python = require!(program("python3"));
    let d = tempdir();
    let out = d.path().join("points");
    let doc = ioscope([
        "sweep",
        "--output-format=json",
        "--output-dir",
        out.to_str().unwrap(),
        "--sweep",
        "iodepth=1,2,4,8,16,32",
        "--name=qd",
        &format!("--filename={}", z.path()),
        "--ioengine=libaio",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--runtime=100ms",
        "--time_based",
    ])
    .run()
    .ok_json();
    let depths = ["1", "2", "4", "8", "16", "32"];
    let names: Vec<String> = depths
        .iter()
        .enumerate()
        .map(|(i, d)| format!("{}_iodepth-{d}.json", i + 1))
        .collect();
    assert_eq!(names_in(&out), names);
    for (i, depth) in depths.iter().enumerate() {
        let path = out.join(&names[i]);
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for key in FIO_KEYS {
            assert!(file.get(key).is_some(), "{}: no {key:?}", path.display());
        }
        assert!(file["disk_util"]
            .as_array()
            .is_some_and(|d| d.iter().any(|e| e["name"] == "zram0")));
        let job = &file["jobs"][0];
        assert_eq!(job["jobname"], "qd");
        assert_eq!(job["job options"]["iodepth"], *depth);
        assert!(job["read"]["total_ios"].as_u64().unwrap() > 0);
        // The sweep's own document names the same file and holds the same run.
        let point = &doc["points"][i];
        assert_eq!(point["options"]["iodepth"], *depth);
        assert_eq!(point["file"], path.to_str().unwrap());
        assert_eq!(point["result"], file);
        assert_eq!(point["summary"]["iops"]["n"], 1);
    }
    assert_eq!(doc["ioscope_sweep"], 1);
    assert_eq!(doc["axes"][0]["option"], "iodepth");

    let paths: Vec<String> = names
        .iter()
        .map(|n| out.join(n).display().to_string())
        .collect();
    let read = common::Cmd::new(python)
        .args(["-c", CONSUMER])
        .args(&paths)
        .run();
    read.assert_ok();
    let lines: Vec<&str> = read.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", read.stdout);
    for (line, depth) in lines.iter().zip(depths) {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields[1], depth, "{line}");
        assert!(fields[2].parse::<f64>().unwrap() > 0.0, "{line}");
        assert!(fields[3].parse::<u64>().unwrap() > 0, "{line}");
    }
}

#[test]
fn two_axes_make_a_grid_with_the_first_outermost() {
    let d = tempdir();
    let run = ioscope([
        "sweep",
        "--output-dir=grid",
        "--repeat=2",
        "--sweep",
        "bs=4k,8k",
        "--sweep",
        "numjobs=1,2",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--group_reporting",
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    assert_eq!(
        names_in(&d.path().join("grid")),
        [
            "1_bs-4k_numjobs-1.json",
            "2_bs-4k_numjobs-2.json",
            "3_bs-8k_numjobs-1.json",
            "4_bs-8k_numjobs-2.json"
        ]
    );
    let text = &run.stdout;
    assert!(
        text.starts_with("4 points, 2 runs each; ± is the 95% confidence interval"),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("4k ") || l.starts_with("8k "))
        .collect();
    let points: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            let mut cells = r.split_whitespace();
            (cells.next().unwrap(), cells.next().unwrap())
        })
        .collect();
    assert_eq!(
        points,
        [("4k", "1"), ("4k", "2"), ("8k", "1"), ("8k", "2")],
        "{text}"
    );
    assert!(rows.iter().all(|r| r.contains(" ± ")), "{text}");
    // 1 MiB at 4k is 256 I/Os per job; two jobs do twice as many.
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join("grid/2_bs-4k_numjobs-2.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 512);
}

#[test]
fn the_default_directory_is_named_for_the_time() {
    let d = tempdir();
    ioscope([
        "sweep",
        "--sweep=iodepth=1,2",
        "--ioengine=null",
        "--size=64k",
    ])
    .dir(d.path())
    .run()
    .assert_ok();
    let made = names_in(d.path());
    assert_eq!(made.len(), 1, "{made:?}");
    let name = &made[0];
    // sweep-YYYYmmdd-HHMMSS
    assert_eq!(name.len(), "sweep-20261124-084500".len(), "{name}");
    assert!(name.starts_with("sweep-20"), "{name}");
    assert_eq!(names_in(&d.path().join(name)).len(), 2);
}

fn refused(args: &[&str]) -> String {
    let d = tempdir();
    write_file(
        d.path(),
        "qd2.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\niodepth=2\n",
    );
    std::fs::create_dir(d.path().join("used")).unwrap();
    write_file(&d.path().join("used"), "x.json", "{}");
    let run = ioscope(std::iter::once("sweep").chain(args.iter().copied()))
        .dir(d.path())
        .run();
    let err = run.assert_refused().to_string();
    assert_eq!(run.stdout, "");
    // Nothing was written: the points are planned before any runs.
    let left: Vec<String> = names_in(d.path())
        .into_iter()
        .filter(|f| f != "qd2.fio" && f != "used")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    err
}

#[test]
fn refusals() {
    let e = refused(&["--sweep", "nosuch=1,2", "--ioengine=null", "--size=1m"]);
    assert!(
        e.contains("point nosuch=1: command line: unknown option 'nosuch'"),
        "{e}"
    );
    let e = refused(&["qd2.fio", "--sweep", "iodepth=1,4"]);
    assert!(
        e.contains("the job file sets the swept option itself"),
        "{e}"
    );
    let e = refused(&[
        "--sweep",
        "iodepth=1",
        "--ioengine=null",
        "--size=1m",
        "--output-dir=used",
    ]);
    assert!(e.contains("used is not empty"), "{e}");
    let e = refused(&["--ioengine=null", "--size=1m"]);
    assert!(e.contains("nothing to sweep"), "{e}");
    let e = refused(&[
        "--sweep",
        "iodepth=1",
        "--vs",
        "iodepth=2",
        "--ioengine=null",
    ]);
    assert!(e.contains("unknown option 'vs'"), "{e}");
}
