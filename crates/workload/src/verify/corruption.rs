//! What a bad block was found to hold, in words a user can act on.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corruption {
    pub kind: CorruptionKind,
    /// File offset of the first bad byte (or the bad interval).
    pub offset: u64,
    /// What was found, in words, e.g. "holds the write meant for offset
    /// 12288 (write #17)".
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorruptionKind {
    /// The block holds a write meant for another place.
    Misdirected,
    /// The block holds another write of the same place: an older one (the
    /// expected write was lost) or a newer one.
    Stale,
    /// The write never reached the block: zeroes, or data with no header
    /// of this job.
    LostWrite,
    /// The block starts with this write and ends with something else.
    Torn,
    /// A few bits differ from what was written.
    BitFlip,
    /// The header is damaged, the data intact.
    HeaderDamaged,
    /// The data differs from what was written, the header says it is this write.
    DataCorrupt,
    /// verify=pattern: the block does not hold verify_pattern.
    PatternMismatch,
    /// trim_verify_zero: a trimmed block reads back something else.
    NotZeroed,
    /// The block holds a whole header for its place, written with other
    /// verify options (method, interval): it cannot be checked as asked.
    OtherLayout,
}

impl CorruptionKind {
    pub fn name(self) -> &'static str {
        match self {
            CorruptionKind::Misdirected => "misdirected write",
            CorruptionKind::Stale => "stale data",
            CorruptionKind::LostWrite => "lost write",
            CorruptionKind::Torn => "torn write",
            CorruptionKind::BitFlip => "bit flip",
            CorruptionKind::HeaderDamaged => "damaged header",
            CorruptionKind::DataCorrupt => "corrupt data",
            CorruptionKind::PatternMismatch => "pattern mismatch",
            CorruptionKind::NotZeroed => "trimmed block not zeroed",
            CorruptionKind::OtherLayout => "written with other verify options",
        }
    }
}

impl fmt::Display for Corruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at offset {}: {}",
            self.kind.name(),
            self.offset,
            self.detail
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_kind_offset_and_detail() {
        let c = Corruption {
            kind: CorruptionKind::Misdirected,
            offset: 8192,
            detail: "holds the write meant for offset 12288 (write #17)".into(),
        };
        assert_eq!(
            c.to_string(),
            "misdirected write at offset 8192: holds the write meant for offset 12288 (write #17)"
        );
    }
}
