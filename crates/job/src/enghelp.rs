//! `--enghelp[=ENGINE[,OPTION]]`: the engines, or one engine's options,
//! drawn from the engine registry and the option table, laid out like fio's
//! fio_show_ioengine_help.

use std::fmt::Write;

use ioscope_engine::Backend;

use crate::error::ParseError;
use crate::options;

/// What `--enghelp` prints, and whether fio would exit 0 after it (fio
/// exits 1 when the engine has no options, having printed so on stdout).
pub(crate) fn enghelp(arg: &str) -> Result<(String, bool), ParseError> {
    let mut out = String::new();
    if arg.is_empty() {
        out.push_str("Available IO engines:\n");
        for b in Backend::ALL {
            let _ = writeln!(out, "\t{}", b.name());
        }
        return Ok((out, true));
    }
    let (name, option) = match arg.split_once(',') {
        Some((n, o)) => (n, Some(o)),
        None => (arg, None),
    };
    let engine = Backend::from_name(name).ok_or_else(|| {
        let why = match Backend::needs(name) {
            Some(needs) => needs,
            None => format!("'{name}' is not an engine"),
        };
        ParseError::new(format!("--enghelp: {why}; --enghelp lists the engines"))
    })?;
    let names = engine.desc().options;
    if names.is_empty() {
        let _ = writeln!(out, "IO engine {} has no options", engine.name());
        return Ok((out, false));
    }
    match option {
        None | Some("all") => {
            for def in names.iter().filter_map(|n| options::find(n)) {
                let _ = writeln!(out, "{:<24}: {}", def.name, def.help);
            }
        }
        Some(o) => {
            let def = options::find(o).filter(|d| names.contains(&d.name));
            let Some(def) = def else {
                return Err(ParseError::new(format!(
                    "--enghelp: ioengine={} has no option '{o}'; --enghelp={} lists its options",
                    engine.name(),
                    engine.name()
                )));
            };
            out = crate::cmdhelp::cmdhelp(def.name)?;
        }
    }
    Ok((out, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engines_are_listed_as_fio_lists_them() {
        let (text, ok) = enghelp("").unwrap();
        assert!(ok);
        assert!(
            text.starts_with("Available IO engines:\n\tsync\n"),
            "{text}"
        );
        assert!(text.contains("\n\tio_uring\n"), "{text}");
        assert_eq!(text.lines().count(), Backend::ALL.len() + 1);
    }

    #[test]
    fn an_engines_options_are_its_own() {
        let (text, ok) = enghelp("io_uring").unwrap();
        assert!(ok);
        assert!(
            text.contains("sqthread_poll           : Offload submission/completion"),
            "{text}"
        );
        assert!(!text.contains("userspace_reap"), "{text}");
        let (text, _) = enghelp("libaio").unwrap();
        assert!(text.contains("userspace_reap"), "{text}");
    }

    #[test]
    fn one_option_of_an_engine() {
        let (text, ok) = enghelp("io_uring,hipri").unwrap();
        assert!(ok);
        assert!(text.starts_with("               hipri: "), "{text}");
        let e = enghelp("io_uring,userspace_reap").unwrap_err().message;
        assert!(e.contains("no option 'userspace_reap'"), "{e}");
    }

    #[test]
    fn an_engine_without_options_says_so_and_fails_as_in_fio() {
        let (text, ok) = enghelp("psync").unwrap();
        assert_eq!(text, "IO engine psync has no options\n");
        assert!(!ok);
        let e = enghelp("nosuch").unwrap_err().message;
        assert!(e.contains("'nosuch' is not an engine"), "{e}");
        let e = enghelp("rdma").unwrap_err().message;
        assert!(e.contains("ioengine=rdma needs librdmacm"), "{e}");
    }
}
