//! Where a job's I/Os go, beyond the pattern `rw` names: the random
//! distribution, the share of random I/O, sequential holes and backwards
//! I/O, block alignment and the seeds that fix them (fio's
//! `random_distribution`, `percentage_random`, `rw=read:N`,
//! `rw_sequencer`, `blockalign`, `bs_unaligned`, `bs_is_seq_rand`,
//! `offset_align`, `allrandrepeat`, `sprandom`).

use crate::spec::{JobSpec, PerDir};

/// fio's `random_distribution`, with its parameters as fio keeps them.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    /// Uniform (`random`), the default.
    Random,
    /// `zipf:theta[:center]`.
    Zipf { theta: f64, center: Option<f64> },
    /// `pareto:h[:center]`.
    Pareto { h: f64, center: Option<f64> },
    /// `normal:dev[:center]` (fio's gauss), the deviation a percentage.
    Normal { dev: f64, center: Option<f64> },
    /// `zoned:access/size:...`, per direction, sizes in percent.
    Zoned(PerDir<Vec<ZoneSplit>>),
    /// `zoned_abs:access/size:...`, per direction, sizes in bytes.
    ZonedAbs(PerDir<Vec<ZoneSplit>>),
}

/// One zone of a zoned distribution: `access` percent of the I/Os go to
/// the next `size` (percent of the file for `zoned`, bytes for
/// `zoned_abs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneSplit {
    pub access: u32,
    pub size: u64,
}

/// fio's `rw_sequencer`: what the I/Os between two random ones of
/// `rw=randread:N` do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwSequencer {
    /// Carry on from the last I/O.
    Sequential,
    /// Repeat the last I/O's offset.
    Identical,
}

/// `sprandom`'s parameters (fio 3.41): `spr_num_regions`, `spr_op` and
/// `spr_cs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpRandomSpec {
    /// `spr_num_regions`: the equal regions the device is written in.
    pub regions: u32,
    /// `spr_op`: the device's over-provisioning, in (0, 1).
    pub op: f64,
    /// `spr_cs`: the device's cache in bytes; 0 for none.
    pub cache: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub distribution: Distribution,
    /// `percentage_random`: per direction, the percent of a random job's
    /// I/Os that are random (the others sequential).
    pub percentage_random: PerDir<u32>,
    pub rw_sequencer: RwSequencer,
    /// `rw=read:N` on a sequential pattern: bytes skipped after each I/O
    /// (negative: the I/O moves backwards). fio's `ddir_seq_add`.
    pub seq_add: i64,
    /// `blockalign`: per direction, what random offsets are multiples of;
    /// 0 for the direction's minimum block size.
    pub blockalign: PerDir<u64>,
    /// `bs_unaligned`: random block sizes need not be multiples of the
    /// minimum block size.
    pub bs_unaligned: bool,
    /// `bs_is_seq_rand`: the read block size is for sequential I/Os and
    /// the write one for random I/Os, whatever their direction.
    pub bs_is_seq_rand: bool,
    /// `offset_align`: what an offset given as a percentage is rounded up
    /// to; None for the minimum block size.
    pub offset_align: Option<u64>,
    /// `allrandrepeat`: every generator (not only the offset one) seeded
    /// the repeatable way.
    pub allrandrepeat: bool,
    /// A `randseed` was given while `randrepeat` stayed on: fio seeds
    /// before the given seed turns `randrepeat` off, so the offset
    /// generator keeps fio's fixed repeatable seed then.
    pub randseed_keeps_offsets: bool,
    /// Every seed is drawn from `randseed`, as fio 3.35 and later draw
    /// them (no option: set for a `verify_only` run that replays the
    /// state such a fio saved, so that it finds the blocks that fio wrote).
    pub fio_335_seeds: bool,
    /// `sprandom`: random writes precondition an SSD in one pass of its
    /// physical capacity (see the workload's `sprandom`).
    pub sprandom: bool,
    pub spr: SpRandomSpec,
}

impl Placement {
    /// fio's defaults: what a job that sets none of these does.
    pub fn fio_default() -> Placement {
        Placement {
            distribution: Distribution::Random,
            percentage_random: PerDir::all(100),
            rw_sequencer: RwSequencer::Sequential,
            seq_add: 0,
            blockalign: PerDir::all(0),
            bs_unaligned: false,
            bs_is_seq_rand: false,
            offset_align: None,
            allrandrepeat: false,
            randseed_keeps_offsets: false,
            fio_335_seeds: false,
            sprandom: false,
            spr: SpRandomSpec {
                regions: 100,
                op: 0.15,
                cache: 0,
            },
        }
    }
}

/// fio's fixups (init.c `fixup_options`): `blockalign` counts for random
/// patterns only; a distribution other than `random`, or an alignment
/// other than the block size, turns the random map off.
pub(crate) fn fix_up(spec: &mut JobSpec) {
    let p = &mut spec.placement;
    if !spec.rw.kind.is_random() {
        p.blockalign = PerDir::all(0);
    }
    let bs = &spec.bs;
    let ba = &p.blockalign;
    let odd_align = [
        (ba.read, bs.read.min()),
        (ba.write, bs.write.min()),
        (ba.trim, bs.trim.min()),
    ]
    .iter()
    .any(|&(a, m)| a != 0 && a != m);
    if odd_align || p.distribution != Distribution::Random {
        spec.norandommap = true;
    }
}
