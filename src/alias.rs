//! Running as `fio`: a script written for fio runs ioscope unchanged when a
//! `fio` on its PATH is a link to this binary. `ioscope install-fio-alias`
//! makes that link.
//!
//! Under the name `fio`, `--version` (and the version fio prints in its
//! reports) reads `fio-3.42 (ioscope-X.Y.Z)`: enough for the scripts that
//! check for `fio-3`, while saying what really runs. 3.42 is the fio release
//! whose output ioscope follows.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};

/// The fio release whose options and output ioscope follows.
const FIO_RELEASE: &str = "3.42";

/// Whether this process was started under the name `fio`.
pub fn invoked_as_fio() -> bool {
    std::env::args_os()
        .next()
        .is_some_and(|argv0| is_fio_name(Path::new(&argv0)))
}

fn is_fio_name(argv0: &Path) -> bool {
    argv0.file_name().is_some_and(|n| n == "fio")
}

/// What `--version` prints and the reports name as the version, without a
/// newline.
pub fn version(as_fio: bool) -> String {
    let ours = ioscope_report::version();
    if as_fio {
        format!("fio-{FIO_RELEASE} ({ours})")
    } else {
        ours
    }
}

const USAGE: &str = "\
usage: ioscope install-fio-alias [--force] [DIR]

Creates DIR/fio, a symbolic link to this ioscope, so that scripts written for
fio run ioscope unchanged. DIR defaults to ~/.local/bin and is created if
missing. An existing DIR/fio that is not already such a link is left alone
unless --force is given.
";

/// Runs `ioscope install-fio-alias` with the arguments after its name.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    const PROGRAM: &str = "ioscope install-fio-alias";
    match install(args) {
        Ok(text) => match crate::output::print(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => crate::output::fail(PROGRAM, &e.into()),
        },
        Err(e) => crate::output::fail(PROGRAM, &e),
    }
}

/// Makes the link; returns what to tell the user.
fn install(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<String> {
    let mut force = false;
    let mut dir = None;
    for arg in args {
        match arg.to_str() {
            Some("--force") => force = true,
            Some("--help" | "-h") => return Ok(USAGE.to_string()),
            Some(a) if a.starts_with('-') => {
                bail!("unknown option {a} (expected --force, --help or a directory)")
            }
            _ if dir.is_some() => bail!("give one directory, not several\n\n{USAGE}"),
            _ => dir = Some(PathBuf::from(arg)),
        }
    }
    let dir = match dir {
        Some(d) => d,
        None => {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .context("HOME is not set: give the directory for the link")?;
            Path::new(&home).join(".local/bin")
        }
    };
    let target = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find the path of this ioscope binary")?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let link = dir.join("fio");
    match std::fs::symlink_metadata(&link) {
        Ok(_) if points_to(&link, &target) => {
            return Ok(format!(
                "{} already links to {}\n{}",
                link.display(),
                target.display(),
                path_hint(&dir)
            ));
        }
        Ok(meta) if !force => bail!(
            "{} exists ({}); it may be a real fio: remove it, choose another \
             directory, or give --force to replace it",
            link.display(),
            if meta.file_type().is_symlink() {
                "a link elsewhere"
            } else {
                "not a link to this ioscope"
            }
        ),
        Ok(_) => std::fs::remove_file(&link)
            .with_context(|| format!("--force: cannot remove {}", link.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!("cannot look at {}: {e}", link.display()),
    }
    std::os::unix::fs::symlink(&target, &link)
        .with_context(|| format!("cannot create the link {}", link.display()))?;
    Ok(format!(
        "{} -> {}\n{}",
        link.display(),
        target.display(),
        path_hint(&dir)
    ))
}

fn points_to(link: &Path, target: &Path) -> bool {
    link.canonicalize().is_ok_and(|p| p == target)
}

/// Whether scripts will find the link: DIR must come on PATH before any
/// other fio.
fn path_hint(dir: &Path) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    let same = |d: &Path| d == dir || d.canonicalize().ok() == dir.canonicalize().ok();
    match dirs.iter().position(|d| same(d)) {
        None => format!("{} is not on PATH: add it for scripts to find this fio\n", dir.display()),
        Some(at) => match dirs[..at].iter().find(|d| d.join("fio").exists()) {
            Some(other) => format!(
                "{} comes earlier on PATH and has a fio of its own, which scripts will run instead\n",
                other.display()
            ),
            None => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_last_component_only() {
        assert!(is_fio_name(Path::new("fio")));
        assert!(is_fio_name(Path::new("/usr/local/bin/fio")));
        assert!(!is_fio_name(Path::new("/opt/fio/ioscope")));
        assert!(!is_fio_name(Path::new("fio2")));
    }

    #[test]
    fn the_version_says_fio_only_under_its_name() {
        let ours = format!("ioscope-{}", env!("CARGO_PKG_VERSION"));
        assert_eq!(version(false), ours);
        assert_eq!(version(true), format!("fio-3.42 ({ours})"));
    }

    #[test]
    fn an_existing_file_is_left_alone_without_force() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fio"), "#!/bin/sh\n").unwrap();
        let args = [dir.path().as_os_str().to_owned()];
        let e = install(args.clone()).unwrap_err().to_string();
        assert!(e.contains("--force") && e.contains("real fio"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("fio")).unwrap(),
            "#!/bin/sh\n"
        );
        let args = [OsString::from("--force"), args[0].clone()];
        install(args).unwrap();
        let link = std::fs::read_link(dir.path().join("fio")).unwrap();
        assert_eq!(
            link,
            std::env::current_exe().unwrap().canonicalize().unwrap()
        );
    }
}
