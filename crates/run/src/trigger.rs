//! fio's local verification trigger (`--trigger-file`, `--trigger-timeout`,
//! `--trigger`): when the file appears (it is removed) or the time since
//! the run began passes, every job stops as if told to exit, saving its
//! verify state, and the trigger command runs (fio's check_trigger_file).
//! For power-cut tests: the state says how far a later verify may check.
//! A server's trigger is pulled by its client instead (`--trigger-remote`),
//! with the command to run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What fires the trigger and what it runs; nothing fires when `file`,
/// `timeout` and `remote` are None.
#[derive(Clone, Debug, Default)]
pub struct Trigger {
    pub file: Option<PathBuf>,
    /// Since the run began.
    pub timeout: Option<Duration>,
    /// Run with `sh -c` once the jobs have stopped, as fio's system().
    pub command: Option<String>,
    /// A server's: pulled by the client, whose command it runs.
    pub remote: Option<Arc<Pull>>,
}

/// A trigger pulled from elsewhere, and the command it brought.
#[derive(Debug, Default)]
pub struct Pull(Mutex<Option<String>>);

impl Pull {
    /// Fires the trigger: the jobs stop, save their verify state, and
    /// `command` runs (none when empty).
    pub fn pull(&self, command: String) {
        *self.lock() = Some(command);
    }

    fn pulled(&self) -> Option<String> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Trigger {
    pub fn armed(&self) -> bool {
        self.file.is_some() || self.timeout.is_some() || self.remote.is_some()
    }

    /// Whether it fires now; a trigger file that is there is removed.
    fn fires(&self, start: Instant) -> bool {
        if self.remote.as_ref().is_some_and(|r| r.pulled().is_some()) {
            return true;
        }
        if let Some(file) = &self.file {
            if file.exists() {
                // fio goes on when the file cannot be removed.
                let _ = std::fs::remove_file(file);
                return true;
            }
        }
        self.timeout.is_some_and(|t| start.elapsed() >= t)
    }

    /// Watches until `done`; when it fires, sets `stop` and `fired`.
    pub fn watch(&self, start: Instant, done: &AtomicBool, stop: &AtomicBool, fired: &AtomicBool) {
        while !done.load(Ordering::Relaxed) && !fired.load(Ordering::Relaxed) {
            if self.fires(start) {
                fired.store(true, Ordering::Relaxed);
                stop.store(true, Ordering::Relaxed);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Runs the command after the trigger fired; the error says why it
    /// could not start (its exit status is the command's business, as in
    /// fio).
    pub fn run_command(&self) -> Result<(), String> {
        let pulled = self.remote.as_ref().and_then(|r| r.pulled());
        let Some(cmd) = pulled
            .as_deref()
            .or(self.command.as_deref())
            .filter(|c| !c.is_empty())
        else {
            return Ok(());
        };
        std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .status()
            .map(|_| ())
            .map_err(|e| format!("--trigger: cannot run '{cmd}': {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trigger_file_fires_once_and_is_removed() {
        let file = std::env::temp_dir().join(format!("ioscope-trigger-{}", std::process::id()));
        let t = Trigger {
            file: Some(file.clone()),
            ..Trigger::default()
        };
        let start = Instant::now();
        assert!(!t.fires(start));
        std::fs::write(&file, "").unwrap();
        assert!(t.fires(start));
        assert!(!file.exists());
        assert!(!t.fires(start));
    }

    #[test]
    fn a_pulled_trigger_fires_and_runs_the_command_it_brought() {
        let pull = Arc::new(Pull::default());
        let t = Trigger {
            command: Some("false".into()),
            remote: Some(pull.clone()),
            ..Trigger::default()
        };
        let start = Instant::now();
        assert!(t.armed() && !t.fires(start));
        let dir = std::env::temp_dir().join(format!("ioscope-pull-{}", std::process::id()));
        pull.pull(format!("touch {}", dir.display()));
        assert!(t.fires(start));
        t.run_command().unwrap();
        assert!(dir.exists());
        std::fs::remove_file(&dir).unwrap();
    }

    #[test]
    fn a_timeout_fires_once_passed() {
        let t = Trigger {
            timeout: Some(Duration::from_millis(30)),
            ..Trigger::default()
        };
        let start = Instant::now();
        assert!(!t.fires(start));
        std::thread::sleep(Duration::from_millis(40));
        assert!(t.fires(start));
    }
}
