//! Per-I/O priorities: which priority each read and write is sent at
//! (fio's engines/cmdprio.c for libaio and io_uring; pvsync2's
//! `hipri_percentage` in engines/sync.c), and the completion latencies
//! kept per priority for the report (fio's clat_prio).

use ioscope_engine::{Op, Queue, Request};
use ioscope_job::{CmdprioSpec, JobSpec};
use ioscope_stats::{LatencyHistogram, LatencyStat, PrioLat, Summary};
use ioscope_workload::{job_seeds, seed_slot, FioRand};

/// One choice: I/Os of the block size (any size in percentage mode) get
/// `ioprio` when the draw is below `upto` (the running sum of the
/// percentages); `index` is its place in the direction's priority list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Choice {
    upto: u32,
    ioprio: u16,
    index: u8,
}

/// The choices of one block size (`bs` 0: every size, percentage mode).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BsChoices {
    bs: u64,
    total: u32,
    choices: Vec<Choice>,
}

/// What decides each read's and write's priority.
#[derive(Debug)]
pub(crate) enum PerIoPrio {
    /// cmdprio: per direction [read, write], the choices by block size,
    /// and the priorities in stats order (the job's own first).
    Cmdprio {
        rng: FioRand,
        dirs: [Vec<BsChoices>; 2],
        prios: [Vec<u16>; 2],
        /// `lat_percentiles`: the total latency is kept per priority
        /// rather than the completion latency, as in fio.
        total: bool,
    },
    /// pvsync2 with `hipri` and `hipri_percentage` below 100: RWF_HIPRI
    /// for that share of I/Os.
    Hipri { rng: FioRand, percentage: u32 },
}

impl PerIoPrio {
    /// The chooser of worker `number` (0-based) of `spec`, or None when
    /// every I/O goes at the job's priority (the loop then spends
    /// nothing per I/O on this). `job_prio` is the job's own ioprio value
    /// (prio/prioclass), 0 when not set.
    pub(crate) fn new(spec: &JobSpec, number: u32, job_prio: u16) -> Option<PerIoPrio> {
        let c = &spec.cmdprio;
        if c.active() {
            let seed = job_seeds(spec, u64::from(number) + 1)[seed_slot::PRIO_CMDS];
            let mut prios = [vec![job_prio], vec![job_prio]];
            let dirs = [0, 1].map(|d| choices(c, d, &mut prios[d]));
            return Some(PerIoPrio::Cmdprio {
                rng: FioRand::new(seed, false),
                dirs,
                prios,
                total: spec.lat_percentiles,
            });
        }
        if spec.hipri && c.hipri_percentage < 100 {
            // fio seeds pvsync2's draw with init_rand(&state, 0): seed 1.
            return Some(PerIoPrio::Hipri {
                rng: FioRand::new(1, false),
                percentage: c.hipri_percentage,
            });
        }
        None
    }

    /// The tallies per priority, empty, for the loop's stats.
    pub(crate) fn tally(&self) -> Option<PrioTally> {
        match self {
            PerIoPrio::Cmdprio { prios, total, .. } => Some(PrioTally {
                total: *total,
                dirs: prios.clone().map(|p| {
                    p.into_iter()
                        .map(|ioprio| (ioprio, Summary::default(), LatencyHistogram::new()))
                        .collect()
                }),
            }),
            PerIoPrio::Hipri { .. } => None,
        }
    }

    /// Chooses `req`'s priority and tells `q`; returns the priority's
    /// index in the direction's list (0, the job's, for other commands).
    #[inline]
    pub(crate) fn apply<Q: Queue>(&mut self, q: &mut Q, req: &Request) -> u8 {
        let d = match req.op {
            Op::Read => 0,
            Op::Write => 1,
            _ => return 0,
        };
        match self {
            PerIoPrio::Cmdprio { rng, dirs, .. } => {
                let (ioprio, index) = choose(rng, &dirs[d], u64::from(req.len));
                q.set_ioprio(ioprio);
                index
            }
            PerIoPrio::Hipri { rng, percentage } => {
                q.set_hipri(rng.between(1, 100) <= u64::from(*percentage));
                0
            }
        }
    }
}

/// fio's fio_cmdprio_set_ioprio: the block size's total share decides
/// whether to draw (a draw only when it is above 0); a draw at or above
/// it keeps the job's priority (ioprio 0: the thread's own), one below it
/// takes the first choice whose running sum exceeds it.
fn choose(rng: &mut FioRand, dir: &[BsChoices], len: u64) -> (u16, u8) {
    let Some(bs) = dir.iter().find(|b| b.bs == 0 || b.bs == len) else {
        return (0, 0);
    };
    let draw = rng.between(0, 99) as u32;
    if draw >= bs.total {
        return (0, 0);
    }
    bs.choices
        .iter()
        .find(|c| draw < c.upto)
        .map_or((0, 0), |c| (c.ioprio, c.index))
}

/// Direction `d`'s choices, its priorities added to `prios` (each once,
/// in order of first use, as fio's assign_clat_prio_index).
fn choices(c: &CmdprioSpec, d: usize, prios: &mut Vec<u16>) -> Vec<BsChoices> {
    let mut index_of = |ioprio: u16| -> u8 {
        match prios.iter().position(|&p| p == ioprio) {
            Some(i) => i as u8,
            None => {
                prios.push(ioprio);
                (prios.len() - 1) as u8
            }
        }
    };
    let implicit = c.implicit_prio(d);
    let Some(split) = &c.bssplit else {
        if c.percentage[d] == 0 {
            return Vec::new();
        }
        return vec![BsChoices {
            bs: 0,
            total: c.percentage[d],
            choices: vec![Choice {
                upto: c.percentage[d],
                ioprio: implicit,
                index: index_of(implicit),
            }],
        }];
    };
    let mut out: Vec<BsChoices> = Vec::new();
    for e in &split[d] {
        if out.last().is_none_or(|b| b.bs != e.bs) {
            out.push(BsChoices {
                bs: e.bs,
                total: 0,
                choices: Vec::new(),
            });
        }
        let ioprio = e.prio.unwrap_or(implicit);
        let index = index_of(ioprio);
        let b = out.last_mut().expect("pushed above");
        b.total += e.perc;
        b.choices.push(Choice {
            upto: b.total,
            ioprio,
            index,
        });
    }
    out
}

/// Completion latencies per priority, per direction [read, write]: the
/// priority, its summary and its histogram.
#[derive(Clone, Debug)]
pub(crate) struct PrioTally {
    /// Total latencies rather than completion latencies.
    pub total: bool,
    pub dirs: [Vec<(u16, Summary, LatencyHistogram)>; 2],
}

impl PrioTally {
    /// Adds the latencies of an I/O of direction `d` sent at priority
    /// `index`.
    #[inline]
    pub(crate) fn add(&mut self, d: usize, index: u8, clat_ns: u64, lat_ns: u64) {
        let ns = if self.total { lat_ns } else { clat_ns };
        if let Some((_, s, h)) = self
            .dirs
            .get_mut(d)
            .and_then(|v| v.get_mut(usize::from(index)))
        {
            s.add(ns);
            h.add(ns);
        }
    }

    /// The priority value at `index` of direction `d` (0 for trims).
    #[inline]
    pub(crate) fn ioprio(&self, d: usize, index: u8) -> u16 {
        self.dirs
            .get(d)
            .and_then(|v| v.get(usize::from(index)))
            .map_or(0, |p| p.0)
    }

    /// Direction `d`'s latencies per priority, for the report (none for
    /// trims, which always go at the job's priority).
    pub(crate) fn results(&self, d: usize) -> Vec<PrioLat> {
        self.dirs.get(d).map_or_else(Vec::new, |v| {
            v.iter()
                .map(|(ioprio, s, h)| PrioLat {
                    ioprio: *ioprio,
                    lat: LatencyStat {
                        summary: *s,
                        histogram: Some(h.clone()),
                    },
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_job::PrioSplit;

    fn req(op: Op, len: u32) -> Request {
        Request {
            op,
            file: 0,
            offset: 0,
            len,
            slot: 0,
        }
    }

    /// A queue that only remembers the last priority it was given.
    #[derive(Default)]
    struct Last {
        ioprio: u16,
        hipri: Option<bool>,
        buf: Vec<u8>,
    }

    impl Queue for Last {
        fn submit(&mut self, _: &Request) -> std::io::Result<ioscope_engine::Submitted> {
            Ok(ioscope_engine::Submitted::Completed(0))
        }
        fn set_ioprio(&mut self, ioprio: u16) {
            self.ioprio = ioprio;
        }
        fn set_hipri(&mut self, on: bool) {
            self.hipri = Some(on);
        }
        fn commit(&mut self) -> std::io::Result<u32> {
            Ok(0)
        }
        fn reap<F: FnMut(ioscope_engine::Completion)>(
            &mut self,
            _: u32,
            _: u32,
            _: F,
        ) -> std::io::Result<u32> {
            Ok(0)
        }
        fn buffer(&mut self, _: u32) -> &mut [u8] {
            &mut self.buf
        }
        fn in_flight(&self) -> u32 {
            0
        }
    }

    fn spec(c: CmdprioSpec) -> JobSpec {
        let mut s = ioscope_job::parse(&ioscope_job::ParseInput {
            cli_options: vec!["--name=j".into(), "--ioengine=io_uring".into()],
            ..Default::default()
        })
        .expect("parses")
        .jobs
        .remove(0);
        s.cmdprio = c;
        s
    }

    #[test]
    fn a_percentage_sends_that_share_at_the_class() {
        let mut c = CmdprioSpec::blank();
        c.percentage = [30, 0];
        let mut p = PerIoPrio::new(&spec(c), 0, 0).expect("active");
        let mut q = Last::default();
        let (mut high, n) = (0, 20_000);
        for _ in 0..n {
            let index = p.apply(&mut q, &req(Op::Read, 4096));
            assert_eq!(index == 1, q.ioprio == 1 << 13);
            high += u32::from(index == 1);
        }
        let share = f64::from(high) / f64::from(n);
        assert!((0.28..0.32).contains(&share), "{share}");
        // No writes get one; trims and syncs are left alone.
        assert_eq!(p.apply(&mut q, &req(Op::Write, 4096)), 0);
        assert_eq!(q.ioprio, 0);
        assert_eq!(p.apply(&mut q, &req(Op::Fsync, 0)), 0);
        let t = p.tally().expect("cmdprio");
        assert_eq!(
            t.dirs[0].iter().map(|x| x.0).collect::<Vec<_>>(),
            [0, 1 << 13]
        );
        assert_eq!(t.dirs[1].len(), 1);
    }

    #[test]
    fn a_bssplit_chooses_by_block_size() {
        let mut c = CmdprioSpec::blank();
        let e = |bs, perc, prio| PrioSplit { bs, perc, prio };
        let list = vec![
            e(4096, 25, Some((1 << 13) | 1)),
            e(4096, 75, Some((3 << 13) | 2)),
            e(65536, 50, None),
        ];
        c.bssplit = Some([list.clone(), list]);
        let mut p = PerIoPrio::new(&spec(c), 0, 0).expect("active");
        let mut q = Last::default();
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            seen[usize::from(p.apply(&mut q, &req(Op::Read, 4096)))] += 1;
        }
        // Every 4k I/O gets one of its two priorities, about 1 in 4 the first.
        assert_eq!(seen[0] + seen[3], 0);
        assert!((800..1200).contains(&seen[1]), "{seen:?}");
        // 64k: half at the implicit RT 0; other sizes never draw.
        let mut rt = 0;
        for _ in 0..4000 {
            rt += u32::from(p.apply(&mut q, &req(Op::Write, 65536)) == 3);
        }
        assert!((1800..2200).contains(&rt), "{rt}");
        assert_eq!(p.apply(&mut q, &req(Op::Read, 8192)), 0);
        let t = p.tally().expect("cmdprio");
        assert_eq!(
            t.dirs[0].iter().map(|x| x.0).collect::<Vec<_>>(),
            [0, (1 << 13) | 1, (3 << 13) | 2, 1 << 13]
        );
    }

    #[test]
    fn hipri_percentage_flags_that_share() {
        let mut s = spec(CmdprioSpec::blank());
        s.hipri = true;
        assert!(
            PerIoPrio::new(&s, 0, 0).is_none(),
            "100% is every I/O, as hipri alone"
        );
        s.cmdprio.hipri_percentage = 40;
        let mut p = PerIoPrio::new(&s, 0, 0).expect("hipri");
        let mut q = Last::default();
        let mut on = 0;
        for _ in 0..5000 {
            p.apply(&mut q, &req(Op::Write, 4096));
            on += u32::from(q.hipri == Some(true));
        }
        assert!((1800..2200).contains(&on), "{on}");
        assert!(p.tally().is_none());
    }
}
