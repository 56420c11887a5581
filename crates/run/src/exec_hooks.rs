//! `exec_prerun` and `exec_postrun`: a shell command run by the worker
//! before and after its I/O, as fio's exec_string runs it: through
//! `sh -c` (what system() does), with its output and errors going to
//! `<job>.prerun.txt` / `<job>.postrun.txt` in the current directory.

use std::io::Write;
use std::process::Command;

/// Which of the two commands.
#[derive(Clone, Copy)]
pub(crate) enum Hook {
    Prerun,
    Postrun,
}

impl Hook {
    fn mode(self) -> &'static str {
        match self {
            Hook::Prerun => "prerun",
            Hook::Postrun => "postrun",
        }
    }
}

/// Runs `command` for job `job`, first saying where its output goes (as
/// fio does on stdout) when `say` is set; the error says why it could not
/// run or how it ended (fio stops the job when the prerun command fails).
pub(crate) fn run(job: &str, hook: Hook, command: &str, say: bool) -> Result<(), String> {
    let mode = hook.mode();
    if say {
        // If stdout cannot take it, the report that follows fails and says so.
        let _ = writeln!(
            std::io::stdout(),
            "{job} : Saving output of {mode} in {job}.{mode}.txt"
        );
    }
    // The same line fio hands to system(): the job name is the file's stem.
    let line = format!("{command} > {job}.{mode}.txt 2>&1");
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(&line)
        .status()
        .map_err(|e| format!("exec_{mode}: cannot run /bin/sh: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("exec_{mode}: <{command}> failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lands_in_the_jobs_file() {
        let dir = std::env::temp_dir().join(format!("ioscope-exec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let job = dir.join("j").display().to_string();
        // The redirection is appended to the command as written, as fio
        // does: a list needs braces to send all of its output there.
        run(&job, Hook::Prerun, "{ echo hello; echo oops >&2; }", false).unwrap();
        let text = std::fs::read_to_string(format!("{job}.prerun.txt")).unwrap();
        assert_eq!(text, "hello\noops\n");
        let err = run(&job, Hook::Postrun, "exit 3", false).unwrap_err();
        assert!(err.contains("exec_postrun") && err.contains('3'), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
