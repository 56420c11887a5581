//! Job control (`wait_for`, `exit_what`, `exitall_on_error`, steady
//! state), the commands run around a job, and its CPU and I/O priority.

use super::{Kind, OptionDef, Value};
use crate::process::{ExitWhat, MemPolicy, NumaNodes, SteadyMetric};
use crate::values;

const CONTROL: OptionDef = OptionDef::of("Job control");
const STEADY: OptionDef = OptionDef::of("Steady state");
const PROCESS: OptionDef = OptionDef::of("Process");

const EXIT_WHAT_VALUES: &[(&str, &str)] = &[
    ("group", "exit_all=1 default behaviour"),
    (
        "stonewall",
        "quit all currently running jobs; continue with next stonewall",
    ),
    ("all", "Quit everything"),
];

const SS_VALUES: &[(&str, &str)] = &[
    ("iops", "maximum mean deviation of IOPS measurements"),
    ("iops_slope", "slope calculated from IOPS measurements"),
    ("bw", "maximum mean deviation of bandwidth measurements"),
    ("bw_slope", "slope calculated from bandwidth measurements"),
    ("lat", "maximum mean deviation of latency measurements"),
    ("lat_slope", "slope calculated from latency measurements"),
];

/// A text option's value; fio keeps an empty one as unset.
fn text(v: &Value) -> Option<String> {
    (!v.text.is_empty()).then(|| v.text.to_string())
}

/// A signed integer in `lo..=hi` (fio's minval/maxval).
fn int_in(v: &Value, lo: i64, hi: i64) -> Result<i64, String> {
    let n: i64 = v
        .text
        .parse()
        .map_err(|_| format!("'{}' is not an integer", v.text))?;
    if n < lo || n > hi {
        return Err(format!("'{}' is out of range {lo}..{hi}", v.text));
    }
    Ok(n)
}

/// `ss=iops_slope:0.1%`: the criterion, then its limit after `:`, a
/// percentage with `%`, else a number of IOPS, a bandwidth (a size per
/// second, fio's suffixes) or a latency, as fio's `str_steadystate_cb`
/// reads them.
fn steadystate(v: &Value) -> Result<(SteadyMetric, bool, f64, bool), String> {
    let (name, limit) = v.text.split_once(':').ok_or_else(|| {
        "the threshold must be given after the criterion (ss=iops:10%)".to_string()
    })?;
    let (metric, slope) = match name {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bw, false),
        "bw_slope" => (SteadyMetric::Bw, true),
        "lat" => (SteadyMetric::Lat, false),
        "lat_slope" => (SteadyMetric::Lat, true),
        _ => return Err(v.not_a_choice()),
    };
    let float = |t: &str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or_else(|| format!("threshold '{t}' is not a number"))
    };
    if let Some(pct) = limit.strip_suffix('%') {
        return Ok((metric, slope, float(pct)?, true));
    }
    let limit = match metric {
        SteadyMetric::Iops => float(limit)?,
        SteadyMetric::Bw => values::size(limit, v.kb)? as f64,
        // fio reads it as a time in microseconds (check_str_time) and
        // compares that number with latencies in nanoseconds: `lat:100us`
        // is a limit of 100 ns. Kept, so the verdicts are fio's.
        SteadyMetric::Lat => values::time_us(limit, 1)? as f64,
    };
    Ok((metric, slope, limit, false))
}

/// A node list as libnuma reads it: `all`, or numbers and ranges.
fn numa_nodes(text: &str) -> Result<NumaNodes, String> {
    if text == "all" {
        return Ok(NumaNodes::All);
    }
    values::cpu_list(text)
        .map(NumaNodes::List)
        .map_err(|_| format!("'{text}' is not a node list (all, or numbers and ranges: 0-1,3)"))
}

/// `mode[:nodes]`, with fio's rules on which modes take nodes.
fn mem_policy(text: &str) -> Result<MemPolicy, String> {
    let (mode, nodes) = match text.split_once(':') {
        Some((m, n)) => (m, Some(n)),
        None => (text, None),
    };
    match (mode, nodes) {
        ("default", None) => Ok(MemPolicy::Default),
        ("local", None) => Ok(MemPolicy::Local),
        ("default" | "local", Some(_)) => Err(format!("no nodelist for '{mode}'")),
        ("prefer", Some(n)) => n
            .parse()
            .map(MemPolicy::Prefer)
            .map_err(|_| "one node only for 'prefer'".to_string()),
        ("prefer", None) => Err("one node is needed for 'prefer'".to_string()),
        ("bind", Some(n)) => numa_nodes(n).map(MemPolicy::Bind),
        ("bind", None) => Err("a nodelist is needed for 'bind'".to_string()),
        ("interleave", n) => numa_nodes(n.unwrap_or("all")).map(MemPolicy::Interleave),
        _ => Err("memory policy should be: default, prefer, bind, interleave, local".to_string()),
    }
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "wait_for",
        help: "Only start job when this job has finished",
        apply: |s, v| {
            s.spec.process.wait_for = text(v);
            Ok(())
        },
        ..CONTROL
    },
    OptionDef {
        name: "exit_what",
        kind: Kind::Choice(EXIT_WHAT_VALUES),
        default: "group",
        help: "Fine-grained control for exitall",
        apply: |s, v| {
            s.spec.process.exit_what = v.pick(&[
                ("group", ExitWhat::Group),
                ("stonewall", ExitWhat::Stonewall),
                ("all", ExitWhat::All),
            ])?;
            Ok(())
        },
        ..CONTROL
    },
    OptionDef {
        name: "exitall_on_error",
        kind: Kind::Flag,
        help: "Terminate all jobs when one exits in error",
        apply: |s, v| {
            s.spec.process.exitall_on_error = v.bool()?;
            Ok(())
        },
        ..CONTROL
    },
    OptionDef {
        name: "steadystate",
        aliases: &["ss"],
        kind: Kind::Choice(SS_VALUES),
        default: "iops_slope:0.01%",
        help: "Define the criterion and limit to judge when a job has reached steady state",
        apply: |s, v| {
            let (metric, slope, limit, percent) = steadystate(v)?;
            let ss = &mut s.spec.process.steadystate;
            (ss.metric, ss.slope, ss.limit, ss.percent) = (metric, slope, limit, percent);
            Ok(())
        },
        ..STEADY
    },
    OptionDef {
        name: "steadystate_duration",
        aliases: &["ss_dur"],
        kind: Kind::Time,
        default: "0",
        help: "Stop workload upon attaining steady state for specified duration",
        apply: |s, v| {
            // fio keeps whole seconds: ss_dur=1500ms is one sample.
            s.spec.process.steadystate.duration_s = v.seconds()?.as_secs();
            Ok(())
        },
        ..STEADY
    },
    OptionDef {
        name: "steadystate_ramp_time",
        aliases: &["ss_ramp"],
        kind: Kind::Time,
        default: "0",
        help: "Delay before initiation of data collection for steady state job termination testing",
        apply: |s, v| {
            s.spec.process.steadystate.ramp = v.seconds()?;
            Ok(())
        },
        ..STEADY
    },
    OptionDef {
        name: "steadystate_check_interval",
        aliases: &["ss_interval"],
        kind: Kind::Time,
        default: "1",
        help: "Polling interval for the steady state check (too low means steadystate will not converge)",
        apply: |s, v| {
            let ms = v.seconds()?.as_millis() as u64;
            // fio counts the samples in whole seconds of it, and divides
            // by that count: below a second it would divide by zero.
            if ms < 1000 {
                return Err(format!(
                    "{} is below one second, the least fio can take (it counts ss_dur in whole seconds of it)",
                    v.text
                ));
            }
            s.spec.process.steadystate.interval_ms = ms;
            Ok(())
        },
        ..STEADY
    },
    OptionDef {
        name: "comm",
        help: "Process comm of this job",
        apply: |s, v| {
            s.spec.process.comm = text(v);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "exec_prerun",
        help: "Execute this file prior to running job",
        apply: |s, v| {
            s.spec.process.exec_prerun = text(v);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "exec_postrun",
        help: "Execute this file after running job",
        apply: |s, v| {
            s.spec.process.exec_postrun = text(v);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "nice",
        kind: Kind::Int,
        default: "0",
        help: "Set job CPU nice value",
        apply: |s, v| {
            s.spec.process.nice = int_in(v, -20, 19)? as i32;
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "prio",
        kind: Kind::Int,
        help: "Set job IO priority value",
        apply: |s, v| {
            s.spec.process.prio = Some(int_in(v, 0, 7)? as u32);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "prioclass",
        kind: Kind::Int,
        help: "Set job IO priority class",
        apply: |s, v| {
            s.spec.process.prioclass = Some(int_in(v, 0, 3)? as u32);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "priohint",
        kind: Kind::Int,
        help: "Set job IO priority hint",
        apply: |s, v| {
            let max = crate::cmdprio::MAX_PRIO_HINT;
            s.spec.process.priohint = Some(int_in(v, 0, i64::from(max))? as u32);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "uid",
        kind: Kind::Int,
        help: "Run job with this user ID",
        apply: |s, v| {
            s.spec.process.uid = Some(v.uint(0)?);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "gid",
        kind: Kind::Int,
        help: "Run job with this group ID",
        apply: |s, v| {
            s.spec.process.gid = Some(v.uint(0)?);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "cgroup",
        help: "Add job to cgroup of this name",
        apply: |s, v| {
            s.spec.process.cgroup = text(v);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "cgroup_nodelete",
        kind: Kind::Bool,
        default: "0",
        help: "Do not delete cgroups after job completion",
        apply: |s, v| {
            s.spec.process.cgroup_nodelete = v.bool()?;
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "cgroup_weight",
        kind: Kind::Int,
        help: "Use given weight for cgroup",
        apply: |s, v| {
            s.spec.process.cgroup_weight = Some(int_in(v, 100, 1000)? as u32);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "numa_cpu_nodes",
        help: "NUMA CPU nodes bind",
        apply: |s, v| {
            s.spec.process.numa_cpu_nodes = Some(numa_nodes(v.text)?);
            Ok(())
        },
        ..PROCESS
    },
    OptionDef {
        name: "numa_mem_policy",
        help: "NUMA memory policy setup",
        apply: |s, v| {
            s.spec.process.numa_mem_policy = Some(mem_policy(v.text)?);
            Ok(())
        },
        ..PROCESS
    },
];

#[cfg(test)]
mod tests {
    use crate::process::{ExitWhat, MemPolicy, NumaNodes, SteadyMetric};
    use crate::{parse, JobSpec, ParseInput};

    fn parse_one(text: &str) -> JobSpec {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.fio");
        std::fs::write(&path, text).unwrap();
        let input = ParseInput {
            job_files: vec![path],
            ..ParseInput::default()
        };
        parse(&input).unwrap().jobs.remove(0)
    }

    #[test]
    fn steadystate_criteria_read_as_fio_reads_them() {
        let job = parse_one("[j]\nss=bw:10m\nss_dur=30s\nss_ramp=5\n");
        let ss = job.process.steadystate;
        assert_eq!(
            (ss.metric, ss.slope, ss.percent),
            (SteadyMetric::Bw, false, false)
        );
        assert_eq!(ss.limit, 10.0 * 1024.0 * 1024.0);
        assert_eq!(ss.duration_s, 30);
        assert_eq!(ss.ramp.as_secs(), 5);
        assert_eq!(ss.describe(), "bw:10485760.000000");
        let ss = parse_one("[j]\nsteadystate=iops_slope:0.5%\n")
            .process
            .steadystate;
        assert!(ss.slope && ss.percent && !ss.enabled());
        assert_eq!(ss.describe(), "iops_slope:0.500000%");
        // fio 3.42's latency criterion, its limit a time read in us, and
        // the check interval that divides ss_dur into samples.
        let ss = parse_one("[j]\nss=lat_slope:250us\nss_dur=10\nss_interval=2\n")
            .process
            .steadystate;
        assert_eq!((ss.metric, ss.slope), (SteadyMetric::Lat, true));
        assert_eq!(ss.limit, 250.0);
        assert_eq!((ss.interval_ms, ss.intervals()), (2000, 5));
        assert_eq!(ss.describe(), "lat_slope:250.000000");
        assert_eq!(
            parse_one("[j]\nss=lat:1ms\n").process.steadystate.limit,
            1000.0
        );
        assert_eq!(parse_one("[j]\n").process.steadystate.interval_ms, 1000);
    }

    #[test]
    fn memory_policies_take_nodes_as_fio_allows() {
        use super::mem_policy;
        assert_eq!(mem_policy("prefer:1"), Ok(MemPolicy::Prefer(1)));
        assert_eq!(
            mem_policy("interleave"),
            Ok(MemPolicy::Interleave(NumaNodes::All))
        );
        assert_eq!(
            mem_policy("bind:0-1"),
            Ok(MemPolicy::Bind(NumaNodes::List(vec![0, 1])))
        );
        assert!(mem_policy("bind").is_err());
        assert!(mem_policy("local:0").is_err());
        assert!(mem_policy("prefer:0-1").is_err());
        assert!(mem_policy("spread").is_err());
    }

    #[test]
    fn defaults_are_fios() {
        let p = parse_one("[j]\n").process;
        assert_eq!(p.exit_what, ExitWhat::Group);
        assert_eq!(p.steadystate.describe(), "iops_slope:0.010000%");
        assert_eq!((p.nice, p.prio, p.prioclass), (0, None, None));
    }
}
