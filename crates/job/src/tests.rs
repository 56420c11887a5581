//! The parser end to end: job files and command-line jobs through [`parse`].

use super::*;
use std::fs;

use ioscope_engine::Backend;
use std::time::Duration;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

fn files(names: &[&str]) -> ParseInput {
    ParseInput {
        job_files: names.iter().map(|n| testdata(n)).collect(),
        ..ParseInput::default()
    }
}

fn cli(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Writes a job file into a temporary directory and parses it.
fn parse_text(text: &str) -> Result<Parsed, ParseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    fs::write(&path, text).unwrap();
    parse(&ParseInput {
        job_files: vec![path],
        ..ParseInput::default()
    })
}

#[test]
fn fio_defaults_are_what_an_empty_section_gives() {
    let parsed = parse_text("[t]\n").unwrap();
    let mut defaults = JobSpec::fio_defaults("t");
    defaults.origin = parsed.jobs[0].origin.clone();
    assert_eq!(defaults, parsed.jobs[0]);
}

#[test]
fn invalidate_is_on_unless_turned_off() {
    let parsed = parse_text("[a]\nsize=1m\n[b]\nsize=1m\ninvalidate=0\n").unwrap();
    assert!(parsed.jobs[0].invalidate);
    assert!(!parsed.jobs[1].invalidate);
}

#[test]
fn fadvise_hint_takes_fios_values() {
    let parsed = parse_text(
        "[a]\nsize=1m\n[b]\nsize=1m\nfadvise_hint=0\n[c]\nsize=1m\nfadvise_hint=random\n",
    )
    .unwrap();
    let hints: Vec<_> = parsed.jobs.iter().map(|j| j.fadvise_hint).collect();
    assert_eq!(
        hints,
        [
            FadviseHint::Workload,
            FadviseHint::None,
            FadviseHint::Random
        ]
    );
    let err = parse_text("[a]\nsize=1m\nfadvise_hint=sometimes\n").unwrap_err();
    assert!(err.to_string().contains("fadvise_hint"), "{err}");
}

#[test]
fn xnvme_style_job_file() {
    let parsed = parse(&files(&["xnvme.fio"])).unwrap();
    assert_eq!(parsed.jobs.len(), 1);
    let job = &parsed.jobs[0];
    assert_eq!(job.name, "default");
    assert_eq!(
        job.origin,
        Origin::File {
            path: testdata("xnvme.fio").display().to_string(),
            line: 16
        }
    );
    assert!(job.thread && job.time_based && job.norandommap && job.direct && job.hipri);
    assert_eq!(job.filenames, vec!["/dev/nvme0n1"]);
    assert_eq!(job.runtime, Some(Duration::from_secs(60)));
    assert_eq!(
        job.rw,
        RwMode {
            kind: RwKind::RandRead,
            nr: 1
        }
    );
    assert_eq!(job.bs, PerDir::all(BlockSize::Fixed(4096)));
    assert_eq!(job.cpus_allowed, vec![1]);
    assert_eq!(job.ioengine, Backend::Pvsync2);
    assert_eq!(job.iodepth, 1);
    assert_eq!(job.options, opts(&[("iodepth", "1")]));
    // `fio --showcmd` on the same file prints this line.
    assert_eq!(
        parsed.command_lines,
        [
            "fio --thread=1 --time_based --runtime=1m --rw=randread --bs=4k --cpus_allowed=1 \
          --norandommap --direct=1 --ioengine=pvsync2 --filename=/dev/nvme0n1 --hipri=1 \
          --name=default --iodepth=1 \n"
        ]
    );
    assert_eq!(
        parsed.global_options,
        opts(&[
            ("thread", "1"),
            ("time_based", ""),
            ("runtime", "1m"),
            ("rw", "randread"),
            ("bs", "4k"),
            ("cpus_allowed", "1"),
            ("norandommap", ""),
            ("direct", "1"),
            ("ioengine", "pvsync2"),
            // fio parses filename after the rest (its .prio = -1).
            ("filename", "/dev/nvme0n1"),
            ("hipri", "1"),
        ])
    );
}

#[test]
fn fios_ssd_test_example() {
    let parsed = parse(&files(&["ssd-test.fio"])).unwrap();
    let names: Vec<&str> = parsed.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["seq-read", "rand-read", "seq-write", "rand-write"]);
    for job in &parsed.jobs {
        assert!(job.stonewall && job.direct);
        assert_eq!(job.iodepth, 4);
        assert_eq!(job.size, Some(SizeSpec::Bytes(10 << 30)));
        assert_eq!(job.directory.as_deref(), Some("/mount-point-of-ssd"));
        assert_eq!(job.filenames, vec!["ssd.test.file"]);
        assert_eq!(job.options.len(), 2);
        assert_eq!(
            job.options[1],
            ("stonewall".to_string(), String::new()),
            "a bare stonewall is echoed with an empty value"
        );
    }
    assert_eq!(parsed.jobs[3].rw.kind, RwKind::RandWrite);
    // The same file as fio ships it asks for libaio.
    let text = fs::read_to_string(testdata("ssd-test.fio"))
        .unwrap()
        .replace("ioengine=psync", "ioengine=libaio");
    let parsed = parse_text(&text).unwrap();
    assert!(parsed.jobs.iter().all(|j| j.ioengine == Backend::Libaio));
    let text = text.replace("ioengine=libaio", "ioengine=sg");
    let err = parse_text(&text).unwrap_err().message;
    assert!(
        err.contains("job.fio:6: ioengine=sg: ioengine=sg needs a SCSI generic device"),
        "{err}"
    );
}

#[test]
fn defaults_are_fios() {
    let job = &parse(&ParseInput {
        cli_options: cli(&["--name=d"]),
        ..ParseInput::default()
    })
    .unwrap()
    .jobs[0];
    assert_eq!(job.ioengine, Backend::Psync);
    assert_eq!(job.rw.kind, RwKind::Read);
    assert_eq!(job.bs, PerDir::all(BlockSize::Fixed(4096)));
    assert_eq!(job.rwmixread, 50);
    assert_eq!(
        (job.iodepth, job.iodepth_low, job.iodepth_batch_complete_max),
        (1, 1, 1)
    );
    assert!(job.randrepeat && job.scramble_buffers && job.clat_percentiles);
    assert_eq!(job.percentile_list, DEFAULT_PERCENTILES.to_vec());
    assert_eq!(job.kb_base, 1024);
    assert_eq!(job.runtime, None);
    assert_eq!(job.offset, SizeSpec::Bytes(0));
    assert_eq!(job.options, opts(&[("name", "d")]));
}

#[test]
fn every_option_reaches_its_field() {
    let job = &parse_text(
        "[every]
name=renamed
description=all of them
filename=/tmp/a\\:b:/tmp/c
directory=/tmp
size=50%
filesize=1m-2m
offset=25%
io_limit=1g
nr_files=2
unlink=1
readwrite=randrw:4
rwmixwrite=25
blocksize=8k
blocksize_range=4k-16k,8k-8k
direct=1
iodepth=32
iodepth_batch_submit=8
iodepth_batch_complete=2
iodepth_batch_complete_max=16
iodepth_low=4
numjobs=3
thread
group_reporting
wait_for_previous
new_group=1
time_based=1
timeout=90
ramp_time=500ms
startdelay=1:3
loops=2
norandommap
randrepeat=0
randseed=1234
random_generator=lfsr
cpus_allowed=0-2,4
cpus_allowed_policy=split
ioengine=sync
fsync=8
end_fsync=1
percentile_list=99:50
lat_percentiles=1
slat_percentiles=1
clocksource=clock_gettime
zero_buffers
scramble_buffers=0
refill_buffers
allow_mounted_write=1
exitall
create_on_open=1
",
    )
    .unwrap()
    .jobs[0];
    assert_eq!(job.name, "renamed");
    assert_eq!(job.description.as_deref(), Some("all of them"));
    assert_eq!(job.filenames, vec!["/tmp/a:b", "/tmp/c"]);
    assert_eq!(job.directory.as_deref(), Some("/tmp"));
    assert_eq!(job.size, Some(SizeSpec::Percent(50.0)));
    assert_eq!(job.filesize, Some((1 << 20, 2 << 20)));
    assert_eq!(job.offset, SizeSpec::Percent(25.0));
    assert_eq!(job.io_size, Some(1 << 30));
    assert_eq!(job.nrfiles, 2);
    assert!(job.unlink);
    assert_eq!(
        job.rw,
        RwMode {
            kind: RwKind::RandRw,
            nr: 4
        }
    );
    assert_eq!(job.rwmixread, 75);
    assert_eq!(
        job.bs.read,
        BlockSize::Range {
            min: 4096,
            max: 16384
        }
    );
    assert_eq!(job.bs.write, BlockSize::Fixed(8192));
    assert!(job.direct);
    assert_eq!(job.iodepth, 32);
    assert_eq!(job.iodepth_batch_submit, 8);
    assert_eq!(job.iodepth_batch_complete_min, 2);
    assert_eq!(job.iodepth_batch_complete_max, 16);
    assert_eq!(job.iodepth_low, 4);
    assert_eq!(job.numjobs, 3);
    assert!(job.thread && job.group_reporting && job.stonewall && job.new_group);
    assert!(job.time_based);
    assert_eq!(job.runtime, Some(Duration::from_secs(90)));
    assert_eq!(job.ramp_time, Duration::from_millis(500));
    assert_eq!(
        job.startdelay,
        (Duration::from_secs(1), Duration::from_secs(3))
    );
    assert_eq!(job.loops, 2);
    assert!(job.norandommap && !job.randrepeat);
    assert_eq!(job.randseed, Some(1234));
    assert_eq!(job.random_generator, RandomGenerator::Lfsr);
    assert_eq!(job.cpus_allowed, vec![0, 1, 2, 4]);
    assert_eq!(job.cpus_allowed_policy, CpusAllowedPolicy::Split);
    assert_eq!(job.ioengine, Backend::Sync);
    assert_eq!(job.fsync, 8);
    assert!(job.end_fsync);
    assert_eq!(job.percentile_list, vec![50.0, 99.0]);
    assert!(job.lat_percentiles && job.slat_percentiles);
    assert_eq!(job.clocksource, ClockSourceOpt::ClockGettime);
    assert!(job.zero_buffers && !job.scramble_buffers && job.refill_buffers);
    assert!(job.allow_mounted_write && job.exitall && job.create_on_open);
    // Every option is echoed by canonical name, bare flags (7 here) with
    // an empty value, as fio 3.42 does.
    assert_eq!(job.options.len(), 49);
    assert!(job
        .options
        .contains(&("exitall".to_string(), String::new())));
    assert!(job
        .options
        .contains(&("io_size".to_string(), "1g".to_string())));
    assert!(job
        .options
        .contains(&("iodepth_batch".to_string(), "8".to_string())));
    assert!(job.options.contains(&("thread".to_string(), String::new())));
}

#[test]
fn a_later_global_changes_only_later_jobs() {
    let parsed = parse(&files(&["two-globals.fio"])).unwrap();
    let (first, second) = (&parsed.jobs[0], &parsed.jobs[1]);
    assert_eq!(first.bs, PerDir::all(BlockSize::Fixed(4096)));
    assert_eq!(first.iodepth, 1);
    assert_eq!(second.iodepth, 16);
    assert_eq!(second.size, Some(SizeSpec::Bytes(1 << 30)));
    assert_eq!(
        second.bs.read,
        BlockSize::Split(vec![(4096, 50), (65536, 50)])
    );
    assert_eq!(second.bs.write, BlockSize::Split(vec![(8192, 100)]));
    assert!(!second.stonewall);
    assert_eq!(
        parsed.global_options,
        opts(&[
            ("ioengine", "null"),
            ("size", "1g"),
            ("bs", "64k"),
            ("iodepth", "16")
        ])
    );
}

#[test]
fn includes_keywords_and_expressions() {
    let job = &parse(&files(&["with-include.fio"])).unwrap().jobs[0];
    assert_eq!(job.rw.kind, RwKind::RandRw);
    assert_eq!(job.rwmixread, 70);
    assert_eq!(job.bs.read, BlockSize::Fixed(4096));
    assert_eq!(job.bs.write, BlockSize::Fixed(65536));
    assert_eq!(job.iodepth, 8);
    let mb = expand::Keywords::of_this_machine().mb_memory;
    assert_eq!(job.size, Some(SizeSpec::Bytes(mb / 2)));
}

#[test]
fn environment_variables() {
    let home = std::env::var("HOME").unwrap_or_default();
    let parsed =
        parse_text("[j]\ndescription=${HOME}\nsize=1${IOSCOPE_TEST_SURELY_UNDEFINED}m\n").unwrap();
    assert_eq!(parsed.jobs[0].description, Some(home));
    // fio substitutes nothing for an unset variable.
    assert_eq!(parsed.jobs[0].size, Some(SizeSpec::Bytes(1 << 20)));
    // fio would write to /x and ./j.0.0 here: refused. fio refuses an
    // empty value itself.
    for line in [
        "filename=${IOSCOPE_TEST_SURELY_UNDEFINED}/x",
        "filename=${IOSCOPE_TEST_SURELY_UNDEFINED}",
        "directory=${IOSCOPE_TEST_SURELY_UNDEFINED}",
        "description=${IOSCOPE_TEST_SURELY_UNDEFINED}",
    ] {
        let err = parse_text(&format!("[j]\n{line}\n")).unwrap_err().message;
        assert!(
            err.contains("job.fio:2: ") && err.contains("IOSCOPE_TEST_SURELY_UNDEFINED is not set"),
            "{err}"
        );
    }
}

#[test]
fn command_line_globals_apply_to_the_first_job_file_only() {
    let mut input = files(&["two-globals.fio", "xnvme.fio"]);
    input.cli_options = cli(&["--runtime=5", "--iodepth=4", "--name=cl", "--size=1m"]);
    let parsed = parse(&input).unwrap();
    let names: Vec<&str> = parsed.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["cl", "seq-read", "rand-write", "default"]);
    let [cl, seq, rand, xnvme] = &parsed.jobs[..] else {
        panic!("four jobs expected");
    };
    assert_eq!(cl.runtime, Some(Duration::from_secs(5)));
    assert_eq!(cl.origin, Origin::CommandLine);
    assert_eq!(cl.options, opts(&[("name", "cl"), ("size", "1m")]));
    assert_eq!(seq.runtime, Some(Duration::from_secs(5)));
    assert_eq!(seq.iodepth, 4);
    // The file's own [global] comes later and wins.
    assert_eq!(rand.iodepth, 16);
    // fio starts each later job file from its defaults, behind a stonewall.
    assert_eq!(xnvme.runtime, Some(Duration::from_secs(60)));
    assert!(xnvme.stonewall);
    assert!(!seq.stonewall);
}

#[test]
fn command_line_jobs() {
    let parsed = parse(&ParseInput {
        cli_options: cli(&[
            "--ioengine=null",
            "--name=a",
            "--rw=randread:8",
            "--time_based",
            "--runtime=1",
            "--name=global",
            "--bs=8k",
            "--name=b",
            "--readwrite=write",
        ]),
        ..ParseInput::default()
    })
    .unwrap();
    let [a, b] = &parsed.jobs[..] else {
        panic!("two jobs expected");
    };
    assert_eq!(
        a.rw,
        RwMode {
            kind: RwKind::RandRead,
            nr: 8
        }
    );
    assert!(a.time_based);
    assert_eq!(a.bs.read, BlockSize::Fixed(4096));
    assert_eq!(b.bs.read, BlockSize::Fixed(8192));
    assert_eq!(b.ioengine, Backend::Null);
    assert_eq!(b.options, opts(&[("name", "b"), ("rw", "write")]));
    assert_eq!(
        parsed.global_options,
        opts(&[("ioengine", "null"), ("bs", "8k")])
    );
}

#[test]
fn sections_filter() {
    let mut input = files(&["two-globals.fio"]);
    input.sections = vec!["rand-write".to_string()];
    let parsed = parse(&input).unwrap();
    assert_eq!(parsed.jobs.len(), 1);
    assert_eq!(parsed.jobs[0].name, "rand-write");
    // Skipped sections' globals still apply.
    assert_eq!(parsed.jobs[0].iodepth, 16);
    // Unlike fio, which forgets --section after the first job file, the
    // filter holds for every file.
    input.job_files.push(testdata("xnvme.fio"));
    let parsed = parse(&input).unwrap();
    assert_eq!(parsed.jobs.len(), 1);
    input.sections = vec!["default".to_string()];
    let parsed = parse(&input).unwrap();
    assert_eq!(parsed.jobs.len(), 1);
    assert_eq!(parsed.jobs[0].name, "default");
    // The first job that runs from a later file still waits for the
    // earlier ones.
    assert!(parsed.jobs[0].stonewall);
    input.sections = vec!["nope".to_string()];
    let err = parse(&input).unwrap_err().message;
    assert!(err.contains("no job section is named nope"), "{err}");
}

#[test]
fn engine_options_follow_the_sections_engine() {
    // fio parses engine options after the rest of the section.
    let job = &parse_text("[j]\nhipri\nioengine=pvsync2\n").unwrap().jobs[0];
    assert!(job.hipri);
    assert_eq!(
        job.options,
        opts(&[("ioengine", "pvsync2"), ("hipri", "")]),
        "a bare flag is echoed with an empty value"
    );
    // Given a value, it is echoed after the others, as fio's JSON has it.
    let job = &parse_text("[j]\nhipri=1\nioengine=pvsync2\n").unwrap().jobs[0];
    assert_eq!(
        job.options,
        opts(&[("ioengine", "pvsync2"), ("hipri", "1")])
    );
    let err = parse_text("[j]\nioengine=psync\nhipri=1\n")
        .unwrap_err()
        .message;
    assert!(
        err.ends_with(
            "job.fio:3: 'hipri' is an option of ioengine=pvsync2, io_uring, io_uring_cmd or xnvme, but ioengine=psync is in effect here"
        ),
        "{err}"
    );
}

#[test]
fn engine_options_on_the_command_line_follow_ioengine() {
    let input = |args: &[&str]| ParseInput {
        cli_options: cli(args),
        ..ParseInput::default()
    };
    let parsed = parse(&input(&["--name=a", "--ioengine=pvsync2", "--hipri"])).unwrap();
    assert!(parsed.jobs[0].hipri);
    // fio refuses an engine option before its --ioengine; the order
    // means nothing, so ioscope takes it, in a job or before --name.
    let parsed = parse(&input(&["--name=a", "--hipri", "--ioengine=pvsync2"])).unwrap();
    assert!(parsed.jobs[0].hipri);
    let parsed = parse(&input(&[
        "--sqthread_poll",
        "--ioengine=io_uring",
        "--name=a",
    ]))
    .unwrap();
    assert!(parsed.jobs[0].engine_options.sqthread_poll);
    // An option set under one engine is reset by a switch to another,
    // as fio loads a fresh engine.
    let parsed = parse(&input(&[
        "--name=a",
        "--ioengine=io_uring",
        "--fixedbufs",
        "--ioengine=libaio",
    ]))
    .unwrap();
    assert!(!parsed.jobs[0].engine_options.fixedbufs);
    let err = parse(&input(&["--name=a", "--hipri", "--ioengine=libaio"]))
        .unwrap_err()
        .message;
    assert!(
        err.starts_with(
            "command line: 'hipri' is an option of ioengine=pvsync2, io_uring, io_uring_cmd or xnvme, but ioengine=libaio"
        ),
        "{err}"
    );
}

fn cli_job(args: &[&str]) -> Result<JobSpec, ParseError> {
    let mut parsed = parse(&ParseInput {
        cli_options: cli(args),
        ..ParseInput::default()
    })?;
    Ok(parsed.jobs.remove(0))
}

#[test]
fn io_uring_options_reach_their_fields() {
    let expected = EngineOptions {
        sqthread_poll: true,
        sqthread_poll_cpu: Some(3),
        fixedbufs: true,
        registerfiles: true,
        nonvectored: Some(false),
        force_async: 8,
        nowait: true,
        uncached: true,
        ..EngineOptions::default()
    };
    // In a job file engine options may come before the ioengine.
    let job = &parse_text(
        "[j]\nsqthread_poll\nsqthread_poll_cpu=3\nfixedbufs\nregisterfiles=1\n\
         nonvectored=0\nforce_async=8\nnowait=1\nuncached=1\nhipri\nioengine=io_uring\n",
    )
    .unwrap()
    .jobs[0];
    assert_eq!(job.ioengine, Backend::IoUring);
    assert!(job.hipri);
    assert_eq!(job.engine_options, expected);
    // fio's JSON echoes engine options too, bare ones with an empty value.
    assert_eq!(
        job.options,
        opts(&[
            ("ioengine", "io_uring"),
            ("sqthread_poll", ""),
            ("sqthread_poll_cpu", "3"),
            ("fixedbufs", ""),
            ("registerfiles", "1"),
            ("nonvectored", "0"),
            ("force_async", "8"),
            ("nowait", "1"),
            ("uncached", "1"),
            ("hipri", ""),
        ])
    );
    let job = cli_job(&[
        "--name=j",
        "--ioengine=io_uring",
        "--sqthread_poll",
        "--sqthread_poll_cpu=3",
        "--fixedbufs",
        "--registerfiles=1",
        "--nonvectored=0",
        "--force_async=8",
        "--nowait=1",
        "--uncached=1",
        "--hipri",
    ])
    .unwrap();
    assert!(job.hipri);
    assert_eq!(job.engine_options, expected);
    let job = cli_job(&["--name=j", "--ioengine=io_uring"]).unwrap();
    assert_eq!(job.engine_options, EngineOptions::default());
    assert_eq!(job.engine_options.nonvectored, None, "fio's -1: detect");
}

#[test]
fn libaio_options_reach_their_fields() {
    let expected = EngineOptions {
        userspace_reap: true,
        vectored: true,
        nowait: true,
        ..EngineOptions::default()
    };
    let job = &parse_text(
        "[j]\nuserspace_reap\nlibaio_vectored=1\nnowait=1\nioengine=libaio\niodepth=8\n",
    )
    .unwrap()
    .jobs[0];
    assert_eq!(job.ioengine, Backend::Libaio);
    assert_eq!(job.engine_options, expected);
    let job = cli_job(&[
        "--name=j",
        "--ioengine=libaio",
        "--userspace_reap",
        "--libaio_vectored=1",
        "--nowait=1",
    ])
    .unwrap();
    assert_eq!(job.engine_options, expected);
    assert!(!job.hipri);
}

#[test]
fn engine_options_in_a_global_section_are_inherited() {
    let parsed =
        parse_text("[global]\nioengine=io_uring\nfixedbufs\n[same]\n[other]\nioengine=libaio\n")
            .unwrap();
    assert!(parsed.jobs[0].engine_options.fixedbufs);
    // A job that changes the engine starts from that engine's defaults.
    assert_eq!(parsed.jobs[1].engine_options, EngineOptions::default());
    // fio refuses an engine option in a global section without its
    // engine; ioscope applies it to the jobs whose engine takes it.
    let parsed = parse_text(
        "[global]\nsqthread_poll=1\nfixedbufs=1\n[j]\nioengine=io_uring\n[k]\nioengine=io_uring\nsqthread_poll=0\n",
    )
    .unwrap();
    assert!(parsed.jobs[0].engine_options.sqthread_poll);
    assert!(parsed.jobs[0].engine_options.fixedbufs);
    // A job's own setting wins over the global's.
    assert!(!parsed.jobs[1].engine_options.sqthread_poll);
    assert!(parsed.jobs[1].engine_options.fixedbufs);
    let err = parse_text("[global]\nsqthread_poll=1\n[j]\nioengine=libaio\n")
        .unwrap_err()
        .message;
    assert!(
        err.ends_with(
            "job.fio:2: 'sqthread_poll' is an option of ioengine=io_uring, io_uring_cmd or xnvme, but ioengine=libaio is in effect here"
        ),
        "{err}"
    );
    // An engine option of an engine ioscope lacks names that engine,
    // before or after its ioengine=.
    for text in [
        "[j]\nprogram=/bin/true\nioengine=exec\n",
        "[j]\nioengine=exec\nprogram=/bin/true\n",
    ] {
        let err = parse_text(text).unwrap_err().message;
        assert!(err.contains("ioengine=exec"), "{err}");
        assert!(!err.contains("unknown option"), "{err}");
    }
}

#[test]
fn engine_options_of_another_engine_are_refused() {
    let refused = |engine: &str, option: &str| {
        let text = format!("[j]\nioengine={engine}\n{option}\n");
        let file_err = parse_text(&text).unwrap_err().message;
        let cli_err = cli_job(&[
            "--name=j",
            &format!("--ioengine={engine}"),
            &format!("--{option}"),
        ])
        .unwrap_err()
        .message;
        assert!(file_err.contains("job.fio:3: "), "{file_err}");
        assert!(cli_err.starts_with("command line: "), "{cli_err}");
        file_err
    };
    let err = refused("psync", "sqthread_poll=1");
    assert!(
        err.ends_with("'sqthread_poll' is an option of ioengine=io_uring, io_uring_cmd or xnvme, but ioengine=psync is in effect here"),
        "{err}"
    );
    // fio 3.33's libaio has no hipri (and no later fio's does either).
    let err = refused("libaio", "hipri");
    assert!(
        err.ends_with("'hipri' is an option of ioengine=pvsync2, io_uring, io_uring_cmd or xnvme, but ioengine=libaio is in effect here"),
        "{err}"
    );
    let err = refused("io_uring", "userspace_reap");
    assert!(
        err.contains("an option of ioengine=libaio, but ioengine=io_uring"),
        "{err}"
    );
    let err = refused("libaio", "fixedbufs=1");
    assert!(
        err.contains("an option of ioengine=io_uring or io_uring_cmd, but ioengine=libaio"),
        "{err}"
    );
    let err = refused("mmap", "nowait=1");
    assert!(err.ends_with("'nowait' is an option of ioengine=pvsync2, libaio or io_uring, but ioengine=mmap is in effect here"), "{err}");
    // What fio's io_uring_cmd takes and then fails every command with.
    for option in ["nowait=1", "uncached=1", "cmdprio_percentage=50"] {
        let err = refused("io_uring_cmd", option);
        assert!(
            err.contains("not io_uring_cmd: fio takes it there"),
            "{err}"
        );
        assert!(err.ends_with("every command fails with EINVAL"), "{err}");
    }
    let err = refused("nop", "sqthread_poll");
    assert!(err.contains("but ioengine=nop is in effect here"), "{err}");
}

#[test]
fn the_rest_of_fios_options_are_refused_by_name() {
    for option in ["fdp=1", "plids=1"] {
        let err = parse_text(&format!("[j]\n{option}\n")).unwrap_err().message;
        let name = option.split('=').next().unwrap_or_default();
        assert!(
            err.contains(&format!(
                "job.fio:2: fio option '{name}' is not supported by ioscope"
            )),
            "{err}"
        );
    }
}

#[test]
fn cmdprio_options_take_fios_values() {
    let job = &parse_text(
        "[j]\nioengine=libaio\ncmdprio_percentage=30,60\ncmdprio_class=2\ncmdprio=3,5\n",
    )
    .unwrap()
    .jobs[0];
    let c = &job.cmdprio;
    assert_eq!((c.percentage, c.class, c.level), ([30, 60], [2, 2], [3, 5]));
    assert_eq!(c.hipri_percentage, 100);
    let job = &parse_text("[j]\nioengine=io_uring\ncmdprio_bssplit=64k/25/1/1:64k/75/3/2,1m/10\n")
        .unwrap()
        .jobs[0];
    let split = job.cmdprio.bssplit.as_ref().unwrap();
    assert_eq!((split[0].len(), split[1].len()), (2, 1));
    assert_eq!(split[1][0].bs, 1 << 20);
    let job = &parse_text("[j]\nioengine=pvsync2\nhipri\nhipri_percentage=40\n")
        .unwrap()
        .jobs[0];
    assert_eq!(job.cmdprio.hipri_percentage, 40);
}

#[test]
fn sqthread_poll_cpu_alone_is_refused() {
    let err = parse_text("[j]\nioengine=io_uring\nsqthread_poll_cpu=2\n")
        .unwrap_err()
        .message;
    assert!(
        err.ends_with("job.fio:1: job 'j': sqthread_poll_cpu=2 needs sqthread_poll (without it there is no SQ thread to place)"),
        "{err}"
    );
}

#[test]
fn kb_base_applies_to_its_whole_section() {
    let job = &parse_text("[j]\nsize=10k\nkb_base=1000\n").unwrap().jobs[0];
    assert_eq!(job.size, Some(SizeSpec::Bytes(10_000)));
    // On the command line options apply in order, as in fio.
    let parsed = parse(&ParseInput {
        cli_options: cli(&["--name=a", "--size=10k", "--kb_base=1000", "--bs=1k"]),
        ..ParseInput::default()
    })
    .unwrap();
    assert_eq!(parsed.jobs[0].size, Some(SizeSpec::Bytes(10_240)));
    assert_eq!(parsed.jobs[0].bs.read, BlockSize::Fixed(1000));
}

#[test]
fn errors_name_the_place_option_and_value() {
    let err = parse_text("[j]\niodepht=4\n").unwrap_err().message;
    assert!(
        err.ends_with("job.fio:2: unknown option 'iodepht' (did you mean 'iodepth'?)"),
        "{err}"
    );
    let err = parse_text("[j]\nfdp=1\n").unwrap_err().message;
    assert!(
        err.contains("job.fio:2: fio option 'fdp' is not supported by ioscope: it needs an NVMe"),
        "{err}"
    );
    let err = parse_text("[j]\ncgroup_weight=99\n").unwrap_err().message;
    assert!(
        err.ends_with("job.fio:2: cgroup_weight=99: '99' is out of range 100..1000"),
        "{err}"
    );
    let err = parse_text("[j]\n\nbs=4q\n").unwrap_err().message;
    assert!(
        err.ends_with(
            "job.fio:3: bs=4q: unknown size unit 'q' (use k, m, g, t, p, optionally with B or iB)"
        ),
        "{err}"
    );
    let job = &parse_text("[j]\nrw=randtrim\nnum_range=1\n").unwrap().jobs[0];
    assert_eq!((job.rw.kind, job.num_range), (RwKind::RandTrim, 1));
    let job = &parse_text("[j]\nrw=trim\nnum_range=256\n").unwrap().jobs[0];
    assert_eq!(job.num_range, 256);
    let err = parse_text("[j]\nrw=trim\nnum_range=257\n")
        .unwrap_err()
        .message;
    assert!(
        err.ends_with("num_range=257: one trim carries at most 256 ranges (an NVMe Dataset Management command's limit)"),
        "{err}"
    );
    let err = parse_text("[j]\nnum_range=0\n").unwrap_err().message;
    assert!(err.contains("below the minimum of 1"), "{err}");
    // A read job with verify checks what an earlier job wrote: the
    // write number and (unless asked) the seed are not checked.
    let v = &parse_text("[j]\nrw=read\nverify=md5\n").unwrap().jobs[0].verify;
    assert!(!v.header_seed && v.write_sequence);
    let v = &parse_text("[j]\nrw=randread\nverify=md5\nverify_header_seed=1\n")
        .unwrap()
        .jobs[0]
        .verify;
    assert!(v.header_seed);
    let v = &parse_text("[j]\nrw=write\nverify=md5\nverify_only=1\n")
        .unwrap()
        .jobs[0]
        .verify;
    assert!(!v.header_seed && !v.write_sequence);
    let v = &parse_text("[j]\nrw=write\nverify=md5\n").unwrap().jobs[0].verify;
    assert!(v.header_seed && v.write_sequence);
    let err = parse_text("[j]\nioengine=io_uring_cmd\nwrite_mode=write/50:uncor/40\n")
        .unwrap_err()
        .message;
    assert!(
        err.ends_with(
            "job.fio:3: write_mode=write/50:uncor/40: write_mode percentages should add up to 100%"
        ),
        "{err}"
    );
    let err = parse_text("[j]\nrwmixread=120\n").unwrap_err().message;
    assert!(err.contains("rwmixread=120"), "{err}");
    let err = parse(&ParseInput {
        cli_options: cli(&["--name=x", "--iodepth=zero"]),
        ..ParseInput::default()
    })
    .unwrap_err()
    .message;
    assert_eq!(err, "command line: iodepth=zero: 'zero' is not a size");
}

#[test]
fn odd_values_never_panic() {
    let values = [
        "",
        " ",
        "-",
        ":",
        ",",
        ",,,",
        "-1",
        "0",
        "1",
        "0x",
        "0xffffffffffffffffff",
        "99999999999999999999999",
        "(",
        ")",
        "((1)",
        "(1/0)",
        "(2^999)",
        "1e9999",
        "%",
        "101%",
        "-5%",
        "4k-",
        "-4k",
        "4k:8k:",
        "/",
        "4k/",
        "/50",
        "4k/x",
        "a-b",
        "3-1",
        "é",
        "ü4k",
        "4ké",
        "\\",
        "\\:",
        "${",
        "$ncpus",
        "randread:",
        "randread:x",
        "1:2:3:4",
        "nan",
        "inf",
        "0-0",
    ];
    for def in options::OPTIONS {
        for value in values {
            let mut args = cli(&["--name=x"]);
            // An engine option is tried with an engine that takes it, so
            // that its value is parsed.
            if let Some(engine) = def.engines().first() {
                args.push(format!("--ioengine={}", engine.name()));
            }
            args.push(format!("--{}={value}", def.name));
            // Either outcome is fine; what matters is that it returns.
            let _ = parse(&ParseInput {
                cli_options: args,
                ..ParseInput::default()
            });
        }
    }
}

#[test]
fn no_jobs_is_an_error() {
    assert!(parse(&ParseInput::default()).is_err());
    let err = parse(&ParseInput {
        cli_options: cli(&["--bs=4k"]),
        ..ParseInput::default()
    })
    .unwrap_err();
    assert!(err.message.contains("no jobs defined"));
}

#[test]
fn repeated_options_echo_once_with_the_last_value() {
    let job = &parse_text("[j]\nbs=4k\nreadwrite=write\nblocksize=8k\nnorandommap\n")
        .unwrap()
        .jobs[0];
    assert_eq!(
        job.options,
        opts(&[("bs", "8k"), ("rw", "write"), ("norandommap", "")])
    );
}

#[test]
fn the_tiobench_profile_adds_fios_four_jobs_after_the_others() {
    let parsed = parse(&ParseInput {
        cli_options: cli(&["--name=mine", "--size=1m", "--dir=/ignored", "--threads=4"]),
        profile: Some("tiobench".into()),
        ..ParseInput::default()
    })
    .unwrap();
    let names: Vec<&str> = parsed.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(
        names,
        ["mine", "seqwrite", "randwrite", "seqread", "randread"]
    );
    let seqwrite = &parsed.jobs[1];
    assert_eq!(seqwrite.filenames.len(), 4);
    assert!(seqwrite.direct, "buffered=0");
    // As in fio, the profile's own options change none of its jobs.
    assert_eq!(parsed.jobs[4].numjobs, 1);
    // A job's profile= is taken and changes nothing.
    let job = &parse_text("[j]\nprofile=tiobench\nsize=1m\n").unwrap().jobs[0];
    assert_eq!(job.size, Some(SizeSpec::Bytes(1 << 20)));
}

#[test]
fn protection_options_set_the_engine_options() {
    let text = "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\npi_act=0\n\
                    pi_chk=GUARD,APPTAG\napptag=0x8888\napptag_mask=0xff00\nmd_per_io_size=64\n";
    let parsed = parse_text(text).unwrap();
    let pi = &parsed.jobs[0].engine_options.pi;
    assert!(!pi.pi_act);
    assert_eq!(pi.pi_chk, "GUARD,APPTAG");
    assert_eq!(
        (pi.apptag, pi.apptag_mask, pi.md_per_io_size),
        (0x8888, 0xff00, 64)
    );
    let defaults = parse_text("[j]\nioengine=io_uring_cmd\n").unwrap();
    assert_eq!(defaults.jobs[0].engine_options.pi, PiOptions::default());
    let err = parse_text("[j]\nioengine=io_uring_cmd\napptag=0x10000\n").unwrap_err();
    assert!(err.message.contains("16 bits"), "{}", err.message);
    // They are io_uring_cmd's.
    let err = parse_text("[j]\nioengine=psync\npi_act=0\n").unwrap_err();
    assert!(err.message.contains("io_uring_cmd"), "{}", err.message);
}

/// fio 3.42's fixup: write_zone_remainder with zonemode=zbd turns the
/// random map off unless norandommap was given, and refuses it given off;
/// without zonemode=zbd it changes nothing.
#[test]
fn write_zone_remainder_turns_the_random_map_off_in_zbd_mode() {
    let zbd = "[j]\nrw=randwrite\nzonemode=zbd\nzonesize=1m\nwrite_zone_remainder=1\n";
    let job = &parse_text(zbd).unwrap().jobs[0];
    assert!(job.norandommap && job.zones.write_remainder);
    let err = parse_text(&format!("{zbd}norandommap=0\n"))
        .unwrap_err()
        .message;
    assert!(
        err.contains("write_zone_remainder=1 requires norandommap=1"),
        "{err}"
    );
    let job = &parse_text("[j]\nrw=randwrite\nwrite_zone_remainder=1\n")
        .unwrap()
        .jobs[0];
    assert!(!job.norandommap);
}

#[test]
fn job_texts_parse_as_job_files_do() {
    let text = |t: &str| ParseInput {
        job_texts: vec![("<client job>".into(), t.as_bytes().to_vec())],
        ..ParseInput::default()
    };
    let parsed = parse(&text("[a]\nrw=write\nsize=1m\n")).unwrap();
    assert_eq!(parsed.jobs.len(), 1);
    assert_eq!(parsed.jobs[0].name, "a");
    let err = parse(&text("[a]\nbogus_opt=1\n")).unwrap_err().to_string();
    assert!(err.contains("<client job>:2"), "{err}");
}
