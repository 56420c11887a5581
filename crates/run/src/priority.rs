//! A worker's CPU and I/O priority (`nice`, `prio`, `prioclass`), set on
//! its own thread as fio sets them on its own process: on Linux both
//! `setpriority(PRIO_PROCESS, 0, ..)` (what nice() calls) and
//! `ioprio_set(IOPRIO_WHO_PROCESS, 0, ..)` act on the calling thread only,
//! so one job's settings do not leak to the others' workers.

use ioscope_job::JobSpec;

const IOPRIO_WHO_PROCESS: libc::c_long = 1;
const IOPRIO_CLASS_SHIFT: u32 = 13;
/// The best-effort class, which fio uses when only `prio` is given.
const IOPRIO_CLASS_BE: u32 = 2;

/// fio's ioprio_value: class 0 (none) means best effort.
pub(crate) fn ioprio_value(class: u32, level: u32) -> u32 {
    let class = if class == 0 { IOPRIO_CLASS_BE } else { class };
    (class << IOPRIO_CLASS_SHIFT) | level
}

/// The job's own I/O priority (`prio`/`prioclass`), 0 when it sets none:
/// the first of the priorities a cmdprio job reports, as fio's ts->ioprio.
pub(crate) fn job_ioprio(spec: &JobSpec) -> u16 {
    let p = &spec.process;
    if p.prio.is_some() || p.prioclass.is_some() {
        ioprio_value(p.prioclass.unwrap_or(0), p.prio.unwrap_or(0)) as u16
    } else {
        0
    }
}

/// Applies the job's priorities to the calling thread, in fio's order
/// (I/O priority, then nice). The error names the option.
pub(crate) fn apply(spec: &JobSpec) -> Result<(), (i32, String)> {
    let p = &spec.process;
    if p.prio.is_some() || p.prioclass.is_some() {
        let value = ioprio_value(p.prioclass.unwrap_or(0), p.prio.unwrap_or(0));
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
            return Err(last_error("prio/prioclass: ioprio_set"));
        }
    }
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
        assert_eq!(ioprio_value(0, 4), (2 << 13) | 4);
        assert_eq!(ioprio_value(3, 0), 3 << 13);
    }

    #[test]
    fn a_threads_priority_is_its_own() {
        // Idle class needs no privilege; the thread's setting must not
        // reach the test's own thread.
        let before = current_ioprio();
        let inside = std::thread::spawn(|| {
            let mut spec = ioscope_job::parse(&ioscope_job::ParseInput {
                cli_options: vec!["--name=j".into(), "--prioclass=3".into()],
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
        assert_eq!(inside, 3 << 13);
        assert_eq!(current_ioprio(), before);
    }
}
