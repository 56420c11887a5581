//! What a run tells the user beside its numbers: a pitfall it found, a
//! fallback it took, something it did not count. Each is a variant of
//! [`Notice`] with its own message and the option that changes it, collected
//! into the run's result ([`crate::RunResult::notices`]) and rendered by
//! each output format (normal: one block; JSON: a `notices` array).
//!
//! Not notices: the errors of a job that failed (an I/O error, a verify
//! failure), which go to stderr as fio's do.

use std::fmt;

/// One thing the user should know about a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// pvsync2 with hipri=1 on a file whose device has no poll queues:
    /// preadv2 completes RWF_HIPRI I/O by interrupt, so the job is not
    /// measuring polled completions.
    PolledWithoutPollQueues {
        job: String,
        path: String,
        /// What is missing, as the engine found it (sysfs's io_poll).
        why: String,
    },
    /// The kernel refused optional io_uring setup flags, and the ring was
    /// built without them.
    RingFlagsRefused {
        job: String,
        /// The refused flags, by their names (`COOP_TASKRUN|SINGLE_ISSUER`).
        flags: String,
    },
    /// A job asked for io-wq punts to be counted (count_punts=1) and they
    /// could not be.
    PuntsNotCounted {
        /// Why, and what to do about it.
        reason: String,
    },
    /// unlink=1 could not remove a file after its job.
    UnlinkFailed { path: String, error: String },
    /// The clock asked for (clocksource) was not used: CLOCK_MONOTONIC
    /// serves the run instead.
    ClockFallback {
        /// fio's name of the source asked for: `cpu`, `gettimeofday`.
        asked: &'static str,
        reason: String,
    },
    /// A signal stopped the run early: the results cover only what ran
    /// until then.
    Interrupted {
        /// The signal's number (SIGINT 2, SIGTERM 15).
        signal: i32,
    },
    /// ioscheduler= could not be applied to a file's device, which kept
    /// its scheduler (fio prints an error and goes on).
    IoschedulerNotSwitched {
        job: String,
        path: String,
        why: String,
    },
    /// io_uring handed this share of a job's requests to io-wq worker
    /// threads (counted with count_punts=1): each punted request costs a
    /// thread hand-off, so a buffered write through io_uring costs about
    /// three times a pwrite.
    IoWqPunts { job: String, punts: u64, ios: u64 },
    /// A QD1 latency job with no CPU affinity: the scheduler moves it
    /// between CPUs, and each move costs cache warmth and a wake-up.
    Qd1Unpinned { job: String },
    /// CPUs whose frequency governor is not `performance`: they clock down
    /// between I/Os, and each I/O then pays the ramp back up.
    CpuGovernor {
        /// The CPUs, as a list (`0-3,6`).
        cpus: String,
        /// Their governor (the first CPU's, when they differ).
        governor: String,
    },
    /// Idle states with a large exit latency are enabled: a CPU waiting for
    /// an interrupt sinks into them, and waking up adds their exit latency.
    DeepIdleStates {
        /// `name (N µs)` per state, deepest last.
        states: String,
    },
    /// A guest whose idle driver is not haltpoll: every idle vCPU halts
    /// (a VM exit), and the completion interrupt must wake it through the
    /// host.
    GuestWithoutHaltpoll {
        /// The cpuidle driver in use (`none` when there is none).
        driver: String,
    },
    /// The kernel's clocksource is not the TSC: each clock read (the
    /// block layer's timestamps, a CLOCK_MONOTONIC fallback) is slower.
    ClocksourceNotTsc {
        current: String,
        /// Whether the kernel offers tsc to switch to.
        tsc_available: bool,
    },
    /// The device's interrupts are served on other NUMA nodes than the
    /// job's CPUs: every completion crosses the interconnect.
    IrqsOnOtherNode {
        device: String,
        /// The nodes of the CPUs that take the device's interrupts.
        irq_nodes: String,
        /// The nodes of the CPUs the job may run on.
        job_nodes: String,
    },
    /// The block queue keeps I/O statistics (`iostats`): a timestamp and
    /// counter update per I/O.
    IostatsOn { device: String },
    /// The block queue feeds completion timings to the entropy pool
    /// (`add_random`): work per I/O that has nothing to do with it.
    AddRandomOn { device: String },
    /// An I/O scheduler sits in front of a fast non-rotational device: its
    /// queueing and locking add latency to each request.
    SchedulerNotNone { device: String, scheduler: String },
    /// The device's volatile write cache is on (`write back`): writes
    /// complete when they reach the cache, not the media.
    WriteBackCache { device: String },
    /// The run is in a virtual machine: each I/O crosses the hypervisor.
    VirtualMachine {
        /// What gave it away (`hypervisor flag in /proc/cpuinfo`).
        evidence: String,
    },
    /// A write that carries no data (Write Zeroes, Write Uncorrectable,
    /// Verify, trim) was given buffer options: nothing is filled or sent,
    /// so the options change nothing here, while fio fills the buffers of
    /// the commands write_mode makes of writes anyway.
    DatalessWriteWithBuffers {
        job: String,
        /// `Write Zeroes (write_mode=zeroes)` or `trim (rw=trim)`.
        what: String,
        /// The buffer options given, first one first.
        options: Vec<&'static str>,
        /// Whether fio would still fill each buffer (a command write_mode
        /// makes of a write is a write to fio; a trim is not).
        fio_fills: bool,
    },
    /// Latencies landed in the histogram's top bucket (from about 17 s
    /// up, fio issue #1668): percentiles that fall there are floors.
    LatencyAtTopBucket {
        job: String,
        /// `read`, `write` or `trim`.
        dir: &'static str,
        /// How many I/Os sit in the top bucket.
        ios: u64,
        /// Where the top bucket starts, in ns.
        floor_ns: u64,
    },
    /// recover_zbd_write_error could not move the write pointer of a zone
    /// after failed writes to it (fio's "unexpected write pointer
    /// position on error" and its other `log_info` lines): later writes
    /// to the zone may fail as well.
    ZoneWritesNotRecovered {
        job: String,
        path: String,
        /// How many failed writes were left so.
        writes: u64,
        /// Why, the first time.
        why: String,
    },
}

impl Notice {
    /// A stable name for the variant, for JSON readers: never reworded.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::PolledWithoutPollQueues { .. } => "polled_without_poll_queues",
            Notice::RingFlagsRefused { .. } => "ring_flags_refused",
            Notice::PuntsNotCounted { .. } => "punts_not_counted",
            Notice::UnlinkFailed { .. } => "unlink_failed",
            Notice::ClockFallback { .. } => "clock_fallback",
            Notice::Interrupted { .. } => "interrupted",
            Notice::IoschedulerNotSwitched { .. } => "ioscheduler_not_switched",
            Notice::IoWqPunts { .. } => "io_wq_punts",
            Notice::Qd1Unpinned { .. } => "queue_depth_one_unpinned",
            Notice::CpuGovernor { .. } => "cpu_governor",
            Notice::DeepIdleStates { .. } => "deep_idle_states",
            Notice::GuestWithoutHaltpoll { .. } => "guest_without_haltpoll",
            Notice::ClocksourceNotTsc { .. } => "clocksource_not_tsc",
            Notice::IrqsOnOtherNode { .. } => "irqs_on_other_node",
            Notice::IostatsOn { .. } => "iostats_on",
            Notice::AddRandomOn { .. } => "add_random_on",
            Notice::SchedulerNotNone { .. } => "scheduler_not_none",
            Notice::WriteBackCache { .. } => "write_back_cache",
            Notice::VirtualMachine { .. } => "virtual_machine",
            Notice::DatalessWriteWithBuffers { .. } => "dataless_write_with_buffers",
            Notice::LatencyAtTopBucket { .. } => "latency_at_top_bucket",
            Notice::ZoneWritesNotRecovered { .. } => "zone_writes_not_recovered",
        }
    }

    /// The fio option that changes what the notice is about, if one does.
    pub fn option(&self) -> Option<&'static str> {
        match self {
            Notice::PolledWithoutPollQueues { .. } => Some("hipri"),
            // Optional flags the kernel lacks: no option brings them back.
            Notice::RingFlagsRefused { .. } => None,
            Notice::PuntsNotCounted { .. } => Some("count_punts"),
            Notice::UnlinkFailed { .. } => Some("unlink"),
            Notice::ClockFallback { .. } => Some("clocksource"),
            Notice::Interrupted { .. } => None,
            Notice::IoschedulerNotSwitched { .. } => Some("ioscheduler"),
            // The fix most jobs can take; the message names the others.
            Notice::IoWqPunts { .. } => Some("direct"),
            Notice::Qd1Unpinned { .. } => Some("cpus_allowed"),
            // Machine settings, not job options: the message says where.
            Notice::CpuGovernor { .. }
            | Notice::DeepIdleStates { .. }
            | Notice::GuestWithoutHaltpoll { .. }
            | Notice::ClocksourceNotTsc { .. }
            | Notice::IostatsOn { .. }
            | Notice::AddRandomOn { .. }
            | Notice::VirtualMachine { .. } => None,
            Notice::IrqsOnOtherNode { .. } => Some("cpus_allowed"),
            Notice::SchedulerNotNone { .. } => Some("ioscheduler"),
            Notice::WriteBackCache { .. } => Some("sync"),
            Notice::DatalessWriteWithBuffers { options, .. } => options.first().copied(),
            // The percentiles cannot be mended; the per-I/O log has the
            // real values.
            Notice::LatencyAtTopBucket { .. } => Some("write_lat_log"),
            Notice::ZoneWritesNotRecovered { .. } => Some("recover_zbd_write_error"),
        }
    }

    /// What happened and what it means for the results, in one sentence.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::PolledWithoutPollQueues { job, path, why } => write!(
                f,
                "job '{job}': hipri=1 did not poll {path} ({why}), so preadv2 completed \
                 RWF_HIPRI I/O by interrupt; the latencies are interrupt-driven (drop hipri, or \
                 use a device with poll queues)"
            ),
            Notice::RingFlagsRefused { job, flags } => write!(
                f,
                "job '{job}': the kernel refused the optional io_uring setup flags {flags}; \
                 the ring ran without them"
            ),
            Notice::PuntsNotCounted { reason } => {
                write!(f, "count_punts=1 could not count io-wq punts: {reason}")
            }
            Notice::UnlinkFailed { path, error } => {
                write!(f, "unlink=1 could not remove {path}: {error}")
            }
            Notice::ClockFallback { asked, reason } => write!(
                f,
                "clocksource={asked} was not used, CLOCK_MONOTONIC timed the run instead: {reason}"
            ),
            Notice::Interrupted { signal } => write!(
                f,
                "interrupted by {}: the results cover only what ran until then",
                signal_name(*signal)
            ),
            Notice::IoschedulerNotSwitched { job, path, why } => write!(
                f,
                "job '{job}': ioscheduler was not switched for {path}: {why}"
            ),
            Notice::IoWqPunts { job, punts, ios } => write!(
                f,
                "job '{job}': io_uring punted {punts} of {ios} I/Os ({:.1}%) to io-wq worker \
                 threads; a punted request costs a thread hand-off (a buffered write through \
                 io_uring costs about 3x a pwrite), so try direct=1 (O_DIRECT), nowait=1 \
                 (RWF_NOWAIT), or ioengine=pvsync2",
                share(*punts, *ios)
            ),
            Notice::Qd1Unpinned { job } => write!(
                f,
                "job '{job}': a QD1 latency job with no CPU affinity: the scheduler may move it \
                 between CPUs, away from the device's interrupts and its warm caches; set \
                 cpus_allowed (or cpumask) to one CPU"
            ),
            Notice::CpuGovernor { cpus, governor } => write!(
                f,
                "CPUs {cpus} run the '{governor}' frequency governor, not 'performance': they \
                 clock down while waiting for each I/O and pay to ramp back up; set \
                 /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor to performance \
                 (cpupower frequency-set -g performance)"
            ),
            Notice::DeepIdleStates { states } => write!(
                f,
                "deep CPU idle states are enabled ({states}): a CPU idle at QD1 sinks into them \
                 and each completion pays their exit latency; disable them (cpupower idle-set \
                 -D 10, or /sys/devices/system/cpu/cpu*/cpuidle/state*/disable)"
            ),
            Notice::GuestWithoutHaltpoll { driver } => write!(
                f,
                "this guest's cpuidle driver is '{driver}', not haltpoll: an idle vCPU halts \
                 (a VM exit) and each completion interrupt must wake it through the host; \
                 load cpuidle-haltpoll (modprobe cpuidle_haltpoll, Linux 5.4 or later, with \
                 the host's poll-control hint)"
            ),
            Notice::ClocksourceNotTsc {
                current,
                tsc_available,
            } => {
                write!(
                    f,
                    "the kernel's clocksource is {current}, not tsc: every clock read (the \
                     block layer's I/O timestamps, clock_gettime) is slower; "
                )?;
                if *tsc_available {
                    write!(
                        f,
                        "write tsc to \
                         /sys/devices/system/clocksource/clocksource0/current_clocksource"
                    )
                } else {
                    write!(
                        f,
                        "the kernel does not offer tsc here (an unstable TSC, or a guest \
                         without an invariant one); boot with tsc=reliable only if the TSC \
                         is known good"
                    )
                }
            }
            Notice::IrqsOnOtherNode {
                device,
                irq_nodes,
                job_nodes,
            } => write!(
                f,
                "{device}'s interrupts are served on NUMA node {irq_nodes}, the job's CPUs are \
                 on node {job_nodes}: every completion crosses between nodes; set cpus_allowed \
                 to CPUs of node {irq_nodes}"
            ),
            Notice::IostatsOn { device } => write!(
                f,
                "{device} keeps I/O statistics (/sys/block/{device}/queue/iostats is 1): the \
                 block layer takes timestamps and updates counters for each I/O; write 0 there \
                 (disk_util then reads zeroes)"
            ),
            Notice::AddRandomOn { device } => write!(
                f,
                "{device} feeds the entropy pool (/sys/block/{device}/queue/add_random is 1): \
                 work at each completion; write 0 there"
            ),
            Notice::SchedulerNotNone { device, scheduler } => write!(
                f,
                "{device} uses the {scheduler} I/O scheduler: on a fast non-rotational device \
                 its queueing adds latency to each request; use ioscheduler=none (or write \
                 none to /sys/block/{device}/queue/scheduler)"
            ),
            Notice::WriteBackCache { device } => write!(
                f,
                "{device}'s volatile write cache is on (/sys/block/{device}/queue/write_cache \
                 is write back): a write completes when it reaches the cache, not the media; \
                 sync=1 (FUA) or fsync=1 measures durable writes"
            ),
            Notice::VirtualMachine { evidence } => write!(
                f,
                "this is a virtual machine ({evidence}): each I/O crosses the hypervisor \
                 (a notification out, an injected interrupt back), which bare metal does not \
                 pay; for the device's own latency use PCI passthrough (VFIO) or compare \
                 with a bare-metal run"
            ),
            Notice::DatalessWriteWithBuffers {
                job,
                what,
                options,
                fio_fills,
            } => {
                write!(
                    f,
                    "job '{job}': {what} carries no data, so its buffer options ({}) change \
                     nothing: no buffer is filled or sent",
                    options.join(", ")
                )?;
                if *fio_fills {
                    write!(
                        f,
                        " (fio fills each buffer anyway and spends CPU on it, so its figures \
                         and ioscope's differ)"
                    )?;
                }
                write!(f, "; drop {}", options.join(", "))
            }
            Notice::LatencyAtTopBucket {
                job,
                dir,
                ios,
                floor_ns,
            } => write!(
                f,
                "job '{job}': {ios} {dir} I/O(s) took {:.1} s or longer, the latency \
                 histogram's top bucket (fio issue #1668): a percentile that falls there is a \
                 floor, not a value; write_lat_log records each I/O's latency",
                *floor_ns as f64 / 1e9
            ),
            Notice::ZoneWritesNotRecovered {
                job,
                path,
                writes,
                why,
            } => write!(
                f,
                "job '{job}': recover_zbd_write_error did not move the write pointer after \
                 {writes} failed write(s) to {path} ({why}); later writes to those zones may \
                 fail as well"
            ),
        }
    }
}

/// `part` as a percentage of `whole`, 0 when there is no whole.
fn share(part: u64, whole: u64) -> f64 {
    match whole {
        0 => 0.0,
        w => part as f64 * 100.0 / w as f64,
    }
}

/// "SIGINT (signal 2)", as a user would name it to `kill`.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    };
    format!("{name} (signal {signal})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Notice> {
        vec![
            Notice::PolledWithoutPollQueues {
                job: "j".into(),
                path: "/tmp/f".into(),
                why: "vda has no poll queues (/sys/block/vda/queue/io_poll is 0)".into(),
            },
            Notice::RingFlagsRefused {
                job: "j".into(),
                flags: "SINGLE_ISSUER".into(),
            },
            Notice::PuntsNotCounted {
                reason: "tracefs is not mounted".into(),
            },
            Notice::UnlinkFailed {
                path: "/tmp/f".into(),
                error: "Permission denied".into(),
            },
            Notice::ClockFallback {
                asked: "cpu",
                reason: "the CPU has no invariant TSC".into(),
            },
            Notice::Interrupted {
                signal: libc::SIGINT,
            },
            Notice::IoschedulerNotSwitched {
                job: "j".into(),
                path: "/tmp/f".into(),
                why: "/sys/block/zram0/queue/scheduler does not exist".into(),
            },
            Notice::IoWqPunts {
                job: "j".into(),
                punts: 25,
                ios: 100,
            },
            Notice::Qd1Unpinned { job: "j".into() },
            Notice::CpuGovernor {
                cpus: "0-3".into(),
                governor: "powersave".into(),
            },
            Notice::DeepIdleStates {
                states: "C6 (133 µs)".into(),
            },
            Notice::GuestWithoutHaltpoll {
                driver: "none".into(),
            },
            Notice::ClocksourceNotTsc {
                current: "kvm-clock".into(),
                tsc_available: true,
            },
            Notice::IrqsOnOtherNode {
                device: "nvme0n1".into(),
                irq_nodes: "1".into(),
                job_nodes: "0".into(),
            },
            Notice::IostatsOn {
                device: "nvme0n1".into(),
            },
            Notice::AddRandomOn {
                device: "nvme0n1".into(),
            },
            Notice::SchedulerNotNone {
                device: "nvme0n1".into(),
                scheduler: "mq-deadline".into(),
            },
            Notice::WriteBackCache {
                device: "nvme0n1".into(),
            },
            Notice::VirtualMachine {
                evidence: "hypervisor flag in /proc/cpuinfo".into(),
            },
            Notice::DatalessWriteWithBuffers {
                job: "j".into(),
                what: "Write Zeroes (write_mode=zeroes)".into(),
                options: vec!["buffer_pattern", "refill_buffers"],
                fio_fills: true,
            },
            Notice::LatencyAtTopBucket {
                job: "j".into(),
                dir: "read",
                ios: 2,
                floor_ns: 17_179_869_184,
            },
            Notice::ZoneWritesNotRecovered {
                job: "j".into(),
                path: "/dev/nvme0n2".into(),
                writes: 3,
                why: "unexpected write pointer position on error: wp=4259840".into(),
            },
        ]
    }

    #[test]
    fn kinds_are_distinct_and_snake_case() {
        let kinds: Vec<_> = all().iter().map(Notice::kind).collect();
        let mut unique = kinds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), kinds.len(), "{kinds:?}");
        for k in kinds {
            assert!(k.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{k}");
        }
    }

    #[test]
    fn each_message_names_its_option() {
        for n in all() {
            let m = n.message();
            if let Some(option) = n.option() {
                assert!(m.contains(option), "{m} does not name {option}");
            }
        }
    }

    #[test]
    fn the_checklist_says_what_was_seen_and_the_fix() {
        let by_kind = |kind: &str| {
            all()
                .into_iter()
                .find(|n| n.kind() == kind)
                .unwrap()
                .message()
        };
        let punts = by_kind("io_wq_punts");
        assert!(punts.contains("punted 25 of 100 I/Os (25.0%)"), "{punts}");
        for fix in ["direct=1", "nowait=1", "ioengine=pvsync2", "3x a pwrite"] {
            assert!(punts.contains(fix), "{punts} does not name {fix}");
        }
        assert!(by_kind("cpu_governor").contains("CPUs 0-3 run the 'powersave'"));
        assert!(by_kind("deep_idle_states").contains("C6 (133 µs)"));
        assert!(by_kind("guest_without_haltpoll").contains("cpuidle_haltpoll"));
        assert!(by_kind("clocksource_not_tsc").contains("is kvm-clock, not tsc"));
        assert!(by_kind("irqs_on_other_node").contains("node 1, the job's CPUs are on node 0"));
        assert!(by_kind("iostats_on").contains("/sys/block/nvme0n1/queue/iostats is 1"));
        assert!(by_kind("add_random_on").contains("/sys/block/nvme0n1/queue/add_random"));
        assert!(by_kind("write_back_cache").contains("write back"));
        assert!(by_kind("virtual_machine").contains("hypervisor flag in /proc/cpuinfo"));
        let dataless = by_kind("dataless_write_with_buffers");
        assert!(
            dataless.contains("its buffer options (buffer_pattern, refill_buffers) change nothing"),
            "{dataless}"
        );
        assert!(
            dataless.contains("fio fills each buffer anyway"),
            "{dataless}"
        );
        let top = by_kind("latency_at_top_bucket");
        assert!(top.contains("2 read I/O(s) took 17.2 s or longer"), "{top}");
        assert!(top.contains("is a floor"), "{top}");
        let zones = by_kind("zone_writes_not_recovered");
        assert!(
            zones.contains("after 3 failed write(s) to /dev/nvme0n2 (unexpected write pointer"),
            "{zones}"
        );
        // No whole: the share is 0, not NaN.
        let none = Notice::IoWqPunts {
            job: "j".into(),
            punts: 0,
            ios: 0,
        };
        assert!(none.message().contains("(0.0%)"), "{}", none.message());
    }

    #[test]
    fn messages_say_what_happened() {
        let all = all();
        let [polled, ring, punts, unlink, clock, signal] = all[..6].to_vec().try_into().unwrap();
        assert_eq!(polled.option(), Some("hipri"));
        assert!(polled
            .message()
            .contains("/sys/block/vda/queue/io_poll is 0"));
        assert!(polled.message().contains("by interrupt"));
        assert_eq!(ring.option(), None);
        assert!(ring.message().contains("SINGLE_ISSUER"));
        assert_eq!(punts.option(), Some("count_punts"));
        assert!(punts.message().ends_with("tracefs is not mounted"));
        assert_eq!(unlink.option(), Some("unlink"));
        assert_eq!(
            unlink.message(),
            "unlink=1 could not remove /tmp/f: Permission denied"
        );
        assert_eq!(clock.option(), Some("clocksource"));
        assert!(clock.message().starts_with("clocksource=cpu was not used"));
        assert!(clock.message().contains("CLOCK_MONOTONIC"));
        assert_eq!(signal.option(), None);
        assert_eq!(
            signal.message(),
            "interrupted by SIGINT (signal 2): the results cover only what ran until then"
        );
    }
}
