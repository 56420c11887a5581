//! The kernel's AIO interface, from include/uapi/linux/aio_abi.h: the iocb
//! and io_event layouts, the completion ring the kernel maps into the
//! process, and the context made by io_setup.

use std::io;
use std::mem::size_of;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;

use crate::error::{Advice, EngineError, Knob};

// The kernel ABI, from include/uapi/linux/aio_abi.h.

pub(super) const IOCB_CMD_PREAD: u16 = 0;
pub(super) const IOCB_CMD_PWRITE: u16 = 1;
pub(super) const IOCB_CMD_FSYNC: u16 = 2;
pub(super) const IOCB_CMD_FDSYNC: u16 = 3;
pub(super) const IOCB_CMD_PREADV: u16 = 7;
pub(super) const IOCB_CMD_PWRITEV: u16 = 8;
/// `aio_flags`: the kernel takes the request's priority from aio_reqprio.
pub(super) const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb`. `aio_key` and `aio_rw_flags` share a 64-bit word whose
/// halves are swapped on big-endian machines (the header's PADDED macro).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Iocb {
    pub(super) aio_data: u64,
    #[cfg(target_endian = "little")]
    pub(super) aio_key: u32,
    pub(super) aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    pub(super) aio_key: u32,
    pub(super) aio_lio_opcode: u16,
    pub(super) aio_reqprio: i16,
    pub(super) aio_fildes: u32,
    pub(super) aio_buf: u64,
    pub(super) aio_nbytes: u64,
    pub(super) aio_offset: i64,
    pub(super) aio_reserved2: u64,
    pub(super) aio_flags: u32,
    pub(super) aio_resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct IoEvent {
    /// The iocb's `aio_data`: the request's slot.
    pub(super) data: u64,
    pub(super) obj: u64,
    /// Bytes transferred, or a negative errno.
    pub(super) res: i64,
    pub(super) res2: i64,
}

/// The header of the completion ring the kernel maps at the address that
/// io_setup returns as the context id (`struct aio_ring` in fs/aio.c);
/// `nr` io_events follow it.
#[repr(C)]
pub(super) struct AioRing {
    pub(super) id: u32,
    pub(super) nr: u32,
    /// Next event to reap; written by whoever reaps (us, or the kernel in
    /// io_getevents).
    pub(super) head: AtomicU32,
    /// Next event the kernel fills; it stores the events before the tail.
    pub(super) tail: AtomicU32,
    pub(super) magic: u32,
    pub(super) compat_features: u32,
    pub(super) incompat_features: u32,
    pub(super) header_length: u32,
}

pub(super) const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

const _: () = assert!(size_of::<Iocb>() == 64);
const _: () = assert!(size_of::<IoEvent>() == 32);
const _: () = assert!(size_of::<AioRing>() == 32);

/// An AIO context, destroyed on drop. io_destroy waits for every request
/// still in flight, so once it returns the kernel no longer writes into the
/// queue's buffers.
pub(super) struct AioContext(pub(super) libc::c_ulong);

impl AioContext {
    pub(super) fn new(depth: u32) -> Result<AioContext, EngineError> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes one aio_context_t through the pointer,
        // which must point to 0.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut ctx as *mut libc::c_ulong,
            )
        };
        if r != 0 {
            return Err(setup_error(depth, io::Error::last_os_error()));
        }
        Ok(AioContext(ctx))
    }
}

impl Drop for AioContext {
    fn drop(&mut self) {
        // SAFETY: the context is ours and destroyed once. It can only fail
        // for a context that does not exist, which would be a bug here and
        // leaves nothing to clean up.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.0) };
    }
}

#[cold]
pub(super) fn setup_error(depth: u32, e: io::Error) -> EngineError {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/fs/{name}"))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "?".to_owned())
    };
    let (what, fix) = match e.raw_os_error() {
        Some(libc::EAGAIN) => (
            format!(
                "io_setup({depth}) failed ({e}): the system-wide AIO limit would be exceeded \
                 (/proc/sys/fs/aio-max-nr is {}, /proc/sys/fs/aio-nr shows {} in use)",
                read("aio-max-nr"),
                read("aio-nr")
            ),
            vec![
                Advice::Other("raise fs.aio-max-nr (sysctl -w fs.aio-max-nr=N)".into()),
                Advice::Lower(Knob::Depth),
                Advice::Lower(Knob::Jobs),
            ],
        ),
        Some(libc::EINVAL) => (
            format!(
                "io_setup({depth}) failed ({e}): queue depth {depth} is larger than Linux AIO \
                 allows"
            ),
            vec![Advice::Lower(Knob::Depth)],
        ),
        Some(libc::ENOSYS) => (
            format!(
                "io_setup failed ({e}): this kernel has no native AIO (built without \
                 CONFIG_AIO, or blocked by a seccomp filter)"
            ),
            vec![
                Advice::Use(Knob::Engine, "io_uring"),
                Advice::Use(Knob::Engine, "pvsync2"),
            ],
        ),
        _ => (format!("io_setup({depth}) failed: {e}"), vec![]),
    };
    EngineError::Refused { what, fix }
}

/// The context's completion ring, checked to have the layout this code
/// reads.
pub(super) fn user_ring(ctx: &AioContext) -> Result<NonNull<AioRing>, EngineError> {
    let ring = NonNull::new(ctx.0 as *mut AioRing).ok_or_else(|| {
        EngineError::Setup("io_setup returned a null context; cannot use userspace_reap".into())
    })?;
    // SAFETY: on Linux the context id is the address of the ring mapping,
    // whose first page holds the header.
    let (magic, incompat, header, nr) = unsafe {
        let r = ring.as_ref();
        (r.magic, r.incompat_features, r.header_length, r.nr)
    };
    if magic != AIO_RING_MAGIC
        || incompat != 0
        || header as usize != size_of::<AioRing>()
        || nr == 0
    {
        return Err(EngineError::Setup(format!(
            "userspace_reap: this kernel's AIO completion ring has an unknown layout \
             (magic {magic:#x}, incompat features {incompat:#x}, header {header} bytes, \
             {nr} events); drop userspace_reap"
        )));
    }
    Ok(ring)
}
