//! Per-I/O priorities: fio's `cmdprio_percentage`, `cmdprio_class`,
//! `cmdprio` and `cmdprio_bssplit` (libaio and io_uring, engines/cmdprio.c)
//! and pvsync2's `hipri_percentage`.

/// One `cmdprio_bssplit` entry: I/Os of `bs` bytes get priority `prio`
/// `perc` percent of the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrioSplit {
    pub bs: u64,
    pub perc: u32,
    /// The ioprio value (see [`ioprio_value`]) the entry names, or None
    /// for the short form `bs/perc`, which takes `cmdprio_class`,
    /// `cmdprio` and `cmdprio_hint`.
    pub prio: Option<u16>,
}

/// The cmdprio options, per direction [read, write] (fio keeps no trim
/// value: trims always go at the job's priority).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CmdprioSpec {
    /// `cmdprio_percentage`: the share of I/Os sent at the cmdprio
    /// priority; 0 for none.
    pub percentage: [u32; 2],
    /// `cmdprio_class`: 1 (RT), 2 (BE) or 3 (IDLE); 0 when not set, which
    /// fio takes as RT.
    pub class: [u32; 2],
    /// `cmdprio`: the level, 0..=7.
    pub level: [u32; 2],
    /// `cmdprio_hint` (fio 3.36): the priority hint, 0..=1023 (0: none).
    pub hint: [u32; 2],
    /// `cmdprio_bssplit`, parsed: entries with a non-zero percentage,
    /// sorted by block size, per direction. None when not set.
    pub bssplit: Option<[Vec<PrioSplit>; 2]>,
    /// pvsync2's `hipri_percentage` (default 100): with `hipri`, the share
    /// of I/Os sent with RWF_HIPRI.
    pub hipri_percentage: u32,
}

/// Linux's IOPRIO_CLASS_SHIFT and IOPRIO_HINT_SHIFT: an ioprio value is
/// class << 13 | hint << 3 | level.
const CLASS_SHIFT: u32 = 13;
const HINT_SHIFT: u32 = 3;

/// The largest priority hint (IOPRIO_HINT_NR_BITS is 10).
pub const MAX_PRIO_HINT: u32 = (1 << 10) - 1;

impl CmdprioSpec {
    pub fn blank() -> CmdprioSpec {
        CmdprioSpec {
            hipri_percentage: 100,
            ..CmdprioSpec::default()
        }
    }

    /// fio's option conflict check (fio_cmdprio_init): a job chooses
    /// priorities by percentage or by block size, not both.
    pub fn check(&self) -> Result<(), String> {
        if self.bssplit.is_some() && self.percentage.iter().any(|&p| p > 0) {
            return Err(
                "cmdprio_percentage and cmdprio_bssplit options are mutually exclusive".into(),
            );
        }
        Ok(())
    }

    /// Whether any I/O may be sent at a cmdprio priority.
    pub fn active(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|&p| p > 0)
    }

    /// The priority an I/O of direction `dir` (0 read, 1 write) gets from
    /// `cmdprio_class`, `cmdprio` and `cmdprio_hint`: fio's class 0 (not
    /// set) is RT.
    pub fn implicit_prio(&self, dir: usize) -> u16 {
        let class = if self.class[dir] == 0 {
            1
        } else {
            self.class[dir]
        };
        ioprio_value(class, self.level[dir], self.hint[dir])
    }
}

/// fio's ioprio_value, as ioprio_set(2) and the engines take it: class 0
/// (none) is best effort.
pub fn ioprio_value(class: u32, level: u32, hint: u32) -> u16 {
    let class = if class == 0 { 2 } else { class };
    ((class << CLASS_SHIFT) | (hint << HINT_SHIFT) | level) as u16
}

/// Parses one direction's `cmdprio_bssplit` list as fio's
/// split_parse_prio_ddir: `bs/perc`, `bs/perc/class/level` or (fio 3.36)
/// `bs/perc/class/level/hint` entries joined by `:`; percentages above 100
/// count as 100, class, level and hint are capped at 3, 7 and 1023,
/// zero-percent entries are dropped, and the rest are sorted by block
/// size.
/// The forms of a `cmdprio_bssplit` entry, for messages.
const FORMS: &str = "bs/percentage, bs/percentage/class/level or bs/percentage/class/level/hint";

pub(crate) fn parse_split(
    text: &str,
    size: impl Fn(&str) -> Result<u64, String>,
) -> Result<Vec<PrioSplit>, String> {
    let mut out = Vec::new();
    for entry in text.split(':') {
        if entry.is_empty() {
            // fio stops at the first empty entry.
            break;
        }
        let mut fields = entry.split('/');
        let bs = size(fields.next().unwrap_or_default())?;
        let nums: Vec<&str> = fields.collect();
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{entry}' is not {FORMS}"))
        };
        let (perc, prio) = match nums.as_slice() {
            [] | [""] => (0, None),
            [p] => (num(p)?, None),
            [p, c, l] | [p, c, l, _] => {
                let (class, level) = (num(c)?.min(3), num(l)?.min(7));
                let hint = match nums.get(3) {
                    Some(h) => num(h)?.min(MAX_PRIO_HINT),
                    None => 0,
                };
                (num(p)?, Some(ioprio_value(class, level, hint)))
            }
            _ => return Err(format!("'{entry}' is not {FORMS}")),
        };
        let perc = perc.min(100);
        if perc > 0 {
            out.push(PrioSplit { bs, perc, prio });
        }
    }
    // A stable sort, as the entries of one block size keep their order
    // (fio's qsort gives no order among equal sizes; listing order is the
    // natural reading).
    out.sort_by_key(|e| e.bs);
    let mut start = 0;
    while start < out.len() {
        let bs = out[start].bs;
        let end = out[start..]
            .iter()
            .position(|e| e.bs != bs)
            .map_or(out.len(), |n| start + n);
        let total: u32 = out[start..end].iter().map(|e| e.perc).sum();
        if total > 100 {
            return Err(format!(
                "the percentages for block size {bs} add up to {total}, over 100"
            ));
        }
        start = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(s: &str) -> Result<u64, String> {
        crate::values::size(s, 1024)
    }

    #[test]
    fn both_forms_parse_as_fio() {
        let s = parse_split("64k/100:1024k/0", size).unwrap();
        assert_eq!(
            s,
            vec![PrioSplit {
                bs: 65536,
                perc: 100,
                prio: None
            }]
        );
        let s = parse_split("64k/25/1/1:64k/75/3/2", size).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].prio, Some((1 << 13) | 1));
        assert_eq!(s[1].prio, Some((3 << 13) | 2));
        // Sorted by size; class and level capped.
        let s = parse_split("8k/10/9/9:4k/5", size).unwrap();
        assert_eq!(s[0].bs, 4096);
        assert_eq!(s[1].prio, Some((3 << 13) | 7));
        // fio 3.36's hint, capped at 1023.
        let s = parse_split("4k/10/2/1/3:8k/5/1/0/5000", size).unwrap();
        assert_eq!(s[0].prio, Some((2 << 13) | (3 << 3) | 1));
        assert_eq!(s[1].prio, Some((1 << 13) | (1023 << 3)));
    }

    #[test]
    fn over_100_for_one_size_is_refused() {
        let err = parse_split("4k/60:4k/50", size).unwrap_err();
        assert!(err.contains("add up to 110"), "{err}");
        assert!(parse_split("4k/x", size).is_err());
        assert!(parse_split("4k/1/2", size).is_err());
        assert!(parse_split("4k/1/2/3/4/5", size).is_err());
    }

    #[test]
    fn unset_class_is_real_time() {
        let mut c = CmdprioSpec::blank();
        assert!(!c.active());
        assert_eq!(c.implicit_prio(0), 1 << 13);
        c.percentage[0] = 5;
        assert!(c.check().is_ok());
        c.bssplit = Some([Vec::new(), Vec::new()]);
        assert!(c.check().unwrap_err().contains("mutually exclusive"));
        c.class[1] = 3;
        c.level[1] = 4;
        assert_eq!(c.implicit_prio(1), (3 << 13) | 4);
        c.hint[1] = 7;
        assert_eq!(c.implicit_prio(1), (3 << 13) | (7 << 3) | 4);
        assert_eq!(ioprio_value(0, 4, 0), (2 << 13) | 4);
    }
}
