//! Latency of the engines that time an operation of their own instead of
//! the requests: fio's file engines (the create, stat or unlink of each
//! file, which the requests that follow on the file wait for not at all)
//! and the engines that do no I/O (cpuio's burn, exec's check of its
//! program). As in fio, the operation's time is a completion latency
//! sample of the job's direction (read when the job reads, else write);
//! the file engines' requests get no latency of their own (fio's
//! FIO_NOSTATS), and those that do no I/O move no bytes (FIO_NOIO), their
//! whole latency being the engine's. The plan turns per-request tracking
//! off for these engines.

use ioscope_engine::Queue;
use ioscope_stats::LatencyHistogram;

use super::fill::Slot;
use super::ledger::Ledger;

/// Where an engine-timed job's samples go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EngineTimed {
    /// The direction charged: 0 read, 1 write.
    pub dir: usize,
    /// Record the engine's times (not with disable_lat or gtod_reduce).
    pub measure: bool,
    /// Keep histograms, for percentiles (`clat_percentiles`).
    pub hist: bool,
    /// The engine moves no data (cpuio, exec): requests count as I/Os of
    /// no bytes, and the operation is their total latency too.
    pub no_data: bool,
}

/// Accounts one completion of an engine-timed job (instead of
/// [`Ledger::settle`]'s); false when the job must stop.
pub(super) fn settle<Q: Queue>(
    ledger: &mut Ledger,
    q: &mut Q,
    slot: &Slot,
    result: i64,
    t_done: u64,
    timed: EngineTimed,
) -> bool {
    let counted = if timed.no_data && result >= 0 {
        // An I/O of no bytes: counted, nothing short about it.
        let empty = Slot { len: 0, ..*slot };
        ledger.finish(&empty, 0, t_done)
    } else {
        ledger.finish(slot, result, t_done)
    };
    if !counted {
        return false;
    }
    let Some(ns) = q.op_latency().filter(|_| timed.measure) else {
        return true;
    };
    let stats = &mut ledger.stats;
    let dir = &mut stats.dirs[timed.dir];
    dir.clat.add(ns);
    if timed.hist {
        dir.clat_hist
            .get_or_insert_with(LatencyHistogram::new)
            .add(ns);
    }
    if timed.no_data {
        dir.lat.add(ns);
    }
    stats.lat_buckets.add(ns);
    true
}
