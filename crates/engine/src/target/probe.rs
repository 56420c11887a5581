//! What the kernel says of a path or a descriptor: stat, the block device
//! ioctls, statx's O_DIRECT alignment, and NVMe Identify.

use std::ffi::CString;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::open::target_error;
use super::NvmeIdentity;
use crate::error::EngineError;
use crate::ioctl::BLKGETSIZE64;
use crate::nvme::{
    identify_controller_of, identify_namespace_of, namespace_id, nvm_limits_of, nvm_namespace_of,
    zoned_namespace_of,
};

pub(crate) fn c_path(path: &Path) -> Result<CString, EngineError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        target_error(
            path,
            "the path contains a NUL byte; give a path without one",
        )
    })
}

pub(crate) fn stat_path(path: &CString) -> io::Result<libc::stat> {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a valid C string and room for one `struct stat`.
    if unsafe { libc::stat(path.as_ptr(), st.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: stat succeeded, so it filled the struct.
    Ok(unsafe { st.assume_init() })
}

pub(crate) fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: room for one `struct stat`.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fstat succeeded, so it filled the struct.
    Ok(unsafe { st.assume_init() })
}

/// Identify Controller and Namespace of an NVMe char device, or `None`
/// when it is not one (or the admin commands are not permitted).
pub(super) fn nvme_identity(fd: RawFd) -> Option<NvmeIdentity> {
    let nsid = namespace_id(fd).ok()?;
    let controller = identify_controller_of(fd).ok()?;
    Some(NvmeIdentity {
        nsid,
        limits: nvm_limits_of(fd, &controller),
        nvm_namespace: nvm_namespace_of(fd, nsid, &controller),
        zoned: zoned_namespace_of(fd, nsid),
        namespace: identify_namespace_of(fd, nsid).ok()?,
        controller,
    })
}

pub(crate) fn block_device_size(fd: RawFd) -> io::Result<u64> {
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    if unsafe { libc::ioctl(fd, BLKGETSIZE64, &mut bytes as *mut u64) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(bytes)
}

pub(super) fn block_device_sector_size(fd: RawFd) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer.
    if unsafe { libc::ioctl(fd, libc::BLKSSZGET, &mut size as *mut libc::c_int) } == -1 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(size).ok().filter(|&s| s > 0).ok_or_else(|| {
        io::Error::other(format!("the device reports a logical block size of {size}"))
    })
}

/// `stx_dio_offset_align` for an open file, when the kernel (6.1+) and the
/// filesystem report it and it is non-zero (zero means the file does not
/// support O_DIRECT, which the open would already have refused).
pub(super) fn direct_io_offset_align(fd: RawFd) -> Option<u32> {
    let mut stx = MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: an empty C path with AT_EMPTY_PATH asks about `fd` itself;
    // the buffer has room for one `struct statx`.
    let rc = unsafe {
        libc::statx(
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            stx.as_mut_ptr(),
        )
    };
    if rc == -1 {
        return None;
    }
    // SAFETY: zero-initialised and (partly) filled by statx; every field is an integer.
    let stx = unsafe { stx.assume_init() };
    if stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return None;
    }
    Some(stx.stx_dio_offset_align)
}
