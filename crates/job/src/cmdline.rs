//! Command-line job options (`--name=a --rw=read ...`) grouped into
//! sections the way fio's getopt loop groups them: options before the first
//! `--name` are global, each `--name=X` starts a job (or, for a name starting
//! with "global", a global section) and the options after it belong to it.

use crate::error::{ParseError, Place};
use crate::ini::{Entry, Section};

/// The sections of the command line; the first is always the implicit
/// global one (possibly empty).
pub(crate) fn sections(options: &[String]) -> Result<Vec<Section>, ParseError> {
    let place = Place::CommandLine;
    let mut sections = vec![Section {
        name: "global".to_string(),
        place: place.clone(),
        entries: Vec::new(),
    }];
    for option in options {
        let Some(body) = option
            .strip_prefix("--")
            .or_else(|| option.strip_prefix('-'))
        else {
            return Err(ParseError::at(
                &place,
                format!("'{option}' is not a job option (write --key=value or --flag)"),
            ));
        };
        let (key, value) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        if key.is_empty() {
            return Err(ParseError::at(
                &place,
                format!("'{option}' has no option name"),
            ));
        }
        if key == "name" {
            let name = value.clone().unwrap_or_default();
            if name.is_empty() {
                return Err(ParseError::at(&place, "--name needs a job name"));
            }
            sections.push(Section {
                name,
                place: place.clone(),
                entries: Vec::new(),
            });
        }
        if let Some(section) = sections.last_mut() {
            section.entries.push(Entry {
                key: key.to_string(),
                value,
                place: place.clone(),
                // The shell has made its substitutions already.
                unset_vars: Vec::new(),
            });
        }
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_before_the_first_name_are_global() {
        let s = sections(&args(&[
            "--bs=8k",
            "--name=a",
            "--rw=read",
            "-name=b",
            "--time_based",
        ]))
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].name, "global");
        assert_eq!(s[0].entries[0].key, "bs");
        assert_eq!(s[1].name, "a");
        assert_eq!(s[1].entries.len(), 2);
        assert_eq!(s[2].name, "b");
        assert_eq!(s[2].entries[1].key, "time_based");
        assert_eq!(s[2].entries[1].value, None);
    }

    #[test]
    fn malformed_options() {
        assert!(sections(&args(&["bs=4k"]))
            .unwrap_err()
            .message
            .contains("not a job option"));
        assert!(sections(&args(&["--name="]))
            .unwrap_err()
            .message
            .contains("needs a job name"));
        assert!(sections(&args(&["--=4"])).is_err());
    }
}
