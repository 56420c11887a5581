//! The machine's side of the 10 µs checklist: the CPU frequency governor,
//! idle states (and haltpoll in a guest), the kernel's clocksource, and
//! whether this is a virtual machine. Each reads sysfs and procfs under a
//! [`Root`].

use ioscope_stats::Notice;

use super::root::{cpu_list_text, Root};
use super::{Check, Outcome};

/// An idle state whose exit latency is above this is deep: waking from it
/// costs as much as a fast device's whole I/O (about 10 µs).
const DEEP_EXIT_US: u64 = 10;

/// Every machine check, in the order the doctor prints them.
pub fn checks(root: &Root) -> Vec<Check> {
    let vm = virtual_machine(root);
    let in_guest = matches!(vm.outcome, Outcome::Found(_));
    vec![
        governor(root),
        idle_states(root),
        haltpoll(root, in_guest),
        clocksource(root),
        vm,
    ]
}

/// CPUs whose cpufreq governor is not `performance`.
pub fn governor(root: &Root) -> Check {
    let what = "CPU frequency governor";
    let governors: Vec<(u32, String)> = root
        .cpus()
        .into_iter()
        .filter_map(|cpu| {
            let g = root.line(&format!(
                "sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"
            ))?;
            Some((cpu, g))
        })
        .collect();
    if governors.is_empty() {
        return Check::unknown(
            what,
            "no CPU has cpufreq (the kernel does not set the frequency here; in a VM the \
             host's governor applies)",
        );
    }
    let slow: Vec<&(u32, String)> = governors
        .iter()
        .filter(|(_, g)| g != "performance")
        .collect();
    match slow.first() {
        None => Check::fine(what, "performance on every CPU"),
        Some((_, governor)) => Check::found(
            what,
            Notice::CpuGovernor {
                cpus: cpu_list_text(&slow.iter().map(|(c, _)| *c).collect::<Vec<_>>()),
                governor: governor.clone(),
            },
        ),
    }
}

/// Enabled idle states with an exit latency above [`DEEP_EXIT_US`], on
/// any CPU.
pub fn idle_states(root: &Root) -> Check {
    let what = "CPU idle states";
    let mut deep: Vec<(u64, String)> = Vec::new();
    let mut any = false;
    for cpu in root.cpus() {
        let dir = format!("sys/devices/system/cpu/cpu{cpu}/cpuidle");
        for state in root.names(&dir).iter().filter(|n| n.starts_with("state")) {
            let at = |f: &str| root.line(&format!("{dir}/{state}/{f}"));
            let (Some(name), Some(latency)) = (at("name"), at("latency")) else {
                continue;
            };
            any = true;
            let Ok(latency) = latency.parse::<u64>() else {
                continue;
            };
            let disabled = at("disable").is_some_and(|d| d != "0");
            if latency > DEEP_EXIT_US && !disabled && !deep.iter().any(|(_, n)| *n == name) {
                deep.push((latency, name));
            }
        }
    }
    if !any {
        let driver = root
            .line("sys/devices/system/cpu/cpuidle/current_driver")
            .unwrap_or_else(|| "none".into());
        return Check::fine(
            what,
            format!("no cpuidle states (driver {driver}): idle CPUs use the default halt"),
        );
    }
    if deep.is_empty() {
        return Check::fine(
            what,
            format!("no enabled state exits slower than {DEEP_EXIT_US} µs"),
        );
    }
    deep.sort();
    let states = deep
        .iter()
        .map(|(us, name)| format!("{name} ({us} µs)"))
        .collect::<Vec<_>>()
        .join(", ");
    Check::found(what, Notice::DeepIdleStates { states })
}

/// In a guest: whether the cpuidle driver is haltpoll.
pub fn haltpoll(root: &Root, in_guest: bool) -> Check {
    let what = "haltpoll in a guest";
    let driver = root
        .line("sys/devices/system/cpu/cpuidle/current_driver")
        .unwrap_or_else(|| "none".into());
    match (in_guest, driver.as_str()) {
        (false, _) => Check::fine(what, "not a guest"),
        (true, "haltpoll") => Check::fine(what, "the cpuidle driver is haltpoll"),
        (true, _) => Check::found(what, Notice::GuestWithoutHaltpoll { driver }),
    }
}

/// The kernel's current clocksource.
pub fn clocksource(root: &Root) -> Check {
    let what = "clocksource";
    let dir = "sys/devices/system/clocksource/clocksource0";
    let Some(current) = root.line(&format!("{dir}/current_clocksource")) else {
        return Check::unknown(what, format!("/{dir}/current_clocksource cannot be read"));
    };
    if current == "tsc" {
        return Check::fine(what, "tsc");
    }
    let tsc_available = root
        .line(&format!("{dir}/available_clocksource"))
        .is_some_and(|a| a.split_whitespace().any(|s| s == "tsc"));
    Check::found(
        what,
        Notice::ClocksourceNotTsc {
            current,
            tsc_available,
        },
    )
}

/// DMI vendors and products that name a hypervisor.
const HYPERVISORS: [&str; 8] = [
    "QEMU",
    "KVM",
    "VMware",
    "VirtualBox",
    "Xen",
    "Microsoft Corporation",
    "Amazon EC2",
    "Google Compute Engine",
];

/// Whether this is a virtual machine: the CPU's hypervisor flag, a DMI
/// vendor that is a hypervisor, virtio devices.
pub fn virtual_machine(root: &Root) -> Check {
    let what = "virtual machine";
    let mut evidence = Vec::new();
    let cpuinfo = std::fs::read_to_string(root.path("proc/cpuinfo")).unwrap_or_default();
    let flagged = cpuinfo.lines().any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim() == "flags" && v.split_whitespace().any(|f| f == "hypervisor")
        })
    });
    if flagged {
        evidence.push("hypervisor flag in /proc/cpuinfo".to_string());
    }
    for field in ["sys_vendor", "product_name"] {
        if let Some(v) = root.line(&format!("sys/class/dmi/id/{field}")) {
            if HYPERVISORS.iter().any(|h| v.contains(h)) {
                evidence.push(format!("DMI {field} {v}"));
            }
        }
    }
    let virtio = root.names("sys/bus/virtio/devices").len();
    if virtio > 0 {
        evidence.push(format!("{virtio} virtio devices"));
    }
    match evidence.is_empty() {
        true => Check::fine(
            what,
            "no hypervisor flag, hypervisor DMI vendor or virtio device",
        ),
        false => Check::found(
            what,
            Notice::VirtualMachine {
                evidence: evidence.join(", "),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Tree;
    use super::*;

    fn kind(c: &Check) -> Option<&'static str> {
        match &c.outcome {
            Outcome::Found(n) => Some(n.kind()),
            _ => None,
        }
    }

    #[test]
    fn a_governor_other_than_performance_is_found() {
        let t = Tree::new();
        for cpu in 0..4 {
            t.file(&format!("sys/devices/system/cpu/cpu{cpu}/online"), "1");
        }
        for (cpu, g) in [
            (0, "performance"),
            (1, "powersave"),
            (2, "powersave"),
            (3, "performance"),
        ] {
            t.file(
                &format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"),
                g,
            );
        }
        let c = governor(&t.root());
        assert_eq!(
            c.outcome,
            Outcome::Found(Notice::CpuGovernor {
                cpus: "1-2".into(),
                governor: "powersave".into()
            })
        );
        t.file(
            "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
            "performance",
        );
        t.file(
            "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor",
            "performance",
        );
        assert!(matches!(governor(&t.root()).outcome, Outcome::Fine(_)));
        // No cpufreq at all: not known, not fine.
        let bare = Tree::new();
        bare.file("sys/devices/system/cpu/cpu0/online", "1");
        assert!(matches!(
            governor(&bare.root()).outcome,
            Outcome::Unknown(_)
        ));
    }

    #[test]
    fn deep_idle_states_are_found_unless_disabled() {
        let t = Tree::new();
        let state = |n: u32, name: &str, latency: u32, disable: u32| {
            let d = format!("sys/devices/system/cpu/cpu0/cpuidle/state{n}");
            t.file(&format!("{d}/name"), name);
            t.file(&format!("{d}/latency"), &latency.to_string());
            t.file(&format!("{d}/disable"), &disable.to_string());
        };
        state(0, "POLL", 0, 0);
        state(1, "C1", 2, 0);
        state(2, "C6", 133, 0);
        state(3, "C10", 290, 1);
        let c = idle_states(&t.root());
        assert_eq!(
            c.outcome,
            Outcome::Found(Notice::DeepIdleStates {
                states: "C6 (133 µs)".into()
            })
        );
        state(2, "C6", 133, 1);
        assert!(matches!(idle_states(&t.root()).outcome, Outcome::Fine(_)));
    }

    #[test]
    fn a_guest_without_haltpoll_is_found() {
        let t = Tree::new();
        t.file("sys/devices/system/cpu/cpuidle/current_driver", "none");
        assert_eq!(
            kind(&haltpoll(&t.root(), true)),
            Some("guest_without_haltpoll")
        );
        assert_eq!(kind(&haltpoll(&t.root(), false)), None);
        t.file("sys/devices/system/cpu/cpuidle/current_driver", "haltpoll");
        assert_eq!(kind(&haltpoll(&t.root(), true)), None);
    }

    #[test]
    fn a_clocksource_other_than_tsc_is_found() {
        let t = Tree::new();
        let dir = "sys/devices/system/clocksource/clocksource0";
        t.file(&format!("{dir}/current_clocksource"), "kvm-clock");
        t.file(
            &format!("{dir}/available_clocksource"),
            "kvm-clock tsc acpi_pm",
        );
        assert_eq!(
            clocksource(&t.root()).outcome,
            Outcome::Found(Notice::ClocksourceNotTsc {
                current: "kvm-clock".into(),
                tsc_available: true
            })
        );
        t.file(&format!("{dir}/current_clocksource"), "tsc");
        assert_eq!(clocksource(&t.root()).outcome, Outcome::Fine("tsc".into()));
        assert!(matches!(
            clocksource(&Tree::new().root()).outcome,
            Outcome::Unknown(_)
        ));
    }

    #[test]
    fn a_virtual_machine_is_recognised_by_its_flag_dmi_or_virtio() {
        let t = Tree::new();
        t.file("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc msr\n");
        assert_eq!(kind(&virtual_machine(&t.root())), None);
        t.file("sys/class/dmi/id/sys_vendor", "QEMU");
        t.file("sys/bus/virtio/devices/virtio0/vendor", "0x1af4");
        t.file(
            "proc/cpuinfo",
            "processor\t: 0\nflags\t\t: fpu tsc hypervisor\n",
        );
        assert_eq!(
            virtual_machine(&t.root()).outcome,
            Outcome::Found(Notice::VirtualMachine {
                evidence: "hypervisor flag in /proc/cpuinfo, DMI sys_vendor QEMU, 1 virtio \
                           devices"
                    .into()
            })
        );
        // checks() asks haltpoll of a guest only.
        let all = checks(&t.root());
        assert_eq!(kind(&all[2]), Some("guest_without_haltpoll"));
    }
}
