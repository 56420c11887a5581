//! CPU time, context switches and faults of the calling thread.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadCpu {
    pub user_ns: u64,
    pub sys_ns: u64,
    /// Voluntary plus involuntary context switches.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

fn timeval_ns(tv: libc::timeval) -> u64 {
    tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000
}

impl ThreadCpu {
    /// getrusage(RUSAGE_THREAD) of the calling thread.
    pub fn now() -> ThreadCpu {
        // SAFETY: rusage is plain data for which all-zero bytes are valid.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: ru is a valid rusage to write to. RUSAGE_THREAD exists
        // since Linux 2.6.26, so the call cannot fail.
        unsafe {
            libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
        }
        ThreadCpu {
            user_ns: timeval_ns(ru.ru_utime),
            sys_ns: timeval_ns(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            majf: ru.ru_majflt as u64,
            minf: ru.ru_minflt as u64,
        }
    }

    /// What was spent between `earlier` and `self`.
    pub fn since(&self, earlier: &ThreadCpu) -> ThreadCpu {
        ThreadCpu {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }

    /// The times cut down to whole milliseconds, which is how fio keeps
    /// them (usr_time/sys_time, via mtime_since_tv) before computing and
    /// summing CPU percentages.
    pub fn whole_ms(&self) -> ThreadCpu {
        ThreadCpu {
            user_ns: self.user_ns / 1_000_000 * 1_000_000,
            sys_ns: self.sys_ns / 1_000_000 * 1_000_000,
            ..*self
        }
    }

    pub fn add(&mut self, other: &ThreadCpu) {
        self.user_ns += other.user_ns;
        self.sys_ns += other.sys_ns;
        self.ctx += other.ctx;
        self.majf += other.majf;
        self.minf += other.minf;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins for a while and touches a fresh mapping: user time and minor
    /// faults for the calling thread.
    fn work() {
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let len = 1 << 20;
        // SAFETY: a fresh private anonymous mapping, written within bounds
        // and unmapped before returning.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            for off in (0..len).step_by(4096) {
                std::ptr::write_volatile((p as *mut u8).add(off), 1);
            }
            libc::munmap(p, len);
        }
    }

    #[test]
    fn counts_this_threads_work() {
        let before = ThreadCpu::now();
        work();
        let mut spent = ThreadCpu::now().since(&before);
        // 256 pages touched; a few may have been prefaulted together.
        assert!(spent.minf > 0);
        // The kernel keeps a thread's user and system times from going
        // back (cputime_adjust), so on a busy machine one round's time can
        // be absorbed into what an earlier reading already showed: the
        // work goes on until the times move, which they must within 2 s.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while spent.user_ns + spent.sys_ns == 0 && std::time::Instant::now() < deadline {
            work();
            spent = ThreadCpu::now().since(&before);
        }
        assert!(spent.user_ns + spent.sys_ns > 0);
    }

    #[test]
    fn another_threads_work_is_not_ours() {
        let here = ThreadCpu::now();
        // Page faults alone are system time, and a thread that short can be
        // charged no user time at all (the kernel splits its runtime by
        // tick samples), so the other thread also spins until its own user
        // time passes 10 ms.
        let theirs = std::thread::spawn(|| {
            let start = ThreadCpu::now();
            work();
            let mut x = 0u64;
            while ThreadCpu::now().since(&start).user_ns < 10_000_000 {
                for i in 0..100_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
                }
            }
            ThreadCpu::now().since(&start)
        })
        .join()
        .unwrap();
        let ours = ThreadCpu::now().since(&here);
        // We only waited in join; the other thread did all the work.
        assert!(ours.minf < theirs.minf);
        assert!(ours.user_ns < theirs.user_ns, "{ours:?} {theirs:?}");
    }

    #[test]
    fn since_and_add_are_inverse() {
        let a = ThreadCpu {
            user_ns: 10,
            sys_ns: 20,
            ctx: 3,
            majf: 1,
            minf: 7,
        };
        let b = ThreadCpu {
            user_ns: 15,
            sys_ns: 26,
            ctx: 5,
            majf: 1,
            minf: 9,
        };
        let d = b.since(&a);
        assert_eq!(
            d,
            ThreadCpu {
                user_ns: 5,
                sys_ns: 6,
                ctx: 2,
                majf: 0,
                minf: 2
            }
        );
        let mut sum = a;
        sum.add(&d);
        assert_eq!(sum, b);
        // Never negative, even if readings are swapped.
        assert_eq!(a.since(&b), ThreadCpu::default());
    }

    #[test]
    fn whole_ms_truncates_times_only() {
        let t = ThreadCpu {
            user_ns: 2_999_999,
            sys_ns: 1_000_000,
            ctx: 3,
            majf: 4,
            minf: 5,
        };
        let w = t.whole_ms();
        assert_eq!(
            w,
            ThreadCpu {
                user_ns: 2_000_000,
                sys_ns: 1_000_000,
                ..t
            }
        );
        assert_eq!(w.whole_ms(), w);
    }
}
