//! Parse errors: each names where (file and line, or the command line), the
//! option, and what was expected.

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub message: String,
}
