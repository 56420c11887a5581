//! fio's `--debug=file` and `--debug=io` lines, in its shape: the category
//! padded to 8, the thread id padded to 5, the text (fio's
//! `log_prevalist`). Only events ioscope has are printed: its files being
//! opened, laid out and closed, and each I/O as it is queued and as it
//! completes.
//!
//! A worker collects its lines in its own buffer and hands them over in
//! chunks, in order, so the lock on the shared stream is taken once per
//! chunk, not once per I/O.

use std::fmt::{self, Write as _};
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use ioscope_engine::{Op, TargetKind};
use ioscope_stats::current_tid;

/// Bytes a worker gathers before handing them to the stream.
const CHUNK: usize = 64 * 1024;

/// What `--debug` traces, and the stream its lines go to (where the report
/// goes: stdout or `--output`).
#[derive(Clone)]
pub struct Trace {
    pub file: bool,
    pub io: bool,
    to: Arc<Mutex<Sink>>,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("file", &self.file)
            .field("io", &self.io)
            .finish_non_exhaustive()
    }
}

struct Sink {
    to: Box<dyn Write + Send>,
    /// The first write that failed; nothing more is tried after it.
    error: Option<io::Error>,
}

impl Trace {
    pub fn new(file: bool, io: bool, to: Box<dyn Write + Send>) -> Trace {
        Trace {
            file,
            io,
            to: Arc::new(Mutex::new(Sink { to, error: None })),
        }
    }

    /// Why the lines could not all be written, if they could not.
    pub fn error(&self) -> Option<String> {
        let sink = self.to.lock().unwrap_or_else(PoisonError::into_inner);
        sink.error.as_ref().map(ToString::to_string)
    }

    fn write(&self, bytes: &[u8]) {
        let mut sink = self.to.lock().unwrap_or_else(PoisonError::into_inner);
        if sink.error.is_none() {
            if let Err(e) = sink.to.write_all(bytes).and_then(|()| sink.to.flush()) {
                sink.error = Some(e);
            }
        }
    }

    /// One `file` line, written at once (file events are few).
    pub(crate) fn file_line(&self, text: fmt::Arguments<'_>) {
        if self.file {
            let mut line = String::new();
            push_line(&mut line, "file", current_tid(), text);
            self.write(line.as_bytes());
        }
    }
}

impl Trace {
    /// One `io` line written at once, from a thread that is no worker (the
    /// main thread opening a job's files).
    pub(crate) fn io_line(&self, text: fmt::Arguments<'_>) {
        if self.io {
            let mut line = String::new();
            push_line(&mut line, "io", current_tid(), text);
            self.write(line.as_bytes());
        }
    }
}

/// fio's `io` line for dropping the cached pages of a file (`offset`,
/// `len`) or a block device; None for a target that has none to drop.
pub(crate) fn cache_drop_line(
    kind: TargetKind,
    path: &Path,
    offset: u64,
    len: u64,
) -> Option<String> {
    let path = path.display();
    match kind {
        TargetKind::RegularFile => Some(format!("declare unneeded cache {path}: {offset}/{len}")),
        TargetKind::BlockDevice => Some(format!("drop page cache {path}")),
        _ => None,
    }
}

fn push_line(out: &mut String, category: &str, tid: i32, text: fmt::Arguments<'_>) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{category:<8} {tid:<5} {text}");
}

/// One worker's `io` lines, gathered in order.
pub(crate) struct IoTrace {
    trace: Trace,
    tid: i32,
    buf: String,
}

impl IoTrace {
    /// The trace of the calling worker thread, when `io` is traced.
    pub(crate) fn for_worker(trace: Option<&Trace>) -> Option<IoTrace> {
        trace.filter(|t| t.io).map(|t| IoTrace {
            trace: t.clone(),
            tid: current_tid(),
            buf: String::with_capacity(CHUNK + 256),
        })
    }

    /// fio's `dprint_io_u` line: `what: io_u SLOT: off=0x..,len=0x..,
    /// ddir=N,file=PATH`. fio names the io_u by its address; ioscope names
    /// the request slot the I/O went out in.
    #[cold]
    pub(crate) fn io_u(
        &mut self,
        what: &str,
        slot: u32,
        op: Op,
        offset: u64,
        len: u32,
        path: Option<&Path>,
    ) {
        let ddir = op.fio_ddir();
        match path.filter(|p| !p.as_os_str().is_empty()) {
            None => {
                // The diskless engines have no file to name.
                self.push(format_args!(
                    "{what}: io_u {slot}: off={offset:#x},len={len:#x},ddir={ddir}"
                ));
            }
            Some(path) => {
                let path = path.display();
                self.push(format_args!(
                    "{what}: io_u {slot}: off={offset:#x},len={len:#x},ddir={ddir},file={path}"
                ));
            }
        }
    }

    /// Another of fio's `io` lines, such as its cache drops'.
    #[cold]
    pub(crate) fn line(&mut self, text: fmt::Arguments<'_>) {
        self.push(text);
    }

    fn push(&mut self, text: fmt::Arguments<'_>) {
        push_line(&mut self.buf, "io", self.tid, text);
        if self.buf.len() >= CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            self.trace.write(self.buf.as_bytes());
            self.buf.clear();
        }
    }
}

impl Drop for IoTrace {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_read_like_fios_and_arrive_in_order() {
        let out = Shared::default();
        let trace = Trace::new(true, true, Box::new(out.clone()));
        trace.file_line(format_args!("fd open /tmp/f"));
        let mut io = IoTrace::for_worker(Some(&trace)).unwrap();
        io.io_u(
            "queue",
            3,
            Op::Read,
            0x2000,
            4096,
            Some(Path::new("/tmp/f")),
        );
        io.io_u("complete", 3, Op::Write, 0, 512, None);
        drop(io);
        let tid = current_tid();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            format!(
                "file     {tid:<5} fd open /tmp/f\n\
                 io       {tid:<5} queue: io_u 3: off=0x2000,len=0x1000,ddir=0,file=/tmp/f\n\
                 io       {tid:<5} complete: io_u 3: off=0x0,len=0x200,ddir=1\n"
            )
        );
    }

    #[test]
    fn io_off_gives_no_worker_trace() {
        let trace = Trace::new(true, false, Box::new(io::sink()));
        assert!(IoTrace::for_worker(Some(&trace)).is_none());
        assert!(IoTrace::for_worker(None).is_none());
    }
}
