//! The HTML report: a real run with `--output-format=html`, and the pages
//! `ioscope report` makes of saved compare, sweep and fio JSON+ documents,
//! each loaded in headless Chromium (Debian's `chromium`): it loads, logs
//! no console message, its inline SVG is in the DOM, and a screenshot is
//! taken into the test's directory.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{ioscope, tempdir, Cmd};
use ioscope_testutil::{program, require};

/// Chromium's start and one page should take a few seconds; under a loaded
/// CI machine, many more.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// The hand-built documents, in the schema of docs/html.md.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/html")
        .join(name)
}

/// Checks that the page fetches nothing: no attribute or style that names
/// another resource (the page must open offline, from a mail attachment).
fn assert_self_contained(page: &str) {
    for needle in [
        "src=", "href=", "url(", "@import", "<link", "http://", "https://",
    ] {
        assert!(
            !page.contains(needle),
            "the page names a resource ({needle})"
        );
    }
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        &page[..page.len().min(200)]
    );
}

/// Loads `page` in headless Chromium twice (its DOM, then a screenshot into
/// `dir`), with a profile of its own in `dir`; returns the DOM.
fn load_in_chromium(chromium: &Path, page: &Path, dir: &Path) -> String {
    let url = format!("file://{}", page.display());
    let shot = dir.join(format!(
        "{}.png",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let base = |profile: &str| {
        Cmd::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu"])
            .args(["--enable-logging=stderr", "--v=0"])
            .arg(format!("--user-data-dir={}", dir.join(profile).display()))
            .timeout(BROWSER_TIMEOUT)
    };
    let dom = base("profile-dom").arg("--dump-dom").arg(&url).run();
    let ran = base("profile-shot")
        .arg("--window-size=1400,1800")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .run();
    // Chromium's stderr always has lines (D-Bus, GPU probing) on a
    // machine without a desktop: success is its exit status, and the
    // faults of the page are its console messages.
    for r in [&dom, &ran] {
        assert!(r.status.success(), "{}", r.describe());
    }
    // Console messages (errors, warnings, a script's output) are logged as
    // `INFO:CONSOLE...`; the pages have no script, so any is a fault.
    for r in [&dom, &ran] {
        assert!(
            !r.stderr.contains(":CONSOLE"),
            "console messages: {}",
            r.describe()
        );
    }
    let png = fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot {}: {e}", shot.display()));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    assert!(
        dom.stdout.contains("</svg>"),
        "no SVG in the DOM: {}",
        dom.describe()
    );
    dom.stdout
}

#[test]
fn a_run_writes_a_page_with_its_histograms_and_charts_over_time() {
    let chromium = require!(program("chromium"));
    let dir = tempdir();
    let d = dir.path();
    let page = d.join("run.html");
    // Two jobs, one of them named with markup: it must show as text.
    ioscope([
        "--ioengine=psync",
        "--size=4m",
        "--bs=4k",
        "--time_based",
        "--runtime=1200ms",
        "--output-format=html",
        &format!("--output={}", page.display()),
        "--name=<i>reader</i>",
        "--rw=randread",
        &format!("--filename={}", d.join("a").display()),
        "--name=mixed",
        "--rw=randrw",
        &format!("--filename={}", d.join("b").display()),
    ])
    .dir(d)
    .run()
    .assert_ok();
    let html = fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("Job &lt;i&gt;reader&lt;/i&gt;"));
    assert!(!html.contains("<i>"), "a job name is text");
    for title in [
        "reader&lt;/i&gt;: read completion latency",
        "mixed: write completion latency",
        "reader&lt;/i&gt;: bandwidth over time",
        "reader&lt;/i&gt;: IOPS over time",
        "mixed: mean latency over time",
    ] {
        assert!(html.contains(title), "no chart {title}");
    }
    // The samples behind the charts stayed in memory: no log file.
    let logs: Vec<_> = fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".log"))
        .collect();
    assert!(logs.is_empty(), "{logs:?}");
    let dom = load_in_chromium(&chromium, &page, d);
    assert!(dom.contains("mixed: mean latency over time"));
}

#[test]
fn a_log_the_job_asked_for_is_still_written_beside_the_page() {
    let dir = tempdir();
    let d = dir.path();
    ioscope([
        "--name=logged",
        "--ioengine=null",
        "--size=8m",
        "--write_bw_log=mine",
        "--log_avg_msec=100",
        "--output-format=html",
    ])
    .dir(d)
    .run()
    .assert_ok();
    assert!(d.join("mine_bw.1.log").exists());
}

#[test]
fn html_with_other_formats_goes_beside_the_output_or_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    let job = ["--name=j", "--ioengine=null", "--size=1m"];
    let refused = ioscope(job.iter().copied().chain(["--output-format=json,html"])).run();
    assert!(refused.assert_refused().contains("needs --output=FILE"));
    let out = d.join("r.json");
    ioscope(job.iter().copied().chain(["--output-format=json+,html"]))
        .arg(format!("--output={}", out.display()))
        .run()
        .assert_ok();
    let json: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["jobs"][0]["jobname"], "j");
    let html = fs::read_to_string(d.join("r.json.html")).unwrap();
    assert!(html.contains("j: read completion latency"));
}

#[test]
fn a_saved_json_plus_run_is_rendered_with_its_histogram() {
    let dir = tempdir();
    let d = dir.path();
    let saved = d.join("run.json");
    ioscope([
        "--name=saved",
        "--ioengine=null",
        "--size=2m",
        "--output-format=json+",
    ])
    .arg(format!("--output={}", saved.display()))
    .run()
    .assert_ok();
    let page = d.join("saved.html");
    ioscope(["report".into(), saved.into_os_string()])
        .arg(format!("--output={}", page.display()))
        .run()
        .assert_ok();
    let html = fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("saved: read completion latency"));
    // A saved document has no samples over time.
    assert!(!html.contains("over time"));
}

#[test]
fn a_compare_document_shows_bars_with_intervals_and_verdicts() {
    let chromium = require!(program("chromium"));
    let dir = tempdir();
    let page = dir.path().join("compare.html");
    ioscope(["report".into(), fixture("compare.json").into_os_string()])
        .arg(format!("--output={}", page.display()))
        .run()
        .assert_ok();
    let html = fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("uring &lt;hipri&gt; (baseline)"));
    assert!(html.contains("+16.0% slower"));
    assert!(html.contains("no difference"));
    assert!(html.contains("whisker"));
    load_in_chromium(&chromium, &page, dir.path());
}

#[test]
fn a_sweep_document_shows_curves_and_the_grid() {
    let chromium = require!(program("chromium"));
    let dir = tempdir();
    let page = dir.path().join("sweep.html");
    // To stdout: the page alone is the output.
    let ran = ioscope(["report".into(), fixture("sweep.json").into_os_string()]).run();
    ran.assert_ok();
    fs::write(&page, &ran.stdout).unwrap();
    assert_self_contained(&ran.stdout);
    for text in [
        "numjobs=1",
        "numjobs=4",
        ">qd32<",
        "IOPS by numjobs × iodepth",
    ] {
        assert!(ran.stdout.contains(text), "{text}");
    }
    load_in_chromium(&chromium, &page, dir.path());
}

/// `ioscope compare` and `ioscope sweep` themselves write their pages:
/// two null configurations (one paced, so slower), and a sweep of two
/// depths, each loaded in Chromium.
#[test]
fn compare_and_sweep_write_their_pages() {
    let chromium = require!(program("chromium"));
    let dir = tempdir();
    let d = dir.path();
    let base = [
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--time_based",
        "--runtime=100ms",
    ];
    let compare = d.join("compare.html");
    ioscope(["compare"].iter().chain(&base))
        .args([
            "--vs",
            "name=fast,rate_iops=50000",
            "--vs",
            "name=slow,rate_iops=5000",
        ])
        .args(["--repeat=2", "--output-format=html"])
        .arg(format!("--output={}", compare.display()))
        .dir(d)
        .run()
        .assert_ok();
    let html = fs::read_to_string(&compare).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("fast (baseline)"), "no baseline bar");
    assert!(html.contains("whisker"));
    load_in_chromium(&chromium, &compare, d);
    let sweep = d.join("sweep.html");
    ioscope(["sweep"].iter().chain(&base))
        .args(["--name=s", "--sweep", "iodepth=1,4", "--output-format=html"])
        .arg(format!("--output-dir={}", d.join("points").display()))
        .arg(format!("--output={}", sweep.display()))
        .dir(d)
        .run()
        .assert_ok();
    let html = fs::read_to_string(&sweep).unwrap();
    assert_self_contained(&html);
    assert!(html.contains(">qd4<"), "no point labelled qd4");
    load_in_chromium(&chromium, &sweep, d);
}

#[test]
fn a_document_of_another_kind_is_refused_by_name() {
    let dir = tempdir();
    let f = dir.path().join("x.json");
    fs::write(&f, "{\"hello\": 1}").unwrap();
    let refused = ioscope(["report".into(), f.clone().into_os_string()]).run();
    assert!(refused.assert_refused().contains("ioscope_compare"));
    fs::write(&f, "not json").unwrap();
    let refused = ioscope(["report".into(), f.into_os_string()]).run();
    assert!(refused.assert_refused().contains("not a JSON document"));
    let missing = ioscope(["report", "/nonexistent/x.json"]).run();
    assert!(missing.assert_refused().contains("cannot read"));
}
