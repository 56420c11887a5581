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
//! certification test) drives its jobs with its own hooks and pass/fail
//! report, which ioscope does not have; it is refused.

use crate::ParseError;

/// The command-line options of profile `name`'s jobs; `mb_memory` is
/// fio's `$mb_memory` (MiB of memory), which sizes tiobench's files.
pub(crate) fn options(name: &str, mb_memory: u64) -> Result<Vec<String>, ParseError> {
    match name {
        "tiobench" => Ok(tiobench(mb_memory)),
        "act" => Err(ParseError::new(
            "--profile=act is not supported by ioscope: fio's act profile (the Aerospike \
             certification test) judges its jobs with its own per-second latency buckets and \
             pass/fail report, which ioscope does not have; write its jobs in a job file",
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiobench_is_four_jobs_sized_by_memory() {
        let opts = options("tiobench", 24105).unwrap();
        assert!(opts.contains(&"--size=98734080".to_string()));
        let names: Vec<&str> = opts
            .iter()
            .filter_map(|o| o.strip_prefix("--name="))
            .collect();
        assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
        let e = options("act", 1).unwrap_err().message;
        assert!(e.contains("--profile=act is not supported"), "{e}");
        let e = options("nosuch", 1).unwrap_err().message;
        assert!(e.contains("no such profile"), "{e}");
    }
}
