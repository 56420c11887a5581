//! The typed result of parsing one job: fio's options with fio's defaults.

use std::time::Duration;

use ioscope_engine::{Backend, XnvmeOptions};

/// One value per data direction, as fio's comma lists give them.
#[derive(Clone, Debug, PartialEq)]
pub struct PerDir<T> {
    pub read: T,
    pub write: T,
    pub trim: T,
}

impl<T> PerDir<T> {
    pub fn all(value: T) -> PerDir<T>
    where
        T: Clone,
    {
        PerDir {
            read: value.clone(),
            write: value.clone(),
            trim: value,
        }
    }
}

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwKind {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw` / `readwrite`: sequential mixed reads and writes.
    ReadWrite,
    RandRw,
    /// `trim`: sequential deallocation (NVMe Dataset Management; only
    /// engines that can send it, io_uring_cmd).
    Trim,
    RandTrim,
    /// `trimwrite`: each block is trimmed, then written.
    TrimWrite,
    RandTrimWrite,
}

impl RwKind {
    /// fio's name for it, as the header line and JSON print it.
    pub fn name(self) -> &'static str {
        match self {
            RwKind::Read => "read",
            RwKind::Write => "write",
            RwKind::RandRead => "randread",
            RwKind::RandWrite => "randwrite",
            RwKind::ReadWrite => "rw",
            RwKind::RandRw => "randrw",
            RwKind::Trim => "trim",
            RwKind::RandTrim => "randtrim",
            RwKind::TrimWrite => "trimwrite",
            RwKind::RandTrimWrite => "randtrimwrite",
        }
    }
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwKind::RandRead
                | RwKind::RandWrite
                | RwKind::RandRw
                | RwKind::RandTrim
                | RwKind::RandTrimWrite
        )
    }
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwKind::Read | RwKind::RandRead | RwKind::ReadWrite | RwKind::RandRw
        )
    }
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwKind::Write
                | RwKind::RandWrite
                | RwKind::ReadWrite
                | RwKind::RandRw
                | RwKind::TrimWrite
                | RwKind::RandTrimWrite
        )
    }
    /// True for the workloads that trim (deallocate): the trim kinds and the
    /// trim-then-write mixes.
    pub fn trims(self) -> bool {
        matches!(
            self,
            RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite
        )
    }
}

/// `rw=randread:8`: for a random pattern the suffix says how many I/Os to
/// issue before a new random offset is drawn (fio's `ddir_seq_nr`, used as
/// `rw_sequencer` says). The sequential form (`rw=read:4k`, a gap added
/// after every I/O) is kept in `Placement::seq_add`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RwMode {
    pub kind: RwKind,
    /// The `:N` suffix of a random pattern, 1 when absent.
    pub nr: u32,
}

/// One block-size rule for one direction.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockSize {
    Fixed(u64),
    /// `bsrange=min-max`: sizes chosen at random in the range, multiples of min.
    Range {
        min: u64,
        max: u64,
    },
    /// `bssplit=4k/10:64k/90`: (size, percent) pairs, percents adding to 100.
    Split(Vec<(u64, u32)>),
}

impl BlockSize {
    pub fn min(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { min, .. } => *min,
            BlockSize::Split(v) => v.iter().map(|p| p.0).min().unwrap_or(0),
        }
    }
    pub fn max(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { max, .. } => *max,
            BlockSize::Split(v) => v.iter().map(|p| p.0).max().unwrap_or(0),
        }
    }
}

/// A size that may be given as a share of the target (`size=50%`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeSpec {
    Bytes(u64),
    /// Percent of the file or device size, 0 < p <= 100.
    Percent(f64),
}

/// fio's `fadvise_hint`: what posix_fadvise tells the kernel about the
/// job's access pattern when it opens a file or block device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FadviseHint {
    /// `0`: no advice.
    None,
    /// `1`: FADV_RANDOM for random jobs, FADV_SEQUENTIAL for sequential ones.
    Workload,
    Random,
    Sequential,
    /// `noreuse` (fio 3.42): FADV_NOREUSE, the pages are read once.
    NoReuse,
}

/// fio's `random_generator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomGenerator {
    Tausworthe,
    Lfsr,
    Tausworthe64,
}

/// fio's `cpus_allowed_policy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpusAllowedPolicy {
    /// Every worker may run on every CPU in the set.
    Shared,
    /// Each worker gets one CPU of the set, round robin.
    Split,
}

/// fio's `clocksource`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSourceOpt {
    Gettimeofday,
    ClockGettime,
    Cpu,
}

/// The engine options of `io_uring` and `libaio` (fio's names in each
/// io_uring_cmd's protection information options, as written (fio's
/// defaults: no metadata buffer, PRACT set, no checks, application tag
/// 0x1234 under mask 0xffff).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PiOptions {
    /// `md_per_io_size`: bytes of each request's separate metadata buffer.
    pub md_per_io_size: u32,
    /// `pi_act`: the controller inserts and strips protection information.
    pub pi_act: bool,
    /// `pi_chk`: which fields are checked (GUARD, REFTAG, APPTAG in any
    /// order and separation, as fio finds them).
    pub pi_chk: String,
    /// `apptag`, `apptag_mask`.
    pub apptag: u16,
    pub apptag_mask: u16,
}

impl Default for PiOptions {
    fn default() -> PiOptions {
        PiOptions {
            md_per_io_size: 0,
            pi_act: true,
            pi_chk: String::new(),
            apptag: 0x1234,
            apptag_mask: 0xffff,
        }
    }
}

/// field's doc), as written: an option of another engine than the job's is
/// refused by the parser, so only the job's engine's options can be set.
/// Everything is off by default, as in fio. `hipri` is [`JobSpec::hipri`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// io_uring `sqthread_poll`: a kernel thread polls the submission queue.
    pub sqthread_poll: bool,
    /// io_uring `sqthread_poll_cpu`: the CPU of that thread. The parser
    /// refuses it without `sqthread_poll` (fio ignores it then).
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring `fixedbufs`: buffers registered with the ring.
    pub fixedbufs: bool,
    /// io_uring `registerfiles`: files registered with the ring.
    pub registerfiles: bool,
    /// io_uring `nonvectored`: `Some(true)` for READ/WRITE, `Some(false)` for
    /// READV/WRITEV, `None` (fio's default, `-1`) to use READ/WRITE where the
    /// kernel has them.
    pub nonvectored: Option<bool>,
    /// io_uring `force_async=N`: IOSQE_ASYNC on every Nth request; 0 never.
    pub force_async: u32,
    /// io_uring, libaio and pvsync2 `nowait`: RWF_NOWAIT on every transfer.
    pub nowait: bool,
    /// io_uring and pvsync2 `uncached` (fio 3.33 takes a number; any but 0 sets it):
    /// buffered transfers drop their pages from the page cache.
    pub uncached: bool,
    /// `count_punts` (ioscope's): count the requests io_uring hands to
    /// io-wq, with a kernel tracepoint counter on the worker's threads.
    pub count_punts: bool,
    /// libaio `userspace_reap`: reap completions from the AIO ring in user
    /// space when a reap need not wait.
    pub userspace_reap: bool,
    /// libaio `libaio_vectored`: IOCB_CMD_PREADV/PWRITEV instead of
    /// PREAD/PWRITE.
    pub vectored: bool,
    /// io_uring_cmd `write_mode`: the NVMe command a write becomes.
    pub write_mode: WriteModes,
    /// io_uring_cmd `verify_mode` (fio 3.42): the NVMe command a verify
    /// read becomes.
    pub verify_mode: VerifyMode,
    /// io_uring_cmd `deac`: Write Zeroes deallocates (DEAC bit).
    pub deac: bool,
    /// io_uring_cmd `readfua`: Force Unit Access on reads.
    pub readfua: bool,
    /// io_uring_cmd `writefua`: Force Unit Access on writes and Write Zeroes.
    pub writefua: bool,
    /// io_uring_cmd's protection information options (fio 3.35's).
    pub pi: PiOptions,
    /// faulty `fault`: the fault injected; None injects nothing.
    pub fault: Option<InjectedFault>,
    /// faulty `fault_rate`: percent of eligible requests, in millionths of
    /// a percent so the options stay comparable (`Eq`); None for the
    /// default, 1%.
    pub fault_rate_micro: Option<u64>,
    /// faulty `fault_engine`: the engine that does the I/O, default psync.
    pub fault_engine: Option<Backend>,
    /// xnvme's options (`xnvme_async`, `xnvme_sync`, ...): which backend
    /// runs the job comes from [`XnvmeOptions::backend`].
    pub xnvme: XnvmeOptions,
}

/// The faults the `faulty` engine injects (its `fault` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InjectedFault {
    /// One bit of a write's data flipped.
    BitFlip,
    /// A write not done, reported done.
    Drop,
    /// A write done at the neighbouring block.
    Misdirect,
    /// Only the first half of a write done.
    Torn,
    /// Half of a read's length reported.
    ShortRead,
    ReadEio,
    WriteEio,
}

/// io_uring_cmd `write_mode`: which NVMe command a write issues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteMode {
    /// Write, with data (fio's default).
    #[default]
    Write,
    /// Write Uncorrectable (`uncor`): no data moves, and the blocks read
    /// back as errors until they are written again.
    Uncorrectable,
    /// Write Zeroes: no data moves.
    Zeroes,
    /// NVMe Verify (`verify`): the device checks that the blocks can be
    /// read; no data moves and nothing is written.
    Verify,
    /// Zone Append to the zone of each write's offset (a newer fio's),
    /// with `zonemode=zbd` only.
    ZoneAppend,
}

impl WriteMode {
    /// fio's name of the mode (`write_mode=uncor`).
    pub fn name(self) -> &'static str {
        match self {
            WriteMode::Write => "write",
            WriteMode::Uncorrectable => "uncor",
            WriteMode::Zeroes => "zeroes",
            WriteMode::Verify => "verify",
            WriteMode::ZoneAppend => "zone_append",
        }
    }

    /// Whether the command sends the write's data to the device.
    pub fn carries_data(self) -> bool {
        matches!(self, WriteMode::Write | WriteMode::ZoneAppend)
    }
}

/// One share of a `write_mode` mix: `percent` of the writes are `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteShare {
    pub mode: WriteMode,
    pub percent: u32,
}

/// io_uring_cmd `write_mode` as a whole: one mode for every write, or a
/// newer fio's mix (`write/60:zeroes/30:uncor/10`), drawn for each write.
/// The shares add up to 100; a single mode is one share of 100.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteModes {
    shares: Vec<WriteShare>,
}

impl Default for WriteModes {
    fn default() -> WriteModes {
        WriteModes::single(WriteMode::Write)
    }
}

impl WriteModes {
    pub fn single(mode: WriteMode) -> WriteModes {
        WriteModes {
            shares: vec![WriteShare { mode, percent: 100 }],
        }
    }

    /// A mix of shares adding up to 100 (the parser checks them).
    pub fn mix(shares: Vec<WriteShare>) -> WriteModes {
        WriteModes { shares }
    }

    /// The shares in the order they were given.
    pub fn shares(&self) -> &[WriteShare] {
        &self.shares
    }

    /// The mode of every write, or None for a mix.
    pub fn only(&self) -> Option<WriteMode> {
        match self.shares[..] {
            [one] => Some(one.mode),
            _ => None,
        }
    }

    /// Whether `mode` is named at all, even with a share of 0%, as fio's
    /// checks of zone_append look at every entry.
    pub fn names(&self, mode: WriteMode) -> bool {
        self.shares.iter().any(|s| s.mode == mode)
    }

    /// Whether every write is a plain Write.
    pub fn plain(&self) -> bool {
        self.only() == Some(WriteMode::Write)
    }

    /// Whether some write may send data.
    pub fn some_carry_data(&self) -> bool {
        self.shares.iter().any(|s| s.mode.carries_data())
    }

    /// The option's value as fio takes it.
    pub fn text(&self) -> String {
        match self.only() {
            Some(mode) => mode.name().to_string(),
            None => self
                .shares
                .iter()
                .map(|s| format!("{}/{}", s.mode.name(), s.percent))
                .collect::<Vec<_>>()
                .join(":"),
        }
    }
}

/// io_uring_cmd `verify_mode` (fio 3.42): how the verify phase checks a
/// block. Only `verify=pattern` can be compared in the device (the job
/// refuses it otherwise, where fio's HOWTO says it must not be used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerifyMode {
    /// Read it back and check it on the host (fio's default).
    #[default]
    Read,
    /// Send the expected data with an NVMe Compare: the device checks it
    /// and fails the command where it differs; nothing is read back.
    Compare,
}

/// A fill pattern (fio's `verify_pattern` and `buffer_pattern`), parsed:
/// the bytes of one repetition, with 8 bytes at each of `offsets` that take
/// the block's offset (native endian, as fio pastes it) when a buffer is
/// filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub bytes: Vec<u8>,
    pub offsets: Vec<usize>,
}

/// fio's `verify`: what a written block carries so that reading it back can
/// prove it is the block that was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyMethod {
    /// `verify=0` (fio's default): no verification.
    None,
    Md5,
    Crc64,
    Crc32,
    Crc32c,
    /// `crc32c-intel`: fio's name for crc32c with the CPU instruction, which
    /// ioscope's crc32c uses whenever the CPU has it; the same checksum.
    Crc32cIntel,
    /// CRC-16/ARC, as fio's crc16 (the Linux kernel's crc16).
    Crc16,
    /// CRC-7/MMC, as fio's crc7 (the Linux kernel's crc7).
    Crc7,
    Sha1,
    Sha256,
    Sha512,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    Xxhash,
    /// `pattern`: the block holds `verify_pattern` and nothing else (fio's
    /// VERIFY_PATTERN_NO_HDR).
    Pattern,
    /// `pattern_hdr` (fio's VERIFY_PATTERN, named so in fio 3.42; what
    /// `verify_pattern` without `verify` selects): each interval starts
    /// with fio's own verify header, laid out as fio 3.42 lays it, and the
    /// rest holds `verify_pattern`, its phase carried on past the header.
    PatternHdr,
    /// `meta`: the header alone (offset, write number, ...), no data checksum.
    Meta,
    /// `null`: headers are written and nothing is checked (measures the cost).
    Null,
}

impl VerifyMethod {
    /// fio's name for it.
    pub fn name(self) -> &'static str {
        match self {
            VerifyMethod::None => "0",
            VerifyMethod::Md5 => "md5",
            VerifyMethod::Crc64 => "crc64",
            VerifyMethod::Crc32 => "crc32",
            VerifyMethod::Crc32c => "crc32c",
            VerifyMethod::Crc32cIntel => "crc32c-intel",
            VerifyMethod::Crc16 => "crc16",
            VerifyMethod::Crc7 => "crc7",
            VerifyMethod::Sha1 => "sha1",
            VerifyMethod::Sha256 => "sha256",
            VerifyMethod::Sha512 => "sha512",
            VerifyMethod::Sha3_224 => "sha3-224",
            VerifyMethod::Sha3_256 => "sha3-256",
            VerifyMethod::Sha3_384 => "sha3-384",
            VerifyMethod::Sha3_512 => "sha3-512",
            VerifyMethod::Xxhash => "xxhash",
            VerifyMethod::Pattern => "pattern",
            VerifyMethod::PatternHdr => "pattern_hdr",
            VerifyMethod::Meta => "meta",
            VerifyMethod::Null => "null",
        }
    }
}

/// The verify options (fio's names in each field's doc).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySpec {
    /// `verify`, default none.
    pub method: VerifyMethod,
    /// `do_verify`, default true: read back and check after writing.
    pub do_verify: bool,
    /// `verify_only`: write nothing; check what the same job wrote before.
    pub only: bool,
    /// `verify_backlog`: check the last blocks written after this many
    /// writes; 0 (default) checks everything at the end.
    pub backlog: u64,
    /// `verify_backlog_batch`: how many of them; default `backlog`.
    pub backlog_batch: u64,
    /// `verify_interval`: a header every this many bytes of a block. Derived
    /// as fio does: the gcd of the smallest and largest write size unless
    /// set to a size that divides both.
    pub interval: u64,
    /// `verify_offset`: the header is swapped with the data at this offset
    /// of each interval before writing, and back before checking.
    pub offset: u64,
    /// `verify_pattern`; setting it makes `verify=pattern_hdr` the method
    /// unless `verify` was set too (fio's str_verify_pattern_cb); with any
    /// method but `pattern` the pattern fills the data around headers.
    pub pattern: Option<Pattern>,
    /// `verify_fatal`: stop the job at the first bad block.
    pub fatal: bool,
    /// `verify_dump`: write the bad block and the expected one to files.
    pub dump: bool,
    /// `verify_async`: threads that check blocks off the I/O path; 0 checks
    /// in the worker.
    pub async_threads: u32,
    /// `verify_state_save`, default true: a job stopped while writing saves
    /// how far it got.
    pub state_save: bool,
    /// `verify_state_load`: a verify_only job checks only what the saved
    /// state says was written.
    pub state_load: bool,
    /// `verify_pattern_interval`: the pattern starts again (its `%o` the
    /// offset of that byte) every this many bytes; 0 lays it once per block.
    pub pattern_interval: u64,
    /// `experimental_verify`: the verify phase replays the workload's
    /// offsets instead of remembering each write.
    pub experimental: bool,
    /// `verify_header_seed`: a block's header must carry this job's seed.
    /// fio's default is on, but off for read workloads, `verify_only`,
    /// `norandommap` and offset modifiers, where the seed cannot be known,
    /// unless it was written.
    pub header_seed: bool,
    /// `verify_write_sequence`: a block's header must carry the number of
    /// the write the job made last there. Default on, off for `verify_only`
    /// and `experimental_verify` unless written.
    pub write_sequence: bool,
}

/// fio's trim-then-verify options (they act on written blocks of a verify
/// job).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimVerifySpec {
    /// `trim_percentage`: share of the verified blocks trimmed first.
    pub percentage: u32,
    /// `trim_verify_zero`, default true: a trimmed block must read back zeroes.
    pub verify_zero: bool,
    /// `trim_backlog`: trim after this many writes; 0 trims at verify time.
    pub backlog: u64,
    /// `trim_backlog_batch`: how many blocks each time; default `backlog`.
    pub backlog_batch: u64,
}

/// The kinds of error `continue_on_error` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    Read,
    Write,
    Verify,
}

/// `continue_on_error` and `ignore_error`: which errors a job counts and
/// goes on after, rather than stopping at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorPolicy {
    /// `continue_on_error`, by class: read, write, verify.
    pub continue_on: [bool; 3],
    /// `ignore_error`: the errnos each class goes on after; fio's default
    /// (EIO and EILSEQ) where not given.
    pub ignore: [Vec<i32>; 3],
}

impl ErrorPolicy {
    /// Whether an error of `class` with `errno` lets the job go on.
    pub fn tolerates(&self, class: ErrorClass, errno: i32) -> bool {
        let i = class as usize;
        self.continue_on[i] && self.ignore[i].contains(&errno)
    }

    /// Whether any class goes on after errors (fio then reports the error
    /// count and the first error).
    pub fn any(&self) -> bool {
        self.continue_on.iter().any(|&c| c)
    }
}

/// Where a job was defined, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A section of a job file, with the line of its `[name]` header.
    File {
        path: String,
        line: usize,
    },
    CommandLine,
}

/// One job with every supported option resolved to its value (fio's default
/// where the job did not set it). Each field's doc names the fio option.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// `name`: the section name or `--name`.
    pub name: String,
    pub origin: Origin,
    /// `description`.
    pub description: Option<String>,
    /// `filename`: the `:`-separated list split, `\:` unescaped. Empty when not set.
    pub filenames: Vec<String>,
    /// `directory`.
    pub directory: Option<String>,
    /// `size`; None when not set (then the target's own size is used).
    pub size: Option<SizeSpec>,
    /// `filesize`: (min, max) per file; None when not set.
    pub filesize: Option<(u64, u64)>,
    /// `offset`.
    pub offset: SizeSpec,
    /// `offset_increment`: clone N of the job starts at offset + N * this
    /// (bytes, or a percentage of the file's size as fio 3.33 allows).
    pub offset_increment: SizeSpec,
    /// `io_size` (alias `io_limit`); None when not set.
    pub io_size: Option<u64>,
    /// `io_size=N%`: each loop moves N percent of every file's bytes
    /// (fio's io_size_percent); None when not given as a percentage.
    pub io_size_percent: Option<u32>,
    /// `nrfiles`, default 1.
    pub nrfiles: u32,
    /// `unlink`, default false.
    pub unlink: bool,
    /// `rw` / `readwrite`, default read.
    pub rw: RwMode,
    /// `rwmixread` (percent; `rwmixwrite` sets 100 - it), default 50.
    pub rwmixread: u32,
    /// `num_range`: ranges per trim request, 1..=256, default 1. Above 1
    /// the next trims of the workload go out together in one command
    /// (NVMe Dataset Management; only engines with such a command take it).
    pub num_range: u32,
    /// `bs` / `bsrange` / `bssplit`, default 4k for every direction.
    pub bs: PerDir<BlockSize>,
    /// `direct` (`buffered` is its inverse), default false.
    pub direct: bool,
    /// `iodepth`, default 1.
    pub iodepth: u32,
    /// `iodepth_batch_submit` (alias `iodepth_batch`), default 1.
    pub iodepth_batch_submit: u32,
    /// `iodepth_batch_complete_min` (alias `iodepth_batch_complete`), default 1.
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max`, default `iodepth_batch_complete_min`
    /// (fio raises it to the minimum when it is set lower).
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low`, default iodepth.
    pub iodepth_low: u32,
    /// `numjobs`, default 1.
    pub numjobs: u32,
    /// `thread`, default false.
    pub thread: bool,
    /// `group_reporting`, default false.
    pub group_reporting: bool,
    /// `stonewall` / `wait_for_previous`, or `new_group`: this job starts a new
    /// reporting group. `stonewall` also waits for the jobs before it.
    pub stonewall: bool,
    pub new_group: bool,
    /// `time_based`, default false.
    pub time_based: bool,
    /// `runtime` (seconds by default); None when not set.
    pub runtime: Option<Duration>,
    /// `ramp_time` (seconds by default), default 0.
    pub ramp_time: Duration,
    /// `ramp_size` (fio 3.42): bytes to complete, every direction
    /// together, before measuring starts; with `group_reporting` the
    /// whole reporting group's. 0 when not set (fio's minimum is 1).
    pub ramp_size: u64,
    /// `startdelay` (seconds by default): (min, max), a random delay between.
    pub startdelay: (Duration, Duration),
    /// `loops`, default 1.
    pub loops: u32,
    /// `norandommap`, default false.
    pub norandommap: bool,
    /// `randrepeat`, default true.
    pub randrepeat: bool,
    /// `randseed`; None when not set (fio's default seed 0x89 applies).
    pub randseed: Option<u64>,
    /// `random_generator`, default tausworthe.
    pub random_generator: RandomGenerator,
    /// Where I/Os go: `random_distribution`, `percentage_random`, `rw=read:N`
    /// holes, `rw_sequencer`, `blockalign`, `offset_align`, ...
    pub placement: crate::placement::Placement,
    /// `cpus_allowed` or `cpumask` (its bitmask form): CPU numbers; empty when not set.
    pub cpus_allowed: Vec<u32>,
    /// `cpus_allowed_policy`, default shared.
    pub cpus_allowed_policy: CpusAllowedPolicy,
    /// `ioengine`, default psync.
    pub ioengine: Backend,
    /// `hipri` (pvsync2 and io_uring engine option), default false.
    pub hipri: bool,
    /// The other engine options, all off by default.
    pub engine_options: EngineOptions,
    /// The network engines' options (`net`, `netsplice`).
    pub net: crate::NetSpec,
    /// The options of filestat, cpuio and exec.
    pub engines_misc: crate::EnginesMisc,
    /// `fsync`: fsync after this many writes, 0 for never.
    pub fsync: u32,
    /// `end_fsync`, default false.
    pub end_fsync: bool,
    /// `fadvise_hint`, default 1 (advise the job's own pattern).
    pub fadvise_hint: FadviseHint,
    /// `invalidate`: drop the files' cached pages when the job starts, default true.
    pub invalidate: bool,
    /// `kb_base`, 1024 or 1000, default 1024.
    pub kb_base: u32,
    /// `percentile_list`, default fio's 17 percentiles.
    pub percentile_list: Vec<f64>,
    /// `clat_percentiles`, default true.
    pub clat_percentiles: bool,
    /// `lat_percentiles`, default false.
    pub lat_percentiles: bool,
    /// `slat_percentiles`, default false.
    pub slat_percentiles: bool,
    /// `disable_lat`, `disable_clat`, `disable_slat` (gtod_reduce sets all three).
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    /// `gtod_reduce`, default false.
    pub gtod_reduce: bool,
    /// `clocksource`, default cpu where fio would pick it.
    pub clocksource: ClockSourceOpt,
    /// `zero_buffers`, default false.
    pub zero_buffers: bool,
    /// `scramble_buffers`, default true.
    pub scramble_buffers: bool,
    /// `refill_buffers`, default false.
    pub refill_buffers: bool,
    /// `allow_mounted_write`, default false.
    pub allow_mounted_write: bool,
    /// `allow_signature_write` (ioscope's): write to a block device that
    /// holds a filesystem, partition table or other recognisable signature.
    pub allow_signature_write: bool,
    /// `buffer_pattern`; None when not set.
    pub buffer_pattern: Option<Pattern>,
    /// `buffer_compress_percentage`; None when not set.
    pub buffer_compress_percentage: Option<u32>,
    /// `buffer_compress_chunk`, default 512; 0 for the smallest write.
    pub buffer_compress_chunk: u64,
    /// `dedupe_percentage`, default 0.
    pub dedupe_percentage: u32,
    /// `verify` and its companions.
    pub verify: VerifySpec,
    /// `trim_percentage`, `trim_verify_zero`, `trim_backlog`, `trim_backlog_batch`.
    pub trim_verify: TrimVerifySpec,
    /// `continue_on_error`, `ignore_error`.
    pub errors: ErrorPolicy,
    /// `exitall`, default false.
    pub exitall: bool,
    /// Job control, steady state, exec_prerun/postrun, nice and I/O priority.
    pub process: crate::process::ProcessSpec,
    /// `create_on_open`, default false.
    pub create_on_open: bool,
    /// Naming, creating, laying out, choosing and syncing the files.
    pub file_handling: crate::file_handling::FileHandling,
    /// `write_iolog`, `read_iolog` and the `replay_*` options.
    pub iolog: IologSpec,
    /// The logs it writes: `write_bw_log` and its family.
    pub logs: crate::log_spec::LogSpec,
    /// Rate, think time, number_ios, flows and latency limits.
    pub pacing: crate::pacing::PacingSpec,
    /// Per-I/O priorities (`cmdprio*`) and pvsync2's `hipri_percentage`.
    pub cmdprio: crate::cmdprio::CmdprioSpec,
    /// `zonemode` and its companions.
    pub zones: crate::zones::ZoneSpec,
    /// `unified_rw_reporting`, the memory options (`mem`, `lockmem`...)
    /// and the dedupe ones (`dedupe_mode`...).
    pub misc: crate::misc_spec::MiscSpec,
    /// The options set in this job's own section (or after its `--name`), as
    /// written, for the JSON "job options" echo.
    pub options: Vec<(String, String)>,
}

/// I/O log capture and replay (fio's "I/O replay" options).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IologSpec {
    /// `write_iolog`: every I/O issued goes to this file (appended to).
    pub write: Option<String>,
    /// `read_iolog`: the logs to replay, the `:`-separated list split;
    /// clone N of the job replays log N modulo their number. Empty when
    /// not set.
    pub read: Vec<String>,
    /// `replay_no_stall`: issue as fast as possible, not at the log's times.
    pub no_stall: bool,
    /// `replay_time_scale`: percent of the log's pace (200 runs twice as fast).
    pub time_scale: u32,
    /// `replay_redirect`: every I/O goes to this file instead.
    pub redirect: Option<String>,
    /// `replay_align`: offsets rounded down to this power of two; 0 for none.
    pub align: u64,
    /// `replay_scale`: offsets divided by this; 0 or 1 leaves them.
    pub scale: u64,
    /// `replay_skip`: directions not replayed.
    pub skip: ReplaySkip,
    /// `merge_blktrace_file`: the blktrace traces of `read` are merged into
    /// this file before the run, and it is replayed in their place.
    pub merge: Option<String>,
    /// `merge_blktrace_scalars`: per trace of `read`, the percent its times
    /// are scaled by in the merge (whole, as fio keeps it); empty for 100
    /// each.
    pub merge_scalars: Vec<u64>,
    /// `merge_blktrace_iters`: per trace of `read`, how many times it is
    /// played back to back in the merge; empty for once each.
    pub merge_iters: Vec<u64>,
}

/// `replay_skip`'s set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplaySkip {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub sync: bool,
}

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];
