//! The clock every measurement uses: the TSC, calibrated, with a checked
//! fallback to CLOCK_MONOTONIC.

/// fio's `clocksource` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The CPU's time-stamp counter (fio `cpu`).
    Cpu,
    /// clock_gettime(CLOCK_MONOTONIC) (fio `clock_gettime`).
    ClockGettime,
    /// gettimeofday (fio `gettimeofday`).
    Gettimeofday,
}

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    _todo: (),
}

impl Clock {
    /// The clock for `wanted`, or CLOCK_MONOTONIC when the TSC is not usable.
    pub fn new(_wanted: ClockSource) -> Clock {
        todo!()
    }
    /// The source actually in use.
    pub fn source(&self) -> ClockSource {
        todo!()
    }
    /// Why the wanted source was not used, if it was not.
    pub fn fallback_reason(&self) -> Option<&'static str> {
        todo!()
    }
    /// Current time in ticks of this clock.
    #[inline]
    pub fn now(&self) -> u64 {
        todo!()
    }
    /// Converts a tick count (usually a difference of two `now()`) to ns.
    #[inline]
    pub fn to_ns(&self, _ticks: u64) -> u64 {
        todo!()
    }
}
