//! One job's options while its sections are being read: low-level values as
//! written (first step), then validated and turned into a [`JobSpec`] with
//! fio's derived defaults (second step, [`resolve`]).
//!
//! A job starts blank (fio's zeroed options) and gets every option's
//! default text applied, in table order, as fio's `fill_default_options`
//! does; so the defaults are written once, in the option table.

mod resolve;
#[cfg(test)]
mod tests;

use std::time::Duration;

use ioscope_engine::Backend;

use crate::log_spec::LogSpec;
use crate::options::{self, Kind, OptionDef, Value};
use crate::spec::*;

/// A job's settings before derivation. Cloned from the global settings when
/// a job section starts, as fio copies its parent thread's options.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// Every option that maps one to one onto the spec lives here.
    pub spec: JobSpec,
    pub bs: PerDir<u64>,
    pub bsrange: PerDir<Option<(u64, u64)>>,
    pub bssplit: PerDir<Option<Vec<(u64, u32)>>>,
    /// 0 until set: then the derived defaults apply.
    pub iodepth_batch_complete_max: u32,
    pub iodepth_low: u32,
    /// `randseed`: the job gets it only when it was given.
    pub randseed: u64,
    /// `verify_interval` as written; 0 until set.
    pub verify_interval: u64,
    /// The options given (canonical names), here or in a global section,
    /// as fio's `fio_option_is_set`: some derived defaults depend on
    /// whether an option was given rather than on its value.
    given: Vec<&'static str>,
}

impl Settings {
    /// fio's default job: a blank one with every option's default applied.
    pub(crate) fn defaults() -> Settings {
        let mut settings = Settings::blank();
        options::apply_defaults(&mut settings, false);
        settings
    }

    /// Every field zero, empty or off, as fio's options are before its
    /// defaults are filled in. The fields an option's default sets get
    /// their value from the table; the rest keep these. (The enums have no
    /// zero: the variant here is any, as ioengine's and the others' defaults
    /// replace it.)
    fn blank() -> Settings {
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
                io_size_percent: None,
                offset_increment: SizeSpec::Bytes(0),
                nrfiles: 0,
                unlink: false,
                rw: RwMode {
                    kind: RwKind::Read,
                    nr: 0,
                },
                rwmixread: 0,
                num_range: 0,
                bs: PerDir::all(BlockSize::Fixed(0)),
                direct: false,
                iodepth: 0,
                iodepth_batch_submit: 0,
                iodepth_batch_complete_min: 0,
                iodepth_batch_complete_max: 0,
                iodepth_low: 0,
                numjobs: 0,
                thread: false,
                group_reporting: false,
                stonewall: false,
                new_group: false,
                time_based: false,
                runtime: None,
                ramp_time: Duration::ZERO,
                ramp_size: 0,
                startdelay: (Duration::ZERO, Duration::ZERO),
                loops: 0,
                norandommap: false,
                randrepeat: false,
                randseed: None,
                random_generator: RandomGenerator::Tausworthe,
                placement: crate::placement::Placement::fio_default(),
                cpus_allowed: Vec::new(),
                cpus_allowed_policy: CpusAllowedPolicy::Shared,
                ioengine: Backend::Sync,
                hipri: false,
                engine_options: EngineOptions::default(),
                net: crate::NetSpec::default(),
                engines_misc: crate::EnginesMisc::default(),
                fsync: 0,
                end_fsync: false,
                invalidate: false,
                fadvise_hint: FadviseHint::None,
                kb_base: 0,
                percentile_list: Vec::new(),
                clat_percentiles: false,
                lat_percentiles: false,
                slat_percentiles: false,
                disable_lat: false,
                disable_clat: false,
                disable_slat: false,
                gtod_reduce: false,
                clocksource: ClockSourceOpt::Gettimeofday,
                zero_buffers: false,
                scramble_buffers: false,
                refill_buffers: false,
                allow_mounted_write: false,
                allow_signature_write: false,
                buffer_pattern: None,
                buffer_compress_percentage: None,
                buffer_compress_chunk: 0,
                dedupe_percentage: 0,
                verify: VerifySpec {
                    method: VerifyMethod::None,
                    do_verify: false,
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
                    state_save: false,
                    state_load: false,
                    experimental: false,
                    header_seed: false,
                    write_sequence: false,
                },
                trim_verify: TrimVerifySpec {
                    percentage: 0,
                    verify_zero: false,
                    backlog: 0,
                    backlog_batch: 0,
                },
                errors: ErrorPolicy {
                    continue_on: [false; 3],
                    ignore: [Vec::new(), Vec::new(), Vec::new()],
                },
                exitall: false,
                process: crate::process::ProcessSpec::blank(),
                create_on_open: false,
                file_handling: crate::file_handling::FileHandling::blank(),
                iolog: IologSpec::default(),
                logs: LogSpec::default(),
                pacing: crate::pacing::PacingSpec::blank(),
                cmdprio: crate::cmdprio::CmdprioSpec::blank(),
                zones: crate::zones::ZoneSpec::blank(),
                misc: crate::misc_spec::MiscSpec::default(),
                options: Vec::new(),
            },
            bs: PerDir::all(0),
            bsrange: PerDir::all(None),
            bssplit: PerDir::all(None),
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            randseed: 0,
            verify_interval: 0,
            given: Vec::new(),
        }
    }

    /// Applies one option as the job gives it (`None` for a bare flag).
    /// The error says what was expected; the caller adds the place, the
    /// option and the value.
    pub(crate) fn apply(
        &mut self,
        def: &'static OptionDef,
        value: Option<&str>,
    ) -> Result<(), String> {
        let text = match (value, def.kind) {
            (None, Kind::Flag) => "1",
            (None, Kind::OptionalText) => "",
            (None, _) => return Err("a value is needed".to_string()),
            (Some(v), _) => v,
        };
        self.apply_value(def, text)?;
        if !self.given.contains(&def.name) {
            self.given.push(def.name);
        }
        Ok(())
    }

    /// Applies a value to the job, given or a default: the checks every
    /// option shares, then the option's own `apply`.
    pub(crate) fn apply_value(&mut self, def: &OptionDef, text: &str) -> Result<(), String> {
        let text = text.trim();
        if text.contains(',') && def.kind == Kind::FloatList {
            // fio would silently drop everything after the comma.
            return Err("separate the values with ':', not ','".to_string());
        }
        if text.contains(',')
            && !matches!(
                def.kind,
                Kind::Text
                    | Kind::OptionalText
                    | Kind::PerDirSize
                    | Kind::PerDirRange
                    | Kind::PerDirInt
                    | Kind::Split
                    | Kind::CpuList
                    | Kind::TimeRange
            )
        {
            return Err("takes one value, not a comma-separated list".to_string());
        }
        let value = Value {
            text,
            kb: self.spec.kb_base,
            def,
        };
        (def.apply)(self, &value)
    }

    /// Whether the option named `name` was given, rather than left at its
    /// default.
    fn given(&self, name: &str) -> bool {
        debug_assert!(options::find(name).is_some(), "no option {name}");
        self.given.contains(&name)
    }
}
