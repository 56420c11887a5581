//! What steady-state detection found for one job (fio's `steadystate`
//! JSON object and its normal-output line).

/// One job's steady-state record, as fio's thread_stat keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SteadyStateResult {
    /// The criterion as fio writes it: `iops_slope:0.010000%`.
    pub ss: String,
    /// `ss_dur` in seconds (the samples are this over `ss_interval`).
    pub duration: u64,
    pub attained: bool,
    /// What is judged, as fio names it: "iops", "bw" or "lat"; on the
    /// slope (else the deviation), as a percentage of the mean (else
    /// absolute).
    pub metric: &'static str,
    pub slope_criterion: bool,
    pub percent: bool,
    /// The limit the criterion is held to, as written.
    pub limit: f64,
    /// The last value judged against the limit.
    pub criterion: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// The samples, oldest first (bytes/s and IOPS), as fio prints them.
    pub bw: Vec<u64>,
    pub iops_data: Vec<u64>,
    /// The mean completion latency of each sample's I/Os in ns, oldest
    /// first; fio shows them only when judging latency.
    pub lat: Vec<u64>,
}

impl SteadyStateResult {
    /// fio's steadystate_bw_mean: integer mean of the samples.
    pub fn bw_mean(&self) -> u64 {
        mean(&self.bw)
    }

    /// fio's steadystate_iops_mean.
    pub fn iops_mean(&self) -> u64 {
        mean(&self.iops_data)
    }

    /// fio's steadystate_lat_mean.
    pub fn lat_mean(&self) -> u64 {
        mean(&self.lat)
    }
}

fn mean(v: &[u64]) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.iter().fold(0u64, |a, &b| a.wrapping_add(b)) / v.len() as u64
}
