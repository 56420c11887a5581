//! The text peak prints: a line a second, t/io_uring style, and the summary.
//! Figures are plain integers so scripts can read them.

use ioscope_engine::Backend;

use super::options::Settings;
use super::worker::Counts;

/// The settings, once, before the run: what t/io_uring prints as
/// `polled=..., fixedbufs=..., QD=...`, with every switch spelled out.
pub fn header(s: &Settings) -> String {
    let flag = |b: bool| u8::from(b);
    let engine = if s.nop() {
        "io_uring NOP"
    } else {
        s.backend.name()
    };
    let mut line = format!(
        "engine={engine}, QD={}, submit={}, complete={}, polled={}",
        s.depth,
        s.submit_batch,
        s.complete_batch,
        flag(s.polled)
    );
    if !s.nop() {
        line += &format!(
            ", bs={}, direct={}, random={}",
            s.block_size,
            flag(s.direct),
            flag(s.random)
        );
    }
    if matches!(s.backend, Backend::IoUring) {
        line += &format!(
            ", fixedbufs={}, register_files={}",
            flag(s.fixed_buffers),
            flag(s.register_files)
        );
    }
    if matches!(s.backend, Backend::IoUring | Backend::Nop) {
        line += &format!(", register_ring={}", flag(s.register_ring));
    }
    line + &format!(", threads={}, files={}", s.threads, s.files.len())
}

/// One line per thread: where it runs and what its queue settled on.
pub fn thread_line(index: usize, cpu: Option<usize>, note: Option<&str>, s: &Settings) -> String {
    let place = cpu.map_or(String::new(), |c| format!(" on CPU {c}"));
    format!(
        "thread {index}{place}: {}",
        note.unwrap_or(s.backend.name())
    )
}

/// What changed over one second (or a whole run), turned into a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// System calls over the interval, submit and reap sides together.
    pub calls: u64,
    pub submitted: u64,
    pub completed: u64,
}

impl Interval {
    /// The interval from `before` to `now`.
    pub fn between(before: Counts, now: Counts) -> Interval {
        let calls = (now.submit_calls + now.reap_calls) - (before.submit_calls + before.reap_calls);
        Interval {
            calls,
            submitted: now.submitted - before.submitted,
            completed: now.completed - before.completed,
        }
    }
}

/// `IOPS=1458342, BW=5696MiB/s, IOS/call=32/31`: completions in the
/// second, their bandwidth (left out for NOPs, which move no data) and, as
/// t/io_uring counts them, requests submitted and reaped per system call.
pub fn second_line(i: &Interval, block_size: u32, nop: bool) -> String {
    let mut line = format!("IOPS={}, ", i.completed);
    if !nop {
        let mib = u128::from(i.completed) * u128::from(block_size) / (1 << 20);
        line += &format!("BW={mib}MiB/s, ");
    }
    line + &format!("IOS/call={}", per_call(i))
}

/// `32/31`, or `-/-` when no system call was made (a backend that does not
/// count them).
fn per_call(i: &Interval) -> String {
    match (
        i.submitted.checked_div(i.calls),
        i.completed.checked_div(i.calls),
    ) {
        (Some(submitted), Some(completed)) => format!("{submitted}/{completed}"),
        _ => "-/-".into(),
    }
}

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Timeout,
    Signal,
}

/// The closing lines: why it stopped, the best second and the mean of the
/// seconds shown, with the system calls split by side.
pub fn summary(ending: Ending, seconds: &[u64], total: &Counts) -> String {
    let reason = match ending {
        Ending::Timeout => "timeout",
        Ending::Signal => "signal",
    };
    let mut out = format!("Exiting on {reason}\n");
    let Some(&max) = seconds.iter().max() else {
        out += "Stopped before the first second: no IOPS figure\n";
        return out;
    };
    let mean = seconds.iter().sum::<u64>() / seconds.len() as u64;
    out += &format!("Maximum IOPS={max}\n");
    out += &format!(
        "Average IOPS={mean} over {} s; {} requests, {} submit calls, {} reap calls\n",
        seconds.len(),
        total.completed,
        total.submit_calls,
        total.reap_calls
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(submitted: u64, completed: u64, submit_calls: u64, reap_calls: u64) -> Counts {
        Counts {
            submitted,
            completed,
            submit_calls,
            reap_calls,
        }
    }

    #[test]
    fn a_second_reads_like_t_io_urings() {
        let i = Interval::between(
            counts(100, 90, 3, 0),
            counts(1_472_100, 1_458_432, 23_003, 23_000),
        );
        assert_eq!(i.completed, 1_458_342);
        assert_eq!(
            second_line(&i, 4096, false),
            "IOPS=1458342, BW=5696MiB/s, IOS/call=32/31"
        );
        assert_eq!(second_line(&i, 4096, true), "IOPS=1458342, IOS/call=32/31");
    }

    #[test]
    fn no_calls_show_as_dashes() {
        let i = Interval::between(counts(0, 0, 0, 0), counts(10, 10, 0, 0));
        assert_eq!(
            second_line(&i, 1 << 20, false),
            "IOPS=10, BW=10MiB/s, IOS/call=-/-"
        );
    }

    #[test]
    fn summary_has_the_best_and_the_mean() {
        let s = summary(Ending::Timeout, &[10, 30, 20], &counts(60, 60, 4, 2));
        assert_eq!(
            s,
            "Exiting on timeout\nMaximum IOPS=30\n\
             Average IOPS=20 over 3 s; 60 requests, 4 submit calls, 2 reap calls\n"
        );
        let s = summary(Ending::Signal, &[], &Counts::default());
        assert!(s.starts_with("Exiting on signal\n"));
        assert!(s.contains("no IOPS figure"), "{s}");
    }
}
