//! The device's side of the 10 µs checklist: its block queue's settings
//! (scheduler, iostats, add_random, write cache) and the NUMA nodes its
//! interrupts are served on. Each reads sysfs and procfs under a [`Root`].

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use ioscope_engine::TargetKind;
use ioscope_stats::Notice;

use super::root::{cpu_list_text, names, parse_cpu_list, read_line, Root};
use super::Check;

/// The whole disk (its sysfs name, `nvme0n1`) that holds `path`: the block
/// device itself, the namespace of an NVMe generic char device, or the
/// device of a regular file's filesystem; a partition's disk is its
/// parent. `Ok(None)` when the path is on no block device sysfs knows
/// (tmpfs, a network filesystem); an error when it cannot be looked at.
pub fn disk_of(root: &Root, path: &Path) -> Result<Option<String>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let ft = meta.file_type();
    let dev = if ft.is_block_device() {
        meta.rdev()
    } else if ft.is_char_device() {
        // /dev/ngXnY: its namespace's block device, if there is one.
        let (_, block) = ioscope_engine::nvme::nvme_names(path, TargetKind::CharDevice);
        match block.and_then(|b| std::fs::metadata(b).ok()) {
            Some(b) => b.rdev(),
            None => return Ok(None),
        }
    } else {
        meta.dev()
    };
    let link = root.path(&format!(
        "sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    let Ok(dir) = link.canonicalize() else {
        return Ok(None);
    };
    let disk = match dir.join("partition").exists() {
        true => dir.parent().map(Path::to_path_buf),
        false => Some(dir),
    };
    Ok(disk.and_then(|d| Some(d.file_name()?.to_string_lossy().into_owned())))
}

/// Every device check, in the order the doctor prints them; `cpus` are the
/// CPUs the job may run on, `writes` whether it writes.
pub fn checks(root: &Root, disk: &str, cpus: &[u32], writes: bool) -> Vec<Check> {
    let mut all = vec![
        scheduler(root, disk),
        flag(root, disk, "iostats"),
        flag(root, disk, "add_random"),
    ];
    if writes {
        all.push(write_cache(root, disk));
    }
    all.push(irq_nodes(root, disk, cpus));
    all
}

/// The I/O scheduler of a non-rotational device (NVMe, and any fast
/// device): anything but `none` adds latency.
pub fn scheduler(root: &Root, disk: &str) -> Check {
    let what = "I/O scheduler";
    let Some(text) = root.line(&format!("sys/block/{disk}/queue/scheduler")) else {
        return Check::fine(what, format!("{disk} has no scheduler to choose"));
    };
    // `none [mq-deadline] kyber`: the one in brackets is in use.
    let current = text
        .split_whitespace()
        .find_map(|s| s.strip_prefix('[')?.strip_suffix(']'))
        .unwrap_or(text.as_str())
        .to_string();
    let rotational = root.line(&format!("sys/block/{disk}/queue/rotational"));
    match (current.as_str(), rotational.as_deref()) {
        ("none", _) => Check::fine(what, format!("{disk}: none")),
        (_, Some("1")) => Check::fine(
            what,
            format!("{disk}: {current} (a rotational device, where it may help)"),
        ),
        _ => Check::found(
            what,
            Notice::SchedulerNotNone {
                device: disk.to_string(),
                scheduler: current,
            },
        ),
    }
}

/// `iostats` or `add_random`: per-I/O work when 1.
pub fn flag(root: &Root, disk: &str, name: &'static str) -> Check {
    let Some(v) = root.line(&format!("sys/block/{disk}/queue/{name}")) else {
        return Check::fine(name, format!("{disk} has no {name}"));
    };
    if v == "0" {
        return Check::fine(name, format!("{disk}: 0"));
    }
    let device = disk.to_string();
    Check::found(
        name,
        match name {
            "iostats" => Notice::IostatsOn { device },
            _ => Notice::AddRandomOn { device },
        },
    )
}

/// The volatile write cache: `write back` or `write through`.
pub fn write_cache(root: &Root, disk: &str) -> Check {
    let what = "write cache";
    match root
        .line(&format!("sys/block/{disk}/queue/write_cache"))
        .as_deref()
    {
        Some("write back") => Check::found(
            what,
            Notice::WriteBackCache {
                device: disk.to_string(),
            },
        ),
        Some(other) => Check::fine(what, format!("{disk}: {other}")),
        None => Check::unknown(what, format!("{disk} has no queue/write_cache")),
    }
}

/// Whether the CPUs that take the device's interrupts share a NUMA node
/// with `cpus`. The interrupts are the MSI vectors of the PCI function the
/// disk hangs off (found by walking up its sysfs path), each served where
/// `/proc/irq/N/effective_affinity_list` says.
pub fn irq_nodes(root: &Root, disk: &str, cpus: &[u32]) -> Check {
    let what = "device interrupts' NUMA node";
    let nodes = root.nodes();
    if nodes.len() < 2 {
        return Check::fine(what, "one NUMA node");
    }
    let Some(irqs) = msi_irqs(root, disk) else {
        return Check::fine(what, format!("{disk} has no PCI interrupts"));
    };
    let mut irq_cpus: Vec<u32> = Vec::new();
    for irq in &irqs {
        let at = |f: &str| root.line(&format!("proc/irq/{irq}/{f}"));
        if let Some(list) = at("effective_affinity_list")
            .or_else(|| at("smp_affinity_list"))
            .and_then(|l| parse_cpu_list(&l))
        {
            irq_cpus.extend(list);
        }
    }
    let node_set = |list: &[u32]| -> Vec<u32> {
        nodes
            .iter()
            .filter(|(_, c)| c.iter().any(|cpu| list.contains(cpu)))
            .map(|(n, _)| *n)
            .collect()
    };
    let (irq_nodes, job_nodes) = (node_set(&irq_cpus), node_set(cpus));
    if irq_nodes.is_empty() || job_nodes.is_empty() {
        return Check::unknown(what, format!("cannot place {disk}'s interrupts on a node"));
    }
    if irq_nodes.iter().any(|n| job_nodes.contains(n)) {
        return Check::fine(
            what,
            format!(
                "{disk}: node {}, as the job's CPUs",
                cpu_list_text(&irq_nodes)
            ),
        );
    }
    Check::found(
        what,
        Notice::IrqsOnOtherNode {
            device: disk.to_string(),
            irq_nodes: cpu_list_text(&irq_nodes),
            job_nodes: cpu_list_text(&job_nodes),
        },
    )
}

/// The MSI interrupt numbers of the PCI function above `disk` in sysfs.
fn msi_irqs(root: &Root, disk: &str) -> Option<Vec<String>> {
    let sys = root.path("sys").canonicalize().ok()?;
    let mut dir = root
        .path(&format!("sys/block/{disk}"))
        .canonicalize()
        .ok()?;
    while dir.starts_with(&sys) && dir != sys {
        let irqs = names(&dir.join("msi_irqs"));
        if !irqs.is_empty() {
            return Some(irqs);
        }
        // A legacy interrupt: one number in `irq`.
        if let Some(irq) = read_line(&dir.join("irq")).filter(|i| i != "0") {
            if dir.join("vendor").exists() {
                return Some(vec![irq]);
            }
        }
        dir = dir.parent()?.to_path_buf();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Tree;
    use super::super::Outcome;
    use super::*;

    fn queue(t: &Tree, disk: &str, file: &str, v: &str) {
        t.file(&format!("sys/block/{disk}/queue/{file}"), v);
    }

    fn kinds(all: &[Check]) -> Vec<&'static str> {
        all.iter()
            .filter_map(|c| match &c.outcome {
                Outcome::Found(n) => Some(n.kind()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn queue_settings_that_cost_per_io_are_found() {
        let t = Tree::new();
        queue(&t, "nvme0n1", "scheduler", "none [mq-deadline] kyber bfq");
        queue(&t, "nvme0n1", "rotational", "0");
        queue(&t, "nvme0n1", "iostats", "1");
        queue(&t, "nvme0n1", "add_random", "1");
        queue(&t, "nvme0n1", "write_cache", "write back");
        let all = checks(&t.root(), "nvme0n1", &[0], true);
        assert_eq!(
            kinds(&all),
            [
                "scheduler_not_none",
                "iostats_on",
                "add_random_on",
                "write_back_cache"
            ]
        );
        assert_eq!(
            all[0].outcome,
            Outcome::Found(Notice::SchedulerNotNone {
                device: "nvme0n1".into(),
                scheduler: "mq-deadline".into()
            })
        );
        // A job that does not write is not told about the write cache.
        assert!(!kinds(&checks(&t.root(), "nvme0n1", &[0], false)).contains(&"write_back_cache"));

        queue(&t, "nvme0n1", "scheduler", "[none] mq-deadline kyber bfq");
        queue(&t, "nvme0n1", "iostats", "0");
        queue(&t, "nvme0n1", "add_random", "0");
        queue(&t, "nvme0n1", "write_cache", "write through");
        assert!(kinds(&checks(&t.root(), "nvme0n1", &[0], true)).is_empty());
        // A disk that spins keeps its scheduler.
        queue(&t, "sda", "scheduler", "none [mq-deadline]");
        queue(&t, "sda", "rotational", "1");
        assert!(matches!(
            scheduler(&t.root(), "sda").outcome,
            Outcome::Fine(_)
        ));
    }

    /// Two nodes; nvme0n1 under a PCI function whose two MSI vectors are
    /// served by CPUs of node 1.
    fn two_nodes() -> Tree {
        let t = Tree::new();
        t.file("sys/devices/system/node/node0/cpulist", "0-1");
        t.file("sys/devices/system/node/node1/cpulist", "2-3");
        let pci = "sys/devices/pci0000:00/0000:01:00.0";
        t.file(&format!("{pci}/vendor"), "0x8086");
        t.file(&format!("{pci}/msi_irqs/40"), "msix");
        t.file(&format!("{pci}/msi_irqs/41"), "msix");
        t.file(&format!("{pci}/nvme/nvme0/nvme0n1/queue/iostats"), "0");
        t.link(&format!("{pci}/nvme/nvme0/nvme0n1"), "sys/block/nvme0n1");
        t.file("proc/irq/40/effective_affinity_list", "2");
        t.file("proc/irq/41/effective_affinity_list", "3");
        t
    }

    #[test]
    fn interrupts_on_another_node_are_found() {
        let t = two_nodes();
        assert_eq!(
            irq_nodes(&t.root(), "nvme0n1", &[0]).outcome,
            Outcome::Found(Notice::IrqsOnOtherNode {
                device: "nvme0n1".into(),
                irq_nodes: "1".into(),
                job_nodes: "0".into()
            })
        );
        assert!(matches!(
            irq_nodes(&t.root(), "nvme0n1", &[3]).outcome,
            Outcome::Fine(_)
        ));
        // One node: nothing to cross.
        let one = Tree::new();
        one.file("sys/devices/system/node/node0/cpulist", "0-3");
        assert_eq!(
            irq_nodes(&one.root(), "nvme0n1", &[0]).outcome,
            Outcome::Fine("one NUMA node".into())
        );
    }
}
