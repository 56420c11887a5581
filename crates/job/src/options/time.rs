//! How long a job runs, when it starts, and how often it repeats.

use super::{seconds, Kind, OptionDef};
use crate::values;

const TIME: OptionDef = OptionDef::of("Time related parameters");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "time_based",
        kind: Kind::Flag,
        help: "Keep running until runtime/timeout is met",
        apply: |s, v| {
            s.spec.time_based = v.bool()?;
            Ok(())
        },
        ..TIME
    },
    OptionDef {
        name: "runtime",
        aliases: &["timeout"],
        kind: Kind::Time,
        default: "0",
        help: "Stop workload when this amount of time has passed",
        apply: |s, v| {
            let t = v.seconds()?;
            // fio treats runtime=0 as "no limit".
            s.spec.runtime = (!t.is_zero()).then_some(t);
            Ok(())
        },
        ..TIME
    },
    OptionDef {
        name: "ramp_time",
        kind: Kind::Time,
        help: "Ramp up time before measuring performance",
        apply: |s, v| {
            s.spec.ramp_time = v.seconds()?;
            Ok(())
        },
        ..TIME
    },
    OptionDef {
        name: "ramp_size",
        kind: Kind::Size,
        help: "Amount of data transferred before measuring performance",
        apply: |s, v| {
            let n = v.size()?;
            // fio's minval: ramp_size=0 is refused, not read as "none".
            if n == 0 {
                return Err(format!("'{}' is below the minimum of 1", v.text));
            }
            s.spec.ramp_size = n;
            Ok(())
        },
        ..TIME
    },
    OptionDef {
        name: "startdelay",
        kind: Kind::TimeRange,
        default: "0",
        help: "Only start job when this period has passed",
        apply: |s, v| {
            s.spec.startdelay = if v.text.contains(['-', ':', ',']) {
                values::range(&v.text.replace(',', "-"), seconds)?
            } else {
                let t = v.seconds()?;
                (t, t)
            };
            Ok(())
        },
        ..TIME
    },
    OptionDef {
        name: "loops",
        kind: Kind::Int,
        default: "1",
        help: "Number of times to run the job",
        // fio runs a job with loops=0 once, as with loops=1.
        apply: |s, v| {
            s.spec.loops = v.uint(0)?.max(1);
            Ok(())
        },
        ..TIME
    },
];
