//! Per-I/O priorities: the cmdprio options of libaio and io_uring and
//! pvsync2's `hipri_percentage`. The values land in
//! [`crate::CmdprioSpec`].

use super::{Kind, OptionDef, Value};
use crate::cmdprio::parse_split;
use crate::spec::PerDir;
use crate::values;

const ENGINE: OptionDef = OptionDef::of("I/O engine");

/// fio's two-offset integers: `10` sets reads and writes, `10,20` reads
/// then writes (a third entry, for trims, is accepted and unused, as fio
/// keeps no trim value). Each must lie in `min..=max`.
fn per_dir(v: &Value, current: [u32; 2], min: u32, max: u32) -> Result<[u32; 2], String> {
    let now = PerDir {
        read: current[0],
        write: current[1],
        trim: current[1],
    };
    let got = values::per_dir(v.text, &now, |t| {
        let n = values::uint(t, v.kb, 0)?;
        if n < min || n > max {
            return Err(format!("{n} is out of range ({min} to {max})"));
        }
        Ok(n)
    })?;
    Ok([got.read, got.write])
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "cmdprio_percentage",
        kind: Kind::PerDirInt,
        help: "Send high priority I/O this percentage of the time (0 to 100; read,write)",
        apply: |s, v| {
            let c = &mut s.spec.cmdprio;
            c.percentage = per_dir(v, c.percentage, 0, 100)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cmdprio_class",
        kind: Kind::PerDirInt,
        help: "Set asynchronous IO priority class (1 RT, 2 BE, 3 IDLE; read,write; default RT)",
        apply: |s, v| {
            let c = &mut s.spec.cmdprio;
            c.class = per_dir(v, c.class, 1, 3)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cmdprio",
        kind: Kind::PerDirInt,
        help: "Set asynchronous IO priority level (0 to 7; read,write)",
        apply: |s, v| {
            let c = &mut s.spec.cmdprio;
            c.level = per_dir(v, c.level, 0, 7)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cmdprio_hint",
        kind: Kind::PerDirInt,
        help: "Set asynchronous IO priority hint (0 to 1023; read,write)",
        apply: |s, v| {
            let c = &mut s.spec.cmdprio;
            c.hint = per_dir(v, c.hint, 0, crate::cmdprio::MAX_PRIO_HINT)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cmdprio_bssplit",
        kind: Kind::Text,
        help: "Set priority percentages for different block sizes (bs/perc[/class/level[/hint]]:...[,write list])",
        apply: |s, v| {
            let text = v.text.trim();
            if text.is_empty() {
                s.spec.cmdprio.bssplit = None;
                return Ok(());
            }
            // fio's str_split_parse: one list serves both directions;
            // `read,write[,trim]` gives each its own.
            let kb = v.kb;
            let parse = |t: &str| parse_split(t, |x| values::size(x, kb));
            let mut lists = text.splitn(3, ',');
            let first = lists.next().unwrap_or_default();
            let split = match lists.next() {
                Some(write) => [parse(first)?, parse(write)?],
                None => {
                    let one = parse(first)?;
                    [one.clone(), one]
                }
            };
            s.spec.cmdprio.bssplit = Some(split);
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "hipri_percentage",
        kind: Kind::Int,
        default: "100",
        help: "Probabilistically set RWF_HIPRI for pwritev2/preadv2 (0 to 100; needs hipri)",
        apply: |s, v| {
            let n = v.uint(0)?;
            if n > 100 {
                return Err(format!("{n} is out of range (0 to 100)"));
            }
            s.spec.cmdprio.hipri_percentage = n;
            Ok(())
        },
        ..ENGINE
    },
];
