//! One job's options while its sections are being read: low-level values as
//! written (first step), then validated and turned into a [`JobSpec`] with
//! fio's derived defaults (second step).

use std::time::Duration;

use crate::options::{Kind, Opt, OptionDef, ENGINE_VALUES};
use crate::pattern;
use crate::spec::*;
use crate::values;

/// A job's settings before derivation. Cloned from the global settings when
/// a job section starts, as fio copies its parent thread's options.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// Every option that maps one to one onto the spec lives here.
    pub spec: JobSpec,
    bs: PerDir<u64>,
    bsrange: PerDir<Option<(u64, u64)>>,
    bssplit: PerDir<Option<Vec<(u64, u32)>>>,
    /// 0 until set: then the derived defaults apply.
    iodepth_batch_complete_max: u32,
    iodepth_low: u32,
    /// Whether scramble_buffers was written, which fio's buffer setup asks.
    scramble_set: bool,
    /// Whether `verify`, `refill_buffers` were written (fio's derived
    /// defaults depend on it).
    verify_set: bool,
    refill_set: bool,
    /// `verify_interval` as written; 0 until set.
    verify_interval: u64,
    /// `verify_header_seed` and `verify_write_sequence` as written: their
    /// defaults depend on the workload.
    verify_header_seed: Option<bool>,
    verify_write_sequence: Option<bool>,
}

/// The most ranges `num_range` may ask for in one trim: what one NVMe
/// Dataset Management command carries, and fio's MAX_TRIM_RANGE.
const MAX_NUM_RANGE: u32 = 256;

/// fio's `__NON_FATAL_ERR`: the errors continue_on_error goes on after
/// unless ignore_error names others.
const DEFAULT_IGNORED: [i32; 2] = [libc::EIO, libc::EILSEQ];

impl Settings {
    /// fio's defaults.
    pub(crate) fn defaults() -> Settings {
        Settings {
            spec: JobSpec {
                name: String::new(),
                origin: Origin::CommandLine,
                description: None,
                filenames: Vec::new(),
                directory: None,
                size: None,
                filesize: None,
                offset: SizeSpec::Bytes(0),
                io_size: None,
                offset_increment: 0,
                nrfiles: 1,
                unlink: false,
                rw: RwMode {
                    kind: RwKind::Read,
                    nr: 1,
                },
                rwmixread: 50,
                num_range: 1,
                bs: PerDir::all(BlockSize::Fixed(4096)),
                direct: false,
                iodepth: 1,
                iodepth_batch_submit: 1,
                iodepth_batch_complete_min: 1,
                iodepth_batch_complete_max: 1,
                iodepth_low: 1,
                numjobs: 1,
                thread: false,
                group_reporting: false,
                stonewall: false,
                new_group: false,
                time_based: false,
                runtime: None,
                ramp_time: Duration::ZERO,
                startdelay: (Duration::ZERO, Duration::ZERO),
                loops: 1,
                norandommap: false,
                randrepeat: true,
                randseed: None,
                random_generator: RandomGenerator::Tausworthe,
                cpus_allowed: Vec::new(),
                cpus_allowed_policy: CpusAllowedPolicy::Shared,
                ioengine: IoEngine::Psync,
                hipri: false,
                engine_options: EngineOptions::default(),
                fsync: 0,
                end_fsync: false,
                invalidate: true,
                fadvise_hint: FadviseHint::Workload,
                kb_base: 1024,
                percentile_list: DEFAULT_PERCENTILES.to_vec(),
                clat_percentiles: true,
                lat_percentiles: false,
                slat_percentiles: false,
                disable_lat: false,
                disable_clat: false,
                disable_slat: false,
                gtod_reduce: false,
                clocksource: ClockSourceOpt::Cpu,
                zero_buffers: false,
                scramble_buffers: true,
                refill_buffers: false,
                allow_mounted_write: false,
                allow_signature_write: false,
                buffer_pattern: None,
                buffer_compress_percentage: None,
                buffer_compress_chunk: 512,
                dedupe_percentage: 0,
                verify: VerifySpec {
                    method: VerifyMethod::None,
                    do_verify: true,
                    only: false,
                    backlog: 0,
                    backlog_batch: 0,
                    interval: 0,
                    offset: 0,
                    pattern: None,
                    pattern_interval: 0,
                    fatal: false,
                    dump: false,
                    async_threads: 0,
                    state_save: true,
                    state_load: false,
                    experimental: false,
                    header_seed: true,
                    write_sequence: true,
                },
                trim_verify: TrimVerifySpec {
                    percentage: 0,
                    verify_zero: true,
                    backlog: 0,
                    backlog_batch: 0,
                },
                errors: ErrorPolicy {
                    continue_on: [false; 3],
                    ignore: [
                        DEFAULT_IGNORED.to_vec(),
                        DEFAULT_IGNORED.to_vec(),
                        DEFAULT_IGNORED.to_vec(),
                    ],
                },
                exitall: false,
                create_on_open: false,
                options: Vec::new(),
            },
            bs: PerDir::all(4096),
            bsrange: PerDir::all(None),
            bssplit: PerDir::all(None),
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            scramble_set: false,
            verify_set: false,
            refill_set: false,
            verify_interval: 0,
            verify_header_seed: None,
            verify_write_sequence: None,
        }
    }

    /// Applies one option. The error says what was expected; the caller
    /// adds the place, the option and the value.
    pub(crate) fn apply(&mut self, def: &OptionDef, value: Option<&str>) -> Result<(), String> {
        let text = match (value, def.kind) {
            (None, Kind::Flag) => "1",
            (None, _) => return Err("a value is needed".to_string()),
            (Some(v), _) => v.trim(),
        };
        if text.contains(',') && def.kind == Kind::FloatList {
            // fio would silently drop everything after the comma.
            return Err("separate the values with ':', not ','".to_string());
        }
        if text.contains(',')
            && !matches!(
                def.kind,
                Kind::Text
                    | Kind::PerDirSize
                    | Kind::PerDirRange
                    | Kind::Split
                    | Kind::CpuList
                    | Kind::TimeRange
            )
        {
            return Err("takes one value, not a comma-separated list".to_string());
        }
        let kb = self.spec.kb_base;
        let s = &mut self.spec;
        // fio's "empty or boolean" options take any number; its booleans
        // only 0 or 1.
        let any_number = def.kind == Kind::Flag;
        let flag = |t: &str| {
            if any_number {
                values::flag(t)
            } else {
                values::boolean(t)
            }
        };
        let seconds = |t: &str| values::time_us(t, 1_000_000).map(Duration::from_micros);
        match def.id {
            Opt::Name => s.name = text.to_string(),
            Opt::Description => s.description = Some(text.to_string()),
            Opt::Filename => {
                let names = values::filenames(text);
                if names.iter().any(|n| n == "-") {
                    // fio reads standard input for reads and writes standard
                    // output for writes; ioscope's targets are files and
                    // devices it can open, size and lay out.
                    return Err(
                        "'-' (fio: standard input or output) is not supported by ioscope; \
                         name a file or device"
                            .to_string(),
                    );
                }
                s.filenames = names;
            }
            Opt::Directory => s.directory = Some(text.to_string()),
            // fio reads size=0 and io_size=0 as "not set".
            Opt::Size => {
                s.size = match values::size_or_percent(text, kb)? {
                    SizeSpec::Bytes(0) => None,
                    size => Some(size),
                }
            }
            Opt::Filesize => {
                let one = |t: &str| values::size(t, kb);
                let range = if text.contains(['-', ':']) {
                    values::range(text, one)?
                } else {
                    let v = one(text)?;
                    (v, v)
                };
                if range.0 == 0 {
                    return Err("a file size must be at least 1 byte".to_string());
                }
                s.filesize = Some(range);
            }
            Opt::Offset => s.offset = values::size_or_percent(text, kb)?,
            Opt::OffsetIncrement => s.offset_increment = values::size(text, kb)?,
            Opt::IoSize => s.io_size = Some(values::size(text, kb)?).filter(|&b| b > 0),
            Opt::Nrfiles => s.nrfiles = values::uint(text, kb, 1)?,
            Opt::Unlink => s.unlink = flag(text)?,
            Opt::Rw => s.rw = rw_mode(text, kb)?,
            Opt::Rwmixread => s.rwmixread = percent(text, kb)?,
            Opt::Rwmixwrite => s.rwmixread = 100 - percent(text, kb)?,
            Opt::Bs => {
                self.bs = values::per_dir(text, &self.bs, |t| {
                    if t.contains(['-', ':']) && !t.starts_with('(') {
                        return Err(format!(
                            "'{t}' is a range; bs takes one size per direction (use bsrange for a range)"
                        ));
                    }
                    block_size(t, kb)
                })?
            }
            Opt::Bsrange => {
                self.bsrange = values::per_dir(text, &self.bsrange, |t| {
                    let (min, max) = values::range(t, |v| block_size(v, kb))?;
                    Ok(Some((min, max)))
                })?
            }
            Opt::Bssplit => {
                self.bssplit = values::per_dir(text, &self.bssplit, |t| bssplit(t, kb).map(Some))?
            }
            Opt::Direct => s.direct = flag(text)?,
            Opt::Buffered => s.direct = !flag(text)?,
            Opt::Iodepth => s.iodepth = values::uint(text, kb, 1)?,
            Opt::IodepthBatchSubmit => s.iodepth_batch_submit = values::uint(text, kb, 0)?,
            Opt::IodepthBatchCompleteMin => {
                s.iodepth_batch_complete_min = values::uint(text, kb, 0)?
            }
            Opt::IodepthBatchCompleteMax => {
                self.iodepth_batch_complete_max = values::uint(text, kb, 0)?
            }
            Opt::IodepthLow => self.iodepth_low = values::uint(text, kb, 0)?,
            Opt::Numjobs => s.numjobs = values::uint(text, kb, 1)?,
            Opt::Thread => s.thread = flag(text)?,
            Opt::GroupReporting => s.group_reporting = flag(text)?,
            Opt::Stonewall => s.stonewall = flag(text)?,
            Opt::NewGroup => s.new_group = flag(text)?,
            Opt::TimeBased => s.time_based = flag(text)?,
            Opt::Runtime => {
                let t = seconds(text)?;
                // fio treats runtime=0 as "no limit".
                s.runtime = (!t.is_zero()).then_some(t);
            }
            Opt::RampTime => s.ramp_time = seconds(text)?,
            Opt::Startdelay => {
                s.startdelay = if text.contains(['-', ':', ',']) {
                    let t = text.replace(',', "-");
                    values::range(&t, seconds)?
                } else {
                    let t = seconds(text)?;
                    (t, t)
                }
            }
            // fio runs a job with loops=0 once, as with loops=1.
            Opt::Loops => s.loops = values::uint(text, kb, 0)?.max(1),
            Opt::Norandommap => s.norandommap = flag(text)?,
            Opt::Randrepeat => s.randrepeat = flag(text)?,
            Opt::Randseed => s.randseed = Some(values::size(text, kb)?),
            Opt::FadviseHint => {
                s.fadvise_hint = match text {
                    "0" => FadviseHint::None,
                    "1" => FadviseHint::Workload,
                    "random" => FadviseHint::Random,
                    "sequential" => FadviseHint::Sequential,
                    _ => return Err(choices(def)),
                }
            }
            Opt::RandomGenerator => {
                s.random_generator = match text {
                    "tausworthe" => RandomGenerator::Tausworthe,
                    "lfsr" => RandomGenerator::Lfsr,
                    "tausworthe64" => RandomGenerator::Tausworthe64,
                    _ => return Err(choices(def)),
                }
            }
            Opt::CpusAllowed => s.cpus_allowed = values::cpu_list(text)?,
            Opt::CpusAllowedPolicy => {
                s.cpus_allowed_policy = match text {
                    "shared" => CpusAllowedPolicy::Shared,
                    "split" => CpusAllowedPolicy::Split,
                    _ => return Err(choices(def)),
                }
            }
            Opt::Ioengine => {
                let engine = engine(text)?;
                // Switching engines gives the new engine's options their
                // defaults, as fio loads a fresh engine option block.
                if engine != s.ioengine {
                    s.hipri = false;
                    s.engine_options = EngineOptions::default();
                }
                s.ioengine = engine;
            }
            Opt::Hipri => s.hipri = flag(text)?,
            Opt::SqthreadPoll => s.engine_options.sqthread_poll = flag(text)?,
            Opt::SqthreadPollCpu => {
                s.engine_options.sqthread_poll_cpu = Some(values::uint(text, kb, 0)?)
            }
            Opt::Fixedbufs => s.engine_options.fixedbufs = flag(text)?,
            Opt::Registerfiles => s.engine_options.registerfiles = flag(text)?,
            Opt::Nonvectored => s.engine_options.nonvectored = nonvectored(text, kb)?,
            Opt::ForceAsync => s.engine_options.force_async = values::uint(text, kb, 0)?,
            Opt::Nowait => s.engine_options.nowait = flag(text)?,
            // fio 3.33 reads uncached as a number and tests it for non-zero.
            Opt::Uncached => s.engine_options.uncached = values::uint(text, kb, 0)? != 0,
            Opt::CountPunts => s.engine_options.count_punts = flag(text)?,
            Opt::UserspaceReap => s.engine_options.userspace_reap = flag(text)?,
            Opt::LibaioVectored => s.engine_options.vectored = flag(text)?,
            Opt::CmdType => {
                if text != "nvme" {
                    return Err(choices(def));
                }
            }
            Opt::WriteMode => {
                s.engine_options.write_mode = match text {
                    "write" => WriteMode::Write,
                    "zeroes" => WriteMode::Zeroes,
                    "uncor" | "verify" => {
                        return Err(format!(
                            "write_mode={text} is not supported by ioscope yet (write or zeroes)"
                        ))
                    }
                    _ => return Err(choices(def)),
                }
            }
            Opt::Deac => s.engine_options.deac = flag(text)?,
            Opt::Readfua => s.engine_options.readfua = flag(text)?,
            Opt::Writefua => s.engine_options.writefua = flag(text)?,
            Opt::NumRange => {
                let n = values::uint(text, kb, 1)?;
                if n > MAX_NUM_RANGE {
                    return Err(format!(
                        "num_range={n}: one trim carries at most {MAX_NUM_RANGE} ranges \
                         (an NVMe Dataset Management command's limit)"
                    ));
                }
                s.num_range = n;
            }
            Opt::Fsync => s.fsync = values::uint(text, kb, 0)?,
            Opt::EndFsync => s.end_fsync = flag(text)?,
            Opt::Invalidate => s.invalidate = flag(text)?,
            Opt::KbBase => {
                s.kb_base = match text {
                    "1024" => 1024,
                    "1000" => 1000,
                    _ => return Err(choices(def)),
                }
            }
            Opt::PercentileList => s.percentile_list = values::percentile_list(text)?,
            Opt::ClatPercentiles => s.clat_percentiles = flag(text)?,
            Opt::LatPercentiles => s.lat_percentiles = flag(text)?,
            Opt::SlatPercentiles => s.slat_percentiles = flag(text)?,
            Opt::DisableLat => s.disable_lat = flag(text)?,
            Opt::DisableClat => s.disable_clat = flag(text)?,
            Opt::DisableSlat => s.disable_slat = flag(text)?,
            Opt::GtodReduce => {
                // fio's gtod_reduce switches the latency clocks off and with
                // them the completion latency percentiles (or back on).
                let on = flag(text)?;
                s.gtod_reduce = on;
                s.disable_lat = on;
                s.disable_clat = on;
                s.disable_slat = on;
                s.clat_percentiles = !on;
            }
            Opt::Clocksource => {
                s.clocksource = match text {
                    "gettimeofday" => ClockSourceOpt::Gettimeofday,
                    "clock_gettime" => ClockSourceOpt::ClockGettime,
                    "cpu" => ClockSourceOpt::Cpu,
                    _ => return Err(choices(def)),
                }
            }
            Opt::ZeroBuffers => s.zero_buffers = flag(text)?,
            Opt::ScrambleBuffers => {
                s.scramble_buffers = flag(text)?;
                self.scramble_set = true;
            }
            Opt::RefillBuffers => {
                s.refill_buffers = flag(text)?;
                self.refill_set = true;
            }
            Opt::AllowMountedWrite => s.allow_mounted_write = flag(text)?,
            Opt::AllowSignatureWrite => s.allow_signature_write = flag(text)?,
            Opt::BufferPattern => s.buffer_pattern = Some(pattern::parse(text)?),
            Opt::BufferCompressPercentage => {
                s.buffer_compress_percentage = Some(percent(text, kb)?)
            }
            Opt::BufferCompressChunk => {
                s.buffer_compress_chunk = values::size(text, kb)?;
                if s.buffer_compress_chunk == 0 {
                    return Err("a chunk must be at least 1 byte".to_string());
                }
            }
            Opt::DedupePercentage => s.dedupe_percentage = percent(text, kb)?,
            Opt::Verify => {
                s.verify.method = verify_method(text).ok_or_else(|| choices(def))?;
                self.verify_set = true;
            }
            Opt::DoVerify => s.verify.do_verify = flag(text)?,
            Opt::VerifyOnly => s.verify.only = flag(text)?,
            Opt::VerifyBacklog => s.verify.backlog = values::size(text, kb)?,
            Opt::VerifyBacklogBatch => s.verify.backlog_batch = values::size(text, kb)?,
            Opt::VerifyInterval => {
                self.verify_interval = values::size(text, kb)?;
                if self.verify_interval == 0 {
                    return Err("an interval must be at least 1 byte".to_string());
                }
            }
            Opt::VerifyOffset => s.verify.offset = values::size(text, kb)?,
            Opt::VerifyPattern => s.verify.pattern = Some(pattern::parse(text)?),
            Opt::VerifyPatternInterval => s.verify.pattern_interval = values::size(text, kb)?,
            Opt::VerifyFatal => s.verify.fatal = flag(text)?,
            Opt::VerifyDump => s.verify.dump = flag(text)?,
            Opt::VerifyAsync => s.verify.async_threads = values::uint(text, kb, 0)?,
            Opt::VerifyStateSave => s.verify.state_save = flag(text)?,
            Opt::VerifyStateLoad => s.verify.state_load = flag(text)?,
            Opt::ExperimentalVerify => s.verify.experimental = flag(text)?,
            Opt::VerifyHeaderSeed => self.verify_header_seed = Some(flag(text)?),
            Opt::VerifyWriteSequence => self.verify_write_sequence = Some(flag(text)?),
            Opt::TrimPercentage => s.trim_verify.percentage = percent(text, kb)?,
            Opt::TrimVerifyZero => s.trim_verify.verify_zero = flag(text)?,
            Opt::TrimBacklog => s.trim_verify.backlog = values::size(text, kb)?,
            Opt::TrimBacklogBatch => s.trim_verify.backlog_batch = values::size(text, kb)?,
            Opt::ContinueOnError => {
                s.errors.continue_on = match text {
                    "none" | "0" => [false, false, false],
                    "read" => [true, false, false],
                    "write" => [false, true, false],
                    "io" => [true, true, false],
                    "verify" => [false, false, true],
                    "all" | "1" => [true, true, true],
                    _ => return Err(choices(def)),
                }
            }
            Opt::IgnoreError => ignore_error(text, &mut s.errors)?,
            Opt::Fault => {
                s.engine_options.fault = Some(match text {
                    "bitflip" => InjectedFault::BitFlip,
                    "drop" => InjectedFault::Drop,
                    "misdirect" => InjectedFault::Misdirect,
                    "torn" => InjectedFault::Torn,
                    "short_read" => InjectedFault::ShortRead,
                    "read_eio" => InjectedFault::ReadEio,
                    "write_eio" => InjectedFault::WriteEio,
                    _ => return Err(choices(def)),
                })
            }
            Opt::FaultRate => {
                let rate: f64 = text
                    .parse()
                    .ok()
                    .filter(|r: &f64| (0.0..=100.0).contains(r))
                    .ok_or_else(|| format!("'{text}': expected a percentage from 0 to 100"))?;
                s.engine_options.fault_rate_micro = Some((rate * 1e6).round() as u64);
            }
            Opt::FaultEngine => {
                let inner = engine(text)?;
                if inner == IoEngine::Faulty {
                    return Err("the faulty engine cannot wrap itself".to_string());
                }
                s.engine_options.fault_engine = Some(inner);
            }
            Opt::Exitall => s.exitall = flag(text)?,
            Opt::CreateOnOpen => s.create_on_open = flag(text)?,
        }
        Ok(())
    }

    /// The second step: fio's derived defaults and checks across options.
    pub(crate) fn resolve(&self) -> Result<JobSpec, String> {
        let mut spec = self.spec.clone();
        // fio's precedence: bssplit over bsrange over bs, whatever the order.
        let pick = |split: &Option<Vec<(u64, u32)>>, range: &Option<(u64, u64)>, bs: u64| match (
            split, range,
        ) {
            (Some(split), _) => BlockSize::Split(split.clone()),
            (None, Some((min, max))) if min != max => BlockSize::Range {
                min: *min,
                max: *max,
            },
            (None, Some((min, _))) => BlockSize::Fixed(*min),
            (None, None) => BlockSize::Fixed(bs),
        };
        spec.bs = PerDir {
            read: pick(&self.bssplit.read, &self.bsrange.read, self.bs.read),
            write: pick(&self.bssplit.write, &self.bsrange.write, self.bs.write),
            trim: pick(&self.bssplit.trim, &self.bsrange.trim, self.bs.trim),
        };
        let depth = spec.iodepth;
        // fio's fixups (init.c): an unset or too large submit batch or low
        // watermark becomes iodepth; a complete_max that is unset or below
        // complete_min becomes complete_min.
        let fit = |v: u32| if v == 0 || v > depth { depth } else { v };
        spec.iodepth_batch_submit = fit(spec.iodepth_batch_submit);
        spec.iodepth_low = fit(self.iodepth_low);
        spec.iodepth_batch_complete_max = self
            .iodepth_batch_complete_max
            .max(spec.iodepth_batch_complete_min);
        // fio: a given randseed overrides randrepeat.
        if spec.randseed.is_some() {
            spec.randrepeat = false;
        }
        // fio: zero_buffers turns scrambling off unless it was asked for.
        if spec.zero_buffers && !self.scramble_set {
            spec.scramble_buffers = false;
        }
        self.resolve_data(&mut spec)?;
        if spec.offset_increment > 0 && matches!(spec.offset, SizeSpec::Percent(_)) {
            return Err(
                "offset_increment with offset given as a percentage is not supported yet".into(),
            );
        }
        let engine = &spec.engine_options;
        if let (Some(cpu), false) = (engine.sqthread_poll_cpu, engine.sqthread_poll) {
            // fio ignores the CPU without an SQ thread; ioscope's engine
            // refuses it, so say so before the run rather than at it.
            return Err(format!(
                "sqthread_poll_cpu={cpu} needs sqthread_poll (without it there is no SQ thread to place)"
            ));
        }
        check_extent(&spec)?;
        if spec.time_based && spec.runtime.is_none() {
            // fio drops time_based with a complaint; refusing says it louder.
            return Err("time_based needs a runtime".to_string());
        }
        if let Some(SizeSpec::Bytes(size)) = spec.size {
            let min_bs = spec.bs.read.min().min(spec.bs.write.min());
            if size < min_bs {
                return Err(format!(
                    "size={size} is smaller than the block size ({min_bs} bytes)"
                ));
            }
        }
        Ok(spec)
    }
}

impl Settings {
    /// The derived defaults and checks of buffer contents, verify and trim
    /// verify, fio's (init.c fixup_options) where it has them.
    fn resolve_data(&self, spec: &mut JobSpec) -> Result<(), String> {
        // fio: compression other than 100% and dedupe refill the buffers
        // for every write, unless refill_buffers was written.
        let compress = spec.buffer_compress_percentage.is_some_and(|p| p != 100);
        if (compress || spec.dedupe_percentage > 0) && !self.refill_set {
            spec.refill_buffers = true;
        }
        let v = &mut spec.verify;
        // fio: a verify_pattern without verify means verify=pattern.
        if v.pattern.is_some() && !self.verify_set {
            v.method = VerifyMethod::Pattern;
        }
        if v.method == VerifyMethod::Pattern && v.pattern.is_none() {
            return Err("verify=pattern needs verify_pattern".to_string());
        }
        if v.backlog_batch == 0 {
            v.backlog_batch = v.backlog;
        }
        if spec.trim_verify.backlog_batch == 0 {
            spec.trim_verify.backlog_batch = spec.trim_verify.backlog;
        }
        if v.method == VerifyMethod::None {
            let set = [
                (v.only, "verify_only"),
                (v.backlog > 0, "verify_backlog"),
                (v.state_load, "verify_state_load"),
                (spec.trim_verify.percentage > 0, "trim_percentage"),
                (spec.trim_verify.backlog > 0, "trim_backlog"),
            ];
            if let Some((_, name)) = set.iter().find(|s| s.0) {
                // fio silently does nothing; a job that asks to check data
                // and checks none would report a pass it never earned.
                return Err(format!("{name} needs verify (e.g. verify=crc32c)"));
            }
            return Ok(());
        }
        // fio: a read workload checks what an earlier job wrote, so the
        // number of the last write there is unknown and so, unless the read
        // job repeats the writing one exactly, is the seed; verify_only
        // and norandommap leave them unknown too.
        let reads_back = !spec.rw.kind.writes();
        v.header_seed = self
            .verify_header_seed
            .unwrap_or(!(reads_back || v.only || spec.norandommap));
        v.write_sequence = self
            .verify_write_sequence
            .unwrap_or(!(v.only || v.experimental));
        // fio: the interval divides the smallest and the largest write
        // size (read size, for a job that reads back); otherwise it is
        // their gcd.
        let bs = if reads_back {
            &spec.bs.read
        } else {
            &spec.bs.write
        };
        let (min, max) = (bs.min(), bs.max());
        let sizes: Vec<u64> = match bs {
            BlockSize::Split(v) => v.iter().map(|p| p.0).collect(),
            _ => vec![min, max],
        };
        let fits = |i: u64| i > 0 && sizes.iter().all(|s| s % i == 0);
        v.interval = if fits(self.verify_interval) {
            self.verify_interval
        } else {
            sizes.iter().copied().fold(0, gcd)
        };
        if v.offset >= v.interval {
            return Err(format!(
                "verify_offset={} is not inside a verify interval of {} bytes",
                v.offset, v.interval
            ));
        }
        if spec.trim_verify.percentage > 0 && !spec.rw.kind.writes() {
            return Err("trim_percentage trims written blocks: it needs a write workload".into());
        }
        Ok(())
    }
}

/// Refuses a region that ends past the largest offset a file can have
/// (2^63-1): offsets and sizes add up (`offset + size`, and each clone's
/// `offset_increment`), and a sum past it would wrap around to the start of
/// the target.
fn check_extent(spec: &JobSpec) -> Result<(), String> {
    let SizeSpec::Bytes(offset) = spec.offset else {
        return Ok(());
    };
    let max = values::MAX_NUMBER;
    let too_large = |what: String| {
        Err(format!(
            "{what} is too large: it ends past the largest file offset, {max} bytes (2^63-1)"
        ))
    };
    let clones = u64::from(spec.numjobs.saturating_sub(1));
    let Some(last_offset) = spec
        .offset_increment
        .checked_mul(clones)
        .and_then(|shift| shift.checked_add(offset))
        .filter(|&o| o <= max)
    else {
        return too_large(format!(
            "offset={offset} plus offset_increment={} for each of {clones} more clones (numjobs={})",
            spec.offset_increment, spec.numjobs
        ));
    };
    let shifted = if clones > 0 && spec.offset_increment > 0 {
        format!(
            " (the last clone's: offset={offset} + {clones} * offset_increment={})",
            spec.offset_increment
        )
    } else {
        String::new()
    };
    let mut lengths = Vec::new();
    if let Some(SizeSpec::Bytes(size)) = spec.size {
        lengths.push(("size", size));
    }
    if let Some((_, largest)) = spec.filesize {
        lengths.push(("filesize", largest));
    }
    for (name, len) in lengths {
        if last_offset.checked_add(len).is_none_or(|end| end > max) {
            return too_large(format!("offset={last_offset}{shifted} plus {name}={len}"));
        }
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn verify_method(text: &str) -> Option<VerifyMethod> {
    Some(match text {
        "0" | "none" => VerifyMethod::None,
        "md5" => VerifyMethod::Md5,
        "crc64" => VerifyMethod::Crc64,
        "crc32" => VerifyMethod::Crc32,
        "crc32c" => VerifyMethod::Crc32c,
        "crc32c-intel" => VerifyMethod::Crc32cIntel,
        "crc16" => VerifyMethod::Crc16,
        "crc7" => VerifyMethod::Crc7,
        "sha1" => VerifyMethod::Sha1,
        "sha256" => VerifyMethod::Sha256,
        "sha512" => VerifyMethod::Sha512,
        "sha3-224" => VerifyMethod::Sha3_224,
        "sha3-256" => VerifyMethod::Sha3_256,
        "sha3-384" => VerifyMethod::Sha3_384,
        "sha3-512" => VerifyMethod::Sha3_512,
        "xxhash" => VerifyMethod::Xxhash,
        "pattern" => VerifyMethod::Pattern,
        "meta" => VerifyMethod::Meta,
        "null" => VerifyMethod::Null,
        _ => return None,
    })
}

/// fio's `ignore_error=READ,WRITE,VERIFY`: per class a ':'-separated list of
/// errno names (`EIO`) or numbers (decimal or 0x hex). A non-empty list
/// replaces the class's default and, as in fio, turns continue_on_error on
/// for the class.
fn ignore_error(text: &str, errors: &mut ErrorPolicy) -> Result<(), String> {
    let lists: Vec<&str> = text.split(',').collect();
    if lists.len() > 3 {
        return Err("at most three lists: READ,WRITE,VERIFY".to_string());
    }
    for (class, list) in lists.iter().enumerate() {
        let mut codes = Vec::new();
        for name in list.split(':').map(str::trim).filter(|n| !n.is_empty()) {
            let code = if name.starts_with('E') {
                errno_by_name(name).ok_or_else(|| format!("unknown error name '{name}'"))?
            } else {
                let n = match name.strip_prefix("0x").or_else(|| name.strip_prefix("0X")) {
                    Some(hex) => i64::from_str_radix(hex, 16),
                    None => name.parse::<i64>(),
                }
                .map_err(|_| format!("'{name}' is not an error name or number"))?;
                i32::try_from(n.unsigned_abs())
                    .ok()
                    .filter(|&c| c != 0)
                    .ok_or_else(|| format!("'{name}' is not an error number"))?
            };
            codes.push(code);
        }
        if !codes.is_empty() {
            errors.continue_on[class] = true;
            errors.ignore[class] = codes;
        }
    }
    Ok(())
}

/// The errno of a name like `ENOSPC`, for the names Linux has.
fn errno_by_name(name: &str) -> Option<i32> {
    (1..134).find(|&code| errno_name(code) == Some(name))
}

/// The symbolic name of an errno (Linux values, from libc's constants).
pub fn errno_name(code: i32) -> Option<&'static str> {
    use libc::*;
    const NAMES: &[(i32, &str)] = &[
        (EPERM, "EPERM"),
        (ENOENT, "ENOENT"),
        (ESRCH, "ESRCH"),
        (EINTR, "EINTR"),
        (EIO, "EIO"),
        (ENXIO, "ENXIO"),
        (E2BIG, "E2BIG"),
        (ENOEXEC, "ENOEXEC"),
        (EBADF, "EBADF"),
        (ECHILD, "ECHILD"),
        (EAGAIN, "EAGAIN"),
        (ENOMEM, "ENOMEM"),
        (EACCES, "EACCES"),
        (EFAULT, "EFAULT"),
        (ENOTBLK, "ENOTBLK"),
        (EBUSY, "EBUSY"),
        (EEXIST, "EEXIST"),
        (EXDEV, "EXDEV"),
        (ENODEV, "ENODEV"),
        (ENOTDIR, "ENOTDIR"),
        (EISDIR, "EISDIR"),
        (EINVAL, "EINVAL"),
        (ENFILE, "ENFILE"),
        (EMFILE, "EMFILE"),
        (ENOTTY, "ENOTTY"),
        (ETXTBSY, "ETXTBSY"),
        (EFBIG, "EFBIG"),
        (ENOSPC, "ENOSPC"),
        (ESPIPE, "ESPIPE"),
        (EROFS, "EROFS"),
        (EMLINK, "EMLINK"),
        (EPIPE, "EPIPE"),
        (EDOM, "EDOM"),
        (ERANGE, "ERANGE"),
        (EDEADLK, "EDEADLK"),
        (ENAMETOOLONG, "ENAMETOOLONG"),
        (ENOLCK, "ENOLCK"),
        (ENOSYS, "ENOSYS"),
        (ENOTEMPTY, "ENOTEMPTY"),
        (ELOOP, "ELOOP"),
        (ENOMSG, "ENOMSG"),
        (EIDRM, "EIDRM"),
        (ENODATA, "ENODATA"),
        (ETIME, "ETIME"),
        (ENOLINK, "ENOLINK"),
        (EPROTO, "EPROTO"),
        (EBADMSG, "EBADMSG"),
        (EOVERFLOW, "EOVERFLOW"),
        (EILSEQ, "EILSEQ"),
        (EUSERS, "EUSERS"),
        (ENOTSOCK, "ENOTSOCK"),
        (EOPNOTSUPP, "EOPNOTSUPP"),
        (ENOBUFS, "ENOBUFS"),
        (ETIMEDOUT, "ETIMEDOUT"),
        (ECONNREFUSED, "ECONNREFUSED"),
        (EALREADY, "EALREADY"),
        (EINPROGRESS, "EINPROGRESS"),
        (ESTALE, "ESTALE"),
        (EREMOTEIO, "EREMOTEIO"),
        (EDQUOT, "EDQUOT"),
        (ENOMEDIUM, "ENOMEDIUM"),
        (EMEDIUMTYPE, "EMEDIUMTYPE"),
        (ECANCELED, "ECANCELED"),
        (ENOKEY, "ENOKEY"),
        (EKEYEXPIRED, "EKEYEXPIRED"),
        (EKEYREVOKED, "EKEYREVOKED"),
        (EKEYREJECTED, "EKEYREJECTED"),
        (EOWNERDEAD, "EOWNERDEAD"),
        (ENOTRECOVERABLE, "ENOTRECOVERABLE"),
        (ERFKILL, "ERFKILL"),
        (EHWPOISON, "EHWPOISON"),
    ];
    NAMES.iter().find(|n| n.0 == code).map(|n| n.1)
}

/// io_uring's `nonvectored`: fio's `-1` (its default) detects, 0 is off and
/// any other value on, as fio tests it. Other negative values are refused.
fn nonvectored(text: &str, kb: u32) -> Result<Option<bool>, String> {
    match text.strip_prefix('-') {
        Some(rest) if values::uint(rest, kb, 0) == Ok(1) => Ok(None),
        Some(_) => Err(format!(
            "'{text}': expected -1 (use READ/WRITE where the kernel has them), 0 or 1"
        )),
        None => Ok(Some(values::uint(text, kb, 0)? != 0)),
    }
}

fn choices(def: &OptionDef) -> String {
    match def.kind {
        Kind::Choice(values) => {
            let names: Vec<&str> = values.iter().map(|v| v.0).collect();
            format!("expected one of: {}", names.join(", "))
        }
        _ => "not a valid value".to_string(),
    }
}

fn percent(text: &str, kb: u32) -> Result<u32, String> {
    let v = values::uint(text, kb, 0)?;
    if v > 100 {
        return Err(format!("'{text}' is above 100 (a percentage)"));
    }
    Ok(v)
}

fn block_size(text: &str, kb: u32) -> Result<u64, String> {
    let v = values::size(text, kb)?;
    if v == 0 {
        return Err("a block size must be at least 1 byte".to_string());
    }
    Ok(v)
}

/// `rw=randread:8`. The trim and write mixes and a sequential `:N` offset
/// are fio's but not ioscope's yet.
fn rw_mode(text: &str, kb: u32) -> Result<RwMode, String> {
    let (kind, suffix) = match text.split_once(':') {
        Some((k, n)) => (k, Some(n)),
        None => (text, None),
    };
    let kind = match kind {
        "read" => RwKind::Read,
        "write" => RwKind::Write,
        "randread" => RwKind::RandRead,
        "randwrite" => RwKind::RandWrite,
        "rw" | "readwrite" => RwKind::ReadWrite,
        "randrw" => RwKind::RandRw,
        "trim" => RwKind::Trim,
        "randtrim" => RwKind::RandTrim,
        "trimwrite" => RwKind::TrimWrite,
        "randtrimwrite" => RwKind::RandTrimWrite,
        _ => {
            return Err(
                "expected one of: read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim"
                    .to_string(),
            )
        }
    };
    let nr = match suffix {
        None => 1,
        Some(_) if !kind.is_random() => {
            return Err(format!(
                "the ':' offset of sequential rw={} is not supported by ioscope yet",
                kind.name()
            ))
        }
        Some(n) => values::uint(n, kb, 1)?,
    };
    Ok(RwMode { kind, nr })
}

/// fio engine names ioscope knows of but does not have yet.
const FIO_ENGINES: &[&str] = &[
    "posixaio",
    "splice",
    "sg",
    "vsync",
    "pvsync",
    "net",
    "netsplice",
    "cpuio",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "exec",
    "falloc",
    "e4defrag",
    "gfapi",
    "gfapi_async",
    "mtd",
    "nbd",
    "rdma",
    "rados",
    "rbd",
    "http",
    "libpmem",
    "dev-dax",
    "pmemblk",
    "xnvme",
    "libcufile",
    "dfs",
    "nfs",
    "libzbc",
    "libiscsi",
    "windowsaio",
    "solarisaio",
    "guasi",
    "binject",
    "libhdfs",
    "librpma_apm_client",
    "librpma_apm_server",
    "librpma_gpspm_client",
    "librpma_gpspm_server",
    "external",
];

fn engine(text: &str) -> Result<IoEngine, String> {
    match text {
        "sync" => Ok(IoEngine::Sync),
        "psync" => Ok(IoEngine::Psync),
        "pvsync2" => Ok(IoEngine::Pvsync2),
        "null" => Ok(IoEngine::Null),
        "libaio" => Ok(IoEngine::Libaio),
        "io_uring" => Ok(IoEngine::IoUring),
        "mmap" => Ok(IoEngine::Mmap),
        "nop" => Ok(IoEngine::Nop),
        "io_uring_cmd" => Ok(IoEngine::IoUringCmd),
        "faulty" => Ok(IoEngine::Faulty),
        _ if FIO_ENGINES.contains(&text) || text.starts_with("external:") || text.contains('/') => {
            Err(format!("ioengine={text} is not supported by ioscope yet"))
        }
        _ => {
            let known: Vec<&str> = ENGINE_VALUES.iter().map(|v| v.0).collect();
            Err(format!(
                "unknown ioengine '{text}'; ioscope supports {}",
                known.join(", ")
            ))
        }
    }
}

/// One direction of `bssplit`: `4k/50:64k/:1m/` — sizes with percentages;
/// entries without one share what is left equally (the last of them takes
/// the rounding remainder, which is what fio's selection gives it too).
fn bssplit(text: &str, kb: u32) -> Result<Vec<(u64, u32)>, String> {
    let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
    for part in text.split(':') {
        let (size, perc) = match part.split_once('/') {
            Some((s, p)) if p.trim().is_empty() => (s, None),
            Some((s, p)) => (s, Some(percent(p, kb)?)),
            None => (part, None),
        };
        entries.push((block_size(size, kb)?, perc));
    }
    let given: u32 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u32;
    if given > 100 {
        return Err(format!(
            "bssplit percentages in '{text}' add up to {given}, over 100"
        ));
    }
    if missing == 0 && given != 100 {
        return Err(format!(
            "bssplit percentages in '{text}' add up to {given}, not 100"
        ));
    }
    let share = (100 - given).checked_div(missing).unwrap_or(0);
    let last_missing = entries.iter().rposition(|e| e.1.is_none());
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, &(size, perc))| {
            let p = match perc {
                Some(p) => p,
                None if Some(i) == last_missing => 100 - given - share * (missing - 1),
                None => share,
            };
            (size, p)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::find;

    fn set(s: &mut Settings, name: &str, value: &str) -> Result<(), String> {
        s.apply(find(name).unwrap(), Some(value))
    }

    #[test]
    fn extents_past_the_largest_offset_are_refused() {
        let resolve = |opts: &[(&str, &str)]| {
            let mut s = Settings::defaults();
            for (k, v) in opts {
                set(&mut s, k, v).unwrap();
            }
            s.resolve()
        };
        // 2^64-4096 would wrap to the start of the device (fio refuses it
        // as a number already); 2^63-4096 fits as a number but not with a size.
        let err = resolve(&[("offset", "9223372036854771712"), ("size", "16m")]).unwrap_err();
        assert!(
            err.contains("size=16777216") && err.contains("too large"),
            "{err}"
        );
        let err = resolve(&[
            ("offset_increment", "4611686018427387904"),
            ("numjobs", "3"),
            ("size", "4k"),
        ])
        .unwrap_err();
        assert!(
            err.contains("offset_increment") && err.contains("too large"),
            "{err}"
        );
        let err = resolve(&[
            ("offset_increment", "4611686018427387903"),
            ("numjobs", "3"),
            ("size", "1g"),
        ])
        .unwrap_err();
        assert!(
            err.contains("the last clone's")
                && err.contains("2 * offset_increment")
                && err.contains("too large"),
            "{err}"
        );
        let err = resolve(&[("offset", "9223372036854775807"), ("filesize", "4k")]).unwrap_err();
        assert!(err.contains("filesize=4096"), "{err}");
        resolve(&[("offset", "9223372036854771711"), ("size", "4k")]).unwrap();
        resolve(&[
            ("offset_increment", "1g"),
            ("numjobs", "64"),
            ("size", "1g"),
        ])
        .unwrap();
    }

    #[test]
    fn filename_dash_is_refused() {
        let mut s = Settings::defaults();
        for text in ["-", "a:-"] {
            let err = set(&mut s, "filename", text).unwrap_err();
            assert!(err.contains("standard input"), "{err}");
        }
        set(&mut s, "filename", "a-b:-c").unwrap();
    }

    #[test]
    fn booleans_and_flags_as_fio_reads_them() {
        let mut s = Settings::defaults();
        set(&mut s, "time_based", "2").unwrap();
        assert!(s.spec.time_based, "fio: any number but 0 turns a flag on");
        set(&mut s, "time_based", "0").unwrap();
        assert!(!s.spec.time_based);
        for word in ["yes", "no", "on", "off", "true", "false"] {
            assert!(set(&mut s, "direct", word).is_err(), "{word}");
            assert!(set(&mut s, "time_based", word).is_err(), "{word}");
        }
        assert!(
            set(&mut s, "direct", "2").is_err(),
            "fio: a boolean is 0 or 1"
        );
    }

    #[test]
    fn bssplit_fills_missing_percentages() {
        assert_eq!(
            bssplit("4k/50:64k/50", 1024),
            Ok(vec![(4096, 50), (65536, 50)])
        );
        assert_eq!(
            bssplit("4k/50:1k/:32k/", 1024),
            Ok(vec![(4096, 50), (1024, 25), (32768, 25)])
        );
        assert_eq!(
            bssplit("4k:8k:16k", 1024),
            Ok(vec![(4096, 33), (8192, 33), (16384, 34)])
        );
        assert_eq!(bssplit("4k", 1024), Ok(vec![(4096, 100)]));
        assert!(bssplit("4k/60:8k/60", 1024)
            .unwrap_err()
            .contains("over 100"));
        assert!(bssplit("4k/60:8k/30", 1024)
            .unwrap_err()
            .contains("not 100"));
        assert!(bssplit("0/100", 1024).is_err());
    }

    #[test]
    fn block_size_precedence_is_split_range_bs() {
        let mut s = Settings::defaults();
        set(&mut s, "bsrange", "4k-16k").unwrap();
        set(&mut s, "bs", "8k").unwrap();
        assert_eq!(
            s.resolve().unwrap().bs.read,
            BlockSize::Range {
                min: 4096,
                max: 16384
            }
        );
        set(&mut s, "bssplit", "4k/10:64k/90,8k").unwrap();
        let spec = s.resolve().unwrap();
        assert_eq!(
            spec.bs.read,
            BlockSize::Split(vec![(4096, 10), (65536, 90)])
        );
        assert_eq!(spec.bs.write, BlockSize::Split(vec![(8192, 100)]));
        assert_eq!(spec.bs.trim, BlockSize::Split(vec![(8192, 100)]));
    }

    #[test]
    fn bs_per_direction() {
        let mut s = Settings::defaults();
        set(&mut s, "bs", "8k,32k,").unwrap();
        let spec = s.resolve().unwrap();
        assert_eq!(spec.bs.read, BlockSize::Fixed(8192));
        assert_eq!(spec.bs.write, BlockSize::Fixed(32768));
        assert_eq!(spec.bs.trim, BlockSize::Fixed(4096));
        assert!(set(&mut s, "bs", "4k-8k").unwrap_err().contains("bsrange"));
        assert!(set(&mut s, "bs", "0").is_err());
    }

    #[test]
    fn derived_depths() {
        let mut s = Settings::defaults();
        set(&mut s, "iodepth", "32").unwrap();
        let spec = s.resolve().unwrap();
        assert_eq!(spec.iodepth_low, 32);
        assert_eq!(spec.iodepth_batch_complete_max, 1, "fio: complete_min");
        assert_eq!(spec.iodepth_batch_submit, 1);
        set(&mut s, "iodepth_low", "64").unwrap();
        set(&mut s, "iodepth_batch", "0").unwrap();
        let spec = s.resolve().unwrap();
        assert_eq!(spec.iodepth_low, 32);
        assert_eq!(spec.iodepth_batch_submit, 32);
        set(&mut s, "iodepth_batch_complete_max", "4").unwrap();
        set(&mut s, "iodepth_batch_complete_min", "8").unwrap();
        assert_eq!(s.resolve().unwrap().iodepth_batch_complete_max, 8);
        set(&mut s, "iodepth_batch_complete_max", "64").unwrap();
        assert_eq!(s.resolve().unwrap().iodepth_batch_complete_max, 64);
        assert!(set(&mut s, "iodepth", "0").unwrap_err().contains("minimum"));
    }

    #[test]
    fn fixups_across_options() {
        let mut s = Settings::defaults();
        set(&mut s, "randseed", "42").unwrap();
        assert!(!s.resolve().unwrap().randrepeat);
        set(&mut s, "zero_buffers", "1").unwrap();
        assert!(!s.resolve().unwrap().scramble_buffers);
        set(&mut s, "scramble_buffers", "1").unwrap();
        assert!(s.resolve().unwrap().scramble_buffers);
        s.apply(find("time_based").unwrap(), None).unwrap();
        assert_eq!(s.resolve().unwrap_err(), "time_based needs a runtime");
        set(&mut s, "runtime", "10").unwrap();
        set(&mut s, "bs", "8k").unwrap();
        set(&mut s, "size", "4k").unwrap();
        assert!(s
            .resolve()
            .unwrap_err()
            .contains("smaller than the block size"));
    }

    #[test]
    fn rw_modes() {
        assert_eq!(
            rw_mode("randread:8", 1024),
            Ok(RwMode {
                kind: RwKind::RandRead,
                nr: 8
            })
        );
        assert_eq!(
            rw_mode("readwrite", 1024),
            Ok(RwMode {
                kind: RwKind::ReadWrite,
                nr: 1
            })
        );
        assert_eq!(rw_mode("randtrim", 1024).unwrap().kind, RwKind::RandTrim);
        assert_eq!(rw_mode("trimwrite", 1024).unwrap().kind, RwKind::TrimWrite);
        assert_eq!(
            rw_mode("randtrimwrite", 1024).unwrap().kind,
            RwKind::RandTrimWrite
        );
        assert!(rw_mode("read:4k", 1024)
            .unwrap_err()
            .contains("not supported by ioscope yet"));
        assert!(rw_mode("randread:0", 1024).is_err());
        assert!(rw_mode("reed", 1024)
            .unwrap_err()
            .contains("expected one of"));
    }

    #[test]
    fn mixes_and_flags() {
        let mut s = Settings::defaults();
        set(&mut s, "rwmixwrite", "30").unwrap();
        assert_eq!(s.spec.rwmixread, 70);
        assert!(set(&mut s, "rwmixread", "101")
            .unwrap_err()
            .contains("above 100"));
        set(&mut s, "buffered", "0").unwrap();
        assert!(s.spec.direct);
        s.apply(find("time_based").unwrap(), None).unwrap();
        assert!(s.spec.time_based);
        assert!(s.apply(find("direct").unwrap(), None).is_err());
        set(&mut s, "gtod_reduce", "1").unwrap();
        assert!(s.spec.disable_lat && s.spec.disable_clat && s.spec.disable_slat);
        assert!(!s.spec.clat_percentiles);
        assert!(set(&mut s, "iodepth", "4,8")
            .unwrap_err()
            .contains("one value"));
    }

    #[test]
    fn engines() {
        let mut s = Settings::defaults();
        for name in [
            "sync", "psync", "pvsync2", "null", "libaio", "io_uring", "mmap", "nop",
        ] {
            set(&mut s, "ioengine", name).unwrap();
            assert_eq!(s.spec.ioengine.name(), name);
        }
        set(&mut s, "ioengine", "io_uring").unwrap();
        set(&mut s, "hipri", "1").unwrap();
        set(&mut s, "sqthread_poll", "1").unwrap();
        set(&mut s, "ioengine", "io_uring").unwrap();
        assert!(s.spec.hipri, "the same engine again keeps its options");
        set(&mut s, "ioengine", "psync").unwrap();
        assert!(!s.spec.hipri, "a new engine starts from its own defaults");
        assert_eq!(s.spec.engine_options, EngineOptions::default());
        assert_eq!(
            set(&mut s, "ioengine", "posixaio").unwrap_err(),
            "ioengine=posixaio is not supported by ioscope yet"
        );
        set(&mut s, "ioengine", "io_uring_cmd").unwrap();
        assert_eq!(s.spec.ioengine, IoEngine::IoUringCmd);
        assert_eq!(
            set(&mut s, "ioengine", "foo").unwrap_err(),
            "unknown ioengine 'foo'; ioscope supports sync, psync, pvsync2, null, libaio, io_uring, io_uring_cmd, mmap, nop, faulty"
        );
    }

    #[test]
    fn io_uring_values() {
        let mut s = Settings::defaults();
        set(&mut s, "ioengine", "io_uring").unwrap();
        let nonvectored = |s: &mut Settings, v: &str| {
            set(s, "nonvectored", v).map(|()| s.spec.engine_options.nonvectored)
        };
        assert_eq!(s.spec.engine_options.nonvectored, None, "fio: -1, detect");
        assert_eq!(nonvectored(&mut s, "0"), Ok(Some(false)));
        assert_eq!(nonvectored(&mut s, "1"), Ok(Some(true)));
        // fio tests the value for non-zero.
        assert_eq!(nonvectored(&mut s, "2"), Ok(Some(true)));
        assert_eq!(nonvectored(&mut s, "-1"), Ok(None));
        assert!(nonvectored(&mut s, "-2")
            .unwrap_err()
            .contains("expected -1"));
        assert!(nonvectored(&mut s, "-").is_err());
        assert!(nonvectored(&mut s, "yes").is_err());
        set(&mut s, "uncached", "2").unwrap();
        assert!(s.spec.engine_options.uncached, "fio: any value but 0");
        set(&mut s, "uncached", "0").unwrap();
        assert!(!s.spec.engine_options.uncached);
        assert!(set(&mut s, "uncached", "-1").is_err());
        set(&mut s, "count_punts", "1").unwrap();
        assert!(s.spec.engine_options.count_punts);
        assert!(set(&mut s, "count_punts", "2").is_err());
        set(&mut s, "force_async", "4").unwrap();
        assert_eq!(s.spec.engine_options.force_async, 4);
        assert!(set(&mut s, "force_async", "-1").is_err());
        // fio's "empty or boolean" options take any number, 0 being off.
        set(&mut s, "sqthread_poll", "2").unwrap();
        assert!(s.spec.engine_options.sqthread_poll);
        set(&mut s, "sqthread_poll", "0").unwrap();
        assert!(!s.spec.engine_options.sqthread_poll);
        assert!(set(&mut s, "sqthread_poll", "yes").is_err());
        // nowait takes a value in fio (a bool, not a flag).
        assert!(s.apply(find("nowait").unwrap(), None).is_err());
        s.apply(find("fixedbufs").unwrap(), None).unwrap();
        assert!(s.spec.engine_options.fixedbufs);
    }

    #[test]
    fn sqthread_poll_cpu_needs_sqthread_poll() {
        let mut s = Settings::defaults();
        set(&mut s, "ioengine", "io_uring").unwrap();
        set(&mut s, "sqthread_poll_cpu", "3").unwrap();
        assert_eq!(
            s.resolve().unwrap_err(),
            "sqthread_poll_cpu=3 needs sqthread_poll (without it there is no SQ thread to place)"
        );
        set(&mut s, "sqthread_poll", "1").unwrap();
        let spec = s.resolve().unwrap();
        assert_eq!(spec.engine_options.sqthread_poll_cpu, Some(3));
        assert!(spec.engine_options.sqthread_poll);
    }

    #[test]
    fn verify_derivations_follow_fio() {
        let mut s = Settings::defaults();
        set(&mut s, "rw", "randwrite").unwrap();
        set(&mut s, "bsrange", "4k-16k").unwrap();
        set(&mut s, "verify", "crc32c").unwrap();
        let v = s.resolve().unwrap().verify;
        assert_eq!(v.method, VerifyMethod::Crc32c);
        assert_eq!(v.interval, 4096, "gcd of the smallest and largest write");
        assert!(v.do_verify && v.state_save);
        set(&mut s, "verify_interval", "512").unwrap();
        assert_eq!(s.resolve().unwrap().verify.interval, 512);
        set(&mut s, "verify_interval", "3k").unwrap();
        assert_eq!(
            s.resolve().unwrap().verify.interval,
            4096,
            "3k divides neither"
        );
        set(&mut s, "verify_offset", "4k").unwrap();
        assert!(s.resolve().unwrap_err().contains("verify_offset"));
        set(&mut s, "verify_offset", "64").unwrap();
        set(&mut s, "verify_backlog", "16").unwrap();
        let v = s.resolve().unwrap().verify;
        assert_eq!((v.offset, v.backlog, v.backlog_batch), (64, 16, 16));

        let mut s = Settings::defaults();
        set(&mut s, "rw", "write").unwrap();
        set(&mut s, "verify_pattern", "0xaa%o").unwrap();
        let v = s.resolve().unwrap().verify;
        assert_eq!(
            v.method,
            VerifyMethod::Pattern,
            "fio: a pattern alone means verify=pattern"
        );
        assert_eq!(v.pattern.unwrap().offsets, [1]);
        set(&mut s, "verify", "md5").unwrap();
        assert_eq!(s.resolve().unwrap().verify.method, VerifyMethod::Md5);

        let mut s = Settings::defaults();
        set(&mut s, "verify", "pattern").unwrap();
        set(&mut s, "rw", "write").unwrap();
        assert!(s.resolve().unwrap_err().contains("needs verify_pattern"));
        let mut s = Settings::defaults();
        set(&mut s, "verify_backlog", "8").unwrap();
        assert!(s
            .resolve()
            .unwrap_err()
            .contains("verify_backlog needs verify"));
        set(&mut s, "verify", "md5").unwrap();
        assert!(
            s.resolve().is_ok(),
            "a read job checks what an earlier job wrote"
        );
        set(&mut s, "verify_only", "1").unwrap();
        assert!(
            s.resolve().is_ok(),
            "verify_only reads what was written before"
        );
        assert!(set(&mut s, "verify", "sha3-1024")
            .unwrap_err()
            .contains("expected one of"));
        for (name, method) in [
            ("crc16", VerifyMethod::Crc16),
            ("crc7", VerifyMethod::Crc7),
            ("sha3-224", VerifyMethod::Sha3_224),
            ("sha3-512", VerifyMethod::Sha3_512),
        ] {
            set(&mut s, "verify", name).unwrap();
            assert_eq!(s.resolve().unwrap().verify.method, method, "{name}");
            assert_eq!(method.name(), name);
        }
    }

    #[test]
    fn continue_and_ignore_error() {
        let mut s = Settings::defaults();
        let e = s.resolve().unwrap().errors;
        assert!(!e.any() && !e.tolerates(ErrorClass::Read, libc::EIO));
        set(&mut s, "continue_on_error", "io").unwrap();
        let e = s.resolve().unwrap().errors;
        assert!(e.tolerates(ErrorClass::Read, libc::EIO));
        assert!(e.tolerates(ErrorClass::Write, libc::EILSEQ));
        assert!(
            !e.tolerates(ErrorClass::Write, libc::ENOSPC),
            "fio's default list"
        );
        assert!(!e.tolerates(ErrorClass::Verify, libc::EILSEQ));
        // fio: a list replaces the default and turns the class on.
        set(&mut s, "ignore_error", ",ENOSPC:122,EILSEQ").unwrap();
        let e = s.resolve().unwrap().errors;
        assert!(e.tolerates(ErrorClass::Write, libc::ENOSPC));
        assert!(e.tolerates(ErrorClass::Write, 122));
        assert!(!e.tolerates(ErrorClass::Write, libc::EIO));
        assert!(e.tolerates(ErrorClass::Verify, libc::EILSEQ));
        assert!(
            e.tolerates(ErrorClass::Read, libc::EIO),
            "an empty list keeps the default"
        );
        set(&mut s, "continue_on_error", "none").unwrap();
        assert!(!s.resolve().unwrap().errors.any());
        assert!(set(&mut s, "ignore_error", "EBOGUS")
            .unwrap_err()
            .contains("EBOGUS"));
        assert!(set(&mut s, "ignore_error", "a,b,c,d").is_err());
        assert_eq!(errno_name(libc::ENOSPC), Some("ENOSPC"));
    }

    #[test]
    fn compression_and_dedupe_refill_unless_told_otherwise() {
        let mut s = Settings::defaults();
        set(&mut s, "buffer_compress_percentage", "50").unwrap();
        assert!(s.resolve().unwrap().refill_buffers);
        set(&mut s, "refill_buffers", "0").unwrap();
        assert!(!s.resolve().unwrap().refill_buffers);
        let mut s = Settings::defaults();
        set(&mut s, "buffer_compress_percentage", "100").unwrap();
        assert!(!s.resolve().unwrap().refill_buffers);
        set(&mut s, "dedupe_percentage", "10").unwrap();
        assert!(s.resolve().unwrap().refill_buffers);
        assert!(set(&mut s, "buffer_compress_chunk", "0").is_err());
        set(&mut s, "buffer_pattern", "\"ab\"%o").unwrap();
        assert_eq!(s.spec.buffer_pattern.as_ref().unwrap().bytes.len(), 10);
    }

    #[test]
    fn faulty_engine_options() {
        let mut s = Settings::defaults();
        assert!(
            set(&mut s, "fault", "drop").is_ok(),
            "the table checks engines, not apply"
        );
        set(&mut s, "ioengine", "faulty").unwrap();
        set(&mut s, "fault", "torn").unwrap();
        set(&mut s, "fault_rate", "0.5").unwrap();
        set(&mut s, "fault_engine", "io_uring").unwrap();
        let e = s.resolve().unwrap().engine_options;
        assert_eq!(e.fault, Some(InjectedFault::Torn));
        assert_eq!(e.fault_rate_micro, Some(500_000));
        assert_eq!(e.fault_engine, Some(IoEngine::IoUring));
        assert!(set(&mut s, "fault_rate", "101").is_err());
        assert!(set(&mut s, "fault_engine", "faulty").is_err());
    }

    #[test]
    fn times_default_to_seconds() {
        let mut s = Settings::defaults();
        set(&mut s, "runtime", "1m").unwrap();
        set(&mut s, "ramp_time", "5").unwrap();
        set(&mut s, "startdelay", "5-10").unwrap();
        assert_eq!(s.spec.runtime, Some(Duration::from_secs(60)));
        assert_eq!(s.spec.ramp_time, Duration::from_secs(5));
        assert_eq!(
            s.spec.startdelay,
            (Duration::from_secs(5), Duration::from_secs(10))
        );
        set(&mut s, "runtime", "0").unwrap();
        assert_eq!(s.spec.runtime, None);
    }

    #[test]
    fn sizes_use_the_current_kb_base() {
        let mut s = Settings::defaults();
        set(&mut s, "kb_base", "1000").unwrap();
        set(&mut s, "size", "1k").unwrap();
        assert_eq!(s.spec.size, Some(SizeSpec::Bytes(1000)));
        set(&mut s, "offset", "25%").unwrap();
        assert_eq!(s.spec.offset, SizeSpec::Percent(25.0));
        assert!(set(&mut s, "kb_base", "512").is_err());
        set(&mut s, "size", "0").unwrap();
        set(&mut s, "io_size", "0").unwrap();
        assert_eq!((s.spec.size, s.spec.io_size), (None, None));
        set(&mut s, "filesize", "1k-4k").unwrap();
        assert_eq!(s.spec.filesize, Some((1000, 4000)));
    }
}
