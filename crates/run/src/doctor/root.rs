//! Where the doctor reads the machine from: `/` on a live system, a fixture
//! tree in tests, so each check is a function of the files it reads.

use std::path::{Path, PathBuf};

/// The directory that stands for `/`: sysfs is read under `sys/`, procfs
/// under `proc/`.
#[derive(Clone, Debug)]
pub struct Root(PathBuf);

impl Root {
    /// The running system.
    pub fn system() -> Root {
        Root(PathBuf::from("/"))
    }

    /// A tree laid out like `/` (for tests, or a copy of another machine's
    /// sysfs).
    pub fn at(dir: impl Into<PathBuf>) -> Root {
        Root(dir.into())
    }

    /// `rel` (written without its leading `/`) under the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// The first line of a file under the root, trimmed; None when it
    /// cannot be read.
    pub fn line(&self, rel: &str) -> Option<String> {
        read_line(&self.path(rel))
    }

    /// The names in a directory under the root, sorted; empty when it
    /// cannot be read.
    pub fn names(&self, rel: &str) -> Vec<String> {
        names(&self.path(rel))
    }

    /// The CPU numbers of `sys/devices/system/cpu/cpuN`, in order.
    pub fn cpus(&self) -> Vec<u32> {
        let mut cpus: Vec<u32> = self
            .names("sys/devices/system/cpu")
            .iter()
            .filter_map(|n| n.strip_prefix("cpu")?.parse().ok())
            .collect();
        cpus.sort_unstable();
        cpus
    }

    /// Each NUMA node with its CPUs (`sys/devices/system/node/nodeN/cpulist`).
    pub fn nodes(&self) -> Vec<(u32, Vec<u32>)> {
        let mut nodes: Vec<(u32, Vec<u32>)> = self
            .names("sys/devices/system/node")
            .iter()
            .filter_map(|n| {
                let node: u32 = n.strip_prefix("node")?.parse().ok()?;
                let cpus = self.line(&format!("sys/devices/system/node/{n}/cpulist"))?;
                Some((node, parse_cpu_list(&cpus)?))
            })
            .collect();
        nodes.sort_unstable();
        nodes
    }
}

pub(super) fn read_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.lines().next().unwrap_or("").trim().to_string())
}

pub(super) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort_unstable();
    names
}

/// The kernel's CPU list (`0-3,6`, empty for none); None when malformed.
pub(super) fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                // sysfs lists are short; a huge range is not one of them.
                if b < a || b - a > 1 << 16 {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Some(cpus)
}

/// A sorted list of numbers as the kernel writes it: `0-3,6`.
pub(super) fn cpu_list_text(list: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let start = list[i];
        while i + 1 < list.len() && list[i + 1] == list[i] + 1 {
            i += 1;
        }
        parts.push(match list[i] {
            end if end == start => start.to_string(),
            end => format!("{start}-{end}"),
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_and_write_as_the_kernel_does() {
        assert_eq!(parse_cpu_list("0-3,6"), Some(vec![0, 1, 2, 3, 6]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(cpu_list_text(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(cpu_list_text(&[5]), "5");
        assert_eq!(cpu_list_text(&[]), "");
    }
}
