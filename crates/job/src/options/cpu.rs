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
