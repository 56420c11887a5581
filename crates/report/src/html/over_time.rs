//! Bandwidth, IOPS and latency over time for the run page, from what the
//! workers recorded for fio's logs: the averaged lines (`log_avg_msec`, or
//! the in-memory samples ioscope takes for HTML) or, for logs with a line
//! per I/O, those I/Os put in windows here.

use ioscope_stats::{WindowLine, WorkerLogs};

/// The window per-I/O records are put in: fio's bandwidth sampling
/// interval.
const WINDOW_MS: u64 = 500;

/// A job's samples over time, per direction (read, write, trim): (seconds
/// since the job started, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverTime {
    /// Bandwidth in MiB/s, summed over the job's workers.
    pub bw: [Vec<(f64, f64)>; 3],
    /// IOPS, summed over the workers.
    pub iops: [Vec<(f64, f64)>; 3],
    /// Mean total latency (fio's lat) in µs, the mean of the workers'.
    pub lat: [Vec<(f64, f64)>; 3],
}

impl OverTime {
    pub fn is_empty(&self) -> bool {
        [&self.bw, &self.iops, &self.lat]
            .iter()
            .all(|d| d.iter().all(Vec::is_empty))
    }
}

/// One worker's samples, per direction.
#[derive(Default)]
struct Worker {
    bw: [Vec<(f64, f64)>; 3],
    iops: [Vec<(f64, f64)>; 3],
    lat: [Vec<(f64, f64)>; 3],
}

/// The samples of the workers in `logs`, taken together (the workers of
/// one job).
pub fn combine<'a>(logs: impl IntoIterator<Item = &'a WorkerLogs>) -> OverTime {
    let workers: Vec<Worker> = logs.into_iter().map(worker).collect();
    let mut out = OverTime::default();
    for d in 0..3 {
        out.bw[d] = merge(workers.iter().map(|w| &w.bw[d]), false);
        out.iops[d] = merge(workers.iter().map(|w| &w.iops[d]), false);
        out.lat[d] = merge(workers.iter().map(|w| &w.lat[d]), true);
    }
    out
}

/// The k-th samples of each worker taken together (every worker samples
/// at the same interval from its own start): their times averaged, their
/// values summed, or averaged when `mean`.
fn merge<'a>(series: impl Iterator<Item = &'a Vec<(f64, f64)>>, mean: bool) -> Vec<(f64, f64)> {
    let mut sum: Vec<(f64, f64, u32)> = Vec::new();
    for s in series {
        for (k, &(t, v)) in s.iter().enumerate() {
            if sum.len() <= k {
                sum.push((0.0, 0.0, 0));
            }
            sum[k].0 += t;
            sum[k].1 += v;
            sum[k].2 += 1;
        }
    }
    sum.into_iter()
        .map(|(t, v, n)| {
            let n = f64::from(n);
            (t / n, if mean { v / n } else { v })
        })
        .collect()
}

fn worker(w: &WorkerLogs) -> Worker {
    let mut out = Worker::default();
    let split = |lines: &[WindowLine], scale: f64, to: &mut [Vec<(f64, f64)>; 3]| {
        for l in lines {
            if let Some(d) = to.get_mut(usize::from(l.dir)) {
                d.push((l.time_ms as f64 / 1000.0, l.avg as f64 * scale));
            }
        }
    };
    split(&w.bw, 1.0 / 1024.0, &mut out.bw);
    split(&w.iops, 1.0, &mut out.iops);
    if let Some(lat) = &w.recorder.windows[2] {
        split(&lat.lines, 1e-3, &mut out.lat);
    }
    if let Some(records) = &w.recorder.records {
        per_io(w, records.iter(), &mut out);
    }
    out
}

/// Rates and mean latency per window of the I/Os logged one by one, for
/// what the averaged lines did not give.
fn per_io<'a>(
    w: &WorkerLogs,
    records: impl Iterator<Item = &'a ioscope_stats::IoRecord>,
    out: &mut Worker,
) {
    // (bytes, I/Os, latency sum in ns) per direction per window.
    let mut windows: [Vec<(u64, u64, u64)>; 3] = Default::default();
    for r in records {
        let Some(d) = windows.get_mut(usize::from(r.dir)) else {
            continue;
        };
        let at_ms = w.clock.to_ns(r.done.saturating_sub(w.recorder.epoch)) / 1_000_000;
        let k = (at_ms / WINDOW_MS) as usize;
        if d.len() <= k {
            d.resize(k + 1, (0, 0, 0));
        }
        d[k].0 += u64::from(r.bytes);
        d[k].1 += 1;
        d[k].2 += w.clock.to_ns(r.done.saturating_sub(r.start));
    }
    let secs = WINDOW_MS as f64 / 1000.0;
    for (d, list) in windows.iter().enumerate() {
        let end = |k: usize| (k as f64 + 1.0) * secs;
        if out.bw[d].is_empty() {
            out.bw[d] = list
                .iter()
                .enumerate()
                .map(|(k, x)| (end(k), x.0 as f64 / secs / 1048576.0))
                .collect();
        }
        if out.iops[d].is_empty() {
            out.iops[d] = list
                .iter()
                .enumerate()
                .map(|(k, x)| (end(k), x.1 as f64 / secs))
                .collect();
        }
        if out.lat[d].is_empty() {
            out.lat[d] = list
                .iter()
                .enumerate()
                .filter(|(_, x)| x.1 > 0)
                .map(|(k, x)| (end(k), x.2 as f64 / x.1 as f64 / 1e3))
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_rates_add_up_and_latencies_average() {
        let a = vec![(0.5, 10.0), (1.0, 20.0)];
        let b = vec![(0.5, 30.0)];
        assert_eq!(
            merge([&a, &b].into_iter(), false),
            vec![(0.5, 40.0), (1.0, 20.0)]
        );
        assert_eq!(
            merge([&a, &b].into_iter(), true),
            vec![(0.5, 20.0), (1.0, 20.0)]
        );
    }
}
