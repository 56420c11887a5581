//! The job-wide state behind where random I/Os go, beyond uniform
//! offsets: the zoned distributions' zone choice and `percentage_random`'s
//! choice between a random and a sequential I/O (io_u.c
//! `__get_next_rand_offset_zoned*`, `should_do_random`).

use ioscope_job::{Distribution, JobSpec};

use crate::distribution::ZoneIndex;
use crate::rand::{seed_slot, FioRand};

/// A zoned distribution: which zone each I/O of a direction falls in.
#[derive(Clone, Debug)]
pub struct Zoned {
    /// Sizes in bytes (`zoned_abs`) rather than percent (`zoned`).
    pub absolute: bool,
    index: [Option<ZoneIndex>; 3],
    rand: FioRand,
}

impl Zoned {
    pub fn new(spec: &JobSpec, seeds: &[u64; seed_slot::COUNT]) -> Option<Zoned> {
        let (absolute, splits) = match &spec.placement.distribution {
            Distribution::Zoned(z) => (false, z),
            Distribution::ZonedAbs(z) => (true, z),
            _ => return None,
        };
        Some(Zoned {
            absolute,
            index: ZoneIndex::per_dir(splits),
            // fio's zone_state: a 32-bit generator whatever the job's.
            rand: FioRand::new(seeds[seed_slot::ZONE], false),
        })
    }

    /// The zone of the next I/O in direction `d`, as (start, end) in
    /// percent or bytes; None when the direction has no zones (its
    /// offsets are uniform then).
    #[inline]
    pub fn next_zone(&mut self, d: usize) -> Option<(u64, u64)> {
        let index = self.index[d].as_ref()?;
        Some(index.zone(self.rand.between(1, 100)))
    }
}

/// `percentage_random` below 100: per direction, whether the next I/O of
/// a random job is random.
#[derive(Clone, Debug)]
pub struct SeqRandMix {
    percent: [u32; 3],
    rand: [FioRand; 3],
}

impl SeqRandMix {
    pub fn new(spec: &JobSpec, seeds: &[u64; seed_slot::COUNT]) -> Option<SeqRandMix> {
        let p = &spec.placement.percentage_random;
        let percent = [p.read, p.write, p.trim];
        if percent.iter().all(|&p| p == 100) {
            return None;
        }
        // fio seeds all three from the read slot (init.c).
        let r = FioRand::new(seeds[seed_slot::SEQ_RAND_READ], false);
        Some(SeqRandMix {
            percent,
            rand: [r.clone(), r.clone(), r],
        })
    }

    /// fio's `should_do_random`.
    #[inline]
    pub fn random(&mut self, d: usize) -> bool {
        if self.percent[d] == 100 {
            return true;
        }
        self.rand[d].between(1, 100) <= u64::from(self.percent[d])
    }
}
