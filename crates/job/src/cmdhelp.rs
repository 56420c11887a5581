//! `--cmdhelp`: an option's help drawn from the option table, laid out like
//! fio's.

use std::fmt::Write;

use crate::error::ParseError;
use crate::options::{self, Kind, OPTIONS};

pub(crate) fn cmdhelp(name: &str) -> Result<String, ParseError> {
    let mut out = String::new();
    if name == "all" {
        for o in OPTIONS {
            let _ = writeln!(out, "{:<24}: {}", o.name, o.help);
        }
        return Ok(out);
    }
    let o = options::find(name).ok_or_else(|| ParseError::new(options::not_an_option(name)))?;
    let _ = writeln!(out, "{:>20}: {}", o.name, o.help);
    if !o.aliases.is_empty() {
        let _ = writeln!(out, "{:>20}: {}", "alias", o.aliases.join(", "));
    }
    let _ = writeln!(out, "{:>20}: {}", "type", o.kind.describe());
    let default = if o.default.is_empty() {
        "no default"
    } else {
        o.default
    };
    let _ = writeln!(out, "{:>20}: {}", "default", default);
    let _ = writeln!(out, "{:>20}: {}", "category", o.category);
    if let Some(engine) = o.engine {
        let _ = writeln!(
            out,
            "{:>20}: only with ioengine={}",
            "engine",
            engine.name()
        );
    }
    if let Kind::Choice(values) = o.kind {
        for (i, (value, help)) in values.iter().enumerate() {
            let label = if i == 0 { "valid values" } else { "" };
            let _ = writeln!(out, "{label:>20}: {value:<13} {help}");
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_option() {
        let text = cmdhelp("blocksize").unwrap();
        assert!(
            text.starts_with("                  bs: Block size unit\n"),
            "{text}"
        );
        assert!(text.contains("               alias: blocksize\n"));
        assert!(text.contains("             default: 4096\n"));
        let text = cmdhelp("rw").unwrap();
        assert!(text.contains("        valid values: read "), "{text}");
        assert!(text.contains("randrw"));
        assert!(cmdhelp("hipri")
            .unwrap()
            .contains("only with ioengine=pvsync2"));
        assert!(cmdhelp("ramp_time").unwrap().contains("no default"));
    }

    #[test]
    fn all_lists_every_option_once() {
        let text = cmdhelp("all").unwrap();
        assert_eq!(text.lines().count(), OPTIONS.len());
        assert!(text.contains("iodepth                 : "));
    }

    #[test]
    fn unknown_names() {
        assert!(cmdhelp("iodpeth")
            .unwrap_err()
            .message
            .contains("did you mean 'iodepth'"));
        assert!(cmdhelp("verify")
            .unwrap_err()
            .message
            .contains("not supported by ioscope yet"));
    }
}
