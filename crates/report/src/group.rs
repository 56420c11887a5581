//! Per-group aggregates (fio's group_run_stats) and the
//! `Run status group N (all jobs):` lines.

use crate::num2str::{num2str, Unit, SIG_FIGS};
use ioscope_stats::{JobResult, RunResult};

/// One direction of one group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupDir {
    pub min_run: u64,
    pub max_run: u64,
    /// Bytes per second of the slowest and fastest job.
    pub min_bw: u64,
    pub max_bw: u64,
    pub io_bytes: u64,
    /// Aggregate bandwidth in bytes per second: all bytes over the longest runtime.
    pub agg: u64,
}

/// fio's group_run_stats for one group id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    pub groupid: u32,
    pub dirs: [GroupDir; 3],
    /// The jobs' unified_rw_reporting codes OR-ed together, as fio's
    /// group_run_stats keeps them.
    pub unified_rw: u8,
    /// The last job's significant figures and rate unit, as fio's
    /// group_run_stats takes them.
    pub sig_figs: usize,
    pub rate_unit: Unit,
}

impl GroupStats {
    /// Aggregates the jobs of `groupid` by fio's rules (__show_run_stats).
    pub fn of(jobs: &[JobResult], groupid: u32) -> GroupStats {
        let mut dirs = [GroupDir {
            min_bw: u64::MAX,
            ..GroupDir::default()
        }; 3];
        let mut unified_rw = 0;
        let (mut sig_figs, mut rate_unit) = (SIG_FIGS, Unit::BytePerSec);
        for job in jobs.iter().filter(|j| j.header.groupid == groupid) {
            unified_rw |= job.unified_rw;
            (sig_figs, rate_unit) = (sig_figs_of(job), rate_unit_of(job));
            for (d, g) in job.dirs.iter().zip(dirs.iter_mut()) {
                if d.runtime_ms == 0 {
                    continue;
                }
                if g.min_run == 0 || d.runtime_ms < g.min_run {
                    g.min_run = d.runtime_ms;
                }
                g.max_run = g.max_run.max(d.runtime_ms);
                let bw = d.io_bytes * 1000 / d.runtime_ms;
                g.min_bw = g.min_bw.min(bw);
                g.max_bw = g.max_bw.max(bw);
                g.io_bytes += d.io_bytes;
            }
        }
        for g in dirs.iter_mut() {
            g.agg = (g.io_bytes * 1000).checked_div(g.max_run).unwrap_or(0);
        }
        GroupStats {
            groupid,
            dirs,
            unified_rw,
            sig_figs,
            rate_unit,
        }
    }

    /// One entry per group id from 0 to the highest, as fio loops over them.
    pub fn all(result: &RunResult) -> Vec<GroupStats> {
        let last = result.jobs.iter().map(|j| j.header.groupid).max();
        match last {
            None => Vec::new(),
            Some(last) => (0..=last)
                .map(|g| GroupStats::of(&result.jobs, g))
                .collect(),
        }
    }

    /// fio's show_group_stats(): a blank line, the header, one line per direction.
    pub fn lines(&self, kb_base: u32) -> String {
        let i2p = is_pow2(kb_base);
        let mut out = format!("\nRun status group {} (all jobs):\n", self.groupid);
        let names = if self.unified_rw == 1 {
            ["  MIXED"; 3]
        } else {
            ["   READ", "  WRITE", "   TRIM"]
        };
        for (name, g) in names.iter().zip(&self.dirs) {
            if g.max_run == 0 {
                continue;
            }
            out.push_str(&self.line(name, g, i2p));
        }
        if self.unified_rw == 2 {
            out.push_str(&self.line("  MIXED", &self.mixed(), i2p));
        }
        out
    }

    /// fio's show_mixed_group_stats(): the directions that ran, summed
    /// (their aggregates added, the extremes of their extremes).
    fn mixed(&self) -> GroupDir {
        let mut m = GroupDir {
            min_bw: u64::MAX,
            min_run: u64::MAX,
            ..GroupDir::default()
        };
        for g in self.dirs.iter().filter(|g| g.max_run != 0) {
            m.io_bytes += g.io_bytes;
            m.agg += g.agg;
            m.min_bw = m.min_bw.min(g.min_bw);
            m.max_bw = m.max_bw.max(g.max_bw);
            m.min_run = m.min_run.min(g.min_run);
            m.max_run = m.max_run.max(g.max_run);
        }
        m
    }

    /// One `  READ: bw=...` line.
    fn line(&self, name: &str, g: &GroupDir, i2p: bool) -> String {
        let rate = |v: u64, p2: bool| num2str(v, self.sig_figs, 1, p2, self.rate_unit);
        let bytes = |v: u64, p2: bool| num2str(v, self.sig_figs, 1, p2, Unit::Byte);
        format!(
            "{name}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec\n",
            rate(g.agg, i2p),
            rate(g.agg, !i2p),
            rate(g.min_bw, i2p),
            rate(g.max_bw, i2p),
            rate(g.min_bw, !i2p),
            rate(g.max_bw, !i2p),
            bytes(g.io_bytes, i2p),
            bytes(g.io_bytes, !i2p),
            g.min_run,
            g.max_run,
        )
    }

    /// fio's convert_agg_kbytes_percent(): a job's mean bandwidth (KiB/s,
    /// truncated to an integer as fio does) as a share of the group's.
    pub fn percent_of_agg(&self, dir: usize, mean_kib: f64) -> f64 {
        let agg = self.dirs[dir].agg;
        if agg <= 1024 {
            return 100.0;
        }
        let mean = mean_kib as i32 as f64;
        (mean * 100.0 / (agg as f64 / 1024.0)).min(100.0)
    }
}

/// The job's `significant_figures` (fio's 4 where unset).
pub fn sig_figs_of(job: &JobResult) -> usize {
    match job.sig_figs {
        0 => SIG_FIGS,
        n => usize::from(n),
    }
}

/// The unit of the job's rates in the normal output (`unit_base`).
pub fn rate_unit_of(job: &JobResult) -> Unit {
    if job.unit_bits {
        Unit::BitPerSec
    } else {
        Unit::BytePerSec
    }
}

/// fio's is_power_of_2(kb_base): 1024 means IEC units first.
pub fn is_pow2(kb_base: u32) -> bool {
    let kb = if kb_base == 0 { 1024 } else { kb_base };
    kb.is_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(groupid: u32, write_bytes: u64, runtime: u64) -> JobResult {
        let mut j = JobResult::default();
        j.header.groupid = groupid;
        j.dirs[1].io_bytes = write_bytes;
        j.dirs[1].runtime_ms = runtime;
        j
    }

    #[test]
    fn three_writers_like_fio() {
        // fio 3.33, three 16 MiB writers that took 36, 33 and 38 msec:
        //   WRITE: bw=1263MiB/s (1325MB/s), 421MiB/s-485MiB/s (442MB/s-508MB/s),
        //          io=48.0MiB (50.3MB), run=33-38msec
        let jobs = vec![
            job(0, 16 << 20, 36),
            job(0, 16 << 20, 33),
            job(0, 16 << 20, 38),
        ];
        let g = GroupStats::of(&jobs, 0);
        assert_eq!(
            g.lines(1024),
            "\nRun status group 0 (all jobs):\n  WRITE: bw=1263MiB/s (1325MB/s), 421MiB/s-485MiB/s (442MB/s-508MB/s), io=48.0MiB (50.3MB), run=33-38msec\n"
        );
    }

    #[test]
    fn kb_base_1000_swaps_units() {
        let jobs = vec![job(0, 14_262_779_904, 1000)];
        let g = GroupStats::of(&jobs, 0);
        let l = g.lines(1000);
        assert!(l.contains("  WRITE: bw=14.3GB/s (13.3GiB/s)"), "{l}");
    }

    #[test]
    fn other_groups_are_left_out() {
        let jobs = vec![job(0, 4096, 10), job(1, 8192, 10)];
        assert_eq!(GroupStats::of(&jobs, 1).dirs[1].io_bytes, 8192);
    }

    #[test]
    fn percent_of_agg() {
        let jobs = vec![job(0, 90_378_240, 1001)];
        let g = GroupStats::of(&jobs, 0);
        // fio 3.33 printed per=96.23% for avg=84848.00 KiB/s.
        assert_eq!(crate::cfmt::fixed(g.percent_of_agg(1, 84848.0), 2), "96.23");
    }
}
