//! Parse errors: each names where (file and line, or the command line), the
//! option, and what was expected.

use std::fmt;

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
        }
    }

    /// An error at a place in the input: "job.fio:12: ..." or "command line: ...".
    pub(crate) fn at(place: &Place, message: impl fmt::Display) -> ParseError {
        ParseError::new(format!("{place}: {message}"))
    }
}

/// Where an option was written, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    File { path: String, line: usize },
    CommandLine,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File { path, line } => write!(f, "{path}:{line}"),
            Place::CommandLine => f.write_str("command line"),
        }
    }
}
