//! fio's I/O logs: reading one (`read_iolog`) into the I/Os it replays, and
//! the replay itself, which takes the place of the generated workload.
//!
//! The format is fio's (iolog.c): a version line, then one line per event.
//! Version 2 lines are `FILE add|open|close` and `FILE DIR OFFSET LENGTH`
//! (DIR one of read, write, trim, sync, datasync, or `wait` with a time in
//! milliseconds since the start); version 3 puts the microseconds since the
//! log started before each line. fio 3.33 writes version 3. fio's version 1
//! (no version line) is refused, as fio refuses it. A blktrace binary
//! trace (recognised by its magic, as fio does) is replayed too: its
//! queue events are the I/Os, and several traces can be merged into one
//! first (`merge_blktrace_file`).

mod blktrace;
mod merge;
mod parse;
mod replay;

use ioscope_job::IologSpec;

pub use merge::merge_blktraces;
pub use replay::Replay;

/// What one logged I/O does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoggedDir {
    Read,
    Write,
    Trim,
    /// `sync` or `datasync`: a flush of the file.
    Sync,
}

/// One I/O of a log, with `replay_scale`/`replay_align` applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoggedIo {
    /// When it is due, in microseconds after the replay starts (the log's
    /// times scaled by `replay_time_scale`); 0 when the replay does not
    /// follow the log's times.
    pub due_us: u64,
    pub dir: LoggedDir,
    /// Index into [`Iolog::files`].
    pub file: u32,
    pub offset: u64,
    pub len: u32,
}

/// A log read for replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iolog {
    /// The files it names, in the order it adds them (the one
    /// `replay_redirect` names, alone, when set).
    pub files: Vec<String>,
    pub ios: Vec<LoggedIo>,
}

/// What a replay moves, per direction (read, write, trim).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IologSummary {
    pub ios: [u64; 3],
    pub bytes: [u64; 3],
    pub max_len: [u32; 3],
    pub syncs: u64,
}

impl Iolog {
    /// Reads the log at `path` as the job's replay options say.
    pub fn load(path: &str, spec: &IologSpec) -> Result<Iolog, String> {
        let data = std::fs::read(path).map_err(|e| format!("read_iolog={path}: {e}"))?;
        parse::parse(&data, spec).map_err(|e| format!("read_iolog={path}: {e}"))
    }

    pub fn summary(&self) -> IologSummary {
        let mut s = IologSummary::default();
        for io in &self.ios {
            let d = match io.dir {
                LoggedDir::Read => 0,
                LoggedDir::Write => 1,
                LoggedDir::Trim => 2,
                LoggedDir::Sync => {
                    s.syncs += 1;
                    continue;
                }
            };
            s.ios[d] += 1;
            s.bytes[d] += u64::from(io.len);
            s.max_len[d] = s.max_len[d].max(io.len);
        }
        s
    }
}
