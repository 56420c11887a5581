//! The verifier of one worker: fills the blocks it writes and checks the
//! blocks it reads back.

use ioscope_job::{JobSpec, VerifyMethod};

use super::fio_sums::{self, FioVersion};
use super::header::{self, Header};
use super::pattern::{Laid, PatternTile};
use super::stream::{self, Stream};
use super::{diagnosis, fio_header, BlockId, Corruption};
use crate::rand::job_seeds;

/// fio's `FIO_RAND_VER_OFF`: the slot of `td->rand_seeds` fio's verify
/// draws from.
const VERIFY_SEED_SLOT: usize = 3;

/// One worker's verify: the bytes each block it writes must hold, and the
/// check of each block it reads back. Holds no state that changes, so
/// checks may run on other threads.
#[derive(Clone)]
pub struct Verifier {
    pub(super) method: VerifyMethod,
    /// verify_interval: every this many bytes of a block carry a header.
    pub(super) interval: usize,
    /// bs_unaligned: every block is one interval, whatever its length, as
    /// fio's get_hdr_inc makes it (its sizes need not be multiples of one).
    pub(super) whole_blocks: bool,
    /// verify_offset: where in its interval the header lies.
    pub(super) header_at: usize,
    /// fio's header and the checksum after it (`header::len`).
    pub(super) header_len: usize,
    /// The worker's seed: with each file's number, keys the data and goes
    /// in every header (`seed_of`), so that a block of another job, run or
    /// file is known for one. 0 with verify_pattern, as fio's rand_seed.
    pub(super) seed: u64,
    /// verify_pattern: the data instead of random bytes.
    pub(super) pattern: Option<PatternTile>,
    /// verify_header_seed: a header must carry `seed`.
    pub(super) check_seed: bool,
    /// verify_write_sequence: a header must carry the write number the
    /// check names.
    pub(super) check_seq: bool,
    /// fio's thread_number (the worker's, from 1), which fio's header
    /// carries.
    pub(super) thread: u16,
    /// The worker's files: a header whose seed is another file's names
    /// that file (`file_of`).
    pub(super) files: u32,
}

/// Where an interval lies in the block it is filled or checked in (the
/// block's file offset and length, the interval's first byte in it), and
/// the pattern as the block holds it: there when the data is the pattern
/// and not covered by a checksum (a check of the checksum needs none).
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    /// The worker's file the block is in.
    pub file: u32,
    pub block_offset: u64,
    pub block_len: usize,
    pub pos: usize,
    pub laid: Option<&'a Laid<'a>>,
}

impl Verifier {
    /// From the job's verify options; `worker` is the run-wide worker number
    /// (0-based). Errors (a message for the user) when the options cannot
    /// work, e.g. an interval smaller than the header, verify_offset +
    /// header past the interval.
    ///
    /// The seed comes from randseed/randrepeat and the worker as fio's
    /// verify seed does, so a later run of the same job makes the same
    /// bytes; with randrepeat=0 and no randseed it is new every run, and a
    /// later verify_only run finds every block to be another run's.
    pub fn new(spec: &JobSpec, worker: u32) -> Result<Verifier, String> {
        let v = &spec.verify;
        let method = v.method;
        if method == VerifyMethod::None {
            return Err("verify is off (verify=0): there is nothing to write or check".into());
        }
        let pattern = v
            .pattern
            .as_ref()
            .map(|p| PatternTile::new(p, v.pattern_interval as usize))
            .transpose()?;
        if matches!(method, VerifyMethod::Pattern | VerifyMethod::PatternHdr) && pattern.is_none() {
            return Err(format!(
                "verify={} needs verify_pattern, the bytes every block must hold",
                method.name()
            ));
        }
        let header_len = header::len(method);
        // verify=pattern and verify=null write no header (fio's null
        // writes its random data alone), so any interval does.
        if !matches!(method, VerifyMethod::Pattern | VerifyMethod::Null) {
            if v.interval == header_len as u64 {
                return Err(format!(
                    "verify_interval={} leaves no room for data beside the {header_len}-byte verify={} header (fio fails the job: \"Blocksize too small\"): use at least {}",
                    v.interval,
                    method.name(),
                    header_len + 1
                ));
            }
            if v.offset > 0 && v.offset < header_len as u64 {
                return Err(format!(
                    "verify_offset={} would move fio's {header_len}-byte verify={} header (and checksum) onto itself (fio 3.42 refuses verify_offset below 48, and swaps an overlapping header with itself above): leave verify_offset out or use at least {header_len}",
                    v.offset,
                    method.name()
                ));
            }
            if v.interval < header_len as u64 {
                return Err(format!(
                    "verify_interval={} is smaller than the {header_len}-byte verify={} header: use at least {header_len}",
                    v.interval,
                    method.name()
                ));
            }
            if v.interval > u64::from(u32::MAX) {
                return Err(format!(
                    "verify_interval={} is larger than the largest block (4 GiB - 1)",
                    v.interval
                ));
            }
            if v.offset + header_len as u64 > v.interval {
                return Err(format!(
                    "verify_offset={} leaves no room for the {header_len}-byte verify={} header in a {}-byte interval: use at most {}",
                    v.offset,
                    method.name(),
                    v.interval,
                    v.interval - header_len as u64
                ));
            }
        }
        // fio draws a verify seed only for random data: with verify_pattern
        // its header's rand_seed is the 0 the I/O unit was allocated with,
        // in every job and run.
        let seed = match pattern {
            Some(_) => 0,
            None => job_seeds(spec, u64::from(worker) + 1)[VERIFY_SEED_SLOT],
        };
        Ok(Verifier {
            method,
            interval: v.interval as usize,
            whole_blocks: spec.placement.bs_unaligned,
            header_at: v.offset as usize,
            header_len,
            seed,
            pattern,
            check_seed: v.header_seed,
            check_seq: v.write_sequence,
            thread: (worker + 1) as u16,
            files: spec.nrfiles.max(spec.filenames.len() as u32).max(1),
        })
    }

    pub fn method(&self) -> VerifyMethod {
        self.method
    }

    /// Fills buf (buf.len() == block.len) with what the block must hold:
    /// per interval (spec.verify.interval bytes) a header and data.
    /// Deterministic: the same BlockId always gives the same bytes (a later
    /// verify_only run of the same job must be able to check it).
    pub fn fill(&self, buf: &mut [u8], block: &BlockId) {
        if let Some(v) = self.short(buf.len()) {
            return v.fill(buf, block);
        }
        self.check_len(buf.len(), block);
        if let Some(tile) = self.pattern_only() {
            tile.fill_block(buf, block.offset, buf.len(), 0);
            return;
        }
        if self.method == VerifyMethod::Null {
            // fio's verify=null writes the data alone, no header.
            let seed = self.seed_of(block.file);
            Stream::new(stream::key(seed, block.offset, block.seq)).fill(buf);
            return;
        }
        let len = buf.len();
        let laid = self.laid(block.offset, len);
        for (i, interval) in buf.chunks_exact_mut(self.interval).enumerate() {
            let start = i * self.interval;
            let place = Place {
                file: block.file,
                block_offset: block.offset,
                block_len: len,
                pos: start,
                laid: laid.as_ref(),
            };
            self.fill_interval(interval, &self.header(block, start), place);
        }
    }

    /// Fills one interval: its data (the pattern at its place in the
    /// block, or random bytes keyed by the write `header` names), then
    /// fio's header and the checksum of the data after them, swapped to
    /// verify_offset.
    pub(super) fn fill_interval(&self, interval: &mut [u8], header: &Header, place: Place) {
        match place.laid {
            Some(laid) => laid.fill(interval, place.pos),
            None => Stream::new(stream::key(header.seed, header.offset, header.seq)).fill(interval),
        }
        let sum = fio_sums::sum(
            self.method,
            FioVersion::From342,
            &interval[self.header_len..],
        );
        fio_header::write(interval, self.header_at, header, &sum, self.thread);
    }

    /// The pattern as the block at `offset`, `len` bytes long, holds it
    /// (None without verify_pattern). One paste serves the whole block
    /// unless the pattern restarts.
    pub(super) fn laid(&self, offset: u64, len: usize) -> Option<Laid<'_>> {
        self.pattern.as_ref().map(|p| p.laid(offset, len))
    }

    /// [`Verifier::laid`] where a check compares the data with the pattern
    /// (no checksum covers it), so that a checksum's check pastes nothing.
    pub(super) fn laid_to_check(&self, offset: u64, len: usize) -> Option<Laid<'_>> {
        match fio_sums::len(self.method) {
            0 => self.laid(offset, len),
            _ => None,
        }
    }

    /// Checks a block read back (buf.len() == block.len). Ok, or the
    /// diagnosis. A good block costs a header read and one checksum pass per
    /// interval; only a bad one is compared with the bytes made again.
    pub fn check(&self, buf: &[u8], block: &BlockId) -> Result<(), Corruption> {
        if let Some(v) = self.short(buf.len()) {
            return v.check(buf, block);
        }
        self.check_len(buf.len(), block);
        if self.method == VerifyMethod::Null {
            return Ok(());
        }
        if let Some(tile) = self.pattern_only() {
            if tile.matches_block(buf, block.offset) {
                return Ok(());
            }
            return Err(diagnosis::pattern(tile, buf, block));
        }
        let laid = self.laid_to_check(block.offset, buf.len());
        let place = |pos| Place {
            file: block.file,
            block_offset: block.offset,
            block_len: buf.len(),
            pos,
            laid: laid.as_ref(),
        };
        if !(self.check_seed && self.check_seq) {
            // Some field of the header cannot be known: each interval is
            // checked against what its own header says, as a read-back is.
            let seq = self.check_seq.then_some(block.seq);
            for (i, interval) in buf.chunks_exact(self.interval).enumerate() {
                let pos = i * self.interval;
                self.check_interval(interval, block.offset + pos as u64, place(pos), seq)?;
            }
            return Ok(());
        }
        for (i, interval) in buf.chunks_exact(self.interval).enumerate() {
            let pos = i * self.interval;
            if !self.holds(interval, &self.header(block, pos), place(pos)) {
                return Err(diagnosis::headers(self, buf, block));
            }
        }
        Ok(())
    }

    /// The bytes the block should hold (the runner writes them next to the
    /// bad block for verify_dump).
    pub fn expected(&self, block: &BlockId, out: &mut [u8]) {
        self.fill(out, block);
    }

    /// The header the interval at byte `start` of the block must carry.
    pub(super) fn header(&self, block: &BlockId, start: usize) -> Header {
        Header {
            method: header::code(self.method),
            len: self.header_len as u16,
            interval: self.interval as u32,
            offset: block.offset + start as u64,
            seq: block.seq,
            seed: self.seed_of(block.file),
        }
    }

    /// The seed the headers of file `file` carry and its data is keyed by
    /// (0 with verify_pattern, whose data is the pattern).
    pub(super) fn seed_of(&self, file: u32) -> u64 {
        match self.seed {
            0 => 0,
            seed => stream::file_seed(seed, file),
        }
    }

    /// The worker's file whose headers carry `seed`, if one's do.
    pub(super) fn file_of(&self, seed: u64) -> Option<u32> {
        (0..self.files).find(|&f| self.seed_of(f) == seed)
    }

    /// The pattern, when it is all a block holds (verify=pattern).
    pub(super) fn pattern_only(&self) -> Option<&PatternTile> {
        self.pattern
            .as_ref()
            .filter(|_| self.method == VerifyMethod::Pattern)
    }

    /// The verify of a block laid out as one interval of its length, as
    /// fio's `get_hdr_inc` makes it: a block shorter than verify_interval
    /// (the end of a zone that write_zone_remainder writes with a smaller
    /// write), or any block with bs_unaligned. None for a block of whole
    /// intervals.
    pub(super) fn short(&self, len: usize) -> Option<Verifier> {
        let one = len < self.interval || (self.whole_blocks && len != self.interval);
        (one && self.method != VerifyMethod::Pattern).then(|| Verifier {
            interval: len,
            ..self.clone()
        })
    }

    pub(super) fn check_len(&self, len: usize, block: &BlockId) {
        assert_eq!(
            len, block.len as usize,
            "the buffer is not the block's length"
        );
        assert!(
            self.method == VerifyMethod::Pattern || len.is_multiple_of(self.interval),
            "a {len}-byte block is not a whole number of {}-byte verify intervals",
            self.interval
        );
    }

    /// Whether an interval holds the write `want` names: its header (crc
    /// and fields), then its data checksum, without making the data again.
    fn holds(&self, interval: &[u8], want: &Header, place: Place) -> bool {
        fio_header::read(&interval[self.header_at..]) == Some(*want)
            && self.data_matches(interval, place)
    }

    /// Whether the interval's data is what its header (read and found
    /// whole) says: the checksum in the header is that of the data, or,
    /// for a header without one, the data is verify_pattern (as fio checks
    /// pattern_hdr, and meta with a verify_pattern), at its `place`.
    pub(super) fn data_matches(&self, interval: &[u8], place: Place) -> bool {
        let n = fio_sums::len(self.method);
        if n == 0 {
            // meta without a pattern: the header is all there is to check.
            return place.laid.is_none_or(|laid| {
                self.data_pieces(interval.len())
                    .into_iter()
                    .all(|(range, pos)| laid.matches_at(&interval[range], place.pos + pos))
            });
        }
        let stored_at = self.header_at + fio_header::LEN;
        let Some(stored) = interval.get(stored_at..stored_at + n) else {
            return false;
        };
        let sum = if self.header_at == 0 {
            fio_sums::sum(
                self.method,
                FioVersion::From342,
                &interval[self.header_len..],
            )
        } else {
            // The data as it was summed, before the header swapped to
            // verify_offset: its pieces in the order they were made.
            let mut pieces = self.data_pieces(interval.len());
            pieces.sort_by_key(|(_, made_at)| *made_at);
            let data: Vec<u8> = pieces
                .iter()
                .flat_map(|(range, _)| &interval[range.clone()])
                .copied()
                .collect();
            fio_sums::sum(self.method, FioVersion::From342, &data)
        };
        *sum == *stored
    }

    /// The data of an interval of `len` bytes, in pieces: the bytes of the
    /// interval each covers, and where in the interval it was made (fio's
    /// header and checksum are swapped with the data at verify_offset,
    /// which so lies at the interval's start).
    fn data_pieces(&self, len: usize) -> [(std::ops::Range<usize>, usize); 3] {
        let (at, hlen) = (self.header_at, self.header_len);
        let end = at + hlen;
        match at {
            0 => [(0..0, 0), (hlen..len, hlen), (0..0, 0)],
            _ => [(0..hlen, at), (hlen..at, hlen), (end..len, end)],
        }
    }
}
