//! Block sizes: one per direction (`bs`), a range (`bsrange`) or a mix
//! (`bssplit`). Each is kept as written; the resolve step picks one, with
//! fio's precedence (bssplit over bsrange over bs).

use super::{percent, Kind, OptionDef};
use crate::values;

const BLOCK_SIZE: OptionDef = OptionDef::of("Block size");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "bs",
        aliases: &["blocksize"],
        kind: Kind::PerDirSize,
        default: "4096",
        help: "Block size unit",
        apply: |s, v| {
            s.bs = values::per_dir(v.text, &s.bs, |t| {
                if t.contains(['-', ':']) && !t.starts_with('(') {
                    return Err(format!(
                        "'{t}' is a range; bs takes one size per direction (use bsrange for a range)"
                    ));
                }
                block_size(t, v.kb)
            })?;
            Ok(())
        },
        ..BLOCK_SIZE
    },
    OptionDef {
        name: "bsrange",
        aliases: &["blocksize_range"],
        kind: Kind::PerDirRange,
        help: "Set block size range (in more detail than bs)",
        apply: |s, v| {
            s.bsrange = values::per_dir(v.text, &s.bsrange, |t| {
                let (min, max) = values::range(t, |one| block_size(one, v.kb))?;
                Ok(Some((min, max)))
            })?;
            Ok(())
        },
        ..BLOCK_SIZE
    },
    OptionDef {
        name: "bssplit",
        kind: Kind::Split,
        help: "Set a specific mix of block sizes",
        apply: |s, v| {
            s.bssplit = values::per_dir(v.text, &s.bssplit, |t| bssplit(t, v.kb).map(Some))?;
            Ok(())
        },
        ..BLOCK_SIZE
    },
];

pub(crate) fn block_size(text: &str, kb: u32) -> Result<u64, String> {
    let v = values::size(text, kb)?;
    if v == 0 {
        return Err("a block size must be at least 1 byte".to_string());
    }
    Ok(v)
}

/// One direction of `bssplit`: `4k/50:64k/:1m/` — sizes with percentages,
/// in the order fio draws them (options.c `bssplit_ddir`). An entry without
/// a percentage, or with 0 (fio reads both as missing), shares what the
/// others leave equally, rounded down; fio's draw gives whatever rounding
/// leaves to the last entry. fio then sorts the entries by percentage, so
/// `4k/50:8k/30:16k/20` draws 16k first; the sort keeps the order given
/// among equal percentages, as glibc's does for such short lists.
/// Percentages adding up to more or, with none missing, less than 100 are
/// refused (fio lets the last entry take the difference).
pub(crate) fn bssplit(text: &str, kb: u32) -> Result<Vec<(u64, u32)>, String> {
    let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
    for part in text.split(':') {
        let (size, perc) = match part.split_once('/') {
            Some((s, p)) if p.trim().is_empty() => (s, None),
            Some((s, p)) => (s, Some(percent(p, kb)?).filter(|&p| p > 0)),
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
    let mut split: Vec<(u64, u32)> = entries
        .iter()
        .map(|&(size, perc)| (size, perc.unwrap_or(share)))
        .collect();
    split.sort_by_key(|e| e.1);
    Ok(split)
}
