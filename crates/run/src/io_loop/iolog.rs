//! `write_iolog`: every request the worker issues, one line each, in fio's
//! version 3 format (what fio 3.33 writes): the microseconds since the log
//! was opened, the file's name, the action, and for an I/O its offset and
//! length. The writer belongs to the worker and buffers its lines, so an
//! I/O costs a clock read and a formatted line in memory, no lock.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use ioscope_engine::{Op, Request};

const HEADER: &str = "fio version 3 iolog";

pub(crate) struct IologWriter {
    path: PathBuf,
    out: BufWriter<File>,
    start: Instant,
    /// The worker's files as the lines name them.
    names: Vec<String>,
    /// The first write that failed; later lines are dropped.
    failed: Option<io::Error>,
    /// Which files have had their `open` line since the last `close`:
    /// fio opens a file as its first I/O comes.
    opened: Vec<bool>,
    /// The offset of the last I/O logged: what fio's line of an fsync or
    /// fdatasync shows (its io_u keeps the offset of its last use, which
    /// at iodepth=1 is the last I/O).
    last_offset: u64,
}

impl IologWriter {
    /// Opens `path` for appending, as fio does (several jobs given the same
    /// log interleave their lines), and writes the version line and fio's
    /// `add` lines for `files` (each file's `open` line comes before its
    /// first request).
    pub(crate) fn open(path: &str, files: &[PathBuf]) -> io::Result<IologWriter> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open {path}: {e}")))?;
        let mut w = IologWriter {
            path: PathBuf::from(path),
            // fio's log buffer is 8 KiB; a larger one makes fewer writes.
            out: BufWriter::with_capacity(64 * 1024, file),
            start: Instant::now(),
            names: files.iter().map(|p| p.display().to_string()).collect(),
            failed: None,
            opened: vec![false; files.len()],
            last_offset: 0,
        };
        w.line(format_args!("{HEADER}"));
        for i in 0..w.names.len() {
            w.file_line(i, "add");
        }
        Ok(w)
    }

    /// The line of one issued request. A flush (and a sync_file_range,
    /// whose range fio does not keep in its io_u) shows the offset of the
    /// I/O before it and no length; several trim ranges sent as one
    /// request are one line of their summed length, as fio logs its io_u.
    #[inline]
    pub(crate) fn log(&mut self, req: &Request) {
        if self.failed.is_some() {
            return;
        }
        // fio's io_ddir_name, by direction.
        let action = [
            "read",
            "write",
            "trim",
            "sync",
            "datasync",
            "sync_file_range",
        ][usize::from(req.op.fio_ddir())];
        let (offset, len) = match req.op {
            Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. } => (self.last_offset, 0),
            _ => (req.offset, req.len),
        };
        self.last_offset = offset;
        let file = req.file as usize;
        if self.opened.get(file) == Some(&false) {
            self.opened[file] = true;
            self.file_line(file, "open");
        }
        let us = self.start.elapsed().as_micros();
        let name = self.names.get(file).map_or("", String::as_str);
        let r = writeln!(self.out, "{us} {name} {action} {offset} {len}");
        if let Err(e) = r {
            self.failed = Some(e);
        }
    }

    /// fio's `close` line for `file`, if it is open: fio closes a file
    /// as it finds nothing more to do in it.
    pub(crate) fn close_file(&mut self, file: u32) {
        let file = file as usize;
        if self.opened.get(file).is_some_and(|&o| o) {
            self.opened[file] = false;
            self.file_line(file, "close");
        }
    }

    /// The `sync` line of a pass's end sync of `file` (fio's
    /// `fio_file_fsync`, which sends it as an I/O): a file already closed
    /// is opened for it and closed after, as fio does.
    pub(crate) fn log_pass_sync(&mut self, file: u32) {
        let was_open = self.opened.get(file as usize) == Some(&true);
        self.log(&Request {
            op: Op::Fsync,
            file,
            offset: 0,
            len: 0,
            slot: 0,
        });
        if !was_open {
            self.close_file(file);
        }
    }

    /// fio's `close` lines for the open files: fio closes them after each
    /// loop's write phase and at the end, and opens each again as its
    /// first I/O of the verify phase or of the next loop comes.
    pub(crate) fn close_files(&mut self) {
        for i in 0..self.names.len() {
            if std::mem::take(&mut self.opened[i]) {
                self.file_line(i, "close");
            }
        }
    }

    /// fio's `close` lines, then everything written out.
    pub(crate) fn close(mut self) -> Result<(), String> {
        self.close_files();
        let flushed = self.out.flush();
        match self.failed.take().map_or(flushed, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err(format!(
                "write_iolog: cannot write {}: {e}",
                Path::new(&self.path).display()
            )),
        }
    }

    fn file_line(&mut self, file: usize, action: &str) {
        let us = self.start.elapsed().as_micros();
        let text = format!("{us} {} {action}", self.names[file]);
        self.line(format_args!("{text}"));
    }

    fn line(&mut self, text: std::fmt::Arguments<'_>) {
        if self.failed.is_none() {
            if let Err(e) = writeln!(self.out, "{text}") {
                self.failed = Some(e);
            }
        }
    }
}
