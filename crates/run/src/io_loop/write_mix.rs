//! io_uring_cmd's `write_mode`: the NVMe command each write becomes. One
//! mode makes every write the same command; a newer fio's mix
//! (`write/60:zeroes/30:uncor/10`) draws one for each write, as fio's
//! `fio_ioring_cmd_prep_write_split` does.

use ioscope_engine::{Backend, Op};
use ioscope_job::{JobSpec, WriteMode};
use ioscope_workload::{job_seeds, seed_slot, FioRand};

/// The command `mode` makes of a write. A Zone Append is a Write to the
/// loop: the queue sends every Write of a `zone_append` job as one.
fn op_of(mode: WriteMode, deac: bool) -> Op {
    match mode {
        WriteMode::Write | WriteMode::ZoneAppend => Op::Write,
        WriteMode::Uncorrectable => Op::WriteUncorrectable,
        WriteMode::Zeroes => Op::WriteZeroes { deac },
        WriteMode::Verify => Op::DeviceVerify,
    }
}

/// The command of every write of `spec` run on `backend`: Write, or what
/// a single `write_mode` makes of it. A mix's writes are drawn by
/// [`WriteMix`]; Write stands for them here.
pub(crate) fn write_op(spec: &JobSpec, backend: Backend) -> Op {
    match spec.engine_options.write_mode.only() {
        Some(mode) if backend == Backend::IoUringCmd => op_of(mode, spec.engine_options.deac),
        _ => Op::Write,
    }
}

/// Whether some write of `spec` on `backend` sends data, and so needs a
/// buffer to send it from.
pub(crate) fn writes_carry_data(spec: &JobSpec, backend: Backend) -> bool {
    backend != Backend::IoUringCmd || spec.engine_options.write_mode.some_carry_data()
}

/// A `write_mode` mix of one worker: the draw and the commands.
#[derive(Debug)]
pub(crate) struct WriteMix {
    rng: FioRand,
    /// The running sum of the shares up to each command, in the order
    /// given (the last is 100).
    shares: Vec<(u32, Op)>,
}

impl WriteMix {
    /// The mix of worker `number` (0-based) of `spec`, or None when every
    /// write is the same command.
    pub(crate) fn new(spec: &JobSpec, number: u32) -> Option<WriteMix> {
        let modes = &spec.engine_options.write_mode;
        if spec.ioengine != Backend::IoUringCmd || modes.only().is_some() {
            return None;
        }
        let mut sum = 0;
        let shares = modes
            .shares()
            .iter()
            .map(|s| {
                sum += s.percent;
                (sum, op_of(s.mode, spec.engine_options.deac))
            })
            .collect();
        // fio seeds the draw with its own slot, as a 32-bit generator.
        let seed = job_seeds(spec, u64::from(number) + 1)[seed_slot::WRITE_MODE];
        Some(WriteMix {
            rng: FioRand::new(seed, false),
            shares,
        })
    }

    /// The next write's command: a draw from 0 to 99 takes the first
    /// command whose running sum is above it.
    #[inline]
    pub(crate) fn pick(&mut self) -> Op {
        let draw = self.rng.between(0, 99) as u32;
        // The shares add up to 100, so one is always above the draw.
        match self.shares.iter().find(|(upto, _)| draw < *upto) {
            Some(&(_, op)) => op,
            None => self.shares[self.shares.len() - 1].1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(options: &[&str]) -> JobSpec {
        let base = [
            "--name=m",
            "--ioengine=io_uring_cmd",
            "--rw=write",
            "--size=1m",
        ];
        ioscope_job::parse(&ioscope_job::ParseInput {
            cli_options: base.iter().chain(options).map(|s| s.to_string()).collect(),
            ..Default::default()
        })
        .expect("parses")
        .jobs
        .remove(0)
    }

    #[test]
    fn a_single_mode_makes_every_write_one_command() {
        let s = spec(&["--write_mode=uncor"]);
        assert!(WriteMix::new(&s, 0).is_none());
        assert_eq!(write_op(&s, Backend::IoUringCmd), Op::WriteUncorrectable);
        assert!(!writes_carry_data(&s, Backend::IoUringCmd));
        let s = spec(&["--write_mode=zeroes", "--deac=1"]);
        assert_eq!(
            write_op(&s, Backend::IoUringCmd),
            Op::WriteZeroes { deac: true }
        );
        let s = spec(&["--write_mode=verify"]);
        assert_eq!(write_op(&s, Backend::IoUringCmd), Op::DeviceVerify);
    }

    /// The shares are kept over many draws, in the order the draw meets
    /// them, and the same seed gives the same commands.
    #[test]
    fn a_mix_draws_each_write_in_its_shares() {
        let s = spec(&["--write_mode=write/50:zeroes/30:verify/20"]);
        assert!(writes_carry_data(&s, Backend::IoUringCmd));
        let mut mix = WriteMix::new(&s, 0).unwrap();
        let mut again = WriteMix::new(&s, 0).unwrap();
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            let op = mix.pick();
            assert_eq!(op, again.pick());
            match op {
                Op::Write => counts[0] += 1,
                Op::WriteZeroes { deac: false } => counts[1] += 1,
                Op::DeviceVerify => counts[2] += 1,
                other => panic!("{other:?} is not in the mix"),
            }
        }
        for (got, share) in counts.iter().zip([50_000, 30_000, 20_000]) {
            assert!(got.abs_diff(share) < 1_000, "{counts:?}");
        }
        let mut other = WriteMix::new(&s, 1).unwrap();
        let firsts = |m: &mut WriteMix| (0..32).map(|_| m.pick()).collect::<Vec<_>>();
        assert_ne!(
            firsts(&mut other),
            firsts(&mut mix),
            "each worker draws from its own seed"
        );
    }
}
