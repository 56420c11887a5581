//! Where I/Os go: the random distribution, the share of random I/O, what
//! I/Os between random ones do, block alignment and the seeds.

use super::{percent, Kind, OptionDef};
use crate::placement::{Distribution, RwSequencer, ZoneSplit};
use crate::spec::PerDir;
use crate::values;

const PLACEMENT: OptionDef = OptionDef::of("Random I/O");

const SEQUENCER_VALUES: &[(&str, &str)] = &[
    ("sequential", "Generate sequential offsets"),
    ("identical", "Generate identical offsets"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "random_distribution",
        kind: Kind::Text,
        default: "random",
        help: "Random offset distribution generator: random, zipf:theta[:center], \
               pareto:h[:center], normal:dev[:center], zoned:access/size:..., \
               zoned_abs:access/size:...",
        apply: |s, v| {
            s.spec.placement.distribution = distribution(v.text, v.kb)?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "percentage_random",
        kind: Kind::Text,
        default: "100,100,100",
        help: "Percentage of seq/random mix that should be random",
        apply: |s, v| {
            s.spec.placement.percentage_random =
                values::per_dir(v.text, &s.spec.placement.percentage_random, |t| {
                    percent(t, v.kb)
                })?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "rw_sequencer",
        kind: Kind::Choice(SEQUENCER_VALUES),
        default: "sequential",
        help: "IO offset generator modifier",
        apply: |s, v| {
            s.spec.placement.rw_sequencer = v.pick(&[
                ("sequential", RwSequencer::Sequential),
                ("identical", RwSequencer::Identical),
            ])?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "ba",
        aliases: &["blockalign"],
        kind: Kind::PerDirSize,
        help: "IO block offset alignment",
        apply: |s, v| {
            s.spec.placement.blockalign =
                values::per_dir(v.text, &s.spec.placement.blockalign, |t| {
                    let b = values::size(t, v.kb)?;
                    if b == 0 {
                        return Err("an alignment must be at least 1 byte".to_string());
                    }
                    Ok(b)
                })?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "bs_unaligned",
        aliases: &["blocksize_unaligned"],
        kind: Kind::Flag,
        help: "Don't sector align IO buffer sizes",
        apply: |s, v| {
            s.spec.placement.bs_unaligned = v.bool()?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "bs_is_seq_rand",
        kind: Kind::Bool,
        default: "0",
        help: "Consider any blocksize setting to be sequential,random",
        apply: |s, v| {
            s.spec.placement.bs_is_seq_rand = v.bool()?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "offset_align",
        kind: Kind::Size,
        default: "0",
        help: "Start IO from this offset alignment",
        apply: |s, v| {
            s.spec.placement.offset_align = Some(v.size()?).filter(|&a| a > 0);
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "allrandrepeat",
        kind: Kind::Bool,
        default: "0",
        help: "Use repeatable random numbers for everything",
        apply: |s, v| {
            s.spec.placement.allrandrepeat = v.bool()?;
            Ok(())
        },
        ..PLACEMENT
    },
    OptionDef {
        name: "softrandommap",
        kind: Kind::Bool,
        default: "0",
        help: "Set norandommap if randommap allocation fails",
        // fio uses it only when allocating the random map fails; ioscope's
        // map is allocated with the job's other memory, whose failure ends
        // the run, so there is nothing for it to change.
        apply: |_, v| v.bool().map(drop),
        ..PLACEMENT
    },
];

/// fio's `str_random_distribution_cb`: the name, then for zipf, pareto and
/// normal an optional `:value[:center]`, for the zoned ones the zones.
pub(crate) fn distribution(text: &str, kb: u32) -> Result<Distribution, String> {
    let (name, rest) = match text.split_once(':') {
        Some((n, r)) => (n, Some(r)),
        None => (text, None),
    };
    let zones = |absolute: bool| {
        let rest =
            rest.ok_or_else(|| format!("{name} needs its zones ({name}:access/size:...)"))?;
        if rest.contains(',') {
            // fio 3.33's HOWTO describes one list per direction, but its
            // parser refuses the comma ("failed parsing").
            return Err(format!(
                "fio 3.33 refuses per-direction {name} lists (a ','): give one list for all directions"
            ));
        }
        Ok::<_, String>(PerDir::all(zone_splits(rest, absolute, kb)?))
    };
    match name {
        // fio reads no value for random: what follows its ':' is ignored.
        "random" => return Ok(Distribution::Random),
        "zoned" => return Ok(Distribution::Zoned(zones(false)?)),
        "zoned_abs" => return Ok(Distribution::ZonedAbs(zones(true)?)),
        "zipf" | "pareto" | "normal" => {}
        _ => {
            return Err(
                "expected random, zipf[:theta[:center]], pareto[:h[:center]], \
                 normal[:dev[:center]], zoned:... or zoned_abs:..."
                    .to_string(),
            )
        }
    }
    let (value, center) = match rest {
        None => (None, None),
        Some(r) => {
            let (v, c) = match r.split_once(':') {
                Some((v, c)) => (v, Some(c)),
                None => (r, None),
            };
            let float = |t: &str| {
                t.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("'{t}' is not a number"))
            };
            (Some(float(v)?), c.map(float).transpose()?)
        }
    };
    if let Some(c) = center {
        if !(0.0..=1.0).contains(&c) {
            return Err("distribution center out of range (0 <= center <= 1.0)".to_string());
        }
    }
    Ok(match name {
        "zipf" => {
            let theta = value.unwrap_or(1.1);
            if theta == 1.0 {
                return Err("zipf theta must be different from 1.0".to_string());
            }
            Distribution::Zipf { theta, center }
        }
        "pareto" => {
            let h = value.unwrap_or(0.2);
            if h <= 0.0 || h >= 1.0 {
                return Err("pareto input out of range (0 < input < 1.0)".to_string());
            }
            Distribution::Pareto { h, center }
        }
        _ => {
            let dev = value.unwrap_or(0.0);
            if !(0.0..100.0).contains(&dev) {
                return Err("normal deviation out of range (0 <= input < 100.0)".to_string());
            }
            Distribution::Normal { dev, center }
        }
    })
}

/// fio's `zone_split_ddir`: `access/size` pairs separated by ':'. A size
/// left out (`20/`) shares what the others leave of 100% (zoned); an
/// access share must be given, and the shares must add up to 100.
fn zone_splits(text: &str, absolute: bool, kb: u32) -> Result<Vec<ZoneSplit>, String> {
    let mut zones: Vec<(u32, Option<u64>)> = Vec::new();
    for part in text.split(':') {
        if part.is_empty() {
            break;
        }
        let (access, size) = match part.split_once('/') {
            Some((a, s)) => (a, Some(s)),
            None => (part, None),
        };
        let access = values::uint(access, kb, 0)?;
        let size = match size {
            Some(s) if absolute => Some(values::size(s, kb)?),
            // fio reads the size with atoi: blank or 0 is "not given".
            Some(s) => match s.trim() {
                "" => None,
                t => Some(u64::from(percent(t, kb)?)).filter(|&p| p > 0),
            },
            None if absolute => Some(0),
            None => None,
        };
        zones.push((access, size));
    }
    let access: u32 = zones.iter().map(|z| z.0).sum();
    let sizes: u64 = zones.iter().filter_map(|z| z.1).sum();
    if access > 100 || (!absolute && sizes > 100) {
        return Err("zone_split percentages add to more than 100%".to_string());
    }
    if access < 100 {
        return Err(format!(
            "access percentages don't add up to 100 for zoned random distribution (got={access})"
        ));
    }
    let missing = zones.iter().filter(|z| z.1.is_none()).count() as u64;
    // zoned_abs sizes are bytes, and none is missing there.
    let share = 100u64
        .saturating_sub(sizes)
        .checked_div(missing)
        .unwrap_or(0);
    Ok(zones
        .into_iter()
        .map(|(access, size)| ZoneSplit {
            access,
            size: size.unwrap_or(share),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_as_fio_reads_them() {
        assert_eq!(distribution("random", 1024), Ok(Distribution::Random));
        assert_eq!(distribution("random:0.5", 1024), Ok(Distribution::Random));
        assert_eq!(
            distribution("zipf", 1024),
            Ok(Distribution::Zipf {
                theta: 1.1,
                center: None
            })
        );
        assert_eq!(
            distribution("zipf:1.2:0.3", 1024),
            Ok(Distribution::Zipf {
                theta: 1.2,
                center: Some(0.3)
            })
        );
        assert_eq!(
            distribution("pareto:0.9", 1024),
            Ok(Distribution::Pareto {
                h: 0.9,
                center: None
            })
        );
        assert!(distribution("zipf:1", 1024).is_err());
        assert!(distribution("pareto:1.5", 1024).is_err());
        assert!(distribution("normal:100", 1024).is_err());
        assert!(distribution("zipf:1.2:2", 1024).is_err());
        assert!(distribution("uniform", 1024).is_err());
    }

    #[test]
    fn zones_fill_missing_sizes() {
        let Ok(Distribution::Zoned(z)) = distribution("zoned:50/5:30/15:20/", 1024) else {
            panic!("not zoned");
        };
        let want = vec![
            ZoneSplit {
                access: 50,
                size: 5,
            },
            ZoneSplit {
                access: 30,
                size: 15,
            },
            ZoneSplit {
                access: 20,
                size: 80,
            },
        ];
        assert_eq!(z, PerDir::all(want));
        let Ok(Distribution::ZonedAbs(z)) = distribution("zoned_abs:60/1m:40/2m", 1024) else {
            panic!("not zoned_abs");
        };
        assert_eq!(z.read[1].size, 2 << 20);
        assert_eq!(z.trim, z.write);
        assert!(distribution("zoned_abs:60/1m:40/2m,100/4m", 1024).is_err());
        assert!(distribution("zoned:50/5:30/15", 1024)
            .unwrap_err()
            .contains("got=80"));
        assert!(distribution("zoned:60/50:40/60", 1024).is_err());
    }
}
