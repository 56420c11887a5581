//! Why a run could not start or had to stop.

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A job cannot run as written; the message names the job and the option.
    #[error("job '{job}': {message}")]
    Job { job: String, message: String },
    /// A system call failed: the message says which and on what, and the
    /// errno is the one fio reports for the job.
    #[error("{message}")]
    Os { message: String, errno: i32 },
    #[error(transparent)]
    Engine(#[from] ioscope_engine::EngineError),
    #[error("{0}")]
    Other(String),
}

impl RunError {
    pub(crate) fn job(job: &str, message: impl Into<String>) -> RunError {
        RunError::Job {
            job: job.to_string(),
            message: message.into(),
        }
    }

    /// A failed call's error, for the errno it carries.
    pub(crate) fn os(message: String, e: &std::io::Error) -> RunError {
        RunError::Os {
            message: format!("{message}: {e}"),
            errno: e.raw_os_error().unwrap_or(libc::EIO),
        }
    }

    /// The errno fio reports for a job that failed this way: the OS's
    /// where a call failed, else EINVAL, as fio's setup_files gives a job
    /// whose files it cannot serve.
    pub(crate) fn errno(&self) -> i32 {
        match self {
            RunError::Engine(e) => e.errno().unwrap_or(libc::EINVAL),
            RunError::Os { errno, .. } => *errno,
            _ => libc::EINVAL,
        }
    }
}
