//! Why a run could not start or had to stop.

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A job cannot run as written; the message names the job and the option.
    #[error("job '{job}': {message}")]
    Job { job: String, message: String },
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

    /// The errno fio reports for a job that failed this way: the OS's
    /// where a call failed, else EINVAL, as fio's setup_files gives a job
    /// whose files it cannot serve.
    pub(crate) fn errno(&self) -> i32 {
        use ioscope_engine::EngineError::{Io, Open};
        match self {
            RunError::Engine(Open { source, .. } | Io { source, .. }) => {
                source.raw_os_error().unwrap_or(libc::EIO)
            }
            _ => libc::EINVAL,
        }
    }
}
