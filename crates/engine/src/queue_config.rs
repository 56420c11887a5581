//! How a queue is built: the settings every backend reads when it makes
//! its queue, with each backend's own options and the fault to inject.

/// How a queue is built.
#[derive(Clone, Debug, Default)]
pub struct QueueConfig {
    /// Requests in flight at most; also the number of buffer slots.
    pub depth: u32,
    /// Bytes per buffer slot (the largest block size the caller will use).
    pub buffer_size: usize,
    /// Alignment of every buffer (page size, or the device's for O_DIRECT).
    pub buffer_align: usize,
    /// What the buffers' memory is (fio `mem`, `iomem_align`).
    pub memory: crate::buffer_memory::BufferMemory,
    /// Ask for polled completions (RWF_HIPRI for pvsync2).
    pub hipri: bool,
    /// Options of the libaio backend.
    pub aio: AioOptions,
    /// Options of the pvsync2 backend beyond `hipri`.
    pub pvsync2: Pvsync2Options,
    /// Options of the io_uring backend (the NOP backend uses its SQPOLL and
    /// ring registration ones).
    pub uring: UringOptions,
    /// Options of the network backends (net, netsplice).
    pub net: crate::engine_options::NetOptions,
    /// Inject faults into the queue's requests ([`FaultyQueue`](crate::FaultyQueue)), to test
    /// verify. None for every real run.
    pub fault: Option<FaultConfig>,
    /// The paths of the files, for the file engines (filecreate, filestat,
    /// filedelete), which work on paths rather than open descriptors;
    /// empty for every other engine.
    pub file_paths: Vec<std::path::PathBuf>,
    /// filestat's `stat_type`.
    pub stat_type: crate::engine_options::StatType,
    /// What cpuio burns.
    pub cpu: crate::engine_options::CpuBurn,
    /// e4defrag's donor file; None for every other engine.
    pub donor: Option<crate::engine_options::Donor>,
    /// The program exec runs; None for every other engine.
    pub exec: Option<crate::engine_options::ExecProgram>,
    /// The job's runtime, for the engines that end with it (cpuio cuts
    /// its last sleep short, exec stops its program); None when the job
    /// has none.
    pub runtime: Option<std::time::Duration>,
    /// The job's ramp_time, which comes before its runtime; None when its
    /// ramp lasts until an amount of I/O is done (fio's ramp_size), which
    /// takes a time not known beforehand.
    pub ramp_time: Option<std::time::Duration>,
    /// Set when the run stops the job (a signal, exitall, exit_what), for
    /// the engines that wait on a peer (net, netsplice) and look at it
    /// while they wait. None leaves them waiting until their time limit.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The mmap engine's `thp`: private mappings advised MADV_HUGEPAGE.
    pub thp: bool,
}

/// Options of the pvsync2 backend, named after fio's pvsync2 engine
/// options: flags that every preadv2/pwritev2 carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pvsync2Options {
    /// fio `nowait`: RWF_NOWAIT. A transfer that would block fails with
    /// EAGAIN (a buffered write on ext4, which cannot honour it, with
    /// EOPNOTSUPP): the I/O's error, as in fio.
    pub nowait: bool,
    /// fio `uncached`: RWF_DONTCACHE (Linux 6.14), as io_uring's
    /// [`UringOptions::uncached`]; refused at queue creation where the
    /// kernel or the filesystem lacks it.
    pub uncached: bool,
}

/// Options of the libaio backend, named after fio's libaio engine options.
/// Polled completions (`hipri`) are [`QueueConfig::hipri`], which this
/// backend refuses: the kernel ignores RWF_HIPRI on AIO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AioOptions {
    /// fio `userspace_reap`: when a reap does not have to wait (`min` is 0,
    /// which fio's runner asks for with `iodepth_batch_complete_min=0`),
    /// take the completions straight from the completion ring the kernel
    /// maps into the process instead of calling io_getevents. A reap that
    /// must wait still calls io_getevents, as in fio.
    pub userspace_reap: bool,
    /// fio `libaio_vectored`: IOCB_CMD_PREADV/PWRITEV with one iovec per
    /// request instead of IOCB_CMD_PREAD/PWRITE.
    pub vectored: bool,
    /// fio `nowait`: RWF_NOWAIT on reads and writes. A transfer that would
    /// block completes with -EAGAIN instead (and buffered writes on ext4,
    /// which cannot honour it, with -EOPNOTSUPP): results, not queue errors.
    pub nowait: bool,
}

/// Options of the io_uring backend beyond [`QueueConfig`], named after fio's
/// `io_uring` engine options. Polled completions (fio `hipri`,
/// IORING_SETUP_IOPOLL) are [`QueueConfig::hipri`], shared with pvsync2.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UringOptions {
    /// IORING_SETUP_SQPOLL (fio `sqthread_poll`): a kernel thread takes
    /// requests off the ring, so submitting needs no system call while that
    /// thread is awake. As in fio, it implies `register_files`.
    pub sqpoll: bool,
    /// IORING_SETUP_SQ_AFF (fio `sqthread_poll_cpu`): the CPU the SQ thread
    /// is bound to. Only with `sqpoll`.
    pub sqpoll_cpu: Option<u32>,
    /// Milliseconds the SQ thread spins without work before it sleeps (None,
    /// or 0: the kernel's default of one second, which is what fio uses).
    pub sqpoll_idle_ms: Option<u32>,
    /// fio `fixedbufs`: register every slot's buffer with the ring once, and
    /// move data with READ_FIXED/WRITE_FIXED, so no request maps pages.
    pub fixed_buffers: bool,
    /// fio `registerfiles`: register the descriptors with the ring once, and
    /// name them by index (IOSQE_FIXED_FILE) in every request.
    pub register_files: bool,
    /// fio `nonvectored`: `Some(true)` moves data with READ/WRITE, `Some(false)`
    /// with READV/WRITEV and one iovec per slot. `None` is fio's default:
    /// READ/WRITE when the kernel has them (Linux 5.6), READV/WRITEV otherwise.
    /// Ignored with `fixed_buffers`, which has its own opcodes.
    pub nonvectored: Option<bool>,
    /// fio `force_async=N`: IOSQE_ASYNC on every Nth request, which sends it
    /// straight to io-wq instead of trying it inline first. 0: never.
    pub force_async: u32,
    /// fio `nowait`: RWF_NOWAIT on every transfer; one that would block
    /// completes with -EAGAIN instead.
    pub nowait: bool,
    /// fio 3.33 `uncached`: RWF_DONTCACHE (Linux 6.14) on every transfer, so
    /// buffered I/O drops its pages from the page cache once done. Refused at
    /// queue creation where the kernel or the filesystem lacks it.
    pub uncached: bool,
    /// Call io_uring_enter with the ring's own fd instead of registering it
    /// (t/io_uring `-X0`; fio has no such option). Off by default: the fd is
    /// registered, which saves a file table lookup on every call. Turning it
    /// on shows what that lookup costs.
    pub skip_ring_registration: bool,
    /// Options of the NVMe passthrough backend (`io_uring_cmd`), which runs
    /// on the same kind of ring; the io_uring backend ignores them.
    pub nvme: NvmeOptions,
}

/// Options of the NVMe passthrough backend beyond the io_uring ones it
/// shares ([`crate::UringOptions`]: sqthread_poll, fixedbufs,
/// registerfiles, nonvectored), named after fio's `io_uring_cmd` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvmeOptions {
    /// fio `readfua`: Force Unit Access on every Read.
    pub readfua: bool,
    /// fio `writefua`: Force Unit Access on every Write and Write Zeroes.
    pub writefua: bool,
    /// fio `pi_act`: on a namespace with protection information, the
    /// controller inserts and strips it (PRACT); otherwise the queue
    /// writes it and checks what reads bring back.
    pub pi_act: bool,
    /// fio `md_per_io_size`: bytes of each slot's separate metadata buffer.
    pub md_per_io_size: u32,
    /// fio `pi_chk`: the fields checked, by fio's names (GUARD, REFTAG,
    /// APPTAG) anywhere in it.
    pub pi_chk: String,
    /// fio `apptag`, `apptag_mask`.
    pub apptag: u16,
    pub apptag_mask: u16,
    /// fio `write_mode=zone_append`: every Write goes as a Zone Append to
    /// the start of the zone its offset is in, so the device places it at
    /// the zone's write pointer. Only a zoned namespace takes it.
    pub zone_append: bool,
}

impl Default for NvmeOptions {
    /// fio's defaults: no FUA, PRACT set, no metadata buffer, nothing
    /// checked, application tag 0x1234 under mask 0xffff.
    fn default() -> NvmeOptions {
        NvmeOptions {
            readfua: false,
            writefua: false,
            pi_act: true,
            md_per_io_size: 0,
            pi_chk: String::new(),
            apptag: 0x1234,
            apptag_mask: 0xffff,
            zone_append: false,
        }
    }
}

/// The kinds of fault. Data faults act on writes unless named otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Flip one random bit of the write's data before it is sent (in the
    /// caller's buffer, which is left flipped).
    BitFlip,
    /// Do not send the write; complete it successfully with its full length.
    DropWrite,
    /// Send the write to the neighbouring block (`offset - len`, or
    /// `offset + len` when the write starts within `len` bytes of 0) and
    /// report what that write returns.
    Misdirect,
    /// Send only the first half of the write, rounded down to 512 bytes and
    /// at least 512 (a write of 512 bytes or less sends nothing), and report
    /// the full length.
    TornWrite,
    /// Do the read, then report half its length, rounded down to 512 bytes
    /// (or what the read got, if that is less).
    ShortRead,
    /// Complete a read with -EIO without sending it.
    ReadError,
    /// Complete a write with -EIO without sending it.
    WriteError,
}

impl FaultKind {
    /// Every kind, in declaration order.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::BitFlip,
        FaultKind::DropWrite,
        FaultKind::Misdirect,
        FaultKind::TornWrite,
        FaultKind::ShortRead,
        FaultKind::ReadError,
        FaultKind::WriteError,
    ];

    /// The name a job option gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::BitFlip => "bitflip",
            FaultKind::DropWrite => "drop",
            FaultKind::Misdirect => "misdirect",
            FaultKind::TornWrite => "torn",
            FaultKind::ShortRead => "short_read",
            FaultKind::ReadError => "read_eio",
            FaultKind::WriteError => "write_eio",
        }
    }

    pub fn from_name(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Which fault a [`FaultyQueue`](crate::FaultyQueue) injects, and into how many requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultConfig {
    pub kind: FaultKind,
    /// Share of eligible requests that get the fault, in percent (0.0..=100.0).
    pub percent: f64,
    /// Seed of the choice of requests (and of the bit), so a run is repeatable.
    pub seed: u64,
}
