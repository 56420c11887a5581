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
//! The version also says how the writes drew their random offsets: fio
//! 3.35 stopped seeding the offsets apart from `randseed` (rand.rs
//! `job_seeds`), and layouts 4 and 5 come from a fio newer than that.
//! Layout 3 is ambiguous (3.35 to 3.38 write it too): ioscope replays it
//! with fio 3.33's seeds.

use crate::verify::SavedState;

const HEADER: usize = 24;

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
    let writes = u64_at(list, at).ok_or_else(|| bad("it is too short for its layout"))?;
    Ok(SavedState {
        writes,
        fio_335_seeds: version >= 4,
    })
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
