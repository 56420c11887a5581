//! `buffer_pattern` laid over a buffer: the pattern repeated from the
//! buffer's start, its `%o` slots holding the write's file offset in every
//! repetition (native endian, as fio pastes the offset into verify
//! patterns; a slot cut by the buffer's end keeps its leading bytes).

use ioscope_job::Pattern;

/// Bytes of whole repetitions kept ready to copy, so that a one-byte
/// pattern is not laid down a byte at a time.
const UNIT_BYTES: usize = 4096;

pub(super) struct PatternFill {
    /// The pattern repeated a whole number of times, at least `UNIT_BYTES`
    /// long, its slots holding the offset of the last fill.
    unit: Vec<u8>,
    /// Bytes of one repetition.
    len: usize,
    /// `%o` positions in one repetition, ascending.
    slots: Vec<usize>,
}

impl PatternFill {
    pub(super) fn new(pattern: &Pattern) -> PatternFill {
        let len = pattern.bytes.len().max(1);
        let reps = UNIT_BYTES.div_ceil(len);
        let mut unit = Vec::with_capacity(reps * len);
        for _ in 0..reps {
            unit.extend_from_slice(&pattern.bytes);
        }
        // The job crate refuses empty patterns; a zero byte keeps a
        // hand-made one from dividing by zero.
        unit.resize(reps * len, 0);
        let mut slots = pattern.offsets.clone();
        slots.sort_unstable();
        // The parser gives every slot its 8 bytes; a slot without them
        // could not be pasted whole into a repetition.
        slots.retain(|&s| s + 8 <= len);
        PatternFill { unit, len, slots }
    }

    /// Whether the pattern has `%o` slots, which change with every write.
    pub(super) fn has_offsets(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Fills `buf` with the pattern, its slots holding `offset`.
    pub(super) fn fill(&mut self, buf: &mut [u8], offset: u64) {
        self.set_offset(offset);
        self.copy_into(buf);
    }

    /// Sets the slots of the ready-made repetitions to `offset`, for
    /// [`PatternFill::copy_into`] to lay down.
    pub(super) fn set_offset(&mut self, offset: u64) {
        if self.has_offsets() {
            paste_slots(&mut self.unit, self.len, &self.slots, offset);
        }
    }

    /// Lays the pattern over `buf` from its first byte, as it stands after
    /// the last [`PatternFill::set_offset`].
    pub(super) fn copy_into(&self, buf: &mut [u8]) {
        for piece in buf.chunks_mut(self.unit.len()) {
            piece.copy_from_slice(&self.unit[..piece.len()]);
        }
    }

    /// Rewrites only the `%o` slots of a buffer that already holds the
    /// pattern: a few bytes per repetition instead of the whole buffer.
    pub(super) fn paste_offsets(&self, buf: &mut [u8], offset: u64) {
        paste_slots(buf, self.len, &self.slots, offset);
    }
}

/// Writes `offset` at every slot of every `len`-byte repetition in `buf`.
#[inline]
fn paste_slots(buf: &mut [u8], len: usize, slots: &[usize], offset: u64) {
    let value = offset.to_ne_bytes();
    let mut reps = buf.chunks_exact_mut(len);
    // Every slot lies inside its repetition (the parser gives it 8 bytes).
    for rep in &mut reps {
        for &s in slots {
            rep[s..s + 8].copy_from_slice(&value);
        }
    }
    // The repetition cut by the buffer's end keeps what fits of each slot.
    let rep = reps.into_remainder();
    for &s in slots {
        let Some(room) = rep.len().checked_sub(s).filter(|&r| r > 0) else {
            // Slots ascend: none of the rest fits either.
            break;
        };
        let n = room.min(8);
        rep[s..s + n].copy_from_slice(&value[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(bytes: &[u8], offsets: &[usize]) -> PatternFill {
        PatternFill::new(&Pattern {
            bytes: bytes.to_vec(),
            offsets: offsets.to_vec(),
        })
    }

    /// What a buffer of `n` bytes must hold: `bytes` repeated, each slot
    /// of each repetition holding `offset` (cut at the buffer's end).
    fn expected(bytes: &[u8], offsets: &[usize], n: usize, offset: u64) -> Vec<u8> {
        let mut rep = bytes.to_vec();
        for &s in offsets {
            rep[s..s + 8].copy_from_slice(&offset.to_ne_bytes());
        }
        rep.iter().copied().cycle().take(n).collect()
    }

    #[test]
    fn the_pattern_repeats_from_the_start_and_is_cut_at_the_end() {
        let mut p = pattern(b"abc", &[]);
        assert!(!p.has_offsets());
        // Lengths that are not multiples of 3, and one past the ready unit.
        for n in [1, 2, 100, 4097, 3 * 4096 + 1] {
            let mut buf = vec![0u8; n];
            p.fill(&mut buf, 12345);
            assert_eq!(buf, expected(b"abc", &[], n, 0), "{n} bytes");
        }
    }

    #[test]
    fn offsets_land_in_every_repetition() {
        // 0xaa, then %o, then 0xbb 0xcc: 11 bytes, the slot at 1.
        let bytes = [0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0xbb, 0xcc];
        let mut p = pattern(&bytes, &[1]);
        assert!(p.has_offsets());
        for n in [5, 11, 512, 4096 + 7, 70_000] {
            let mut buf = vec![0u8; n];
            let offset = 0x0102_0304_0506_0708 + n as u64;
            p.fill(&mut buf, offset);
            assert_eq!(buf, expected(&bytes, &[1], n, offset), "{n} bytes");
            // Only the slots change from one write to the next.
            let next = offset + (1 << 40);
            p.paste_offsets(&mut buf, next);
            assert_eq!(buf, expected(&bytes, &[1], n, next), "{n} bytes");
        }
    }

    #[test]
    fn several_slots_and_a_slot_cut_by_the_end() {
        // %o 0xdeadbeef %o: 20 bytes, slots at 0 and 12.
        let mut bytes = vec![0u8; 20];
        bytes[8..12].copy_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        let mut p = pattern(&bytes, &[12, 0]);
        // 20 + 15 bytes: the second repetition's second slot keeps 3 bytes.
        let mut buf = vec![0u8; 35];
        p.fill(&mut buf, u64::MAX - 1);
        assert_eq!(buf, expected(&bytes, &[0, 12], 35, u64::MAX - 1));
        assert_eq!(&buf[32..35], &(u64::MAX - 1).to_ne_bytes()[..3]);
        p.paste_offsets(&mut buf, 7);
        assert_eq!(buf, expected(&bytes, &[0, 12], 35, 7));
    }

    #[test]
    fn copy_into_starts_every_piece_at_the_pattern_start() {
        let mut p = pattern(&[1, 2, 3, 4, 5, 6, 7, 8, 9], &[1]);
        p.set_offset(0x1111);
        let mut a = vec![0u8; 13];
        let mut b = vec![0u8; 5];
        p.copy_into(&mut a);
        p.copy_into(&mut b);
        assert_eq!(a, expected(&[1, 2, 3, 4, 5, 6, 7, 8, 9], &[1], 13, 0x1111));
        assert_eq!(b[..], a[..5]);
    }
}
