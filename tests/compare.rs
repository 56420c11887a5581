//! `ioscope compare`: configurations from --vs lists and job sections, run
//! interleaved, with intervals and verdicts; and what it refuses.

mod common;

use common::{ioscope, tempdir, write_file};
use serde_json::Value;

/// A short timed job: 100 ms per run keeps three configurations × two
/// runs under a second or two.
const SHORT: [&str; 3] = ["--rw=randread", "--runtime=100ms", "--time_based"];

/// Each configuration's row has a figure ± its interval, the difference
/// table names each other configuration, and each gets a verdict line.
fn assert_table_with_intervals(text: &str, names: &[&str]) {
    assert!(
        text.starts_with("3 configurations, 2 runs each, interleaved;"),
        "{text}"
    );
    let base = format!("{} (baseline)", names[0]);
    for (i, name) in names.iter().enumerate() {
        let row = if i == 0 { base.as_str() } else { name };
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{row} ")))
            .unwrap_or_else(|| panic!("no row for {row}: {text}"));
        assert!(line.matches(" ± ").count() >= 11, "{line}");
    }
    assert!(
        text.contains(&format!("Difference from {}", names[0])),
        "{text}"
    );
    for name in &names[1..] {
        let diff_rows = text
            .lines()
            .filter(|l| l.starts_with(&format!("{name} ")))
            .count();
        assert_eq!(
            diff_rows, 2,
            "{name}: a figures row and a difference row: {text}"
        );
        let verdict = text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("{name} is faster than {}", names[0]))
                || l.starts_with(&format!("{name} is slower than {}", names[0]))
                || l.starts_with(&format!(
                    "{name}: no difference from {} at 2 repeats",
                    names[0]
                ))
        });
        assert!(verdict, "no verdict for {name}: {text}");
    }
}

fn three_on(engine: &str, extra: &[&str]) -> String {
    let d = tempdir();
    let mut args = vec![
        "compare".to_string(),
        format!("--ioengine={engine}"),
        "--repeat=2".into(),
    ];
    args.extend(SHORT.iter().chain(extra).map(|s| s.to_string()));
    for vs in ["name=small,bs=4k", "name=mid,bs=8k", "name=big,bs=64k"] {
        args.extend(["--vs".to_string(), vs.to_string()]);
    }
    let run = ioscope(args).dir(d.path()).run();
    run.assert_ok();
    run.stdout.clone()
}

#[test]
fn three_configurations_on_the_null_engine() {
    let text = three_on("null", &["--size=64m"]);
    assert_table_with_intervals(&text, &["small", "mid", "big"]);
}

#[test]
fn three_configurations_on_the_nop_engine() {
    let text = three_on("nop", &["--size=64m", "--iodepth=4"]);
    assert_table_with_intervals(&text, &["small", "mid", "big"]);
}

#[test]
fn three_configurations_on_psync() {
    let text = three_on("psync", &["--size=1m", "--filename=f"]);
    assert_table_with_intervals(&text, &["small", "mid", "big"]);
}

fn compare_json(vs: &[&str], extra: &[&str]) -> Value {
    let mut args = vec![
        "compare",
        "--output-format=json",
        "--ioengine=null",
        "--size=64m",
    ];
    args.extend(SHORT);
    args.extend(extra);
    for v in vs {
        args.extend(["--vs", v]);
    }
    ioscope(args).run().ok_json()
}

fn configuration<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["configurations"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no configuration {name}: {doc:#}"))
}

/// Two identical null configurations. Unlimited, a null run's IOPS is
/// whatever CPU the machine lends it, and the tests running beside this
/// one take it back at the scheduler's whim, for stretches longer than a
/// run: a run of A and the next of B see different machines, and 95%
/// intervals are wrong one time in twenty even when they do not. Capped
/// by rate_iops far below what the machine can do, the IOPS are the
/// limiter's, the same in most runs of both; a run the scheduler delays
/// is an outlier that widens the interval of its own side. Five runs
/// each, so that a single such outlier cannot tip the verdict.
#[test]
fn two_identical_configurations_are_no_difference() {
    let doc = compare_json(
        &["name=a,iodepth=1", "name=b,iodepth=1"],
        &["--rate_iops=2000", "--repeat=5", "--warmup=1"],
    );
    assert_eq!(doc["ioscope_compare"], 1);
    assert_eq!(
        (doc["repeats"].as_u64(), doc["warmup"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(doc["baseline"], "a");
    let b = configuration(&doc, "b");
    assert_eq!(b["verdict"], "no difference", "{:#}", b["vs_baseline"]);
    assert_eq!(b["vs_baseline"]["iops"]["verdict"], "no difference");
    assert_eq!(configuration(&doc, "a")["vs_baseline"], Value::Null);
    // Every kept run (not the warm-up) is there, a whole fio document.
    let runs = b["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    for run in runs {
        assert!(run["fio version"].is_string(), "{run:#}");
        assert_eq!(run["jobs"][0]["jobname"], "b");
    }
    assert_eq!(b["options"]["iodepth"], "1");
    assert_eq!(b["summary"]["iops"]["n"], 5);
}

/// thinktime=2ms between I/Os caps the second below 500 IOPS, a quarter
/// of the first's rate. Five runs each: with two, Welch's t has about one
/// degree of freedom (t = 12.7), and one run the scheduler delayed makes
/// even a fourfold difference "no difference".
#[test]
fn a_configuration_made_slower_is_slower() {
    let doc = compare_json(
        &[
            "name=quick,rate_iops=2000",
            "name=slow,rate_iops=2000,thinktime=2ms",
        ],
        &["--repeat=5"],
    );
    let slow = configuration(&doc, "slow");
    assert_eq!(slow["verdict"], "slower", "{:#}", slow["vs_baseline"]);
    assert_eq!(slow["vs_baseline"]["iops"]["verdict"], "lower");
    assert!(slow["vs_baseline"]["iops"]["diff_pct"].as_f64().unwrap() < -50.0);
    // With the baseline moved, the same difference reads the other way.
    let doc = compare_json(
        &[
            "name=quick,rate_iops=2000",
            "name=slow,rate_iops=2000,thinktime=2ms",
        ],
        &["--repeat=5", "--baseline=slow"],
    );
    assert_eq!(doc["baseline"], "slow");
    assert_eq!(configuration(&doc, "quick")["verdict"], "faster");
}

#[test]
fn sections_of_a_job_file_are_the_configurations() {
    let d = tempdir();
    let job = write_file(
        d.path(),
        "cmp.fio",
        "[global]\nioengine=null\nsize=64m\nrw=randread\nruntime=100ms\ntime_based\n\
         [qd1]\niodepth=1\n[qd4]\niodepth=4\n[qd8]\niodepth=8\n",
    );
    let job = job.to_str().unwrap();
    let run = ioscope([
        "compare",
        job,
        "--repeat=2",
        "--section=qd1",
        "--section=qd8",
    ])
    .run();
    run.assert_ok();
    assert!(
        run.stdout.starts_with("2 configurations, 2 runs each"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("qd1 (baseline)"), "{}", run.stdout);
    assert!(!run.stdout.contains("qd4"), "{}", run.stdout);

    let out = d.path().join("cmp.md");
    let run = ioscope([
        "compare",
        job,
        "--repeat=2",
        "--output-format=markdown",
        "--output",
        out.to_str().unwrap(),
    ])
    .run();
    run.assert_ok();
    assert_eq!(run.stdout, "", "the table goes to --output only");
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("| qd1 (baseline) | "), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("|---|")).count(),
        2,
        "{md}"
    );
    assert!(md.lines().any(|l| l.starts_with("- qd4")), "{md}");
}

#[test]
fn the_json_names_each_sections_own_options() {
    let d = tempdir();
    let job = write_file(
        d.path(),
        "cmp.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\nbs=4k\n[b]\nbs=8k\n",
    );
    let doc = ioscope([
        "compare",
        job.to_str().unwrap(),
        "--repeat=2",
        "--output-format=json",
    ])
    .run()
    .ok_json();
    assert_eq!(configuration(&doc, "a")["options"]["bs"], "4k");
    assert_eq!(configuration(&doc, "b")["options"]["bs"], "8k");
}

fn refused(args: &[&str]) -> String {
    let d = tempdir();
    let job = write_file(
        d.path(),
        "two.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\n[b]\n",
    );
    let one = write_file(
        d.path(),
        "one.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\n",
    );
    let args: Vec<String> = std::iter::once("compare".to_string())
        .chain(args.iter().map(|a| {
            a.replace("TWO", job.to_str().unwrap())
                .replace("ONE", one.to_str().unwrap())
        }))
        .collect();
    let run = ioscope(args).run();
    let err = run.assert_refused().to_string();
    assert_eq!(run.stdout, "", "nothing runs before a refusal");
    err
}

#[test]
fn refusals() {
    let e = refused(&["TWO", "--section=c"]);
    assert!(
        e.contains("--section=c: no such section in the job file; its sections are a, b"),
        "{e}"
    );
    let e = refused(&["--ioengine=null", "--vs", "name=x", "--vs", "iodepth=2"]);
    assert!(e.contains("--vs name=x: no job options"), "{e}");
    let e = refused(&["--ioengine=null", "--vs", ""]);
    assert!(e.contains("--vs : an empty option"), "{e}");
    let e = refused(&["ONE"]);
    assert!(
        e.contains("a comparison needs two or more configurations; found 1 (a)"),
        "{e}"
    );
    let e = refused(&["--ioengine=null", "--size=1m", "--vs", "iodepth=2"]);
    assert!(e.contains("found 1 (iodepth=2)"), "{e}");
    let e = refused(&["TWO", "--baseline=z"]);
    assert!(
        e.contains("--baseline=z: no such configuration; they are a, b"),
        "{e}"
    );
    let e = refused(&["TWO", "--repeat=1"]);
    assert!(e.contains("two or more runs"), "{e}");
    let e = refused(&["TWO", "--output-format=xml"]);
    assert!(e.contains("choose normal, json, markdown or html"), "{e}");
    let e = refused(&["TWO", "--vs", "iodepth=2"]);
    assert!(e.contains("not both"), "{e}");
    // Every plan is made before the first run: the second configuration's
    // mistake stops the first from running.
    let e = refused(&[
        "--ioengine=null",
        "--size=1m",
        "--vs",
        "iodepth=2",
        "--vs",
        "nosuch=1",
    ]);
    assert!(
        e.contains("configuration nosuch=1") && e.contains("nosuch"),
        "{e}"
    );
}
