//! fio's aggregate bandwidth log (`--bandwidth-log[=NAME]`): the bandwidth
//! of all jobs together, sampled while the run goes on, one line per data
//! direction in `NAME-read_bw.log`, `NAME-write_bw.log` and
//! `NAME-trim_bw.log`. fio computes it in its status thread from the bytes
//! every job has moved (eta.c's calc_thread_status): KiB/s over the time
//! since the last sample, with integer division, and no sample while a job
//! ramps up.

/// One sample: milliseconds since the run began, and KiB/s for read,
/// write and trim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AggBwSample {
    pub time_ms: u64,
    pub kib_s: [u64; 3],
}

/// The aggregate bandwidth log of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AggBwLog {
    /// The files' prefix: fio's default is `agg`.
    pub prefix: String,
    pub samples: Vec<AggBwSample>,
}

/// Turns running totals into samples.
#[derive(Clone, Debug)]
pub struct AggBwSampler {
    log: AggBwLog,
    /// Time (ms since the run began) and byte totals at the last sample.
    last_ms: u64,
    last_bytes: [u64; 3],
}

impl AggBwSampler {
    pub fn new(prefix: String) -> AggBwSampler {
        AggBwSampler {
            log: AggBwLog {
                prefix,
                samples: Vec::new(),
            },
            last_ms: 0,
            last_bytes: [0; 3],
        }
    }

    /// The bytes moved so far by every job (`bytes`, per direction) at
    /// `now_ms`: one sample of the rate since the last one. Nothing when no
    /// time has passed, as fio's calc_rate gives 0 then.
    pub fn sample(&mut self, now_ms: u64, bytes: [u64; 3]) {
        let ms = now_ms.saturating_sub(self.last_ms);
        if ms == 0 {
            return;
        }
        let mut kib_s = [0; 3];
        for (d, rate) in kib_s.iter_mut().enumerate() {
            let moved = bytes[d].saturating_sub(self.last_bytes[d]);
            *rate = moved * 1000 / ms / 1024;
        }
        self.log.samples.push(AggBwSample {
            time_ms: now_ms,
            kib_s,
        });
        self.last_ms = now_ms;
        self.last_bytes = bytes;
    }

    /// The samples taken. (While a job ramps up the caller takes none; the
    /// first sample after the ramp then spans it, as fio's does.)
    pub fn log(self) -> AggBwLog {
        self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_kib_per_second_since_the_last_one() {
        let mut s = AggBwSampler::new("agg".into());
        s.sample(500, [512 * 1024, 1024 * 1024, 0]);
        s.sample(1000, [1024 * 1024, 1024 * 1024, 0]);
        // No time passed: no sample.
        s.sample(1000, [4096 * 1024, 1024 * 1024, 0]);
        let log = s.log();
        assert_eq!(log.prefix, "agg");
        assert_eq!(
            log.samples,
            vec![
                AggBwSample {
                    time_ms: 500,
                    kib_s: [1024, 2048, 0]
                },
                AggBwSample {
                    time_ms: 1000,
                    kib_s: [1024, 0, 0]
                },
            ]
        );
    }
}
