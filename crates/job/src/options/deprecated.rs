//! The options fio keeps only to say they are deprecated: the soft ones
//! (`verifysort`, `verifysort_nr`, `flow_watermark`) are taken and
//! ignored, whatever their value, and echoed in the JSON "job options";
//! the hard ones (`percentage_sequential`, `rwmixcycle`) fail the job
//! file, as fio's FIO_OPT_DEPRECATED does. Either way fio says "Option X
//! is deprecated" on its output once per place the option is given (see
//! [`notes`]).

use super::{Kind, OptionDef, Value};
use crate::ini::Section;
use crate::settings::Settings;

/// A soft one: nothing to do.
fn ignored(_: &mut Settings, _: &Value) -> Result<(), String> {
    Ok(())
}

/// A hard one: fio fails the parse after its note.
fn refused(_: &mut Settings, v: &Value) -> Result<(), String> {
    Err(format!(
        "'{}' is deprecated, and fio refuses it too (\"Option {} is deprecated\", then \"failed parsing\")",
        v.def.name, v.def.name
    ))
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "verifysort",
        kind: Kind::Text,
        help: "Deprecated in fio and ignored (accepted for old job files)",
        apply: ignored,
        ..OptionDef::of("Verify")
    },
    OptionDef {
        name: "verifysort_nr",
        kind: Kind::Text,
        help: "Deprecated in fio and ignored (accepted for old job files)",
        apply: ignored,
        ..OptionDef::of("Verify")
    },
    OptionDef {
        name: "flow_watermark",
        kind: Kind::Text,
        help: "Deprecated in fio and ignored (accepted for old job files)",
        apply: ignored,
        ..OptionDef::of("I/O flow")
    },
    OptionDef {
        name: "percentage_sequential",
        kind: Kind::Text,
        help: "Deprecated in fio, which refuses it: use percentage_random",
        apply: refused,
        ..OptionDef::of("Random I/O")
    },
    OptionDef {
        name: "rwmixcycle",
        kind: Kind::Text,
        help: "Deprecated in fio, which refuses it",
        apply: refused,
        ..OptionDef::of("I/O type")
    },
];

/// fio's "Option X is deprecated" lines, one per place a deprecated
/// option is given in `sections` (a `[global]` one once, not once per
/// job), in order: fio prints them as it parses, before anything else.
pub(crate) fn notes<'a>(sections: impl IntoIterator<Item = &'a Section>) -> Vec<String> {
    sections
        .into_iter()
        .flat_map(|s| &s.entries)
        .filter(|e| OPTIONS.iter().any(|o| o.name == e.key))
        .map(|e| format!("Option {} is deprecated", e.key))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::{parse, ParseInput};

    fn cli(options: &[&str]) -> ParseInput {
        ParseInput {
            cli_options: options.iter().map(|o| o.to_string()).collect(),
            ..Default::default()
        }
    }

    /// The soft ones run with fio's note, once per place given; the hard
    /// ones fail as in fio.
    #[test]
    fn soft_ones_are_noted_and_hard_ones_refused() {
        let p = parse(&cli(&[
            "--verifysort=1",
            "--name=a",
            "--flow_watermark=x",
            "--name=b",
            "--numjobs=2",
            "--verifysort_nr=3",
        ]))
        .unwrap();
        assert_eq!(p.jobs.len(), 2);
        assert_eq!(
            p.deprecated,
            [
                "Option verifysort is deprecated",
                "Option flow_watermark is deprecated",
                "Option verifysort_nr is deprecated",
            ]
        );
        for hard in ["--percentage_sequential=10", "--rwmixcycle=1"] {
            let err = parse(&cli(&["--name=a", hard])).unwrap_err().to_string();
            assert!(
                err.contains("is deprecated, and fio refuses it too"),
                "{err}"
            );
        }
    }
}
