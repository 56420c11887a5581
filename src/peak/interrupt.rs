//! Ctrl-C ends a run cleanly: the first SIGINT sets a flag that the
//! reporter polls; a second one, with the default action back in place,
//! kills the process as usual should the run not stop.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // An atomic store is async-signal-safe.
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Installs the SIGINT handler (once, for the first Ctrl-C only).
pub fn catch_sigint() -> io::Result<()> {
    // SAFETY: a zeroed sigaction is valid; the handler only stores to an
    // atomic, which is async-signal-safe.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigint as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_RESTART | libc::SA_RESETHAND;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(libc::SIGINT, &act, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// True once Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
