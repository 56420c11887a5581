//! The clock every measurement uses: the TSC, calibrated, with a checked
//! fallback to CLOCK_MONOTONIC.
//!
//! `now()` returns raw ticks (TSC cycles, or nanoseconds of CLOCK_MONOTONIC)
//! and `to_ns()` turns a difference of two readings into nanoseconds with one
//! 64x64-bit multiply and a shift. The TSC is calibrated once per process
//! against CLOCK_MONOTONIC and only used when the CPU promises it ticks at a
//! constant rate in every power state (invariant TSC) and the calibration
//! agrees with itself; anything else falls back to CLOCK_MONOTONIC and says
//! why.

use std::sync::OnceLock;

use crate::Notice;

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

impl ClockSource {
    /// The `clocksource` value that names it.
    pub fn fio_name(self) -> &'static str {
        match self {
            ClockSource::Cpu => "cpu",
            ClockSource::ClockGettime => "clock_gettime",
            ClockSource::Gettimeofday => "gettimeofday",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    source: ClockSource,
    /// The source asked for and why it was not used, when it was not.
    fallback: Option<(ClockSource, &'static str)>,
    /// ns = (ticks * mult) >> shift. For CLOCK_MONOTONIC ticks are ns:
    /// mult 1, shift 0.
    mult: u64,
    shift: u32,
}

/// Why gettimeofday is not used as such: it is wall-clock time, which NTP or
/// an administrator can step backwards in the middle of a run, and it only
/// has microsecond resolution.
const GETTIMEOFDAY_NOTE: &str =
    "gettimeofday is served by CLOCK_MONOTONIC: wall-clock time can step backwards during a run";

impl Clock {
    /// The clock for `wanted`, or CLOCK_MONOTONIC when the TSC is not usable.
    pub fn new(wanted: ClockSource) -> Clock {
        match wanted {
            ClockSource::ClockGettime => Clock::monotonic(None),
            ClockSource::Gettimeofday => {
                Clock::monotonic(Some((ClockSource::Gettimeofday, GETTIMEOFDAY_NOTE)))
            }
            ClockSource::Cpu => match tsc_calibration() {
                Ok(cal) => Clock {
                    source: ClockSource::Cpu,
                    fallback: None,
                    mult: cal.mult,
                    shift: cal.shift,
                },
                Err(reason) => Clock::monotonic(Some((ClockSource::Cpu, reason))),
            },
        }
    }

    fn monotonic(fallback: Option<(ClockSource, &'static str)>) -> Clock {
        Clock {
            source: ClockSource::ClockGettime,
            fallback,
            mult: 1,
            shift: 0,
        }
    }

    /// The source actually in use.
    pub fn source(&self) -> ClockSource {
        self.source
    }

    /// Why the wanted source was not used, if it was not.
    pub fn fallback_reason(&self) -> Option<&'static str> {
        self.fallback.map(|(_, reason)| reason)
    }

    /// The notice a run carries when the wanted source was not used.
    pub fn notice(&self) -> Option<Notice> {
        self.fallback.map(|(asked, reason)| Notice::ClockFallback {
            asked: asked.fio_name(),
            reason: reason.to_string(),
        })
    }

    /// Current time in ticks of this clock.
    #[inline]
    pub fn now(&self) -> u64 {
        if self.source == ClockSource::Cpu {
            read_tsc()
        } else {
            monotonic_ns()
        }
    }

    /// Converts a tick count (usually a difference of two `now()`) to ns.
    #[inline]
    pub fn to_ns(&self, ticks: u64) -> u64 {
        ((ticks as u128 * self.mult as u128) >> self.shift) as u64
    }

    /// Nanoseconds from `start` to `end` (two `now()` readings), 0 if `end`
    /// is earlier, which a TSC read on another core can be by a few cycles.
    #[inline]
    pub fn elapsed_ns(&self, start: u64, end: u64) -> u64 {
        self.to_ns(end.saturating_sub(start))
    }

    /// The number of ticks in `ns` nanoseconds (the inverse of `to_ns`, for
    /// deadlines; not meant for the per-I/O path).
    pub fn ticks_for_ns(&self, ns: u64) -> u64 {
        (((ns as u128) << self.shift) / self.mult as u128).min(u64::MAX as u128) as u64
    }
}

/// The time-stamp counter as `clocksource=cpu` reads it, where the CPU has
/// one (x86_64): for checks of the counter itself (`--cpuclock-test`);
/// measurements go through a calibrated `Clock`.
pub fn tsc_reader() -> Option<fn() -> u64> {
    cfg!(target_arch = "x86_64").then_some(read_tsc as fn() -> u64)
}

/// CLOCK_MONOTONIC in nanoseconds (vDSO, no system call on Linux).
#[inline]
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write to; CLOCK_MONOTONIC always
    // exists on Linux, so the call cannot fail.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Plain RDTSC, as fio uses. It may execute a few dozen cycles early
/// relative to surrounding loads; RDTSCP or LFENCE would order it but cost
/// more on every I/O, and that skew is far below the histogram's resolution
/// at the microsecond latencies storage has.
#[cfg(target_arch = "x86_64")]
#[inline]
fn read_tsc() -> u64 {
    // SAFETY: RDTSC exists on every x86_64 CPU; a TSC clock is only built
    // after CPUID showed it usable.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn read_tsc() -> u64 {
    unreachable!("a TSC clock is never built on this architecture")
}

/// The result of calibrating the TSC against CLOCK_MONOTONIC.
#[derive(Clone, Copy, Debug)]
struct Calibration {
    mult: u64,
    shift: u32,
}

/// Calibrates once per process; every later Clock reuses the answer.
fn tsc_calibration() -> Result<Calibration, &'static str> {
    static CAL: OnceLock<Result<Calibration, &'static str>> = OnceLock::new();
    *CAL.get_or_init(calibrate_tsc)
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate_tsc() -> Result<Calibration, &'static str> {
    Err("the TSC clock is only implemented on x86_64")
}

#[cfg(target_arch = "x86_64")]
fn calibrate_tsc() -> Result<Calibration, &'static str> {
    use std::time::Duration;

    if !invariant_tsc() {
        return Err("the CPU does not advertise an invariant TSC (CPUID 0x80000007 EDX bit 8)");
    }
    // Three paired readings 10 ms apart: the rate over each half must agree,
    // or the TSC is not steady enough (a migrating VM, a throttled host).
    let a = paired_reading();
    std::thread::sleep(Duration::from_millis(10));
    let b = paired_reading();
    std::thread::sleep(Duration::from_millis(10));
    let c = paired_reading();
    if !(a.tsc < b.tsc && b.tsc < c.tsc && a.ns < b.ns && b.ns < c.ns) {
        return Err("the TSC did not advance with CLOCK_MONOTONIC during calibration");
    }
    let rate = |x: Reading, y: Reading| (y.tsc - x.tsc) as f64 / (y.ns - x.ns) as f64;
    let (first, second) = (rate(a, b), rate(b, c));
    if !(0.1..=10.0).contains(&first) {
        return Err("the calibrated TSC rate is outside 100 MHz to 10 GHz");
    }
    // 200 ppm: a few hundred ns of scheduling noise on a 10 ms window is
    // well inside this; a TSC that is being scaled or stepped is not.
    if (first - second).abs() > first * 2e-4 {
        return Err("the TSC rate was not stable during calibration");
    }
    Calibration::from_ratio(c.ns - a.ns, c.tsc - a.tsc)
        .ok_or("the calibrated TSC rate cannot be represented")
}

impl Calibration {
    /// Fixed point for ns = ticks * ns_per / ticks_per: the largest shift
    /// (at most 64) that keeps mult below 2^63, so the 128-bit product
    /// never overflows; for any rate calibration accepts (up to 10 GHz) mult
    /// is above 2^60, so truncating it costs less than one part in 2^60.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn from_ratio(ns_per: u64, ticks_per: u64) -> Option<Calibration> {
        if ns_per == 0 || ticks_per == 0 {
            return None;
        }
        for shift in (0..=64u32).rev() {
            let mult = ((ns_per as u128) << shift) / ticks_per as u128;
            if mult < 1 << 63 {
                return (mult > 0).then_some(Calibration {
                    mult: mult as u64,
                    shift,
                });
            }
        }
        None
    }
}

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Reading {
    tsc: u64,
    ns: u64,
}

/// A TSC value and a CLOCK_MONOTONIC value taken as close together as this
/// thread can: the best of several tries, bracketing the clock_gettime call
/// by two TSC reads and keeping the narrowest bracket's midpoint.
#[cfg(target_arch = "x86_64")]
fn paired_reading() -> Reading {
    let mut best = (u64::MAX, Reading { tsc: 0, ns: 0 });
    for _ in 0..16 {
        let before = read_tsc();
        let ns = monotonic_ns();
        let after = read_tsc();
        let width = after.wrapping_sub(before);
        if width < best.0 {
            best = (
                width,
                Reading {
                    tsc: before + width / 2,
                    ns,
                },
            );
        }
    }
    best.1
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID is available on every x86_64 CPU; the extended leaf is
    // only queried after leaf 0x80000000 says it exists. (Newer compilers
    // declare __cpuid safe; the block keeps older ones building.)
    #[allow(unused_unsafe)]
    unsafe {
        if __cpuid(0x8000_0000).eax < 0x8000_0007 {
            return false;
        }
        __cpuid(0x8000_0007).edx & (1 << 8) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn fixed_point_converts_exactly_enough() {
        // A 3 GHz TSC: 3e9 ticks are one second.
        let cal = Calibration::from_ratio(1_000_000_000, 3_000_000_000).unwrap();
        let clock = Clock {
            source: ClockSource::Cpu,
            fallback: None,
            mult: cal.mult,
            shift: cal.shift,
        };
        assert!(clock.to_ns(3_000_000_000).abs_diff(1_000_000_000) <= 1);
        // An hour stays within a nanosecond.
        let hour = 3_600_000_000_000u64;
        assert!(clock.to_ns(hour * 3).abs_diff(hour) <= 1);
        assert!(clock.ticks_for_ns(1_000_000).abs_diff(3_000_000) <= 1);
        // A slow counter (25 MHz) needs a smaller shift.
        let slow = Calibration::from_ratio(1_000_000_000, 25_000_000).unwrap();
        assert!(slow.shift < 64);
        let ns = ((1_000u128 * slow.mult as u128) >> slow.shift) as u64;
        assert!(ns.abs_diff(40_000) <= 1);
        assert!(Calibration::from_ratio(0, 5).is_none());
    }

    #[test]
    fn monotonic_source_counts_nanoseconds() {
        let clock = Clock::new(ClockSource::ClockGettime);
        assert_eq!(clock.source(), ClockSource::ClockGettime);
        assert_eq!(clock.fallback_reason(), None);
        assert_eq!(clock.to_ns(123_456_789), 123_456_789);
        assert_eq!(clock.ticks_for_ns(42), 42);
    }

    #[test]
    fn gettimeofday_is_served_by_monotonic_with_a_note() {
        let clock = Clock::new(ClockSource::Gettimeofday);
        assert_eq!(clock.source(), ClockSource::ClockGettime);
        assert!(clock.fallback_reason().is_some());
        let notice = clock.notice().unwrap();
        assert_eq!(notice.option(), Some("clocksource"));
        assert!(notice
            .message()
            .starts_with("clocksource=gettimeofday was not used"));
        assert_eq!(Clock::new(ClockSource::ClockGettime).notice(), None);
    }

    #[test]
    fn every_source_is_monotonic() {
        for wanted in [ClockSource::Cpu, ClockSource::ClockGettime] {
            let clock = Clock::new(wanted);
            let mut last = clock.now();
            for _ in 0..100_000 {
                let now = clock.now();
                assert!(now >= last, "{wanted:?} went backwards");
                last = now;
            }
        }
    }

    #[test]
    fn cpu_clock_agrees_with_monotonic_over_a_sleep() {
        let clock = Clock::new(ClockSource::Cpu);
        if let Some(reason) = clock.fallback_reason() {
            println!("TSC not in use here ({reason}); checking the fallback");
        }
        let (t0, m0) = (clock.now(), monotonic_ns());
        std::thread::sleep(Duration::from_millis(50));
        let (t1, m1) = (clock.now(), monotonic_ns());
        let ours = clock.elapsed_ns(t0, t1) as f64;
        let reference = (m1 - m0) as f64;
        // Generous: this checks the calibration is not grossly wrong, not
        // how good it is.
        assert!(
            (ours - reference).abs() < reference * 0.05 + 1e6,
            "clock said {ours} ns, CLOCK_MONOTONIC {reference} ns"
        );
    }

    #[test]
    fn elapsed_is_zero_when_end_precedes_start() {
        let clock = Clock::new(ClockSource::ClockGettime);
        assert_eq!(clock.elapsed_ns(10, 5), 0);
    }
}
