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
}
