//! Steady-state detection, as fio 3.42's steadystate.c computes it: every
//! `ss_interval` (default a second) the job's (or, with group_reporting,
//! its group's) IOPS, bandwidth and mean completion latency over the last
//! interval are put in a ring of `ss_dur` / `ss_interval` samples; once
//! the ring is full, the criterion (the largest deviation from the
//! samples' mean, or the slope of their least-squares line; absolute or as
//! a percentage of the mean) is compared with the limit, and the job stops
//! when it is below. The arithmetic follows fio's, integer divisions and
//! running sums included, so the same samples give the same verdict.

use ioscope_job::{SteadyMetric, SteadyStateSpec};
use ioscope_stats::SteadyStateResult;

/// The samples and running sums of one job or group (fio's
/// steadystate_data).
#[derive(Debug)]
pub(crate) struct Detector {
    spec: SteadyStateSpec,
    /// The samples in the ring (fio's `intervals`).
    dur: u64,
    head: u32,
    tail: u32,
    iops_data: Vec<u64>,
    bw_data: Vec<u64>,
    lat_data: Vec<u64>,
    buffer_full: bool,
    pub attained: bool,
    slope: f64,
    deviation: f64,
    criterion: f64,
    sum_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    sum_xy: u64,
    oldest_y: u64,
}

impl Detector {
    /// A detector for a job whose `ss_dur` holds at least one interval.
    pub(crate) fn new(spec: SteadyStateSpec) -> Detector {
        let dur = spec.intervals().max(1);
        Detector {
            spec,
            dur,
            head: 0,
            tail: 0,
            iops_data: vec![0; dur as usize],
            bw_data: vec![0; dur as usize],
            lat_data: vec![0; dur as usize],
            buffer_full: false,
            attained: false,
            slope: 0.0,
            deviation: 0.0,
            criterion: 0.0,
            sum_y: 0,
            sum_x: dur * (dur - 1) / 2,
            sum_x_sq: (dur - 1) * dur * (2 * dur - 1) / 6,
            sum_xy: 0,
            oldest_y: 0,
        }
    }

    /// The judged series.
    fn judged(&self) -> &[u64] {
        match self.spec.metric {
            SteadyMetric::Iops => &self.iops_data,
            SteadyMetric::Bw => &self.bw_data,
            SteadyMetric::Lat => &self.lat_data,
        }
    }

    fn y(&self, i: usize) -> u64 {
        self.judged()[i]
    }

    /// Takes one interval's sample (IOPS, bytes/s, mean completion latency
    /// in ns); true when steady state is reached with it.
    pub(crate) fn sample(&mut self, iops: u64, bw: u64, lat: u64) -> bool {
        let tail = self.tail as usize;
        self.bw_data[tail] = bw;
        self.iops_data[tail] = iops;
        self.lat_data[tail] = lat;
        let reached =
            if self.buffer_full || u64::from(self.tail.wrapping_sub(self.head)) == self.dur - 1 {
                if self.spec.slope {
                    self.judge_slope(self.y(tail))
                } else {
                    self.judge_deviation()
                }
            } else {
                false
            };
        if reached {
            return true;
        }
        self.tail = ((u64::from(self.tail) + 1) % self.dur) as u32;
        if self.tail <= self.head {
            self.head = ((u64::from(self.head) + 1) % self.dur) as u32;
        }
        false
    }

    fn judge_slope(&mut self, new_val: u64) -> bool {
        let dur = self.dur;
        if !self.buffer_full {
            // fio sums y by index but x*y from the head, and does not
            // clear sum_xy first: the same here.
            self.sum_y = 0;
            for i in 0..dur as usize {
                self.sum_y = self.sum_y.wrapping_add(self.y(i));
                let j = (self.head as usize + i) % dur as usize;
                self.sum_xy = self.sum_xy.wrapping_add((i as u64).wrapping_mul(self.y(j)));
            }
            self.buffer_full = true;
        } else {
            self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new_val);
            self.sum_xy = self
                .sum_xy
                .wrapping_sub(self.sum_y)
                .wrapping_add(dur.wrapping_mul(new_val));
        }
        self.oldest_y = self.y(self.head as usize);
        let n = dur as f64;
        self.slope = (self.sum_xy as f64 - self.sum_x as f64 * self.sum_y as f64 / n)
            / (self.sum_x_sq as f64 - self.sum_x as f64 * self.sum_x as f64 / n);
        self.criterion = if self.spec.percent {
            // fio divides the sum by the count in integers.
            100.0 * self.slope / (self.sum_y / dur) as f64
        } else {
            self.slope
        };
        self.criterion.abs() < self.spec.limit
    }

    fn judge_deviation(&mut self) -> bool {
        let dur = self.dur;
        if !self.buffer_full {
            self.sum_y = (0..dur as usize).fold(0u64, |s, i| s.wrapping_add(self.y(i)));
            self.buffer_full = true;
        } else {
            self.sum_y = self
                .sum_y
                .wrapping_sub(self.oldest_y)
                .wrapping_add(self.y(self.tail as usize));
        }
        self.oldest_y = self.y(self.head as usize);
        let mean = self.sum_y as f64 / dur as f64;
        self.deviation = (0..dur as usize)
            .map(|i| (self.y(i) as f64 - mean).abs())
            .fold(0.0, f64::max);
        self.criterion = if self.spec.percent {
            100.0 * self.deviation / mean
        } else {
            self.deviation
        };
        self.criterion < self.spec.limit
    }

    /// The record for the report, the samples oldest first as fio's JSON
    /// lists them.
    pub(crate) fn result(&self) -> SteadyStateResult {
        let dur = self.dur as usize;
        let head = self.head as usize;
        // fio: once attained, or before the ring filled, head is the
        // oldest sample; otherwise the ring moved on and head is one past.
        let first = if self.attained || !self.buffer_full {
            head
        } else if head == 0 {
            dur - 1
        } else {
            head - 1
        };
        let order = |v: &[u64]| (0..dur).map(|l| v[(first + l) % dur]).collect();
        SteadyStateResult {
            ss: self.spec.describe(),
            duration: self.spec.duration_s,
            attained: self.attained,
            metric: self.spec.metric.name(),
            slope_criterion: self.spec.slope,
            percent: self.spec.percent,
            limit: self.spec.limit,
            criterion: self.criterion,
            max_deviation: self.deviation,
            slope: self.slope,
            bw: order(&self.bw_data),
            iops_data: order(&self.iops_data),
            lat: order(&self.lat_data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(metric: SteadyMetric, slope: bool, limit: f64, percent: bool) -> SteadyStateSpec {
        SteadyStateSpec {
            metric,
            slope,
            limit,
            percent,
            duration_s: 4,
            ramp: Duration::ZERO,
            interval_ms: 1000,
        }
    }

    #[test]
    fn a_flat_series_is_steady_once_the_ring_is_full() {
        let mut d = Detector::new(spec(SteadyMetric::Iops, false, 10.0, true));
        assert!(!d.sample(100, 1, 0));
        assert!(!d.sample(104, 1, 0));
        assert!(!d.sample(96, 1, 0));
        // Mean 100, largest deviation 4: 4% < 10%.
        assert!(d.sample(100, 1, 0));
        assert_eq!(d.deviation, 4.0);
        assert_eq!(d.criterion, 4.0);
    }

    #[test]
    fn a_rising_series_has_fios_slope() {
        let mut d = Detector::new(spec(SteadyMetric::Bw, true, 1.0, true));
        for (i, bw) in [100u64, 200, 300].iter().enumerate() {
            assert!(!d.sample(0, *bw, 0), "{i}");
        }
        // x = 0..3, y = 100..400: slope 100; mean 250 -> 40%.
        assert!(!d.sample(0, 400, 0));
        assert_eq!(d.slope, 100.0);
        assert_eq!(d.criterion, 40.0);
        // The ring moves on: y = 200..500, still slope 100.
        assert!(!d.sample(0, 500, 0));
        assert_eq!(d.slope, 100.0);
        let r = d.result();
        assert_eq!(r.bw, vec![200, 300, 400, 500]);
        assert_eq!(r.bw_mean(), 350);
        assert!(!r.attained);
    }

    /// fio 3.42's latency criterion judges the latencies, and a longer
    /// check interval makes fewer samples of the same ss_dur.
    #[test]
    fn latency_is_judged_over_the_intervals() {
        let mut s = spec(SteadyMetric::Lat, false, 5.0, true);
        s.duration_s = 6;
        s.interval_ms = 2000;
        let mut d = Detector::new(s);
        assert_eq!(d.dur, 3);
        assert!(!d.sample(7, 7, 1000));
        assert!(!d.sample(1, 1, 1040));
        // Mean 1020, largest deviation 20: 2% < 5%, whatever the IOPS.
        assert!(d.sample(99, 99, 1020));
        d.attained = true;
        let r = d.result();
        assert_eq!((r.metric, r.duration, r.lat_mean()), ("lat", 6, 1020));
        assert_eq!(r.lat, vec![1000, 1040, 1020]);
    }
}
