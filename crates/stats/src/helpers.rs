//! CPU of the kernel threads io_uring runs on a task's behalf, which fio
//! does not count: the SQ polling thread (`iou-sqp-<tid>`) and the io-wq
//! workers that take requests that could not complete inline
//! (`iou-wrk-<tid>`). Both live in this process's thread list and are named
//! after the thread that created the ring, so each can be charged to the
//! worker that caused it.
//!
//! Workers come and go during a run (an idle io-wq worker exits after a few
//! seconds), so the list is sampled periodically and every thread's last
//! reading is kept. CPU time comes from `/proc/self/task/<tid>/schedstat`,
//! which counts nanoseconds where `stat`'s utime/stime count clock ticks.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::Punts;

/// Which helper a thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelperKind {
    /// `iou-sqp-*`: submits from the SQ ring (IORING_SETUP_SQPOLL).
    SqPoll,
    /// `iou-wrk-*`: io-wq worker running a punted request.
    IoWq,
}

/// What io_uring's helper threads did for one worker (or the sum over
/// several): their CPU, and the requests handed to io-wq.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HelperCpu {
    pub sqpoll_ns: u64,
    pub iowq_ns: u64,
    pub sqpoll_threads: u32,
    pub iowq_threads: u32,
    /// Requests punted to io-wq, counted per worker by a [`PuntCounter`]
    /// rather than read off the thread list.
    ///
    /// [`PuntCounter`]: crate::PuntCounter
    pub punts: Punts,
}

impl HelperCpu {
    pub fn add(&mut self, other: &HelperCpu) {
        self.sqpoll_ns += other.sqpoll_ns;
        self.iowq_ns += other.iowq_ns;
        self.sqpoll_threads += other.sqpoll_threads;
        self.iowq_threads += other.iowq_threads;
        self.punts = self.punts.plus(other.punts);
    }

    /// What was spent since `earlier` (threads that appeared since count
    /// whole). The punts are this reading's: their counter starts at the
    /// same point on its own.
    pub fn since(&self, earlier: &HelperCpu) -> HelperCpu {
        HelperCpu {
            sqpoll_ns: self.sqpoll_ns.saturating_sub(earlier.sqpoll_ns),
            iowq_ns: self.iowq_ns.saturating_sub(earlier.iowq_ns),
            sqpoll_threads: self.sqpoll_threads,
            iowq_threads: self.iowq_threads,
            punts: self.punts,
        }
    }

    pub fn total_ns(&self) -> u64 {
        self.sqpoll_ns + self.iowq_ns
    }
}

#[derive(Clone, Copy, Debug)]
struct Seen {
    kind: HelperKind,
    owner: i32,
    cpu_ns: u64,
}

/// Every helper thread seen in this process, with its latest CPU reading.
/// Shared by every worker of a phase and the thread that samples it.
#[derive(Debug, Default)]
pub struct HelperTracker {
    known: Mutex<Known>,
}

#[derive(Debug, Default)]
struct Known {
    seen: HashMap<i32, Seen>,
    /// Living threads known not to be helpers (the workers), whose names
    /// are not read: every ring's worker reads the list as it ends, so
    /// reading every name costs workers × threads reads.
    not_helpers: HashSet<i32>,
}

/// A helper thread found by one reading of the list.
struct Found {
    tid: i32,
    seen: Seen,
}

impl HelperTracker {
    /// Marks the calling thread as no helper: [`sample`](Self::sample)
    /// skips it while it lives. Only a thread can say this of itself, as a
    /// helper starts with its creator's name and renames itself once it
    /// runs, so a name read from outside can be a helper's first one.
    pub fn not_a_helper(&self) {
        self.known().not_helpers.insert(current_tid());
    }

    /// Reads the process's thread list once. Cheap enough to call every
    /// 100 ms; never called per I/O.
    ///
    /// The list is read without holding the lock: on CPUs shared with a
    /// thousand busy workers one reading can wait long for its turns, and
    /// every worker that starts or ends would wait with it.
    pub fn sample(&self) {
        let skip = self.known().not_helpers.clone();
        let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
            return;
        };
        let mut living = HashSet::with_capacity(skip.len());
        let mut found = Vec::new();
        for entry in dir.flatten() {
            let Some(tid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<i32>().ok())
            else {
                continue;
            };
            if skip.contains(&tid) {
                living.insert(tid);
                continue;
            }
            let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) else {
                continue;
            };
            let Some((kind, owner)) = parse_helper_name(comm.trim_end()) else {
                continue;
            };
            let Some(cpu_ns) = std::fs::read_to_string(entry.path().join("schedstat"))
                .ok()
                .and_then(|s| parse_schedstat(&s))
            else {
                continue;
            };
            found.push(Found {
                tid,
                seen: Seen {
                    kind,
                    owner,
                    cpu_ns,
                },
            });
        }
        let mut known = self.known();
        for f in found {
            let e = known.seen.entry(f.tid).or_insert(f.seen);
            e.cpu_ns = e.cpu_ns.max(f.seen.cpu_ns);
        }
        // A thread that has exited leaves its id free for the kernel to
        // give to a new helper once its pid counter wraps. Those marked
        // while the list was read were not looked for: they stay.
        known
            .not_helpers
            .retain(|tid| living.contains(tid) || !skip.contains(tid));
    }

    fn known(&self) -> MutexGuard<'_, Known> {
        // The tracker's data stays whole if a holder panicked.
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the helpers created by thread `owner` spent. With SQ polling
    /// the SQ thread issues the requests, so the io-wq workers it spawns
    /// are named after it: they are charged to the SQ thread's owner too.
    pub fn for_owner(&self, owner: i32) -> HelperCpu {
        let known = self.known();
        let sq_threads: Vec<i32> = known
            .seen
            .iter()
            .filter(|(_, s)| s.kind == HelperKind::SqPoll && s.owner == owner)
            .map(|(&tid, _)| tid)
            .collect();
        let mut cpu = HelperCpu::default();
        let mine = |s: &&Seen| s.owner == owner || sq_threads.contains(&s.owner);
        for s in known.seen.values().filter(mine) {
            match s.kind {
                HelperKind::SqPoll => {
                    cpu.sqpoll_ns += s.cpu_ns;
                    cpu.sqpoll_threads += 1;
                }
                HelperKind::IoWq => {
                    cpu.iowq_ns += s.cpu_ns;
                    cpu.iowq_threads += 1;
                }
            }
        }
        cpu
    }
}

/// `iou-sqp-1234` → (SqPoll, 1234).
pub fn parse_helper_name(comm: &str) -> Option<(HelperKind, i32)> {
    let (kind, owner) = if let Some(rest) = comm.strip_prefix("iou-sqp-") {
        (HelperKind::SqPoll, rest)
    } else if let Some(rest) = comm.strip_prefix("iou-wrk-") {
        (HelperKind::IoWq, rest)
    } else {
        return None;
    };
    Some((kind, owner.parse().ok()?))
}

/// The first field of schedstat: nanoseconds spent running.
fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The calling thread's id.
pub fn current_tid() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

/// CPU of the whole process (every thread, living or exited, helpers
/// included) — the total the per-thread figures are reconciled with.
pub fn process_cpu() -> crate::ThreadCpu {
    // SAFETY: rusage is plain data; RUSAGE_SELF cannot fail.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
    }
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    crate::ThreadCpu {
        user_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
        ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
        majf: ru.ru_majflt as u64,
        minf: ru.ru_minflt as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_names_name_their_owner() {
        assert_eq!(
            parse_helper_name("iou-sqp-4242"),
            Some((HelperKind::SqPoll, 4242))
        );
        assert_eq!(
            parse_helper_name("iou-wrk-17"),
            Some((HelperKind::IoWq, 17))
        );
        assert_eq!(parse_helper_name("ioscope"), None);
        assert_eq!(parse_helper_name("iou-wrk-x"), None);
    }

    #[test]
    fn schedstat_gives_nanoseconds() {
        assert_eq!(parse_schedstat("123456789 2000 17\n"), Some(123_456_789));
        assert_eq!(parse_schedstat(""), None);
    }

    #[test]
    fn this_thread_has_a_schedstat() {
        let tid = current_tid();
        let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat"))
            .expect("schedstat exists on Linux with CONFIG_SCHED_INFO");
        assert!(parse_schedstat(&text).is_some(), "{text}");
    }

    #[test]
    fn io_wq_workers_of_an_sq_thread_belong_to_its_owner() {
        let t = HelperTracker::default();
        let seen = |kind, owner, cpu_ns| Seen {
            kind,
            owner,
            cpu_ns,
        };
        {
            let mut known = t.known();
            known.seen.insert(200, seen(HelperKind::SqPoll, 100, 5));
            known.seen.insert(201, seen(HelperKind::IoWq, 200, 7));
            known.seen.insert(301, seen(HelperKind::IoWq, 300, 11));
        }
        assert_eq!(
            t.for_owner(100),
            HelperCpu {
                sqpoll_ns: 5,
                iowq_ns: 7,
                sqpoll_threads: 1,
                iowq_threads: 1,
                ..HelperCpu::default()
            }
        );
        assert_eq!(t.for_owner(300).iowq_ns, 11);
    }

    #[test]
    fn since_leaves_what_was_spent_before_the_ramp_ended() {
        let before = HelperCpu {
            sqpoll_ns: 10,
            iowq_ns: 4,
            sqpoll_threads: 1,
            iowq_threads: 1,
            punts: Punts::Counted(3),
        };
        let after = HelperCpu {
            sqpoll_ns: 25,
            iowq_ns: 9,
            sqpoll_threads: 1,
            iowq_threads: 2,
            punts: Punts::Counted(8),
        };
        assert_eq!(
            after.since(&before),
            HelperCpu {
                sqpoll_ns: 15,
                iowq_ns: 5,
                sqpoll_threads: 1,
                iowq_threads: 2,
                punts: Punts::Counted(8),
            }
        );
    }

    #[test]
    fn sampling_an_ordinary_process_finds_no_helpers() {
        let t = HelperTracker::default();
        t.sample();
        assert_eq!(t.for_owner(current_tid()), HelperCpu::default());
    }

    #[test]
    fn a_thread_that_said_it_is_no_helper_is_forgotten_once_it_exits() {
        let t = HelperTracker::default();
        t.not_a_helper();
        let gone = std::thread::scope(|s| {
            s.spawn(|| {
                t.not_a_helper();
                current_tid()
            })
            .join()
            .expect("the thread does not panic")
        });
        // join returns once the thread is done with its work, a moment
        // before the kernel drops it from the list.
        for _ in 0..1000 {
            t.sample();
            if !t.known().not_helpers.contains(&gone) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let known = t.known();
        assert!(!known.not_helpers.contains(&gone), "{gone} still skipped");
        assert!(known.not_helpers.contains(&current_tid()));
    }

    #[test]
    fn the_process_total_covers_this_thread() {
        let mine = crate::ThreadCpu::now();
        let all = process_cpu();
        assert!(all.user_ns + all.sys_ns >= mine.user_ns + mine.sys_ns);
    }
}
