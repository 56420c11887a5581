//! Which CPUs a job's workers run on.

use super::{Kind, OptionDef};
use crate::spec::CpusAllowedPolicy;
use crate::values;

const CPU: OptionDef = OptionDef::of("CPU affinity");

const POLICY_VALUES: &[(&str, &str)] = &[
    ("shared", "Every worker may run on every CPU of the set"),
    ("split", "Each worker gets its own CPU of the set"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "cpus_allowed",
        kind: Kind::CpuList,
        help: "Set CPUs allowed",
        apply: |s, v| {
            s.spec.cpus_allowed = values::cpu_list(v.text)?;
            Ok(())
        },
        ..CPU
    },
    OptionDef {
        // fio's bitmask form of cpus_allowed (an int: bit N is CPU N, at
        // most 32 CPUs); the two set the same mask, the last one given wins.
        name: "cpumask",
        kind: Kind::Int,
        help: "CPU affinity mask",
        apply: |s, v| {
            let mask = match v
                .text
                .strip_prefix("0x")
                .or_else(|| v.text.strip_prefix("0X"))
            {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => v.text.parse::<u32>().ok(),
            }
            .ok_or_else(|| format!("'{}' is not a 32-bit CPU mask", v.text))?;
            if mask == 0 {
                return Err("a mask of 0 names no CPU".to_string());
            }
            s.spec.cpus_allowed = (0..32).filter(|i| mask & (1 << i) != 0).collect();
            Ok(())
        },
        ..CPU
    },
    OptionDef {
        name: "cpus_allowed_policy",
        kind: Kind::Choice(POLICY_VALUES),
        default: "shared",
        help: "Distribution policy for cpus_allowed",
        apply: |s, v| {
            s.spec.cpus_allowed_policy = v.pick(&[
                ("shared", CpusAllowedPolicy::Shared),
                ("split", CpusAllowedPolicy::Split),
            ])?;
            Ok(())
        },
        ..CPU
    },
];
