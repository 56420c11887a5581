//! What one run contributes to a comparison: one value per metric, taken
//! from its [`RunResult`] over every job and direction, the way fio's own
//! figures are computed (IOPS and bandwidth per job from its runtime, CPU
//! in percent of the job's runtime).

use ioscope_stats::{LatencyHistogram, RunResult};

use super::stat::Better;

/// The metrics of the tables and of the JSON's SUMMARY object, in their
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    LatMean,
    LatP50,
    LatP99,
    LatP999,
    Iops,
    Bw,
    CpuUsr,
    CpuSys,
    CpuHelpers,
    CpuNsPerIo,
    Ctx,
    Punts,
}

impl Metric {
    pub const ALL: [Metric; 12] = [
        Metric::LatMean,
        Metric::LatP50,
        Metric::LatP99,
        Metric::LatP999,
        Metric::Iops,
        Metric::Bw,
        Metric::CpuUsr,
        Metric::CpuSys,
        Metric::CpuHelpers,
        Metric::CpuNsPerIo,
        Metric::Ctx,
        Metric::Punts,
    ];

    /// The metrics each configuration is judged against the baseline by.
    pub const JUDGED: [Metric; 5] = [
        Metric::LatMean,
        Metric::LatP99,
        Metric::Iops,
        Metric::Bw,
        Metric::CpuNsPerIo,
    ];

    /// The key in the JSON documents.
    pub fn key(self) -> &'static str {
        match self {
            Metric::LatMean => "lat_mean_ns",
            Metric::LatP50 => "lat_p50_ns",
            Metric::LatP99 => "lat_p99_ns",
            Metric::LatP999 => "lat_p99_9_ns",
            Metric::Iops => "iops",
            Metric::Bw => "bw_bytes",
            Metric::CpuUsr => "cpu_usr",
            Metric::CpuSys => "cpu_sys",
            Metric::CpuHelpers => "cpu_helpers",
            Metric::CpuNsPerIo => "cpu_ns_per_io",
            Metric::Ctx => "ctx",
            Metric::Punts => "punts",
        }
    }

    /// The column heading of the tables, unit included.
    pub fn heading(self) -> &'static str {
        match self {
            Metric::LatMean => "lat mean (ns)",
            Metric::LatP50 => "p50 (ns)",
            Metric::LatP99 => "p99 (ns)",
            Metric::LatP999 => "p99.9 (ns)",
            Metric::Iops => "IOPS",
            Metric::Bw => "BW (MiB/s)",
            Metric::CpuUsr => "usr %",
            Metric::CpuSys => "sys %",
            Metric::CpuHelpers => "helpers %",
            Metric::CpuNsPerIo => "CPU ns/IO",
            Metric::Ctx => "ctx",
            Metric::Punts => "punts",
        }
    }

    /// The unit a difference is written in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::LatMean | Metric::LatP50 | Metric::LatP99 | Metric::LatP999 => "ns",
            Metric::Iops => "IOPS",
            Metric::Bw => "B/s",
            Metric::CpuUsr | Metric::CpuSys | Metric::CpuHelpers => "% CPU",
            Metric::CpuNsPerIo => "ns CPU/IO",
            Metric::Ctx => "switches",
            Metric::Punts => "punts",
        }
    }

    pub fn better(self) -> Better {
        match self {
            Metric::Iops | Metric::Bw => Better::Higher,
            _ => Better::Lower,
        }
    }

    /// This metric's value in `run`; None only for punts not counted.
    pub fn of(self, run: &RunMetrics) -> Option<f64> {
        Some(match self {
            Metric::LatMean => run.lat_mean_ns,
            Metric::LatP50 => run.lat_pct_ns[0],
            Metric::LatP99 => run.lat_pct_ns[1],
            Metric::LatP999 => run.lat_pct_ns[2],
            Metric::Iops => run.iops,
            Metric::Bw => run.bw_bytes,
            Metric::CpuUsr => run.cpu_usr,
            Metric::CpuSys => run.cpu_sys,
            Metric::CpuHelpers => run.cpu_helpers,
            Metric::CpuNsPerIo => run.cpu_ns_per_io,
            Metric::Ctx => run.ctx,
            Metric::Punts => return run.punts,
        })
    }
}

/// One run's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunMetrics {
    /// Mean total latency over every I/O of every direction.
    pub lat_mean_ns: f64,
    /// p50, p99 and p99.9 of the completion latency, all directions.
    pub lat_pct_ns: [f64; 3],
    pub iops: f64,
    pub bw_bytes: f64,
    /// Percent of one CPU, summed over the jobs.
    pub cpu_usr: f64,
    pub cpu_sys: f64,
    pub cpu_helpers: f64,
    /// Worker and helper CPU time per completed I/O.
    pub cpu_ns_per_io: f64,
    pub ctx: f64,
    /// Requests punted to io-wq; None where a job's were not counted.
    pub punts: Option<f64>,
}

impl RunMetrics {
    pub fn of(result: &RunResult) -> RunMetrics {
        let mut m = RunMetrics {
            punts: Some(0.0),
            ..RunMetrics::default()
        };
        let mut clat = LatencyHistogram::new();
        let (mut lat_sum, mut lat_count) = (0.0, 0u64);
        let (mut cpu_ns, mut ios) = (0u64, 0u64);
        for job in &result.jobs {
            for dir in &job.dirs {
                if dir.runtime_ms > 0 {
                    let per_s = 1000.0 / dir.runtime_ms as f64;
                    m.iops += dir.total_ios as f64 * per_s;
                    m.bw_bytes += dir.io_bytes as f64 * per_s;
                }
                lat_sum += dir.lat.summary.mean() * dir.lat.summary.samples as f64;
                lat_count += dir.lat.summary.samples;
                if let Some(h) = &dir.clat.histogram {
                    clat.merge(h);
                }
                ios += dir.total_ios;
            }
            ios += job.sync.total_ios;
            let percent = |ns: u64| {
                if job.runtime_ms == 0 {
                    0.0
                } else {
                    ns as f64 / 1e6 * 100.0 / job.runtime_ms as f64
                }
            };
            m.cpu_usr += percent(job.cpu.user_ns);
            m.cpu_sys += percent(job.cpu.sys_ns);
            m.cpu_helpers += percent(job.helper_cpu.total_ns());
            m.ctx += job.cpu.ctx as f64;
            cpu_ns += job.cpu.user_ns + job.cpu.sys_ns + job.helper_cpu.total_ns();
            m.punts = match (m.punts, job.helper_cpu.punts.counted()) {
                (Some(a), Some(b)) => Some(a + b as f64),
                _ => None,
            };
        }
        if lat_count > 0 {
            m.lat_mean_ns = lat_sum / lat_count as f64;
        }
        if ios > 0 {
            m.cpu_ns_per_io = cpu_ns as f64 / ios as f64;
        }
        let pct = clat.percentiles(&[50.0, 99.0, 99.9]);
        m.lat_pct_ns = [pct[0] as f64, pct[1] as f64, pct[2] as f64];
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::{JobResult, Punts, PuntsUncounted};

    fn job(ios: u64, runtime_ms: u64, lat_ns: u64) -> JobResult {
        let mut j = JobResult {
            runtime_ms,
            ..JobResult::default()
        };
        let read = &mut j.dirs[0];
        read.total_ios = ios;
        read.io_bytes = ios * 4096;
        read.runtime_ms = runtime_ms;
        let mut h = LatencyHistogram::new();
        for _ in 0..ios {
            read.lat.summary.add(lat_ns);
            h.add(lat_ns);
        }
        read.clat.histogram = Some(h);
        j.cpu.user_ns = 100_000_000;
        j.cpu.sys_ns = 300_000_000;
        j.cpu.ctx = 7;
        j
    }

    #[test]
    fn jobs_add_up_as_fio_counts_them() {
        let result = RunResult {
            jobs: vec![job(1000, 1000, 2000), job(3000, 500, 4000)],
            ..RunResult::default()
        };
        let m = RunMetrics::of(&result);
        assert_eq!(m.iops, 1000.0 + 6000.0);
        assert_eq!(m.bw_bytes, 7000.0 * 4096.0);
        // Weighted by I/O count: (1000×2000 + 3000×4000) / 4000.
        assert_eq!(m.lat_mean_ns, 3500.0);
        // 100 ms of 1 s, and of 0.5 s.
        assert!((m.cpu_usr - 30.0).abs() < 1e-9, "{}", m.cpu_usr);
        assert!((m.cpu_sys - 90.0).abs() < 1e-9, "{}", m.cpu_sys);
        assert_eq!(m.ctx, 14.0);
        assert_eq!(m.cpu_ns_per_io, 800_000_000.0 / 4000.0);
        assert_eq!(m.punts, Some(0.0));
        // Three I/Os in four took 4000 ns: p50 and up lie in its bucket.
        for p in m.lat_pct_ns {
            assert!((p - 4000.0).abs() <= 64.0, "{:?}", m.lat_pct_ns);
        }
    }

    #[test]
    fn punts_not_counted_anywhere_are_not_counted() {
        let mut uncounted = job(10, 10, 10);
        uncounted.helper_cpu.punts = Punts::Uncounted(PuntsUncounted::NotAsked);
        let result = RunResult {
            jobs: vec![job(10, 10, 10), uncounted],
            ..RunResult::default()
        };
        assert_eq!(RunMetrics::of(&result).punts, None);
        assert_eq!(Metric::Punts.of(&RunMetrics::of(&result)), None);
    }
}
