//! fio's program flags beyond the output ones: --showcmd, --enghelp,
//! --eta-interval, --eta-newline, --aux-path, and those accepted for
//! fio's sake (--max-jobs, --alloc-size).

mod common;

use common::{fio, ioscope, tempdir, write_file};
use ioscope_testutil::require;

/// Job files of different shapes: globals before and between jobs, bare
/// flags, a quoted description, filename (which fio parses last) and an
/// engine option.
const JOB_FILES: &[&str] = &[
    "[global]\nioengine=psync\nbs=4k\nsize=1m\nthread\n\n[seq]\nrw=write\nfilename=data\n\
     time_based\nruntime=1\n\n[r2]\nrw=randread\n",
    "[a]\nrw=read\n[global]\nbs=8k\n[b]\nnumjobs=2\n",
    "[a]\nrw=read\nfilename=x:y\ndescription=hello world\n",
    "[a]\nhipri=1\nfilename=d\nioengine=pvsync2\nrw=randread\nkb_base=1000\nsize=1m\n",
];

#[test]
fn showcmd_prints_what_fio_prints() {
    require!(ioscope_testutil::fio());
    let d = tempdir();
    let mut files = Vec::new();
    for (i, text) in JOB_FILES.iter().enumerate() {
        let f = write_file(d.path(), &format!("j{i}.fio"), text);
        let ours = ioscope(["--showcmd".as_ref(), f.as_os_str()]).run();
        ours.assert_ok();
        let theirs = fio(["--showcmd".as_ref(), f.as_os_str()]).run();
        assert_eq!(ours.stdout, theirs.stdout, "{text}");
        files.push(f);
    }
    // Several files: one line each.
    let args: Vec<std::ffi::OsString> = std::iter::once("--showcmd".into())
        .chain(files.iter().map(|f| f.into()))
        .collect();
    let ours = ioscope(&args).run();
    let theirs = fio(&args).run();
    assert_eq!(ours.stdout, theirs.stdout);
    assert_eq!(ours.stdout.lines().count(), JOB_FILES.len());
}

#[test]
fn showcmd_runs_nothing_and_refuses_a_bad_file() {
    let d = tempdir();
    let f = write_file(
        d.path(),
        "j.fio",
        "[w]\nrw=write\nsize=1m\nfilename=never\n",
    );
    let run = ioscope(["--showcmd".as_ref(), f.as_os_str()])
        .dir(d.path())
        .run();
    run.assert_ok();
    assert_eq!(
        run.stdout,
        "fio --name=w --rw=write --size=1m --filename=never \n"
    );
    assert!(!d.path().join("never").exists(), "--showcmd ran the job");
    let bad = write_file(d.path(), "bad.fio", "[w]\nrw=sideways\n");
    let e = ioscope(["--showcmd".as_ref(), bad.as_os_str()])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("rw"), "{e}");
}

#[test]
fn enghelp_lists_engines_and_their_options() {
    let run = ioscope(["--enghelp"]).run();
    run.assert_ok();
    assert!(
        run.stdout.starts_with("Available IO engines:\n\t"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\tio_uring\n"));

    let run = ioscope(["--enghelp=libaio"]).run();
    run.assert_ok();
    assert!(
        run.stdout.contains("userspace_reap          : "),
        "{}",
        run.stdout
    );

    let run = ioscope(["--enghelp=io_uring,sqthread_poll"]).run();
    run.assert_ok();
    assert!(
        run.stdout.starts_with("       sqthread_poll: "),
        "{}",
        run.stdout
    );

    // fio prints this on stdout and exits 1.
    let run = ioscope(["--enghelp=psync"]).run();
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(run.stdout, "IO engine psync has no options\n");
    assert!(run.stderr.is_empty());

    let e = ioscope(["--enghelp=warp"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("'warp' is not an engine"), "{e}");
}

/// The status lines a run printed, as drawn: each ends with `\r`, as
/// fio's, and a new line (`--eta-newline`) starts with `\n`.
fn status_draws(args: &[&str]) -> (usize, usize) {
    let d = tempdir();
    let file = d.path().join("f").display().to_string();
    let mut a = vec![
        "--eta=always".to_string(),
        "--name=eta".into(),
        format!("--filename={file}"),
        "--size=1m".into(),
        "--rw=read".into(),
        "--time_based".into(),
        "--runtime=2".into(),
    ];
    a.extend(args.iter().map(|s| s.to_string()));
    let run = ioscope(a).run();
    run.assert_ok();
    // From the first status line on (the preamble before it ends in a
    // new line of its own).
    let status = &run.stdout[run.stdout.find("Jobs: ").unwrap_or(0)..];
    let draws = status.matches("Jobs: ").count();
    let new_lines = status.matches("\nJobs: ").count();
    (draws, new_lines)
}

#[test]
fn eta_interval_and_newline_pace_the_status_line() {
    let (draws, new_lines) = status_draws(&[]);
    assert!((1..=2).contains(&draws), "{draws} status lines in 2 s");
    assert_eq!(new_lines, 0);

    // Four a second; the machine may be busy, so ask for at least half.
    let (draws, _) = status_draws(&["--eta-interval=250ms"]);
    assert!(draws >= 4, "{draws} status lines in 2 s at 250 ms");

    let (draws, new_lines) = status_draws(&["--eta-interval=250ms", "--eta-newline=500ms"]);
    assert!(
        new_lines >= 1 && new_lines < draws,
        "{new_lines} new lines among {draws} status lines"
    );
}

#[test]
fn eta_times_are_checked() {
    let e = ioscope(["--eta-interval=100ms"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("--eta-interval") && e.contains("250ms"), "{e}");
    let e = ioscope(["--eta-newline=soon"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("--eta-newline"), "{e}");
}

#[test]
fn aux_path_holds_the_verify_state_and_dumps() {
    let d = tempdir();
    let aux = d.path().join("aux");
    std::fs::create_dir(&aux).unwrap();
    let run = ioscope([
        format!("--aux-path={}", aux.display()),
        "--name=st".into(),
        "--filename=f".into(),
        "--size=64k".into(),
        "--rw=write".into(),
        "--verify=crc32c".into(),
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    assert!(aux.join("local-st-0-verify.state").is_file());
    assert!(!d.path().join("local-st-0-verify.state").exists());

    let run = ioscope([
        format!("--aux-path={}", aux.display()),
        "--name=dump".into(),
        "--filename=g".into(),
        "--size=64k".into(),
        "--rw=write".into(),
        "--ioengine=faulty".into(),
        "--fault=bitflip".into(),
        "--fault_rate=100".into(),
        "--verify=md5".into(),
        "--verify_dump=1".into(),
    ])
    .dir(d.path())
    .run();
    run.assert_refused();
    assert!(aux.join("g.0.received").is_file() && aux.join("g.0.expected").is_file());
}

#[test]
fn max_jobs_and_alloc_size_are_taken_as_fio_takes_them() {
    let d = tempdir();
    let run = ioscope([
        "--max-jobs=1".to_string(),
        "--alloc-size=65536".into(),
        "--name=two".into(),
        "--numjobs=2".into(),
        "--ioengine=null".into(),
        "--size=1m".into(),
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    let e = ioscope(["--alloc-size=lots"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("--alloc-size"), "{e}");
    let e = ioscope(["--idle-prof=all"])
        .run()
        .assert_refused()
        .to_string();
    assert!(e.contains("--idle-prof: incorrect option 'all'"), "{e}");
}

#[test]
fn debug_random_prints_each_workers_seeds_before_the_report() {
    let d = tempdir();
    let run = ioscope([
        "--debug=random",
        "--name=r",
        "--numjobs=2",
        "--ioengine=null",
        "--size=64k",
        "--rw=randread",
        "--name=u",
        "--randrepeat=0",
        "--ioengine=null",
        "--size=64k",
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    let pid_field = |l: &str| l.split_whitespace().nth(1).map(str::to_string);
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .take_while(|l| l.starts_with("random   "))
        .collect();
    // Two workers of r, 24 seeds each after the count (fio 3.42's
    // FIO_RAND_NR_OFFS, which prints this line), then u's line.
    assert_eq!(lines.len(), 2 * 25 + 1, "{}", run.stdout);
    assert!(lines.iter().all(|l| pid_field(l) == pid_field(lines[0])));
    assert!(lines[0].ends_with(" FIO_RAND_NR_OFFS=24"), "{}", lines[0]);
    assert!(lines[1].contains(" rand_seeds[0]="), "{}", lines[1]);
    assert_ne!(
        lines[1].split('=').nth(1),
        lines[26].split('=').nth(1),
        "the two workers start from different seeds"
    );
    assert!(lines[50].ends_with(" using system RNG for random seeds"));
    assert!(run.stdout[run.stdout.find("r: (g=0)").unwrap()..].contains("Run status"));
}

#[test]
fn debug_lists_and_refuses_categories_by_name() {
    let run = ioscope(["--debug=?"]).run();
    run.assert_ok();
    assert_eq!(
        run.stdout,
        "fio: dumping debug options:file,io,random,all\n"
    );
    let e = ioscope(["--debug=mutex", "--name=x"])
        .run()
        .assert_refused()
        .to_string();
    assert!(
        e.contains("--debug=mutex") && e.contains("nothing to show"),
        "{e}"
    );
}

/// The `queue:`/`complete:` lines of `--debug=io` output, without the
/// thread id and fio's io_u address (ioscope prints its slot there).
fn io_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("io       "))
        .filter_map(|l| {
            // `%-8s %-5u text`: a pid shorter than 5 digits leaves more
            // than one space before the text.
            let text = l.splitn(3, ' ').nth(2)?.trim_start().split_once(' ')?.1;
            let text = text.trim_start();
            let (what, rest) = text.split_once(": io_u ")?;
            let (_, fields) = rest.split_once(": ")?;
            ["queue", "complete"]
                .contains(&what)
                .then(|| format!("{what} {fields}"))
        })
        .collect()
}

#[test]
fn debug_io_shows_each_io_queued_and_completed_as_fio_does() {
    let d = tempdir();
    let job = [
        "--name=t",
        "--filename=f",
        "--size=64k",
        "--bs=4k",
        "--rw=randread",
        "--ioengine=psync",
    ];
    let run = ioscope(["--debug=io"]).args(job).dir(d.path()).run();
    run.assert_ok();
    assert_eq!(run.stderr, "", "the lines go to stdout, as fio's");
    let ours = io_lines(&run.stdout);
    let queued: Vec<u64> = ours
        .iter()
        .filter_map(|l| l.strip_prefix("queue off=0x"))
        .map(|l| u64::from_str_radix(l.split(',').next().unwrap(), 16).unwrap())
        .collect();
    let mut sorted = queued.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
    assert_eq!(
        ours.iter().filter(|l| l.starts_with("complete ")).count(),
        16
    );
    assert!(
        ours[0].ends_with(",len=0x1000,ddir=0,file=f"),
        "{}",
        ours[0]
    );
    // fio draws the same offsets in the same order (randrepeat's seeds)
    // and prints the same fields for them.
    require!(ioscope_testutil::fio());
    let fio = fio(["--debug=io"]).args(job).dir(d.path()).run();
    fio.assert_ok();
    assert_eq!(ours, io_lines(&fio.stdout));
}

#[test]
fn debug_file_names_the_file_as_it_opens_and_closes() {
    let d = tempdir();
    let out = d.path().join("out.txt");
    let run = ioscope([
        "--debug=file",
        "--output",
        out.to_str().unwrap(),
        "--name=t",
        "--filename=f",
        "--size=16k",
    ])
    .dir(d.path())
    .run();
    run.assert_ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    // With --output the lines go to the file, before the report.
    let text = std::fs::read_to_string(out).unwrap();
    let file_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("file     "))
        .map(|l| l.splitn(3, ' ').nth(2).unwrap().trim_start())
        .map(|l| l.split_once(' ').unwrap().1.trim_start())
        .collect();
    assert_eq!(
        file_lines,
        [
            "get file size for f",
            "lay out f, size 16384",
            "fd open f",
            "fd close f"
        ],
        "{text}"
    );
    assert!(text.find("fd close f").unwrap() < text.find("(groupid=0").unwrap());
}

#[test]
fn a_trigger_stops_the_jobs_then_runs_its_command() {
    let d = tempdir();
    let start = std::time::Instant::now();
    // A time-based job of 30 s, stopped by the trigger's timeout after 1 s.
    let run = ioscope([
        "--trigger-timeout=1",
        "--trigger=echo fired > fired",
        "--output-format=json",
        "--name=w",
        "--filename=f",
        "--size=1m",
        "--rw=write",
        "--time_based",
        "--runtime=30",
    ])
    .dir(d.path())
    .run();
    let v = run.ok_json();
    assert!(
        start.elapsed().as_secs() < 15,
        "the trigger did not stop the job"
    );
    assert!(common::u(&common::job(&v, "w")["write"], "io_bytes") > 0);
    assert_eq!(
        std::fs::read_to_string(d.path().join("fired")).unwrap(),
        "fired\n"
    );

    // The trigger file: removed when seen; a verify job saves its state
    // (how far a later verify may check), though it checked nothing.
    let file = d.path().join("cut-now");
    std::fs::write(&file, "").unwrap();
    let run = ioscope([
        format!("--trigger-file={}", file.display()),
        "--name=v".into(),
        "--filename=g".into(),
        "--size=1m".into(),
        "--rw=write".into(),
        "--verify=crc32c".into(),
        "--time_based".into(),
        "--runtime=30".into(),
    ])
    .dir(d.path())
    .run();
    let e = run.assert_refused();
    assert!(e.contains("verify checked no block"), "{e}");
    assert!(!file.exists(), "the trigger file was left");
    assert!(d.path().join("local-v-0-verify.state").is_file());
    assert!(start.elapsed().as_secs() < 30);
}

/// `--crctest` prints fio's lines for ioscope's checksums: the names in
/// fio's order whatever the order asked, its tabs, its number format, its
/// exit status; `help` lists fio's names with status 1, as fio does.
#[test]
fn crctest_prints_fios_lines() {
    require!(ioscope_testutil::fio());
    // Each line as its name and tabs, once its figure is checked to be
    // fio's %8.2f of a positive number of MiB/s.
    let shape = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                let (name, rest) = l.split_once(':').expect("name: figure");
                let figure = rest.trim_start_matches('\t');
                let tabs = &rest[..rest.len() - figure.len()];
                let field = figure.strip_suffix(" MiB/sec").expect("MiB/sec");
                let mib_s: f64 = field.trim().parse().expect("a number");
                assert!(mib_s > 0.0 && field == format!("{mib_s:8.2}"), "{l:?}");
                format!("{name}:{tabs}")
            })
            .collect()
    };
    let ours = ioscope(["--crctest=crc32c,crc7,md5"]).run();
    ours.assert_ok();
    let theirs = fio(["--crctest=crc32c,crc7,md5"]).run();
    assert_eq!(shape(&ours.stdout), shape(&theirs.stdout));
    assert_eq!(
        shape(&ours.stdout),
        ["md5:\t\t", "crc32c:\t\t", "crc7:\t\t"]
    );
    assert_eq!(ours.stderr, "");
    // A name of 7 characters or more takes one tab (fio's sha3 takes
    // seconds, so only ioscope's is timed).
    let long = ioscope(["--crctest=sha3-224"]).run();
    assert_eq!(shape(&long.assert_ok().stdout), ["sha3-224:\t"]);
    let ours = ioscope(["--crctest=help"]).run();
    let theirs = fio(["--crctest=help"]).run();
    assert_eq!(
        (ours.status.code(), &ours.stdout),
        (theirs.status.code(), &theirs.stdout)
    );
    assert_eq!(ours.status.code(), Some(1));
    let bad = ioscope(["--crctest=md5,bogus"]).run();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        bad.stderr.contains("unknown hash `bogus`. Available:"),
        "{}",
        bad.stderr
    );
    // fio's internal hashes are listed, and refused when asked for.
    let bad = ioscope(["--crctest=jhash"]).run();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        bad.stderr.contains("not a verify checksum"),
        "{}",
        bad.stderr
    );
}

/// `--cpuclock-test` prints fio's lines, and its verdict follows from the
/// mismatches it prints: on one CPU there can be none.
#[test]
fn cpuclock_test_prints_fios_lines() {
    require!(ioscope_testutil::fio());
    // Each line reduced to its shape: digits become `N`.
    let shape = |l: &str| -> String {
        let mut out = String::new();
        for c in l.chars() {
            if !c.is_ascii_digit() {
                out.push(c);
            } else if !out.ends_with('N') {
                out.push('N');
            }
        }
        out.replace("  N", "N").replace(" N", "N")
    };
    let number = |l: &str, key: &str| -> u64 {
        let at = l.find(key).expect(key) + key.len();
        let digits: String = l[at..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().expect("a number")
    };
    // The shapes of fio's lines (gettime.c's formats); whether its
    // mismatch lines show depends on the run, so they are checked against
    // fio's run only when it printed them.
    let known = [
        "cs: reliable_tsc: yes",
        "cs: reliable_tsc: no",
        "cs: TestingN CPUs",
        "cs: cpuN:N clocks seen, firstN",
        "cs: CPU clock mismatch (diff=N):",
        "\t CPUN: TSC=N, SEQ=N",
        "cs: Failed:N",
        "cs: Pass!",
    ];
    let theirs = fio(["--cpuclock-test"]).run();
    // fio's lines, less its calibration's debug lines ("time  PID ...").
    for l in theirs.stdout.lines().filter(|l| !l.starts_with("time ")) {
        assert!(known.contains(&shape(l).as_str()), "fio printed {l:?}");
    }
    for cpus in ["0", "0-1"] {
        let ours = common::Cmd::new("taskset")
            .args(["-c", cpus])
            .arg(common::bin())
            .arg("--cpuclock-test")
            .run();
        assert_eq!(ours.stderr, "", "{}", ours.describe());
        let lines: Vec<&str> = ours.stdout.lines().collect();
        // taskset keeps the CPUs of the list that exist.
        let online = std::thread::available_parallelism().map_or(1, |n| n.get());
        let tested = if cpus == "0" { 1 } else { online.min(2) };
        assert!(lines[0].starts_with("cs: reliable_tsc: "), "{lines:?}");
        let testing = format!("cs: Testing {tested} CPUs");
        assert!(lines.contains(&testing.as_str()), "{lines:?}");
        let seen = lines.iter().filter(|l| l.contains("clocks seen")).count();
        assert_eq!(seen, tested, "{lines:?}");
        // Each mismatch: the earlier turn's reading is above the next's.
        let mismatches: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with("cs: CPU clock mismatch"))
            .collect();
        for &i in &mismatches {
            let diff = number(lines[i], "diff=");
            let (a, b) = (lines[i + 1], lines[i + 2]);
            assert_eq!(number(a, "TSC=") - number(b, "TSC="), diff, "{a} {b}");
            assert_eq!(number(a, "SEQ=") + 1, number(b, "SEQ="), "{a} {b}");
        }
        let verdict = *lines.last().expect("a verdict");
        if mismatches.is_empty() {
            assert_eq!(verdict, "cs: Pass!");
            assert_eq!(ours.status.code(), Some(0));
        } else {
            assert_eq!(verdict, format!("cs: Failed: {}", mismatches.len()));
            assert_eq!(ours.status.code(), Some(1));
        }
        if cpus == "0" {
            assert!(
                mismatches.is_empty(),
                "one CPU disagreed with itself: {lines:?}"
            );
        }
        // Every line but ioscope's own (clocksource=cpu's fallback) has
        // the shape of one of fio's.
        for l in lines.iter().filter(|l| !l.contains("clocksource=cpu")) {
            let s = shape(l);
            assert!(known.contains(&s.as_str()), "{l:?} ({s:?}) is not fio's");
        }
    }
}

/// `--idle-prof`: fio's block after the disk stats and its JSON object,
/// with figures that say how idle the CPUs were; `calibrate` runs nothing.
#[test]
fn idle_prof_reports_as_fio() {
    require!(ioscope_testutil::fio());
    let d = tempdir();
    let job = [
        "--name=i",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=1",
        "--idle-prof=percpu",
        "--output-format=json",
    ];
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v["cpu_idleness"]
            .as_object()
            .expect("a cpu_idleness object")
            .keys()
            .cloned()
            .collect()
    };
    let theirs = fio(job).dir(d.path()).run().ok_json();
    let ours = ioscope(job).dir(d.path()).run().ok_json();
    assert_eq!(keys(&ours), keys(&theirs));
    // The null job keeps one CPU busy: the mean of the CPUs is at least
    // half a CPU's worth below all idle.
    let idle = &ours["cpu_idleness"];
    let cpus = keys(&ours).len() - 3;
    let system = idle["system"].as_f64().expect("system");
    let each: Vec<f64> = (0..cpus)
        .map(|c| idle[format!("cpu-{c}")].as_f64().expect("a CPU"))
        .collect();
    let mean = each.iter().sum::<f64>() / cpus as f64;
    assert!((system - mean).abs() < 1e-6, "{idle}");
    // (Not above 0: the tests beside this one may take every idle moment.)
    assert!(
        system >= 0.0 && system < 100.0 * (cpus as f64 - 0.5) / cpus as f64,
        "a busy CPU should show: {idle}"
    );
    assert!(
        idle["unit_mean"].as_f64().expect("unit_mean") > 0.0,
        "{idle}"
    );
    // The idle threads' CPU is not the run's: one busy CPU for 1 s.
    let cpu = &ours["cpu_accounting"];
    let process_ns = common::u(cpu, "process_usr_ns") + common::u(cpu, "process_sys_ns");
    assert!(
        process_ns < 1_600_000_000,
        "the idle threads were charged to the run: {cpu}"
    );

    let normal = ioscope([
        "--name=i",
        "--ioengine=null",
        "--size=64m",
        "--idle-prof=system",
    ])
    .dir(d.path())
    .run();
    normal.assert_ok();
    let block: Vec<&str> = normal
        .stdout
        .lines()
        .skip_while(|l| *l != "CPU idleness:")
        .take(3)
        .collect();
    assert_eq!(block.len(), 3, "{}", normal.stdout);
    assert!(
        block[1].starts_with("  system: ") && block[1].ends_with('%'),
        "{block:?}"
    );
    assert!(block[2].starts_with("  unit work: mean="), "{block:?}");

    let calibrate = ioscope(["--idle-prof=calibrate"]).run();
    let theirs = fio(["--idle-prof=calibrate"]).run();
    let shape = |s: &str| -> String { s.chars().filter(|c| !c.is_ascii_digit()).collect() };
    assert_eq!(shape(&calibrate.assert_ok().stdout), shape(&theirs.stdout));
    assert_eq!(calibrate.stdout.lines().count(), 2, "{}", calibrate.stdout);
}
