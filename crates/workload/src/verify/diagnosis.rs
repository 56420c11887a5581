//! What a bad block holds instead of what was written. Only blocks that
//! failed their check come here, so this side may be slow and allocate: it
//! makes the expected bytes again and compares.

use super::fio_sums::FioVersion::From342;
use super::fio_written;
use super::header::{self, Header};
use super::pattern::PatternTile;
use super::zeroes::is_zero;
use super::{fio_header, BlockId, Corruption, CorruptionKind, Verifier};

/// Devices write (and tear) whole sectors of at least this size.
pub(super) const SECTOR: usize = 512;
/// At most this many differing bits over a block are bit flips; more is
/// some other damage.
const FEW_BITS: u64 = 16;

/// A block with headers (every method but pattern).
pub fn headers(v: &Verifier, buf: &[u8], block: &BlockId) -> Corruption {
    let mut exp = vec![0u8; buf.len()];
    v.fill(&mut exp, block);
    headers_against(v, buf, exp, block)
}

/// A block with headers, against `exp`, the bytes it should hold.
pub fn headers_against(v: &Verifier, buf: &[u8], mut exp: Vec<u8>, block: &BlockId) -> Corruption {
    // fio's header carries the I/O's time and fio's thread number, which
    // nobody checks and ioscope cannot know: where the block has a header,
    // what it says there is no damage.
    for start in (0..buf.len()).step_by(v.interval) {
        let head = start + v.header_at..start + v.header_at + v.header_len;
        fio_header::adopt_unchecked(&buf[head.clone()], &mut exp[head]);
    }
    let first = first_difference(buf, &exp)
        .expect("a block that fails its check differs from what was written");
    let start = first / v.interval * v.interval;
    let end = start + v.interval;
    let head = start + v.header_at..start + v.header_at + v.header_len;
    let at = |pos: usize| block.offset + pos as u64;

    let tear = first / SECTOR * SECTOR;
    // What lies before the tear is this write's only if it holds something
    // this write alone has: random data keyed by it, or its header.
    let proven = v.pattern.is_none() || v.header_at + v.header_len <= tear;
    if tear > 0 && proven && tail_is_foreign(v, buf, &exp, tear) {
        return torn(v, buf, &exp, tear, block);
    }

    let want = wanted(v, &exp, start);
    let found = fio_header::read(&buf[head.start..end]);
    if let Some(found) = found.filter(|f| *f != want) {
        return other_write(v, &found, &want, at(start));
    }
    let bits = differing_bits(buf, &exp);
    if bits <= FEW_BITS {
        let in_header = head.contains(&first);
        return bit_flip(buf, &exp, first, bits, at(0), in_header);
    }
    let differ = differing_bytes(&buf[start..end], &exp[start..end]);
    if found.is_some() {
        return Corruption {
            kind: CorruptionKind::DataCorrupt,
            offset: at(first),
            detail: format!(
                "{differ} of {} bytes differ from what was written, the first at offset {}; the header is intact",
                v.interval,
                at(first)
            ),
        };
    }
    if is_zero(&buf[start..end]) {
        return Corruption {
            kind: CorruptionKind::LostWrite,
            offset: at(start),
            detail: "reads back zeroes: never written".into(),
        };
    }
    if buf[start..head.start] == exp[start..head.start] && buf[head.end..end] == exp[head.end..end]
    {
        return Corruption {
            kind: CorruptionKind::HeaderDamaged,
            offset: at(head.start),
            detail: format!(
                "{differ} of its {} bytes differ from what was written; the data is intact",
                v.header_len
            ),
        };
    }
    if let Some(h) = fio_written::read(&buf[head.clone()]).filter(|h| h.version != From342) {
        return Corruption {
            kind: CorruptionKind::LostWrite,
            offset: at(start),
            detail: format!(
                "holds a block {} wrote (its write #{}): this write never reached it",
                h.who(),
                h.numberio + 1
            ),
        };
    }
    if fio_header::has_magic(&buf[head.clone()]) {
        return Corruption {
            kind: CorruptionKind::DataCorrupt,
            offset: at(first),
            detail: format!(
                "{differ} of {} bytes differ from what was written, the header among them",
                v.interval
            ),
        };
    }
    Corruption {
        kind: CorruptionKind::LostWrite,
        offset: at(start),
        detail: "holds data without a fio verify header: this write never reached it".into(),
    }
}

/// The header the interval at byte `start` of `exp` (the bytes the block
/// should hold, made by `Verifier::fill_interval`) carries: the write it
/// was made for, whoever's seed that is.
fn wanted(v: &Verifier, exp: &[u8], start: usize) -> Header {
    fio_header::read_unchecked(&exp[start + v.header_at..])
        .expect("the bytes made for a write carry its header")
}

/// A block of verify=pattern.
pub fn pattern(tile: &PatternTile, buf: &[u8], block: &BlockId) -> Corruption {
    let len = buf.len();
    let at = |pos: usize| block.offset + pos as u64;
    // With %o the block says which offset its pattern was laid for.
    if let Some(o) = tile.first_offset().filter(|o| o + 8 <= len) {
        let there = u64::from_le_bytes(buf[o..o + 8].try_into().expect("8 bytes"));
        if there != block.offset && tile.matches_block(buf, there) {
            return Corruption {
                kind: CorruptionKind::Misdirected,
                offset: at(0),
                detail: format!("holds the pattern meant for offset {there}"),
            };
        }
    }
    if is_zero(buf) {
        return Corruption {
            kind: CorruptionKind::LostWrite,
            offset: at(0),
            detail: "reads back zeroes: never written".into(),
        };
    }
    let mut exp = vec![0u8; len];
    tile.fill_block(&mut exp, block.offset, len, 0);
    let first =
        first_difference(buf, &exp).expect("a block that fails its check differs from the pattern");
    let bits = differing_bits(buf, &exp);
    if bits <= FEW_BITS {
        return bit_flip(buf, &exp, first, bits, at(0), false);
    }
    let tear = first / SECTOR * SECTOR;
    if tear > 0 && is_foreign(&buf[tear..], &exp[tear..]) {
        let rest = if is_zero(&buf[tear..]) {
            "reads back zeroes"
        } else {
            "holds other data"
        };
        return Corruption {
            kind: CorruptionKind::Torn,
            offset: at(tear),
            detail: format!("the first {tear} of {len} bytes are this write's; the rest {rest}"),
        };
    }
    Corruption {
        kind: CorruptionKind::PatternMismatch,
        offset: at(first),
        detail: format!(
            "{} of {len} bytes differ from verify_pattern, the first reads {:#04x} where {:#04x} was written",
            differing_bytes(buf, &exp),
            buf[first],
            exp[first]
        ),
    }
}

/// A valid header of some other write, found where `want` should be.
pub(super) fn other_write(v: &Verifier, found: &Header, want: &Header, offset: u64) -> Corruption {
    let other_file = (found.seed != want.seed)
        .then(|| v.file_of(found.seed))
        .flatten()
        .filter(|_| {
            found.same_job(&Header {
                seed: found.seed,
                ..*want
            })
        });
    let (kind, detail) = if let Some(file) = other_file {
        (
            CorruptionKind::Misdirected,
            format!(
                "holds the write meant for file #{file} offset {} (write #{})",
                found.offset, found.seq
            ),
        )
    } else if !found.same_job(want) {
        (
            CorruptionKind::LostWrite,
            format!(
                "holds a block of another job, run or file (verify={}, seed {:#x}, offset {}, write #{}): this write never reached it",
                header::method_name(found.method),
                found.seed,
                found.offset,
                found.seq
            ),
        )
    } else if found.offset != want.offset {
        (
            CorruptionKind::Misdirected,
            format!(
                "holds the write meant for offset {} (write #{})",
                found.offset, found.seq
            ),
        )
    } else if found.seq < want.seq {
        (
            CorruptionKind::Stale,
            format!(
                "holds write #{}; write #{} of this block was lost",
                found.seq, want.seq
            ),
        )
    } else {
        (
            CorruptionKind::Stale,
            format!(
                "holds write #{}, newer than write #{} it was checked for",
                found.seq, want.seq
            ),
        )
    };
    Corruption {
        kind,
        offset,
        detail,
    }
}

/// Whether everything from `tear` on is not this write's: each interval's
/// part of it reads zeroes, differs in most of its words, or carries the
/// header of another write.
fn tail_is_foreign(v: &Verifier, buf: &[u8], exp: &[u8], tear: usize) -> bool {
    let mut pos = tear;
    while pos < buf.len() {
        let start = pos / v.interval * v.interval;
        let end = start + v.interval;
        let head = start + v.header_at;
        let other_header = pos <= head
            && fio_header::read(&buf[head..end]).is_some_and(|h| h != wanted(v, exp, start));
        if !(other_header || is_foreign(&buf[pos..end], &exp[pos..end])) {
            return false;
        }
        pos = end;
    }
    true
}

fn torn(v: &Verifier, buf: &[u8], exp: &[u8], tear: usize, block: &BlockId) -> Corruption {
    let len = buf.len();
    // The first header wholly past the tear may name the write found there.
    let next = tear.div_ceil(v.interval) * v.interval;
    let older = (next < len)
        .then(|| fio_header::read(&buf[next + v.header_at..next + v.interval]))
        .flatten()
        .filter(|h| {
            let want = wanted(v, exp, next);
            h.same_job(&want) && h.offset == want.offset && h.seq != want.seq
        });
    let rest = match older {
        _ if is_zero(&buf[tear..]) => "reads back zeroes".to_string(),
        Some(h) => format!("holds write #{}", h.seq),
        None => "holds other data".to_string(),
    };
    Corruption {
        kind: CorruptionKind::Torn,
        offset: block.offset + tear as u64,
        detail: format!("the first {tear} of {len} bytes are this write's; the rest {rest}"),
    }
}

fn bit_flip(
    buf: &[u8],
    exp: &[u8],
    first: usize,
    bits: u64,
    block_offset: u64,
    in_header: bool,
) -> Corruption {
    let bit = (buf[first] ^ exp[first]).trailing_zeros();
    let offset = block_offset + first as u64;
    let (plural, verb) = if bits == 1 {
        ("", "differs")
    } else {
        ("s", "differ")
    };
    let place = if in_header { " (in the header)" } else { "" };
    Corruption {
        kind: CorruptionKind::BitFlip,
        offset,
        detail: format!(
            "{bits} bit{plural} {verb} from what was written, the first is bit {bit} of the byte at offset {offset}{place}"
        ),
    }
}

/// Zeroes, or more than half of the 8-byte words differ: not a few bad
/// bytes in this write, but another write or none.
fn is_foreign(got: &[u8], want: &[u8]) -> bool {
    if is_zero(got) {
        return true;
    }
    let words = got.len() / 8;
    if words == 0 {
        return got != want;
    }
    let differ = got
        .chunks_exact(8)
        .zip(want.chunks_exact(8))
        .filter(|(a, b)| a != b)
        .count();
    differ * 2 > words
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    // Whole runs first: slice equality is a memcmp.
    const RUN: usize = 256;
    let run = a.chunks(RUN).zip(b.chunks(RUN)).position(|(x, y)| x != y)?;
    let s = run * RUN;
    a[s..]
        .iter()
        .zip(&b[s..])
        .position(|(x, y)| x != y)
        .map(|i| s + i)
}

fn differing_bits(a: &[u8], b: &[u8]) -> u64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| u64::from((x ^ y).count_ones()))
        .sum()
}

fn differing_bytes(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}
