//! Where results go (stdout or `--output`), written through calls whose
//! failures come back as errors. `print!` panics when stdout cannot take the
//! text (a full disk, /dev/full, a reader that went away); a report that was
//! not written must end the run with an error, never with a panic or, worse,
//! with exit 0.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

/// The exit status when the reader of stdout went away (EPIPE): what a shell
/// sees from fio, which dies of SIGPIPE there (128 + 13). Rust ignores
/// SIGPIPE, so ioscope gets the error and exits with the same status itself.
const CLOSED_PIPE: u8 = 141;

/// A place to write results to.
pub struct Output {
    /// Send: reports while the run goes on are written from its status
    /// thread.
    to: Box<dyn Write + Send>,
    name: String,
    /// `--output`'s file, from which `--debug`'s writer is made.
    file: Option<std::fs::File>,
}

/// Text that could not be written, and where to.
#[derive(Debug)]
pub struct WriteFailed {
    name: String,
    error: io::Error,
}

impl fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let full = matches!(self.error.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
        write!(
            f,
            "cannot write to {}: {}; what is there is incomplete ({}write the output elsewhere)",
            self.name,
            self.error,
            if full { "free some space, or " } else { "" }
        )
    }
}

impl std::error::Error for WriteFailed {}

impl Output {
    pub fn stdout() -> Output {
        Output {
            to: Box::new(io::stdout()),
            name: "stdout".into(),
            file: None,
        }
    }

    /// Creates (or truncates) `path` for `--output`.
    pub fn create(path: &Path) -> anyhow::Result<Output> {
        let file = std::fs::File::create(path).map_err(|e| {
            anyhow::anyhow!(
                "--output: cannot create {}: {e}; check the directory exists and can be written",
                path.display()
            )
        })?;
        Ok(Output {
            to: Box::new(file.try_clone()?),
            name: path.display().to_string(),
            file: Some(file),
        })
    }

    /// Another writer to the same place, for `--debug`'s lines while the
    /// run goes on. A file's copy shares the file's offset, so neither
    /// writer overwrites what the other wrote.
    pub fn second_writer(&self) -> anyhow::Result<Box<dyn Write + Send>> {
        Ok(match &self.file {
            Some(f) => Box::new(f.try_clone()?),
            None => Box::new(io::stdout()),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes `text` and flushes it, so a failure shows here and not later
    /// (or never) in a buffer's drop.
    pub fn write(&mut self, text: &str) -> Result<(), WriteFailed> {
        self.to
            .write_all(text.as_bytes())
            .and_then(|()| self.to.flush())
            .map_err(|error| WriteFailed {
                name: self.name.clone(),
                error,
            })
    }
}

/// Writes `text` to stdout.
pub fn print(text: &str) -> Result<(), WriteFailed> {
    Output::stdout().write(text)
}

/// Ends `program` for what its option parser returned instead of options:
/// help (on stdout, exit 0) or a usage error (on stderr, exit 2). clap's own
/// `exit` ignores a failed write and exits 0, as if the help had been shown.
pub fn usage(program: &str, e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(error) if !e.use_stderr() => fail(
            program,
            &WriteFailed {
                name: "stdout".into(),
                error,
            }
            .into(),
        ),
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1)),
    }
}

/// Ends `program` for `e`: quietly when the reader of stdout went away (as
/// fio does: nobody is left to read a message), otherwise with the message
/// on stderr.
pub fn fail(program: &str, e: &anyhow::Error) -> ExitCode {
    let closed_pipe = e
        .downcast_ref::<WriteFailed>()
        .is_some_and(|w| w.error.kind() == io::ErrorKind::BrokenPipe);
    if closed_pipe {
        return ExitCode::from(CLOSED_PIPE);
    }
    warn(&format!("{program}: {e:#}"));
    ExitCode::from(1)
}

/// Writes `line` to stderr. `eprintln!` panics when stderr cannot take it
/// (2>/dev/full); the exit status still says what went wrong then.
pub fn warn(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_device_is_an_error_that_names_it() {
        let mut out = Output::create(Path::new("/dev/full")).unwrap();
        let e = out.write("text\n").unwrap_err().to_string();
        assert!(e.contains("/dev/full"), "{e}");
        assert!(e.contains("No space left on device"), "{e}");
    }

    #[test]
    fn a_closed_pipe_exits_quietly_with_fios_status() {
        let closed = anyhow::Error::new(WriteFailed {
            name: "stdout".into(),
            error: io::Error::from(io::ErrorKind::BrokenPipe),
        });
        assert_eq!(fail("ioscope", &closed), ExitCode::from(CLOSED_PIPE));
    }
}
