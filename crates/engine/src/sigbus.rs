//! A file that shrinks under a shared mapping (another process truncates
//! it) raises SIGBUS at the next touch of a page past its new end, which
//! kills the process. For mappings registered here the fault becomes an
//! error instead: the handler maps an anonymous zero page over the faulting
//! page, so the copy in progress completes, and records the fault for the
//! mapping's owner, which checks after each copy (one atomic load) and
//! fails the request.
//!
//! The handler is installed once per process, when the first mapping is
//! registered. A SIGBUS outside every registered mapping goes to the handler
//! that was there before (Rust's stack-overflow handler, or the default
//! action, which ends the process), as if this one were not installed.

use std::sync::atomic::{compiler_fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

/// How many mappings can be guarded at once; a mapping past that works
/// unguarded, as every mapping did before this module.
const SLOTS: usize = 1024;

struct Region {
    /// Start address; 0 while the slot is free.
    start: AtomicUsize,
    /// Length in bytes; 0 while the slot is being claimed or released, so
    /// the handler never matches a half-written entry.
    len: AtomicUsize,
    /// Set once a page of the mapping was lost to a shrunk file.
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // each array element is its own region
const FREE: Region = Region {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static REGIONS: [Region; SLOTS] = [FREE; SLOTS];
static INSTALL: Once = Once::new();
/// What SIGBUS did before the handler was installed.
static PREVIOUS: OnceLock<Previous> = OnceLock::new();
/// False when the handler could not be installed: then nothing is guarded.
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// The page size, read before any fault: sysconf is not async-signal-safe.
static PAGE: AtomicUsize = AtomicUsize::new(4096);

struct Previous(libc::sigaction);

// SAFETY: a plain C struct of addresses and flags, written once before the
// handler that reads it is installed.
unsafe impl Sync for Previous {}
unsafe impl Send for Previous {}

/// A mapping guarded against SIGBUS while this lives.
pub(crate) struct Guard(&'static Region);

impl Guard {
    /// True once a page the file lost was touched. It stays true: the zero
    /// page mapped over the lost one no longer shows the file.
    #[inline]
    pub(crate) fn faulted(&self) -> bool {
        // The handler runs on this thread in the middle of the copy before
        // this call; keep the compiler from reading the flag before the copy.
        compiler_fence(Ordering::SeqCst);
        self.0.faulted.load(Ordering::Relaxed)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.len.store(0, Ordering::Release);
        self.0.start.store(0, Ordering::Release);
    }
}

/// Guards the `len` bytes mapped at `start`, or returns None when no
/// handler could be installed or every slot is taken.
pub(crate) fn guard(start: *mut u8, len: usize) -> Option<Guard> {
    INSTALL.call_once(install);
    if !INSTALLED.load(Ordering::Acquire) {
        return None;
    }
    let start = start as usize;
    REGIONS.iter().find_map(|r| {
        r.start
            .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
            .ok()?;
        r.faulted.store(false, Ordering::Relaxed);
        r.len.store(len, Ordering::Release);
        Some(Guard(r))
    })
}

fn install() {
    // SAFETY: sysconf reads a constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        PAGE.store(page as usize, Ordering::Relaxed);
    }
    // SAFETY: a zeroed sigaction is a valid argument; the old one is only
    // read, and the handler is async-signal-safe (atomics, mmap, and the
    // previous handler's own code).
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
            return;
        }
        // Stored before the handler that reads it can run.
        let _ = PREVIOUS.set(Previous(old));
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()) == 0 {
            INSTALLED.store(true, Ordering::Release);
        }
    }
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // si_code > 0: raised by a fault, not sent by kill(), so si_addr holds
    // the faulting address.
    if code > 0 {
        for r in &REGIONS {
            let start = r.start.load(Ordering::Acquire);
            if start == 0 || addr < start || addr - start >= r.len.load(Ordering::Acquire) {
                continue;
            }
            let page = PAGE.load(Ordering::Relaxed);
            // SAFETY: the page lies inside a mapping this crate made and
            // still owns (registered); replacing it with zeroes changes no
            // memory anyone else uses, and the faulting copy then completes.
            let mapped = unsafe {
                libc::mmap(
                    (addr & !(page - 1)) as *mut libc::c_void,
                    page,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if mapped == libc::MAP_FAILED {
                break;
            }
            r.faulted.store(true, Ordering::Relaxed);
            return;
        }
    }
    chain(sig, info, ctx);
}

/// Hands a SIGBUS that is not ours to what handled it before.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let previous = PREVIOUS.get();
    let handler = previous.map_or(libc::SIG_DFL, |p| p.0.sa_sigaction);
    // SAFETY: the previous handler was installed for SIGBUS with these
    // flags, so it is called as it would have been.
    unsafe {
        match handler {
            libc::SIG_IGN => {}
            libc::SIG_DFL => {
                // The default action ends the process: restore it and raise
                // the signal again; it is delivered when this handler returns.
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
            h if previous.is_some_and(|p| p.0.sa_flags & libc::SA_SIGINFO != 0) => {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(h);
                f(sig, info, ctx);
            }
            h => {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                f(sig);
            }
        }
    }
}
