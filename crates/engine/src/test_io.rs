//! What the unit tests of several backends share: a request, and one
//! request sent and waited for.

use crate::queue::{Queue, Submitted};
use crate::request::{Op, Request};

/// A request on file 0 with the data of buffer slot `slot`.
pub(crate) fn req(op: Op, offset: u64, len: u32, slot: u32) -> Request {
    Request {
        op,
        file: 0,
        offset,
        len,
        slot,
    }
}

/// The result of a request to a synchronous backend, which completes it
/// inside `submit`; panics if the backend queued it instead.
pub(crate) fn completed<Q: Queue>(q: &mut Q, r: Request) -> i64 {
    match q.submit(&r).unwrap() {
        Submitted::Completed(result) => result,
        Submitted::Queued => panic!("a synchronous backend queued a request"),
    }
}

/// Sends one request at slot 0 of file 0 and returns its result, from
/// `submit` (synchronous backends) or from one commit and reap.
pub(crate) fn complete_one<Q: Queue>(q: &mut Q, op: Op, offset: u64, len: u32) -> i64 {
    match q.submit(&req(op, offset, len, 0)).unwrap() {
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
