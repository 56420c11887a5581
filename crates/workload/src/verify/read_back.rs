//! Checking a block that nobody remembers writing: a read job checking
//! what another job, run or day wrote, and a replay whose write numbers or
//! seed cannot be known. Each interval is checked against what its own
//! header says (fio's way for read workloads): the header must be whole,
//! be for this interval's offset, and carry the checksum of the data
//! beside it. When it is not, the header (or what is left of it) names the
//! write, so the bytes it should hold can be made again and the damage
//! named as for a remembered write.

use super::header::{self, Header};
use super::verifier::Place;
use super::zeroes::is_zero;
use super::{diagnosis, fio_header, fio_written};
use super::{BlockId, Corruption, CorruptionKind, Verifier};
use ioscope_job::VerifyMethod;

impl Verifier {
    /// Checks a block of `buf.len()` bytes read at file offset `offset` of
    /// the worker's file `file`, each interval against its own header. Ok,
    /// or the first bad interval's diagnosis.
    pub fn check_read(&self, buf: &[u8], file: u32, offset: u64) -> Result<(), Corruption> {
        if let Some(v) = self.short(buf.len()) {
            return v.check_read(buf, file, offset);
        }
        let block = BlockId {
            file,
            offset,
            len: buf.len() as u32,
            seq: 0,
        };
        self.check_len(buf.len(), &block);
        if self.method == VerifyMethod::Null {
            return Ok(());
        }
        if let Some(tile) = self.pattern_only() {
            if tile.matches_block(buf, offset) {
                return Ok(());
            }
            return Err(diagnosis::pattern(tile, buf, &block));
        }
        // The writer's interval may be a fraction of this job's (a block
        // written 4 KiB at a time, read 64 KiB at a time): a whole header
        // says how far its interval runs. A pattern is checked as this
        // read's block holds it, as fio checks it.
        let laid = self.laid_to_check(offset, buf.len());
        let mut pos = 0;
        while pos < buf.len() {
            let rest = &buf[pos..];
            let len = self
                .writers_interval(rest)
                .or_else(|| self.fio_interval(rest))
                .unwrap_or(self.interval.min(rest.len()));
            let place = Place {
                file,
                block_offset: offset,
                block_len: buf.len(),
                pos,
                laid: laid.as_ref(),
            };
            self.check_interval(&rest[..len], offset + pos as u64, place, None)?;
            pos += len;
        }
        Ok(())
    }

    /// The length of the interval at the start of `rest` as its whole
    /// header gives it, when it is this job's method and fits in `rest`.
    fn writers_interval(&self, rest: &[u8]) -> Option<usize> {
        let h = fio_header::read(rest.get(self.header_at..)?)?;
        let len = h.interval as usize;
        (h.method == header::code(self.method)
            && usize::from(h.len) == self.header_len
            && len >= self.header_at + self.header_len
            && len <= rest.len())
        .then_some(len)
    }

    /// Checks one interval at file offset `at`, at `place` in the block
    /// checked, against its own header; `seq`, when known, is the write
    /// number it must carry. The interval may be shorter than this job's
    /// (see `check_read`).
    pub(super) fn check_interval(
        &self,
        interval: &[u8],
        at: u64,
        place: Place,
        seq: Option<u64>,
    ) -> Result<(), Corruption> {
        let found = interval.get(self.header_at..).and_then(fio_header::read);
        let Some(found) = found else {
            if let Some(verdict) = self.check_fio_written(interval, at, place, seq.is_some()) {
                return verdict;
            }
            return Err(self.headerless(interval, at, place));
        };
        if found.method != header::code(self.method)
            || usize::from(found.len) != self.header_len
            || found.interval as usize != interval.len()
        {
            return Err(self.other_layout(&found, interval.len(), at));
        }
        if found.offset != at {
            return Err(Corruption {
                kind: CorruptionKind::Misdirected,
                offset: at,
                detail: format!(
                    "holds the write meant for offset {} (write #{})",
                    found.offset, found.seq
                ),
            });
        }
        let seed = self.seed_of(place.file);
        if self.check_seed && found.seed != seed {
            return Err(Corruption {
                kind: CorruptionKind::LostWrite,
                offset: at,
                detail: format!(
                    "holds a block of another job, run or file (seed {:#x}, write #{}), not this file's (seed {:#x}); verify_header_seed=0 checks blocks whoever wrote them",
                    found.seed, found.seq, seed
                ),
            });
        }
        if let Some(seq) = seq.filter(|&s| s != found.seq) {
            let want = Header { seq, ..found };
            return Err(diagnosis::other_write(self, &found, &want, at));
        }
        if self.data_matches(interval, place) {
            return Ok(());
        }
        Err(self.as_written_by(&found, interval, at, place))
    }

    /// The diagnosis of an interval whose header names its write but whose
    /// data is not that write's: compared with what that write put there
    /// (a pattern at the interval's place in the block checked), which the
    /// header says for ioscope's blocks; fio's random data comes from
    /// fio's generator, so a block of fio's gets fio's verdict instead.
    fn as_written_by(&self, h: &Header, interval: &[u8], at: u64, place: Place) -> Corruption {
        let unchecked = place;
        let writer = Verifier {
            interval: interval.len(),
            ..self.clone()
        };
        let block = BlockId {
            file: place.file,
            offset: at,
            len: interval.len() as u32,
            seq: h.seq,
        };
        // A check of a checksum had no need of the pattern; this does.
        let rebuilt = match place.laid {
            None => self.laid(place.block_offset, place.block_len),
            Some(_) => None,
        };
        let place = Place {
            laid: place.laid.or(rebuilt.as_ref()),
            ..place
        };
        let mut exp = vec![0u8; interval.len()];
        // The bytes of the write the header names, whoever's seed it has.
        writer.fill_interval(&mut exp, &Header { offset: at, ..*h }, place);
        let head = self.header_at..self.header_at + self.header_len;
        let same = (0..interval.len())
            .filter(|i| !head.contains(i) && interval[*i] == exp[*i])
            .count();
        if same < (interval.len() - head.len()) / 16 {
            // Not bytes a header of ioscope's makes again, but fio's
            // random data (a chance byte matches one in 256 times): fio's
            // verdict, from its header and checksum.
            let fios = fio_written::read(&interval[self.header_at..])
                .and_then(|fh| self.fio_verdict(&fh, interval, at, unchecked, false).err());
            if let Some(c) = fios {
                return c;
            }
        }
        diagnosis::headers_against(&writer, interval, exp, &block)
    }

    /// An interval with no whole header where this job's options put it.
    fn headerless(&self, interval: &[u8], at: u64, place: Place) -> Corruption {
        if is_zero(interval) {
            return Corruption {
                kind: CorruptionKind::LostWrite,
                offset: at,
                detail: "reads back zeroes: never written".into(),
            };
        }
        let head = interval.get(self.header_at..).unwrap_or_default();
        // A damaged header that still reads as one of this layout: the
        // write it names (at this place: a damaged offset field is damage,
        // not a misdirected write) says what the interval should hold.
        if let Some(h) = fio_header::read_unchecked(head).filter(|h| {
            h.method == header::code(self.method)
                && usize::from(h.len) == self.header_len
                && h.interval as usize == interval.len()
        }) {
            return self.as_written_by(&Header { offset: at, ..h }, interval, at, place);
        }
        if fio_header::has_magic(head) {
            return Corruption {
                kind: CorruptionKind::HeaderDamaged,
                offset: at + self.header_at as u64,
                detail:
                    "the header is damaged past reading: which write the interval holds is unknown"
                        .into(),
            };
        }
        Corruption {
            kind: CorruptionKind::LostWrite,
            offset: at,
            detail: format!(
                "holds data without a fio verify header{}: no verify job wrote it, or it was written with another verify_offset",
                if self.header_at > 0 {
                    format!(" at verify_offset={}", self.header_at)
                } else {
                    String::new()
                }
            ),
        }
    }

    /// A whole header for this place, written with other verify options:
    /// not damage, but a check that cannot work as asked.
    fn other_layout(&self, found: &Header, len: usize, at: u64) -> Corruption {
        let method = header::method_name(found.method);
        let detail = if method == self.method.name() && found.interval as usize > len {
            format!(
                "holds the start of a {}-byte verify interval of which this read has {len} bytes: read it back with bs={} (or a multiple), at offsets aligned to it",
                found.interval, found.interval
            )
        } else {
            format!(
                "was written with verify={method} and verify_interval={} (this job checks verify={}, verify_interval={}): check it with the options that wrote it",
                found.interval,
                self.method.name(),
                self.interval
            )
        };
        Corruption {
            kind: CorruptionKind::OtherLayout,
            offset: at,
            detail,
        }
    }
}
