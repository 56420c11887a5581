//! `sprandom` (fio 3.41's sprandom.c): preconditioning an SSD for
//! steady-state random writes in one pass. The device's physical capacity
//! (`size` plus `spr_op` of it) is written once, in equal regions whose
//! share of overwritten (invalid) blocks follows the steady-state curve of
//! Desnoyers' model, so the drive's garbage collector finds what it would
//! find after hours of random writes.
//!
//! The offsets are the file's LFSR (each block once); a drawn share of
//! each region's blocks, growing region by region, is written again at the
//! start of the next region (or, with `spr_cs`, at the end of the next, so
//! the two writes never meet in the device's cache). Every step is fio's,
//! in the same floating-point order, so the writes are fio's.

use std::collections::VecDeque;

use ioscope_job::SpRandomSpec;

use crate::lfsr::Lfsr;
use crate::rand::FioRand;

/// Invalid shares are drawn in ten-thousandths.
const PCT_PRECISION: u64 = 10_000;

/// fio's `sprandom_physical_size`: `logical` plus `op` of it (in
/// doubles, as fio adds them), down to a multiple of `align`.
fn physical_size(op: f64, logical: u64, align: u64) -> u64 {
    let size = (logical as f64 + (logical as f64 * op).ceil()) as u64;
    size - size % align.max(1)
}

/// The offsets of one file's `sprandom` pass.
#[derive(Clone, Debug)]
pub(crate) struct SpRandom {
    regions: u32,
    cache: bool,
    /// Per region, the share of its writes to invalidate later, in
    /// ten-thousandths.
    invalid_pct: Vec<u64>,
    /// fio's two-phase buffer: the blocks to write again, of which the
    /// first `visible` are committed (the earlier region's).
    again: VecDeque<u64>,
    visible: usize,
    invalid_count: [u64; 2],
    region: u32,
    phase: usize,
    region_writes: u64,
    writes_left: u64,
    rand: FioRand,
}

impl SpRandom {
    /// The pass over a file of `logical` bytes written in blocks of
    /// `align`, its draws seeded with `seed` (fio's
    /// FIO_RAND_SPRANDOM_OFF); fio's `sprandom_setup`.
    /// Also the bytes the pass writes (fio's new `io_size`).
    pub(crate) fn new(
        spec: &SpRandomSpec,
        logical: u64,
        align: u64,
        seed: u64,
    ) -> Result<(SpRandom, u64), String> {
        if spec.regions == 0 {
            return Err("sprandom requires at least one region (spr_num_regions)".into());
        }
        let physical = physical_size(spec.op, logical, align);
        let validity = validity_distribution(spec.regions as usize, spec.op);
        let invalid_pct = validity
            .iter()
            .map(|v| ((1.0 - v) * PCT_PRECISION as f64).round() as u64)
            .collect();
        let region_size = physical / u64::from(spec.regions);
        if spec.cache > region_size {
            return Err(format!(
                "sprandom: spr_cs [{}] must be smaller than region_sz [{region_size}] which means [{}] regions allowed",
                spec.cache,
                physical / spec.cache
            ));
        }
        let s = SpRandom {
            regions: spec.regions,
            cache: spec.cache > 0,
            invalid_pct,
            again: VecDeque::new(),
            visible: 0,
            invalid_count: [0; 2],
            region: 0,
            phase: 0,
            region_writes: region_size / align.max(1),
            writes_left: region_size / align.max(1),
            rand: FioRand::new(seed, false),
        };
        Ok((s, physical))
    }

    /// The next block to write (fio's `sprandom_get_next_offset`), or None
    /// when the pass is over, which ends the job.
    pub(crate) fn next(&mut self, lfsr: &mut Lfsr) -> Option<u64> {
        let mut phase = self.phase;
        if !self.cache {
            // The last region's chosen blocks go first in this one.
            if let Some(b) = self.pop() {
                self.maybe_again(b, phase ^ 1);
                return Some(b);
            }
        }
        if self.writes_left == 0 {
            if self.cache {
                // Or, past the cache, at the end of this one.
                if let Some(b) = self.pop() {
                    self.maybe_again(b, phase ^ 1);
                    return Some(b);
                }
            }
            if self.region >= self.regions {
                return None;
            }
            self.invalid_count[phase] = 0;
            self.region += 1;
            phase ^= 1;
            // fio's unsigned arithmetic, which wraps.
            self.writes_left = self.region_writes.wrapping_sub(self.invalid_count[phase]);
            self.phase = phase;
            self.visible = self.again.len();
        }
        let Some(b) = lfsr.next() else {
            return if self.cache { self.pop() } else { None };
        };
        self.writes_left = self.writes_left.saturating_sub(1);
        self.maybe_again(b, phase ^ 1);
        Some(b)
    }

    fn pop(&mut self) -> Option<u64> {
        if self.visible == 0 {
            return None;
        }
        self.visible -= 1;
        self.again.pop_front()
    }

    /// fio's `sprandom_add_with_probability`: block `b` is written again
    /// later with the current region's share. (Past the last region fio
    /// reads beyond its array; none is chosen here.)
    fn maybe_again(&mut self, b: u64, phase: usize) {
        let v = self.rand.between(0, PCT_PRECISION);
        let pct = self
            .invalid_pct
            .get(self.region as usize)
            .copied()
            .unwrap_or(0);
        if v <= pct {
            // fio's buffer holds six standard deviations more than the
            // expected share, and aborts past it; this one grows.
            self.again.push_back(b);
            self.invalid_count[phase] += 1;
        }
    }
}

/// fio's `compute_validity_dist`: each of `n` equal regions' share of
/// valid blocks at steady state, for over-provisioning `op`, highest
/// invalidity first.
fn validity_distribution(n: usize, op: f64) -> Vec<f64> {
    let waf = 0.5 / op + 0.7;
    let gc_validity = 1.0 - 1.0 / waf;
    let validity = linspace(1.0, gc_validity, n);
    let mut acc = 0.0;
    let xs: Vec<f64> = validity
        .iter()
        .map(|v| {
            acc += 1.0 / v;
            acc
        })
        .collect();
    let mut out: Vec<f64> = linspace(xs[0], xs[n - 1], n)
        .into_iter()
        .map(|x| interpolate(x, &xs, &validity))
        .collect();
    out.reverse();
    out
}

/// fio's `linspace`: `num` values from `start` to `end`, both included.
fn linspace(start: f64, end: f64, num: usize) -> Vec<f64> {
    if num == 1 {
        return vec![start];
    }
    let step = (end - start) / (num as f64 - 1.0);
    (0..num).map(|i| start + i as f64 * step).collect()
}

/// fio's `linear_interp`: `y` at `x` on the polyline `xs`/`ys`, its ends
/// beyond them.
fn interpolate(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let last = xs.len() - 1;
    if last == 0 || x <= xs[0] {
        return ys[0];
    }
    if x >= xs[last] {
        return ys[last];
    }
    for i in 0..last {
        let (x1, x2) = (xs[i], xs[i + 1]);
        if x >= x1 && x <= x2 {
            if (x2 - x1).abs() < 1e-9 {
                return ys[i];
            }
            return ys[i] + (ys[i + 1] - ys[i]) * ((x - x1) / (x2 - x1));
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_falls_to_the_collected_blocks_share() {
        // op 0.15: WAF 0.5/0.15 + 0.7 = 4.0333, so the block the collector
        // takes is 1 - 1/WAF = 75.2% valid; the regions run from that (the
        // first, most invalidated) up to all valid.
        let v = validity_distribution(4, 0.15);
        let gc = 1.0 - 1.0 / (0.5 / 0.15 + 0.7);
        assert_eq!(v.len(), 4);
        assert!((v[0] - gc).abs() < 1e-12, "{v:?}");
        assert_eq!(v[3], 1.0);
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
        assert_eq!(validity_distribution(1, 0.15), vec![1.0]);
    }

    #[test]
    fn physical_size_adds_the_over_provisioning_in_whole_blocks() {
        // fio: 1 MiB + ceil(157286.4) = 1205863, down to 4 KiB blocks.
        assert_eq!(physical_size(0.15, 1 << 20, 4096), 294 * 4096);
        assert_eq!(physical_size(0.5, 8192, 4096), 12288);
    }

    #[test]
    fn every_block_is_written_and_some_again() {
        let spec = SpRandomSpec {
            regions: 4,
            op: 0.15,
            cache: 0,
        };
        let blocks = 256;
        let mut lfsr = Lfsr::new(blocks, 7).unwrap();
        let (mut s, physical) = SpRandom::new(&spec, blocks * 4096, 4096, 11).unwrap();
        assert_eq!(physical, physical_size(0.15, blocks * 4096, 4096));
        let mut writes = vec![0u32; blocks as usize];
        while let Some(b) = s.next(&mut lfsr) {
            writes[b as usize] += 1;
        }
        assert!(writes.iter().all(|&w| w >= 1), "each block once at least");
        let again = writes.iter().filter(|&&w| w > 1).count();
        assert!(again > 0 && again < blocks as usize / 2, "{again}");
        let big = SpRandomSpec {
            cache: 1 << 30,
            ..spec
        };
        let e = SpRandom::new(&big, 1 << 20, 4096, 1).unwrap_err();
        assert!(
            e.contains("spr_cs [1073741824] must be smaller than region_sz [301056]"),
            "{e}"
        );
        let none = SpRandomSpec { regions: 0, ..spec };
        assert!(SpRandom::new(&none, 1 << 20, 4096, 1).is_err());
    }
}
