//! What the unit tests of several backends share: one request sent and
//! waited for, whichever way the queue completes it.

use crate::queue::{Queue, Submitted};
use crate::request::{Op, Request};

/// Sends one request at slot 0 of file 0 and returns its result, from
/// `submit` (synchronous backends) or from one commit and reap.
pub(crate) fn complete_one<Q: Queue>(q: &mut Q, op: Op, offset: u64, len: u32) -> i64 {
    let req = Request {
        op,
        file: 0,
        offset,
        len,
        slot: 0,
    };
    match q.submit(&req).unwrap() {
        Submitted::Completed(result) => result,
        Submitted::Queued => {
            q.commit().unwrap();
            let mut result = None;
            assert_eq!(q.reap(1, 1, |c| result = Some(c.result)).unwrap(), 1);
            assert_eq!(q.in_flight(), 0);
            result.expect("one completion")
        }
    }
}
