//! fio's general options that fit no other family: how the directions are
//! reported, where the I/O buffers' memory comes from, and how dedupable
//! written data repeats.

/// `unified_rw_reporting`: fio's UNIFIED_SPLIT, UNIFIED_MIXED, UNIFIED_BOTH.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnifiedRw {
    /// Each direction on its own (fio's `none`, `0`).
    #[default]
    Split,
    /// The directions summed into one "mixed" direction (`mixed`, `1`).
    Mixed,
    /// Each direction, then their sum as "mixed" (`both`, `2`).
    Both,
}

impl UnifiedRw {
    /// fio's number for the mode (what its reports compare).
    pub fn code(self) -> u8 {
        match self {
            UnifiedRw::Split => 0,
            UnifiedRw::Mixed => 1,
            UnifiedRw::Both => 2,
        }
    }
}

/// `mem` / `iomem`: where the I/O buffers come from (fio's MEM_*).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum MemKind {
    /// `malloc`: the process heap (fio's default).
    #[default]
    Malloc,
    /// `shm`: a SysV shared memory segment (shmget).
    Shm,
    /// `shmhuge`: the same with SHM_HUGETLB.
    ShmHuge,
    /// `mmap[:file]`: a private mapping, of the file when one is named.
    Mmap(Option<String>),
    /// `mmaphuge[:file]`: a mapping of huge pages (a hugetlbfs file when
    /// named, anonymous MAP_HUGETLB otherwise).
    MmapHuge(Option<String>),
    /// `mmapshared[:file]`: a shared mapping.
    MmapShared(Option<String>),
}

/// The I/O buffers' memory: `mem`, `iomem_align`, `hugepage-size`,
/// `lockmem`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemorySpec {
    pub kind: MemKind,
    /// `iomem_align` (alias `mem_align`): the first buffer starts this many
    /// bytes past a page boundary, as fio's init_io_u places it.
    pub align: u64,
    /// `hugepage-size`: the huge page size the huge kinds round up to.
    pub hugepage_size: u64,
    /// `lockmem`: bytes mlock(2)ed for the job's life; 0 for none.
    pub lockmem: u64,
}

/// `dedupe_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DedupeMode {
    /// A dedupable buffer repeats the previous one (fio's default).
    #[default]
    Repeat,
    /// A dedupable buffer repeats one of a working set of buffers.
    WorkingSet,
}

/// How written data dedupes, beside `dedupe_percentage` (in [`JobSpec`]).
///
/// [`JobSpec`]: crate::JobSpec
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DedupeSpec {
    pub mode: DedupeMode,
    /// `dedupe_working_set_percentage`: the working set as a share of the
    /// job's size, default 5.
    pub working_set_percentage: u32,
}

/// The options of this family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MiscSpec {
    /// `unified_rw_reporting`.
    pub unified_rw: UnifiedRw,
    /// `mem` and the other memory options.
    pub memory: MemorySpec,
    /// `dedupe_mode` and its companions.
    pub dedupe: DedupeSpec,
    /// `stats`: false leaves the job out of every report, as fio does.
    pub stats: bool,
    /// `block_error_percentiles`: the trims of each trim-sized block of
    /// the job's one file are counted and reported as percentiles.
    pub block_error_hist: bool,
    /// `disk_util`: false leaves the job's disks out of the disk stats.
    pub disk_util: bool,
    /// `bwavgtime`, `iopsavgtime` (ms): the bandwidth and IOPS sampling
    /// intervals; None when not given (500, or the log's log_avg_msec).
    pub bw_avg_ms: Option<u64>,
    pub iops_avg_ms: Option<u64>,
    /// `significant_figures` of the normal output, 1..=10, default 4.
    pub sig_figs: u8,
    /// `unit_base=1`: rates in bits per second (0 and 8: bytes, as for
    /// every engine ioscope has; fio's 0 picks bits only for bit-based
    /// network engines).
    pub unit_bits: bool,
    /// `time_based` was given without `runtime`: fio drops it (the job runs
    /// on its size) and says so on stderr as it sets the job up.
    pub time_based_dropped: bool,
    /// What fio says on its output (log_info) as its option fix-ups
    /// change a job: `sprandom`'s "fio: sprandom sets ..." lines.
    pub fixup_notes: Vec<&'static str>,
    /// fio's warnings on its output as it sets the job up (log_info with
    /// `ret |= warnings_fatal`): a run with `--warnings-fatal` stops there.
    pub setup_warnings: Vec<&'static str>,
    /// `disable_bw_measurement` (`disable_bw`): a per-I/O bandwidth log
    /// (log_avg_msec=0) gets no samples, as fio's add_bw_sample is skipped;
    /// with disable_clat and disable_slat it is gtod_reduce.
    pub disable_bw: bool,
    /// `job_start_clock_id`: the clock of the JSON `job_start` (fio's
    /// clock_gettime clock id; 0 is CLOCK_REALTIME).
    pub job_start_clock_id: u32,
    /// `gtod_cpu`: taken out of `cpus_allowed`, as fio keeps its
    /// gettimeofday thread's CPU from the jobs (its `if (o->gtod_cpu)`: CPU
    /// 0 is never taken out).
    pub gtod_cpu: Option<u32>,
    /// `verify_async_cpus`: the CPUs of the verify_async threads; empty for
    /// the job's own.
    pub verify_async_cpus: Vec<u32>,
    /// `serialize_overlap`: no I/O is issued while one it overlaps is in
    /// flight.
    pub serialize_overlap: bool,
    /// `dedupe_global`: the dedupe working set is drawn from every thread
    /// of the run, so that jobs repeat each other's buffers.
    pub dedupe_global: bool,
    /// The mmap engine's `thp`: the files are mapped private with
    /// MADV_HUGEPAGE, as fio does (writes then never reach the files).
    pub thp: bool,
    /// `error_dump`: every I/O error is printed, also those
    /// continue_on_error lets pass; off (fio's default), only the one that
    /// ends the job.
    pub error_dump: bool,
}

/// `job_start_clock_id=id`: a clock this kernel reads, or why not.
pub(crate) fn check_clock(id: u32) -> Result<(), String> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    if unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) } != 0 {
        return Err(format!(
            "clock_gettime cannot read clock {id}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// The time of clock `id` in ms (fio's job_start arithmetic), 0 when the
/// clock cannot be read (checked when the option was applied).
pub fn clock_ms(id: u32) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as in check_clock.
    if unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// fio's fix-ups of this family's options (backend.c): gtod_cpu leaves the
/// job's CPUs, but only a CPU other than 0 (fio tests `if (o->gtod_cpu)`).
pub(crate) fn fix_up(spec: &mut crate::JobSpec) -> Result<(), String> {
    // fio counts a filename list's names as the job's files.
    let files = match spec.filenames.len() {
        0 => spec.nrfiles as usize,
        n => n,
    };
    if spec.misc.block_error_hist && files != 1 {
        return Err(format!(
            "block error histogram only available with a single file per job, but {files} files provided"
        ));
    }
    if let Some(cpu) = spec.misc.gtod_cpu.filter(|&c| c != 0) {
        if spec.cpus_allowed.contains(&cpu) {
            spec.cpus_allowed.retain(|&c| c != cpu);
            if spec.cpus_allowed.is_empty() {
                return Err(format!(
                    "gtod_cpu={cpu} takes the only CPU of cpus_allowed from the job"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtod_cpu_leaves_cpus_allowed_unless_it_is_cpu_0() {
        let mut spec = crate::JobSpec::fio_defaults("j");
        spec.cpus_allowed = vec![0, 1, 2];
        spec.misc.gtod_cpu = Some(1);
        fix_up(&mut spec).unwrap();
        assert_eq!(spec.cpus_allowed, [0, 2]);
        spec.misc.gtod_cpu = Some(0);
        fix_up(&mut spec).unwrap();
        assert_eq!(spec.cpus_allowed, [0, 2]);
        spec.cpus_allowed = vec![2];
        spec.misc.gtod_cpu = Some(2);
        assert!(fix_up(&mut spec).unwrap_err().contains("gtod_cpu=2"));
    }

    #[test]
    fn clocks_the_kernel_reads_are_taken() {
        assert!(check_clock(libc::CLOCK_MONOTONIC as u32).is_ok());
        assert!(clock_ms(libc::CLOCK_REALTIME as u32) > 1_600_000_000_000);
        assert!(check_clock(99).unwrap_err().contains("clock 99"));
    }
}
