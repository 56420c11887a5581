//! Latency of the engines that time an operation of their own (fio's
//! file engines: the create, stat or unlink of each file) instead of the
//! requests, which they complete at once. As in fio, the operation's time
//! is a completion latency sample of the job's direction (read when the
//! job reads, else write), and the requests get no latency samples at all
//! (fio's FIO_NOSTATS): the plan turns per-request tracking off.

use ioscope_engine::Queue;
use ioscope_stats::LatencyHistogram;

use super::results::LoopStats;

/// Where an engine-timed job's samples go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EngineTimed {
    /// The direction charged: 0 read, 1 write.
    pub dir: usize,
    /// Keep a histogram, for percentiles (`clat_percentiles`).
    pub hist: bool,
}

/// Takes the operation time the engine measured for the request just
/// settled, if it did one, and records it.
pub(super) fn record<Q: Queue>(stats: &mut LoopStats, timed: EngineTimed, q: &mut Q) {
    let Some(ns) = q.op_latency() else {
        return;
    };
    let dir = &mut stats.dirs[timed.dir];
    dir.clat.add(ns);
    if timed.hist {
        dir.clat_hist
            .get_or_insert_with(LatencyHistogram::new)
            .add(ns);
    }
    stats.lat_buckets.add(ns);
}
