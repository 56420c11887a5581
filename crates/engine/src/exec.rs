//! fio's `exec`: no I/O; the job runs a program alongside the others for
//! its runtime, as fio's `engines/exec.c`. The first request starts the
//! program (its standard output and error go to `NAME.stdout` and
//! `NAME.stderr` with `std_redirect`, fio's default); each later request
//! waits 50 ms (fio's pause between checks), and each is followed by 50 ms
//! of think time (fio's `thinktime=50000`, set by the engine) that is not
//! part of its latency; once the runtime is over the
//! program gets SIGTERM and `grace_time` seconds to end, and when the
//! queue goes it gets SIGKILL, as in fio's cleanup.

use std::fs::File;
use std::io;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::engine_options::ExecProgram;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Op, Request};

pub(crate) static EXEC: EngineDesc = EngineDesc {
    name: "exec",
    aliases: &[],
    help: "Runs a program for the job's runtime; no I/O",
    kind: EngineKind::Diskless,
    fio: true,
    ring: false,
    carries: counted,
    options: &["program", "arguments", "grace_time", "std_redirect"],
    check: any_shape,
};

/// Requests are only counted.
fn counted(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write | Op::Fsync | Op::Trim)
}

/// The program could not be started: its name and why (the OS error is
/// the source, so the job's errno is the OS's).
#[derive(Debug)]
pub(crate) struct ProgramFailed {
    pub program: String,
    pub error: io::Error,
}

impl std::fmt::Display for ProgramFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot run {}: {}", self.program, self.error)
    }
}

impl std::error::Error for ProgramFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<ProgramFailed> for io::Error {
    fn from(p: ProgramFailed) -> io::Error {
        io::Error::new(p.error.kind(), p)
    }
}

/// fio's pause between two checks of the program.
const PAUSE: Duration = Duration::from_millis(50);

pub(crate) fn open(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<ExecQueue, EngineError> {
    let Some(program) = config.exec.clone().filter(|p| !p.argv.is_empty()) else {
        return Err(EngineError::Setup(
            "ioengine=exec needs a program to run (program=)".into(),
        ));
    };
    Ok(ExecQueue {
        program,
        runtime: config.runtime,
        child: None,
        start: Instant::now(),
        termed: false,
        last_ns: None,
        buffers: SlotBuffers::new(config)?,
    })
}

/// The exec queue: requests start, then watch, the program.
pub struct ExecQueue {
    program: ExecProgram,
    runtime: Option<Duration>,
    child: Option<Child>,
    /// When the program started.
    start: Instant,
    /// SIGTERM was sent.
    termed: bool,
    last_ns: Option<u64>,
    buffers: SlotBuffers,
}

impl ExecQueue {
    fn spawn(&mut self) -> io::Result<()> {
        let argv = &self.program.argv;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).stdin(Stdio::null());
        if let Some((out, err)) = &self.program.redirect {
            cmd.stdout(File::create(out)?).stderr(File::create(err)?);
        }
        self.child = Some(cmd.spawn()?);
        self.start = Instant::now();
        Ok(())
    }
}

impl Queue for ExecQueue {
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let began = Instant::now();
        match &self.child {
            None => {
                if let Err(e) = self.spawn() {
                    // fio's forked child goes on as a copy of fio when its
                    // execvp fails, and the job "succeeds"; a program that
                    // cannot start is an error here, naming it and the errno.
                    return Err(ProgramFailed {
                        program: self.program.argv[0].clone(),
                        error: e,
                    }
                    .into());
                }
            }
            Some(child) => {
                std::thread::sleep(PAUSE);
                let over = self.runtime.is_some_and(|r| self.start.elapsed() > r);
                if over && !self.termed {
                    self.termed = true;
                    // SAFETY: kill takes plain values.
                    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                    std::thread::sleep(self.program.grace_time);
                }
            }
        }
        self.last_ns = Some(began.elapsed().as_nanos() as u64);
        let mut think = PAUSE;
        if let Some(runtime) = self.runtime {
            think = think.min((self.start + runtime).saturating_duration_since(Instant::now()));
        }
        std::thread::sleep(think);
        Ok(Submitted::Completed(match req.op {
            Op::Fsync => 0,
            _ => i64::from(req.len),
        }))
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn op_latency(&mut self) -> Option<u64> {
        self.last_ns.take()
    }
}

impl Drop for ExecQueue {
    /// fio's cleanup: SIGKILL, whether or not the program ended; then
    /// reap it, so that no zombie is left.
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_program_with_its_output_redirected_and_kills_it_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("j.stdout");
        let err = dir.path().join("j.stderr");
        let config = QueueConfig {
            depth: 1,
            buffer_size: 4096,
            buffer_align: 4096,
            exec: Some(ExecProgram {
                argv: vec!["sh".into(), "-c".into(), "echo hi; exec sleep 30".into()],
                grace_time: Duration::ZERO,
                redirect: Some((out.clone(), err.clone())),
            }),
            runtime: Some(Duration::from_millis(100)),
            ..QueueConfig::default()
        };
        let mut q = open(&config, &[]).unwrap();
        let req = Request {
            op: Op::Read,
            file: 0,
            offset: 0,
            len: 4096,
            slot: 0,
        };
        for _ in 0..4 {
            assert_eq!(q.submit(&req).unwrap(), Submitted::Completed(4096));
        }
        assert!(q.termed, "SIGTERM after the runtime");
        let mut child = q.child.take().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "ended by the signal");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "hi\n");
        assert!(err.exists());
    }
}
