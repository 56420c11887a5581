//! The command line, as a fio user types it: program options, job files,
//! job options, and how bad input is refused.

mod common;

use common::{ioscope, job, tempdir, u, write_file};

/// Lowercased, for wording-tolerant checks.
fn low(s: &str) -> String {
    s.to_lowercase()
}

/// Whether `msg` points at line `line` of `file` (as `file:line` or `line N`).
fn names_line(msg: &str, file: &str, line: u32) -> bool {
    msg.contains(&format!("{file}:{line}")) || low(msg).contains(&format!("line {line}"))
}

#[test]
fn version_prints_the_version_and_exits_zero() {
    let r = ioscope(["--version"]).run();
    r.assert_ok();
    assert!(
        r.stdout.contains(env!("CARGO_PKG_VERSION")),
        "--version does not print {}: {}",
        env!("CARGO_PKG_VERSION"),
        r.describe()
    );
    assert!(low(&r.stdout).contains("ioscope"), "{}", r.describe());
}

#[test]
fn cmdhelp_describes_one_option() {
    let r = ioscope(["--cmdhelp=bs"]).run();
    r.assert_ok();
    let out = low(&r.stdout);
    assert!(out.contains("bs"), "{}", r.describe());
    assert!(
        out.contains("block size"),
        "no description of bs: {}",
        r.describe()
    );
    assert!(
        out.contains("blocksize"),
        "the alias `blocksize` is not shown: {}",
        r.describe()
    );
    assert!(
        out.contains("4096") || out.contains("4k"),
        "the default (4096) is not shown: {}",
        r.describe()
    );
}

#[test]
fn parse_only_accepts_a_good_job_file_without_doing_io() {
    let d = tempdir();
    let data = d.path().join("data");
    let jf = write_file(
        d.path(),
        "good.fio",
        &format!(
            "; a comment\n[global]\nioengine=psync\nbs=4k\nsize=1m\n\n[a]\nrw=write\nfilename={}\n",
            data.display()
        ),
    );
    let r = common::Cmd::new(common::bin())
        .arg("--parse-only")
        .arg(&jf)
        .dir(d.path())
        .run();
    r.assert_ok();
    assert!(
        !data.exists(),
        "--parse-only created the job's file (it must do no I/O): {}",
        r.describe()
    );
}

#[test]
fn parse_only_names_file_line_and_option_of_a_typo() {
    let d = tempdir();
    write_file(
        d.path(),
        "bad.fio",
        "[global]\nioengine=null\n\n[a]\nrw=read\nsiz=1m\n",
    );
    let r = ioscope(["--parse-only", "bad.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(err.contains("bad.fio"), "file not named: {}", r.describe());
    assert!(
        names_line(err, "bad.fio", 6),
        "line 6 not named: {}",
        r.describe()
    );
    assert!(err.contains("siz"), "option not named: {}", r.describe());
    assert!(
        low(err).contains("did you mean") && err.contains("size"),
        "no suggestion of `size`: {}",
        r.describe()
    );
}

#[test]
fn parse_only_names_file_line_and_option_of_a_bad_value() {
    let d = tempdir();
    write_file(
        d.path(),
        "badval.fio",
        "[a]\nioengine=null\nsize=1m\nbs=4q\nrw=read\n",
    );
    let r = ioscope(["--parse-only", "badval.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(
        err.contains("badval.fio"),
        "file not named: {}",
        r.describe()
    );
    assert!(
        names_line(err, "badval.fio", 4),
        "line 4 not named: {}",
        r.describe()
    );
    assert!(err.contains("bs"), "option not named: {}", r.describe());
    assert!(err.contains("4q"), "bad value not quoted: {}", r.describe());
}

#[test]
fn bad_rw_value_on_the_command_line_is_refused() {
    let r = ioscope(["--name=x", "--ioengine=null", "--size=1m", "--rw=sideways"]).run();
    let err = r.assert_refused();
    assert!(err.contains("rw"), "{}", r.describe());
    assert!(err.contains("sideways"), "{}", r.describe());
}

#[test]
fn missing_job_file_is_named() {
    let d = tempdir();
    let r = ioscope(["no-such-job.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(err.contains("no-such-job.fio"), "{}", r.describe());
}

#[test]
fn unknown_option_is_refused_with_a_suggestion() {
    let r = ioscope(["--name=x", "--ioengine=null", "--size=1m", "--runtme=1"]).run();
    let err = r.assert_refused();
    assert!(err.contains("runtme"), "option not named: {}", r.describe());
    assert!(
        low(err).contains("did you mean") && err.contains("runtime"),
        "no `did you mean runtime`: {}",
        r.describe()
    );
}

#[test]
fn unknown_program_option_is_refused() {
    let r = ioscope([
        "--output-formta=json",
        "--name=x",
        "--ioengine=null",
        "--size=1m",
    ])
    .run();
    let err = r.assert_refused();
    assert!(err.contains("output-formta"), "{}", r.describe());
    assert!(
        err.contains("output-format"),
        "no suggestion: {}",
        r.describe()
    );
}

#[test]
fn unsupported_fio_option_is_refused_by_name() {
    let r = ioscope([
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--fdp=1",
    ])
    .run();
    let err = r.assert_refused();
    assert!(err.contains("fdp"), "option not named: {}", r.describe());
    assert!(
        low(err).contains("support"),
        "does not say the option is not supported: {}",
        r.describe()
    );
    assert!(
        !low(err).contains("did you mean"),
        "a known fio option is treated as a typo: {}",
        r.describe()
    );
}

#[test]
fn global_section_and_two_jobs() {
    let d = tempdir();
    write_file(
        d.path(),
        "two.fio",
        "[global]\nioengine=null\nsize=1m\nbs=4k\n\n[a]\nrw=read\n\n[b]\nrw=write\nbs=8k\n",
    );
    let v = ioscope(["--output-format=json", "two.fio"])
        .dir(d.path())
        .run()
        .ok_json();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{v:#}");
    assert_eq!(v["global options"]["ioengine"], "null", "{v:#}");
    assert_eq!(v["global options"]["size"], "1m", "{v:#}");
    let a = job(&v, "a");
    let b = job(&v, "b");
    assert_eq!(a["job options"]["rw"], "read");
    assert_eq!(b["job options"]["bs"], "8k");
    assert_eq!(u(&a["read"], "io_bytes"), 1 << 20);
    assert_eq!(u(&a["read"], "total_ios"), 256);
    assert_eq!(u(&a["write"], "total_ios"), 0);
    assert_eq!(u(&b["write"], "io_bytes"), 1 << 20);
    assert_eq!(
        u(&b["write"], "total_ios"),
        128,
        "b's bs=8k was not applied"
    );
    assert_eq!(u(&b["read"], "total_ios"), 0);
    // No stonewall: both jobs are in group 0.
    assert_eq!(u(a, "groupid"), 0);
    assert_eq!(u(b, "groupid"), 0);
}

#[test]
fn include_inserts_another_file() {
    let d = tempdir();
    write_file(d.path(), "common.inc", "ioengine=null\nsize=2m\n");
    write_file(
        d.path(),
        "main.fio",
        "[global]\ninclude common.inc\nbs=4k\n\n[a]\nrw=read\n",
    );
    let v = ioscope(["--output-format=json", "main.fio"])
        .dir(d.path())
        .run()
        .ok_json();
    let a = job(&v, "a");
    assert_eq!(
        u(&a["read"], "io_bytes"),
        2 << 20,
        "size=2m from the include not applied"
    );
    assert_eq!(u(&a["read"], "total_ios"), 512);
}

#[test]
fn environment_variables_are_expanded() {
    let d = tempdir();
    write_file(
        d.path(),
        "var.fio",
        "[global]\nioengine=null\nbs=4k\nsize=${IOSCOPE_TEST_SZ}\n\n[a]\nrw=read\n",
    );
    let v = ioscope(["--output-format=json", "var.fio"])
        .dir(d.path())
        .env("IOSCOPE_TEST_SZ", "3m")
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "a")["read"], "io_bytes"), 3 << 20);
}

#[test]
fn several_job_files_each_make_a_group() {
    let d = tempdir();
    write_file(
        d.path(),
        "one.fio",
        "[x1]\nioengine=null\nsize=1m\nrw=read\n",
    );
    write_file(
        d.path(),
        "two.fio",
        "[x2]\nioengine=null\nsize=2m\nrw=write\n",
    );
    let v = ioscope(["--output-format=json", "one.fio", "two.fio"])
        .dir(d.path())
        .run()
        .ok_json();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{v:#}");
    let x1 = job(&v, "x1");
    let x2 = job(&v, "x2");
    assert_eq!(u(&x1["read"], "io_bytes"), 1 << 20);
    assert_eq!(u(&x2["write"], "io_bytes"), 2 << 20);
    // As fio does: each job file after the first starts a new group.
    assert_eq!(u(x1, "groupid"), 0);
    assert_eq!(u(x2, "groupid"), 1);
}

#[test]
fn section_runs_only_the_named_job() {
    let d = tempdir();
    write_file(
        d.path(),
        "three.fio",
        "[global]\nioengine=null\nsize=1m\n\n[a]\nrw=read\n\n[b]\nrw=write\n\n[c]\nrw=randread\n",
    );
    let v = ioscope(["--output-format=json", "--section=b", "three.fio"])
        .dir(d.path())
        .run()
        .ok_json();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "{v:#}");
    assert_eq!(jobs[0]["jobname"], "b");
    assert_eq!(u(&jobs[0]["write"], "io_bytes"), 1 << 20);
}

#[test]
fn command_line_job_options_before_name_are_global() {
    let v = ioscope([
        "--output-format=json",
        "--ioengine=null",
        "--bs=8k",
        "--name=a",
        "--rw=read",
        "--size=1m",
        "--name=b",
        "--rw=write",
        "--size=2m",
    ])
    .run()
    .ok_json();
    assert_eq!(v["global options"]["bs"], "8k", "{v:#}");
    assert_eq!(u(&job(&v, "a")["read"], "total_ios"), 128);
    assert_eq!(u(&job(&v, "b")["write"], "total_ios"), 256);
}

#[test]
fn output_goes_to_the_named_file() {
    let d = tempdir();
    let out = d.path().join("result.json");
    let r = ioscope([
        "--output-format=json".to_string(),
        format!("--output={}", out.display()),
        "--name=a".into(),
        "--ioengine=null".into(),
        "--size=1m".into(),
        "--rw=read".into(),
    ])
    .run();
    r.assert_ok();
    assert!(
        !r.stdout.contains("\"jobs\""),
        "the report went to stdout as well as --output: {}",
        r.describe()
    );
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("--output file not written ({e}): {}", r.describe()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("--output file is not JSON");
    assert_eq!(u(&job(&v, "a")["read"], "io_bytes"), 1 << 20);
}

#[test]
fn normal_and_json_together() {
    let r = ioscope([
        "--output-format=normal,json",
        "--name=mixed",
        "--ioengine=null",
        // Big enough to run for more than a millisecond, so that this test
        // does not hang on how a sub-millisecond runtime is reported.
        "--size=256m",
        "--rw=read",
    ])
    .run();
    r.assert_ok();
    let (v, outside) = common::extract_json(&r.stdout)
        .unwrap_or_else(|| panic!("no JSON document in stdout: {}", r.describe()));
    assert_eq!(u(&job(&v, "mixed")["read"], "io_bytes"), 256 << 20);
    assert!(
        outside.contains("mixed") && outside.contains("IOPS"),
        "no normal (text) report beside the JSON: {}",
        r.describe()
    );
}

#[test]
fn normal_output_is_the_default() {
    let r = ioscope([
        "--name=plain",
        "--ioengine=null",
        "--size=256m",
        "--rw=write",
    ])
    .run();
    r.assert_ok();
    assert!(r.stdout.contains("plain"), "{}", r.describe());
    assert!(r.stdout.contains("IOPS"), "{}", r.describe());
    assert!(
        common::extract_json(&r.stdout).is_none(),
        "JSON printed without being asked: {}",
        r.describe()
    );
}

#[test]
fn a_good_run_writes_nothing_to_stderr() {
    let d = tempdir();
    let r = ioscope([
        "--output-format=json".to_string(),
        "--eta=never".into(),
        "--name=quiet".into(),
        "--ioengine=psync".into(),
        "--rw=randrw".into(),
        "--size=1m".into(),
        format!("--filename={}", d.path().join("f").display()),
    ])
    .run();
    r.assert_ok();
    let v = r.json();
    let q = job(&v, "quiet");
    assert_eq!(
        u(&q["read"], "io_bytes") + u(&q["write"], "io_bytes"),
        1 << 20
    );
    assert_eq!(u(q, "error"), 0);
}

#[test]
fn bad_output_format_is_refused() {
    let r = ioscope([
        "--output-format=xml",
        "--name=x",
        "--ioengine=null",
        "--size=1m",
    ])
    .run();
    let err = r.assert_refused();
    assert!(
        err.contains("xml"),
        "the bad format is not named: {}",
        r.describe()
    );
    assert!(err.contains("output-format"), "{}", r.describe());
}

#[test]
fn missing_include_names_the_file_and_line() {
    let d = tempdir();
    write_file(
        d.path(),
        "inc.fio",
        "[global]\ninclude missing.inc\n\n[a]\nioengine=null\nsize=1m\n",
    );
    let r = ioscope(["inc.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(
        err.contains("missing.inc"),
        "the missing include is not named: {}",
        r.describe()
    );
    assert!(
        names_line(err, "inc.fio", 2),
        "line 2 not named: {}",
        r.describe()
    );
}

#[test]
fn option_outside_a_section_is_refused() {
    // fio: options must follow a [section] header.
    let d = tempdir();
    write_file(
        d.path(),
        "nosect.fio",
        "bs=4k\n[a]\nioengine=null\nsize=1m\n",
    );
    let r = ioscope(["--parse-only", "nosect.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(err.contains("nosect.fio"), "{}", r.describe());
    assert!(
        names_line(err, "nosect.fio", 1),
        "line 1 not named: {}",
        r.describe()
    );
    assert!(err.contains("bs"), "{}", r.describe());
}

#[test]
fn parse_only_reads_several_files_and_command_line_jobs() {
    let d = tempdir();
    write_file(
        d.path(),
        "one.fio",
        "[x1]\nioengine=null\nsize=1m\nrw=read\n",
    );
    write_file(
        d.path(),
        "two.fio",
        "[x2]\nioengine=null\nsize=1m\nrw=write\n",
    );
    let r = ioscope([
        "--parse-only",
        "one.fio",
        "two.fio",
        "--name=x3",
        "--ioengine=null",
        "--size=1m",
    ])
    .dir(d.path())
    .run();
    r.assert_ok();
    assert!(
        r.stdout.trim().is_empty(),
        "--parse-only ran something: {}",
        r.describe()
    );
}

#[test]
fn unsupported_option_in_a_job_file_names_file_and_line() {
    let d = tempdir();
    write_file(
        d.path(),
        "v.fio",
        "[a]\nioengine=null\nsize=1m\nrw=write\nfdp=1\n",
    );
    let r = ioscope(["--parse-only", "v.fio"]).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(
        names_line(err, "v.fio", 5),
        "line 5 not named: {}",
        r.describe()
    );
    assert!(err.contains("fdp"), "{}", r.describe());
    assert!(low(err).contains("support"), "{}", r.describe());
}

#[test]
fn a_data_file_that_cannot_be_opened_is_named() {
    // A path through a regular file: ENOTDIR, whatever the user's rights.
    let d = tempdir();
    write_file(d.path(), "plain", "");
    let target = d.path().join("plain").join("data");
    let r = ioscope([
        "--output-format=json".to_string(),
        "--name=x".into(),
        "--ioengine=psync".into(),
        "--rw=read".into(),
        "--size=1m".into(),
        format!("--filename={}", target.display()),
    ])
    .run();
    let err = r.assert_refused();
    assert!(
        err.contains(&target.display().to_string()),
        "the file is not named: {}",
        r.describe()
    );
}

#[test]
fn stonewall_starts_a_new_group() {
    let d = tempdir();
    write_file(
        d.path(),
        "wall.fio",
        "[global]\nioengine=null\nsize=1m\n\n[a]\nrw=write\n\n[b]\nstonewall\nrw=read\n\n[c]\nrw=read\n",
    );
    let v = ioscope(["--output-format=json", "wall.fio"])
        .dir(d.path())
        .run()
        .ok_json();
    assert_eq!(u(job(&v, "a"), "groupid"), 0);
    assert_eq!(
        u(job(&v, "b"), "groupid"),
        1,
        "stonewall did not start group 1"
    );
    assert_eq!(u(job(&v, "c"), "groupid"), 1, "c belongs to b's group");
}
