//! `zonemode=zbd`: the zone resets and finishes the workload decided on
//! (on a zoned device) are made once the worker's I/O in flight has
//! completed (fio's `io_u_quiesce` before `zbd_reset_zone` and
//! `zbd_finish_zone`), so that a write queued before one cannot land after
//! it, at any iodepth. The workload may also ask for that wait alone, with
//! no command (fio's `io_u_quiesce` when the open zones are at their
//! limit).

use std::io;

use ioscope_engine::Queue;
use ioscope_workload::{Workload, ZoneCommand};

use super::file_events::Batches;
use super::fill::commit;
use super::ledger::Ledger;

/// Commits what is pending, reaps everything in flight, then makes the
/// device commands in order. False when the worker must stop: a
/// completion said so, or a command failed (the workload keeps why, the
/// job's error).
pub(super) fn make<Q: Queue>(
    commands: Vec<ZoneCommand>,
    q: &mut Q,
    ledger: &mut Ledger,
    workload: &mut Workload,
    io: Batches,
    timing: bool,
) -> io::Result<bool> {
    let Batches {
        pending,
        slots,
        free,
        reaped,
    } = io;
    if !pending.is_empty() {
        let clock = ledger.clock;
        commit(q, pending, slots, &mut ledger.stats, &clock, timing)?;
    }
    while q.in_flight() > 0 {
        let max = ledger.cfg.complete_max.max(1);
        let (_, ok, _) = ledger.reap(q, 1, max, reaped, slots, free)?;
        if !ok {
            return Ok(false);
        }
    }
    // The completed writes count now, as fio's completions do within its
    // wait: a failed write's zone is recovered before the I/O chosen goes.
    if let Some(done) = ledger.zone_writes.as_mut() {
        workload.zone_writes_done(done);
    }
    for command in &commands {
        if let Err(why) = command.apply() {
            workload.zone_command_failed(why);
            return Ok(false);
        }
    }
    Ok(true)
}
