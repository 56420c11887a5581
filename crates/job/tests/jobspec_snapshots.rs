//! What every job file of the repository parses to, pinned. Each job file
//! under `examples/`, `tests/` and the crates' `testdata/` and `tests/`
//! folders, and a few command-line jobs, go through the entry point the
//! binary calls; the `{:#?}` rendering of the result (or the error text,
//! for a file that is refused) is compared with a committed snapshot in
//! `tests/snapshots/jobspecs/`.
//!
//! A difference fails the test with a diff. After a change that is meant
//! to change what a job parses to, regenerate the snapshots and review
//! them in the commit:
//!
//!     IOSCOPE_UPDATE_SNAPSHOTS=1 cargo test -p ioscope-job --test jobspec_snapshots
//!
//! The rendering is made independent of the machine: the checkout's path
//! becomes `$ROOT`, and a value computed from the machine's memory
//! (`$mb_memory`) is named rather than written out.

use std::fs;
use std::path::{Path, PathBuf};

use ioscope_job::{parse, ParseInput};

const UPDATE_VAR: &str = "IOSCOPE_UPDATE_SNAPSHOTS";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/jobspecs")
}

/// Every job file (`*.fio`) below `dir`, build outputs left out.
fn job_files_below(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            job_files_below(&path, found);
        } else if path.extension().is_some_and(|e| e == "fio") {
            found.push(path);
        }
    }
}

/// The job files of the repository, by their path from its root.
fn job_files() -> Vec<String> {
    let root = repo_root();
    let mut found = Vec::new();
    job_files_below(&root.join("examples"), &mut found);
    job_files_below(&root.join("tests"), &mut found);
    if let Ok(crates) = fs::read_dir(root.join("crates")) {
        for krate in crates.flatten() {
            job_files_below(&krate.path().join("testdata"), &mut found);
            job_files_below(&krate.path().join("tests"), &mut found);
        }
    }
    let mut names: Vec<String> = found
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .expect("found under the root")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Command-line jobs whose results are pinned too: fio's defaults, and
/// each engine's (an engine brings its options' defaults).
const CLI_CASES: &[(&str, &[&str])] = &[
    ("defaults", &["--name=x"]),
    ("io_uring", &["--name=x", "--ioengine=io_uring"]),
    ("io_uring_cmd", &["--name=x", "--ioengine=io_uring_cmd"]),
    ("libaio", &["--name=x", "--ioengine=libaio"]),
    ("faulty", &["--name=x", "--ioengine=faulty"]),
    (
        "verify-write",
        &["--name=x", "--rw=randwrite", "--verify=crc32c", "--bs=8k"],
    ),
    (
        "verify-read",
        &["--name=x", "--rw=read", "--verify=md5", "--bsrange=4k-16k"],
    ),
];

fn render(input: &ParseInput) -> String {
    let text = match parse(input) {
        Ok(parsed) => format!("{parsed:#?}\n"),
        Err(e) => format!("error: {}\n", e.message),
    };
    redact(&text)
}

/// The machine's `$mb_memory`, as the parser computes it.
fn mb_memory() -> u64 {
    // SAFETY: sysconf only reads system configuration.
    let conf = |name| unsafe { libc::sysconf(name) }.max(0) as u64;
    let pagesize = conf(libc::_SC_PAGESIZE);
    conf(libc::_SC_PHYS_PAGES).saturating_mul(pagesize) / (1024 * 1024)
}

fn redact(text: &str) -> String {
    let root = repo_root().to_string_lossy().into_owned();
    let text = text.replace(&root, "$ROOT");
    let memory = format!("{},", mb_memory() / 2);
    let mut out = String::with_capacity(text.len());
    let mut after_bytes = false;
    for line in text.lines() {
        if after_bytes && line.trim() == memory {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!("{indent}$mb_memory/2,\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
        after_bytes = line.trim() == "Bytes(";
    }
    out
}

/// A snapshot's file name: the job file's path with `/` as `__`.
fn snapshot_name(case: &str) -> String {
    format!("{}.txt", case.replace('/', "__"))
}

/// The first lines where `want` and `got` differ, with a few around them.
fn diff(want: &str, got: &str) -> String {
    let want: Vec<&str> = want.lines().collect();
    let got: Vec<&str> = got.lines().collect();
    let first = want
        .iter()
        .zip(&got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let from = first.saturating_sub(3);
    let mut out = String::new();
    for i in from..(first + 12).min(want.len().max(got.len())) {
        match (want.get(i), got.get(i)) {
            (Some(a), Some(b)) if a == b => out.push_str(&format!("  {a}\n")),
            (a, b) => {
                if let Some(a) = a {
                    out.push_str(&format!("- {a}\n"));
                }
                if let Some(b) = b {
                    out.push_str(&format!("+ {b}\n"));
                }
            }
        }
    }
    format!(
        "first difference at line {} (- snapshot, + now):\n{out}",
        first + 1
    )
}

#[test]
fn job_specs_match_their_snapshots() {
    let update = std::env::var_os(UPDATE_VAR).is_some_and(|v| v == "1");
    let dir = snapshot_dir();
    let root = repo_root();
    let mut cases: Vec<(String, String)> = Vec::new();
    let files = job_files();
    assert!(
        files.iter().any(|f| f == "examples/quick.fio"),
        "the job files were not found: {files:?}"
    );
    for file in &files {
        let input = ParseInput {
            job_files: vec![root.join(file)],
            ..ParseInput::default()
        };
        cases.push((snapshot_name(file), render(&input)));
    }
    for (name, args) in CLI_CASES {
        let input = ParseInput {
            cli_options: args.iter().map(|a| a.to_string()).collect(),
            ..ParseInput::default()
        };
        cases.push((snapshot_name(&format!("cli/{name}")), render(&input)));
    }

    if update {
        fs::create_dir_all(&dir).unwrap();
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            fs::remove_file(entry.path()).unwrap();
        }
        for (name, text) in &cases {
            fs::write(dir.join(name), text).unwrap();
        }
        return;
    }

    let mut failures = Vec::new();
    for (name, text) in &cases {
        match fs::read_to_string(dir.join(name)) {
            Ok(want) if want == *text => {}
            Ok(want) => failures.push(format!("{name}: {}", diff(&want, text))),
            Err(_) => failures.push(format!("{name}: no snapshot")),
        }
    }
    let expected: Vec<&String> = cases.iter().map(|c| &c.0).collect();
    for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !expected.contains(&&name) {
            failures.push(format!("{name}: a snapshot of no job file"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} job spec snapshot(s) differ from what the job files parse to now; \
         if that is intended, regenerate them with\n    \
         {UPDATE_VAR}=1 cargo test -p ioscope-job --test jobspec_snapshots\n\
         and review the change.\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
