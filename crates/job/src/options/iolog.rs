//! I/O log capture and replay: `write_iolog`, `read_iolog` and the
//! `replay_*` options that change what a replay does (fio's "I/O replay").

use super::{Kind, OptionDef};
use crate::spec::ReplaySkip;
use crate::values;

const IOLOG: OptionDef = OptionDef::of("I/O replay");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "write_iolog",
        kind: Kind::Text,
        help: "Store IO pattern to file (fio's version 3 iolog, appended to)",
        apply: |s, v| {
            s.spec.iolog.write = non_empty(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "read_iolog",
        kind: Kind::Text,
        help: "Playback IO pattern from file: a fio iolog or a blktrace binary trace (several \
               ':'-separated, one per clone of numjobs)",
        apply: |s, v| {
            // The same escapes as filename (`\:` for a colon in a name).
            let names = values::filenames(v.text);
            if names.is_empty() {
                return Err("expected the name of an iolog file".into());
            }
            if names.iter().any(|n| n == "-") {
                return Err("'-' (standard input) is not supported as an iolog".into());
            }
            s.spec.iolog.read = names;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_no_stall",
        kind: Kind::Bool,
        default: "0",
        help: "Playback IO pattern file as fast as possible without stalls",
        apply: |s, v| {
            s.spec.iolog.no_stall = v.bool()?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_redirect",
        kind: Kind::Text,
        help: "Replay all I/O onto this file or device",
        apply: |s, v| {
            s.spec.iolog.redirect = non_empty(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_scale",
        kind: Kind::Int,
        default: "1",
        help: "Scale offset down by this factor",
        apply: |s, v| {
            s.spec.iolog.scale = u64::from(v.uint(0)?);
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_align",
        kind: Kind::Int,
        help: "Align offsets to this blocksize",
        // Unset is no alignment; given, it must be a power of two, 0
        // included (fio's str_replay_align_cb refuses 0).
        apply: |s, v| {
            let align = u64::from(v.uint(0)?);
            if !align.is_power_of_two() {
                return Err(format!("{align} is not a power of two"));
            }
            s.spec.iolog.align = align;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_time_scale",
        kind: Kind::Int,
        default: "100",
        help: "Scale time for replay events (percent of the log's pace)",
        apply: |s, v| {
            s.spec.iolog.time_scale = v.uint(1)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "replay_skip",
        kind: Kind::Text,
        // fio 3.33 skips only in blktrace replays; newer fio (and ioscope)
        // in text iologs too.
        help: "Skip certain IO types (read,write,trim,sync) in the replay, as fio 3.42 does",
        apply: |s, v| {
            s.spec.iolog.skip = replay_skip(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "merge_blktrace_file",
        kind: Kind::Text,
        help: "Merged blktrace output filename: the read_iolog traces are merged into it \
               and it is replayed in their place",
        apply: |s, v| {
            s.spec.iolog.merge = non_empty(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "merge_blktrace_scalars",
        kind: Kind::FloatList,
        help: "Percentage to scale each trace",
        apply: |s, v| {
            s.spec.iolog.merge_scalars = values::whole_list(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "merge_blktrace_iters",
        kind: Kind::FloatList,
        help: "Number of iterations to run per trace",
        apply: |s, v| {
            s.spec.iolog.merge_iters = values::whole_list(v.text)?;
            Ok(())
        },
        ..IOLOG
    },
    OptionDef {
        name: "read_iolog_chunked",
        kind: Kind::Bool,
        default: "0",
        help:
            "Parse IO pattern in chunks (ioscope reads the whole log: the I/O replayed is the same)",
        // fio reads a long log in pieces to bound its memory; what is
        // replayed, and when, does not change, so ioscope, which reads the
        // log whole, takes the option as it is.
        apply: |_, v| v.bool().map(|_| ()),
        ..IOLOG
    },
];

fn non_empty(text: &str) -> Result<Option<String>, String> {
    if text.is_empty() {
        return Err("expected a file name".into());
    }
    Ok(Some(text.to_string()))
}

/// fio's `str_replay_skip_cb`: a comma-separated list of directions.
fn replay_skip(text: &str) -> Result<ReplaySkip, String> {
    let mut skip = ReplaySkip::default();
    for word in text.split(',').map(str::trim) {
        match word {
            "read" => skip.read = true,
            "write" => skip.write = true,
            "trim" => skip.trim = true,
            "sync" => skip.sync = true,
            _ => {
                return Err(format!(
                    "'{word}' is not a direction to skip (expected read, write, trim or sync, \
                     comma-separated)"
                ))
            }
        }
    }
    Ok(skip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_skip_takes_fios_list() {
        let s = replay_skip("write, sync").unwrap();
        assert!(s.write && s.sync && !s.read && !s.trim);
        let e = replay_skip("read,flush").unwrap_err();
        assert!(e.contains("'flush'"), "{e}");
    }
}
