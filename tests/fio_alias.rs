//! ioscope under the name `fio`: a script written for fio, finding a `fio`
//! on its PATH that `ioscope install-fio-alias` linked to ioscope, runs
//! unchanged.

mod common;

use common::{ioscope, job, tempdir, u, Cmd};

/// What a fio-driving script does: check the version, write a job file, run
/// it with JSON into a file, and treat any byte on stderr as a failure.
const SCRIPT: &str = r#"set -eu
v=$(fio --version)
case "$v" in
    fio-3*) ;;
    *) echo "fio --version says '$v'" >&2; exit 1 ;;
esac
cat > job.fio <<'EOF'
[global]
ioengine=psync
bs=4k
size=1m
thread

[seq]
rw=write
filename=data
time_based
runtime=1
EOF
fio --output-format=json --output=out.json job.fio 2>stderr.txt
if [ -s stderr.txt ]; then cat stderr.txt >&2; exit 1; fi
"#;

#[test]
fn a_fio_script_runs_ioscope_through_the_alias() {
    let d = tempdir();
    let bin = d.path().join("bin");
    let run = ioscope(["install-fio-alias".as_ref(), bin.as_os_str()]).run();
    run.assert_ok();
    assert!(
        run.stdout
            .contains(&format!("{}", bin.join("fio").display())),
        "{}",
        run.describe()
    );

    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let run = Cmd::new("bash")
        .args(["-c", SCRIPT])
        .dir(d.path())
        .env("PATH", &path)
        .run();
    // assert_ok also holds stderr to be empty, as the script does.
    run.assert_ok();

    let text = std::fs::read_to_string(d.path().join("out.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let version = v["fio version"].as_str().unwrap();
    assert_eq!(
        version,
        format!("fio-3.42 (ioscope-{})", env!("CARGO_PKG_VERSION")),
        "the report names the version --version gave"
    );
    let w = &job(&v, "seq")["write"];
    assert!(u(w, "io_bytes") >= 1 << 20, "{w:#}");
    assert_eq!(v["global options"]["thread"], "");
}

#[test]
fn the_version_says_ioscope_under_its_own_name() {
    let run = ioscope(["--version"]).run();
    run.assert_ok();
    assert_eq!(
        run.stdout,
        format!("ioscope-{}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn installing_twice_keeps_the_link_and_a_real_fio_is_kept() {
    let d = tempdir();
    let first = ioscope(["install-fio-alias".as_ref(), d.path().as_os_str()]).run();
    first.assert_ok();
    let again = ioscope(["install-fio-alias".as_ref(), d.path().as_os_str()]).run();
    again.assert_ok();
    assert!(
        again.stdout.contains("already links"),
        "{}",
        again.describe()
    );

    let other = tempdir();
    std::fs::write(other.path().join("fio"), "#!/bin/sh\necho real fio\n").unwrap();
    let refused = ioscope(["install-fio-alias".as_ref(), other.path().as_os_str()]).run();
    let e = refused.assert_refused();
    assert!(e.contains("--force") && e.contains("fio"), "{e}");
    assert_eq!(
        std::fs::read_to_string(other.path().join("fio")).unwrap(),
        "#!/bin/sh\necho real fio\n"
    );
}

#[test]
fn under_the_fio_name_a_subcommand_name_is_a_job_file() {
    let d = tempdir();
    let bin = d.path().join("bin");
    ioscope(["install-fio-alias".as_ref(), bin.as_os_str()])
        .run()
        .assert_ok();
    // fio reads `info` as a job file; so does ioscope under its name.
    std::fs::write(
        d.path().join("info"),
        "[w]\nioengine=null\nsize=64k\nrw=write\n",
    )
    .unwrap();
    let run = Cmd::new(bin.join("fio"))
        .args(["--output-format=json", "info"])
        .dir(d.path())
        .run();
    let v = run.ok_json();
    assert_eq!(u(&job(&v, "w")["write"], "io_bytes"), 64 << 10);
}
