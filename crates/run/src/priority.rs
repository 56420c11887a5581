//! A worker's CPU and I/O priority (`nice`, `prio`, `prioclass`,
//! `priohint`), set on
//! its own thread as fio sets them on its own process: on Linux both
//! `setpriority(PRIO_PROCESS, 0, ..)` (what nice() calls) and
//! `ioprio_set(IOPRIO_WHO_PROCESS, 0, ..)` act on the calling thread only,
//! so one job's settings do not leak to the others' workers.

use ioscope_job::{ioprio_value, JobSpec};

const IOPRIO_WHO_PROCESS: libc::c_long = 1;

/// The job's own I/O priority (`prio`, `prioclass`, `priohint`), 0 when
/// it sets none: the first of the priorities a cmdprio job reports, as
/// fio's ts->ioprio.
pub(crate) fn job_ioprio(spec: &JobSpec) -> u16 {
    let p = &spec.process;
    if p.prio.is_some() || p.prioclass.is_some() || p.priohint.is_some() {
        ioprio_value(
            p.prioclass.unwrap_or(0),
            p.prio.unwrap_or(0),
            p.priohint.unwrap_or(0),
        )
    } else {
        0
    }
}

/// Applies the job's priorities to the calling thread, in fio's order
/// (I/O priority, then nice). The error names the option.
pub(crate) fn apply(spec: &JobSpec) -> Result<(), (i32, String)> {
    let value = job_ioprio(spec);
    if value != 0 {
        // SAFETY: ioprio_set takes three integers and touches no memory.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_ioprio_set,
                IOPRIO_WHO_PROCESS,
                0 as libc::c_long,
                libc::c_long::from(value),
            )
        };
        if rc == -1 {
            return Err(last_error("prio/prioclass/priohint: ioprio_set"));
        }
    }
    let p = &spec.process;
    if p.nice != 0 {
        // nice() returns the new value, which may be -1: errno tells.
        // SAFETY: errno is this thread's; nice touches no memory.
        unsafe { *libc::__errno_location() = 0 };
        // SAFETY: as above.
        let rc = unsafe { libc::nice(p.nice) };
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        if rc == -1 && errno != 0 {
            return Err(last_error("nice"));
        }
    }
    Ok(())
}

fn last_error(what: &str) -> (i32, String) {
    let e = std::io::Error::last_os_error();
    (
        e.raw_os_error().unwrap_or(libc::EINVAL),
        format!("{what}: {e}"),
    )
}

/// The calling thread's I/O priority, as ioprio_get reports it.
#[cfg(test)]
pub(crate) fn current_ioprio() -> i64 {
    // SAFETY: ioprio_get takes two integers and touches no memory.
    unsafe { libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0 as libc::c_long) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_fios() {
        assert_eq!(ioprio_value(0, 4, 0), (2 << 13) | 4);
        assert_eq!(ioprio_value(3, 0, 0), 3 << 13);
        assert_eq!(ioprio_value(2, 1, 5), (2 << 13) | (5 << 3) | 1);
    }

    #[test]
    fn a_threads_priority_is_its_own() {
        // Idle class needs no privilege; the thread's setting must not
        // reach the test's own thread.
        let before = current_ioprio();
        let inside = std::thread::spawn(|| {
            let mut spec = ioscope_job::parse(&ioscope_job::ParseInput {
                cli_options: vec![
                    "--name=j".into(),
                    "--prioclass=3".into(),
                    "--priohint=1".into(),
                ],
                ..Default::default()
            })
            .unwrap()
            .jobs
            .remove(0);
            spec.process.nice = 1;
            apply(&spec).unwrap();
            current_ioprio()
        })
        .join()
        .unwrap();
        assert_eq!(inside, (3 << 13) | (1 << 3));
        assert_eq!(current_ioprio(), before);
    }
}
