//! The option table: every option ioscope understands, defined once. The
//! same entry drives parsing (its kind), engine checks, `--cmdhelp` and the
//! JSON options echo (its canonical name).

use crate::fio_only::{fio_engines_of, FIO_ONLY_OPTIONS};
use crate::spec::IoEngine;

/// Identifies an option, so that applying a value is one `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opt {
    Name,
    Description,
    Filename,
    Directory,
    Size,
    Filesize,
    Offset,
    IoSize,
    OffsetIncrement,
    Nrfiles,
    Unlink,
    Rw,
    Rwmixread,
    Rwmixwrite,
    Bs,
    Bsrange,
    Bssplit,
    Direct,
    Buffered,
    Iodepth,
    IodepthBatchSubmit,
    IodepthBatchCompleteMin,
    IodepthBatchCompleteMax,
    IodepthLow,
    Numjobs,
    Thread,
    GroupReporting,
    Stonewall,
    NewGroup,
    TimeBased,
    Runtime,
    RampTime,
    Startdelay,
    Loops,
    Norandommap,
    Randrepeat,
    Randseed,
    RandomGenerator,
    CpusAllowed,
    CpusAllowedPolicy,
    Ioengine,
    Hipri,
    SqthreadPoll,
    SqthreadPollCpu,
    Fixedbufs,
    Registerfiles,
    Nonvectored,
    ForceAsync,
    Nowait,
    Uncached,
    CountPunts,
    CmdType,
    WriteMode,
    Deac,
    Readfua,
    Writefua,
    NumRange,
    UserspaceReap,
    LibaioVectored,
    Fsync,
    EndFsync,
    FadviseHint,
    Invalidate,
    KbBase,
    PercentileList,
    ClatPercentiles,
    LatPercentiles,
    SlatPercentiles,
    DisableLat,
    DisableClat,
    DisableSlat,
    GtodReduce,
    Clocksource,
    ZeroBuffers,
    ScrambleBuffers,
    RefillBuffers,
    AllowMountedWrite,
    Exitall,
    CreateOnOpen,
    AllowSignatureWrite,
    BufferPattern,
    BufferCompressPercentage,
    BufferCompressChunk,
    DedupePercentage,
    Verify,
    DoVerify,
    VerifyOnly,
    VerifyBacklog,
    VerifyBacklogBatch,
    VerifyInterval,
    VerifyOffset,
    VerifyPattern,
    VerifyPatternInterval,
    VerifyFatal,
    VerifyDump,
    VerifyAsync,
    VerifyStateSave,
    VerifyStateLoad,
    ExperimentalVerify,
    VerifyHeaderSeed,
    VerifyWriteSequence,
    TrimPercentage,
    TrimVerifyZero,
    TrimBacklog,
    TrimBacklogBatch,
    ContinueOnError,
    IgnoreError,
    Fault,
    FaultRate,
    FaultEngine,
}

/// How a value is written, as `--cmdhelp` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Size,
    SizeOrPercent,
    Int,
    /// A time; a plain number is in seconds.
    Time,
    /// A time, or a range of times (`startdelay=5-10`).
    TimeRange,
    Bool,
    /// May be given bare (`time_based`) or as a boolean.
    Flag,
    Range,
    PerDirSize,
    PerDirRange,
    Split,
    Choice(&'static [(&'static str, &'static str)]),
    FloatList,
    /// A decimal number that may have a fraction (opt=0.5).
    Float,
    CpuList,
}

impl Kind {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Text => "string (opt=bla)",
            Kind::Size => "size with k/m/g/t/p suffix (opt=4k)",
            Kind::SizeOrPercent => "size with k/m/g/t/p suffix, or a percentage (opt=4k, opt=50%)",
            Kind::Int => "integer value (opt=100)",
            Kind::Time => "time, seconds unless suffixed us/ms/s/m/h/d (opt=10s)",
            Kind::TimeRange => "time or time range, seconds unless suffixed (opt=10s, opt=5-10)",
            Kind::Bool => "boolean value (opt=1)",
            Kind::Flag => "empty or boolean value ([0|1])",
            Kind::Range => "size or size range (opt=1k-4k)",
            Kind::PerDirSize => "size per direction read,write,trim (opt=4k[,8k[,16k]])",
            Kind::PerDirRange => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
            Kind::Split => "size/percent list per direction (opt=4k/50:64k/50[,...])",
            Kind::Choice(_) => "string, one of the valid values",
            Kind::FloatList => "list of floating point values separated by ':' (opt=5.9:7.8)",
            Kind::Float => "floating point value (opt=0.5)",
            Kind::CpuList => "list of CPUs and CPU ranges (opt=0-3,5)",
        }
    }
}

/// One option: its names, how its value is written, its default and help.
#[derive(Debug)]
pub(crate) struct OptionDef {
    pub id: Opt,
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    /// fio's default as `--cmdhelp` shows it; empty for none.
    pub default: &'static str,
    pub help: &'static str,
    pub category: &'static str,
    /// For an engine option, the engines ioscope takes it with; empty for
    /// every other option.
    pub engines: &'static [IoEngine],
    /// Engines whose fio version has this option, but ioscope's does not
    /// honour it yet: refused as "not supported yet" rather than as an
    /// option of another engine.
    pub not_yet_with: &'static [IoEngine],
}

impl OptionDef {
    pub(crate) fn is_engine_option(&self) -> bool {
        !self.engines.is_empty()
    }

    /// Whether the option may be given while `engine` is in effect; the
    /// error says why not. fio refuses an engine option of another engine
    /// as an unknown option, so a job that fio would refuse is refused.
    pub(crate) fn check_engine(&self, engine: IoEngine) -> Result<(), String> {
        if !self.is_engine_option() || self.engines.contains(&engine) {
            return Ok(());
        }
        let with = engine_names(self.engines);
        if self.not_yet_with.contains(&engine) {
            return Err(format!(
                "'{}' with ioengine={} is not supported by ioscope yet (only with ioengine={with})",
                self.name,
                engine.name()
            ));
        }
        Err(format!(
            "'{}' is an option of ioengine={with}, but ioengine={} is in effect here",
            self.name,
            engine.name()
        ))
    }
}

/// "io_uring", "pvsync2 or io_uring", "a, b or c".
pub(crate) fn engine_names(engines: &[IoEngine]) -> String {
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

const RW_VALUES: &[(&str, &str)] = &[
    ("read", "Sequential read"),
    ("write", "Sequential write"),
    ("randread", "Random read"),
    ("randwrite", "Random write"),
    ("rw", "Sequential read and write mix"),
    ("readwrite", "Sequential read and write mix"),
    ("randrw", "Random read and write mix"),
    (
        "trim",
        "Sequential trim (io_uring_cmd: NVMe Dataset Management deallocate)",
    ),
    ("randtrim", "Random trim"),
    ("trimwrite", "Trim and write mix, trims preceding writes"),
    (
        "randtrimwrite",
        "Random trim and write mix, trims preceding writes",
    ),
];
pub(crate) const ENGINE_VALUES: &[(&str, &str)] = &[
    ("sync", "read/write/lseek"),
    ("psync", "pread/pwrite"),
    (
        "pvsync2",
        "preadv2/pwritev2, with RWF_HIPRI when hipri is set",
    ),
    ("null", "No I/O: measures ioscope itself"),
    (
        "libaio",
        "Linux native asynchronous I/O (io_submit/io_getevents)",
    ),
    ("io_uring", "Fast Linux native asynchronous I/O"),
    (
        "io_uring_cmd",
        "NVMe passthrough through io_uring (IORING_OP_URING_CMD) on /dev/ngXnY",
    ),
    (
        "mmap",
        "Memory mapped I/O (memcpy to and from a mapping of the file)",
    ),
    (
        "nop",
        "ioscope only, not a fio engine: io_uring NOP requests, no I/O; measures the ring",
    ),
    (
        "faulty",
        "ioscope only, for testing verify: another engine (fault_engine) with faults injected (fault, fault_rate)",
    ),
];
const CMD_TYPE_VALUES: &[(&str, &str)] = &[("nvme", "Issue nvme-uring-cmd")];
const WRITE_MODE_VALUES: &[(&str, &str)] = &[
    ("write", "Issue Write commands for write operations"),
    (
        "uncor",
        "Issue Write Uncorrectable commands for write operations (not supported yet)",
    ),
    ("zeroes", "Issue Write Zeroes commands for write operations"),
    (
        "verify",
        "Issue Verify commands for write operations (not supported yet)",
    ),
];
const VERIFY_VALUES: &[(&str, &str)] = &[
    ("0", "Don't do IO verification"),
    ("md5", "Use md5 checksums for verification"),
    ("crc64", "Use crc64 checksums for verification"),
    ("crc32", "Use crc32 checksums for verification"),
    ("crc16", "Use crc16 checksums for verification"),
    ("crc7", "Use crc7 checksums for verification"),
    (
        "crc32c",
        "Use crc32c checksums for verification (hardware assisted where the CPU has it)",
    ),
    (
        "crc32c-intel",
        "Use crc32c checksums for verification (the same as crc32c)",
    ),
    ("sha1", "Use sha1 checksums for verification"),
    ("sha256", "Use sha256 checksums for verification"),
    ("sha512", "Use sha512 checksums for verification"),
    ("sha3-224", "Use sha3-224 checksums for verification"),
    ("sha3-256", "Use sha3-256 checksums for verification"),
    ("sha3-384", "Use sha3-384 checksums for verification"),
    ("sha3-512", "Use sha3-512 checksums for verification"),
    ("xxhash", "Use xxhash checksums for verification"),
    ("pattern", "Verify strict pattern"),
    ("meta", "Use io information (the header alone)"),
    ("null", "Pretend to verify"),
];
const CONTINUE_VALUES: &[(&str, &str)] = &[
    ("none", "Exit when an error is encountered"),
    ("read", "Continue on read errors only"),
    ("write", "Continue on write errors only"),
    ("io", "Continue on any IO errors"),
    ("verify", "Continue on verify errors only"),
    ("all", "Continue on all io and verify errors"),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'all'"),
];
pub(crate) const FAULT_VALUES: &[(&str, &str)] = &[
    ("bitflip", "Flip one bit of a write's data"),
    ("drop", "Drop a write, reporting success"),
    (
        "misdirect",
        "Write to the neighbouring block, reporting success",
    ),
    (
        "torn",
        "Write only the first half of a block, reporting success",
    ),
    ("short_read", "Report half of a read's length"),
    ("read_eio", "Fail a read with EIO"),
    ("write_eio", "Fail a write with EIO"),
];
const FADVISE_VALUES: &[(&str, &str)] = &[
    ("0", "Don't issue fadvise/madvise"),
    ("1", "Advise using fio IO pattern"),
    ("random", "Advise using FADV_RANDOM"),
    ("sequential", "Advise using FADV_SEQUENTIAL"),
];

const GENERATOR_VALUES: &[(&str, &str)] = &[
    ("tausworthe", "Strong 2^88 cycle random number generator"),
    ("lfsr", "Variable length LFSR"),
    (
        "tausworthe64",
        "64-bit Tausworthe variant with a 2^258 cycle",
    ),
];
const POLICY_VALUES: &[(&str, &str)] = &[
    ("shared", "Every worker may run on every CPU of the set"),
    ("split", "Each worker gets its own CPU of the set"),
];
const CLOCK_VALUES: &[(&str, &str)] = &[
    ("gettimeofday", "Use gettimeofday(2) for timing (ioscope reads CLOCK_MONOTONIC instead: wall-clock time can jump during a run)"),
    ("clock_gettime", "Use clock_gettime(2) for timing"),
    ("cpu", "Use the CPU's time stamp counter"),
];
const KB_BASE_VALUES: &[(&str, &str)] = &[
    (
        "1024",
        "Inputs invert IEC and SI prefixes (fio's compatibility mode)",
    ),
    ("1000", "Inputs use IEC and SI prefixes as defined"),
];

macro_rules! opt {
    ($id:ident, $name:literal, [$($alias:literal),*], $kind:expr, $default:literal,
     $cat:literal, $help:literal
     $(, engines = [$($engine:ident),+] $(, not_yet = [$($not_yet:ident),+])?)?) => {
        OptionDef {
            id: Opt::$id,
            name: $name,
            aliases: &[$($alias),*],
            kind: $kind,
            default: $default,
            help: $help,
            category: $cat,
            engines: &[$($(IoEngine::$engine),+)?],
            not_yet_with: &[$($($(IoEngine::$not_yet),+)?)?],
        }
    };
}

/// The table, grouped by category in the order `--cmdhelp=all` lists them.
#[rustfmt::skip]
pub(crate) static OPTIONS: &[OptionDef] = &[
    opt!(Name, "name", [], Kind::Text, "", "Job description", "Name of this job"),
    opt!(Description, "description", [], Kind::Text, "", "Job description", "Text job description"),
    opt!(Filename, "filename", [], Kind::Text, "", "Files and devices", "File(s) to use for the workload, ':'-separated ('\\:' for a colon in a name)"),
    opt!(Directory, "directory", [], Kind::Text, "", "Files and devices", "Directory to store files in"),
    opt!(Size, "size", [], Kind::SizeOrPercent, "", "Files and devices", "Total size of device or files"),
    opt!(Filesize, "filesize", [], Kind::Range, "", "Files and devices", "Size of individual files"),
    opt!(Offset, "offset", ["fileoffset"], Kind::SizeOrPercent, "0", "Files and devices", "Start I/O from this offset"),
    opt!(OffsetIncrement, "offset_increment", [], Kind::Size, "0", "Files and devices", "What is the increment from one offset to the next (clone N starts at offset + N * this)"),
    opt!(IoSize, "io_size", ["io_limit"], Kind::Size, "", "Files and devices", "Total size of I/O to be performed"),
    opt!(Nrfiles, "nrfiles", ["nr_files"], Kind::Int, "1", "Files and devices", "Split job workload between this number of files"),
    opt!(Unlink, "unlink", [], Kind::Bool, "0", "Files and devices", "Unlink created files after job has completed"),
    opt!(AllowMountedWrite, "allow_mounted_write", [], Kind::Bool, "0", "Files and devices", "Allow writes to a mounted partition"),
    opt!(AllowSignatureWrite, "allow_signature_write", [], Kind::Bool, "0", "Files and devices", "ioscope only: allow writes to a block device that holds a filesystem, partition table or other signature"),
    opt!(CreateOnOpen, "create_on_open", [], Kind::Bool, "0", "Files and devices", "Create files when they are opened for I/O"),
    opt!(Rw, "rw", ["readwrite"], Kind::Choice(RW_VALUES), "read", "I/O type", "I/O direction and pattern; randread:N takes N I/Os per random offset"),
    opt!(Rwmixread, "rwmixread", [], Kind::Int, "50", "I/O type", "Percentage of mixed workload that is reads"),
    opt!(Rwmixwrite, "rwmixwrite", [], Kind::Int, "50", "I/O type", "Percentage of mixed workload that is writes"),
    opt!(Direct, "direct", [], Kind::Bool, "0", "I/O type", "Use O_DIRECT I/O (negates buffered)"),
    opt!(Buffered, "buffered", [], Kind::Bool, "1", "I/O type", "Use buffered I/O (negates direct)"),
    opt!(Fsync, "fsync", [], Kind::Int, "0", "I/O type", "Issue fsync for writes every given number of blocks"),
    opt!(EndFsync, "end_fsync", [], Kind::Bool, "0", "I/O type", "Include fsync at the end of job"),
    opt!(FadviseHint, "fadvise_hint", [], Kind::Choice(FADVISE_VALUES), "1", "I/O type", "Use fadvise() to advise the kernel on IO pattern"),
    opt!(Invalidate, "invalidate", [], Kind::Bool, "1", "I/O type", "Invalidate buffer/page cache prior to running job"),
    opt!(Bs, "bs", ["blocksize"], Kind::PerDirSize, "4096", "Block size", "Block size unit"),
    opt!(Bsrange, "bsrange", ["blocksize_range"], Kind::PerDirRange, "", "Block size", "Set block size range (in more detail than bs)"),
    opt!(Bssplit, "bssplit", [], Kind::Split, "", "Block size", "Set a specific mix of block sizes"),
    opt!(Iodepth, "iodepth", [], Kind::Int, "1", "I/O depth", "Number of I/O buffers to keep in flight"),
    opt!(IodepthBatchSubmit, "iodepth_batch", ["iodepth_batch_submit"], Kind::Int, "1", "I/O depth", "Number of I/O buffers to submit in one go"),
    opt!(IodepthBatchCompleteMin, "iodepth_batch_complete_min", ["iodepth_batch_complete"], Kind::Int, "1", "I/O depth", "Min number of I/O buffers to retrieve in one go"),
    opt!(IodepthBatchCompleteMax, "iodepth_batch_complete_max", [], Kind::Int, "", "I/O depth", "Max number of I/O buffers to retrieve in one go (default: iodepth_batch_complete_min)"),
    opt!(IodepthLow, "iodepth_low", [], Kind::Int, "", "I/O depth", "Low water mark for queuing depth (default: iodepth)"),
    opt!(Numjobs, "numjobs", [], Kind::Int, "1", "Threads, processes and job synchronization", "Duplicate this job this many times"),
    opt!(Thread, "thread", [], Kind::Flag, "", "Threads, processes and job synchronization", "Use threads instead of processes"),
    opt!(Stonewall, "stonewall", ["wait_for_previous"], Kind::Flag, "", "Threads, processes and job synchronization", "Insert a hard barrier between this job and previous"),
    opt!(NewGroup, "new_group", [], Kind::Flag, "", "Threads, processes and job synchronization", "Mark the start of a new group (for reporting)"),
    opt!(Exitall, "exitall", [], Kind::Flag, "", "Threads, processes and job synchronization", "Terminate all jobs when one exits"),
    opt!(TimeBased, "time_based", [], Kind::Flag, "", "Time related parameters", "Keep running until runtime/timeout is met"),
    opt!(Runtime, "runtime", ["timeout"], Kind::Time, "0", "Time related parameters", "Stop workload when this amount of time has passed"),
    opt!(RampTime, "ramp_time", [], Kind::Time, "", "Time related parameters", "Ramp up time before measuring performance"),
    opt!(Startdelay, "startdelay", [], Kind::TimeRange, "0", "Time related parameters", "Only start job when this period has passed"),
    opt!(Loops, "loops", [], Kind::Int, "1", "Time related parameters", "Number of times to run the job"),
    opt!(Norandommap, "norandommap", [], Kind::Flag, "", "Random I/O", "Accept potential duplicate random blocks"),
    opt!(Randrepeat, "randrepeat", [], Kind::Bool, "1", "Random I/O", "Use repeatable random I/O pattern"),
    opt!(Randseed, "randseed", [], Kind::Size, "0x89", "Random I/O", "Set the random generator seed value"),
    opt!(RandomGenerator, "random_generator", [], Kind::Choice(GENERATOR_VALUES), "tausworthe", "Random I/O", "Type of random number generator to use"),
    opt!(CpusAllowed, "cpus_allowed", [], Kind::CpuList, "", "CPU affinity", "Set CPUs allowed"),
    opt!(CpusAllowedPolicy, "cpus_allowed_policy", [], Kind::Choice(POLICY_VALUES), "shared", "CPU affinity", "Distribution policy for cpus_allowed"),
    opt!(Ioengine, "ioengine", [], Kind::Choice(ENGINE_VALUES), "psync", "I/O engine", "I/O engine to use"),
    // Engine options, with fio's types and defaults (`fio --enghelp=ENGINE,OPTION`).
    opt!(Hipri, "hipri", [], Kind::Flag, "", "I/O engine", "Use polled I/O completions (RWF_HIPRI for pvsync2, IORING_SETUP_IOPOLL for io_uring)", engines = [Pvsync2, IoUring, IoUringCmd]),
    opt!(SqthreadPoll, "sqthread_poll", [], Kind::Flag, "", "I/O engine", "Offload submission/completion to kernel thread (IORING_SETUP_SQPOLL)", engines = [IoUring, IoUringCmd]),
    opt!(SqthreadPollCpu, "sqthread_poll_cpu", [], Kind::Int, "", "I/O engine", "What CPU to run SQ thread polling on (needs sqthread_poll)", engines = [IoUring, IoUringCmd]),
    opt!(Fixedbufs, "fixedbufs", [], Kind::Flag, "", "I/O engine", "Pre map IO buffers (registered with the ring)", engines = [IoUring, IoUringCmd]),
    opt!(Registerfiles, "registerfiles", [], Kind::Flag, "", "I/O engine", "Pre-open/register files with the ring", engines = [IoUring, IoUringCmd]),
    opt!(Nonvectored, "nonvectored", [], Kind::Int, "-1", "I/O engine", "Use non-vectored read/write commands (1), vectored ones (0), or non-vectored where the kernel has them (-1; io_uring_cmd: non-vectored)", engines = [IoUring, IoUringCmd]),
    opt!(CmdType, "cmd_type", [], Kind::Choice(CMD_TYPE_VALUES), "nvme", "I/O engine", "Specify uring-cmd type", engines = [IoUringCmd]),
    opt!(WriteMode, "write_mode", [], Kind::Choice(WRITE_MODE_VALUES), "write", "I/O engine", "Issue Write Zeroes commands instead of Write commands (zeroes)", engines = [IoUringCmd]),
    opt!(Deac, "deac", [], Kind::Bool, "0", "I/O engine", "Set DEAC (deallocate) flag for write zeroes command", engines = [IoUringCmd]),
    opt!(Readfua, "readfua", [], Kind::Bool, "0", "I/O engine", "Set FUA flag (force unit access) for all Read operations", engines = [IoUringCmd]),
    opt!(Writefua, "writefua", [], Kind::Bool, "0", "I/O engine", "Set FUA flag (force unit access) for all Write operations", engines = [IoUringCmd]),
    opt!(NumRange, "num_range", [], Kind::Int, "1", "I/O type", "Number of ranges per trim command (1 to 256; above 1 only with ioengine=io_uring_cmd)"),
    opt!(ForceAsync, "force_async", [], Kind::Int, "", "I/O engine", "Set IOSQE_ASYNC every N requests (0: never)", engines = [IoUring]),
    opt!(Nowait, "nowait", [], Kind::Bool, "", "I/O engine", "Use RWF_NOWAIT for reads/writes", engines = [IoUring, Libaio], not_yet = [Pvsync2]),
    opt!(Uncached, "uncached", [], Kind::Int, "", "I/O engine", "Drop buffered reads/writes from the page cache when done (any value but 0; RWF_DONTCACHE, Linux 6.14)", engines = [IoUring], not_yet = [Pvsync2]),
    opt!(CountPunts, "count_punts", [], Kind::Bool, "0", "I/O engine", "ioscope only: count the requests the ring punts to io-wq workers (a kernel tracepoint counter: needs root and tracefs, and costs some IOPS where the job's threads switch often)", engines = [IoUring, IoUringCmd]),
    opt!(UserspaceReap, "userspace_reap", [], Kind::Flag, "", "I/O engine", "Use alternative user-space reap implementation", engines = [Libaio]),
    opt!(LibaioVectored, "libaio_vectored", [], Kind::Bool, "", "I/O engine", "Use libaio {preadv,pwritev} instead of libaio {pread,pwrite} (a newer fio's option; fio 3.33 lacks it)", engines = [Libaio]),
    opt!(KbBase, "kb_base", [], Kind::Choice(KB_BASE_VALUES), "1024", "Measurements and reporting", "Unit prefix interpretation for quantities of data (IEC and SI)"),
    opt!(PercentileList, "percentile_list", [], Kind::FloatList, "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99", "Measurements and reporting", "Specify a custom list of percentiles to report for completion latency"),
    opt!(ClatPercentiles, "clat_percentiles", [], Kind::Bool, "1", "Measurements and reporting", "Enable the reporting of completion latency percentiles"),
    opt!(LatPercentiles, "lat_percentiles", [], Kind::Bool, "0", "Measurements and reporting", "Enable the reporting of I/O latency percentiles"),
    opt!(SlatPercentiles, "slat_percentiles", [], Kind::Bool, "0", "Measurements and reporting", "Enable the reporting of submission latency percentiles"),
    opt!(DisableLat, "disable_lat", [], Kind::Bool, "0", "Measurements and reporting", "Disable latency numbers"),
    opt!(DisableClat, "disable_clat", [], Kind::Bool, "0", "Measurements and reporting", "Disable completion latency numbers"),
    opt!(DisableSlat, "disable_slat", [], Kind::Bool, "0", "Measurements and reporting", "Disable submission latency numbers"),
    opt!(GtodReduce, "gtod_reduce", [], Kind::Bool, "0", "Measurements and reporting", "Greatly reduce number of clock reads (sets the disable_* options)"),
    opt!(Clocksource, "clocksource", [], Kind::Choice(CLOCK_VALUES), "cpu", "Measurements and reporting", "What type of timing source to use"),
    opt!(GroupReporting, "group_reporting", [], Kind::Flag, "", "Measurements and reporting", "Do reporting on a per-group basis"),
    opt!(ZeroBuffers, "zero_buffers", [], Kind::Flag, "", "Buffers and memory", "Init I/O buffers to all zeroes"),
    opt!(ScrambleBuffers, "scramble_buffers", [], Kind::Bool, "1", "Buffers and memory", "Slightly scramble buffers on every I/O submit"),
    opt!(RefillBuffers, "refill_buffers", [], Kind::Flag, "", "Buffers and memory", "Refill I/O buffers on every I/O submit"),
    opt!(BufferPattern, "buffer_pattern", [], Kind::Text, "", "Buffers and memory", "Fill pattern for I/O buffers: 0xhex, decimal, \"string\", 'file', %o (block offset)"),
    opt!(BufferCompressPercentage, "buffer_compress_percentage", [], Kind::Int, "", "Buffers and memory", "How compressible the buffers should be (turns refill_buffers on)"),
    opt!(BufferCompressChunk, "buffer_compress_chunk", [], Kind::Size, "512", "Buffers and memory", "Size of compressible region in buffer"),
    opt!(DedupePercentage, "dedupe_percentage", [], Kind::Int, "0", "Buffers and memory", "Percentage of buffers that are dedupable (turns refill_buffers on)"),
    opt!(Verify, "verify", [], Kind::Choice(VERIFY_VALUES), "0", "Verify", "Verify data written"),
    opt!(DoVerify, "do_verify", [], Kind::Bool, "1", "Verify", "Run verification stage after write"),
    opt!(VerifyOnly, "verify_only", [], Kind::Flag, "", "Verify", "Verifies previously written data is still valid"),
    opt!(VerifyBacklog, "verify_backlog", [], Kind::Int, "", "Verify", "Verify after this number of blocks are written"),
    opt!(VerifyBacklogBatch, "verify_backlog_batch", [], Kind::Int, "", "Verify", "Verify this number of IO blocks"),
    opt!(VerifyInterval, "verify_interval", [], Kind::Size, "", "Verify", "Store verify buffer header every N bytes"),
    opt!(VerifyOffset, "verify_offset", [], Kind::Size, "0", "Verify", "Offset verify header location by N bytes"),
    opt!(VerifyPattern, "verify_pattern", [], Kind::Text, "", "Verify", "Fill pattern for IO buffers: 0xhex, decimal, \"string\", %o (block offset)"),
    opt!(VerifyPatternInterval, "verify_pattern_interval", [], Kind::Size, "0", "Verify", "Re-create verify pattern every N bytes"),
    opt!(VerifyFatal, "verify_fatal", [], Kind::Bool, "0", "Verify", "Exit on a single verify failure, don't continue"),
    opt!(VerifyDump, "verify_dump", [], Kind::Bool, "0", "Verify", "Dump contents of good and bad blocks on failure"),
    opt!(VerifyAsync, "verify_async", [], Kind::Int, "0", "Verify", "Number of async verifier threads to use"),
    opt!(VerifyStateSave, "verify_state_save", [], Kind::Bool, "1", "Verify", "Save verify state on termination"),
    opt!(VerifyStateLoad, "verify_state_load", [], Kind::Bool, "0", "Verify", "Load verify termination state"),
    opt!(ExperimentalVerify, "experimental_verify", [], Kind::Bool, "0", "Verify", "Enable experimental verification"),
    opt!(VerifyHeaderSeed, "verify_header_seed", [], Kind::Bool, "1", "Verify", "Verify the header seed used to generate the buffer contents"),
    opt!(VerifyWriteSequence, "verify_write_sequence", [], Kind::Bool, "1", "Verify", "Verify header write sequence number"),
    opt!(TrimPercentage, "trim_percentage", [], Kind::Int, "", "Verify", "Number of verify blocks to trim (i.e., discard)"),
    opt!(TrimVerifyZero, "trim_verify_zero", [], Kind::Bool, "1", "Verify", "Verify that trimmed (i.e., discarded) blocks are returned as zeroes"),
    opt!(TrimBacklog, "trim_backlog", [], Kind::Int, "", "Verify", "Trim after this number of blocks are written"),
    opt!(TrimBacklogBatch, "trim_backlog_batch", [], Kind::Int, "", "Verify", "Trim this number of IO blocks"),
    opt!(ContinueOnError, "continue_on_error", [], Kind::Choice(CONTINUE_VALUES), "none", "Error handling", "Continue on non-fatal errors during IO"),
    opt!(IgnoreError, "ignore_error", [], Kind::Text, "", "Error handling", "Set a specific list of errors to ignore: READ,WRITE,VERIFY lists of ':'-separated errno names or numbers"),
    opt!(Fault, "fault", [], Kind::Choice(FAULT_VALUES), "", "I/O engine", "The fault to inject", engines = [Faulty]),
    opt!(FaultRate, "fault_rate", [], Kind::Float, "1", "I/O engine", "Percentage of eligible requests that get the fault", engines = [Faulty]),
    opt!(FaultEngine, "fault_engine", [], Kind::Choice(ENGINE_VALUES), "psync", "I/O engine", "The engine whose requests get the faults", engines = [Faulty]),
];

/// The option with this name or alias.
pub(crate) fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS
        .iter()
        .find(|o| o.name == name || o.aliases.contains(&name))
}

/// Whether `name` is a job option: one ioscope has, or one of fio's that it
/// refuses as not supported yet (the binary uses this to tell job options
/// from mistyped program options).
pub fn is_job_option(name: &str) -> bool {
    find(name).is_some() || FIO_ONLY_OPTIONS.contains(&name) || fio_engines_of(name).is_some()
}

/// Why `name` is not an option: fio has it but ioscope does not yet (for an
/// engine's option, naming the engine), or it is unknown (with the closest
/// option ioscope takes, when one is close).
pub(crate) fn not_an_option(name: &str) -> String {
    if FIO_ONLY_OPTIONS.contains(&name) {
        return format!("fio option '{name}' is not supported by ioscope yet");
    }
    if let Some(engines) = fio_engines_of(name) {
        let names: Vec<String> = engines.iter().map(|e| format!("ioengine={e}")).collect();
        return format!(
            "'{name}' is an option of fio's {}, which ioscope does not support",
            names.join(" and ")
        );
    }
    match closest(name) {
        Some(best) => format!("unknown option '{name}' (did you mean '{best}'?)"),
        None => format!("unknown option '{name}'"),
    }
}

/// The option ioscope takes whose name is nearest to `name`, if it is near
/// enough to be a likely typo. fio's options that ioscope refuses are no
/// candidates: following such a suggestion would only lead to a refusal.
fn closest(name: &str) -> Option<&'static str> {
    let candidates = OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()));
    let (best, distance) = candidates
        .map(|c| (c, strsim::levenshtein(name, c)))
        .min_by_key(|&(_, d)| d)?;
    let limit = (name.chars().count() / 3).max(2);
    (distance <= limit).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_defined_once() {
        let mut names: Vec<&str> = OPTIONS
            .iter()
            .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
            .collect();
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total);
        for name in names {
            assert!(
                !FIO_ONLY_OPTIONS.contains(&name),
                "{name} is both supported and listed as fio-only"
            );
        }
    }

    #[test]
    fn aliases_find_their_option() {
        assert_eq!(find("readwrite").map(|o| o.id), Some(Opt::Rw));
        assert_eq!(find("io_limit").map(|o| o.id), Some(Opt::IoSize));
        assert_eq!(
            find("iodepth_batch_submit").map(|o| o.id),
            Some(Opt::IodepthBatchSubmit)
        );
        assert_eq!(
            find("wait_for_previous").map(|o| o.id),
            Some(Opt::Stonewall)
        );
        assert_eq!(find("timeout").map(|o| o.id), Some(Opt::Runtime));
        assert!(find("error_dump").is_none());
    }

    #[test]
    fn unknown_names_get_a_suggestion_or_a_fio_note() {
        assert_eq!(
            not_an_option("error_dump"),
            "fio option 'error_dump' is not supported by ioscope yet"
        );
        assert_eq!(
            not_an_option("iodepht"),
            "unknown option 'iodepht' (did you mean 'iodepth'?)"
        );
        assert_eq!(not_an_option("zzzzzzzzzz"), "unknown option 'zzzzzzzzzz'");
    }

    #[test]
    fn suggestions_are_only_options_ioscope_takes() {
        // fio's iomem_align and port are refused by ioscope: suggesting them
        // would send the user from one refusal to another.
        for (typo, refused) in [("mem_align", "iomem_align"), ("pool", "port")] {
            let msg = not_an_option(typo);
            assert!(!msg.contains(&format!("'{refused}'")), "{msg}");
        }
        assert!(not_an_option("pool").contains("ioengine=rados"));
        for def in OPTIONS {
            let typo = format!("{}x", def.name);
            if let Some(best) = closest(&typo) {
                assert!(find(best).is_some(), "{typo} -> {best}");
            }
        }
    }

    #[test]
    fn options_of_engines_ioscope_lacks_name_the_engine() {
        assert_eq!(
            not_an_option("program"),
            "'program' is an option of fio's ioengine=exec, which ioscope does not support"
        );
        assert!(not_an_option("hostname").contains("ioengine=net and ioengine=netsplice"));
        assert!(is_job_option("program"));
        for (_, names) in crate::fio_only::FIO_ENGINE_OPTIONS {
            for name in *names {
                assert!(find(name).is_none(), "{name} is ioscope's");
                assert!(!FIO_ONLY_OPTIONS.contains(name), "{name} is listed twice");
            }
        }
    }
}
