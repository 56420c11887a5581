//! Requests io_uring handed to an io-wq worker ("punted") instead of
//! completing them inline, counted by the kernel itself: every punt fires
//! the `io_uring:io_uring_queue_async_work` tracepoint (Linux 5.5 and
//! later), and a perf counter on that tracepoint, opened for one worker
//! thread, counts the punts of that thread and of the threads it creates
//! afterwards — its SQ polling thread, which submits on its behalf, and its
//! io-wq workers. The counter counts in the kernel and is read twice per
//! run (when measuring begins and at the end), never per I/O.
//!
//! A perf event on a thread makes each of its context switches dearer: at
//! QD1 on zram, where every request is punted and the thread sleeps per
//! I/O, IOPS fell by about 12%. So a job counts only when it asks
//! (`count_punts=1`). Counting also needs the tracepoint's id from tracefs
//! and the right to count a kernel event (root, or CAP_PERFMON with access
//! to tracefs). Where any of these is missing, the reports say the punts
//! were not counted, and why.

use std::io;
use std::path::Path;

use perf_event::events::Tracepoint;
use perf_event::{Builder, Counter};

use crate::Notice;

/// Where tracefs is mounted: its own mount point, or under debugfs on
/// older systems.
const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];
const EVENT: &str = "events/io_uring/io_uring_queue_async_work/id";

/// Why punts could not be counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PuntsUncounted {
    /// The job did not ask (`count_punts=0`, the default): a counter on a
    /// thread costs it some time at every context switch.
    NotAsked,
    /// tracefs, where the tracepoint's id is read, is not mounted.
    NoTracefs,
    /// The kernel has no io_uring_queue_async_work tracepoint.
    NoTracepoint,
    /// Reading the id or counting a kernel event was refused.
    NotPermitted,
    /// perf_event_open failed with this errno.
    PerfFailed(i32),
}

impl PuntsUncounted {
    /// What went wrong and what to do, for the reports.
    pub fn reason(self) -> String {
        match self {
            PuntsUncounted::NotAsked => "not asked for (count_punts=1 counts them)".into(),
            PuntsUncounted::NoTracefs => "tracefs is not mounted \
                 (mount -t tracefs nodev /sys/kernel/tracing)"
                .into(),
            PuntsUncounted::NoTracepoint => {
                "the kernel has no io_uring:io_uring_queue_async_work tracepoint".into()
            }
            PuntsUncounted::NotPermitted => "counting a kernel tracepoint needs root \
                 (or CAP_PERFMON and read access to tracefs)"
                .into(),
            PuntsUncounted::PerfFailed(errno) => format!(
                "perf_event_open on the io_uring_queue_async_work tracepoint failed: {}",
                io::Error::from_raw_os_error(errno)
            ),
        }
    }
}

/// Requests punted to io-wq, or why they were not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Punts {
    Counted(u64),
    Uncounted(PuntsUncounted),
}

impl Default for Punts {
    /// A worker whose engine has no io_uring punts nothing.
    fn default() -> Punts {
        Punts::Counted(0)
    }
}

impl Punts {
    /// The sum over several workers; not counted if any one was not. A
    /// failure to count outranks a job that did not ask, so the reason the
    /// report gives is the one the user can act on.
    pub fn plus(self, other: Punts) -> Punts {
        use PuntsUncounted::NotAsked;
        match (self, other) {
            (Punts::Counted(a), Punts::Counted(b)) => Punts::Counted(a + b),
            (Punts::Uncounted(NotAsked), Punts::Uncounted(why))
            | (Punts::Uncounted(why), _)
            | (_, Punts::Uncounted(why)) => Punts::Uncounted(why),
        }
    }

    pub fn counted(self) -> Option<u64> {
        match self {
            Punts::Counted(n) => Some(n),
            Punts::Uncounted(_) => None,
        }
    }

    /// The notice a run carries when punts were asked for (count_punts=1)
    /// and could not be counted. Not asking is the default, not news.
    pub fn notice(self) -> Option<Notice> {
        match self {
            Punts::Counted(_) | Punts::Uncounted(PuntsUncounted::NotAsked) => None,
            Punts::Uncounted(why) => Some(Notice::PuntsNotCounted {
                reason: why.reason(),
            }),
        }
    }
}

/// A worker's punts over its measured period.
pub enum PuntTally {
    /// The engine has no io_uring: nothing can be punted.
    NoRing,
    Counting {
        counter: PuntCounter,
        /// The count when measuring began.
        base: u64,
    },
    Uncounted(PuntsUncounted),
}

impl PuntTally {
    /// Starts counting for the calling thread when its engine uses
    /// io_uring and the job asked for it. Call it before the thread creates
    /// its ring.
    pub fn start(uses_io_uring: bool, asked: bool) -> PuntTally {
        if !uses_io_uring {
            return PuntTally::NoRing;
        }
        if !asked {
            return PuntTally::Uncounted(PuntsUncounted::NotAsked);
        }
        match PuntCounter::open() {
            Ok(counter) => PuntTally::Counting { counter, base: 0 },
            Err(why) => PuntTally::Uncounted(why),
        }
    }

    /// Measuring begins now (the ramp is over): earlier punts are left out.
    pub fn restart(&mut self) {
        if let PuntTally::Counting { counter, base } = self {
            match counter.read() {
                Ok(n) => *base = n,
                Err(why) => *self = PuntTally::Uncounted(why),
            }
        }
    }

    /// Punts since measuring began.
    pub fn punts(&mut self) -> Punts {
        match self {
            PuntTally::NoRing => Punts::Counted(0),
            PuntTally::Counting { counter, base } => match counter.read() {
                Ok(n) => Punts::Counted(n.saturating_sub(*base)),
                Err(why) => Punts::Uncounted(why),
            },
            PuntTally::Uncounted(why) => Punts::Uncounted(*why),
        }
    }
}

/// A running count of the calling thread's punts (and its descendants').
pub struct PuntCounter(Counter);

impl PuntCounter {
    /// Starts counting for the calling thread. Open it before the thread
    /// creates its ring, so that the ring's SQ thread and io-wq workers
    /// inherit the counter.
    pub fn open() -> Result<PuntCounter, PuntsUncounted> {
        let id = tracepoint_id()?;
        let mut counter = Builder::new(Tracepoint::with_id(id))
            .observe_self()
            .any_cpu()
            .inherit(true)
            .include_kernel()
            .build()
            .map_err(open_error)?;
        counter.enable().map_err(open_error)?;
        Ok(PuntCounter(counter))
    }

    /// Punts so far.
    pub fn read(&mut self) -> Result<u64, PuntsUncounted> {
        self.0.read().map_err(open_error)
    }
}

fn open_error(e: io::Error) -> PuntsUncounted {
    match e.raw_os_error() {
        Some(libc::EACCES | libc::EPERM) => PuntsUncounted::NotPermitted,
        Some(errno) => PuntsUncounted::PerfFailed(errno),
        None => PuntsUncounted::PerfFailed(libc::EIO),
    }
}

/// The tracepoint's id, from the first tracefs that is mounted.
fn tracepoint_id() -> Result<u64, PuntsUncounted> {
    let mut why = PuntsUncounted::NoTracefs;
    for root in TRACEFS {
        let root = Path::new(root);
        match std::fs::read_to_string(root.join(EVENT)) {
            Ok(text) => {
                return text
                    .trim()
                    .parse()
                    .map_err(|_| PuntsUncounted::NoTracepoint)
            }
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                why = PuntsUncounted::NotPermitted;
            }
            // tracefs is there but this event is not.
            Err(_) if root.join("events").is_dir() && why == PuntsUncounted::NoTracefs => {
                why = PuntsUncounted::NoTracepoint;
            }
            Err(_) => {}
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_stay_counted_only_while_every_part_was() {
        let c = Punts::Counted;
        assert_eq!(c(3).plus(c(4)), c(7));
        let u = Punts::Uncounted(PuntsUncounted::NoTracefs);
        assert_eq!(c(3).plus(u), u);
        assert_eq!(u.plus(c(3)), u);
        assert_eq!(u.plus(c(3)).counted(), None);
        let unasked = Punts::Uncounted(PuntsUncounted::NotAsked);
        assert_eq!(unasked.plus(u), u, "the failure is the reason to give");
        assert_eq!(u.plus(unasked), u);
        assert_eq!(unasked.plus(c(3)), unasked);
        assert_eq!(Punts::default(), c(0));
    }

    #[test]
    fn every_reason_says_what_to_do_or_what_failed() {
        assert!(PuntsUncounted::NoTracefs
            .reason()
            .contains("mount -t tracefs"));
        assert!(PuntsUncounted::NotPermitted.reason().contains("root"));
        let failed = PuntsUncounted::PerfFailed(libc::ENODEV).reason();
        assert!(failed.contains("No such device"), "{failed}");
    }

    /// Where counting works, a thread that punted nothing reads zero and
    /// the count does not move while it does no io_uring I/O.
    #[test]
    fn a_thread_without_punts_counts_zero() {
        ioscope_testutil::require!(ioscope_testutil::punt_counter());
        let mut counter = match PuntCounter::open() {
            Ok(c) => c,
            Err(why) => panic!("root with the tracepoint, yet: {}", why.reason()),
        };
        assert_eq!(counter.read(), Ok(0));
        let _ = std::fs::read_to_string("/proc/self/stat");
        assert_eq!(counter.read(), Ok(0));
    }
}
