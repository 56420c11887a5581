//! What the page cache holds of a file.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Pages of the file at `path` resident in the page cache: mincore(2) over
/// a shared read-only mapping of the whole file.
pub fn resident_pages(path: &Path) -> usize {
    let file = File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    let len = file.metadata().unwrap().len() as usize;
    if len == 0 {
        return 0;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    // SAFETY: a fresh shared read-only mapping of the file's `len` bytes;
    // only mincore looks at it, and it is unmapped below.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(addr, libc::MAP_FAILED, "mmap {}", path.display());
    let mut resident = vec![0u8; len.div_ceil(page)];
    // SAFETY: the mapping above; one byte of `resident` per page of it.
    let rc = unsafe { libc::mincore(addr, len, resident.as_mut_ptr()) };
    let err = std::io::Error::last_os_error();
    // SAFETY: the mapping made above, no longer used.
    unsafe { libc::munmap(addr, len) };
    assert_eq!(rc, 0, "mincore {}: {err}", path.display());
    resident.iter().filter(|&&b| b & 1 != 0).count()
}
