//! `--cmdhelp`: an option's help drawn from the option table, laid out like
//! fio's.

use std::fmt::Write;

use crate::error::ParseError;
use crate::options::{self, OPTIONS};

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
    if o.is_engine_option() {
        let _ = writeln!(
            out,
            "{:>20}: only with ioengine={}",
            "engine",
            options::engine_names(&o.engines())
        );
    }
    for (i, (value, help)) in o.kind.values().iter().enumerate() {
        let label = if i == 0 { "valid values" } else { "" };
        let _ = writeln!(out, "{label:>20}: {value:<13} {help}");
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
        assert!(cmdhelp("hipri").unwrap().contains(
            "              engine: only with ioengine=pvsync2, io_uring, io_uring_cmd or xnvme\n"
        ));
        assert!(cmdhelp("ramp_time").unwrap().contains("no default"));
    }

    #[test]
    fn engine_options() {
        let text = cmdhelp("sqthread_poll").unwrap();
        assert_eq!(
            text,
            "       sqthread_poll: Offload submission/completion to kernel thread (IORING_SETUP_SQPOLL)\n\
             \x20               type: empty or boolean value ([0|1])\n\
             \x20            default: no default\n\
             \x20           category: I/O engine\n\
             \x20             engine: only with ioengine=io_uring, io_uring_cmd or xnvme\n"
        );
        let text = cmdhelp("nonvectored").unwrap();
        assert!(text.contains("             default: -1\n"), "{text}");
        assert!(text.contains("integer value"), "{text}");
        let text = cmdhelp("nowait").unwrap();
        assert!(
            text.contains("only with ioengine=pvsync2, libaio or io_uring\n"),
            "{text}"
        );
        assert!(cmdhelp("uncached")
            .unwrap()
            .contains("only with ioengine=pvsync2 or io_uring\n"));
        assert!(cmdhelp("force_async")
            .unwrap()
            .contains("only with ioengine=io_uring or io_uring_cmd\n"));
        for name in ["sqthread_poll_cpu", "fixedbufs", "registerfiles"] {
            assert!(
                cmdhelp(name)
                    .unwrap()
                    .contains("only with ioengine=io_uring or io_uring_cmd\n"),
                "{name}"
            );
        }
        for name in ["userspace_reap", "libaio_vectored"] {
            assert!(
                cmdhelp(name)
                    .unwrap()
                    .contains("only with ioengine=libaio\n"),
                "{name}"
            );
        }
        assert!(cmdhelp("cmdprio_percentage")
            .unwrap()
            .contains("only with ioengine=libaio or io_uring\n"));
        assert!(cmdhelp("fdp_pli")
            .unwrap_err()
            .message
            .contains("not supported by ioscope: "));
    }

    #[test]
    fn engines_are_listed_and_nop_is_marked_as_ioscopes() {
        let text = cmdhelp("ioengine").unwrap();
        for name in ["libaio", "io_uring", "mmap"] {
            assert!(text.contains(&format!(": {name:<13} ")), "{text}");
        }
        assert!(
            text.contains(": nop           ioscope only, not a fio engine"),
            "{text}"
        );
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
        assert!(cmdhelp("fdp")
            .unwrap_err()
            .message
            .contains("not supported by ioscope: "));
    }
}
