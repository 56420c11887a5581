//! `merge_blktrace_file`: the blktrace traces of `read_iolog` merged into
//! one, as fio's `merge_blktrace_iologs` means to (blktrace.c).
//!
//! Each trace is read in its own order, keeping only its queue events with
//! a direction (read, write or discard: what a replay issues); the merge
//! then repeatedly takes, of the traces' next events, the one with the
//! earliest time (the lowest trace on a tie) and writes its 48-byte header
//! in this machine's byte order, with no payload (`pdu_len` 0). A trace's
//! times are scaled by its `merge_blktrace_scalars` percent, and with
//! `merge_blktrace_iters` it is played again after its end: iteration `k`
//! adds `k` times the time of the trace's last event before scaling.
//!
//! fio 3.33 never merges: its reader fills a pointer instead of the event
//! ("fio: iolog short read"), writes an empty file and replays the traces
//! unmerged. The fix (fio, 2026) also scales the iteration offset twice and
//! writes each trace's last event once more at every iteration boundary;
//! this follows the documented intent instead.

use std::io::Write;

use ioscope_job::IologSpec;

use super::blktrace::{events, order, Raw, EVENT_LEN, TA_QUEUE, TC_DISCARD, TC_READ, TC_WRITE};

/// One trace's kept events: each header with its time, and the time of the
/// trace's last event of any kind (its length, for iterations).
struct Trace {
    events: Vec<([u8; EVENT_LEN], u64)>,
    length: u64,
}

/// A trace being merged: where it is, and how its times are changed.
struct Cursor {
    trace: Trace,
    scalar: u64,
    iters: u64,
    iter: u64,
    next: usize,
}

impl Cursor {
    /// The time of the next event to merge, as the merge writes it.
    fn time(&self) -> Option<u64> {
        let (_, t) = self.trace.events.get(self.next)?;
        let shifted = u128::from(*t) + u128::from(self.iter) * u128::from(self.trace.length);
        Some((shifted * u128::from(self.scalar) / 100).min(u128::from(u64::MAX)) as u64)
    }

    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.trace.events.len() && self.iter + 1 < self.iters {
            self.iter += 1;
            self.next = 0;
        }
    }
}

/// Merges `spec.read` into `spec.merge` (which must be set). Returns the
/// number of events written.
pub fn merge_blktraces(spec: &IologSpec) -> Result<usize, String> {
    let out = spec.merge.as_deref().ok_or("no merge_blktrace_file")?;
    let n = spec.read.len();
    if n == 0 {
        return Err("merge_blktrace_file needs read_iolog: the blktrace traces to merge".into());
    }
    for (name, list) in [
        ("merge_blktrace_scalars", &spec.merge_scalars),
        ("merge_blktrace_iters", &spec.merge_iters),
    ] {
        if !list.is_empty() && list.len() != n {
            return Err(format!(
                "{name} has {} values for the {n} traces of read_iolog (one per trace)",
                list.len()
            ));
        }
    }
    let mut cursors = Vec::with_capacity(n);
    for (i, path) in spec.read.iter().enumerate() {
        let data = std::fs::read(path).map_err(|e| format!("read_iolog={path}: {e}"))?;
        let trace = read_trace(&data).map_err(|e| format!("read_iolog={path}: {e}"))?;
        cursors.push(Cursor {
            trace,
            scalar: spec.merge_scalars.get(i).copied().unwrap_or(100),
            iters: spec.merge_iters.get(i).copied().unwrap_or(1),
            iter: 0,
            next: 0,
        });
    }
    let mut merged = Vec::new();
    let mut written = 0;
    while let Some((i, time)) = cursors
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, c.time()?)))
        .min_by_key(|&(i, t)| (t, i))
    {
        let c = &mut cursors[i];
        merged.extend_from_slice(&native_header(&c.trace.events[c.next].0, time));
        c.advance();
        written += 1;
    }
    if written == 0 {
        return Err(format!(
            "merge_blktrace_file={out}: the traces of read_iolog hold no read, write or \
             discard to merge"
        ));
    }
    std::fs::File::create(out)
        .and_then(|mut f| f.write_all(&merged))
        .map_err(|e| format!("merge_blktrace_file={out}: {e}"))?;
    Ok(written)
}

/// The events of a trace that a merge keeps, each header turned into this
/// machine's byte order.
fn read_trace(data: &[u8]) -> Result<Trace, String> {
    let big = order(data).ok_or("not a blktrace trace (fio merges only blktrace traces)")?;
    let mut trace = Trace {
        events: Vec::new(),
        length: 0,
    };
    for raw in events(data, big) {
        let Raw { head, event, .. } = raw?;
        trace.length = event.time_ns;
        // fio's read_trace: a queue event with a direction (t_get_ddir).
        let action = event.action;
        if action & 0xffff == TA_QUEUE && action & (TC_READ | TC_WRITE | TC_DISCARD) != 0 {
            trace.events.push((to_native(&head, big), event.time_ns));
        }
    }
    Ok(trace)
}

/// `struct blk_io_trace`'s fields: (offset, width) in bytes.
const FIELDS: [(usize, usize); 11] = [
    (0, 4),
    (4, 4),
    (8, 8),
    (16, 8),
    (24, 4),
    (28, 4),
    (32, 4),
    (36, 4),
    (40, 4),
    (44, 2),
    (46, 2),
];

/// A header in this machine's byte order (fio's byteswap_trace).
fn to_native(head: &[u8; EVENT_LEN], big: bool) -> [u8; EVENT_LEN] {
    let mut out = *head;
    let foreign = big != cfg!(target_endian = "big");
    if foreign {
        for (at, width) in FIELDS {
            out[at..at + width].reverse();
        }
    }
    out
}

/// The header as the merged trace holds it: its time the merged one, and no
/// payload after it.
fn native_header(head: &[u8; EVENT_LEN], time: u64) -> [u8; EVENT_LEN] {
    let mut out = *head;
    out[8..16].copy_from_slice(&time.to_ne_bytes());
    out[46..48].copy_from_slice(&0u16.to_ne_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iolog::blktrace::MAGIC;

    /// A queue event (read unless `write`) at `time` with `pdu` bytes of
    /// payload, in the given byte order.
    fn event(time: u64, sector: u64, write: bool, pdu: u16, big: bool) -> Vec<u8> {
        let action = TA_QUEUE | TC_READ | if write { TC_WRITE } else { 0 };
        let mut v = Vec::new();
        let mut put = |b: &[u8]| {
            let mut b = b.to_vec();
            if big {
                b.reverse();
            }
            v.extend_from_slice(&b);
        };
        put(&(MAGIC | 7).to_le_bytes());
        put(&1u32.to_le_bytes());
        put(&time.to_le_bytes());
        put(&sector.to_le_bytes());
        put(&4096u32.to_le_bytes());
        put(&action.to_le_bytes());
        put(&[0; 4]);
        put(&((8u32 << 20) | 16).to_le_bytes());
        put(&[0; 4]);
        put(&[0; 2]);
        put(&pdu.to_le_bytes());
        v.extend(std::iter::repeat_n(0xaa, usize::from(pdu)));
        v
    }

    /// A completion (not a queue event) at `time`.
    fn completion(time: u64) -> Vec<u8> {
        let mut e = event(time, 0, false, 0, false);
        e[28..32].copy_from_slice(&(8 | TC_READ).to_le_bytes());
        e
    }

    fn merged(out: &std::path::Path) -> Vec<(u64, u64)> {
        let data = std::fs::read(out).unwrap();
        data.chunks(EVENT_LEN)
            .map(|h| {
                assert_eq!(u16::from_ne_bytes([h[46], h[47]]), 0, "no payload");
                (
                    u64::from_ne_bytes(h[8..16].try_into().unwrap()),
                    u64::from_ne_bytes(h[16..24].try_into().unwrap()),
                )
            })
            .collect()
    }

    #[test]
    fn traces_interleave_by_time_scaled_and_repeated() {
        let dir = std::env::temp_dir().join(format!("ioscope-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = [
            event(1000, 1, false, 16, false),
            event(5000, 2, true, 0, false),
            completion(6000),
        ]
        .concat();
        let b = [
            event(2000, 10, false, 0, true),
            event(3000, 11, true, 8, true),
        ]
        .concat();
        std::fs::write(dir.join("a"), a).unwrap();
        std::fs::write(dir.join("b"), b).unwrap();
        let out = dir.join("m");
        let mut spec = IologSpec {
            read: vec![
                dir.join("a").display().to_string(),
                dir.join("b").display().to_string(),
            ],
            merge: Some(out.display().to_string()),
            ..IologSpec::default()
        };
        assert_eq!(merge_blktraces(&spec), Ok(4));
        assert_eq!(merged(&out), [(1000, 1), (2000, 10), (3000, 11), (5000, 2)]);

        // a at half speed, twice (its second pass 6000 later, its last
        // event's time, before scaling); b once at full speed.
        spec.merge_scalars = vec![50, 100];
        spec.merge_iters = vec![2, 1];
        assert_eq!(merge_blktraces(&spec), Ok(6));
        assert_eq!(
            merged(&out),
            [
                (500, 1),
                (2000, 10),
                (2500, 2),
                (3000, 11),
                (3500, 1),
                (5500, 2)
            ]
        );

        spec.merge_iters = vec![2];
        let e = merge_blktraces(&spec).unwrap_err();
        assert!(
            e.contains("merge_blktrace_iters has 1 values for the 2 traces"),
            "{e}"
        );
        spec.merge_iters.clear();
        std::fs::write(dir.join("b"), b"not a trace").unwrap();
        let e = merge_blktraces(&spec).unwrap_err();
        assert!(e.contains("not a blktrace trace"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
