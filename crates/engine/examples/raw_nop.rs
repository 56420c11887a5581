//! The floor `ioscope peak -N1` is measured against: io_uring NOPs driven
//! with the io-uring crate alone, no ioscope code, the way t/io_uring drives
//! them — depth 128, 32 NOPs handed over per io_uring_enter, which also
//! waits for 32 completions (NOPs complete inside the call, so it never
//! sleeps). The ring is set up as t/io_uring sets up its own (CQ ring as deep
//! as the queue, COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN, registered ring
//! fd), dropping what the kernel refuses.
//!
//! Usage: `cargo run --release --example raw_nop -p ioscope-engine [SECONDS]`
//! (default 5). Prints `raw NOP IOPS=N`: completions per second over the run.

use std::io;
use std::time::{Duration, Instant};

use io_uring::{opcode, IoUring};

/// Batches between clock reads: the clock stays out of the per-batch cost.
const BATCHES_PER_CLOCK_READ: u32 = 256;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: u64| match args.next().map(|a| a.parse::<u64>()) {
        None => default,
        Some(Ok(n)) if n > 0 && n <= 4096 => n,
        Some(_) => {
            eprintln!(
                "raw_nop: usage: raw_nop [SECONDS [DEPTH [BATCH]]], whole numbers from 1 to 4096"
            );
            std::process::exit(2);
        }
    };
    let seconds = arg(5);
    let depth = arg(128) as u32;
    let batch = (arg(32) as u32).min(depth);
    match run(Duration::from_secs(seconds), depth, batch) {
        Ok((done, elapsed)) => {
            println!(
                "raw NOP IOPS={}",
                (done as f64 / elapsed.as_secs_f64()) as u64
            )
        }
        Err(e) => {
            eprintln!("raw_nop: {e}");
            std::process::exit(1);
        }
    }
}

/// A ring with t/io_uring's flags, giving up the newest ones first where
/// the kernel refuses them (EINVAL).
fn ring(depth: u32) -> io::Result<IoUring> {
    let mut last = None;
    for flags in (0..=3).rev() {
        let mut b = IoUring::builder();
        b.setup_cqsize(depth);
        if flags >= 1 {
            b.setup_coop_taskrun();
        }
        if flags >= 2 {
            b.setup_single_issuer();
        }
        if flags >= 3 {
            b.setup_defer_taskrun();
        }
        match b.build(depth) {
            Ok(ring) => return Ok(ring),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.expect("at least one attempt was made"))
}

/// Keeps the ring busy for `run_for`; returns the completions and the time
/// they took.
fn run(run_for: Duration, depth: u32, batch: u32) -> io::Result<(u64, Duration)> {
    let mut ring = ring(depth)?;
    let (mut submitter, mut sq, mut cq) = ring.split();
    // Before Linux 5.18 there is nothing to register; the plain fd works.
    let _ = submitter.register_ring_fd();
    let nop = opcode::Nop::new().build();
    let mut in_flight = 0;
    let mut done = 0u64;
    let start = Instant::now();
    loop {
        for _ in 0..BATCHES_PER_CLOCK_READ {
            let n = batch.min(depth - in_flight);
            // The kernel has taken what was pushed before: see its head.
            sq.sync();
            for _ in 0..n {
                // SAFETY: a NOP names no memory and no file.
                unsafe { sq.push(&nop) }.expect("the SQ ring has room for the depth");
            }
            sq.sync();
            in_flight += n;
            submitter.submit_and_wait(batch.min(in_flight) as usize)?;
            cq.sync();
            for cqe in &mut cq {
                if cqe.result() < 0 {
                    return Err(io::Error::from_raw_os_error(-cqe.result()));
                }
                in_flight -= 1;
                done += 1;
            }
            // Hand the CQ slots back before the next submission: with a CQ
            // ring as deep as the queue, a stale head makes the kernel
            // take its overflow path.
            cq.sync();
        }
        let elapsed = start.elapsed();
        if elapsed >= run_for {
            return Ok((done, elapsed));
        }
    }
}
