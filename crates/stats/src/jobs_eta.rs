//! How the jobs stand while they run: fio's `struct jobs_eta`, which its
//! status line shows and its server sends its clients. One value is made
//! by the run (a local run's status line, a server's reply) and shown by
//! the report; a client adds its servers' together.

/// `eta_sec` when no estimate can be made yet (fio's `INT_MAX`: the first
/// three seconds, or a job without size or time).
pub const ETA_UNKNOWN: u64 = i32::MAX as u64;

/// fio's `struct jobs_eta`, its fields in fio's units. The per-direction
/// arrays are read, write, trim.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobsEta {
    /// Workers running (ramping ones included), ramping, not yet started,
    /// setting up.
    pub nr_running: u32,
    pub nr_ramp: u32,
    pub nr_pending: u32,
    pub nr_setting_up: u32,
    /// The running workers' `rate_min` and `rate` (bytes/s) and
    /// `rate_iops_min` and `rate_iops`.
    pub m_rate: [u64; 3],
    pub t_rate: [u64; 3],
    pub m_iops: [u32; 3],
    pub t_iops: [u32; 3],
    /// KiB/s and I/Os per second since the previous estimate.
    pub rate: [u64; 3],
    pub iops: [u32; 3],
    /// Whole seconds since the run began (rounded up), and left.
    pub elapsed_sec: u64,
    pub eta_sec: u64,
    /// The jobs' `kb_base` is a power of two (IEC prefixes).
    pub is_pow2: bool,
    /// fio's `enum n2s_unit` of the rates: [`UNIT_BYTES`] or [`UNIT_BITS`]
    /// (0, none, from fio's server: it sends the option before its
    /// fix-up).
    pub unit_base: u32,
    pub sig_figs: u32,
    /// Files the running workers hold open.
    pub files_open: u32,
    /// Workers in all.
    pub nr_threads: u32,
    /// Each worker's state letter, condensed (`R(2),_(1)`).
    pub run_str: String,
}

/// fio's `N2S_BYTEPERSEC` and `N2S_BITPERSEC`.
pub const UNIT_BYTES: u32 = 4;
pub const UNIT_BITS: u32 = 5;

impl JobsEta {
    /// Adds another server's figures, as fio's client sums its servers'
    /// (fio_client_sum_jobs_eta): counts and rates add, elapsed times add
    /// too, the longest estimate wins, and the last state string is kept.
    /// (One difference: see the scale below.)
    pub fn add(&mut self, other: &JobsEta) {
        self.nr_running += other.nr_running;
        self.nr_ramp += other.nr_ramp;
        self.nr_pending += other.nr_pending;
        self.nr_setting_up += other.nr_setting_up;
        self.files_open += other.files_open;
        for d in 0..3 {
            self.m_rate[d] += other.m_rate[d];
            self.t_rate[d] += other.t_rate[d];
            self.m_iops[d] += other.m_iops[d];
            self.t_iops[d] += other.t_iops[d];
            self.rate[d] += other.rate[d];
            self.iops[d] += other.iops[d];
        }
        self.elapsed_sec += other.elapsed_sec;
        self.eta_sec = self.eta_sec.max(other.eta_sec);
        self.nr_threads += other.nr_threads;
        // The servers' scale (IEC or SI, the unit, the figures). fio's
        // client leaves these zero in its sum, so its status line shows
        // SI prefixes without a unit (`r=36.1G`); ioscope's keeps them.
        self.is_pow2 = other.is_pow2;
        self.unit_base = other.unit_base;
        self.sig_figs = other.sig_figs;
        self.run_str.clone_from(&other.run_str);
    }
}

/// fio's condensed state string: one letter per worker, runs of the same
/// letter written once with their count (`rrW` is `r(2),W(1)`).
pub fn condensed(letters: impl IntoIterator<Item = char>) -> String {
    let mut out = String::new();
    let mut current: Option<(char, usize)> = None;
    for c in letters {
        match current {
            Some((l, n)) if l == c => current = Some((l, n + 1)),
            Some((l, n)) => {
                out += &format!("{l}({n}),");
                current = Some((c, 1));
            }
            None => current = Some((c, 1)),
        }
    }
    if let Some((l, n)) = current {
        out += &format!("{l}({n})");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_condensed_as_fio_writes_them() {
        assert_eq!(condensed("rrW".chars()), "r(2),W(1)");
        assert_eq!(condensed("R_R".chars()), "R(1),_(1),R(1)");
        assert_eq!(condensed("".chars()), "");
    }

    #[test]
    fn servers_add_up_as_fios_client_adds_them() {
        let one = JobsEta {
            nr_running: 1,
            rate: [100, 0, 0],
            iops: [25, 0, 0],
            elapsed_sec: 4,
            eta_sec: 6,
            run_str: "r(1)".into(),
            ..JobsEta::default()
        };
        let two = JobsEta {
            nr_running: 2,
            rate: [50, 10, 0],
            iops: [5, 3, 0],
            elapsed_sec: 3,
            eta_sec: 9,
            run_str: "W(2)".into(),
            ..JobsEta::default()
        };
        let mut sum = JobsEta::default();
        sum.add(&one);
        sum.add(&two);
        assert_eq!(sum.nr_running, 3);
        assert_eq!(sum.rate, [150, 10, 0]);
        assert_eq!(sum.iops, [30, 3, 0]);
        assert_eq!(sum.elapsed_sec, 7);
        assert_eq!(sum.eta_sec, 9);
        assert_eq!(sum.run_str, "W(2)");
    }
}
