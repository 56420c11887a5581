//! The end of a stream: a network job's peer closed the connection (or
//! sent fio's close message) before the job's size was moved. The last,
//! short transfer counts what it moved and the job ends without error,
//! as fio's receiver does when its sender is done.

use ioscope_engine::Queue;

use super::fill::Slot;
use super::ledger::{is_short, Ledger};

impl Ledger<'_> {
    /// For a short result on a queue whose stream has ended: counts the
    /// bytes it moved (none: nothing to count) and returns Some(false),
    /// which stops the worker. None for any other result.
    #[inline]
    pub(super) fn stream_ended<Q: Queue>(
        &mut self,
        q: &Q,
        slot: &Slot,
        result: i64,
        t_done: u64,
    ) -> Option<bool> {
        if !is_short(slot, result) || !q.ended() {
            return None;
        }
        if result > 0 {
            let moved = Slot {
                len: result as u32,
                ..*slot
            };
            self.finish(&moved, result, t_done);
        }
        Some(false)
    }
}
