//! Read/write direction for mixed jobs (fio's `get_rw_ddir`): a direction
//! is drawn against `rwmixread`, and after a switch the new direction runs
//! until its issue count reaches the old direction's count scaled by the
//! new direction's share, which keeps the byte totals near the mix.

use crate::generator::DataDir;
use crate::rand::FioRand;

#[derive(Clone, Debug)]
pub struct RwMix {
    rand: FioRand,
    /// Percent of reads, then of writes.
    mix: [u64; 2],
    current: usize,
    /// Issues of `current` after which the next direction is drawn.
    until: u64,
    /// I/Os issued per direction (fio's `io_issues`).
    issues: [u64; 2],
}

impl RwMix {
    pub fn new(rwmixread: u32, rand: FioRand) -> RwMix {
        let read = u64::from(rwmixread.min(100));
        RwMix {
            rand,
            mix: [read, 100 - read],
            current: 0,
            until: 0,
            issues: [0, 0],
        }
    }

    /// The direction of the next I/O; call [`RwMix::issued`] once it is issued.
    #[inline]
    pub fn next(&mut self) -> DataDir {
        if self.issues[self.current] >= self.until {
            let v = self.rand.between(1, 100);
            let dir = usize::from(v > self.mix[0]);
            if dir != self.current {
                self.until = self.issues[self.current] * self.mix[self.current ^ 1] / 100;
            }
            self.current = dir;
        }
        if self.current == 0 {
            DataDir::Read
        } else {
            DataDir::Write
        }
    }

    /// [`RwMix::next`] passed through `steer`; the direction it gives is
    /// the current one from then on (fio's `td->rwmix_ddir = rate_ddir()`).
    #[inline]
    pub fn steer(&mut self, steer: &mut impl FnMut(DataDir) -> DataDir) -> DataDir {
        let dir = steer(self.next());
        self.current = usize::from(dir == DataDir::Write);
        dir
    }

    /// A new loop: fio draws a direction afresh (`rwmix_issues = 0`), from
    /// the re-seeded generator when there is one; issue counts carry on.
    pub fn restart(&mut self, rand: Option<FioRand>) {
        if let Some(r) = rand {
            self.rand = r;
        }
        self.until = 0;
    }

    #[inline]
    pub fn issued(&mut self, dir: DataDir) {
        self.issues[dir as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::{fio_seeds, seed_slot};

    #[test]
    fn first_directions_match_fio() {
        // fio --name=t --filename=/tmp/f --size=10m --bs=4k --rw=randrw
        //   --write_iolog=log: the directions in the log begin
        let want = "rrrwrrwwwrwrwrrrwwrrwwwwrwrwwwwrrwrwwrrwwrwrrwwrwwwrrwrwrwwr";
        let seeds = fio_seeds(true, None, 1);
        let mut m = RwMix::new(50, FioRand::new(seeds[seed_slot::MIX], false));
        let got: String = (0..want.len())
            .map(|_| {
                let d = m.next();
                m.issued(d);
                if d == DataDir::Read {
                    'r'
                } else {
                    'w'
                }
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn all_reads_or_all_writes() {
        for (pct, want) in [(100, DataDir::Read), (0, DataDir::Write)] {
            let mut m = RwMix::new(pct, FioRand::new(1, false));
            for _ in 0..1000 {
                let d = m.next();
                assert_eq!(d, want);
                m.issued(d);
            }
        }
    }

    #[test]
    fn mix_holds_over_many_ios() {
        let mut m = RwMix::new(70, FioRand::new(99, false));
        let mut reads = 0;
        for _ in 0..100_000 {
            let d = m.next();
            reads += u32::from(d == DataDir::Read);
            m.issued(d);
        }
        assert!((68_000..72_000).contains(&reads), "{reads}");
    }
}
