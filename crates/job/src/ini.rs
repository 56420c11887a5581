//! Reading job files: `[sections]`, `key=value` lines and bare flags,
//! comments, and `include` — the text layer, before any option is looked up.
//!
//! As in fio, everything from the first `;` or `#` on a line is a comment
//! (so trailing comments work), `include FILE` is only allowed inside a
//! section and adds the file's options to it, and an included file may not
//! open sections of its own.

use std::path::{Path, PathBuf};

use crate::error::{ParseError, Place};
use crate::expand::{self, Keywords};

/// One `key=value` (or bare `key`) line, substitutions made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub value: Option<String>,
    pub place: Place,
    /// The `${VAR}`s in the line that are not set (and became empty), for
    /// the options where that is an error.
    pub unset_vars: Vec<String>,
}

/// A `[name]` section with its options in order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Section {
    pub name: String,
    pub place: Place,
    pub entries: Vec<Entry>,
}

/// What substitutions need from the outside world.
pub(crate) struct Substitutions<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub keywords: Keywords,
}

/// Includes nest at most this deep, which also stops include loops.
const MAX_INCLUDE_DEPTH: usize = 16;

/// The largest job file (or included file) read: far above any real one,
/// and low enough that `include /dev/zero` or a job file from a stream that
/// never ends is refused instead of filling memory.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a job file into its sections.
pub(crate) fn read(path: &Path, subs: &Substitutions) -> Result<Vec<Section>, ParseError> {
    let mut sections = Vec::new();
    read_into(path, subs, &mut sections, 0)?;
    Ok(sections)
}

/// Reads a job file's text that came from elsewhere (a fio client sends
/// its job files' contents), shown in errors as `name`; an include in it is
/// found from the current directory.
pub(crate) fn read_text(
    name: &str,
    text: &[u8],
    subs: &Substitutions,
) -> Result<Vec<Section>, ParseError> {
    let mut sections = Vec::new();
    read_lines(Path::new(name), text, subs, &mut sections, 0)?;
    Ok(sections)
}

fn read_into(
    path: &Path,
    subs: &Substitutions,
    sections: &mut Vec<Section>,
    depth: usize,
) -> Result<(), ParseError> {
    let bytes = read_bytes(path, depth > 0).map_err(|e| {
        // An include's error is told at the include line, with its name.
        if depth > 0 {
            ParseError::new(e)
        } else {
            ParseError::new(format!("job file '{}': {e}", path.display()))
        }
    })?;
    read_lines(path, &bytes, subs, sections, depth)
}

/// The lines of `path`, whose contents are `bytes`.
fn read_lines(
    path: &Path,
    bytes: &[u8],
    subs: &Substitutions,
    sections: &mut Vec<Section>,
    depth: usize,
) -> Result<(), ParseError> {
    // Editors on some systems start files with a byte-order mark.
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let shown = path.display().to_string();
    let nested = depth > 0;
    // Lines are bytes, as fio reads them: a comment may be in any encoding
    // (a Latin-1 `; café`); only the text before it must be UTF-8.
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let place = Place::File {
            path: shown.clone(),
            line: index + 1,
        };
        let line = strip_comment(raw).map_err(|e| ParseError::at(&place, e))?;
        if line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            if nested {
                return Err(ParseError::at(&place, "no new sections in included files"));
            }
            let Some(name) = header.strip_suffix(']') else {
                return Err(ParseError::at(
                    &place,
                    format!("section header '{line}' has no closing ']'"),
                ));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(ParseError::at(&place, "empty section name '[]'"));
            }
            sections.push(Section {
                name: name.to_string(),
                place,
                entries: Vec::new(),
            });
            continue;
        }
        if sections.is_empty() {
            return Err(ParseError::at(
                &place,
                format!("option '{line}' outside of a [section]"),
            ));
        }
        if let Some(target) = include_target(line) {
            if depth + 1 > MAX_INCLUDE_DEPTH {
                return Err(ParseError::at(
                    &place,
                    format!("include '{target}': includes nest deeper than {MAX_INCLUDE_DEPTH} (a loop?)"),
                ));
            }
            let included = resolve_include(path, target);
            read_into(&included, subs, sections, depth + 1).map_err(|e| {
                ParseError::at(&place, format!("include '{target}': {}", e.message))
            })?;
            continue;
        }
        let entry = entry(line, place, subs)?;
        if let Some(section) = sections.last_mut() {
            section.entries.push(entry);
        }
    }
    Ok(())
}

/// A job file, or standard input for `-` as in fio, at most
/// [`MAX_FILE_BYTES`]. A job file may be a pipe (`ioscope <(make-job)`); an
/// included file must be a regular file, checked before it is opened, since
/// opening a FIFO waits for a writer.
fn read_bytes(path: &Path, included: bool) -> Result<Vec<u8>, String> {
    use std::io::Read;
    if included {
        let meta = std::fs::metadata(path).map_err(|e| format!("unable to open: {e}"))?;
        if !meta.is_file() {
            return Err(format!(
                "not a regular file (a {}); include takes a job file",
                file_kind(&meta)
            ));
        }
    }
    let reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("unable to open: {e}"))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("unable to open: {e}"))?;
        if meta.is_dir() {
            return Err("is a directory, not a job file".to_string());
        }
        Box::new(file)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("unable to read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "larger than {} MiB; no job file is that big (is it the right file?)",
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// What a file that is not a regular file is, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// fio cuts a line at its first `;` or `#` and trims the blanks around it.
/// What is left must be UTF-8 (ioscope's option values are text).
fn strip_comment(line: &[u8]) -> Result<&str, String> {
    let end = line
        .iter()
        .position(|&b| b == b';' || b == b'#')
        .unwrap_or(line.len());
    let text = std::str::from_utf8(&line[..end]).map_err(|e| {
        let at = e.valid_up_to();
        format!(
            "byte 0x{:02x} at column {} is not UTF-8; options must be UTF-8 text \
             (comments after ';' or '#' may hold any bytes)",
            line[at],
            at + 1
        )
    })?;
    Ok(text.trim())
}

fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    rest.starts_with(char::is_whitespace)
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// fio opens an include as written when it can, and otherwise relative to
/// the directory of the file that includes it.
fn resolve_include(including: &Path, target: &str) -> PathBuf {
    let direct = PathBuf::from(target);
    if direct.is_absolute() || direct.exists() {
        return direct;
    }
    match including.parent() {
        Some(dir) => dir.join(target),
        None => direct,
    }
}

fn entry(line: &str, place: Place, subs: &Substitutions) -> Result<Entry, ParseError> {
    let (line, unset_vars) = expand::env_vars(line, subs.env);
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (line.trim(), None),
    };
    if key.is_empty() {
        let why = match unset_vars.first() {
            Some(var) => format!(" (the environment variable {var} is not set)"),
            None => String::new(),
        };
        return Err(ParseError::at(
            &place,
            format!("'{line}' has no option name{why}"),
        ));
    }
    let value = match value {
        Some(v) => Some(
            subs.keywords
                .replace(v)
                .map_err(|e| ParseError::at(&place, format!("{key}={v}: {e}")))?,
        ),
        None => None,
    };
    Ok(Entry {
        key: key.to_string(),
        value,
        place,
        unset_vars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn subs_env(name: &str) -> Option<String> {
        (name == "TARGET").then(|| "/dev/nullb0".to_string())
    }

    fn subs() -> Substitutions<'static> {
        Substitutions {
            env: &subs_env,
            keywords: Keywords {
                pagesize: 4096,
                mb_memory: 1000,
                ncpus: 4,
            },
        }
    }

    fn keys(section: &Section) -> Vec<(String, Option<String>)> {
        section
            .entries
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect()
    }

    #[test]
    fn sections_comments_flags_and_substitutions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.fio");
        fs::write(
            &path,
            "; a comment\n# another\n[global]\nfilename=${TARGET} ; trailing\n  bs = 4k # t\ntime_based\n\n[job1]\nnumjobs=$ncpus\nsize=$mb_memory/2\r\n",
        )
        .unwrap();
        let sections = read(&path, &subs()).unwrap();
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].name, "global");
        assert_eq!(
            keys(&sections[0]),
            vec![
                ("filename".to_string(), Some("/dev/nullb0".to_string())),
                ("bs".to_string(), Some("4k".to_string())),
                ("time_based".to_string(), None),
            ]
        );
        assert_eq!(
            sections[1].entries[0].place,
            Place::File {
                path: path.display().to_string(),
                line: 9
            }
        );
        assert_eq!(
            keys(&sections[1]),
            vec![
                ("numjobs".to_string(), Some("4".to_string())),
                ("size".to_string(), Some("500".to_string())),
            ]
        );
    }

    #[test]
    fn includes_are_relative_to_the_including_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(
            dir.path().join("sub/common.inc"),
            "rw=randread\niodepth=4\n",
        )
        .unwrap();
        let path = dir.path().join("main.fio");
        fs::write(&path, "[j]\ninclude sub/common.inc\nbs=8k\n").unwrap();
        let sections = read(&path, &subs()).unwrap();
        assert_eq!(
            keys(&sections[0]),
            vec![
                ("rw".to_string(), Some("randread".to_string())),
                ("iodepth".to_string(), Some("4".to_string())),
                ("bs".to_string(), Some("8k".to_string())),
            ]
        );
    }

    #[test]
    fn include_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("loop.fio");
        fs::write(dir.path().join("loop.inc"), "include loop.inc\n").unwrap();
        fs::write(&path, "[j]\ninclude loop.inc\n").unwrap();
        assert!(read(&path, &subs())
            .unwrap_err()
            .message
            .contains("nest deeper"));
        let path = dir.path().join("sect.fio");
        fs::write(dir.path().join("s.inc"), "[other]\n").unwrap();
        fs::write(&path, "[j]\ninclude s.inc\n").unwrap();
        assert!(read(&path, &subs())
            .unwrap_err()
            .message
            .contains("no new sections"));
        let path = dir.path().join("missing.fio");
        fs::write(&path, "[j]\ninclude nothere.inc\n").unwrap();
        let err = read(&path, &subs()).unwrap_err().message;
        assert!(
            err.contains("missing.fio:2") && err.contains("unable to open"),
            "{err}"
        );
    }

    #[test]
    fn odd_lines_never_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd.fio");
        for line in [
            "[",
            "]",
            "[]]",
            "=",
            "==",
            "include",
            "include ",
            "includex",
            "é=ü",
            "${",
            "${}",
            "a=$ncpus-",
            "a=$pagesize/0",
            "a=(",
            "[é]",
            "\u{0}",
        ] {
            fs::write(&path, format!("[j]\n{line}\n")).unwrap();
            let _ = read(&path, &subs());
        }
    }

    #[test]
    fn comments_may_hold_any_bytes_options_must_be_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("latin1.fio");
        fs::write(&path, b"; caf\xe9\n[j]\nbs=4k # d\xe9j\xe0\r\n").unwrap();
        let sections = read(&path, &subs()).unwrap();
        assert_eq!(
            keys(&sections[0]),
            vec![("bs".to_string(), Some("4k".to_string()))]
        );
        fs::write(&path, b"[j]\nfilename=caf\xe9\n").unwrap();
        let err = read(&path, &subs()).unwrap_err().message;
        assert!(
            err.contains("latin1.fio:2: byte 0xe9 at column 13 is not UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn includes_must_be_regular_files_of_sane_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("main.fio");
        for (target, kind) in [("/dev/zero", "character device"), ("/", "directory")] {
            fs::write(&path, format!("[j]\ninclude {target}\n")).unwrap();
            let err = read(&path, &subs()).unwrap_err().message;
            assert!(
                err.contains("main.fio:2: include") && err.contains(kind),
                "{err}"
            );
        }
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        fs::write(&path, "[j]\ninclude fifo\n").unwrap();
        let err = read(&path, &subs()).unwrap_err().message;
        assert!(err.contains("FIFO"), "{err}");
        let big = dir.path().join("big.inc");
        let file = fs::File::create(&big).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        fs::write(&path, "[j]\ninclude big.inc\n").unwrap();
        let err = read(&path, &subs()).unwrap_err().message;
        assert!(err.contains("larger than 16 MiB"), "{err}");
        // The job file itself: the same limit, and a directory is refused.
        let err = read(&big, &subs()).unwrap_err().message;
        assert!(err.contains("larger than 16 MiB"), "{err}");
        let err = read(dir.path(), &subs()).unwrap_err().message;
        assert!(err.contains("directory"), "{err}");
    }

    #[test]
    fn malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.fio");
        fs::write(&path, "bs=4k\n[j]\n").unwrap();
        let err = read(&path, &subs()).unwrap_err().message;
        assert!(
            err.ends_with("bad.fio:1: option 'bs=4k' outside of a [section]"),
            "{err}"
        );
        fs::write(&path, "\u{feff}[j]\nbs=4k\n").unwrap();
        assert_eq!(read(&path, &subs()).unwrap()[0].name, "j");
        fs::write(&path, "[j\n").unwrap();
        assert!(read(&path, &subs())
            .unwrap_err()
            .message
            .contains("no closing"));
        fs::write(&path, "[j]\n=4\n").unwrap();
        assert!(read(&path, &subs())
            .unwrap_err()
            .message
            .contains("no option name"));
        assert!(read(&dir.path().join("none.fio"), &subs()).is_err());
    }
}
