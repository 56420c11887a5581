//! `ramp_size` (fio 3.42): a ramp that ends once the job has completed so
//! many bytes, every direction together, or with `group_reporting` once
//! the workers of its reporting group have together. What the end of a
//! ramp resets is the I/O loop's (as for `ramp_time`); this is when.
//!
//! fio's helper thread sums its workers' `io_bytes` once a second and
//! marks the ramp over; each worker resets its stats at its next I/O. Here
//! each worker, while it ramps, sums the same counts itself (those it
//! publishes for the status line) at every turn of its loop, so the ramp
//! ends with the I/O that completes `ramp_size`, as the HOWTO says, and
//! not up to a second later: a size-bound job measures exactly its size
//! less the ramp.

use std::sync::atomic::Ordering;

use ioscope_job::{JobSpec, Parsed};

use crate::error::RunError;
use crate::job_control::Member;
use crate::progress::WorkerProgress;

/// fio's checks (td_ramp_period_init): a job sets ramp_time or ramp_size,
/// not both; and a job with either agrees on ramp_size with every job
/// before it in its reporting group, group_reporting or not. As in fio, a
/// job is checked against those before it only: one without a ramp after
/// one with ramp_size passes.
pub(crate) fn check(jobs: &[JobSpec], groups: &[u32]) -> Result<(), RunError> {
    for (i, spec) in jobs.iter().enumerate() {
        let timed = !spec.ramp_time.is_zero();
        if !timed && spec.ramp_size == 0 {
            continue;
        }
        let refuse = |m: &str| Err(RunError::job(&spec.name, format!("job rejected: {m}")));
        if timed && spec.ramp_size != 0 {
            return refuse("cannot specify both ramp_time and ramp_size");
        }
        let differs = jobs[..i]
            .iter()
            .zip(groups)
            .any(|(earlier, &g)| g == groups[i] && earlier.ramp_size != spec.ramp_size);
        if differs {
            return refuse("inconsistent ramp_size within reporting group");
        }
    }
    Ok(())
}

/// When one worker's `ramp_size` ramp is over: once the bytes completed
/// by `counted` (the worker, or its group's workers with a ramp_size)
/// reach `bytes`.
pub(crate) struct RampSize<'a> {
    bytes: u64,
    counted: Vec<&'a WorkerProgress>,
}

impl<'a> RampSize<'a> {
    /// The ramp of worker `index` of the phase; None when its job has no
    /// ramp_size.
    pub(crate) fn of(parsed: &Parsed, members: &[Member<'a>], index: usize) -> Option<Self> {
        let me = &members[index];
        let spec = &parsed.jobs[me.job];
        if spec.ramp_size == 0 {
            return None;
        }
        let counted = if spec.group_reporting {
            // Every worker of the group that ramps so, itself included
            // (the check above leaves them all the same ramp_size).
            members
                .iter()
                .filter(|m| m.groupid == me.groupid && parsed.jobs[m.job].ramp_size != 0)
                .map(|m| m.progress)
                .collect()
        } else {
            vec![me.progress]
        };
        Some(RampSize {
            bytes: spec.ramp_size,
            counted,
        })
    }

    /// Whether the bytes counted have reached ramp_size: fio counts every
    /// byte completed, reads, writes and trims, a verify phase's reads
    /// too, the ramp's own included.
    pub(crate) fn reached(&self) -> bool {
        let done: u64 = self
            .counted
            .iter()
            .flat_map(|p| &p.bytes)
            .map(|b| b.load(Ordering::Relaxed))
            .sum();
        done >= self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The jobs of a command line such as fio's (`--name=` starts a job),
    /// and their reporting groups.
    fn jobs(args: &str) -> (Parsed, Vec<u32>) {
        let input = ioscope_job::ParseInput {
            cli_options: format!("--ioengine=null --size=1m {args}")
                .split_whitespace()
                .map(String::from)
                .collect(),
            ..Default::default()
        };
        let parsed = ioscope_job::parse(&input).expect("valid jobs");
        let groups = crate::phases::group_ids(&parsed.jobs);
        (parsed, groups)
    }

    fn refusal(args: &str) -> Option<String> {
        let (parsed, groups) = jobs(args);
        check(&parsed.jobs, &groups).err().map(|e| e.to_string())
    }

    #[test]
    fn ramp_time_and_ramp_size_do_not_go_together() {
        let err = refusal("--name=a --ramp_time=1 --ramp_size=1m").unwrap();
        assert!(
            err.contains("cannot specify both ramp_time and ramp_size"),
            "{err}"
        );
        assert!(err.contains("'a'"), "{err}");
        // ramp_time=0 is no ramp_time.
        assert_eq!(refusal("--name=a --ramp_time=0 --ramp_size=1m"), None);
    }

    #[test]
    fn a_group_agrees_on_ramp_size_as_fio_checks_it() {
        let inconsistent = |args: &str| {
            refusal(args)
                .is_some_and(|e| e.contains("inconsistent ramp_size within reporting group"))
        };
        // Without group_reporting too: fio compares group ids.
        assert!(inconsistent(
            "--name=a --ramp_size=2m --name=b --ramp_size=1m"
        ));
        assert!(inconsistent("--name=a --name=b --ramp_size=1m"));
        assert!(inconsistent(
            "--name=a --ramp_size=1m --name=b --ramp_time=1"
        ));
        // Only the jobs before are looked at: a job without a ramp after
        // one with ramp_size is let through, as by fio 3.42.
        assert!(!inconsistent("--name=a --ramp_size=1m --name=b"));
        assert!(!inconsistent(
            "--name=a --ramp_time=1 --name=b --ramp_time=2"
        ));
        // Another group may differ.
        assert!(!inconsistent(
            "--name=a --ramp_size=1m --name=b --stonewall --ramp_size=2m"
        ));
        assert!(!inconsistent(
            "--name=a --ramp_size=1m --name=b --new_group"
        ));
    }

    #[test]
    fn group_reporting_counts_the_bytes_of_the_groups_ramping_workers() {
        // a's two clones and d report as group 0, where d does not ramp;
        // b is group 1 and reports alone.
        let (parsed, groups) = jobs(
            "--name=a --group_reporting --numjobs=2 --ramp_size=10k \
             --name=d --group_reporting \
             --name=b --new_group --ramp_size=10k",
        );
        assert_eq!(check(&parsed.jobs, &groups).ok(), Some(()));
        let progress: Vec<WorkerProgress> = (0..4).map(|_| WorkerProgress::default()).collect();
        let members: Vec<Member> = [0, 0, 1, 2]
            .into_iter()
            .zip(&progress)
            .map(|(job, progress)| Member {
                job,
                groupid: groups[job],
                progress,
            })
            .collect();
        let ramp = |i: usize| RampSize::of(&parsed, &members, i);
        assert!(ramp(2).is_none());
        let (a0, a1, b) = (ramp(0).unwrap(), ramp(1).unwrap(), ramp(3).unwrap());
        // d's bytes do not count.
        progress[2].bytes[0].store(64 << 10, Ordering::Relaxed);
        assert!(!a0.reached() && !a1.reached());
        // a's clones together, reads and trims alike.
        progress[0].bytes[0].store(6 << 10, Ordering::Relaxed);
        progress[1].bytes[2].store((4 << 10) - 1, Ordering::Relaxed);
        assert!(!a0.reached() && !a1.reached());
        progress[1].bytes[2].store(4 << 10, Ordering::Relaxed);
        assert!(a0.reached() && a1.reached());
        // b's group has done nothing yet.
        assert!(!b.reached());
        progress[3].bytes[1].store(10 << 10, Ordering::Relaxed);
        assert!(b.reached());
    }

    #[test]
    fn without_group_reporting_each_worker_counts_its_own() {
        let (parsed, groups) = jobs("--name=a --numjobs=2 --ramp_size=10k");
        let progress: Vec<WorkerProgress> = (0..2).map(|_| WorkerProgress::default()).collect();
        let members: Vec<Member> = progress
            .iter()
            .map(|progress| Member {
                job: 0,
                groupid: groups[0],
                progress,
            })
            .collect();
        progress[0].bytes[1].store(10 << 10, Ordering::Relaxed);
        assert!(RampSize::of(&parsed, &members, 0).unwrap().reached());
        assert!(!RampSize::of(&parsed, &members, 1).unwrap().reached());
    }
}
