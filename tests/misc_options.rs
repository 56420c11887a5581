//! fio's general options of no other family, run side by side with fio:
//! unified_rw_reporting, the buffer memory options, dedupe modes.

mod common;

use common::{bin, fio, ioscope, job, tempdir, u};
use ioscope_testutil::{fio as fio_installed, huge_pages, require, HugePages};
use serde_json::Value;

/// A seeded random mix on the null engine: the split between reads and
/// writes is fio's random sequence, so both tools issue the same counts.
fn randrw(mode: &str) -> Vec<String> {
    [
        "--name=j",
        "--ioengine=null",
        "--rw=randrw",
        "--size=8m",
        "--io_size=16m",
        "--bs=4k",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--unified_rw_reporting={mode}")])
    .collect()
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

/// fio's keys of a job object, in fio's order, are ioscope's less the keys
/// ioscope adds (fio 3.42's and its own, which come after or beside).
fn assert_same_keys(fio_job: &Value, ours: &Value, what: &str) {
    let ours_keys = keys(ours);
    let mut at = 0;
    for k in keys(fio_job) {
        match ours_keys[at..].iter().position(|o| *o == k) {
            Some(p) => at += p + 1,
            None => panic!("{what}: fio's key {k:?} missing or out of order in {ours_keys:?}"),
        }
    }
}

#[test]
fn unified_rw_reporting_mixed_folds_the_directions_as_fio() {
    require!(fio_installed());
    let args = randrw("mixed");
    let theirs = fio(args.iter().chain(&["--output-format=json".to_string()])).run();
    let fj = job(&theirs.ok_json(), "j").clone();
    let ours = ioscope(args.iter().chain(&["--output-format=json".to_string()])).run();
    let oj = job(&ours.ok_json(), "j").clone();
    assert_same_keys(&fj, &oj, "mixed job");
    for absent in ["read", "write", "trim", "sync"] {
        assert!(oj.get(absent).is_none(), "{absent} present: {oj:#}");
    }
    assert_same_keys(&fj["mixed"], &oj["mixed"], "mixed object");
    for key in ["io_bytes", "total_ios", "short_ios", "drop_ios"] {
        assert_eq!(u(&oj["mixed"], key), u(&fj["mixed"], key), "{key}");
    }
    assert_eq!(u(&oj["mixed"], "total_ios"), 4096);
    assert_eq!(
        u(&oj["mixed"]["clat_ns"], "N"),
        u(&fj["mixed"]["clat_ns"], "N")
    );

    // Normal output: the "mixed" block, "MIXED" group line, and every
    // issued I/O counted as the first direction's.
    let text = |out: &str| {
        out.lines()
            .filter(|l| l.contains("issued rwts") || l.starts_with("  MIXED:"))
            .map(|l| {
                l.split(", bw=")
                    .next()
                    .unwrap()
                    .split(" bw=")
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    let f = fio(&args).run();
    let o = ioscope(&args).run();
    assert_eq!(text(&o.assert_ok().stdout), text(&f.assert_ok().stdout));
    assert!(o.stdout.contains("\n  mixed: IOPS="), "{}", o.stdout);
    assert!(
        o.stdout.contains("issued rwts: total=4096,0,0,0"),
        "{}",
        o.stdout
    );
}

#[test]
fn unified_rw_reporting_both_adds_mixed_after_the_directions() {
    require!(fio_installed());
    let args = randrw("both");
    let mut json_args = args.clone();
    json_args.push("--output-format=json".into());
    let fj = job(&fio(&json_args).run().ok_json(), "j").clone();
    let oj = job(&ioscope(&json_args).run().ok_json(), "j").clone();
    assert_same_keys(&fj, &oj, "both job");
    for dir in ["read", "write", "mixed"] {
        for key in ["io_bytes", "total_ios"] {
            assert_eq!(u(&oj[dir], key), u(&fj[dir], key), "{dir}.{key}");
        }
    }
    assert_eq!(
        u(&oj["mixed"], "total_ios"),
        u(&oj["read"], "total_ios") + u(&oj["write"], "total_ios")
    );
    assert_eq!(
        u(&oj["mixed"]["clat_ns"], "N"),
        u(&fj["mixed"]["clat_ns"], "N")
    );

    let group_lines = |out: &str| {
        out.lines()
            .filter(|l| l.ends_with("msec") && l.contains(": bw="))
            .map(|l| l.split(": bw=").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let f = fio(&args).run();
    let o = ioscope(&args).run();
    assert_eq!(
        group_lines(&o.assert_ok().stdout),
        group_lines(&f.assert_ok().stdout)
    );
    assert_eq!(group_lines(&o.stdout), ["   READ", "  WRITE", "  MIXED"]);
}

/// (blocks, distinct contents, contents that occur more than once) of a
/// file's 4 KiB blocks.
fn dedupe_profile(path: &std::path::Path) -> (usize, usize, usize) {
    use std::collections::HashMap;
    let data = std::fs::read(path).unwrap();
    let mut seen: HashMap<&[u8], usize> = HashMap::new();
    for block in data.chunks(4096) {
        *seen.entry(block).or_default() += 1;
    }
    let repeated = seen.values().filter(|&&n| n > 1).count();
    (data.len() / 4096, seen.len(), repeated)
}

#[test]
fn dedupe_modes_repeat_as_fio_does() {
    require!(fio_installed());
    let dir = common::tempdir();
    for mode in ["repeat", "working_set"] {
        let mut profiles = Vec::new();
        for tool in ["fio", "ioscope"] {
            let file = dir.path().join(format!("{tool}-{mode}"));
            let args = [
                "--name=j".to_string(),
                "--ioengine=psync".into(),
                format!("--filename={}", file.display()),
                "--rw=write".into(),
                "--size=8m".into(),
                "--bs=4k".into(),
                "--dedupe_percentage=50".into(),
                format!("--dedupe_mode={mode}"),
            ];
            let run = if tool == "fio" {
                fio(&args)
            } else {
                ioscope(&args)
            };
            run.run().assert_ok();
            profiles.push(dedupe_profile(&file));
        }
        let (f, o) = (profiles[0], profiles[1]);
        assert_eq!(o.0, 2048, "{mode}");
        // The draws of which writes repeat are fio's: the counts agree
        // to a block or two.
        assert!(
            o.1.abs_diff(f.1) <= 3,
            "{mode}: distinct {o:?} vs fio {f:?}"
        );
        assert!(
            o.2.abs_diff(f.2) <= 3,
            "{mode}: repeated {o:?} vs fio {f:?}"
        );
    }
}

#[test]
fn memory_kinds_run_and_huge_pages_are_refused_without_any() {
    let dir = common::tempdir();
    let file = dir.path().join("f");
    let base = |mem: &str| {
        vec![
            "--name=j".to_string(),
            "--ioengine=psync".into(),
            format!("--filename={}", file.display()),
            "--rw=randrw".into(),
            "--size=1m".into(),
            "--bs=4k".into(),
            "--iomem_align=4096".into(),
            "--lockmem=64k".into(),
            format!("--mem={mem}"),
            "--output-format=json".into(),
        ]
    };
    let mapped = dir.path().join("buffers");
    let mmap_file = format!("mmap:{}", mapped.display());
    for mem in ["malloc", "shm", "mmap", "mmapshared", mmap_file.as_str()] {
        let j = ioscope(base(mem)).run().ok_json();
        let j = job(&j, "j");
        assert_eq!(
            u(&j["read"], "io_bytes") + u(&j["write"], "io_bytes"),
            1 << 20,
            "{mem}"
        );
    }
    // The file ioscope made for its buffers is removed, as fio does.
    assert!(!mapped.exists());
    // Under the huge pages' lock, so that no other test reserves some
    // meanwhile.
    let _none = require!(huge_pages(0));
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    if meminfo.contains("HugePages_Total:       0") {
        for mem in ["shmhuge", "mmaphuge"] {
            let r = ioscope(base(mem)).run();
            assert!(r.assert_refused().contains("no huge pages"), "{}", r.stderr);
        }
    }
    let r = ioscope(base("cudamalloc")).run();
    assert!(r.assert_refused().contains("CUDA"));
}

/// With huge pages reserved, mem=mmaphuge, mem=shmhuge and the xnvme
/// engine's xnvme_mem=hugepage take the I/O buffers from them: fewer are
/// free while the job runs.
#[test]
fn huge_page_buffers_come_from_the_reserved_pages() {
    let _pages = require!(huge_pages(8));
    let dir = tempdir();
    let file = dir.path().join("f");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let kinds: [&[&str]; 3] = [
        &["--mem=mmaphuge"],
        &["--mem=shmhuge"],
        &[
            "--ioengine=xnvme",
            "--xnvme_sync=psync",
            "--xnvme_mem=hugepage",
        ],
    ];
    for extra in kinds {
        let free = HugePages::free();
        let mut child = std::process::Command::new(bin())
            .args([
                "--name=h",
                &format!("--filename={}", file.display()),
                "--rw=randread",
                "--bs=4k",
                "--size=1m",
                "--time_based",
                "--runtime=1",
            ])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut least = free;
        while child.try_wait().unwrap().is_none() {
            least = least.min(HugePages::free());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{extra:?}: {err}");
        assert!(least < free, "{extra:?}: {free} huge pages free throughout");
    }
}

#[test]
fn a_working_set_needs_a_size_one_file_and_room() {
    let refused = |extra: &[&str]| {
        let mut args = vec![
            "--name=j",
            "--ioengine=null",
            "--rw=write",
            "--dedupe_percentage=50",
            "--dedupe_mode=working_set",
            "--parse-only",
        ];
        args.extend_from_slice(extra);
        ioscope(&args).run().assert_refused().to_string()
    };
    assert!(refused(&[]).contains("needs size"));
    assert!(refused(&["--size=1m", "--nrfiles=2"]).contains("one file"));
    assert!(
        refused(&["--size=1m", "--dedupe_working_set_percentage=60"]).contains("cannot be reached")
    );
}

/// The lines fio and ioscope print about the I/O, with the figures that
/// depend on speed replaced by their shape (digits, a decimal point).
fn shapes(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.contains("IOPS=") || l.contains(": bw="))
        .map(|l| {
            l.chars()
                .map(|c| if c.is_ascii_digit() { '9' } else { c })
                .collect::<String>()
                .split("9")
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("9")
        })
        .collect()
}

#[test]
fn significant_figures_and_unit_base_print_as_fio() {
    require!(fio_installed());
    // 16 MiB read in 4 KiB blocks: sizes and counts do not depend on
    // speed. The rate holds the bandwidth's magnitude, which decides its
    // unit (unpaced, a loaded machine made fio's 10 figures fit in B/s
    // while ioscope's, four times as fast, needed KiB/s).
    for extra in [
        ["--unit_base=1", "--significant_figures=3"],
        ["--unit_base=8", "--significant_figures=10"],
    ] {
        let mut args = vec![
            "--name=j",
            "--ioengine=null",
            "--rw=read",
            "--size=16m",
            "--rate=32m",
            "--bs=4k",
        ];
        args.extend_from_slice(&extra);
        let f = fio(&args).run();
        let o = ioscope(&args).run();
        let (f, o) = (&f.assert_ok().stdout, &o.assert_ok().stdout);
        assert_eq!(shapes(o).len(), 2, "{o}");
        // The units and the number of digits (speed aside) agree.
        for (ours, theirs) in shapes(o).iter().zip(shapes(f)) {
            let unit = |s: &str| {
                s.split(['(', ')'])
                    .map(|p| p.trim_start_matches(['9', '.']))
                    .collect::<Vec<_>>()
                    .join("|")
            };
            assert_eq!(unit(ours), unit(&theirs), "{extra:?}\n{o}\n{f}");
        }
        if extra[0] == "--unit_base=1" {
            assert!(o.contains("bit/s"), "{o}");
        } else {
            // Ten figures: the size is printed whole, as fio prints it.
            assert!(
                o.contains("(16777216B/") && f.contains("(16777216B/"),
                "{o}\n{f}"
            );
        }
    }
}

#[test]
fn stats_0_leaves_the_job_out_as_fio() {
    require!(fio_installed());
    let args = [
        "--name=hidden",
        "--ioengine=null",
        "--size=1m",
        "--stats=0",
        "--name=shown",
        "--ioengine=null",
        "--size=2m",
    ];
    let jobs = |out: &str| {
        out.lines()
            .filter(|l| l.contains("(groupid="))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let f = fio(args).run();
    let o = ioscope(args).run();
    assert_eq!(jobs(&o.assert_ok().stdout), jobs(&f.assert_ok().stdout));
    assert_eq!(jobs(&o.stdout), ["shown"]);
    assert!(o.stdout.contains("io=2048KiB"), "{}", o.stdout);
}

#[test]
fn bwavgtime_and_iopsavgtime_set_the_sampling_intervals() {
    require!(fio_installed());
    let samples = |tool: &str, extra: &[&str]| {
        let mut args = vec![
            "--name=j",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--runtime=2",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let run = if tool == "fio" {
            fio(&args)
        } else {
            ioscope(&args)
        };
        let j = run.run().ok_json();
        let r = &job(&j, "j")["read"];
        (u(r, "bw_samples"), u(r, "iops_samples"))
    };
    let short = ["--bwavgtime=100", "--iopsavgtime=250"];
    let (fb, fi) = samples("fio", &short);
    let (ob, oi) = samples("ioscope", &short);
    // 2 s at 100 and 250 ms: 20 and 8 samples where the sampler keeps
    // time; fio's helper thread loses a few on a busy machine.
    assert!(
        (17..=20).contains(&ob) && (7..=8).contains(&oi),
        "{ob} {oi}"
    );
    assert!(
        fb >= 10 && fb <= ob + 1 && fi >= 6 && fi <= oi + 1,
        "fio {fb} {fi}"
    );
    let (db, di) = samples("ioscope", &[]);
    assert!(db <= 4 && di <= 4, "default 500 ms: {db} {di}");
}

#[test]
fn refused_general_options_say_why() {
    for (opt, why) in [
        ("--fdp=1", "flexible data placement"),
        (
            "--profile=act",
            "set IO target(s) with the device-names option",
        ),
        ("--pi_act=0", "option of ioengine=io_uring_cmd"),
        ("--mem=cudamalloc", "CUDA"),
        ("--gpu_dev_id=1", "CUDA"),
        (
            "--libblkio_driver=io_uring",
            "ioengine=libblkio needs libblkio",
        ),
        ("--http_s3_security_token=t", "ioengine=http needs libcurl"),
        ("--rbd_encryption_format=luks2", "ioengine=rbd needs librbd"),
    ] {
        let r = ioscope([
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--parse-only",
            opt,
        ])
        .run();
        assert!(r.assert_refused().contains(why), "{opt}: {}", r.stderr);
    }
}

/// block_error_percentiles counts the trims of each trim block: every
/// other 4 KiB block of a 1 MiB region trimmed 3 times over, the first 16
/// of them a fourth. The text is what fio 3.42 prints for the same job on
/// a block device once its comparator reads the 32-bit words it sorts
/// (fio 3.33 to 3.42 as released abort on an assertion there); fio
/// cannot trim a regular file, ioscope punches holes.
#[test]
fn block_error_percentiles_count_trims_per_block() {
    let d = common::tempdir();
    let file = d.path().join("trimmed");
    std::fs::write(&file, vec![1u8; 2 << 20]).unwrap();
    let name = format!("--filename={}", file.display());
    let base = [
        "--name=t",
        name.as_str(),
        "--rw=trim:4k",
        "--bs=4k",
        "--offset=64k",
        "--size=1m",
        "--io_size=1600k",
        "--block_error_percentiles=1",
        "--percentile_list=1:25:50:75:90:99:99.9",
    ];
    let run = ioscope(base.iter().chain(&["--output-format=normal,json"])).run();
    run.assert_ok();
    let text = "  block lifetime percentiles :\n   \
                | 1.00th=3, 25.00th=3, 50.00th=3, 75.00th=3, 90.00th=4, 99.00th=4,\n   \
                | 99.90th=4\n        \
                states               : unwritten=128, trimmed=128, written=0, trim failure=0, write failure=0\n";
    assert!(run.stdout.contains(text), "{}", run.stdout);
    let (j, _) = common::extract_json(&run.stdout).expect("a JSON report");
    let block = &job(&j, "t")["block"];
    let pcts: Vec<(String, u64)> = block["percentiles"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    let want = [
        ("1.000000", 3),
        ("25.000000", 3),
        ("50.000000", 3),
        ("75.000000", 3),
        ("90.000000", 4),
        ("99.000000", 4),
        ("99.900000", 4),
    ];
    assert_eq!(
        pcts,
        want.map(|(k, v)| (k.to_string(), v)).to_vec(),
        "{block}"
    );
    assert_eq!(u(&block["states"], "trimmed"), 128);
    assert_eq!(u(&block["states"], "unwritten"), 128);
    assert_eq!(
        keys(&block["states"]),
        [
            "unwritten",
            "trimmed",
            "written",
            "trim failure",
            "write failure"
        ]
    );

    // fio's limits: one file, at most 8192 trim blocks.
    let two = format!("--filename={}:{}", file.display(), file.display());
    let r = ioscope([
        "--name=t",
        &two,
        "--block_error_percentiles=1",
        "--parse-only",
    ])
    .run();
    assert!(
        r.assert_refused().contains(
            "block error histogram only available with a single file per job, but 2 files provided"
        ),
        "{}",
        r.describe()
    );
    let r = ioscope(base.iter().chain(&["--bs=64", "--output-format=json"])).run();
    assert!(!r.status.success(), "{}", r.describe());
    assert!(
        r.stderr
            .contains("cannot calculate block histogram with 16384 trim blocks, maximum 8192"),
        "{}",
        r.describe()
    );
    assert_eq!(u(job(&r.json(), "t"), "error"), 22);
}

/// fio's deprecated options: the soft ones run with fio's "Option X is
/// deprecated" line on the output, once per place given, before the
/// report, under --parse-only too; the hard ones fail, in both tools.
#[test]
fn deprecated_options_are_noted_or_refused_as_fio() {
    require!(fio_installed());
    let d = common::tempdir();
    let file = d.path().join("dep.fio");
    std::fs::write(
        &file,
        "[global]\nverifysort=1\nioengine=null\nsize=1m\n[a]\n[b]\nflow_watermark=2\nnumjobs=2\n",
    )
    .unwrap();
    let notes = "Option verifysort is deprecated\nOption flow_watermark is deprecated\n";
    for tool in ["fio", "ioscope"] {
        let args = [file.as_os_str(), "--parse-only".as_ref()];
        let run = match tool {
            "fio" => fio(args).run(),
            _ => ioscope(args).run(),
        };
        assert!(run.status.success(), "{tool}: {}", run.describe());
        assert_eq!(run.stdout, notes, "{tool}");
        let args = [file.as_os_str(), "--output-format=json".as_ref()];
        let run = match tool {
            "fio" => fio(args).run(),
            _ => ioscope(args).run(),
        };
        assert!(run.status.success(), "{tool}: {}", run.describe());
        assert!(run.stdout.starts_with(notes), "{tool}: {}", run.stdout);
        for hard in ["--percentage_sequential=10", "--rwmixcycle=1"] {
            let args = [
                "--name=x",
                "--ioengine=null",
                "--size=1m",
                "--parse-only",
                hard,
            ];
            let run = match tool {
                "fio" => fio(args).run(),
                _ => ioscope(args).run(),
            };
            assert!(!run.status.success(), "{tool} {hard}: {}", run.describe());
        }
    }
}

/// `comm` (fio 3.42) names the job's thread as fio names its job's
/// process: a prerun command, run from the job, finds the name among the
/// tasks of its parent (fio 3.42 on the same job: /proc/$PPID/comm is the
/// name, its job being a process of its own).
#[test]
fn comm_names_the_jobs_thread() {
    let d = common::tempdir();
    let file = format!("--filename={}", d.path().join("f").display());
    // The names of the run's threads, as its job `name` finds them.
    let thread_names = |name: &str, extra: &[&str]| {
        let job = format!("--name={name}");
        let mut args = vec![
            job.as_str(),
            "--size=64k",
            file.as_str(),
            "--rw=read",
            "--exec_prerun=cat /proc/$PPID/task/*/comm",
        ];
        args.extend_from_slice(extra);
        ioscope(args).dir(d.path()).run().assert_ok();
        std::fs::read_to_string(d.path().join(format!("{name}.prerun.txt"))).unwrap()
    };
    let names = thread_names("named", &["--comm=io-worker-7"]);
    assert!(names.lines().any(|l| l == "io-worker-7"), "{names}");
    // Without comm no thread has that name.
    let names = thread_names("plain", &[]);
    assert!(!names.contains("io-worker"), "{names}");
}

/// `filetype` (fio 3.41): a job whose files are of the type it names runs
/// as without it, a file it will create included; a file of another type
/// is refused before any I/O (fio would use it as the wrong type:
/// fio 3.42 makes /tmp/x, a regular file, as a "block device" it does not
/// lay out).
#[test]
fn filetype_is_checked_against_each_file() {
    let d = common::tempdir();
    let file = d.path().join("f");
    let name = format!("--filename={}", file.display());
    let base = ["--name=t", "--size=64k", name.as_str(), "--rw=write"];
    ioscope(base.iter().copied().chain(["--filetype=file"]))
        .run()
        .assert_ok();
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 64 << 10);
    ioscope(base.iter().copied().chain(["--filetype=none"]))
        .run()
        .assert_ok();
    let run = ioscope(base.iter().copied().chain(["--filetype=block"])).run();
    let err = run.assert_refused();
    assert!(
        err.contains(
            "filetype=block takes every file of the job for one, but this one is of type file"
        ),
        "{err}"
    );
    ioscope([
        "--name=n",
        "--filename=/dev/null",
        "--size=64k",
        "--rw=write",
        "--filetype=char",
    ])
    .run()
    .assert_ok();
    let run = ioscope([
        "--name=n",
        "--filename=/dev/null",
        "--size=64k",
        "--filetype=file",
    ])
    .run();
    assert!(
        run.assert_refused().contains("this one is of type char"),
        "{}",
        run.stderr
    );
    let run = ioscope(["--name=t", "--size=64k", "--parse-only", "--filetype=pipe"]).run();
    assert!(run.assert_refused().contains("filetype"), "{}", run.stderr);
}
