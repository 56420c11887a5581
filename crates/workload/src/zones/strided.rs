//! `zonemode=strided`, fio's `setup_strided_zone_mode` (io_u.c): I/O stays
//! in a zone of `zonerange` bytes until `zonesize` bytes were transferred,
//! then moves `zonerange + zoneskip` bytes on, wrapping to the job's start
//! offset at the file's end. Offsets inside a zone are the job's own
//! (sequential or random), relative to the zone's start.

use ioscope_job::{JobSpec, ZoneMode};

/// Where a file's zone walk stands; the generator's file state holds the
/// zone start (fio's `file_offset`) and the positions.
pub(crate) struct ZoneView<'a> {
    /// The current zone's start (fio's `f->file_offset`), absolute.
    pub start: &'a mut u64,
    /// The end of the last I/O in this direction (fio's `last_pos`).
    pub last_pos: &'a mut u64,
    /// The job's start offset in the file (fio's `get_start_offset`).
    pub origin: u64,
    /// The file's size (fio's `real_file_size`).
    pub real: u64,
}

/// The strided walk of one worker (fio keeps `zone_bytes` per thread).
#[derive(Clone, Debug)]
pub(crate) struct Strided {
    size: u64,
    range: u64,
    skip: u64,
    /// Bytes transferred in the current zone (fio's `td->zone_bytes`).
    bytes: u64,
}

impl Strided {
    /// The walk `spec` asks for; None unless `zonemode=strided` (the job
    /// step has given `zonerange` its default and checked `zonesize`).
    pub(crate) fn of(spec: &JobSpec) -> Option<Strided> {
        let z = &spec.zones;
        (z.mode == ZoneMode::Strided && z.size > 0 && z.range > 0).then_some(Strided {
            size: z.size,
            range: z.range,
            skip: z.skip,
            bytes: 0,
        })
    }

    /// The bytes random offsets range over: one zone.
    pub(crate) fn range(&self) -> u64 {
        self.range
    }

    /// Before an I/O's offset is chosen: moves to the next zone when this
    /// one has had its bytes, keeps a position that ran past the zone's
    /// range inside it, and says whether the file's positions and random
    /// map start over (fio's `fio_file_reset` at each `zonerange` bytes).
    #[inline]
    pub(crate) fn before(&mut self, v: ZoneView) -> bool {
        if self.bytes >= self.size {
            self.bytes = 0;
            *v.start += self.range + self.skip;
            if *v.start >= v.real {
                *v.start = v.origin;
            }
            *v.last_pos = *v.start;
        }
        // zonesize above zonerange: the same zone again until zonesize.
        if *v.last_pos >= *v.start + self.range {
            *v.last_pos = *v.start;
        }
        self.bytes.is_multiple_of(self.range)
    }

    /// After an I/O of `len` bytes was chosen.
    #[inline]
    pub(crate) fn issued(&mut self, len: u64) {
        self.bytes += len;
    }

    /// A new pass (fio's `reset_io_counters` at each loop).
    pub(crate) fn restart(&mut self) {
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(size: u64, range: u64, skip: u64) -> Strided {
        Strided {
            size,
            range,
            skip,
            bytes: 0,
        }
    }

    /// Drives the walk with sequential I/Os of `bs`, as fio's fill does.
    fn offsets(mut s: Strided, origin: u64, real: u64, bs: u64, n: usize) -> Vec<u64> {
        let (mut start, mut last) = (origin, origin);
        let mut out = Vec::new();
        for _ in 0..n {
            let reset = s.before(ZoneView {
                start: &mut start,
                last_pos: &mut last,
                origin,
                real,
            });
            if reset {
                last = start;
            }
            out.push(last / 1024);
            last += bs;
            s.issued(bs);
        }
        out
    }

    #[test]
    fn zones_follow_fios_walk() {
        // fio 3.33: size=4m bs=256k zonesize=1m zonerange=512k zoneskip=1m.
        assert_eq!(
            offsets(walk(1 << 20, 512 << 10, 1 << 20), 0, 4 << 20, 256 << 10, 8),
            [0, 256, 0, 256, 1536, 1792, 1536, 1792]
        );
        // zonesize=256k zoneskip=512k wraps to the start at the file's end.
        assert_eq!(
            offsets(
                walk(256 << 10, 256 << 10, 512 << 10),
                0,
                4 << 20,
                256 << 10,
                8
            ),
            [0, 768, 1536, 2304, 3072, 3840, 0, 768]
        );
    }
}
