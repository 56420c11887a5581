//! A blktrace binary trace into [`Iolog`], as fio's blktrace.c reads one:
//! its queue events become the I/Os (reads, writes, discards as trims,
//! flushes), at the trace's sectors, each after the time since the queue
//! event before it. Everything else in a trace (completions, merges,
//! notifications with their process names) is a side effect of the block
//! layer that fio passes over, and so does ioscope. Where fio stops at a
//! short or damaged event with a message and replays what it read, this
//! refuses the trace with the event's number.

use ioscope_job::IologSpec;

use super::parse::{place, Pace};
use super::{Iolog, LoggedDir, LoggedIo};

/// `BLK_IO_TRACE_MAGIC`, in the top 24 bits of every event's first word.
pub(super) const MAGIC: u32 = 0x6561_7400;
/// `BLK_IO_TRACE_VERSION`, the low 8 bits; fio reads only this version.
const VERSION: u32 = 0x07;
/// `sizeof(struct blk_io_trace)`.
pub(super) const EVENT_LEN: usize = 48;
const SECTOR: u64 = 512;

/// `__BLK_TA_QUEUE`, the low 16 bits of a queue event's action.
pub(super) const TA_QUEUE: u32 = 1;
/// The trace categories (`BLK_TC_*`), shifted into the action's top half.
pub(super) const TC_READ: u32 = 1 << 16;
pub(super) const TC_WRITE: u32 = 1 << (1 + 16);
const TC_FLUSH: u32 = 1 << (2 + 16);
const TC_NOTIFY: u32 = 1 << (10 + 16);
pub(super) const TC_DISCARD: u32 = 1 << (13 + 16);

/// fio's `is_blktrace`: the magic of a trace's first event, in either
/// byte order.
pub(super) fn is_blktrace(data: &[u8]) -> bool {
    order(data).is_some()
}

/// The trace's byte order (true for big-endian), from its first event.
pub(super) fn order(data: &[u8]) -> Option<bool> {
    let word: [u8; 4] = data.get(..4)?.try_into().ok()?;
    [false, true]
        .into_iter()
        .find(|&big| word_of(word, big) & 0xffff_ff00 == MAGIC)
}

fn word_of(b: [u8; 4], big: bool) -> u32 {
    if big {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    }
}

/// The fields of `struct blk_io_trace` that a replay reads.
pub(super) struct Event {
    magic: u32,
    pub time_ns: u64,
    sector: u64,
    bytes: u32,
    pub action: u32,
    device: u32,
    pdu_len: u16,
}

impl Event {
    fn read(b: &[u8; EVENT_LEN], big: bool) -> Event {
        let u32_at = |at: usize| word_of([b[at], b[at + 1], b[at + 2], b[at + 3]], big);
        let u64_at = |at: usize| {
            let (hi, lo) = if big { (at, at + 4) } else { (at + 4, at) };
            u64::from(u32_at(hi)) << 32 | u64::from(u32_at(lo))
        };
        let pdu = [b[46], b[47]];
        Event {
            magic: u32_at(0),
            time_ns: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            device: u32_at(36),
            pdu_len: if big {
                u16::from_be_bytes(pdu)
            } else {
                u16::from_le_bytes(pdu)
            },
        }
    }
}

/// One event of a trace: its number (from 1), the byte it starts at, its
/// header as stored and its fields.
pub(super) struct Raw {
    pub n: usize,
    pub start: usize,
    pub head: [u8; EVENT_LEN],
    pub event: Event,
}

/// The events of a trace in byte order `big`, each checked for its magic
/// and version and for its payload lying within the trace; an error names
/// the event and its byte.
pub(super) fn events(data: &[u8], big: bool) -> impl Iterator<Item = Result<Raw, String>> + '_ {
    let mut at = 0usize;
    let mut n = 0usize;
    std::iter::from_fn(move || {
        if at >= data.len() {
            return None;
        }
        n += 1;
        let start = at;
        let here = |m: String| format!("event {n} (byte {start}): {m}");
        let Some(head) = data
            .get(start..start + EVENT_LEN)
            .and_then(|h| <[u8; EVENT_LEN]>::try_from(h).ok())
        else {
            at = data.len();
            return Some(Err(here(format!(
                "the trace ends inside it ({} of its {EVENT_LEN} bytes)",
                data.len() - start
            ))));
        };
        let e = Event::read(&head, big);
        let bad = if e.magic & 0xffff_ff00 != MAGIC {
            Some(format!("bad magic {:#010x}", e.magic))
        } else if e.magic & 0xff != VERSION {
            Some(format!(
                "blktrace version {}, expected {VERSION}",
                e.magic & 0xff
            ))
        } else if start + EVENT_LEN + usize::from(e.pdu_len) > data.len() {
            Some(format!(
                "the trace ends inside its {} bytes of data",
                e.pdu_len
            ))
        } else {
            None
        };
        if let Some(m) = bad {
            at = data.len();
            return Some(Err(here(m)));
        }
        at = start + EVENT_LEN + usize::from(e.pdu_len);
        Some(Ok(Raw {
            n,
            start,
            head,
            event: e,
        }))
    })
}

/// Finds the block device under /dev with a major and minor number (fio's
/// `blktrace_lookup_device`).
pub(super) type DeviceLookup = fn(u32, u32) -> Option<String>;

pub(super) fn parse(data: &[u8], spec: &IologSpec, lookup: DeviceLookup) -> Result<Iolog, String> {
    let big = order(data).ok_or("not a blktrace trace (no magic in its first event)")?;
    let mut log = Iolog {
        files: spec.redirect.iter().cloned().collect(),
        ios: Vec::new(),
    };
    // The devices met, each with its index in log.files.
    let mut devices: Vec<(u32, u32)> = Vec::new();
    let pace = Pace::new(spec);
    let mut last_ns = 0u64;
    let mut due_us = 0u64;
    for raw in events(data, big) {
        let Raw {
            n, start, event: e, ..
        } = raw?;
        let here = |m: String| format!("event {n} (byte {start}): {m}");
        if e.action & 0xffff != TA_QUEUE || e.action & TC_NOTIFY != 0 {
            continue;
        }
        // fio's delay_since_ttime: the time since the queue event before,
        // skipped or not (so a skipped event's wait is not replayed), none
        // before the first or when the trace's clock goes back.
        let delay_ns = if last_ns == 0 || e.time_ns < last_ns {
            0
        } else {
            e.time_ns - last_ns
        };
        last_ns = e.time_ns;
        let dir = if e.action & TC_DISCARD != 0 {
            LoggedDir::Trim
        } else if e.action & TC_FLUSH != 0 {
            LoggedDir::Sync
        } else if e.action & TC_WRITE != 0 {
            LoggedDir::Write
        } else {
            LoggedDir::Read
        };
        let skip = &spec.skip;
        let skipped = match dir {
            LoggedDir::Read => skip.read,
            LoggedDir::Write => skip.write,
            LoggedDir::Trim => skip.trim,
            LoggedDir::Sync => skip.sync,
        };
        if skipped {
            continue;
        }
        // fio's t_bytes_align: replay_align rounds lengths up too.
        let len = if spec.align > 1 {
            let a = spec.align;
            u32::try_from((u64::from(e.bytes) + a - 1) & !(a - 1))
                .map_err(|_| here(format!("{} bytes aligned up to {a} overflow", e.bytes)))?
        } else {
            e.bytes
        };
        if len == 0 && matches!(dir, LoggedDir::Read | LoggedDir::Write) {
            // fio skips these with a warning; a replay that drops I/Os
            // does not replay the trace.
            return Err(here("a read or write of 0 bytes".into()));
        }
        let file = file_of(&mut log, &mut devices, spec, e.device, lookup).map_err(here)?;
        // fio's ipo->delay is in whole microseconds, one event after another.
        if pace.follow {
            due_us += pace.scale(delay_ns) / 1000;
        }
        log.ios.push(LoggedIo {
            due_us,
            dir,
            file,
            offset: if dir == LoggedDir::Sync {
                0
            } else {
                place(e.sector.saturating_mul(SECTOR), spec)
            },
            len: if dir == LoggedDir::Sync { 0 } else { len },
        });
    }
    if log.ios.is_empty() {
        return Err("no I/O to replay in it (fio: found no ios in blktrace data)".into());
    }
    Ok(log)
}

/// fio's `trace_add_file`: the file of a device, replay_redirect's when
/// set, else the block device under /dev with its major and minor numbers
/// (fio's dev_t as the kernel's blktrace writes it: 12 bits of major
/// above 20 of minor).
fn file_of(
    log: &mut Iolog,
    devices: &mut Vec<(u32, u32)>,
    spec: &IologSpec,
    device: u32,
    lookup: DeviceLookup,
) -> Result<u32, String> {
    if spec.redirect.is_some() {
        return Ok(0);
    }
    let (major, minor) = (device >> 20, device & 0xf_ffff);
    if let Some(i) = devices.iter().position(|&d| d == (major, minor)) {
        return Ok(i as u32);
    }
    let path = lookup(major, minor).ok_or_else(|| {
        format!(
            "device {major}:{minor} is not a block device under /dev \
             (replay_redirect=FILE replays the trace onto a file or device)"
        )
    })?;
    devices.push((major, minor));
    log.files.push(path);
    Ok(log.files.len() as u32 - 1)
}

/// fio's `blktrace_lookup_device`: /dev and the folders under it, for the
/// block device with these numbers (symbolic links are not followed).
pub(super) fn dev_lookup(major: u32, minor: u32) -> Option<String> {
    find_device(std::path::Path::new("/dev"), major, minor)
}

fn find_device(dir: &std::path::Path, major: u32, minor: u32) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Some(found) = find_device(&path, major, minor) {
                return Some(found);
            }
        } else if meta.file_type().is_block_device() {
            // glibc's major() and minor() of a dev_t.
            let dev = meta.rdev();
            let maj = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
            let min = (dev & 0xff) | ((dev >> 12) & !0xff);
            if (maj, min) == (u64::from(major), u64::from(minor)) {
                return path.to_str().map(str::to_string);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One event: (time ns, sector, bytes, action, device, pdu).
    type Ev<'a> = (u64, u64, u32, u32, u32, &'a [u8]);

    fn trace(events: &[Ev], big: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, &(time, sector, bytes, action, device, pdu)) in events.iter().enumerate() {
            let w32 = |v: u32| {
                if big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            };
            let w64 = |v: u64| {
                if big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            };
            out.extend(w32(MAGIC | VERSION));
            out.extend(w32(i as u32));
            out.extend(w64(time));
            out.extend(w64(sector));
            out.extend(w32(bytes));
            out.extend(w32(action));
            out.extend(w32(7)); // pid
            out.extend(w32(device));
            out.extend(w32(0)); // cpu
            out.extend([0, 0]); // error
            let n = pdu.len() as u16;
            out.extend(if big {
                n.to_be_bytes()
            } else {
                n.to_le_bytes()
            });
            out.extend(pdu);
        }
        out
    }

    const QUEUE: u32 = TA_QUEUE | 1 << (4 + 16);
    const READ: u32 = QUEUE | 1 << 16;
    const WRITE: u32 = QUEUE | TC_WRITE;
    const COMPLETE: u32 = 8 | 1 << (7 + 16) | 1 << 16;
    const PROCESS: u32 = TC_NOTIFY;
    const DEV: u32 = 8 << 20 | 16;

    fn spec() -> IologSpec {
        IologSpec {
            time_scale: 100,
            scale: 1,
            ..IologSpec::default()
        }
    }

    fn sda(major: u32, minor: u32) -> Option<String> {
        ((major, minor) == (8, 16)).then(|| "/dev/sdb".to_string())
    }

    fn events() -> Vec<Ev<'static>> {
        vec![
            (1_000, 0, 0, PROCESS, DEV, b"fio\0"),
            (5_000, 8, 4096, READ, DEV, &[]),
            (6_000, 8, 4096, COMPLETE, DEV, &[]),
            (25_500, 64, 8192, WRITE, DEV, &[]),
            (30_000, 0, 0, QUEUE | TC_FLUSH | TC_WRITE, DEV, &[]),
            (40_000, 128, 65536, QUEUE | TC_DISCARD | TC_WRITE, DEV, &[]),
        ]
    }

    #[test]
    fn queue_events_become_the_ios_in_either_byte_order() {
        for big in [false, true] {
            let log = parse(&trace(&events(), big), &spec(), sda).unwrap();
            assert_eq!(log.files, ["/dev/sdb"]);
            let got: Vec<_> = log
                .ios
                .iter()
                .map(|i| (i.due_us, i.dir, i.offset, i.len))
                .collect();
            assert_eq!(
                got,
                [
                    (0, LoggedDir::Read, 4096, 4096),
                    (20, LoggedDir::Write, 32768, 8192),
                    (24, LoggedDir::Sync, 0, 0),
                    (34, LoggedDir::Trim, 65536, 65536),
                ],
                "big-endian {big}"
            );
        }
    }

    #[test]
    fn replay_options_apply_as_in_fio() {
        let opts = IologSpec {
            redirect: Some("f".into()),
            scale: 2,
            align: 16384,
            time_scale: 200,
            skip: ioscope_job::ReplaySkip {
                read: true,
                trim: true,
                ..Default::default()
            },
            ..spec()
        };
        let log = parse(&trace(&events(), false), &opts, |_, _| None).unwrap();
        assert_eq!(log.files, ["f"]);
        let got: Vec<_> = log
            .ios
            .iter()
            .map(|i| (i.due_us, i.dir, i.offset, i.len))
            .collect();
        // The skipped read's wait is lost, as in fio; 32768 / 2 aligned
        // down to 16384, 8192 bytes up to it; times halved.
        assert_eq!(
            got,
            [
                (10, LoggedDir::Write, 16384, 16384),
                (12, LoggedDir::Sync, 0, 0)
            ]
        );
    }

    #[test]
    fn damaged_traces_are_refused_with_the_event() {
        let t = trace(&events(), false);
        let e = parse(&t[..t.len() - 10], &spec(), sda).unwrap_err();
        assert!(
            e.starts_with("event 6 (byte 244): the trace ends inside it"),
            "{e}"
        );
        let e = parse(&t[..50], &spec(), sda).unwrap_err();
        assert!(
            e.starts_with("event 1 (byte 0): the trace ends inside its 4"),
            "{e}"
        );
        let mut bad = t.clone();
        bad[55] = 0;
        let e = parse(&bad, &spec(), sda).unwrap_err();
        assert!(e.starts_with("event 2 (byte 52): bad magic"), "{e}");
        let mut old = t.clone();
        old[52] = 6;
        let e = parse(&old, &spec(), sda).unwrap_err();
        assert!(e.ends_with("blktrace version 6, expected 7"), "{e}");
        let e = parse(&t, &spec(), |_, _| None).unwrap_err();
        assert!(
            e.contains("event 2 (byte 52): device 8:16 is not a block device"),
            "{e}"
        );
        let zero = trace(&[(0, 0, 0, READ, DEV, &[])], false);
        let e = parse(&zero, &spec(), sda).unwrap_err();
        assert!(e.contains("0 bytes"), "{e}");
        let none = trace(&[(0, 0, 0, PROCESS, DEV, &[])], true);
        assert!(parse(&none, &spec(), sda).unwrap_err().contains("no I/O"));
    }
}
