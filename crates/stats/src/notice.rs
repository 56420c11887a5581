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
        }
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
