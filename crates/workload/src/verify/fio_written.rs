//! Checking a block fio wrote with its own verify: a read job or a
//! `verify_only` run of ioscope over a file or device that fio filled
//! (`fio --verify=crc32c --do_verify=0`, or any fio verify job). Each
//! interval is checked as fio checks it in a read workload (verify.c's
//! `verify_header` and `verify_io_u_*`): fio's magic, its header's crc32c,
//! the interval's length and offset, the method, then the checksum fio put
//! after the header (`fio_sums`), or verify_pattern for fio's methods
//! without one. fio's seed and write number are not checked (fio does not
//! check them in a read workload either); a job that asks for them
//! (`verify_header_seed=1`, a write job's own verify) finds the block is
//! fio's, not its own write.
//!
//! fio's header, little-endian, in its two layouts:
//!
//! | fio before 3.42 (40 bytes)  | fio 3.42 on (48 bytes)       |
//! | --------------------------- | ---------------------------- |
//! | 0..2 magic 0xacca           | 0..2 magic 0xacca            |
//! | 2..4 verify_type            | 2 version 0x81, 3 verify_type|
//! | 4..8 interval length        | 4..8 interval length         |
//! | 8..16 rand_seed             | 8..16 rand_seed              |
//! | 16..24 offset               | 16..24 offset                |
//! | 24..32 time                 | 24..32 time                  |
//! | 32..34 thread               | 32..40 numberio              |
//! | 34..36 numberio (16 bits)   | 40..42 thread, 42..44 unused |
//! | 36..40 crc32c of 0..36      | 44..48 crc32c of 0..44       |
//!
//! The checksum (`fio_sums::len` bytes) follows the header and the data
//! follows the checksum; with verify_offset fio swaps the header and
//! checksum with the bytes at verify_offset once it has filled them.

use ioscope_job::VerifyMethod;

use super::diagnosis::SECTOR;
use super::fio_header::{self, MAGIC, VERSION};
use super::fio_sums::{self, FioVersion};
use super::verifier::Place;
use super::zeroes::is_zero;
use super::{Corruption, CorruptionKind, Verifier};

/// What a header fio wrote says, its crc checked apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioHeader {
    pub version: FioVersion,
    /// fio's verify_type: the method, or None for a number fio has no
    /// method for.
    pub method: Option<VerifyMethod>,
    pub interval: u32,
    pub offset: u64,
    /// fio's numberio: the job's writes before this one (fio before 3.42
    /// kept its low 16 bits).
    pub numberio: u64,
    /// Whether the header's crc32c is that of its fields.
    pub whole: bool,
}

impl FioHeader {
    pub fn len(&self) -> usize {
        match self.version {
            FioVersion::Before342 => 40,
            FioVersion::From342 => fio_header::LEN,
        }
    }

    /// The header and the checksum after it: fio's `hdr_size`.
    fn with_sum(&self) -> usize {
        self.len() + self.method.map_or(0, fio_sums::len)
    }

    pub(super) fn who(&self) -> &'static str {
        match self.version {
            FioVersion::Before342 => "a fio before 3.42",
            FioVersion::From342 => "fio 3.42 or later (or another ioscope job)",
        }
    }
}

/// The fio header at the start of `bytes`, when its magic and layout say
/// it is one (its crc may still be bad: `whole`).
pub fn read(bytes: &[u8]) -> Option<FioHeader> {
    if !bytes.starts_with(&MAGIC) || bytes.len() < 40 {
        return None;
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    // fio 3.42's version byte (0x81) is no verify_type of the older
    // layout, whose 16-bit type has a zero high byte.
    let (version, kind, numberio, crc_at) = if bytes[2] == VERSION && bytes.len() >= fio_header::LEN
    {
        (FioVersion::From342, bytes[3], u64_at(32), 44)
    } else if bytes[3] == 0 {
        (FioVersion::Before342, bytes[2], u64::from(u16_at(34)), 36)
    } else {
        return None;
    };
    Some(FioHeader {
        version,
        method: fio_header::method_of_type(kind),
        interval: u32_at(4),
        offset: u64_at(16),
        numberio,
        whole: !crc32c::crc32c(&bytes[..crc_at]) == u32_at(crc_at),
    })
}

/// Whether fio's verify_type `found` is what a job checking `job` reads:
/// crc32c-intel is crc32c (fio writes 5 for both), and fio's pattern method
/// is ioscope's pattern_hdr.
fn same_method(found: VerifyMethod, job: VerifyMethod) -> bool {
    let one = |m| match m {
        VerifyMethod::Crc32cIntel => VerifyMethod::Crc32c,
        m => m,
    };
    one(found) == one(job)
}

impl Verifier {
    /// The length of the interval fio wrote at the start of `rest`, when
    /// its whole header is for this job's method and fits in `rest`.
    pub(super) fn fio_interval(&self, rest: &[u8]) -> Option<usize> {
        let h = read(rest.get(self.header_at..)?)?;
        let len = h.interval as usize;
        (h.whole
            && h.method.is_some_and(|m| same_method(m, self.method))
            && len >= self.header_at + h.with_sum()
            && len <= rest.len())
        .then_some(len)
    }

    /// The verdict on an interval (at file offset `at`, at `place` in the
    /// block checked) that holds a header fio wrote where this job's
    /// header would be; None when it holds none. `remembered` says the
    /// check knows which write of its own the interval must hold.
    pub(super) fn check_fio_written(
        &self,
        interval: &[u8],
        at: u64,
        place: Place,
        remembered: bool,
    ) -> Option<Result<(), Corruption>> {
        let h = read(interval.get(self.header_at..)?)?;
        // ioscope's own header is fio 3.42's: a damaged one is diagnosed
        // against the bytes it should hold (read_back.rs).
        if h.version == FioVersion::From342 {
            return None;
        }
        Some(self.fio_verdict(&h, interval, at, place, remembered))
    }

    pub(super) fn fio_verdict(
        &self,
        h: &FioHeader,
        interval: &[u8],
        at: u64,
        place: Place,
        remembered: bool,
    ) -> Result<(), Corruption> {
        let fail = |kind, offset, detail: String| {
            Err(Corruption {
                kind,
                offset,
                detail,
            })
        };
        let who = h.who();
        if !h.whole {
            return fail(
                CorruptionKind::HeaderDamaged,
                at + self.header_at as u64,
                format!("holds the verify header of {who}, damaged: its crc32c does not match"),
            );
        }
        let Some(method) = h.method else {
            return fail(
                CorruptionKind::HeaderDamaged,
                at + self.header_at as u64,
                format!("holds the verify header of {who} with no verify method fio has"),
            );
        };
        if remembered || self.check_seed {
            return fail(
                CorruptionKind::LostWrite,
                at,
                format!(
                    "holds a block {who} wrote (verify={}, its write #{}), not this job's write: ioscope checks fio's blocks only where it checks neither seed nor write number (a read job, or verify_only, with verify_header_seed=0)",
                    method.name(),
                    h.numberio + 1
                ),
            );
        }
        if !same_method(method, self.method) {
            return fail(
                CorruptionKind::OtherLayout,
                at,
                format!(
                    "was written by {who} with verify={} (this job checks verify={}): check it with verify={}",
                    method.name(),
                    self.method.name(),
                    method.name()
                ),
            );
        }
        let hdr = h.with_sum();
        if h.interval as usize != interval.len() || self.header_at + hdr > interval.len() {
            return fail(
                CorruptionKind::OtherLayout,
                at,
                format!(
                    "holds a {}-byte verify interval {who} wrote (this job checks {}-byte intervals): read it back with verify_interval={} and a block size that is a multiple of it",
                    h.interval,
                    interval.len(),
                    h.interval
                ),
            );
        }
        if h.offset != at {
            return fail(
                CorruptionKind::Misdirected,
                at,
                format!(
                    "holds the write {who} meant for offset {} (its write #{})",
                    h.offset,
                    h.numberio + 1
                ),
            );
        }
        // fio swapped its header and checksum with the bytes at
        // verify_offset after filling them: swap them back.
        let unswapped;
        let interval = if self.header_at > 0 {
            let mut copy = interval.to_vec();
            let (head, rest) = copy.split_at_mut(self.header_at);
            head[..hdr].swap_with_slice(&mut rest[..hdr]);
            unswapped = copy;
            &unswapped[..]
        } else {
            interval
        };
        let data = &interval[hdr..];
        match fio_sums::len(method) {
            0 => match place.laid {
                // fio's meta and pattern: the data is verify_pattern, laid
                // from the block's first byte.
                Some(laid) => {
                    let mut want = vec![0u8; data.len()];
                    laid.fill(&mut want, place.pos + hdr);
                    match data.iter().zip(&want).position(|(a, b)| a != b) {
                        None => Ok(()),
                        Some(i) => fail(
                            CorruptionKind::PatternMismatch,
                            at + (hdr + i) as u64,
                            format!(
                                "the data after the header {who} wrote is not verify_pattern from here (got {:#04x}, wanted {:#04x})",
                                data[i], want[i]
                            ),
                        ),
                    }
                }
                None => Ok(()),
            },
            n => {
                let stored = &interval[h.len()..h.len() + n];
                if *fio_sums::sum(method, h.version, data) == *stored {
                    return Ok(());
                }
                if let Some(tear) = zero_tail(interval, hdr) {
                    return fail(
                        CorruptionKind::Torn,
                        at + tear as u64,
                        format!(
                            "the header {who} wrote is whole (its write #{}), the data from here to the interval's end reads back zeroes",
                            h.numberio + 1
                        ),
                    );
                }
                fail(
                    CorruptionKind::DataCorrupt,
                    at,
                    format!(
                        "the data does not match the {} checksum {who} wrote in its header (its write #{}); the header is whole, so the data changed after it was written",
                        method.name(),
                        h.numberio + 1
                    ),
                )
            }
        }
    }
}

/// Where, past the header and checksum (`from`), the interval's data is
/// zeroes to its end from a sector boundary: what a write torn there
/// leaves over a zeroed block. fio's data is random, so a sector of zero
/// bytes is not its own.
fn zero_tail(interval: &[u8], from: usize) -> Option<usize> {
    let mut tear = interval.len();
    while tear >= SECTOR && tear - SECTOR >= from && is_zero(&interval[tear - SECTOR..tear]) {
        tear -= SECTOR;
    }
    (tear < interval.len()).then_some(tear)
}

/// A header as fio 3.33 lays it (thread 1, seed 0x1234, time 0), sealed:
/// for the tests of checks of fio's blocks.
#[cfg(test)]
pub(super) fn header_333(kind: u8, interval: u32, offset: u64, numberio: u16) -> [u8; 40] {
    let mut b = [0u8; 40];
    b[..2].copy_from_slice(&MAGIC);
    b[2] = kind;
    b[4..8].copy_from_slice(&interval.to_le_bytes());
    b[8..16].copy_from_slice(&0x1234u64.to_le_bytes());
    b[16..24].copy_from_slice(&offset.to_le_bytes());
    b[32..34].copy_from_slice(&1u16.to_le_bytes());
    b[34..36].copy_from_slice(&numberio.to_le_bytes());
    let crc = !crc32c::crc32c(&b[..36]);
    b[36..].copy_from_slice(&crc.to_le_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_layouts() {
        let old = header_333(5, 4096, 8192, 2);
        assert_eq!(
            read(&old),
            Some(FioHeader {
                version: FioVersion::Before342,
                method: Some(VerifyMethod::Crc32c),
                interval: 4096,
                offset: 8192,
                numberio: 2,
                whole: true,
            })
        );
        for bit in 0..36 * 8 {
            let mut b = old;
            b[bit / 8] ^= 1 << (bit % 8);
            assert!(read(&b).is_none_or(|h| !h.whole), "bit {bit}");
        }
        let mut new = [0u8; 48];
        new[..2].copy_from_slice(&MAGIC);
        new[2] = VERSION;
        new[3] = 2;
        new[4..8].copy_from_slice(&512u32.to_le_bytes());
        new[32..40].copy_from_slice(&70_000u64.to_le_bytes());
        let crc = !crc32c::crc32c(&new[..44]);
        new[44..].copy_from_slice(&crc.to_le_bytes());
        let h = read(&new).unwrap();
        assert_eq!(
            (h.version, h.method, h.interval, h.numberio, h.whole),
            (
                FioVersion::From342,
                Some(VerifyMethod::Md5),
                512,
                70_000,
                true
            )
        );
        assert_eq!(h.with_sum(), 64);
        assert_eq!(read(&[0u8; 48]), None);
    }
}
