//! Writing fio's per-job logs: each worker's `PREFIX_TYPE.N.log` files (or
//! `PREFIX_TYPE.log`, shared and appended to, with `per_job_logs=0`; with
//! `log_store_compressed`, `.log.fz`), made from what the worker recorded.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};

use ioscope_stats::{AggBwLog, IoRecord, LogFiles, WorkerLogs};

use crate::log_fz;
use crate::log_lines::{push_hist_line, push_line, Sample};

/// Text gathered before each write to the file.
const FLUSH_AT: usize = 1 << 16;

/// The per-I/O logs, each a way to make a record's line; slat lines only
/// for records with a submission latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PerIo {
    Bw,
    Iops,
    Slat,
    Clat,
    Lat,
}

/// Writes every log of every worker. The error names the file.
pub fn write_logs(logs: &[WorkerLogs]) -> io::Result<()> {
    logs.iter().try_for_each(write_worker)
}

/// Writes fio's aggregate bandwidth logs (`--bandwidth-log`):
/// `PREFIX-read_bw.log`, `PREFIX-write_bw.log` and `PREFIX-trim_bw.log`,
/// a line per sample in each with block size 0, as fio's add_agg_sample
/// logs them. The error names the file.
pub fn write_agg_bw(log: &AggBwLog) -> io::Result<()> {
    let files = LogFiles::default();
    for (dir, name) in ["read", "write", "trim"].into_iter().enumerate() {
        let path = format!("{}-{name}_bw.log", log.prefix);
        let mut text = String::new();
        for s in &log.samples {
            let sample = Sample {
                time_ms: s.time_ms,
                value: s.kib_s[dir],
                dir: dir as u8,
                ..Sample::default()
            };
            push_line(&mut text, &sample, &files);
        }
        std::fs::write(&path, text).map_err(|e| named(&path, e))?;
    }
    Ok(())
}

/// Where a worker's logs go: files (fio's flush_log), or a fio client
/// (crate::fio_net).
pub(crate) trait LogSink {
    /// A log of samples, `kind` its fio log type (IO_LOG_TYPE_*).
    fn samples(
        &mut self,
        path: &str,
        kind: u32,
        w: &WorkerLogs,
        samples: &mut dyn Iterator<Item = Sample>,
    ) -> io::Result<()>;

    /// A histogram log.
    fn histogram(&mut self, path: &str, w: &WorkerLogs) -> io::Result<()>;
}

/// fio's log types (iolog.h IO_LOG_TYPE_*).
pub(crate) const LOG_LAT: u32 = 1;
pub(crate) const LOG_CLAT: u32 = 2;
pub(crate) const LOG_SLAT: u32 = 3;
pub(crate) const LOG_BW: u32 = 4;
pub(crate) const LOG_IOPS: u32 = 5;

/// Writes log files.
struct Files;

impl LogSink for Files {
    fn samples(
        &mut self,
        path: &str,
        _kind: u32,
        w: &WorkerLogs,
        samples: &mut dyn Iterator<Item = Sample>,
    ) -> io::Result<()> {
        let mut out = Output::open(path, w)?;
        for s in samples {
            out.sample(&s, w)?;
        }
        out.finish()
    }

    fn histogram(&mut self, path: &str, w: &WorkerLogs) -> io::Result<()> {
        let mut out = Output::open(path, w)?;
        for h in w.hist_lines() {
            push_hist_line(&mut out.text, h, &w.files);
            out.flush_if_full()?;
        }
        out.finish()
    }
}

fn write_worker(w: &WorkerLogs) -> io::Result<()> {
    each_log(w, &mut Files)
}

/// Hands each log the worker keeps to `sink`, named and made as fio makes
/// it.
pub(crate) fn each_log(w: &WorkerLogs, sink: &mut dyn LogSink) -> io::Result<()> {
    let f = &w.files;
    let averaged = f.averaged;
    let windows = |lines: &[ioscope_stats::WindowLine]| -> Vec<Sample> {
        lines.iter().map(|l| Sample::window(l, f)).collect()
    };
    if let Some(prefix) = &f.bw {
        let path = file_name(w, prefix, "bw");
        if averaged {
            sink.samples(&path, LOG_BW, w, &mut windows(&w.bw).into_iter())?;
        } else if f.bw_unsampled {
            sink.samples(&path, LOG_BW, w, &mut std::iter::empty())?;
        } else {
            sink.samples(&path, LOG_BW, w, &mut per_io(w, PerIo::Bw))?;
        }
    }
    if let Some(prefix) = &f.iops {
        let path = file_name(w, prefix, "iops");
        if averaged {
            sink.samples(&path, LOG_IOPS, w, &mut windows(&w.iops).into_iter())?;
        } else if f.iops_unsampled {
            sink.samples(&path, LOG_IOPS, w, &mut std::iter::empty())?;
        } else {
            sink.samples(&path, LOG_IOPS, w, &mut per_io(w, PerIo::Iops))?;
        }
    }
    if let Some(prefix) = &f.lat {
        let kinds = [
            (f.lat_logs.lat, "lat", PerIo::Lat, 2, LOG_LAT),
            (f.lat_logs.slat, "slat", PerIo::Slat, 0, LOG_SLAT),
            (f.lat_logs.clat, "clat", PerIo::Clat, 1, LOG_CLAT),
        ];
        for (on, name, kind, window, log_type) in kinds {
            if !on {
                continue;
            }
            let path = file_name(w, prefix, name);
            match &w.recorder.windows[window] {
                Some(lines) if averaged => {
                    sink.samples(&path, log_type, w, &mut windows(&lines.lines).into_iter())?
                }
                _ => sink.samples(&path, log_type, w, &mut per_io(w, kind))?,
            }
        }
    }
    if let Some(prefix) = &f.hist {
        sink.histogram(&file_name(w, prefix, "clat_hist"), w)?;
    }
    Ok(())
}

/// fio's `gen_log_name`: `PREFIX_TYPE.N.log`, or `PREFIX_TYPE.log` when
/// the workers share one file; `.log.fz` when stored compressed.
fn file_name(w: &WorkerLogs, prefix: &str, kind: &str) -> String {
    let suffix = if w.files.compressed_chunk.is_some() {
        "log.fz"
    } else {
        "log"
    };
    if w.files.per_job {
        format!("{prefix}_{kind}.{}.{suffix}", w.files.number)
    } else {
        format!("{prefix}_{kind}.{suffix}")
    }
}

/// The per-I/O samples of `kind`, in the order fio logs them.
fn per_io(w: &WorkerLogs, kind: PerIo) -> Box<dyn Iterator<Item = Sample> + '_> {
    let Some(records) = &w.recorder.records else {
        return Box::new(std::iter::empty());
    };
    if kind == PerIo::Slat {
        // Records are kept as I/Os complete; fio logs a submission
        // latency as the I/O is submitted, so its slat lines are in
        // submission order (a stable sort keeps a batch's order).
        let mut submitted: Vec<&IoRecord> = records.iter().filter(|r| r.slat).collect();
        submitted.sort_by_key(|r| r.issue);
        return Box::new(
            submitted
                .into_iter()
                .filter_map(move |r| per_io_sample(w, r, kind)),
        );
    }
    Box::new(
        records
            .iter()
            .filter_map(move |r| per_io_sample(w, r, kind)),
    )
}

/// The line `kind` has for record `r`, as fio's add_*_sample makes it.
fn per_io_sample(w: &WorkerLogs, r: &IoRecord, kind: PerIo) -> Option<Sample> {
    let clock = &w.clock;
    let epoch = w.recorder.epoch;
    let ms = |t: u64| clock.to_ns(t.saturating_sub(epoch)) / 1_000_000;
    let clat = clock.to_ns(r.done.saturating_sub(r.issue));
    let (time_ms, value, issue_ns) = match kind {
        // KiB/s as fio has it per I/O: the bytes over the completion
        // latency (bytes per ms), 0 when that was not clocked.
        PerIo::Bw => (
            ms(r.done),
            (u64::from(r.bytes) * 1_000_000)
                .checked_div(clat)
                .unwrap_or(0),
            0,
        ),
        PerIo::Iops => (ms(r.done), 1, 0),
        PerIo::Slat if !r.slat => return None,
        // Logged when the I/O is submitted, so timed then.
        PerIo::Slat => (
            ms(r.issue),
            clock.to_ns(r.issue.saturating_sub(r.start)),
            clock.to_ns(r.issue.saturating_sub(epoch)),
        ),
        PerIo::Clat => (ms(r.done), clat, clock.to_ns(r.issue.saturating_sub(epoch))),
        PerIo::Lat => (ms(r.done), clock.to_ns(r.done.saturating_sub(r.start)), 0),
    };
    Some(Sample {
        time_ms,
        value,
        value1: 0,
        dir: r.dir,
        bs: u64::from(r.bytes),
        offset: r.offset,
        issue_ns,
        prio: r.prio,
    })
}

/// A log file being written: text (or, stored compressed, binary samples)
/// gathered, then written in large pieces.
struct Output {
    path: String,
    file: File,
    text: String,
    /// The zlib streams of a compressed log; None for a text log.
    packed: Option<log_fz::Streams>,
}

impl Output {
    /// Creates (or truncates) the worker's own file; a file the workers
    /// share (`per_job_logs=0`) is appended to, as fio does.
    fn open(path: &str, w: &WorkerLogs) -> io::Result<Output> {
        let own = w.files.per_job;
        let file = if own {
            File::create(path)
        } else {
            OpenOptions::new().create(true).append(true).open(path)
        }
        .map_err(|e| named(path, e))?;
        let (uid, gid) = w.files.owner;
        if uid.is_some() || gid.is_some() {
            std::os::unix::fs::fchown(&file, uid, gid).map_err(|e| named(path, e))?;
        }
        let packed = w.files.compressed_chunk.map(log_fz::Streams::new);
        Ok(Output {
            path: path.to_string(),
            file,
            text: String::with_capacity(FLUSH_AT + 4096),
            packed,
        })
    }

    /// Adds a sample's line, or its packed form to a compressed log.
    fn sample(&mut self, s: &Sample, w: &WorkerLogs) -> io::Result<()> {
        let f = &w.files;
        match &mut self.packed {
            Some(streams) => {
                let time = s.time_ms + f.time_offset_ms;
                match streams.push(s, time, f.offset, f.prio) {
                    Ok(Some(stream)) => self.write(&stream),
                    Ok(None) => Ok(()),
                    Err(e) => Err(named(&self.path, e)),
                }
            }
            None => {
                push_line(&mut self.text, s, f);
                self.flush_if_full()
            }
        }
    }

    /// Writes the gathered samples as one zlib stream.
    fn write_stream(&mut self) -> io::Result<()> {
        let Some(streams) = &mut self.packed else {
            return Ok(());
        };
        match streams.finish() {
            Ok(Some(stream)) => self.write(&stream),
            Ok(None) => Ok(()),
            Err(e) => Err(named(&self.path, e)),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes).map_err(|e| named(&self.path, e))
    }

    fn flush_if_full(&mut self) -> io::Result<()> {
        if self.text.len() >= FLUSH_AT {
            self.file
                .write_all(self.text.as_bytes())
                .map_err(|e| named(&self.path, e))?;
            self.text.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.write_stream()?;
        self.file
            .write_all(self.text.as_bytes())
            .map_err(|e| named(&self.path, e))
    }
}

fn named(path: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write log file {path}: {e}"))
}
