//! Where the I/O buffers' memory comes from (fio's `mem` and companions).

use super::{Kind, OptionDef};
use crate::misc_spec::MemKind;

const MEMORY: OptionDef = OptionDef::of("Buffers and memory");

const MEM_VALUES: &[(&str, &str)] = &[
    ("malloc", "Use malloc(3) for IO buffers"),
    ("shm", "Use shared memory segments for IO buffers"),
    ("shmhuge", "Like shm, but use huge pages"),
    ("mmap", "Use mmap(2) (file or anon) for IO buffers"),
    ("mmapshared", "Like mmap, but use the shared flag"),
    ("mmaphuge", "Like mmap, but use huge pages"),
];

/// `mmap:/path` and the like: the kind, and the file after the colon.
fn mem_kind(text: &str) -> Result<MemKind, String> {
    let (name, file) = match text.split_once(':') {
        Some((n, f)) => (n, Some(f.to_string()).filter(|f| !f.is_empty())),
        None => (text, None),
    };
    let no_file = |kind: MemKind| match &file {
        Some(_) => Err(format!("mem={name} takes no file (only the mmap kinds do)")),
        None => Ok(kind),
    };
    match name {
        "malloc" => no_file(MemKind::Malloc),
        "shm" => no_file(MemKind::Shm),
        "shmhuge" => no_file(MemKind::ShmHuge),
        "mmap" => Ok(MemKind::Mmap(file)),
        "mmaphuge" => Ok(MemKind::MmapHuge(file)),
        "mmapshared" => Ok(MemKind::MmapShared(file)),
        "cudamalloc" => Err(
            "cudamalloc needs CUDA (GPU memory for the rdma engine), which ioscope does not have"
                .to_string(),
        ),
        _ => Err("expected one of: malloc, shm, shmhuge, mmap[:file], mmapshared[:file], mmaphuge[:file]".to_string()),
    }
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "thp",
        kind: Kind::Int,
        default: "0",
        help: "Memory Advise Huge Page (mmap: a private mapping advised MADV_HUGEPAGE)",
        apply: |s, v| {
            // fio's FIO_OPT_INT: any value but 0 turns it on.
            s.spec.misc.thp = v.uint(0)? != 0;
            Ok(())
        },
        ..OptionDef::of("I/O engine")
    },
    OptionDef {
        name: "mem",
        aliases: &["iomem"],
        kind: Kind::Choice(MEM_VALUES),
        default: "malloc",
        help: "Backing type for IO buffers (mmap kinds take :file)",
        apply: |s, v| {
            s.spec.misc.memory.kind = mem_kind(v.text)?;
            Ok(())
        },
        ..MEMORY
    },
    OptionDef {
        name: "iomem_align",
        aliases: &["mem_align"],
        kind: Kind::Int,
        default: "0",
        help: "IO memory buffer offset alignment",
        apply: |s, v| {
            s.spec.misc.memory.align = u64::from(v.uint(0)?);
            Ok(())
        },
        ..MEMORY
    },
    OptionDef {
        name: "hugepage-size",
        kind: Kind::Size,
        // fio's FIO_HUGE_PAGE on x86-64 and most platforms.
        default: "2097152",
        help: "When using hugepages, specify size of each page",
        apply: |s, v| {
            let size = v.size()?;
            if size == 0 || !size.is_power_of_two() {
                return Err("expected a power of two such as 2m or 1g".to_string());
            }
            s.spec.misc.memory.hugepage_size = size;
            Ok(())
        },
        ..MEMORY
    },
    OptionDef {
        name: "lockmem",
        kind: Kind::Size,
        default: "0",
        help: "Lock down this amount of memory (per worker)",
        apply: |s, v| {
            s.spec.misc.memory.lockmem = v.size()?;
            Ok(())
        },
        ..MEMORY
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_files() {
        assert_eq!(mem_kind("malloc"), Ok(MemKind::Malloc));
        assert_eq!(mem_kind("mmap"), Ok(MemKind::Mmap(None)));
        assert_eq!(
            mem_kind("mmaphuge:/huge/f"),
            Ok(MemKind::MmapHuge(Some("/huge/f".into())))
        );
        assert!(mem_kind("shm:/x").unwrap_err().contains("takes no file"));
        assert!(mem_kind("cudamalloc").unwrap_err().contains("CUDA"));
        assert!(mem_kind("heap").unwrap_err().contains("expected one of"));
    }
}
