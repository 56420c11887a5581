//! CPU pinning for `cpus_allowed` / `cpus_allowed_policy`.

use ioscope_job::{CpusAllowedPolicy, JobSpec};

/// The CPUs worker `worker` of `spec` may run on; empty means unrestricted.
pub(crate) fn cpus_for(spec: &JobSpec, worker: u32) -> Vec<u32> {
    if spec.cpus_allowed.is_empty() {
        return Vec::new();
    }
    match spec.cpus_allowed_policy {
        CpusAllowedPolicy::Shared => spec.cpus_allowed.clone(),
        CpusAllowedPolicy::Split => {
            let i = worker as usize % spec.cpus_allowed.len();
            vec![spec.cpus_allowed[i]]
        }
    }
}

/// Pins the calling thread to `cpus`.
pub fn pin_current_thread(cpus: &[u32]) -> std::io::Result<()> {
    if cpus.is_empty() {
        return Ok(());
    }
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only write inside it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu as usize >= libc::CPU_SETSIZE as usize {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("CPU {cpu} is beyond the largest CPU number this system supports"),
            ));
        }
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; the set is initialised above.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_to_cpu_zero_keeps_the_thread_there() {
        std::thread::spawn(|| {
            pin_current_thread(&[0]).unwrap();
            // SAFETY: sched_getcpu has no preconditions.
            assert_eq!(unsafe { libc::sched_getcpu() }, 0);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_cpu_beyond_the_set_size_is_an_error() {
        assert!(pin_current_thread(&[100_000]).is_err());
    }
}
