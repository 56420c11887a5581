//! `serialize_overlap`: no I/O is issued while one it overlaps is in
//! flight (fio's in_flight_overlap, backend.c).

use super::fill::Slot;

/// Whether `offset..offset+len` overlaps an I/O in flight: every slot but
/// `this` and the free ones. fio compares the offsets alone, whatever the
/// file, and so does this.
pub(super) fn overlaps(slots: &[Slot], free: &[u32], this: u32, offset: u64, len: u32) -> bool {
    let end = offset + u64::from(len);
    slots.iter().enumerate().any(|(i, s)| {
        let i = i as u32;
        i != this
            && s.op.is_some()
            && !free.contains(&i)
            && offset < s.offset + u64::from(s.len)
            && s.offset < end
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(offset: u64, len: u32) -> Slot {
        Slot {
            op: Some(ioscope_engine::Op::Write),
            offset,
            len,
            ..Slot::default()
        }
    }

    #[test]
    fn only_in_flight_ranges_that_meet_overlap() {
        let slots = [slot(0, 4096), slot(8192, 4096), slot(4096, 4096)];
        // Slot 2 is the one being issued; slot 0 is in flight.
        assert!(overlaps(&slots, &[1], 2, 4095, 2));
        // Touching ends do not overlap, as fio's x1 < y2 && y1 < x2.
        assert!(!overlaps(&slots, &[1], 2, 4096, 4096));
        // A free slot's old range does not count.
        assert!(!overlaps(&slots, &[1], 2, 8192, 512));
        assert!(overlaps(&slots, &[], 2, 8192, 512));
    }
}
