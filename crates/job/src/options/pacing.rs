//! Pacing: rate caps and floors, think time, `number_ios`, submission mode,
//! flows and latency limits. The values land in [`crate::PacingSpec`].

use std::time::Duration;

use super::{Kind, OptionDef, Value};
use crate::pacing::{RateProcess, SubmitMode, ThinkBlocks};
use crate::spec::PerDir;
use crate::values;

const RATE: OptionDef = OptionDef::of("Rate");
const THINK: OptionDef = OptionDef::of("Thinktime");
const FLOW: OptionDef = OptionDef::of("I/O flow");
const LATENCY: OptionDef = OptionDef::of("Latency profiling");

/// A per-direction list of sizes (`rate=1m,500k`), fio's comma rules.
fn per_dir_size(v: &Value, current: &PerDir<u64>) -> Result<PerDir<u64>, String> {
    values::per_dir(v.text, current, |t| values::size(t, v.kb))
}

/// A time whose plain number is in microseconds (fio's `is_time` options).
fn micros(text: &str) -> Result<Duration, String> {
    values::time_us(text, 1).map(Duration::from_micros)
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "rate",
        kind: Kind::PerDirSize,
        help: "Set bandwidth rate (bytes/s per direction: read,write,trim)",
        apply: |s, v| {
            s.spec.pacing.rate = per_dir_size(v, &s.spec.pacing.rate)?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_min",
        aliases: &["ratemin"],
        kind: Kind::PerDirSize,
        help: "Job must meet this rate or it will be shutdown",
        apply: |s, v| {
            s.spec.pacing.rate_min = per_dir_size(v, &s.spec.pacing.rate_min)?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_iops",
        kind: Kind::PerDirSize,
        help: "Limit IO used to this number of IO operations/sec",
        apply: |s, v| {
            s.spec.pacing.rate_iops = per_dir_size(v, &s.spec.pacing.rate_iops)?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_iops_min",
        kind: Kind::PerDirSize,
        help: "Job must meet this rate or it will be shut down",
        apply: |s, v| {
            s.spec.pacing.rate_iops_min = per_dir_size(v, &s.spec.pacing.rate_iops_min)?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_process",
        kind: Kind::Choice(&[
            ("linear", "Linear rate of IO"),
            ("poisson", "Rate follows Poisson process"),
        ]),
        default: "linear",
        help: "What process controls how rated IO is managed",
        apply: |s, v| {
            s.spec.pacing.rate_process = v.pick(&[
                ("linear", RateProcess::Linear),
                ("poisson", RateProcess::Poisson),
            ])?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_cycle",
        aliases: &["ratecycle"],
        kind: Kind::Int,
        default: "1000",
        help: "Window average for rate limits (msec)",
        apply: |s, v| {
            s.spec.pacing.rate_cycle_ms = u64::from(v.uint(0)?);
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "rate_ignore_thinktime",
        kind: Kind::Bool,
        default: "0",
        help: "Rated IO ignores thinktime settings",
        apply: |s, v| {
            s.spec.pacing.rate_ignore_thinktime = v.bool()?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "io_submit_mode",
        kind: Kind::Choice(&[
            ("inline", "Submit and complete IO inline"),
            ("offload", "Offload submit and complete to threads"),
        ]),
        default: "inline",
        help: "How IO submissions and completions are done",
        apply: |s, v| {
            s.spec.pacing.submit_mode = v.pick(&[
                ("inline", SubmitMode::Inline),
                ("offload", SubmitMode::Offload),
            ])?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "number_ios",
        kind: Kind::Size,
        default: "0",
        help: "Force job completion after this number of IOs",
        apply: |s, v| {
            s.spec.pacing.number_ios = v.size()?;
            Ok(())
        },
        ..RATE
    },
    OptionDef {
        name: "thinktime",
        kind: Kind::Time,
        default: "0",
        help: "Idle time between IO buffers (usec unless suffixed)",
        apply: |s, v| {
            s.spec.pacing.thinktime = micros(v.text)?;
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "thinkcycles",
        kind: Kind::Int,
        default: "0",
        help: "Spin for a constant amount of cycles between requests",
        apply: |s, v| {
            s.spec.pacing.thinkcycles = v.uint(0)?;
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "thinktime_spin",
        kind: Kind::Time,
        default: "0",
        help: "Start think time by spinning this amount (usec unless suffixed)",
        apply: |s, v| {
            s.spec.pacing.thinktime_spin = micros(v.text)?;
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "thinktime_blocks",
        kind: Kind::Int,
        help: "IO buffer period between 'thinktime' (default 1)",
        apply: |s, v| {
            s.spec.pacing.thinktime_blocks = Some(u64::from(v.uint(0)?));
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "thinktime_blocks_type",
        kind: Kind::Choice(&[
            (
                "complete",
                "thinktime_blocks takes effect at the completion side",
            ),
            ("issue", "thinktime_blocks takes effect at the issue side"),
        ]),
        default: "complete",
        help: "How thinktime_blocks takes effect",
        apply: |s, v| {
            s.spec.pacing.thinktime_blocks_type = v.pick(&[
                ("complete", ThinkBlocks::Complete),
                ("issue", ThinkBlocks::Issue),
            ])?;
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "thinktime_iotime",
        kind: Kind::Time,
        default: "0",
        help: "IO time interval between 'thinktime'",
        apply: |s, v| {
            s.spec.pacing.thinktime_iotime = v.seconds()?;
            Ok(())
        },
        ..THINK
    },
    OptionDef {
        name: "flow_id",
        kind: Kind::Int,
        default: "0",
        help: "The flow index ID to use",
        apply: |s, v| {
            s.spec.pacing.flow_id = v.uint(0)?;
            Ok(())
        },
        ..FLOW
    },
    OptionDef {
        name: "flow",
        kind: Kind::Int,
        default: "0",
        help: "Weight for flow control of this job (0 to 1000)",
        apply: |s, v| {
            let w = v.uint(0)?;
            if w > 1000 {
                return Err(format!("{w} is above fio's largest flow weight, 1000"));
            }
            s.spec.pacing.flow = w;
            Ok(())
        },
        ..FLOW
    },
    OptionDef {
        name: "flow_sleep",
        kind: Kind::Time,
        default: "0",
        help: "How many microseconds to sleep after being held back by the flow control mechanism",
        apply: |s, v| {
            s.spec.pacing.flow_sleep = micros(v.text)?;
            Ok(())
        },
        ..FLOW
    },
    OptionDef {
        name: "max_latency",
        kind: Kind::PerDirSize,
        help: "Maximum tolerated IO latency (usec unless suffixed; read,write,trim)",
        apply: |s, v| {
            s.spec.pacing.max_latency =
                values::per_dir(v.text, &s.spec.pacing.max_latency, micros)?;
            Ok(())
        },
        ..LATENCY
    },
    OptionDef {
        name: "latency_target",
        kind: Kind::Time,
        help: "Ramp to max queue depth supporting this latency (usec unless suffixed)",
        apply: |s, v| {
            s.spec.pacing.latency_target = micros(v.text)?;
            Ok(())
        },
        ..LATENCY
    },
    OptionDef {
        name: "latency_window",
        kind: Kind::Time,
        help: "Time to sustain latency_target (usec unless suffixed)",
        apply: |s, v| {
            s.spec.pacing.latency_window = micros(v.text)?;
            Ok(())
        },
        ..LATENCY
    },
    OptionDef {
        name: "latency_percentile",
        kind: Kind::Float,
        default: "100",
        help: "Percentile of IOs must be below latency_target",
        apply: |s, v| {
            let p = v.float()?;
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("{p} is not a percentile (0 to 100)"));
            }
            s.spec.pacing.latency_percentile = p;
            Ok(())
        },
        ..LATENCY
    },
    OptionDef {
        name: "latency_run",
        kind: Kind::Bool,
        default: "0",
        help: "Keep adjusting queue depth to match latency_target",
        apply: |s, v| {
            s.spec.pacing.latency_run = v.bool()?;
            Ok(())
        },
        ..LATENCY
    },
];
