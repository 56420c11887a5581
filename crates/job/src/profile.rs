//! fio's built-in profiles, as the program option `--profile=NAME` adds
//! them: their jobs, written as command-line options, parsed after every
//! other job (fio's `load_profile` at the start of its backend).
//!
//! fio 3.33 has two. tiobench is four jobs in four groups (sequential and
//! random writes, then reads) over four files in the current directory;
//! its own options (`size`, `block`, `numruns`, `dir`, `threads`) are taken
//! by every job, but fio's profile reads other variables than those they
//! fill, so they never change its jobs (still so in fio's source in 2026),
//! and ioscope's jobs are fio's whatever they say. act (the Aerospike
//! certification test) makes rate-limited small random reads and large
//! random writes on each device it is given, or with `--prep` fills them
//! first; every job of the run then counts its latencies into hour-long
//! slices for act's pass/fail table ([`ActProfile`]).

use std::time::Duration;

use crate::ini::{Entry, Section};
use crate::{values, ParseError};

/// What `--profile=NAME` adds: its jobs' options, and for act what the
/// run counts.
pub(crate) struct Profile {
    pub options: Vec<String>,
    pub act: Option<ActProfile>,
}

/// `--profile=act`: every job of the run counts its I/Os' latencies into
/// `slices` slices of an hour (fio's `test-duration` over `SAMPLE_SEC`),
/// except in the prep phase, whose table stays empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActProfile {
    pub slices: usize,
    pub prep: bool,
}

/// The options of profile `name`'s jobs; `mb_memory` is fio's
/// `$mb_memory` (MiB of memory), which sizes tiobench's files, and
/// `sections` every section parsed before, in order, where act finds its
/// own options (the last value of each counts, as fio keeps one copy).
pub(crate) fn options(
    name: &str,
    mb_memory: u64,
    sections: &[&Section],
) -> Result<Profile, ParseError> {
    match name {
        "tiobench" => Ok(Profile {
            options: tiobench(mb_memory),
            act: None,
        }),
        "act" => act(&ActOptions::from_sections(sections)?),
        _ => Err(ParseError::new(format!(
            "--profile={name}: no such profile (fio's are tiobench and act)"
        ))),
    }
}

/// fio's profiles/tiobench.c `tb_opts`, with its defaults filled in as
/// `tb_prep_cmdline` fills them (size 0 is `4*1024*$mb_memory`).
fn tiobench(mb_memory: u64) -> Vec<String> {
    let size = format!("size={}", 4 * 1024 * mb_memory);
    [
        "buffered=0",
        &size,
        "bs=4096",
        "loops=1",
        "directory=./",
        "numjobs=1",
        "timeout=600",
        "group_reporting",
        "thread",
        "overwrite=1",
        "filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
        "ioengine=sync",
        "name=seqwrite",
        "rw=write",
        "end_fsync=1",
        "name=randwrite",
        "stonewall",
        "rw=randwrite",
        "end_fsync=1",
        "name=seqread",
        "stonewall",
        "rw=read",
        "name=randread",
        "stonewall",
        "rw=randread",
    ]
    .iter()
    .map(|o| format!("--{o}"))
    .collect()
}

/// fio's `act_options`, at its defaults until set.
struct ActOptions {
    device_names: Option<String>,
    load: u32,
    test_duration: Duration,
    threads_per_queue: u32,
    read_blocks: u32,
    write_size: u32,
    prep: bool,
}

impl ActOptions {
    fn from_sections(sections: &[&Section]) -> Result<ActOptions, ParseError> {
        let mut o = ActOptions {
            device_names: None,
            load: 1,
            test_duration: Duration::from_secs(24 * 3600),
            threads_per_queue: 8,
            read_blocks: 3,
            write_size: 131_072,
            prep: false,
        };
        for e in sections.iter().flat_map(|s| &s.entries) {
            o.set(e)
                .map_err(|m| ParseError::at(&e.place, format!("{}: {m}", e.key)))?;
        }
        Ok(o)
    }

    /// Takes `e` when it is one of act's options. (Its value was checked
    /// as the option was parsed; the checks here are the same.)
    fn set(&mut self, e: &Entry) -> Result<(), String> {
        let text = e.value.as_deref().unwrap_or("");
        let int = || values::uint(text, 1024, 0);
        match e.key.as_str() {
            "device-names" => self.device_names = Some(text.to_string()),
            "load" => self.load = int()?,
            "test-duration" => self.test_duration = crate::options::seconds(text)?,
            "threads-per-queue" => self.threads_per_queue = int()?,
            "read-req-num-512-blocks" => self.read_blocks = int()?,
            "large-block-op-kbytes" => self.write_size = int()?,
            // A bare flag is set.
            "prep" => self.prep = e.value.is_none() || values::flag(text)?,
            _ => {}
        }
        Ok(())
    }
}

/// fio's profiles/act.c `act_prep_cmdline`: its base options, then each
/// device's jobs.
fn act(o: &ActOptions) -> Result<Profile, ParseError> {
    let fail = |m: &str| {
        Err(ParseError::new(format!(
            "act: {m}; fio: profile act prep failed"
        )))
    };
    let Some(names) = &o.device_names else {
        return fail("you need to set IO target(s) with the device-names option");
    };
    // fio divides by these.
    if o.threads_per_queue == 0 {
        return fail("threads-per-queue must be at least 1");
    }
    let read_size = o.read_blocks.saturating_mul(512);
    if read_size == 0 || o.write_size < read_size {
        return fail(
            "large-block-op-kbytes must be at least read-req-num-512-blocks blocks of 512 bytes",
        );
    }
    let mut opts: Vec<String> = [
        "direct=1",
        "ioengine=sync",
        "random_generator=lfsr",
        "group_reporting=1",
        "thread",
    ]
    .map(String::from)
    .to_vec();
    // fio prints the duration into `runtime` as written, with an `s`: a
    // plain number of seconds is taken as seconds; ioscope takes a value
    // with a unit as that time too.
    let secs = o.test_duration.as_secs();
    let runtime = if o.test_duration == Duration::from_secs(secs) {
        format!("runtime={secs}s")
    } else {
        format!("runtime={}us", o.test_duration.as_micros())
    };
    for dev in names.split(',') {
        if dev.is_empty() {
            return fail(&format!("an empty name in device-names '{names}'"));
        }
        if o.prep {
            opts.extend([
                format!("name=act-prep-zeroes-{dev}"),
                format!("filename={dev}"),
                "bs=1048576".into(),
                "zero_buffers".into(),
                "rw=write".into(),
                format!("name=act-prep-salt-{dev}"),
                "stonewall".into(),
                format!("filename={dev}"),
                "bs=4096".into(),
                "ioengine=libaio".into(),
                "iodepth=64".into(),
                "rw=randwrite".into(),
            ]);
            continue;
        }
        // fio's R_LOAD and W_LOAD: 2000 reads and 1000 writes' worth of
        // read-sized blocks a second at load 1.
        let reads = o.load.wrapping_mul(2000) / o.threads_per_queue;
        let per_write = o.write_size / read_size;
        let writes = o.load.wrapping_mul(1000).div_ceil(per_write);
        opts.extend([
            runtime.clone(),
            "time_based=1".into(),
            format!("name=act-read-{dev}"),
            format!("filename={dev}"),
            "rw=randread".into(),
            format!("numjobs={}", o.threads_per_queue),
            format!("rate_iops={reads}"),
            format!("bs={read_size}"),
            format!("name=act-write-{dev}"),
            format!("filename={dev}"),
            "rw=randwrite".into(),
            format!("rate_iops={writes}"),
            // fio takes the "kbytes" as bytes.
            format!("bs={}", o.write_size),
        ]);
    }
    // Each worker keeps a slice per started hour (over a century is
    // refused rather than allocated).
    let slices = o.test_duration.as_micros().div_ceil(3_600_000_000);
    if slices > 1 << 20 {
        return fail("test-duration is over a century");
    }
    Ok(Profile {
        options: opts.into_iter().map(|o| format!("--{o}")).collect(),
        act: Some(ActProfile {
            slices: slices as usize,
            prep: o.prep,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Place;

    fn cli(options: &[&str]) -> Section {
        Section {
            name: "global".into(),
            place: Place::CommandLine,
            entries: options
                .iter()
                .map(|o| {
                    let (key, value) = match o.split_once('=') {
                        Some((k, v)) => (k, Some(v.into())),
                        None => (*o, None),
                    };
                    Entry {
                        key: key.into(),
                        value,
                        place: Place::CommandLine,
                        unset_vars: Vec::new(),
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn tiobench_is_four_jobs_sized_by_memory() {
        let opts = options("tiobench", 24105, &[]).unwrap().options;
        assert!(opts.contains(&"--size=98734080".to_string()));
        let names: Vec<&str> = opts
            .iter()
            .filter_map(|o| o.strip_prefix("--name="))
            .collect();
        assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
        let e = options("nosuch", 1, &[]).err().unwrap().message;
        assert!(e.contains("no such profile"), "{e}");
    }

    #[test]
    fn act_is_fios_jobs_for_each_device() {
        // The last value of an option counts, wherever it was given.
        let first = cli(&["device-names=/dev/x,/dev/y", "load=1"]);
        let second = cli(&["load=3", "test-duration=7201"]);
        let p = options("act", 1, &[&first, &second]).unwrap();
        assert_eq!(
            p.act,
            Some(ActProfile {
                slices: 3,
                prep: false
            })
        );
        let x: Vec<&str> = p.options[5..18].iter().map(String::as_str).collect();
        assert_eq!(
            x,
            [
                "--runtime=7201s",
                "--time_based=1",
                "--name=act-read-/dev/x",
                "--filename=/dev/x",
                "--rw=randread",
                "--numjobs=8",
                "--rate_iops=750",
                "--bs=1536",
                "--name=act-write-/dev/x",
                "--filename=/dev/x",
                "--rw=randwrite",
                // 3000 reads' worth of 85 read-sized blocks, rounded up.
                "--rate_iops=36",
                "--bs=131072",
            ]
        );
        assert_eq!(p.options.len(), 5 + 2 * 13);
        assert_eq!(p.options[20], "--name=act-read-/dev/y");

        let prep = cli(&["device-names=/dev/x", "prep", "test-duration=2"]);
        let p = options("act", 1, &[&prep]).unwrap();
        assert_eq!(
            p.act,
            Some(ActProfile {
                slices: 1,
                prep: true
            })
        );
        assert!(p
            .options
            .contains(&"--name=act-prep-salt-/dev/x".to_string()));
        assert!(!p.options.iter().any(|o| o.starts_with("--runtime")));

        for (opts, why) in [
            (&["load=1"][..], "you need to set IO target(s)"),
            (&["device-names=a", "threads-per-queue=0"], "at least 1"),
            (
                &["device-names=a", "large-block-op-kbytes=1000"],
                "at least",
            ),
            (&["device-names=a,,b"], "an empty name"),
            (
                &["device-names=a", "test-duration=2000000h"],
                "over a century",
            ),
        ] {
            let e = options("act", 1, &[&cli(opts)]).err().unwrap().message;
            assert!(e.starts_with("act: ") && e.contains(why), "{opts:?}: {e}");
        }
    }
}
