//! fio's act profile (profiles/act.c, the Aerospike certification test):
//! each worker counts its I/Os' total latencies into hour-long slices, by
//! the highest of three limits each exceeds; a slice in which too large a
//! share of I/Os exceeded a limit fails the test. The table of the slices,
//! summed over every worker, is the profile's report.

/// How long a slice lasts: fio's `SAMPLE_SEC`.
pub const ACT_SLICE_NS: u64 = 3_600_000_000_000;

/// fio's `act_pass`: a latency limit in µs, and the share of a slice's
/// I/Os, in per mille, that may exceed it.
pub const ACT_CRITERIA: [(u64, u64); 3] = [(1000, 50), (8000, 10), (64000, 1)];

/// One slice: how many I/Os completed in it, and how many of them were
/// over each limit and not over the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActSlice {
    pub over: [u64; 3],
    pub total: u64,
}

impl ActSlice {
    /// The share of the slice's I/Os in criterion `i`'s bucket, in
    /// percent (0 for an empty slice), as fio's table prints it.
    pub fn percent(&self, i: usize) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        100.0 * self.over[i] as f64 / self.total as f64
    }

    /// Whether the table counts criterion `i` failed: its share reached
    /// the limit (fio's `show_slice`).
    pub fn fails(&self, i: usize) -> bool {
        self.percent(i) * 10.0 >= ACT_CRITERIA[i].1 as f64
    }

    /// The first criterion the slice failed as the run checks it when the
    /// slice closes (fio's `act_io_u_lat`, in per mille), with the share
    /// in percent.
    fn failed_at_close(&self) -> Option<(usize, f64)> {
        (0..ACT_CRITERIA.len()).find_map(|i| {
            let per_mille = 1000.0 * self.over[i] as f64 / self.total as f64;
            (per_mille >= ACT_CRITERIA[i].1 as f64).then_some((i, per_mille / 10.0))
        })
    }
}

/// A worker's slices while it runs.
#[derive(Clone, Debug)]
pub struct ActSlices {
    pub slices: Vec<ActSlice>,
    current: usize,
    /// When the current slice ends, in clock ticks.
    slice_end: u64,
    slice_ticks: u64,
    /// The prep phase (`--prep`) counts nothing.
    counting: bool,
}

impl ActSlices {
    /// `n` empty slices, the first starting at `start` (ticks); each lasts
    /// `slice_ticks`.
    pub fn new(n: usize, start: u64, slice_ticks: u64, counting: bool) -> ActSlices {
        ActSlices {
            slices: vec![ActSlice::default(); n],
            current: 0,
            slice_end: start.saturating_add(slice_ticks),
            slice_ticks,
            counting,
        }
    }

    /// Counts an I/O of `lat_us` µs total latency completed at `t_done`
    /// (ticks). When the slice it closes failed a criterion, returns
    /// fio's message, which fails the I/O and so the job.
    #[inline]
    pub fn add(&mut self, lat_us: u64, t_done: u64) -> Result<(), String> {
        // I/Os after the last slice (jitter at the end) are not counted.
        if !self.counting || self.current >= self.slices.len() {
            return Ok(());
        }
        let slice = &mut self.slices[self.current];
        slice.total += 1;
        if let Some(i) = ACT_CRITERIA
            .iter()
            .rposition(|&(max_us, _)| lat_us > max_us)
        {
            slice.over[i] += 1;
        }
        if t_done < self.slice_end {
            return Ok(());
        }
        let slice = *slice;
        self.current += 1;
        self.slice_end = t_done.saturating_add(self.slice_ticks);
        match slice.failed_at_close() {
            None => Ok(()),
            Some((i, percent)) => Err(format!(
                "act: {percent:.6}% exceeds pass criteria of {:.6}%",
                ACT_CRITERIA[i].1 as f64 / 10.0
            )),
        }
    }

    /// Adds another worker's slices to these, slice by slice.
    pub fn merge_into(&self, total: &mut Vec<ActSlice>) {
        if total.len() < self.slices.len() {
            total.resize(self.slices.len(), ActSlice::default());
        }
        for (t, s) in total.iter_mut().zip(&self.slices) {
            t.total += s.total;
            for i in 0..ACT_CRITERIA.len() {
                t.over[i] += s.over[i];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_counts_in_the_highest_limit_it_exceeds() {
        let mut a = ActSlices::new(2, 0, 100, true);
        for us in [1, 1000, 1001, 8000, 8001, 64000, 64001, 1_000_000] {
            a.add(us, 5).unwrap();
        }
        assert_eq!(
            a.slices[0],
            ActSlice {
                over: [2, 2, 2],
                total: 8
            }
        );
        assert_eq!(a.slices[1], ActSlice::default());
    }

    #[test]
    fn a_slice_that_ends_over_a_limit_fails_the_io() {
        // 5% over 1 ms is fio's limit: reached, not merely approached.
        let mut a = ActSlices::new(3, 0, 100, true);
        for _ in 0..18 {
            a.add(10, 50).unwrap();
        }
        a.add(2000, 50).unwrap();
        // The I/O that closes the slice counts in it: 1 of 20 is 5%.
        let e = a.add(10, 100).unwrap_err();
        assert_eq!(e, "act: 5.000000% exceeds pass criteria of 5.000000%");
        assert!(a.slices[0].fails(0) && !a.slices[0].fails(1));
        // The next slice starts at the I/O that closed the last.
        a.add(10, 150).unwrap();
        assert_eq!(a.slices[1].total, 1);
        assert!(a.add(10, 200).is_ok());
        assert!(!a.slices[1].fails(0));
    }

    #[test]
    fn io_after_the_last_slice_or_in_prep_is_not_counted() {
        let mut a = ActSlices::new(1, 0, 10, true);
        a.add(10, 20).unwrap();
        a.add(10, 30).unwrap();
        assert_eq!(a.slices[0].total, 1);
        let mut p = ActSlices::new(1, 0, 10, false);
        p.add(100_000, 5).unwrap();
        assert_eq!(p.slices[0], ActSlice::default());
        let mut total = Vec::new();
        a.merge_into(&mut total);
        a.merge_into(&mut total);
        assert_eq!(total[0].total, 2);
    }
}
