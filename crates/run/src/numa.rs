//! `numa_cpu_nodes` and `numa_mem_policy` without libnuma: the nodes and
//! their CPUs come from /sys/devices/system/node, the memory policy is set
//! with the set_mempolicy system call (which, like sched_setaffinity, acts
//! on the calling thread only: each worker gets its own job's policy).

use std::path::Path;

use ioscope_job::{JobSpec, MemPolicy, NumaNodes};

const NODE_DIR: &str = "/sys/devices/system/node";
const MPOL_DEFAULT: libc::c_long = 0;
const MPOL_PREFERRED: libc::c_long = 1;
const MPOL_BIND: libc::c_long = 2;
const MPOL_INTERLEAVE: libc::c_long = 3;
const MPOL_LOCAL: libc::c_long = 4;
/// Nodes a mask can name here (the kernel's MAX_NUMNODES is at most 1024).
const MASK_WORDS: usize = 16;

/// `0-1,3` (the kernel's list format) → its numbers.
fn parse_list(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            out.extend(a..=b);
        }
    }
    out
}

fn read_list(path: &Path) -> Option<Vec<u32>> {
    std::fs::read_to_string(path).ok().map(|t| parse_list(&t))
}

/// The nodes `nodes` names, each checked to exist (fio's libnuma refuses
/// a node the machine does not have). `all` is the nodes with memory.
fn resolve(option: &str, nodes: &NumaNodes) -> Result<Vec<u32>, String> {
    let dir = Path::new(NODE_DIR);
    let online = read_list(&dir.join("online"))
        .ok_or_else(|| format!("{option}: this system shows no NUMA nodes ({NODE_DIR}/online)"))?;
    match nodes {
        NumaNodes::All => Ok(read_list(&dir.join("has_memory")).unwrap_or(online)),
        NumaNodes::List(list) => {
            if let Some(bad) = list.iter().find(|n| !online.contains(n)) {
                return Err(format!(
                    "{option}: node {bad} does not exist or is offline (online nodes: {online:?})"
                ));
            }
            Ok(list.clone())
        }
    }
}

/// The plan's check: every node the job names exists here.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    if let Some(nodes) = &spec.process.numa_cpu_nodes {
        resolve("numa_cpu_nodes", nodes)?;
    }
    match &spec.process.numa_mem_policy {
        Some(MemPolicy::Prefer(n)) => {
            resolve("numa_mem_policy", &NumaNodes::List(vec![*n]))?;
        }
        Some(MemPolicy::Bind(nodes) | MemPolicy::Interleave(nodes)) => {
            resolve("numa_mem_policy", nodes)?;
        }
        _ => {}
    }
    Ok(())
}

/// The CPUs of the job's `numa_cpu_nodes`; None when it names none.
pub(crate) fn node_cpus(spec: &JobSpec) -> Result<Option<Vec<u32>>, String> {
    let Some(nodes) = &spec.process.numa_cpu_nodes else {
        return Ok(None);
    };
    let mut cpus = Vec::new();
    for n in resolve("numa_cpu_nodes", nodes)? {
        let path = Path::new(NODE_DIR).join(format!("node{n}/cpulist"));
        cpus.extend(read_list(&path).unwrap_or_default());
    }
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.is_empty() {
        return Err(format!("numa_cpu_nodes: nodes {nodes:?} have no CPU"));
    }
    Ok(Some(cpus))
}

/// Sets the calling thread's memory policy as the job says.
pub(crate) fn apply_mem_policy(spec: &JobSpec) -> Result<(), (i32, String)> {
    let Some(policy) = &spec.process.numa_mem_policy else {
        return Ok(());
    };
    let fail = |m: String| (libc::EINVAL, m);
    let (mode, nodes) = match policy {
        MemPolicy::Default => (MPOL_DEFAULT, Vec::new()),
        MemPolicy::Local => (MPOL_LOCAL, Vec::new()),
        MemPolicy::Prefer(n) => (MPOL_PREFERRED, vec![*n]),
        MemPolicy::Bind(n) => (MPOL_BIND, resolve("numa_mem_policy", n).map_err(fail)?),
        MemPolicy::Interleave(n) => (
            MPOL_INTERLEAVE,
            resolve("numa_mem_policy", n).map_err(fail)?,
        ),
    };
    let mut mask = [0u64; MASK_WORDS];
    for n in nodes {
        let n = n as usize;
        if n >= MASK_WORDS * 64 {
            return Err(fail(format!("numa_mem_policy: node {n} is out of range")));
        }
        mask[n / 64] |= 1 << (n % 64);
    }
    let (ptr, maxnode) = if mode == MPOL_DEFAULT || mode == MPOL_LOCAL {
        (std::ptr::null(), 0)
    } else {
        (mask.as_ptr(), (MASK_WORDS * 64 + 1) as libc::c_long)
    };
    // SAFETY: the mask outlives the call and holds maxnode - 1 bits.
    let rc = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, maxnode) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return Err((
            e.raw_os_error().unwrap_or(libc::EINVAL),
            format!("numa_mem_policy: set_mempolicy: {e}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(options: &[&str]) -> JobSpec {
        let mut cli = vec!["--name=j".to_string()];
        cli.extend(options.iter().map(|o| o.to_string()));
        ioscope_job::parse(&ioscope_job::ParseInput {
            cli_options: cli,
            ..Default::default()
        })
        .unwrap()
        .jobs
        .remove(0)
    }

    #[test]
    fn lists_read_as_the_kernel_writes_them() {
        assert_eq!(parse_list("0-2,5\n"), vec![0, 1, 2, 5]);
        assert_eq!(parse_list(""), Vec::<u32>::new());
    }

    #[test]
    fn node_zero_works_and_a_missing_node_is_refused() {
        if !Path::new(NODE_DIR).join("node0").exists() {
            return; // No NUMA information on this system: nothing to check.
        }
        let good = spec(&["--numa_cpu_nodes=0", "--numa_mem_policy=bind:0"]);
        check(&good).unwrap();
        let cpus = node_cpus(&good).unwrap().unwrap();
        assert!(!cpus.is_empty());
        std::thread::spawn(move || apply_mem_policy(&good).unwrap())
            .join()
            .unwrap();
        let bad = spec(&["--numa_mem_policy=bind:999"]);
        let err = check(&bad).unwrap_err();
        assert!(err.contains("node 999 does not exist"), "{err}");
        assert!(check(&spec(&["--numa_cpu_nodes=0-999"])).is_err());
    }
}
