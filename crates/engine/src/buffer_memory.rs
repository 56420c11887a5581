//! Where a queue's buffers come from beside the heap: SysV shared memory,
//! anonymous or file mappings, huge pages (fio's `mem=` kinds, memory.c),
//! and where in that memory the slots start (`iomem_align`).

use std::ffi::CString;
use std::ptr::NonNull;

use crate::error::EngineError;

/// The kind of memory the buffers are made of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum MemoryKind {
    /// The allocator (fio `malloc`); large blocks are anonymous mappings.
    #[default]
    Heap,
    /// A SysV segment (fio `shm`), of huge pages with `huge` (`shmhuge`).
    Shm { huge: bool },
    /// A mapping (fio `mmap`, `mmapshared`, `mmaphuge`): of `file` when
    /// named, anonymous otherwise; shared or private; of huge pages.
    Mmap {
        file: Option<String>,
        shared: bool,
        huge: bool,
    },
}

/// How a queue's buffer memory is made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferMemory {
    pub kind: MemoryKind,
    /// fio `iomem_align`: the first slot starts this many bytes past the
    /// aligned start of the memory (fio's init_io_u adds it to a page
    /// boundary), so a value that is no multiple of the alignment gives
    /// unaligned buffers on purpose.
    pub offset: usize,
    /// fio `hugepage-size`: huge kinds round the size up to this.
    pub hugepage_size: usize,
}

/// Memory from one of the non-heap kinds, released on drop.
pub(crate) struct Region {
    pub ptr: NonNull<u8>,
    pub len: usize,
    release: Release,
}

enum Release {
    Unmap {
        fd: Option<(libc::c_int, Option<CString>)>,
    },
    Shm,
}

impl Region {
    /// `len` bytes of the kind asked for (rounded up to the huge page size
    /// for the huge kinds), page aligned, zeroed where the kernel provides
    /// them fresh.
    pub(crate) fn new(mem: &BufferMemory, len: usize) -> Result<Region, EngineError> {
        let len = if mem.huge() {
            let huge = mem.hugepage_size.max(1);
            len.div_ceil(huge) * huge
        } else {
            len
        }
        .max(1);
        match &mem.kind {
            MemoryKind::Heap => unreachable!("the heap is AlignedBuffer's own"),
            MemoryKind::Shm { huge } => shm(len, *huge),
            MemoryKind::Mmap { file, shared, huge } => mmap(len, file.as_deref(), *shared, *huge),
        }
    }
}

impl BufferMemory {
    fn huge(&self) -> bool {
        matches!(
            self.kind,
            MemoryKind::Shm { huge: true } | MemoryKind::Mmap { huge: true, .. }
        )
    }
}

fn os_error(what: &str, huge: bool) -> EngineError {
    let e = std::io::Error::last_os_error();
    let hint = if huge {
        "; check that huge pages are free (HugePages_Free in /proc/meminfo) and that hugepage-size is right"
    } else {
        ""
    };
    EngineError::Setup(format!("{what} for the I/O buffers failed: {e}{hint}"))
}

fn shm(len: usize, huge: bool) -> Result<Region, EngineError> {
    let mut flags = libc::IPC_CREAT | libc::S_IRUSR as i32 | libc::S_IWUSR as i32;
    if huge {
        flags |= libc::SHM_HUGETLB;
    }
    // SAFETY: a private segment of `len` bytes; the id is checked.
    let id = unsafe { libc::shmget(libc::IPC_PRIVATE, len, flags) };
    if id < 0 {
        return Err(os_error("shmget", huge));
    }
    // SAFETY: attaches the segment just made anywhere; checked below.
    let addr = unsafe { libc::shmat(id, std::ptr::null(), 0) };
    // Marked for removal now, the segment goes when it is detached (or the
    // process dies), so none is left behind.
    // SAFETY: IPC_RMID on our own segment takes no buffer.
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
    if addr as isize == -1 {
        return Err(os_error("shmat", huge));
    }
    Ok(Region {
        ptr: NonNull::new(addr.cast()).expect("shmat gives a mapped address"),
        len,
        release: Release::Shm,
    })
}

fn mmap(len: usize, file: Option<&str>, shared: bool, huge: bool) -> Result<Region, EngineError> {
    let mut fd = None;
    let mut flags;
    if let Some(path) = file {
        let c_path = CString::new(path)
            .map_err(|_| EngineError::Setup(format!("mem=mmap file '{path}' holds a NUL byte")))?;
        // fio removes the file afterwards only when it made it.
        let existed = std::path::Path::new(path).exists();
        // SAFETY: a valid C string; the descriptor is checked.
        let f = unsafe { libc::open(c_path.as_ptr(), libc::O_RDWR | libc::O_CREAT, 0o644) };
        if f < 0 {
            return Err(EngineError::Setup(format!(
                "cannot open the mem=mmap file '{path}': {}",
                std::io::Error::last_os_error()
            )));
        }
        fd = Some((f, (!existed).then_some(c_path)));
        // As fio: a private file mapping gets the file sized to it; a
        // shared or hugetlbfs one uses the file as it is.
        // SAFETY: our descriptor.
        if !huge && !shared && unsafe { libc::ftruncate(f, len as libc::off_t) } < 0 {
            let e = os_error("ftruncate of the mem=mmap file", false);
            release_file(fd);
            return Err(e);
        }
        flags = if huge || shared {
            libc::MAP_SHARED
        } else {
            libc::MAP_PRIVATE
        };
    } else {
        flags = libc::MAP_ANONYMOUS
            | if shared {
                libc::MAP_SHARED
            } else {
                libc::MAP_PRIVATE
            };
        if huge {
            flags |= libc::MAP_HUGETLB;
        }
    }
    // SAFETY: a fresh mapping of our descriptor or anonymous memory; the
    // result is checked.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd.as_ref().map_or(-1, |(f, _)| *f),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        let e = os_error("mmap", huge);
        release_file(fd);
        return Err(e);
    }
    Ok(Region {
        ptr: NonNull::new(addr.cast()).expect("mmap gives a mapped address"),
        len,
        release: Release::Unmap { fd },
    })
}

fn release_file(fd: Option<(libc::c_int, Option<CString>)>) {
    if let Some((f, made)) = fd {
        // SAFETY: our descriptor, closed once.
        unsafe { libc::close(f) };
        if let Some(path) = made {
            // SAFETY: a valid C string naming the file we created.
            unsafe { libc::unlink(path.as_ptr()) };
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        match &mut self.release {
            Release::Shm => {
                // SAFETY: attached in `shm`; nothing refers to it after drop.
                unsafe { libc::shmdt(self.ptr.as_ptr().cast()) };
            }
            Release::Unmap { fd } => {
                // SAFETY: mapped in `mmap` with exactly this length.
                unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
                release_file(fd.take());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(kind: MemoryKind, len: usize) -> Region {
        let mem = BufferMemory {
            kind,
            hugepage_size: 2 << 20,
            ..BufferMemory::default()
        };
        Region::new(&mem, len).unwrap()
    }

    fn touch(r: &Region) {
        // SAFETY: the region's own bytes.
        let s = unsafe { std::slice::from_raw_parts_mut(r.ptr.as_ptr(), r.len) };
        assert!(s.iter().all(|&b| b == 0));
        s.fill(0x5a);
        assert_eq!(s[r.len - 1], 0x5a);
    }

    #[test]
    fn shm_and_anonymous_mappings_are_zeroed_writable_and_page_aligned() {
        for kind in [
            MemoryKind::Shm { huge: false },
            MemoryKind::Mmap {
                file: None,
                shared: false,
                huge: false,
            },
            MemoryKind::Mmap {
                file: None,
                shared: true,
                huge: false,
            },
        ] {
            let r = region(kind.clone(), 12288);
            assert_eq!(r.ptr.as_ptr() as usize % 4096, 0, "{kind:?}");
            assert_eq!(r.len, 12288);
            touch(&r);
        }
    }

    #[test]
    fn a_file_mapping_sizes_the_file_and_removes_what_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("buf");
        let kind = MemoryKind::Mmap {
            file: Some(path.to_str().unwrap().into()),
            shared: false,
            huge: false,
        };
        let r = region(kind, 8192);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 8192);
        touch(&r);
        drop(r);
        assert!(!path.exists());
    }
}
