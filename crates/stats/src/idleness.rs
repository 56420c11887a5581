//! fio's `--idle-prof` figures: how idle each CPU stayed during the run.

/// What the idle threads measured (fio's idle_prof_common).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Idleness {
    /// Per CPU, in CPU order, the share of the run (0 to 1, a little
    /// above where the calibration was slow) its idle thread had.
    pub per_cpu: Vec<f64>,
    /// Whether the report lists each CPU (`percpu`) besides the mean.
    pub listed: bool,
    /// The time one unit of work took, mean and standard deviation over
    /// the CPUs, in µs.
    pub unit_mean_us: f64,
    pub unit_stddev_us: f64,
}

impl Idleness {
    /// The mean over the CPUs, in percent (fio's system line).
    pub fn system_percent(&self) -> f64 {
        let n = self.per_cpu.len().max(1) as f64;
        self.per_cpu.iter().sum::<f64>() / n * 100.0
    }
}
