//! An iolog's text into [`Iolog`], as fio's `read_iolog` reads it, except
//! that a line fio would skip with a message (an unknown action, a file
//! never added, a malformed line) is refused here with its line number:
//! a replay that silently drops I/Os does not replay the log.

use ioscope_job::IologSpec;

use super::{blktrace, Iolog, LoggedDir, LoggedIo};

const VERSION_2: &str = "fio version 2 iolog";
const VERSION_3: &str = "fio version 3 iolog";

pub(super) fn parse(data: &[u8], spec: &IologSpec) -> Result<Iolog, String> {
    if blktrace::is_blktrace(data) {
        return blktrace::parse(data, spec, blktrace::dev_lookup);
    }
    let text = std::str::from_utf8(data).map_err(|e| {
        format!(
            "not an iolog: not text (a byte at {} is not UTF-8)",
            e.valid_up_to()
        )
    })?;
    let mut lines = text.lines().enumerate();
    let first = lines.next().map_or("", |(_, l)| l);
    let timed = if first.starts_with(VERSION_3) {
        true
    } else if first.starts_with(VERSION_2) {
        false
    } else {
        return Err(format!(
            "line 1: expected '{VERSION_2}' or '{VERSION_3}' (fio's iolog version 1 is no \
             longer supported, as in fio)"
        ));
    };
    let mut log = Iolog {
        files: spec.redirect.iter().cloned().collect(),
        ios: Vec::new(),
    };
    let pace = Pace::new(spec);
    // v2: the time the last `wait` asked for; v3: the first line's time.
    let mut wait_us = 0u64;
    let mut first_time: Option<u64> = None;
    for (i, line) in lines {
        let n = i + 1;
        let at = |m: String| format!("line {n}: {m}");
        let mut words = line.split_whitespace();
        let due_us = if timed {
            let Some(t) = words.next() else { continue };
            let t: u64 = t
                .parse()
                .map_err(|_| at(format!("'{t}' is not a time in microseconds")))?;
            let t0 = *first_time.get_or_insert(t);
            pace.scale(t.saturating_sub(t0))
        } else {
            wait_us
        };
        let words: Vec<&str> = words.collect();
        match words.as_slice() {
            [] if !timed => continue,
            [name, action] => file_action(&mut log, spec, name, action).map_err(at)?,
            [name, action, offset, len] => {
                let offset: u64 = offset
                    .parse()
                    .map_err(|_| at(format!("'{offset}' is not an offset")))?;
                let len: u32 = len
                    .parse()
                    .map_err(|_| at(format!("'{len}' is not a length in bytes")))?;
                let dir = match *action {
                    "wait" if timed => {
                        return Err(at("'wait' is for version 2 logs only".into()));
                    }
                    "wait" => {
                        // fio's wait: until OFFSET milliseconds after the
                        // start, unless replay_no_stall.
                        if pace.follow {
                            wait_us = wait_us.max(offset.saturating_mul(1000));
                        }
                        continue;
                    }
                    "read" => LoggedDir::Read,
                    "write" => LoggedDir::Write,
                    "trim" => LoggedDir::Trim,
                    "sync" | "datasync" => LoggedDir::Sync,
                    other => {
                        return Err(at(format!(
                            "'{other}' is not an action (expected read, write, trim, sync, \
                             datasync or wait)"
                        )))
                    }
                };
                let skip = &spec.skip;
                // fio's replay_skip=sync leaves datasync in; ioscope sends
                // both as one flush and skips both.
                let skipped = match dir {
                    LoggedDir::Read => skip.read,
                    LoggedDir::Write => skip.write,
                    LoggedDir::Trim => skip.trim,
                    LoggedDir::Sync => skip.sync,
                };
                let file = file_index(&log, spec, name).map_err(at)?;
                if skipped {
                    continue;
                }
                log.ios.push(LoggedIo {
                    due_us: if pace.follow { due_us } else { 0 },
                    dir,
                    file,
                    offset: place(offset, spec),
                    len,
                });
            }
            _ => {
                return Err(at(format!(
                    "expected '{}FILE ACTION' or '{}FILE DIR OFFSET LENGTH', found '{line}'",
                    if timed { "TIME " } else { "" },
                    if timed { "TIME " } else { "" }
                )))
            }
        }
    }
    if log.ios.is_empty() {
        return Err("no I/O to replay in it".into());
    }
    Ok(log)
}

/// `FILE add|open|close`. ioscope opens every file of the log before the
/// replay starts and closes them after it, so open and close only mark
/// times.
fn file_action(log: &mut Iolog, spec: &IologSpec, name: &str, action: &str) -> Result<(), String> {
    match action {
        "add" => {
            if spec.redirect.is_none() && !log.files.iter().any(|f| f == name) {
                log.files.push(name.to_string());
            }
            Ok(())
        }
        "open" | "close" => file_index(log, spec, name).map(drop),
        other => Err(format!(
            "'{other}' is not a file action (expected add, open or close)"
        )),
    }
}

fn file_index(log: &Iolog, spec: &IologSpec, name: &str) -> Result<u32, String> {
    if spec.redirect.is_some() {
        return Ok(0);
    }
    log.files
        .iter()
        .position(|f| f == name)
        .map(|i| i as u32)
        .ok_or_else(|| format!("file '{name}' is used before a '{name} add' line"))
}

/// `replay_scale` then `replay_align`, as fio applies them.
pub(super) fn place(offset: u64, spec: &IologSpec) -> u64 {
    let scaled = if spec.scale > 1 {
        offset / spec.scale
    } else {
        offset
    };
    if spec.align > 1 {
        scaled & !(spec.align - 1)
    } else {
        scaled
    }
}

/// Whether and how fast the replay follows the log's times.
pub(super) struct Pace {
    pub(super) follow: bool,
    percent: u64,
}

impl Pace {
    pub(super) fn new(spec: &IologSpec) -> Pace {
        Pace {
            follow: !spec.no_stall,
            percent: u64::from(spec.time_scale.max(1)),
        }
    }

    /// fio's `delay_since_ttime`: 100/replay_time_scale of the log's time.
    pub(super) fn scale(&self, us: u64) -> u64 {
        if self.percent == 100 {
            us
        } else {
            us.saturating_mul(100) / self.percent
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> IologSpec {
        IologSpec {
            time_scale: 100,
            scale: 1,
            ..IologSpec::default()
        }
    }

    #[test]
    fn reads_fio_3_33s_version_3_log() {
        // Written by fio 3.33: --rw=randrw --fsync=3 --write_iolog=log.
        let text = "fio version 3 iolog\n31 f1 add\n177 f1 open\n182 f1 read 0 4096\n\
                    689 f1 write 28672 4096\n890 f1 sync 20480 0\n2115 f1 close\n";
        let log = parse(text.as_bytes(), &spec()).unwrap();
        assert_eq!(log.files, ["f1"]);
        let got: Vec<_> = log
            .ios
            .iter()
            .map(|i| (i.due_us, i.dir, i.offset, i.len))
            .collect();
        assert_eq!(
            got,
            [
                (151, LoggedDir::Read, 0, 4096),
                (658, LoggedDir::Write, 28672, 4096),
                (859, LoggedDir::Sync, 20480, 0),
            ]
        );
    }

    #[test]
    fn version_2_waits_set_the_time_of_what_follows() {
        let text = "fio version 2 iolog\na add\nb add\na read 0 512\nb wait 3 0\n\
                    b write 4096 512\nb trim 8192 4096\n";
        let log = parse(text.as_bytes(), &spec()).unwrap();
        assert_eq!(log.files, ["a", "b"]);
        let got: Vec<_> = log.ios.iter().map(|i| (i.due_us, i.file)).collect();
        assert_eq!(got, [(0, 0), (3000, 1), (3000, 1)]);
        let no_stall = IologSpec {
            no_stall: true,
            ..spec()
        };
        let log = parse(text.as_bytes(), &no_stall).unwrap();
        assert!(log.ios.iter().all(|i| i.due_us == 0));
    }

    #[test]
    fn replay_options_change_what_is_replayed() {
        let text = "fio version 3 iolog\n0 a add\n0 b add\n100 a read 12800 512\n\
                    300 b write 4096 512\n400 b sync 0 0\n";
        let opts = IologSpec {
            redirect: Some("c".into()),
            scale: 2,
            align: 4096,
            time_scale: 200,
            skip: ioscope_job::ReplaySkip {
                write: true,
                ..Default::default()
            },
            ..spec()
        };
        let log = parse(text.as_bytes(), &opts).unwrap();
        assert_eq!(log.files, ["c"]);
        let got: Vec<_> = log
            .ios
            .iter()
            .map(|i| (i.due_us, i.dir, i.file, i.offset))
            .collect();
        // 12800 / 2 = 6400, aligned down to 4096; times halved.
        assert_eq!(
            got,
            [(50, LoggedDir::Read, 0, 4096), (200, LoggedDir::Sync, 0, 0)]
        );
    }

    #[test]
    fn malformed_lines_are_refused_with_their_number() {
        let bad = [
            (
                "fio version 2 iolog\nf add\nf read x 4096\n",
                "line 3: 'x' is not an offset",
            ),
            (
                "fio version 2 iolog\nf read 0 4096\n",
                "line 2: file 'f' is used before",
            ),
            (
                "fio version 2 iolog\nf add\nf copy 0 4096\n",
                "line 3: 'copy' is not an action",
            ),
            (
                "fio version 3 iolog\n5 f add\n9 f read 0\n",
                "line 3: expected 'TIME FILE",
            ),
            (
                "0 f read 0 4096\n",
                "line 1: expected 'fio version 2 iolog'",
            ),
            ("fio version 2 iolog\nf add\n", "no I/O to replay"),
        ];
        for (text, want) in bad {
            let e = parse(text.as_bytes(), &spec()).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
