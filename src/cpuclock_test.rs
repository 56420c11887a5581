//! `--cpuclock-test`: whether the time-stamp counters of the CPUs this
//! process may use agree, checked and printed as fio's `--cpuclock-test`
//! (gettime.c, fio_monotonic_clocktest with its debug lines). A thread
//! pinned to each CPU takes 100 000 turns through one shared counter,
//! reading its TSC between seeing a turn's number and claiming it. A turn
//! is claimed only if no other was claimed since its number was seen, so
//! its reading comes after every earlier turn's: in turn order the readings
//! must never go back, and each place where one does is a mismatch,
//! printed with both readings. The exit status is 1 when there is any, as
//! fio's.

use std::process::ExitCode;
use std::sync::atomic::{fence, AtomicU32, Ordering};
use std::sync::Barrier;

use ioscope_stats::{tsc_reader, Clock, ClockSource};

/// fio's CLOCK_ENTRIES_DEBUG: the turns each CPU takes.
const TURNS: usize = 100_000;

/// One turn: its number, and the TSC read just before it was claimed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Turn {
    seq: u32,
    tsc: u64,
}

/// What one CPU's thread saw.
struct Seen {
    cpu: u32,
    /// The TSC when the thread started its turns.
    first: u64,
    turns: Vec<Turn>,
}

pub fn run() -> anyhow::Result<ExitCode> {
    let Some(read) = tsc_reader() else {
        println!("cs: current platform does not support CPU clocks");
        return Ok(ExitCode::from(1));
    };
    let clock = Clock::new(ClockSource::Cpu);
    let reliable = clock.source() == ClockSource::Cpu;
    println!("cs: reliable_tsc: {}", if reliable { "yes" } else { "no" });
    if let Some(why) = clock.fallback_reason() {
        // ioscope's line, not fio's: what clocksource=cpu does here.
        println!("cs: clocksource=cpu uses clock_gettime instead: {why}");
    }
    let cpus = ioscope_run::doctor::allowed_cpus();
    println!("cs: Testing {} CPUs", cpus.len());
    let next = AtomicU32::new(0);
    let gate = Barrier::new(cpus.len());
    let results: Vec<Result<Seen, String>> = std::thread::scope(|s| {
        let threads: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let (next, gate) = (&next, &gate);
                s.spawn(move || take_turns(cpu, read, next, gate))
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err("its thread panicked".into()))
            })
            .collect()
    });
    let mut seen = Vec::with_capacity(results.len());
    let mut failed = 0;
    for r in results {
        match r {
            Ok(s) => seen.push(s),
            Err(why) => {
                eprintln!("ioscope: --cpuclock-test: {why}");
                failed += 1;
            }
        }
    }
    for s in &seen {
        let clocks = match (s.turns.first(), s.turns.last()) {
            (Some(a), Some(b)) => b.tsc.wrapping_sub(a.tsc),
            _ => 0,
        };
        println!(
            "cs: cpu{:3}: {clocks} clocks seen, first {}",
            s.cpu, s.first
        );
        // The most common breakage, as fio checks: a counter stuck at 0.
        if clocks == 0 && s.turns.first().is_some_and(|t| t.tsc == 0) {
            eprintln!("ioscope: --cpuclock-test: the TSC of CPU {} reads 0", s.cpu);
            failed += 1;
        }
    }
    if failed > 0 {
        eprintln!("Clocksource test: {failed} threads failed");
        return Ok(ExitCode::from(1));
    }
    let in_order = in_turn_order(&seen);
    let mut mismatches = 0u64;
    for pair in in_order.windows(2) {
        let ((cpu_a, a), (cpu_b, b)) = (pair[0], pair[1]);
        if a.tsc > b.tsc {
            println!("cs: CPU clock mismatch (diff={}):", a.tsc - b.tsc);
            println!("\t CPU{cpu_a:3}: TSC={}, SEQ={}", a.tsc, a.seq);
            println!("\t CPU{cpu_b:3}: TSC={}, SEQ={}", b.tsc, b.seq);
            mismatches += 1;
        }
    }
    if mismatches > 0 {
        println!("cs: Failed: {mismatches}");
        Ok(ExitCode::from(1))
    } else {
        println!("cs: Pass!");
        Ok(ExitCode::SUCCESS)
    }
}

/// One CPU's turns: pinned to `cpu`, it waits at `gate` for the others (a
/// thread that cannot pin waits too, so that no thread waits for it
/// forever), then takes `TURNS` turns of `next`.
fn take_turns(
    cpu: u32,
    read: fn() -> u64,
    next: &AtomicU32,
    gate: &Barrier,
) -> Result<Seen, String> {
    let pinned = ioscope_run::pin_current_thread(&[cpu]);
    gate.wait();
    pinned.map_err(|e| format!("cannot pin a thread to CPU {cpu}: {e}"))?;
    let first = read();
    let mut turns = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        loop {
            let seq = next.load(Ordering::Relaxed);
            // fio's __sync_synchronize: the counter is read before the TSC.
            fence(Ordering::SeqCst);
            let tsc = read();
            if next
                .compare_exchange(seq, seq + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                turns.push(Turn { seq, tsc });
                break;
            }
        }
    }
    Ok(Seen { cpu, first, turns })
}

/// Every turn with its CPU, in turn order. Each number from 0 was claimed
/// once, so a turn's number is its place.
fn in_turn_order(seen: &[Seen]) -> Vec<(u32, Turn)> {
    let total: usize = seen.iter().map(|s| s.turns.len()).sum();
    let mut order = vec![(0, Turn { seq: 0, tsc: 0 }); total];
    for s in seen {
        for t in &s.turns {
            order[t.seq as usize] = (s.cpu, *t);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_put_in_the_order_they_were_claimed() {
        let seen = [
            Seen {
                cpu: 0,
                first: 0,
                turns: vec![Turn { seq: 0, tsc: 10 }, Turn { seq: 2, tsc: 30 }],
            },
            Seen {
                cpu: 3,
                first: 0,
                turns: vec![Turn { seq: 1, tsc: 25 }],
            },
        ];
        let cpus: Vec<u32> = in_turn_order(&seen).iter().map(|(c, _)| *c).collect();
        assert_eq!(cpus, [0, 3, 0]);
    }
}
