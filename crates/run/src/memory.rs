//! The job's memory options at run time: what the I/O buffers are made of
//! (`mem`, `iomem_align`, `hugepage-size`) and the memory `lockmem` pins
//! for the worker's life (fio's memory.c).

use ioscope_engine::{Backend, BufferMemory, MemoryKind, XnvmeMem};
use ioscope_job::{JobSpec, MemKind};

/// The buffers' memory, or why the job cannot have it. Huge pages are
/// checked here, before any target is opened: where the system has none,
/// fio's shmget/mmap fails at the job's start.
pub(crate) fn buffer_memory(spec: &JobSpec) -> Result<BufferMemory, String> {
    let m = &spec.misc.memory;
    // fio's xnvme engine allocates its I/O buffers itself (xnvme_buf_alloc),
    // from huge pages with xnvme_mem=hugepage, whatever mem= says.
    let xnvme_huge =
        spec.ioengine == Backend::Xnvme && spec.engine_options.xnvme.mem == XnvmeMem::Hugepage;
    let kind = match &m.kind {
        _ if xnvme_huge => MemoryKind::Mmap {
            file: None,
            shared: false,
            huge: true,
        },
        MemKind::Malloc => MemoryKind::Heap,
        MemKind::Shm => MemoryKind::Shm { huge: false },
        MemKind::ShmHuge => MemoryKind::Shm { huge: true },
        MemKind::Mmap(file) => MemoryKind::Mmap {
            file: file.clone(),
            shared: false,
            huge: false,
        },
        MemKind::MmapShared(file) => MemoryKind::Mmap {
            file: file.clone(),
            shared: true,
            huge: false,
        },
        MemKind::MmapHuge(file) => MemoryKind::Mmap {
            file: file.clone(),
            shared: false,
            huge: true,
        },
    };
    let huge = matches!(
        kind,
        MemoryKind::Shm { huge: true } | MemoryKind::Mmap { huge: true, .. }
    );
    if huge {
        let total = hugepages_total(&std::fs::read_to_string("/proc/meminfo").unwrap_or_default());
        if total == 0 {
            let (option, instead) = match xnvme_huge {
                true => ("xnvme_mem=hugepage".to_string(), "xnvme_mem=posix"),
                false => (format!("mem={}", mem_name(&m.kind)), "mem=malloc"),
            };
            return Err(format!(
                "{option}: this system has no huge pages (HugePages_Total is 0 in /proc/meminfo); \
                 reserve some in /proc/sys/vm/nr_hugepages or use {instead}"
            ));
        }
    }
    Ok(BufferMemory {
        kind,
        offset: m.align as usize,
        hugepage_size: m.hugepage_size as usize,
    })
}

fn mem_name(kind: &MemKind) -> &'static str {
    match kind {
        MemKind::ShmHuge => "shmhuge",
        _ => "mmaphuge",
    }
}

/// HugePages_Total from /proc/meminfo's text; 0 when absent.
fn hugepages_total(meminfo: &str) -> u64 {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("HugePages_Total:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Memory mlock(2)ed for as long as this lives (fio's fio_pin_memory).
pub(crate) struct LockedMemory {
    addr: *mut libc::c_void,
    len: usize,
}

impl LockedMemory {
    /// Pins `lockmem` bytes of fresh anonymous memory. As fio, no more
    /// than the machine's memory less 128 MiB is pinned.
    pub(crate) fn pin(lockmem: u64) -> Result<Option<LockedMemory>, String> {
        if lockmem == 0 {
            return Ok(None);
        }
        // SAFETY: sysconf reads constants of the system.
        let phys = unsafe {
            (libc::sysconf(libc::_SC_PHYS_PAGES) as u64)
                .saturating_mul(libc::sysconf(libc::_SC_PAGESIZE) as u64)
        };
        let reserve = 128 << 20;
        let len = if phys != 0 && lockmem + reserve > phys {
            phys.saturating_sub(reserve)
        } else {
            lockmem
        } as usize;
        // SAFETY: a fresh anonymous mapping; checked below.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(format!(
                "lockmem={lockmem}: mmap failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: the mapping made above, of `len` bytes.
        if unsafe { libc::mlock(addr, len) } < 0 {
            let e = std::io::Error::last_os_error();
            // SAFETY: as above; unmapped once.
            unsafe { libc::munmap(addr, len) };
            return Err(format!(
                "lockmem={lockmem}: mlock failed: {e} (RLIMIT_MEMLOCK, see ulimit -l)"
            ));
        }
        Ok(Some(LockedMemory { addr, len }))
    }
}

impl Drop for LockedMemory {
    fn drop(&mut self) {
        // SAFETY: mapped and locked in `pin`; released once.
        unsafe {
            libc::munlock(self.addr, self.len);
            libc::munmap(self.addr, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hugepages_total_reads_meminfo() {
        let text = "MemTotal:  100 kB\nHugePages_Total:       8\nHugePages_Free:   8\n";
        assert_eq!(hugepages_total(text), 8);
        assert_eq!(hugepages_total("MemTotal: 1 kB\n"), 0);
    }

    #[test]
    fn lockmem_pins_and_releases() {
        // 64 KiB stays under the default RLIMIT_MEMLOCK of 8 MiB (or 64 KiB
        // on old systems).
        match LockedMemory::pin(64 << 10) {
            Ok(Some(l)) => assert_eq!(l.len, 64 << 10),
            Ok(None) => panic!("64 KiB asked, nothing pinned"),
            Err(e) => assert!(e.contains("RLIMIT_MEMLOCK"), "{e}"),
        }
        assert!(LockedMemory::pin(0).unwrap().is_none());
    }
}
