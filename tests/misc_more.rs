//! fio's remaining general options, run side by side with fio where fio
//! shows their effect: time_based without a runtime, the warning for
//! clones that verify one file, dedupe_global,
//! disable_bw, serialize_overlap, gtod_cpu, job_start_clock_id, and the
//! exec engine's missing program.

mod common;

use std::collections::HashSet;
use std::path::Path;

use common::{fio, ioscope, job, tempdir, u, write_file};
use ioscope_testutil::{fio as fio_installed, require};

// fio drops time_based when no runtime is given: one line on stderr per
// job section (not per clone), and the job runs on its size.
#[test]
fn time_based_without_runtime_is_dropped_with_fios_message() {
    require!(fio_installed());
    let dir = tempdir();
    let text = format!(
        "[a]\nfilename={}\nsize=64k\ntime_based\nnumjobs=2\n[b]\nfilename={}\nsize=32k\ntime_based\n",
        dir.path().join("fa").display(),
        dir.path().join("fb").display()
    );
    let file = write_file(dir.path(), "tb.fio", &text);
    let args = [file.to_str().unwrap(), "--output-format=json"];
    let theirs = fio(args).run();
    let ours = ioscope(args).run();
    assert!(
        theirs.status.success() && ours.status.success(),
        "{}",
        ours.describe()
    );
    assert_eq!(ours.stderr, theirs.stderr);
    assert_eq!(
        ours.stderr,
        "fio: time_based requires a runtime/timeout setting\n".repeat(2)
    );
    let (f, o) = (theirs.json(), ours.json());
    for name in ["a", "b"] {
        assert_eq!(
            u(&job(&o, name)["write"], "io_bytes"),
            u(&job(&f, name)["write"], "io_bytes"),
            "{name}"
        );
    }
    // --warnings-fatal makes it fatal, as in fio; --parse-only says nothing.
    let fatal = ioscope(["--warnings-fatal", file.to_str().unwrap()]).run();
    assert_eq!(fatal.status.code(), Some(1), "{}", fatal.describe());
    let parse = ioscope(["--parse-only", file.to_str().unwrap()]).run();
    parse.assert_ok();
}

// fio warns on its output, once per job section, when the clones of a
// verifying write job share their files (a named file, even apart with
// offset_increment), and not when each clone makes its own;
// --warnings-fatal stops the run there.
#[test]
fn clones_writing_one_file_with_verify_get_fios_warning() {
    require!(fio_installed());
    let dir = tempdir();
    let warning = "fio: multiple writers may overwrite blocks that belong to other jobs. \
                   This can cause verification failures.\n";
    let common = [
        "--name=v",
        "--rw=write",
        "--size=64k",
        "--verify=crc32c",
        "--numjobs=2",
        "--output-format=terse",
    ];
    let cases: [(&[&str], &str, i32); 3] = [
        (&["--filename=f", "--offset_increment=64k"], warning, 0),
        (&["--filename=f", "--warnings-fatal"], warning, 1),
        (&[], "", 0),
    ];
    for (extra, before, code) in cases {
        for with_fio in [true, false] {
            let args = [&common[..], extra].concat();
            let run = match with_fio {
                true => fio(args),
                false => ioscope(args),
            }
            .dir(dir.path())
            .run();
            assert_eq!(
                run.status.code(),
                Some(code),
                "{extra:?}: {}",
                run.describe()
            );
            let terse_at = run.stdout.find("3;").unwrap_or(run.stdout.len());
            assert_eq!(
                &run.stdout[..terse_at],
                before,
                "{extra:?}: {}",
                run.describe()
            );
            let terse = run.stdout.lines().filter(|l| l.starts_with("3;")).count();
            assert_eq!(
                terse,
                2 * (1 - code as usize),
                "{extra:?}: {}",
                run.describe()
            );
        }
    }
}

// fio's forked child carries on as a copy of fio when execvp fails (the
// job passes, having run nothing); ioscope fails the job and says which
// program and why.
#[test]
fn exec_names_the_program_it_cannot_start() {
    let dir = tempdir();
    let run = ioscope([
        "--name=t",
        "--ioengine=exec",
        "--program=/nonexistent/turbostat",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ])
    .dir(dir.path())
    .run();
    let err = run.assert_refused();
    assert!(
        err.contains("cannot run /nonexistent/turbostat: No such file or directory"),
        "{err}"
    );
    assert_eq!(u(job(&run.json(), "t"), "error"), 2, "ENOENT");
}

/// The 4 KiB blocks of a file, by content.
fn blocks(path: &Path) -> Vec<Vec<u8>> {
    std::fs::read(path)
        .unwrap()
        .chunks(4096)
        .map(<[u8]>::to_vec)
        .collect()
}

/// For two files: the share of unique blocks in the first, and the share
/// of the second's blocks found in the first.
fn dedupe_shares(a: &Path, b: &Path) -> (f64, f64) {
    let (a, b) = (blocks(a), blocks(b));
    let set_a: HashSet<&Vec<u8>> = a.iter().collect();
    let cross = b.iter().filter(|x| set_a.contains(x)).count();
    (
        set_a.len() as f64 / a.len() as f64,
        cross as f64 / b.len() as f64,
    )
}

// fio's dedupe-global.fio, smaller: with dedupe_global the jobs repeat
// each other's buffers (b's blocks are found in a), without it never.
#[test]
fn dedupe_global_repeats_buffers_across_jobs_as_fio() {
    require!(fio_installed());
    for global in [1, 0] {
        let mut shares = Vec::new();
        for tool in ["fio", "ioscope"] {
            let dir = tempdir();
            let text = format!(
                "[global]\nioengine=libaio\niodepth=16\nsize=4m\ndedupe_mode=working_set\n\
                 dedupe_global={global}\ndedupe_percentage=50\nblocksize=4k\nrw=write\n\
                 buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n[a]\n[b]\n"
            );
            let file = write_file(dir.path(), "dg.fio", &text);
            let args = [file.to_str().unwrap(), "--output-format=terse"];
            let run = if tool == "fio" {
                fio(args).dir(dir.path()).run()
            } else {
                ioscope(args).dir(dir.path()).run()
            };
            run.assert_ok();
            shares.push(dedupe_shares(
                &dir.path().join("a.0.0"),
                &dir.path().join("b.0.0"),
            ));
        }
        let ((f_unique, f_cross), (o_unique, o_cross)) = (shares[0], shares[1]);
        assert!(
            (f_unique - o_unique).abs() < 0.05 && (f_cross - o_cross).abs() < 0.05,
            "dedupe_global={global}: fio unique {f_unique:.3} cross {f_cross:.3}, \
             ioscope unique {o_unique:.3} cross {o_cross:.3}"
        );
        if global == 1 {
            assert!(o_cross > 0.4, "{o_cross}");
        } else {
            assert_eq!(o_cross, 0.0);
        }
    }
}

/// Lines of each log file in `dir` whose name starts with `prefix`.
fn log_lines(dir: &Path, prefix: &str) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".log"))
        .map(|n| {
            let lines = std::fs::read_to_string(dir.join(&n))
                .unwrap()
                .lines()
                .count();
            (n, lines)
        })
        .collect();
    v.sort();
    v
}

// disable_bw skips a per-I/O bandwidth log's samples (the IOPS log keeps
// its); with disable_clat and disable_slat too it is fio's gtod_reduce,
// which skips the IOPS samples as well.
#[test]
fn disable_bw_empties_the_per_io_bandwidth_log_as_fio() {
    require!(fio_installed());
    for extra in [
        &["--disable_bw=1"][..],
        &[
            "--disable_bw_measurement=1",
            "--disable_clat=1",
            "--disable_slat=1",
        ],
    ] {
        let mut found = Vec::new();
        for tool in ["fio", "ioscope"] {
            let dir = tempdir();
            let mut args = vec![
                "--name=a".to_string(),
                format!("--filename={}", dir.path().join("f").display()),
                "--size=64k".into(),
                "--bs=4k".into(),
                "--rw=write".into(),
                "--write_bw_log=d".into(),
                "--write_iops_log=d".into(),
                "--output-format=terse".into(),
            ];
            args.extend(extra.iter().map(|s| s.to_string()));
            let run = if tool == "fio" {
                fio(&args).dir(dir.path()).run()
            } else {
                ioscope(&args).dir(dir.path()).run()
            };
            run.assert_ok();
            found.push(log_lines(dir.path(), "d_"));
        }
        assert_eq!(found[1], found[0], "{extra:?}");
    }
}

// serialize_overlap: random writes at depth 16 over 16 blocks with no
// random map collide all the time, so the queue never fills: fio's depth
// distribution, which ioscope must match as it matches the I/O count.
#[test]
fn serialize_overlap_keeps_the_depth_fio_keeps() {
    require!(fio_installed());
    let mut totals = Vec::new();
    let mut depths = Vec::new();
    for tool in ["fio", "ioscope"] {
        let dir = tempdir();
        let args = [
            "--name=s".to_string(),
            format!("--filename={}", dir.path().join("f").display()),
            "--ioengine=libaio".into(),
            "--iodepth=16".into(),
            "--rw=randwrite".into(),
            "--norandommap".into(),
            "--size=64k".into(),
            "--io_size=1m".into(),
            "--bs=4k".into(),
            "--serialize_overlap=1".into(),
            "--output-format=json".into(),
        ];
        let run = if tool == "fio" {
            fio(&args).run()
        } else {
            ioscope(&args).run()
        };
        let j = job(&run.ok_json(), "s").clone();
        totals.push((u(&j["write"], "total_ios"), u(&j["write"], "io_bytes")));
        depths.push(j["iodepth_level"].clone());
    }
    assert_eq!(totals[1], totals[0]);
    for level in ["1", "2", "4", "8", "16"] {
        let (f, o) = (common::f(&depths[0], level), common::f(&depths[1], level));
        assert!((f - o).abs() < 5.0, "depth {level}: fio {f}%, ioscope {o}%");
    }
    // Every write collides with one in flight long before 16 are.
    assert_eq!(common::f(&depths[1], "16"), 0.0, "{}", depths[1]);
}

// gtod_cpu leaves the job's CPUs; taking the only one fails the job in
// fio (sched_setaffinity: EINVAL) and is refused before the run here.
#[test]
fn gtod_cpu_takes_its_cpu_from_cpus_allowed() {
    let refused = ioscope([
        "--parse-only",
        "--name=g",
        "--size=64k",
        "--cpus_allowed=1",
        "--gtod_cpu=1",
    ])
    .run();
    assert!(
        refused.assert_refused().contains("gtod_cpu=1"),
        "{}",
        refused.stderr
    );
    // gtod_cpu=0 takes nothing (fio tests the value, not whether it was set).
    ioscope([
        "--parse-only",
        "--name=g",
        "--size=64k",
        "--cpus_allowed=0",
        "--gtod_cpu=0",
    ])
    .run()
    .assert_ok();
}

// job_start_clock_id: the JSON job_start reads that clock. CLOCK_BOOTTIME
// (7) is /proc/uptime's clock.
#[test]
fn job_start_reads_the_clock_asked_for() {
    let dir = tempdir();
    let run = ioscope([
        "--name=j".to_string(),
        format!("--filename={}", dir.path().join("f").display()),
        "--size=64k".into(),
        "--job_start_clock_id=7".into(),
        "--output-format=json".into(),
    ])
    .run();
    let start = u(job(&run.ok_json(), "j"), "job_start");
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let now_ms = (uptime * 1000.0) as u64;
    assert!(
        start <= now_ms + 20 && now_ms - start < 60_000,
        "job_start {start} ms, uptime {now_ms} ms"
    );
    let bad = ioscope(["--parse-only", "--name=j", "--job_start_clock_id=99"]).run();
    assert!(
        bad.assert_refused().contains("job_start_clock_id"),
        "{}",
        bad.stderr
    );
}

// The mmap engine's thp maps the file private (and advises huge pages):
// in fio the writes then never reach the file. Both tools, same job.
#[test]
fn mmap_thp_writes_stay_in_the_private_mapping_as_fio() {
    require!(fio_installed());
    for thp in ["1", "0"] {
        let mut zeroed = Vec::new();
        for tool in ["fio", "ioscope"] {
            let dir = tempdir();
            let path = dir.path().join("z");
            std::fs::write(&path, vec![0u8; 64 << 10]).unwrap();
            let args = [
                "--name=m".to_string(),
                "--ioengine=mmap".into(),
                format!("--filename={}", path.display()),
                "--size=64k".into(),
                "--rw=write".into(),
                format!("--thp={thp}"),
                "--output-format=terse".into(),
            ];
            let run = if tool == "fio" {
                fio(&args).run()
            } else {
                ioscope(&args).run()
            };
            run.assert_ok();
            zeroed.push(std::fs::read(&path).unwrap().iter().all(|&b| b == 0));
        }
        assert_eq!(zeroed[1], zeroed[0], "thp={thp}");
        assert_eq!(zeroed[1], thp == "1", "thp={thp}");
    }
}

// error_dump: each write to /dev/full fails with ENOSPC, which
// ignore_error lets pass; with error_dump=1 each failure is printed on
// stderr as fio prints it, and with error_dump=0 (fio's default) none is.
#[test]
fn error_dump_prints_each_error_let_pass_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    for dump in [None, Some("0"), Some("1")] {
        let mut args = vec![
            "--name=e",
            "--filename=/dev/full",
            "--size=16k",
            "--bs=4k",
            "--rw=write",
            "--ioengine=psync",
            "--continue_on_error=all",
            "--ignore_error=,ENOSPC",
        ];
        let given = dump.map(|v| format!("--error_dump={v}"));
        args.extend(given.as_deref());
        let lines = |tool: common::Cmd, prefix: &str| {
            let r = tool.dir(d.path()).run();
            assert!(r.status.success(), "{}", r.describe());
            r.stderr
                .lines()
                .map(|l| l.strip_prefix(prefix).unwrap_or(l).to_string())
                .collect::<Vec<_>>()
        };
        let theirs = lines(fio(&args), "fio: ");
        let ours = lines(ioscope(&args), "ioscope: ");
        assert_eq!(ours, theirs, "error_dump={dump:?}");
        let expected = if dump == Some("1") { 4 } else { 0 };
        assert_eq!(ours.len(), expected, "error_dump={dump:?}: {ours:?}");
        if expected > 0 {
            assert_eq!(
                ours[1],
                "io_u error on file /dev/full: No space left on device: write offset=4096, buflen=4096"
            );
        }
    }
}

// verify_async_cpus places the verify_async checkers: the job verifies
// every block it wrote, as fio's does with the same options.
#[test]
fn verify_async_cpus_checks_every_block_as_fio() {
    require!(fio_installed());
    let mut verified = Vec::new();
    for tool in ["fio", "ioscope"] {
        let dir = tempdir();
        let args = [
            "--name=v".to_string(),
            format!("--filename={}", dir.path().join("f").display()),
            "--size=256k".into(),
            "--bs=4k".into(),
            "--rw=write".into(),
            "--verify=crc32c".into(),
            "--verify_async=2".into(),
            "--verify_async_cpus=0".into(),
            "--output-format=json".into(),
        ];
        // Both write local-v-0-verify.state into their working directory.
        let run = if tool == "fio" {
            fio(&args).dir(dir.path()).run()
        } else {
            ioscope(&args).dir(dir.path()).run()
        };
        let j = job(&run.ok_json(), "v").clone();
        verified.push(u(&j["read"], "total_ios"));
    }
    assert_eq!(verified[1], verified[0]);
    assert_eq!(verified[1], 64);
}
