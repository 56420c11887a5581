//! The loop's side of pacing: holding back as the [`Pacer`] says (waiting
//! for in-flight I/O first where fio quiesces), and the `rate_min` check.

use std::io;
use std::time::Duration;

use ioscope_engine::{Completion, Op, Queue};

use super::fill::Slot;
use super::ledger::Ledger;
use super::results::IoFailure;
use crate::pacing::Pacer;

/// How long a hold that does not quiesce (io_submit_mode=offload) sleeps
/// at a time while I/O is in flight: completions are reaped between, so
/// their times stay this close to true without a spinning worker.
const OFFLOAD_STEP: Duration = Duration::from_micros(100);

/// The worker is held back: waits for the in-flight I/O where the pacer
/// quiesces, then sleeps through the hold. Returns false when the worker
/// must stop (a completion failed it).
pub(super) fn hold<Q: Queue>(
    pacer: &mut Pacer,
    q: &mut Q,
    ledger: &mut Ledger,
    reaped: &mut Vec<Completion>,
    slots: &[Slot],
    free: &mut Vec<u32>,
    deadline: Option<u64>,
) -> io::Result<bool> {
    let clock = ledger.clock;
    let sleep = |at, deadline| super::sleep_until(&clock, at, deadline);
    let quiesce = pacer.quiesces();
    let mut in_flight = q.in_flight();
    if quiesce {
        while in_flight > 0 {
            let (_, ok, _) = ledger.reap(q, in_flight, in_flight, reaped, slots, free)?;
            if !ok {
                return Ok(false);
            }
            in_flight = q.in_flight();
        }
    } else if in_flight > 0 {
        let (_, ok, _) = ledger.reap(q, 0, in_flight, reaped, slots, free)?;
        if !ok {
            return Ok(false);
        }
        if q.in_flight() > 0 {
            pacer.wait(deadline, Some(OFFLOAD_STEP), sleep);
            return Ok(true);
        }
    }
    pacer.wait(deadline, None, sleep);
    Ok(true)
}

/// fio's check_min_rate between I/Os (not during the ramp): a direction
/// below its floor fails the job with EIO, as fio's
/// "rate_min=...B/s not met" does. Returns false when the worker must
/// stop.
pub(super) fn min_rate_met(pacer: &mut Pacer, ledger: &mut Ledger, now: u64) -> bool {
    let done = ledger.stats.dirs.each_ref().map(|d| (d.bytes, d.ios));
    let Some(message) = pacer.check_min_rate(now, done) else {
        return true;
    };
    ledger.stats.failure.get_or_insert(IoFailure {
        errno: libc::EIO,
        op: Op::Read,
        file: 0,
        offset: 0,
        len: 0,
        detail: Some(message),
    });
    false
}

/// fio's lat_fatal: an I/O slower than `max_latency` fails the job with
/// ETIMEDOUT and fio's message.
#[cold]
pub(super) fn too_late(
    slot: &Slot,
    op: Op,
    lat_ns: u64,
    max_ns: u64,
    path: &std::path::Path,
) -> IoFailure {
    IoFailure {
        errno: libc::ETIMEDOUT,
        op,
        file: slot.file,
        offset: slot.offset,
        len: slot.len,
        detail: Some(format!(
            "latency of {lat_ns} nsec exceeds specified max ({max_ns} nsec): {} {} {} {}",
            path.display(),
            op.name(),
            slot.offset,
            slot.len
        )),
    }
}
