//! fio's verify state file, read: fio saves one for every write job with
//! verify when it ends or is stopped (`verify_state_save`, on by default),
//! under the name ioscope's own state file has
//! (`local-<job>-<clone>-verify.state`). A `verify_only=1
//! verify_state_load=1` run of ioscope over what a fio job wrote takes the
//! number of writes from it, as from ioscope's own file, and checks the
//! blocks of those writes (fio's blocks, `verify::fio_written`). ioscope
//! writes its own text file, which fio does not read.
//!
//! The file (fio's verify-state.h, little-endian): a header of three u64s
//! (the layout's version, the length of the rest, fio's crc32c of the rest:
//! CRC-32C not inverted at the end), then the job's `thread_io_list`,
//! whose `numberio` (the writes issued; fio saves the state once they have
//! completed) lies where the version puts it:
//!
//! | version | fio           | numberio at |
//! | ------- | ------------- | ----------- |
//! | 3       | 3.38 and older | 16         |
//! | 4       | 3.39, 3.40    | 24          |
//! | 5       | 3.41 and on   | 8           |
//!
//! Layout 5 lists after its name the writes in flight when fio saved it
//! (struct inflight_write, `depth` u64s, `u64::MAX` for a free slot: a job
//! stopped by a trigger or a signal saves while writes are in flight).
//! fio's verify_only stops at the first of them (verify_state_should_stop),
//! so ioscope checks the writes before the first in flight, as fio does.
//! (Layouts 3 and 4 list the last completions instead, which fio matches
//! by offset near the end; ioscope takes their `numberio` whole.)
//!
//! The version also says how the writes drew their random offsets: fio
//! 3.35 stopped seeding the offsets apart from `randseed` (rand.rs
//! `job_seeds`), and layouts 4 and 5 come from a fio newer than that.
//! Layout 3 is ambiguous (3.35 to 3.38 write it too): ioscope replays it
//! with fio 3.33's seeds.
//!
//! A fio 3.33 server sends its jobs' lists to its client when the
//! client's `--trigger-remote` stops them (struct all_io_list: their
//! count, then each list); [`save_sent`] writes them as fio's client does.

use crate::verify::SavedState;

const HEADER: usize = 24;
/// Layout 5's thread_io_list: depth (u32, padded), numberio, index, the
/// offsets' random state (56 bytes), the name (64), then the writes in
/// flight.
const INFLIGHT_AT: usize = 144;

/// What fio's state file `bytes` (read from `path`) records, or why it
/// cannot be read.
pub(crate) fn read(bytes: &[u8], path: &std::path::Path) -> Result<SavedState, String> {
    let u64_at = |b: &[u8], i: usize| -> Option<u64> {
        Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
    };
    let bad = |why: &str| {
        format!(
            "{} is not a verify state file ioscope reads: {why}",
            path.display()
        )
    };
    let (Some(version), Some(size), Some(crc)) =
        (u64_at(bytes, 0), u64_at(bytes, 8), u64_at(bytes, 16))
    else {
        return Err(bad("it is shorter than fio's header"));
    };
    let at = match version {
        3 => 16,
        4 => 24,
        5 => 8,
        v => {
            return Err(bad(&format!(
                "fio's state layout version {v}, where ioscope reads 3 to 5 (fio 3.x up to 3.42)"
            )))
        }
    };
    let list = usize::try_from(size)
        .ok()
        .and_then(|n| bytes.get(HEADER..HEADER.checked_add(n)?));
    let Some(list) = list else {
        return Err(bad(&format!(
            "its header says {size} bytes follow, the file has {}",
            bytes.len().saturating_sub(HEADER)
        )));
    };
    if u64::from(!crc32c::crc32c(list)) != crc {
        return Err(bad(
            "its crc32c does not match (a damaged or partly written file)",
        ));
    }
    let mut writes = u64_at(list, at).ok_or_else(|| bad("it is too short for its layout"))?;
    if version == 5 {
        let depth = list
            .get(..4)
            .map_or(0, |d| u32::from_le_bytes(d.try_into().expect("4 bytes")));
        let in_flight = (0..depth as usize)
            .map(|i| u64_at(list, INFLIGHT_AT + 8 * i))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| bad(&format!("it is too short for its {depth} writes in flight")))?;
        // The writes numbered from the first in flight on may be torn.
        writes = in_flight
            .into_iter()
            .filter(|&n| n != u64::MAX)
            .fold(writes, u64::min);
    }
    Ok(SavedState {
        writes,
        fio_335_seeds: version >= 4,
    })
}

/// fio 3.33's thread_io_list without its completions (file_comp, 16
/// bytes each, `depth` times `nofiles` of them), and where its fields lie.
const LIST: usize = 152;
const DEPTH_AT: usize = 8;
const NOFILES_AT: usize = 12;
const INDEX_AT: usize = 24;
const NAME_AT: usize = 88;
/// The layout a fio 3.33 server sends (VSTATE_HDR_VERSION).
const SENT_VERSION: u64 = 3;

/// fio's __verify_save_state on its client: the state a server sent
/// (struct all_io_list) written a file per job,
/// `PREFIX-NAME-INDEX-verify.state` (a `/` in the name made `.`), each
/// the header and the job's list, synchronously (the server may be about
/// to lose power). Returns the files written.
pub fn save_sent(all: &[u8], prefix: &str) -> Result<Vec<std::path::PathBuf>, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let short = || {
        format!(
            "a verify state of {} bytes, shorter than it says",
            all.len()
        )
    };
    let u32_at = |i: usize| {
        all.get(i..i + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let u64_at = |i: usize| {
        all.get(i..i + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    };
    let threads = u64_at(0).ok_or_else(short)?;
    let mut at = 8;
    let mut written = Vec::new();
    for _ in 0..threads {
        let depth = u32_at(at + DEPTH_AT).ok_or_else(short)? as usize;
        let nofiles = u32_at(at + NOFILES_AT).ok_or_else(short)? as usize;
        let len = LIST + depth * nofiles * 16;
        let list = all.get(at..at + len).ok_or_else(short)?;
        let index = u64_at(at + INDEX_AT).ok_or_else(short)?;
        let name = &list[NAME_AT..NAME_AT + 64];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(64)];
        let name = String::from_utf8_lossy(name).replace('/', ".");
        let path = std::path::PathBuf::from(format!("{prefix}-{name}-{index}-verify.state"));
        let mut bytes = Vec::with_capacity(HEADER + len);
        bytes.extend_from_slice(&SENT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(len as u64).to_le_bytes());
        bytes.extend_from_slice(&u64::from(!crc32c::crc32c(list)).to_le_bytes());
        bytes.extend_from_slice(list);
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_SYNC)
            .open(&path)
            .and_then(|mut f| f.write_all(&bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
        at += len;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A state file of layout `version` with `numberio` at its place, as
    /// fio writes one for a job named "w" (the rest left zero).
    fn state(version: u64, list_len: usize, numberio_at: usize, numberio: u64) -> Vec<u8> {
        let mut list = vec![0u8; list_len];
        list[numberio_at..numberio_at + 8].copy_from_slice(&numberio.to_le_bytes());
        let mut b = Vec::new();
        b.extend_from_slice(&version.to_le_bytes());
        b.extend_from_slice(&(list_len as u64).to_le_bytes());
        b.extend_from_slice(&u64::from(!crc32c::crc32c(&list)).to_le_bytes());
        b.extend_from_slice(&list);
        b
    }

    #[test]
    fn reads_the_writes_of_each_fio_layout() {
        let p = Path::new("local-w-0-verify.state");
        // Their lengths with a depth of 4: the completions or in-flight
        // writes after the name.
        for (version, len, at) in [(3, 216, 16), (4, 224, 24), (5, 176, 8)] {
            assert_eq!(
                read(&state(version, len, at, 64), p),
                Ok(SavedState {
                    writes: 64,
                    fio_335_seeds: version > 3
                }),
                "v{version}"
            );
        }
    }

    /// fio 3.41 on lists the writes in flight as it saved: the check stops
    /// before the first of them, as fio's verify_only does.
    #[test]
    fn layout_5_stops_before_the_first_write_in_flight() {
        let p = Path::new("local-w-0-verify.state");
        let with = |in_flight: [u64; 4]| {
            let mut list = vec![0u8; INFLIGHT_AT + 32];
            list[..4].copy_from_slice(&4u32.to_le_bytes());
            list[8..16].copy_from_slice(&64u64.to_le_bytes());
            for (i, n) in in_flight.iter().enumerate() {
                let at = INFLIGHT_AT + 8 * i;
                list[at..at + 8].copy_from_slice(&n.to_le_bytes());
            }
            let mut b = 5u64.to_le_bytes().to_vec();
            b.extend_from_slice(&(list.len() as u64).to_le_bytes());
            b.extend_from_slice(&u64::from(!crc32c::crc32c(&list)).to_le_bytes());
            b.extend_from_slice(&list);
            read(&b, p).map(|s| s.writes)
        };
        assert_eq!(with([u64::MAX; 4]), Ok(64));
        assert_eq!(with([62, u64::MAX, 60, 63]), Ok(60));
        // A depth the list is too short for.
        let mut b = state(5, 150, 8, 64);
        b[HEADER..HEADER + 4].copy_from_slice(&4u32.to_le_bytes());
        let n = b.len() - HEADER;
        let crc = u64::from(!crc32c::crc32c(&b[HEADER..HEADER + n]));
        b[16..24].copy_from_slice(&crc.to_le_bytes());
        assert!(read(&b, p).unwrap_err().contains("4 writes in flight"));
    }

    #[test]
    fn a_sent_state_is_saved_a_file_per_job_that_reads_back() {
        // Two jobs of depth 1 and 4 (one file each), as a server sends them.
        let mut all = 2u64.to_le_bytes().to_vec();
        for (depth, index, name, numberio) in [(1u32, 0u64, "a/b", 5u64), (4, 3, "w", 64)] {
            let mut list = vec![0u8; LIST + depth as usize * 16];
            list[DEPTH_AT..DEPTH_AT + 4].copy_from_slice(&depth.to_le_bytes());
            list[NOFILES_AT..NOFILES_AT + 4].copy_from_slice(&1u32.to_le_bytes());
            list[16..24].copy_from_slice(&numberio.to_le_bytes());
            list[INDEX_AT..INDEX_AT + 8].copy_from_slice(&index.to_le_bytes());
            list[NAME_AT..NAME_AT + name.len()].copy_from_slice(name.as_bytes());
            all.extend_from_slice(&list);
        }
        let dir = std::env::temp_dir().join(format!("ioscope-sent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prefix = dir.join("127.0.0.1").display().to_string();
        let files = save_sent(&all, &prefix).unwrap();
        let names: Vec<String> = (files.iter())
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["127.0.0.1-a.b-0-verify.state", "127.0.0.1-w-3-verify.state"]
        );
        let back = read(&std::fs::read(&files[1]).unwrap(), &files[1]).unwrap();
        assert_eq!(back.writes, 64);
        assert!(save_sent(&all[..all.len() - 1], &prefix).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_short_or_unknown_file_is_refused_naming_why() {
        let p = Path::new("s");
        let mut b = state(3, 216, 16, 64);
        b[40] ^= 1;
        assert!(read(&b, p).unwrap_err().contains("crc32c"));
        let b = state(3, 216, 16, 64);
        assert!(read(&b[..100], p).unwrap_err().contains("216 bytes follow"));
        assert!(read(&b[..10], p).unwrap_err().contains("shorter"));
        assert!(read(&state(6, 216, 16, 64), p)
            .unwrap_err()
            .contains("version 6"));
    }
}
