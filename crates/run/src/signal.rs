//! Ctrl-C stops the workers cleanly: the first SIGINT/SIGTERM records the
//! signal in a flag the workers poll, so the results of what ran are still
//! reported, and the run says which signal stopped it. The handler restores
//! the default action, so a second Ctrl-C kills the process.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The signal that asked the run to stop; 0 while none has.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// Set by SIGUSR1 until the status thread reports.
static STATUS_ASKED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::Relaxed);
    // SAFETY: signal() is async-signal-safe; restoring SIG_DFL makes the next
    // signal of this kind end the process as usual.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

extern "C" fn on_status_signal(_: libc::c_int) {
    STATUS_ASKED.store(true, Ordering::Relaxed);
}

/// Installs the handlers for SIGINT, SIGTERM and SIGUSR1.
pub(crate) fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    let status = on_status_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handlers only touch an atomic and call signal().
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGUSR1, status);
    }
}

/// True once per SIGUSR1 (or several that came together).
pub(crate) fn take_status_request() -> bool {
    STATUS_ASKED.swap(false, Ordering::Relaxed)
}

/// True once the user asked the run to stop.
#[inline]
pub(crate) fn interrupted() -> bool {
    CAUGHT.load(Ordering::Relaxed) != 0
}

/// The signal that asked the run to stop, if one did.
pub(crate) fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::Relaxed) {
        0 => None,
        sig => Some(sig),
    }
}
